"""NumPy references for the kernels in this directory, written from each algorithm.

`REFERENCE[name](*args)` takes NumPy copies of the kernel's arguments in order (arrays
with the memref's dtype and shape, scalars as Python numbers), updates the arrays the
kernel writes in place, exactly as the kernel does, and returns a tuple with what the
kernel returns (empty when it returns nothing).

`PREPARE[name](args)` adjusts the seeded random inputs of kernels that need special
values (positive divisors, pixels in [0, 1] with some exact 0/1 values, bounds in order)
and returns the argument list.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

f32 = np.float32


# ---------------------------------------------------------------------------- BLAS


def blas_dot(a, b):
    return (np.dot(a.astype(np.float64), b.astype(np.float64)).astype(f32),)


def blas_axpy(alpha, x, y):
    y += alpha * x
    return ()


def blas_scal(alpha, x):
    x *= alpha
    return ()


def blas_asum(x):
    return (np.abs(x).sum(),)


def blas_nrm2_ss(x):
    return (np.dot(x, x),)


def blas_gemv(A, x, y):
    y[:] = A @ x
    return ()


def blas_gemv_t(A, x, y):
    y[:] = A.T @ x
    return ()


def blas_ger(alpha, x, y, A):
    A += np.outer(alpha * x, y)
    return ()


def blas_copy(x, y):
    y[:] = x
    return ()


def blas_gemv_ab(alpha, beta, A, x, y):
    y[:] = alpha * (A @ x) + beta * y
    return ()


def blas_amax(x):
    return (max(0.0, np.abs(x).max()),)


def blas_trmv(A, x, y):
    y[:] = np.triu(A) @ x
    return ()


def blas_waxpby(alpha, x, beta, y):
    return (alpha * x + beta * y,)


# ---------------------------------------------------------------------------- image blending


def blend_normal(base, active, opacity, out):
    o = f32(opacity)
    out[:] = o * active + (f32(1) - o) * base
    return ()


def blend_darken(base, active, out):
    out[:] = np.minimum(base, active)
    return ()


def blend_lighten(base, active, out):
    out[:] = np.maximum(base, active)
    return ()


def blend_multiply(base, active, out):
    out[:] = base * active // 255  # pixels are non-negative: floor == truncation
    return ()


def blend_multiply_f(base, active, out):
    out[:] = base * active
    return ()


def blend_linear_burn(base, active, out):
    out[:] = base + active - 255
    return ()


def blend_linear_dodge(base, active, out):
    out[:] = np.minimum(base + active, f32(1))
    return ()


def blend_screen(base, active, out):
    out[:] = base + active - base * active // 255
    return ()


def blend_color_dodge(base, active, out):
    with np.errstate(divide="ignore", invalid="ignore"):
        out[:] = np.where(active == 1.0, 1.0, base / (1.0 - active))
    return ()


def blend_color_burn(base, active, out):
    with np.errstate(divide="ignore", invalid="ignore"):
        out[:] = np.where(active == 0.0, 1.0, 1.0 - (1.0 - base) / active)
    return ()


def blend_overlay(base, active, out):
    out[:] = np.where(base >= 0.5, 1.0 - 2.0 * (1.0 - base) * (1.0 - active), 2.0 * base * active)
    return ()


def blend_difference(base, active, out):
    out[:] = np.abs(base - active)
    return ()


# ---------------------------------------------------------------------------- darknet


def darknet_scale_bias(x, scales):
    x *= scales[:, None]
    return ()


def darknet_add_bias(x, bias):
    x += bias[:, None]
    return ()


def darknet_mse(pred, truth):
    d = pred - truth
    return (np.dot(d, d) / 1000.0,)


def darknet_l2(pred, truth, delta, error):
    delta[:] = truth - pred
    error[:] = delta * delta
    return ()


def darknet_sum(x):
    return (x.astype(np.float64).sum().astype(f32),)


def darknet_mult_add(x, y, z):
    z += x * y
    return ()


def darknet_fill(alpha, x):
    x[:] = alpha
    return ()


def darknet_copy(x, y):
    y[:] = x[::2]
    return ()


def darknet_weighted_sum(a, b, s, c):
    c[:] = s * a + (1.0 - s) * b
    return ()


# ---------------------------------------------------------------------------- DSP


def dsp_fir(x, h, y):
    y[:] = sliding_window_view(x, h.shape[0])[: y.shape[0]] @ h
    return ()


def dsp_vadd(a, b, c):
    c[:] = a + b
    return ()


def dsp_vsub(a, b, c):
    c[:] = a - b
    return ()


def dsp_vmul(a, b, c):
    c[:] = a * b
    return ()


def dsp_reciprocal(x):
    return (1.0 / x,)


def dsp_energy(x):
    return (np.asarray(np.dot(x, x)),)


def dsp_xcorr(x, y, r):
    n = x.shape[0]
    r[:] = [np.dot(x, y[k:k + n]) for k in range(r.shape[0])]
    return ()


def dsp_moving_average(x, y):
    y[:] = sliding_window_view(x, 8)[: y.shape[0]].sum(axis=1) * 0.125
    return ()


def dsp_smooth3(x, y):
    y[1:-1] = (x[:-2] + x[1:-1] + x[2:]) / 3.0
    return ()


def dsp_ramp(x, y):
    ramp = np.arange(x.shape[0]).astype(f32) * f32(1e-3)
    y[:] = x * ramp
    return ()


# ---------------------------------------------------------------------------- llama / transformer


def llama_softmax_max(x):
    return (x.max(),)


def llama_softmax_sub(x, m, out):
    out[:] = x - m
    return ()


def llama_softmax_exp(x):
    x[:] = np.exp(x)
    return ()


def llama_softmax_sum(x):
    return (np.exp(x).sum(),)


def llama_softmax_div(x, s):
    x /= s
    return ()


def llama_rmsnorm_ss(x):
    x64 = x.astype(np.float64)
    return (np.asarray(np.dot(x64, x64), dtype=f32),)


def llama_rmsnorm_inv(x):
    return (1.0 / np.sqrt(np.dot(x, x) / x.shape[0] + 1e-5),)


def llama_rmsnorm_apply(o, x, w, ss):
    o[:] = w * (f32(ss) * x)
    return ()


def llama_matmul(xout, x, w):
    xout[:] = (w.reshape(xout.shape[0], x.shape[0]).astype(np.float64) @ x.astype(np.float64)).astype(f32)
    return ()


def llama_residual(x, r):
    x += r
    return ()


def llama_swiglu_mul(hb, hb2):
    hb *= hb2
    return ()


def llama_softmax_max_f64(x):
    return (np.asarray(x.max()),)


# ---------------------------------------------------------------------------- in-place updates, misc


def inplace_add_2d(a, b):
    a += b
    return ()


def inplace_fma(c, x, y):
    c += x * y
    return ()


def inplace_scale_rows(a, s):
    a *= s
    return ()


def mat_tril(a, b):
    b[:] = np.tril(a)
    return ()


def mks_sum_i32(x):
    return (x.sum(dtype=np.int32),)


def mks_max_i32(x):
    return (max(0, int(x.max())),)


def mks_clamp_i32(x, lo, hi, out):
    out[:] = np.minimum(np.maximum(x, lo), hi)
    return ()


def mks_sum_sq_i32(a, b):
    d = a - b
    return (np.asarray((d * d).sum(dtype=np.int32)),)


REFERENCE = {name: fn for name, fn in dict(globals()).items()
             if callable(fn) and name.split("_")[0] in
             {"blas", "blend", "darknet", "dsp", "llama", "inplace", "mat", "mks"}}


# ---------------------------------------------------------------------------- special inputs


def _unit_pixels(args, exact=None, at=None):
    """Pixels (and a float opacity) in [0, 1]; every 7th pixel of argument `at` set to `exact`."""
    args = [np.abs(a) if isinstance(a, np.ndarray) else abs(a) if isinstance(a, float) else a
            for a in args]
    if exact is not None:
        args[at].reshape(-1)[::7] = exact
    return args


def _nonzero(args):
    x = args[0]
    args[0] = np.where(x < 0, x - 0.1, x + 0.1)
    return args


def _clamp_bounds(args):
    args[1], args[2] = 50, 200
    return args


def _positive_divisor(args):
    args[1] = 1.0 + abs(args[1])
    return args


PREPARE = {
    "blend_color_dodge": lambda args: _unit_pixels(args, 1.0, 1),
    "blend_color_burn": lambda args: _unit_pixels(args, 0.0, 1),
    "blend_overlay": lambda args: _unit_pixels(args, 0.5, 0),
    "blend_normal": _unit_pixels,
    "blend_linear_dodge": _unit_pixels,
    "dsp_reciprocal": _nonzero,
    "llama_softmax_div": _positive_divisor,
    "mks_clamp_i32": _clamp_bounds,
}
