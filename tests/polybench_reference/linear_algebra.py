"""NumPy references for the PolyBench/C 4.2.1 linear-algebra and data-mining kernels.

Each function takes the same positional arguments as the MLIR `@kernel_<name>`
(i32 sizes, then f64 scalars, then the arrays) and updates the arrays in place.
They are written from the mathematics (whole-array NumPy expressions, triangular
masks), not from the loop nests, so they check the kernels independently. Arrays may
be larger than the sizes: only the leading `[:size]` block of each is read or written.
"""

from __future__ import annotations

import numpy as np


def _lower(n: int) -> np.ndarray:
    """Boolean mask of the lower triangle (diagonal included) of an n x n matrix."""
    return np.tri(n, n, dtype=bool)


# ---------------------------------------------------------------- BLAS-like kernels

def gemm(ni, nj, nk, alpha, beta, C, A, B):
    C[:ni, :nj] = beta * C[:ni, :nj] + alpha * (A[:ni, :nk] @ B[:nk, :nj])


def two_mm(ni, nj, nk, nl, alpha, beta, tmp, A, B, C, D):
    tmp[:ni, :nj] = alpha * (A[:ni, :nk] @ B[:nk, :nj])
    D[:ni, :nl] = beta * D[:ni, :nl] + tmp[:ni, :nj] @ C[:nj, :nl]


def three_mm(ni, nj, nk, nl, nm, E, A, B, F, C, D, G):
    E[:ni, :nj] = A[:ni, :nk] @ B[:nk, :nj]
    F[:nj, :nl] = C[:nj, :nm] @ D[:nm, :nl]
    G[:ni, :nl] = E[:ni, :nj] @ F[:nj, :nl]


def atax(m, n, A, x, y, tmp):
    tmp[:m] = A[:m, :n] @ x[:n]
    y[:n] = A[:m, :n].T @ tmp[:m]


def bicg(m, n, A, s, q, p, r):
    s[:m] = A[:n, :m].T @ r[:n]
    q[:n] = A[:n, :m] @ p[:m]


def doitgen(nr, nq, np_, A, C4, sum_):
    A[:nr, :nq, :np_] = np.einsum("rqs,sp->rqp", A[:nr, :nq, :np_], C4[:np_, :np_])
    if nr > 0 and nq > 0:
        # the scratch vector keeps the last (r, q) row
        sum_[:np_] = A[nr - 1, nq - 1, :np_]


def mvt(n, x1, x2, y_1, y_2, A):
    x1[:n] += A[:n, :n] @ y_1[:n]
    x2[:n] += A[:n, :n].T @ y_2[:n]


def gemver(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    a = A[:n, :n]
    a += np.outer(u1[:n], v1[:n]) + np.outer(u2[:n], v2[:n])
    x[:n] += beta * (a.T @ y[:n]) + z[:n]
    w[:n] += alpha * (a @ x[:n])


def gesummv(n, alpha, beta, A, B, tmp, x, y):
    tmp[:n] = A[:n, :n] @ x[:n]
    y[:n] = alpha * tmp[:n] + beta * (B[:n, :n] @ x[:n])


def symm(m, n, alpha, beta, C, A, B):
    # A is symmetric, stored in its lower triangle (upper part is never read)
    low = np.tril(A[:m, :m])
    sym = low + np.tril(A[:m, :m], -1).T
    C[:m, :n] = beta * C[:m, :n] + alpha * (sym @ B[:m, :n])


def syr2k(n, m, alpha, beta, C, A, B):
    a, b = A[:n, :m], B[:n, :m]
    new = beta * C[:n, :n] + alpha * (a @ b.T + b @ a.T)
    C[:n, :n] = np.where(_lower(n), new, C[:n, :n])


def syrk(n, m, alpha, beta, C, A):
    a = A[:n, :m]
    new = beta * C[:n, :n] + alpha * (a @ a.T)
    C[:n, :n] = np.where(_lower(n), new, C[:n, :n])


def trmm(m, n, alpha, A, B):
    # B := alpha * A^T B, A unit lower triangular (diagonal and upper part not read)
    unit_lower = np.tril(A[:m, :m], -1) + np.eye(m)
    B[:m, :n] = alpha * (unit_lower.T @ B[:m, :n])


# ---------------------------------------------------------------- data mining

def correlation(m, n, float_n, data, corr, mean, stddev):
    eps = 0.1
    d = data[:n, :m]
    mean[:m] = d.sum(axis=0) / float_n
    sd = np.sqrt(((d - mean[:m]) ** 2).sum(axis=0) / float_n)
    stddev[:m] = np.where(sd <= eps, 1.0, sd)
    d[:] = (d - mean[:m]) / (np.sqrt(float_n) * stddev[:m])
    c = d.T @ d
    np.fill_diagonal(c, 1.0)
    corr[:m, :m] = c


def covariance(m, n, float_n, data, cov, mean):
    d = data[:n, :m]
    mean[:m] = d.sum(axis=0) / float_n
    d -= mean[:m]
    cov[:m, :m] = (d.T @ d) / (float_n - 1.0)


# ---------------------------------------------------------------- inputs

def _prepare_float_n(rng, args):
    """float_n is (DATA_TYPE)n in PolyBench (args: m, n, float_n, data, ...)."""
    args[2] = float(args[1])


def _prepare_correlation(rng, args):
    _prepare_float_n(rng, args)
    # one constant column, so that the `stddev <= eps ? 1.0 : stddev` guard is taken
    m, n, data = args[0], args[1], args[3]
    if m > 1:
        col = int(rng.integers(0, m))
        data[:n, col] = 0.5


REFERENCE = {
    "2mm": two_mm,
    "3mm": three_mm,
    "atax": atax,
    "bicg": bicg,
    "doitgen": doitgen,
    "mvt": mvt,
    "gemm": gemm,
    "gemver": gemver,
    "gesummv": gesummv,
    "symm": symm,
    "syr2k": syr2k,
    "syrk": syrk,
    "trmm": trmm,
    "correlation": correlation,
    "covariance": covariance,
}

PREPARE = {
    "correlation": _prepare_correlation,
    "covariance": _prepare_float_n,
}
