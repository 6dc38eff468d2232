"""Op families both dialects share: everything but the emitter (signature, attribute
domain, shape rule, semantics) in one place. A dialect's op is `class Reduce(ReduceFamily,
StablehloOp)` with its own `emit`."""

from __future__ import annotations

from itertools import permutations

import numpy as np

from synth.grammar.op import attr_dict, attrs
from synth.grammar.shapes import (EDGE_POSITIONS, check_insert_range, cholesky, dot_general, dot_general_type, lu,
                                  edge_domain, edge_index, insert_range, insert_range_domain, range_shape,
                                  range_slices, reduce_domain, reduce_type, slice_range_domain,
                                  triangular_solve)
from synth.grammar.types import (FLOAT_DTYPES, INT_DTYPES, NARROW_INT_DTYPES, NUMERIC_DTYPES, STORED_DTYPES,
                                 TensorType, float_width, int_width)


class ElementwiseFamily:
    """Unary / binary elementwise op on operands of one identical type in `dtypes`; its
    semantics is `fn` of the semantics namespace (op.NUMPY)."""

    attr_domain_kind = "none"

    def __init__(self, name: str, arity: int, fn: str, dtypes: tuple[str, ...] = NUMERIC_DTYPES):
        self.arity = arity
        super().__init__(name)
        self.fn = fn
        self.dtypes = dtypes

    def _fits(self, arg_types) -> bool:
        return (len(arg_types) == self.arity and len(set(arg_types)) == 1
                and arg_types[0].dtype in self.dtypes)

    def attribute_domain(self, arg_types, ctx):
        return ((),) if self._fits(arg_types) else ()

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if len(set(arg_types)) != 1:
            raise self.shape_error("operands must have identical types", arg_types)
        if arg_types[0].dtype not in self.dtypes:
            raise self.shape_error(f"element type must be one of {self.dtypes}", arg_types)
        return arg_types[0]

    def apply(self, sem, args, attrs):
        return getattr(sem, self.fn)(*args)


class ConvertFamily:
    """A conversion, C's promotions and casts, as arith names them: `extsi` / `extui`
    (sign / zero extension) to a wider integer type, `trunci` (the low bits) to a narrower
    one; `extf` / `truncf` between f32 and f64 (IEEE round to nearest); `sitofp` /
    `uitofp` (the signed / unsigned reading of an integer, rounded to nearest);
    `fptosi` / `fptoui` (C's truncation toward zero where the result fits; C leaves the
    rest undefined, and these ops give there what x86-64 gives, the machine the original
    runs on in validation: the minimum of i32 / i64, char and short through i32, then
    the low bits). `uitofp` from i64 is left out (stablehlo's integers are signed: no
    wider type to go through), and so is `fptoui` to i32 / i64 (what x86-64 gives out of
    range depends on AVX-512). The attributes: kind and dtype (the result's element
    type, one of the context's)."""

    arity = 1
    attr_domain_kind = "convert"
    KINDS = ("extsi", "extui", "trunci", "extf", "truncf", "sitofp", "uitofp", "fptosi", "fptoui")

    @staticmethod
    def _kinds(src: str, dst: str) -> tuple[str, ...]:
        ints = INT_DTYPES + NARROW_INT_DTYPES
        if src == dst:
            return ()
        if src in ints and dst in ints:
            return ("extsi", "extui") if int_width(dst) > int_width(src) else ("trunci",)
        if src in FLOAT_DTYPES and dst in FLOAT_DTYPES:
            return ("extf",) if float_width(dst) > float_width(src) else ("truncf",)
        if src in ints and dst in FLOAT_DTYPES:
            return ("sitofp", "uitofp") if src != "i64" else ("sitofp",)
        if src in FLOAT_DTYPES and dst in ints:
            return ("fptosi", "fptoui") if dst in NARROW_INT_DTYPES else ("fptosi",)
        return ()

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1:
            return ()
        return tuple(attrs(kind=k, dtype=dt) for dt in ctx.dtypes for k in self._kinds(arg_types[0].dtype, dt))

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        d = attr_dict(attrs)
        if d["kind"] not in self._kinds(arg_types[0].dtype, d["dtype"]):
            raise self.shape_error(f"no {d['kind']} from {arg_types[0].dtype} to {d['dtype']}", arg_types, attrs)
        return arg_types[0].with_dtype(d["dtype"])

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return sem.convert(d["kind"], args[0], d["dtype"])


