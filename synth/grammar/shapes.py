"""Shape rules, attribute domains and semantics shared by ops of both dialects:
dot_general (and its result type and dims), broadcast, reductions over one dim,
taking the first / last index along some dims, and ranges with offsets (a slice that
drops `lo` / `hi` elements at the ends of each dim, writing a block into an interior).
NumPy arrays and object arrays of z3 terms alike."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, product

import numpy as np

from synth.analysis.symbols import Size
from synth.grammar.op import Attrs, Op, attr_dict, attrs
from synth.grammar.types import TensorType


def dot_general(sem, a: np.ndarray, b: np.ndarray, lhs_batch: tuple[int, ...],
                rhs_batch: tuple[int, ...], lhs_contract: tuple[int, ...],
                rhs_contract: tuple[int, ...]) -> np.ndarray:
    """StableHLO dot_general with at most one batch pair: result dims are the batch dim,
    then lhs free dims, then rhs free dims (in operand order)."""
    a, b = np.asarray(a), np.asarray(b)
    if not lhs_batch:
        return np.asarray(sem.tensordot(a, b, axes=(list(lhs_contract), list(rhs_contract))))
    (i,), (j,) = lhs_batch, rhs_batch
    am, bm = np.moveaxis(a, i, 0), np.moveaxis(b, j, 0)
    lc = [k if k < i else k - 1 for k in lhs_contract]
    rc = [k if k < j else k - 1 for k in rhs_contract]
    slices = [np.asarray(sem.tensordot(am[t], bm[t], axes=(lc, rc))) for t in range(am.shape[0])]
    out = np.empty((am.shape[0], *slices[0].shape), dtype=slices[0].dtype)
    for t, s in enumerate(slices):
        out[t, ...] = s
    return out


def dot_general_type(op: Op, arg_types, attrs: Attrs, dtypes: tuple[str, ...]) -> TensorType:
    """The dot_general shape rule (stablehlo.dot_general, linalg.dot_general): result dims
    are the batch dim, then lhs free dims, then rhs free dims; element type in `dtypes`."""
    op.check_arity(arg_types)
    a, b = arg_types
    d = attr_dict(attrs)
    lb, rb, lc, rc = d["lhs_batch"], d["rhs_batch"], d["lhs_contract"], d["rhs_contract"]
    if a.dtype != b.dtype or a.dtype not in dtypes:
        raise op.shape_error(f"operands need one element type of {dtypes}", arg_types, attrs)
    if len(lb) != len(rb) or len(lc) != len(rc) or len(lb) > 1 or len(lc) > 1:
        raise op.shape_error("batch / contracting dims must pair up (at most one pair each)",
                             arg_types, attrs)
    for ds, t in ((lb + lc, a), (rb + rc, b)):
        if len(set(ds)) != len(ds) or any(not 0 <= k < t.rank for k in ds):
            raise op.shape_error("dims out of range or repeated", arg_types, attrs)
    for i, j in zip(lb + lc, rb + rc):
        if a.shape[i] != b.shape[j]:
            raise op.shape_error(f"size mismatch: lhs dim {i} ({a.shape[i]}) vs rhs dim {j} "
                                 f"({b.shape[j]})", arg_types, attrs)
    shape = (tuple(a.shape[i] for i in lb)
             + tuple(s for k, s in enumerate(a.shape) if k not in lb + lc)
             + tuple(s for k, s in enumerate(b.shape) if k not in rb + rc))
    return TensorType(shape, a.dtype)


@lru_cache(maxsize=4096)
def dot_domain(arg_types, dtypes: tuple[str, ...]) -> tuple[Attrs, ...]:
    """Every dot_general dims choice with at most one batch and one contracting pair of
    equal-size dims, for operands of one element type in `dtypes`."""
    a, b = arg_types
    if a.dtype != b.dtype or a.dtype not in dtypes:
        return ()
    pairs = [(i, j) for i in range(a.rank) for j in range(b.rank) if a.shape[i] == b.shape[j]]
    out = []
    for batch in [None, *pairs]:
        for contract in [None, *pairs]:
            if batch and contract and (batch[0] == contract[0] or batch[1] == contract[1]):
                continue
            lb, rb = (batch[:1], batch[1:]) if batch else ((), ())
            lc, rc = (contract[:1], contract[1:]) if contract else ((), ())
            out.append(attrs(lhs_batch=lb, rhs_batch=rb, lhs_contract=lc, rhs_contract=rc))
    return tuple(out)


def broadcast(a: np.ndarray, shape: tuple[int, ...], operand_dims: tuple[int, ...]) -> np.ndarray:
    """Broadcast `a` into `shape`, operand dim k going to result dim operand_dims[k]
    (any order; an operand dim of size 1 may stretch). Returns a fresh array."""
    a = np.asarray(a)
    order = sorted(range(a.ndim), key=lambda k: operand_dims[k])
    at = np.transpose(a, order) if a.ndim else a
    placed = sorted(operand_dims)
    expanded = [1] * len(shape)
    for pos, k in zip(placed, order):
        expanded[pos] = a.shape[k]
    return np.array(np.broadcast_to(at.reshape(expanded), shape))


# --- taking the first / last index along some dims (slice_edge in both dialects) ---------

EDGE_POSITIONS = ("first", "last")


def reduce_domain(arg_types, dtypes: tuple[str, ...]) -> tuple[Attrs, ...]:
    """Reductions over one dimension of a tensor of rank >= 1 and an element type in `dtypes`."""
    if len(arg_types) != 1 or arg_types[0].rank < 1 or arg_types[0].dtype not in dtypes:
        return ()
    return tuple(attrs(dim=k) for k in range(arg_types[0].rank))


def reduce_type(op: Op, arg_types, a: Attrs, dtypes: tuple[str, ...]) -> TensorType:
    """Shape rule of a reduction over dimension `dim`: that dimension is dropped."""
    op.check_arity(arg_types)
    (t,) = arg_types
    k = attr_dict(a)["dim"]
    if not 0 <= k < t.rank:
        raise op.shape_error(f"dim {k} out of range", arg_types, a)
    if t.dtype not in dtypes:
        raise op.shape_error(f"needs an element type in {dtypes}", arg_types, a)
    return t.with_shape(t.shape[:k] + t.shape[k + 1:])


def edge_index(size: int, position: str) -> int:
    """The index of the `position` ("first" or "last") element along a dim of `size`.
    Attributes hold the position, never the number, so they re-instantiate at other sizes."""
    if position not in EDGE_POSITIONS:
        raise ValueError(f"position must be one of {EDGE_POSITIONS}, got {position!r}")
    if position == "first":
        return 0
    if isinstance(size, Size) and size.is_dynamic:
        return size.offset(-1)  # a value of a generic body (ValueError for a floordiv)
    return size - 1


@lru_cache(maxsize=4096)
def edge_domain(shape: tuple[int, ...]) -> tuple[Attrs, ...]:
    """Every (dims, position) for a shape: `dims` a non-empty set of dims of size > 1
    (a size-1 dim has a single index: taking it changes nothing), in increasing order."""
    candidates = [k for k, s in enumerate(shape) if s > 1]
    return tuple(attrs(dims=dims, position=pos) for n in range(1, len(candidates) + 1)
                 for dims in combinations(candidates, n) for pos in EDGE_POSITIONS)


def check_edge_attrs(op: Op, arg_types, a: Attrs) -> tuple[tuple[int, ...], str]:
    """(dims, position) of a slice_edge instance, or the op's ShapeError."""
    op.check_arity(arg_types)
    d = attr_dict(a)
    dims, position = tuple(d["dims"]), d["position"]
    rank = arg_types[0].rank
    if not dims or list(dims) != sorted(set(dims)) or any(not 0 <= k < rank for k in dims):
        raise op.shape_error("dims must be distinct operand dims in increasing order", arg_types, a)
    if position not in EDGE_POSITIONS:
        raise op.shape_error(f"position must be one of {EDGE_POSITIONS}", arg_types, a)
    if any(arg_types[0].shape[k] == 0 for k in dims):
        raise op.shape_error("cannot index an empty dim", arg_types, a)
    return dims, position


