"""NumPy references for the held-out loop kernels (same format as benchmarks/loops/reference.py).

`REFERENCE[name](*args)` updates the written arrays in place and returns a tuple of the
kernel's results; `PREPARE[name](args)` fixes inputs that need particular values (loop
bounds passed as arguments); unsized (`memref<?x...>`) arguments get `DYNAMIC_DIM` entries.
"""

from __future__ import annotations

import numpy as np

DYNAMIC_DIM = 600  # larger than the kernels' constant bounds: the tail stays untouched


def horner_poly(coef, xs, ys):
    ys[:] = np.polyval(coef[::-1], xs)
    return ()


def threshold_i32(img, t, out):
    out[:] = np.where(img > t, 255, 0)
    return ()


def sum_n_i32(n, a):
    return (a[:n].sum(dtype=np.int32),)


def saxpy_n(n, a, x, y):
    y[:n] = np.float32(a) * x[:n] + y[:n]
    return ()


def dyn_dot(u, v):
    return (float(np.dot(u[:512], v[:512])),)


def dyn_affine_map(x, out):
    out[:512] = 0.5 * x[:512] + 1.0
    return ()


def mat_trace(A):
    return (np.trace(A),)


def mat_transpose(A, B):
    B[:] = A.T
    return ()


def matmul_small(A, B, C):
    C[:] = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
    return ()


def laplace_2d(u, lap):
    lap[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                       - 4.0 * u[1:-1, 1:-1])
    return ()


def norm_inf_f32(x):
    return (np.abs(x).max(),)


def rgb_to_gray(rgb, gray):
    px = rgb.reshape(-1, 3).astype(np.float64)
    gray[:] = px @ np.array([0.299, 0.587, 0.114])
    return ()


REFERENCE = {
    f.__name__: f for f in [
        horner_poly, threshold_i32, sum_n_i32, saxpy_n, dyn_dot, dyn_affine_map, mat_trace,
        mat_transpose, matmul_small, laplace_2d, norm_inf_f32, rgb_to_gray,
    ]
}


def _set(index, value):
    def prepare(args):
        args[index] = value
        return args
    return prepare


PREPARE = {
    "sum_n_i32": _set(0, 1500),
    "saxpy_n": _set(0, 1000),
    "threshold_i32": _set(1, 128),
}
