"""What "equal" means, in one place: the tolerance of each element type, the comparison
of an output with its expected value, and the observational-equivalence fingerprint of
the search (consistent with the comparison: values the comparison calls equal almost
always share a fingerprint, and values it tells apart never do).

Floats compare with a tolerance relative to the largest magnitude of the expected array
(`|have - want| <= rtol * (|want| + max(1, max |want|))`): reassociated sums, nothing
more. f64: 1e-9; f32: 1e-5 (f32's epsilon is 1.2e-7: a few hundred rounding errors).
Integers compare exactly. Non-finite values are equal where both sides are non-finite (a
reordered but exact program meets 0/0 or inf - inf in another order on extreme inputs:
gramschmidt with one row gives inf in the original, NaN raised); with `exact_nonfinite`
(the inputs of NaN and infinities given to an original that tells them apart) only to the
same non-finite value: NaN to NaN, an infinity to the one of its sign.
"""

from __future__ import annotations

import hashlib

import numpy as np

RTOL = {"f64": 1e-9, "f32": 1e-5}
# fingerprints round floats to this many decimals (values are O(1) at stand-in sizes)
FINGERPRINT_DECIMALS = {"f64": 9, "f32": 5}


_DTYPE_NAMES = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32", np.dtype(np.int64): "i64",
                np.dtype(np.int32): "i32", np.dtype(np.int16): "i16", np.dtype(np.int8): "i8",
                np.dtype(np.bool_): "i1"}


def dtype_name(a: np.ndarray) -> str:
    return _DTYPE_NAMES.get(np.asarray(a).dtype, "other")


def rtol(dtype: str) -> float:
    """The relative tolerance of an element type (0 for integers: exact)."""
    return RTOL.get(dtype, 0.0)


def mismatches(want: np.ndarray, have: np.ndarray, exact_nonfinite: bool = False) -> np.ndarray:
    """Boolean array: where `have` is not equal to `want` within the tolerance of want's type
    (`exact_nonfinite`: a non-finite value equals only the same one)."""
    want, have = np.asarray(want), np.asarray(have)
    if want.dtype.kind != "f":
        return np.asarray(have != want)
    tol = rtol(dtype_name(want))
    with np.errstate(all="ignore"):
        w = want.astype(np.float64)
        h = np.asarray(have, dtype=np.float64)
        finite = np.isfinite(w)
        scale = max(1.0, float(np.max(np.abs(w[finite]))) if finite.any() else 1.0)
        close = np.abs(h - w) <= tol * (np.abs(w) + scale)
        bad = ~(close | (~np.isfinite(h) & ~finite))
        bad |= np.isfinite(h) != finite
        if exact_nonfinite:
            bad |= np.isnan(h) != np.isnan(w)
            bad |= np.isinf(h) & np.isinf(w) & (np.signbit(h) != np.signbit(w))
    return bad


def equal(want: np.ndarray, have: np.ndarray) -> bool:
    want, have = np.asarray(want), np.asarray(have)
    return want.shape == have.shape and not np.any(mismatches(want, have))


def in_layout_of(want, have):
    """`have` in `want`'s shape where the two shapes are the same but for extents of 1 (the
    same elements in the same order), else None (another result)."""
    if np.shape(want) == np.shape(have):
        return have
    if [d for d in np.shape(want) if d != 1] != [d for d in np.shape(have) if d != 1]:
        return None
    return np.reshape(have, np.shape(want))


def first_difference(want: np.ndarray, have: np.ndarray, exact_nonfinite: bool = False) -> tuple | None:
    """(index, expected, got) of the first element outside the tolerance, else None; a
    result of another shape differs as a whole (index (), the two shapes), unless the two
    shapes are the same but for extents of 1 ((3, 1) and (1, 3); a scalar and a 1-element
    array): those lay the same elements out in the same order, so they are compared as the
    same buffer."""
    laid_out = in_layout_of(want, have)
    if laid_out is None:
        return (), f"shape {np.shape(want)}", f"shape {np.shape(have)}"
    have = laid_out
    bad = mismatches(want, have, exact_nonfinite)
    if not np.any(bad):
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    return idx, np.asarray(want)[idx], np.asarray(have)[idx]