def edge_slices(shape: tuple[int, ...], dims: tuple[int, ...], position: str,
                keep_dims: bool) -> tuple:
    """The NumPy index taking `position` along `dims` and everything along the other
    dims; `keep_dims`: a length-1 slice (rank kept) instead of an integer (dim dropped)."""
    out = []
    for k, s in enumerate(shape):
        if k in dims:
            i = edge_index(s, position)
            out.append(slice(i, i + 1) if keep_dims else i)
        else:
            out.append(slice(None))
    return tuple(out)


# --- ranges with offsets (slice_range / insert_range, extract_range / insert_range) ---------
#
# Attributes `lo` and `hi`: tuples of non-negative ints, one per dim; the range drops lo[k]
# elements at the start and hi[k] at the end of dim k. They are offsets, never sizes: the
# extent n - lo - hi is computed from the operand's shape (a `Size` whose expression is the
# operand's minus lo + hi), so the attributes re-instantiate at any size.

RANGE_OFFSETS = (0, 1, 2)  # the offsets the attribute domains enumerate


def shrink_dim(n, by: int):
    """The dim `n` less `by` elements: a Size whose expression is n's minus `by` (a plain
    int when that expression is constant, or when `n` is a plain int); None when n's
    expression cannot be offset (a floordiv)."""
    if not isinstance(n, Size):
        return int(n) - by
    try:
        return n.offset(-by)
    except ValueError:
        return None