class DotGeneralFamily:
    """A contraction with stablehlo.dot_general's dims (lhs_batch, rhs_batch, lhs_contract,
    rhs_contract); each dialect says which dims it offers (`attribute_domain`)."""

    arity = 2
    attr_domain_kind = "dot_dims"

    def result_type(self, arg_types, attrs):
        return dot_general_type(self, arg_types, attrs, NUMERIC_DTYPES)

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return dot_general(sem, args[0], args[1], d["lhs_batch"], d["rhs_batch"],
                           d["lhs_contract"], d["rhs_contract"])

    def cost(self, arg_types, attrs, result_type):
        return contraction_cost(arg_types, attr_dict(attrs)["lhs_contract"], result_type)


class ReduceFamily:
    """A reduction (add, max, min) over one dimension, its identity as the init."""

    arity = 1
    attr_domain_kind = "reduce_dim"

    def __init__(self, name: str, kind: str):
        super().__init__(name)
        self.kind = kind

    def attribute_domain(self, arg_types, ctx):
        return reduce_domain(arg_types, NUMERIC_DTYPES)

    def result_type(self, arg_types, attrs):
        return reduce_type(self, arg_types, attrs, NUMERIC_DTYPES)

    def apply(self, sem, args, attrs):
        return sem.reduce(self.kind, args[0], attr_dict(attrs)["dim"])


class IotaFamily:
    """The index along one dim of a shape of interest, in a numeric element type."""

    arity = 0
    attr_domain_kind = "iota"

    def attribute_domain(self, arg_types, ctx):
        if arg_types:
            return ()
        return tuple(attrs(shape=tuple(s), dim=k, dtype=dt) for s in sorted(ctx.shapes) if s
                     for k in range(len(s)) for dt in ctx.dtypes if dt in NUMERIC_DTYPES)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        d = attr_dict(attrs)
        if not 0 <= d["dim"] < len(d["shape"]) or d["dtype"] not in NUMERIC_DTYPES:
            raise self.shape_error("dim out of range or not a numeric type", arg_types, attrs)
        return TensorType(tuple(d["shape"]), d["dtype"])

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return sem.iota(tuple(d["shape"]), d["dim"], d["dtype"])


class TransposeFamily:
    """A non-identity permutation of the dims of a tensor of rank >= 2."""

    arity = 1
    attr_domain_kind = "permutation"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1 or arg_types[0].rank < 2 or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        r = arg_types[0].rank
        return tuple(attrs(permutation=p) for p in permutations(range(r)) if p != tuple(range(r)))

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        perm = attr_dict(attrs)["permutation"]
        if sorted(perm) != list(range(arg_types[0].rank)):
            raise self.shape_error("permutation must permute the operand dims", arg_types, attrs)
        return arg_types[0].with_shape(tuple(arg_types[0].shape[p] for p in perm))

    def apply(self, sem, args, attrs):
        return np.ascontiguousarray(np.transpose(args[0], attr_dict(attrs)["permutation"]))


_EDGE_MASKS: dict = {}  # (shape, attributes) -> SelectEdgeFamily.mask