def fingerprint(parts: list[np.ndarray]) -> bytes:
    """A digest of values for observational equivalence (floats rounded per type)."""
    parts = [np.asarray(d) for d in parts]
    if parts and all(d.dtype == parts[0].dtype for d in parts):  # one pass over all examples
        parts = [np.concatenate([d.ravel() for d in parts])]
    digest = hashlib.blake2b(digest_size=16)  # fed chunk by chunk: the digest of their concatenation
    for d in parts:
        if d.dtype.kind == "f":
            decimals = FINGERPRINT_DECIMALS.get(_DTYPE_NAMES.get(d.dtype, "other"), 9)
            d = np.round(d, decimals) + 0.0  # folds -0.0 into 0.0
        digest.update(d.tobytes())
    return digest.digest()


# relative: how far the float inputs move in the conditioning check, per type (f32's
# 1e-12 would round back to the same values): 1000x (f64), 10x (f32) below the tolerance
PERTURBATION = {"f64": 1e-12, "f32": 1e-6}


def _perturbation(a: np.ndarray) -> float:
    return PERTURBATION.get(dtype_name(a), PERTURBATION["f64"])


def perturbed(args: list, rng: np.random.Generator) -> list:
    """The arguments with every float array and float scalar ((type, value) pairs: a
    sine's frequency) moved by up to PERTURBATION relative (other arguments as they are):
    the conditioning check's second run of the original."""
    def moved(a):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            return np.ascontiguousarray(np.asarray(a * (1 + _perturbation(a) * rng.uniform(-1, 1, np.shape(a))),
                                                   dtype=a.dtype).reshape(np.shape(a)))
        if isinstance(a, tuple) and len(a) == 2 and a[0] in PERTURBATION and isinstance(a[1], float):
            return a[0], a[1] * (1 + PERTURBATION[a[0]] * rng.uniform(-1, 1))
        return a
    return [moved(a) for a in args]


def amplification(expected: list, again: list) -> float:
    """How many times the largest move of a float output between the original's run on
    its inputs and on the perturbed inputs (relative as `mismatches` measures it) exceeds
    that output type's PERTURBATION: an estimate of the condition of the computation on
    that draw (finite elements only)."""
    top = 0.0
    for w, h in zip(expected, again):
        if isinstance(w, np.ndarray) and w.dtype.kind == "f" and w.size:
            scale = _perturbation(w)
            w, h = np.atleast_1d(np.asarray(w, dtype=np.float64)), np.atleast_1d(np.asarray(h, dtype=np.float64))
            finite = np.isfinite(w) & np.isfinite(h)
            if not finite.any():
                continue
            w, h = w[finite], h[finite]
            rel = np.abs(w - h) / (np.abs(w) + max(1.0, float(np.max(np.abs(w)))))  # as mismatches
            top = max(top, float(rel.max()) / scale if rel.size else 0.0)
    return top


def undetermined(expected: list, again: list) -> list:
    """Per output: where the original's value moved by more than the tolerance between its
    run on the inputs and on the perturbed inputs (None for non-float outputs): elements
    that rounding alone decides (a 0/0 in exact arithmetic), which no reordering of the
    arithmetic reproduces. They are not compared; every other element is."""
    return [mismatches(w, h) if isinstance(w, np.ndarray) and np.asarray(w).dtype.kind == "f" else None
            for w, h in zip(expected, again)]


def compare_outputs(expected: list[np.ndarray], got: list[np.ndarray], outputs: list,
                    ignore: list | None = None) -> str | None:
    """None if equal within tolerance, else a description of the first difference.
    `outputs` names them: argument indices (arg5) or labels (result #0). `ignore`: per
    output, a boolean mask of elements not to compare (`undetermined`), or None."""
    if len(got) != len(expected):
        return f"{len(got)} outputs, expected {len(expected)}"
    for k, (label, want, have) in enumerate(zip(outputs, expected, got)):
        label = f"arg{label}" if isinstance(label, int) else label
        want, have = np.asarray(want), np.asarray(have)
        if have.shape != want.shape:
            return f"{label}: shape {have.shape} != {want.shape}"
        skip = ignore[k] if ignore is not None else None
        if skip is not None:
            want, have = np.where(skip, 0, want), np.where(skip, 0, have)
        diff = first_difference(want, have)
        if diff is not None:
            idx, w, h = diff
            return f"{label}{list(idx)}: raised {h!r} != original {w!r}"
    return None