def same_dim(a, b) -> bool:
    """Equal dims: as ints, and by their expressions where both are Sizes."""
    if int(a) != int(b):
        return False
    return not (isinstance(a, Size) and isinstance(b, Size)) or a.expr == b.expr


def check_range_attrs(op: Op, arg_types, a: Attrs) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(lo, hi) of a range op on `arg_types[0]` (the sliced operand, or the destination),
    or the op's ShapeError: one non-negative int per dim each."""
    op.check_arity(arg_types)
    d = attr_dict(a)
    if "lo" not in d or "hi" not in d:
        raise op.shape_error("needs attributes lo and hi", arg_types, a)
    lo, hi = d["lo"], d["hi"]
    rank = arg_types[0].rank
    ok = (isinstance(lo, tuple) and isinstance(hi, tuple) and len(lo) == len(hi) == rank
          and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0
                  for v in lo + hi))
    if not ok:
        raise op.shape_error(f"lo and hi must be tuples of {rank} non-negative ints", arg_types, a)
    return tuple(int(v) for v in lo), tuple(int(v) for v in hi)


def range_shape(op: Op, arg_types, a: Attrs) -> tuple:
    """The shape of the range (lo, hi) of `arg_types[0]`: dim k less lo[k] + hi[k] (Sizes
    keep their expressions), or the op's ShapeError when a dim would be < 1."""
    lo, hi = check_range_attrs(op, arg_types, a)
    out = []
    for k, n in enumerate(arg_types[0].shape):
        m = shrink_dim(n, lo[k] + hi[k])
        if m is None:
            raise op.shape_error(f"dim {k} ({n}: {n.expr}) cannot be offset", arg_types, a)
        if m < 1:
            raise op.shape_error(f"dim {k} ({n}) has no element left after lo {lo[k]}, hi {hi[k]}",
                                 arg_types, a)
        out.append(m)
    return tuple(out)


def range_slices(shape, lo, hi) -> tuple:
    """The NumPy index of the range: a[lo0:n0-hi0, ...]."""
    return tuple(slice(int(l), int(n) - int(h)) for n, l, h in zip(shape, lo, hi))


@lru_cache(maxsize=4096)
def slice_range_domain(shape: tuple, shapes: frozenset) -> tuple[Attrs, ...]:
    """Every (lo, hi) with offsets in RANGE_OFFSETS, at least one nonzero, whose range is
    a shape of interest (compared as Sizes: a 5 that is n - 2 is not a 5 that is m)."""
    rank = len(shape)
    if rank == 0:
        return ()
    out = []
    for lo in product(RANGE_OFFSETS, repeat=rank):
        for hi in product(RANGE_OFFSETS, repeat=rank):
            if not any(lo) and not any(hi):
                continue
            dims = [shrink_dim(n, l + h) for n, l, h in zip(shape, lo, hi)]
            if any(m is None or m < 1 for m in dims):
                continue
            if tuple(dims) in shapes:
                out.append(attrs(lo=lo, hi=hi))
    return tuple(out)


@lru_cache(maxsize=4096)
def insert_range_domain(dest: tuple, update: tuple) -> tuple[Attrs, ...]:
    """Every (lo, hi) placing a block of shape `update` inside `dest`: lo[k] + hi[k] =
    dest[k] - update[k] (as Sizes), each in RANGE_OFFSETS, not all zero (that would be
    the update itself)."""
    if len(dest) != len(update) or not dest:
        return ()
    splits = []
    for n, m in zip(dest, update):
        gap = int(n) - int(m)
        if gap < 0 or not same_dim(shrink_dim(n, gap), m):
            return ()
        splits.append([(l, gap - l) for l in RANGE_OFFSETS if gap - l in RANGE_OFFSETS])
    out = []
    for choice in product(*splits):
        lo, hi = tuple(c[0] for c in choice), tuple(c[1] for c in choice)
        if any(lo) or any(hi):
            out.append(attrs(lo=lo, hi=hi))
    return tuple(out)


def check_insert_range(op: Op, arg_types, a: Attrs):
    """(lo, hi) of an insert_range (dest, update), or the op's ShapeError: one element
    type, update's dims equal to dest's range (lo, hi)."""
    op.check_arity(arg_types)
    dest, update = arg_types
    lo, hi = check_range_attrs(op, arg_types, a)
    if dest.dtype != update.dtype:
        raise op.shape_error("dest and update need one element type", arg_types, a)
    if update.rank != dest.rank:
        raise op.shape_error("dest and update need one rank", arg_types, a)
    block = range_shape(op, arg_types, a)
    for k, (m, u) in enumerate(zip(block, update.shape)):
        if not same_dim(m, u):
            raise op.shape_error(f"update dim {k} ({u}) is not dest's range ({m}) there",
                                 arg_types, a)
    return lo, hi