class SelectEdgeFamily:
    """out = x where every dim in `dims` is at its `position` (first / last index), y
    elsewhere: the mask of an edge row, column or element (corr[n-1][n-1] = 1) fused with
    its use. As slice_edge, the position is symbolic: the index (0 or size - 1) comes from
    the shape, so the attributes hold no sizes."""

    arity = 2
    attr_domain_kind = "slice_edge"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 2 or arg_types[0] != arg_types[1] or arg_types[0].rank == 0 \
                or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        return edge_domain(arg_types[0].shape)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if arg_types[0] != arg_types[1]:
            raise self.shape_error("both operands must have one type", arg_types, attrs)
        d = attr_dict(attrs)
        dims, rank = tuple(d["dims"]), arg_types[0].rank
        if not dims or list(dims) != sorted(set(dims)) or any(not 0 <= k < rank for k in dims) \
                or d["position"] not in EDGE_POSITIONS:
            raise self.shape_error("dims must be distinct dims in increasing order, position "
                                   f"one of {EDGE_POSITIONS}", arg_types, attrs)
        return arg_types[0]

    def mask(self, shape, attrs) -> np.ndarray:
        """The edge's positions (read-only; one array per shape and attributes: the
        search applies the op to values of a few shapes hundreds of thousands of times)."""
        key = (tuple(shape), attrs)
        m = _EDGE_MASKS.get(key)
        if m is None:
            d = attr_dict(attrs)
            grid = np.indices(key[0])
            m = np.ones(key[0], dtype=bool)
            for k in d["dims"]:
                m &= grid[k] == edge_index(key[0][k], d["position"])
            m.setflags(write=False)
            if len(_EDGE_MASKS) < 4096:
                _EDGE_MASKS[key] = m
        return m

    def apply(self, sem, args, attrs):
        x, y = args
        return sem.select(self.mask(np.shape(x), attrs), x, y)


class SliceRangeFamily:
    """An array less lo[k] elements at the start and hi[k] at the end of each dim k (a
    stencil's shifted neighbourhood, or the interior it writes): a[lo0:n0-hi0, ...]. The
    offsets are the attributes; the extents come from the operand's shape (size
    expressions, so the program re-instantiates). Emitters: stablehlo.slice,
    tensor.extract_slice."""

    arity = 1
    attr_domain_kind = "range"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1 or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        return slice_range_domain(arg_types[0].shape, ctx.shapes)

    def result_type(self, arg_types, attrs):
        return arg_types[0].with_shape(range_shape(self, arg_types, attrs))

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        a = np.asarray(args[0])
        return np.array(a[range_slices(a.shape, d["lo"], d["hi"])])


class InsertRangeFamily:
    """(dest, update): dest with its range (lo, hi) replaced by update, whose shape is that
    range's (a stencil writing the interior of an array)."""

    arity = 2
    attr_domain_kind = "range"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 2 or arg_types[0].dtype != arg_types[1].dtype \
                or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        return insert_range_domain(arg_types[0].shape, arg_types[1].shape)

    def result_type(self, arg_types, attrs):
        check_insert_range(self, arg_types, attrs)
        return arg_types[0]

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return insert_range(args[0], args[1], d["lo"], d["hi"])