def insert_range(dest, update, lo, hi) -> np.ndarray:
    """A copy of `dest` with the block at `lo` of `update`'s extent replaced by `update`."""
    out = np.array(dest, copy=True)
    out[range_slices(out.shape, lo, hi)] = update
    return out


def triangular_solve(a: np.ndarray, b: np.ndarray, lower: bool, unit_diagonal: bool,
                     transpose_a: bool, sub=None, mul=None, div=None) -> np.ndarray:
    """x with op(a) x = b (stablehlo.triangular_solve, left side): op(a) is a or its
    transpose, of which only the lower (`lower`) or upper triangle of `a` is read, and the
    diagonal is taken as ones if `unit_diagonal`. Forward (or backward) substitution, each
    row's products subtracted in order of the column; `b` is a vector or a matrix (one
    solve per column). NumPy arrays with the default operators; object arrays of z3 terms
    with the interpreter's scalar operations (synth.semantics.scalar)."""
    import operator

    sub, mul, div = sub or operator.sub, mul or operator.mul, div or operator.truediv
    a, b = np.asarray(a), np.asarray(b)
    if transpose_a:  # the transpose of the lower triangle is an upper triangle
        a, lower = a.T, not lower
    n = a.shape[0]
    x = np.empty(b.shape, dtype=object if object in (a.dtype, b.dtype) else np.result_type(a, b))
    rows = range(n) if lower else range(n - 1, -1, -1)
    for i in rows:
        for col in np.ndindex(*b.shape[1:]):
            acc = b[(i, *col)]
            for j in (range(i) if lower else range(i + 1, n)):
                acc = sub(acc, mul(a[i, j], x[(j, *col)]))
            x[(i, *col)] = acc if unit_diagonal else div(acc, a[i, i])
    return x


def lu(a: np.ndarray, sub=None, mul=None, div=None) -> np.ndarray:
    """The LU factorization of a square matrix without pivoting, packed in one matrix:
    the unit lower factor's multipliers below the diagonal, the upper factor on and above
    it (PolyBench's lu; LAPACK's getrf with no row exchanges). Element (i, j) is a[i, j]
    less a[i, k] * a[k, j] for k < min(i, j), in order of k, then divided by a[j, j] when
    j < i: the same operations in the same order whether computed row by row (Doolittle,
    PolyBench's i-j-k loops) or step by step (right-looking: multipliers of column k, then
    the trailing block's update). NumPy floats take the right-looking form, vectorized;
    object arrays of z3 terms the row-by-row one with the interpreter's scalar operations."""
    a = np.asarray(a)
    n = a.shape[0]
    out = np.array(a, dtype=a.dtype, copy=True)
    if sub is None and mul is None and div is None and out.dtype != object:
        with np.errstate(all="ignore"):  # a zero pivot gives inf / NaN, as the loops do
            for k in range(n - 1):
                out[k + 1:, k] = out[k + 1:, k] / out[k, k]
                out[k + 1:, k + 1:] -= np.multiply.outer(out[k + 1:, k], out[k, k + 1:])
        return out
    import operator

    sub, mul, div = sub or operator.sub, mul or operator.mul, div or operator.truediv
    for i in range(n):
        for j in range(n):
            acc = out[i, j]
            for k in range(min(i, j)):
                acc = sub(acc, mul(out[i, k], out[k, j]))
            out[i, j] = div(acc, out[j, j]) if j < i else acc
    return out


def cholesky(a: np.ndarray, sub=None, mul=None, div=None, sqrt=None) -> np.ndarray:
    """The lower Cholesky factor L of the symmetric matrix whose lower triangle is `a`'s
    (stablehlo.cholesky, lower = true), computed in place the way PolyBench's cholesky
    does (row by row; in row i, L[i][j] for j < i, then the diagonal), zeros above the
    diagonal. NumPy arrays with the default operators (NaN where a square root's argument
    is negative); object arrays of z3 terms with the interpreter's scalar operations."""
    import operator

    sub, mul, div = sub or operator.sub, mul or operator.mul, div or operator.truediv
    sqrt = sqrt or np.sqrt
    a = np.asarray(a)
    n = a.shape[0]
    out = np.array(a, dtype=a.dtype, copy=True)
    for i in range(n):
        for j in range(i):
            acc = out[i, j]
            for k in range(j):
                acc = sub(acc, mul(out[i, k], out[j, k]))
            out[i, j] = div(acc, out[j, j])
        acc = out[i, i]
        for k in range(i):
            acc = sub(acc, mul(out[i, k], out[i, k]))
        out[i, i] = sqrt(acc)
        out[i, i + 1:] = 0
    return out