class TriangularSolveFamily:
    """Library op (left side): x with op(a) x = b for a square float matrix `a` whose lower
    or upper triangle is read (op: a or its transpose; a unit diagonal or a's own), `b` a
    vector or (where the dialect's emitter takes one: `rhs_ranks`) a matrix of as many
    rows. Forward / backward substitution: trisolv, the solves of ludcmp."""

    arity = 2
    attr_domain_kind = "triangular"
    rhs_ranks = (1, 2)

    def _fits(self, arg_types) -> bool:
        if len(arg_types) != 2:
            return False
        a, b = arg_types
        return (a.rank == 2 and a.shape[0] == a.shape[1] and b.rank in self.rhs_ranks
                and b.shape[0] == a.shape[0] and a.dtype == b.dtype and a.dtype in FLOAT_DTYPES)

    def attribute_domain(self, arg_types, ctx):
        if not self._fits(arg_types):
            return ()
        return tuple(attrs(lower=lo, unit_diagonal=unit, transpose_a=tr)
                     for lo in (True, False) for tr in (False, True) for unit in (False, True))

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if not self._fits(arg_types):
            ranks = " or ".join({1: "a vector", 2: "a matrix"}[r] for r in self.rhs_ranks)
            raise self.shape_error(f"needs a square float matrix and {ranks} with as many rows, "
                                   f"of its element type", arg_types)
        return arg_types[1]

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return triangular_solve(args[0], args[1], d["lower"], d["unit_diagonal"], d["transpose_a"])

    def cost(self, arg_types, attrs, result_type):
        return arg_types[0].size * max(1, result_type.size // result_type.shape[0]) + result_type.size


class SquareMatrixFamily:
    """A factorization of one square float matrix into one of its type, no attributes
    (cholesky, lu)."""

    arity = 1
    attr_domain_kind = "none"

    @staticmethod
    def _fits(arg_types) -> bool:
        return (len(arg_types) == 1 and arg_types[0].rank == 2
                and arg_types[0].shape[0] == arg_types[0].shape[1] and arg_types[0].dtype in FLOAT_DTYPES)

    def attribute_domain(self, arg_types, ctx):
        return ((),) if self._fits(arg_types) else ()

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if not self._fits(arg_types):
            raise self.shape_error("needs a square float matrix", arg_types)
        return arg_types[0]


class CholeskyFamily(SquareMatrixFamily):
    """Library op: the lower Cholesky factor L of the symmetric matrix whose lower triangle
    is the operand's, with zeros above the diagonal (cholesky)."""

    def apply(self, sem, args, attrs):
        return cholesky(args[0])

    def cost(self, arg_types, attrs, result_type):
        n = result_type.shape[0]
        return n * n * n // 3 + 2 * result_type.size


# a factorization's panel width: the largest divisor of n in the range below n (measured at
# n = 2000, one core: stablehlo's masked panel steps cost n x b each, linalg's LU's in-place
# slices only the panel's rows, and a wider linalg.matmul runs faster; linalg's Cholesky
# factors each panel column by column with matvecs of up to b columns, so narrow panels
# win: b = 250 0.147 s, 200 0.133, 100 0.132, 80 0.119, 50 0.123, 40 0.119, 16 0.112,
# unblocked 0.216, medians of 9 calls side by side)
LU_PANELS = {"stablehlo": (16, 64), "linalg": (16, 256), "linalg-cholesky": (16, 64), "linalg-solve": (16, 64),
             "stablehlo-cholesky": (16, 64)}
# Cholesky's panel is the column extent of the product that updates it from the columns
# left of it: a multiple of the register tile's 8 columns leaves no columns to the tile
# loops' peeled remainder (scalar code). n = 2000, AMD EPYC host, one thread, medians of 7
# calls side by side in 2 rounds: 50 -> 40 columns, linalg 0.110-0.120 -> 0.090-0.098 s,
# stablehlo on mlir-cpu 0.141-0.143 -> 0.110-0.117 s, on XLA 0.121-0.132 -> 0.107 s
# (80: linalg within noise, stablehlo 0.19 s; 16, linalg only: as 40). The LU panels and the
# substitution's were not faster at 40 or 200 (with sub-panels of 40).
WHOLE_TILES = {"linalg-cholesky": 8, "stablehlo-cholesky": 8}


def lu_panel(n: int, dialect: str = "stablehlo") -> int | None:
    """The panel width of a blocked LU (or, dialect "linalg-cholesky" / "stablehlo-cholesky",
    a blocked Cholesky; "linalg-solve", linalg's blocked forward substitution) of an n x n
    matrix, None for the unblocked loop (n = 2000: 50 in stablehlo, 250 in linalg, 40 for
    Cholesky, 50 for the substitution; the small sizes of the bounded proofs: None): the
    largest divisor of n in the dialect's range, a multiple of WHOLE_TILES' where there is
    one."""
    lo, hi = LU_PANELS[dialect]
    whole = _largest_divisor(n, lo, hi, WHOLE_TILES[dialect]) if dialect in WHOLE_TILES else None
    return whole if whole is not None else _largest_divisor(n, lo, hi)


def _largest_divisor(n: int, lo: int, hi: int, multiple: int = 1) -> int | None:
    """The largest divisor of n in [lo, hi] below n (a multiple of `multiple`), None if
    there is none."""
    return next((d for d in range(hi, lo - 1, -1) if n % d == 0 and d < n and d % multiple == 0), None)


LU_SUBPANELS = (8, 32)


def lu_subpanel(b: int) -> int | None:
    """The sub-panel width linalg's blocked LU factors a panel of b columns by (the largest
    divisor of b in LU_SUBPANELS' range below b), None for column steps over the whole
    panel."""
    return _largest_divisor(b, *LU_SUBPANELS)


LU_OUTER_PANEL = 256  # stablehlo's widest outer LU panel


def lu_outer_panel(n: int, b: int) -> int:
    """The outer panel width of stablehlo's two-level blocked LU of an n x n matrix whose
    panels are factored by sub-panels of b columns (families.lu_panel): the largest
    multiple of b dividing n up to LU_OUTER_PANEL, below n (250 for n = 2000, b = 50: the
    trailing block is updated by products 250 deep, as linalg's); b itself if none.
    PolyBench LARGE, AMD EPYC host, one thread, 2026-11-29, raises with panels of 50 and
    with panels of 250 by 50 in alternating processes (medians of 9 calls): on mlir-cpu lu
    0.095, 0.117 -> 0.096, 0.095 s, ludcmp 0.111, 0.104 -> 0.097, 0.100 s; on XLA (synth
    bench, one run each) lu 0.147 -> 0.094 s, ludcmp 0.126 -> 0.102 s. The price is compile
    time on mlir-cpu: lu 40-46 -> 72-81 s, ludcmp 174-192 -> 221-247 s."""
    return next((d for d in range(LU_OUTER_PANEL - LU_OUTER_PANEL % b, b, -b) if n % d == 0 and d < n), b)


class LuFamily(SquareMatrixFamily):
    """Library op: the LU factorization without pivoting of a square float matrix, packed
    (the unit lower factor's multipliers below the diagonal, the upper factor on and above
    it: lu, the factorization in ludcmp). No dialect has it as one op: both emit the
    right-looking loop, the multipliers of column k and the update of the block below and
    right of (k, k) per step."""

    def apply(self, sem, args, attrs):
        return lu(args[0])

    def cost(self, arg_types, attrs, result_type):
        n = result_type.shape[0]
        return 2 * n * n * n // 3 + 2 * result_type.size


# --- reads and writes at a loop counter (synth.synthesis.steps: a loop kept as a loop whose
# body indexes by its counter): the counter is a rank-0 i64 operand, `offset` a constant
# added to it; an index outside the dim is clamped into it, as stablehlo's dynamic_slice
# and dynamic_update_slice define (the sketches only build in-range ones)

COUNTER = TensorType((), "i64")
COUNTER_OFFSETS = (-1, 0, 1)  # the attribute domain's offsets (the ops are not searched)


def unit_shape(shape, dim: int) -> tuple:
    """`shape` with extent 1 along `dim`: the slice a take reads and a put writes."""
    return tuple(1 if k == dim else n for k, n in enumerate(shape))


def counter_index(t, offset: int, n: int) -> int:
    """The counter plus `offset`, clamped into [0, n)."""
    return min(max(int(np.asarray(t)) + offset, 0), int(n) - 1)


class TakeFamily:
    """(a, t): a at index t + offset along `dim`, that dim dropped (row t of a matrix,
    element t of a vector as a rank-0 tensor)."""

    arity = 2
    attr_domain_kind = "counter_index"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 2 or arg_types[1] != COUNTER or arg_types[0].rank == 0 \
                or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        return tuple(attrs(dim=d, offset=c) for d in range(arg_types[0].rank) for c in COUNTER_OFFSETS)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        a, t = arg_types
        d = attr_dict(attrs)
        if t != COUNTER or not 0 <= d["dim"] < a.rank:
            raise self.shape_error("needs a tensor of rank >= 1, a dim of it, and a rank-0 i64 counter",
                                   arg_types, attrs)
        return a.with_shape(tuple(n for k, n in enumerate(a.shape) if k != d["dim"]))

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        a = np.asarray(args[0])
        return np.array(np.take(a, counter_index(args[1], d["offset"], a.shape[d["dim"]]), axis=d["dim"]))

    def cost(self, arg_types, attrs, result_type):
        return result_type.size


class FlipFamily:
    """(a, t): a reversed along `dim` about the counter: out[p] = a[t + offset - p] where
    that index lies in the dim, 0 where it does not (durbin's `r[k - i - 1]`, read over
    i < k, is flip(r, k; offset=-1) at i)."""

    arity = 2
    attr_domain_kind = "counter_index"

    def attribute_domain(self, arg_types, ctx):
        return TakeFamily.attribute_domain(self, arg_types, ctx)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        a, t = arg_types
        d = attr_dict(attrs)
        if t != COUNTER or a.rank == 0 or not 0 <= d["dim"] < a.rank:
            raise self.shape_error("needs a tensor of rank >= 1, a dim of it, and a rank-0 i64 counter",
                                   arg_types, attrs)
        return a

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        a = np.asarray(args[0])
        n = a.shape[d["dim"]]
        index = int(np.asarray(args[1])) + d["offset"] - np.arange(n)
        inside = (index >= 0) & (index < n)
        taken = np.take(a, np.clip(index, 0, n - 1), axis=d["dim"])
        shape = [1] * a.ndim
        shape[d["dim"]] = n
        return np.where(inside.reshape(shape), taken, np.zeros((), a.dtype))

    def cost(self, arg_types, attrs, result_type):
        return 2 * result_type.size


class PutFamily:
    """(a, v, t): a with its slice at index t + offset along `dim` replaced by v (whose
    shape is a's without that dim)."""

    arity = 3
    attr_domain_kind = "counter_index"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 3 or arg_types[2] != COUNTER or arg_types[0].rank == 0 \
                or arg_types[0].dtype != arg_types[1].dtype or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        a, v = arg_types[0], arg_types[1]
        return tuple(attrs(dim=d, offset=c) for d in range(a.rank) for c in COUNTER_OFFSETS
                     if tuple(n for k, n in enumerate(a.shape) if k != d) == v.shape)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        a, v, t = arg_types
        d = attr_dict(attrs)
        if t != COUNTER or not 0 <= d["dim"] < a.rank or a.dtype != v.dtype \
                or tuple(n for k, n in enumerate(a.shape) if k != d["dim"]) != v.shape:
            raise self.shape_error("needs a tensor, a value of its shape less `dim`, and a rank-0 "
                                   "i64 counter", arg_types, attrs)
        return a

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        out = np.array(args[0], copy=True)
        k = counter_index(args[2], d["offset"], out.shape[d["dim"]])
        out[(slice(None),) * d["dim"] + (k,)] = args[1]
        return out

    def cost(self, arg_types, attrs, result_type):
        return 2 * arg_types[1].size


class CounterSelectFamily:
    """(x, y, t): x where the index along `dim` <direction> t + offset, y elsewhere: the
    part of a dim a loop bounded by the counter covers (`j > k` in the k-th step)."""

    arity = 3
    attr_domain_kind = "counter_compare"
    DIRECTIONS = ("GT", "GE", "LT", "LE", "EQ", "NE")

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 3 or arg_types[0] != arg_types[1] or arg_types[2] != COUNTER \
                or arg_types[0].rank == 0 or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        return tuple(attrs(dim=d, direction=r, offset=c) for d in range(arg_types[0].rank)
                     for r in self.DIRECTIONS for c in COUNTER_OFFSETS)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        x, y, t = arg_types
        d = attr_dict(attrs)
        if x != y or t != COUNTER or not 0 <= d["dim"] < x.rank or d["direction"] not in self.DIRECTIONS:
            raise self.shape_error("needs two operands of one type, a dim of it, a direction and a "
                                   "rank-0 i64 counter", arg_types, attrs)
        return x

    def mask(self, shape, t, attrs) -> np.ndarray:
        d = attr_dict(attrs)
        index = np.indices(shape)[d["dim"]]
        bound = int(np.asarray(t)) + d["offset"]
        return {"GT": index > bound, "GE": index >= bound, "LT": index < bound, "LE": index <= bound,
                "EQ": index == bound, "NE": index != bound}[d["direction"]]

    def apply(self, sem, args, attrs):
        x, y, t = args
        return sem.select(self.mask(np.shape(x), t, attrs), x, y)


def contraction_cost(arg_types, lhs_contract, result_type) -> int:
    """Elements read and written plus two operations per multiply-add."""
    depth = 1
    for k in lhs_contract:
        depth *= arg_types[0].shape[k]
    return 2 * result_type.size * depth + result_type.size + sum(t.size for t in arg_types)
