"""The linalg-on-tensors grammar: one class per op family, one instance per grammar op.

Every value is a tensor (scalars are rank-0 tensors) of a float or integer element type
(regions use arith's float or integer ops by the element type). Outputs
(`outs`) are a `tensor.empty`, filled with the identity (`linalg.fill` of 0 for sums and
contractions, -inf / +inf for max / min reductions) when the op reads its output; ops
that only write it (elementwise, transpose, broadcast, the parallel generics) take the
empty tensor. Only linalg ops, tensor.empty, arith.constant and scalar arith ops inside
linalg regions are emitted, and tensor.extract_slice / tensor.insert_slice (static offsets,
sizes and unit strides) for the range ops.

Two generics cover what the named ops cannot: `linalg.dot_general` (any contraction in
stablehlo.dot_general's domain, e.g. doitgen's rank-3 x rank-2 A @ C4) and
`linalg.slice_edge` (the first / last index along some dims, constant results in the
input's indexing map: linalg.generic's verifier accepts them and checks them against
the operand's static shape).

i1 tensors are avoided on purpose: the MLIR 22 lowering to LLVM aborts on stores to
i1 memrefs (`integralElementType.getWidth() >= 8` in MemRefToLLVM), so a comparison
producing a mask and a `linalg.select` consuming it could never run. Compare + select is
one fused `linalg.generic` instead (`linalg.select_cmp`: out = a <dir> b ? x : y).

Attribute keys:
  transpose        permutation
  broadcast        shape (target), dims (the added result dims, linalg's `dimensions`)
  reduce_*         dim
  fill             value, shape, dtype
  select_cmp       direction (GT GE LT LE EQ NE)
  convert          kind (extsi extui trunci extf truncf sitofp uitofp fptosi fptoui), dtype
  dot_general      lhs_batch, rhs_batch, lhs_contract, rhs_contract (as stablehlo.dot_general)
  slice_edge       dims (sorted operand dims), position ("first" | "last")
  extract_range, insert_range   lo, hi (tuples of non-negative ints, one per dim: the
                   elements dropped at the start / end of each dim; never sizes)
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

from synth.grammar.dims import is_dynamic
from synth.grammar.op import Attrs, Op, attr_dict, attrs
from synth.grammar.shapes import dot_general, range_shape
from synth.grammar.stablehlo import reduce_init
from synth.grammar.types import FLOAT_DTYPES, INT_DTYPES, NUMERIC_DTYPES, STORED_DTYPES, TensorType
from synth.grammar.unary_math import UNARY_MATH, linalg_name
from synth.grammar.linalg_base import LinalgOp, ins_clause, scalar_op  # noqa: F401
from synth.grammar.linalg_generic import (DotGeneral, Iota, Outer, ScalarBinary, SelectCmp,  # noqa: F401
                                          SelectEdge, SelectIndex, SliceEdge, emit_generic,
                                          emit_structured)
from synth.grammar.argmax import LinalgArg
from synth.grammar.reverse import LinalgReverse
from synth.grammar.gather import LinalgGather
from synth.grammar.window import LinalgWindow
from synth.grammar.affine_mask import LinalgSelectAffine
from synth.grammar.linalg_library import Cholesky, CounterSelect, Flip, Lu, Put, Take, TriangularSolve
from synth.grammar.views import LinalgInsertView, LinalgView
from synth.grammar.families import (ConvertFamily, ElementwiseFamily, InsertRangeFamily, ReduceFamily, SliceRangeFamily,
                                    TransposeFamily, contraction_cost)


# --- named elementwise -----------------------------------------------------------------------


class Elementwise(ElementwiseFamily, LinalgOp):
    """Named elementwise op (linalg.add, linalg.sqrt, ...) on operands of one type: a
    float type, or an integer type for the ops whose body MLIR types by the element
    (add, sub, mul, div: arith.divsi, max/min: arith.maxsi/minsi)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        e = em.empty(result_type)
        r = em.fresh()
        em.line(f"{r} = {self.mlir_name} {ins_clause(operands, arg_types)} "
                f"outs({e} : {result_type.mlir()}) -> {result_type.mlir()}")
        return r


class GenericElementwise(ElementwiseFamily, LinalgOp):
    """linalg.generic whose body is one arith op on operands of one type (integer ops
    linalg has no named op for: remainder, shifts, and / or / xor)."""

    def __init__(self, name: str, arity: int, fn: str, arith: str, dtypes: tuple[str, ...]):
        super().__init__(name, arity, fn, dtypes)
        self.arith = arith

    def emit(self, em, operands, arg_types, attrs, result_type):
        dt = result_type.dtype

        def body(em, b):
            s = em.fresh("s")
            em.line(f"{s} = {self.arith} {', '.join(b[:self.arity])} : {dt}")
            return s

        n = result_type.rank
        return emit_generic(em, operands, arg_types, [tuple(range(n))] * self.arity, result_type, body)


class Convert(ConvertFamily, LinalgOp):
    """linalg.generic whose body is one arith cast of its kind (arith.extsi, truncf, sitofp ...)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        src, dst = arg_types[0].dtype, result_type.dtype

        kind = attr_dict(attrs)["kind"]

        def body(em, b):
            s = em.fresh("s")
            if kind in ("fptosi", "fptoui") and dst in ("i8", "i16"):
                # through i32, then the low bits (what the op means, and what x86-64 gives):
                # LLVM's fptosi to a narrow type is poison out of its range
                w = em.fresh("s")
                em.line(f"{w} = arith.fptosi {b[0]} : {src} to i32")
                em.line(f"{s} = arith.trunci {w} : i32 to {dst}")
                return s
            em.line(f"{s} = arith.{kind} {b[0]} : {src} to {dst}")
            return s

        n = result_type.rank
        return emit_generic(em, operands, arg_types, [tuple(range(n))], result_type, body)


# --- contractions ----------------------------------------------------------------------------


class Contraction(LinalgOp):
    """matmul / matvec / vecmat / batch_matmul / dot, given as index letters
    (e.g. "mk", "kn", "mn"): letters shared by both operands and the output are
    batch dims, shared by the operands only are contracted."""

    arity = 2
    attr_domain_kind = "none"

    def __init__(self, name: str, lhs: str, rhs: str, out: str):
        super().__init__(name)
        self.lhs, self.rhs, self.out = lhs, rhs, out
        batch = [c for c in lhs if c in rhs and c in out]
        contract = [c for c in lhs if c in rhs and c not in out]
        self.dims = (tuple(lhs.index(c) for c in batch), tuple(rhs.index(c) for c in batch),
                     tuple(lhs.index(c) for c in contract), tuple(rhs.index(c) for c in contract))

    def attrs(self) -> Attrs:
        """The same contraction as dot_general dims (what linalg.dot_general leaves to it)."""
        lb, rb, lc, rc = self.dims
        return attrs(lhs_batch=lb, rhs_batch=rb, lhs_contract=lc, rhs_contract=rc)

    def _sizes(self, arg_types) -> dict[str, int] | None:
        a, b = arg_types
        if (a.rank, b.rank) != (len(self.lhs), len(self.rhs)) or a.dtype != b.dtype \
                or a.dtype not in NUMERIC_DTYPES:
            return None
        sizes: dict[str, int] = {}
        for letters, t in ((self.lhs, a), (self.rhs, b)):
            for c, s in zip(letters, t.shape):
                if sizes.setdefault(c, s) != s:
                    return None
        return sizes

    def attribute_domain(self, arg_types, ctx):
        return ((),) if len(arg_types) == 2 and self._sizes(arg_types) is not None else ()

    def cost(self, arg_types, attrs, result_type):
        return contraction_cost(arg_types, self.dims[2], result_type)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        sizes = self._sizes(arg_types)
        if sizes is None:
            raise self.shape_error(f"operands do not fit {self.lhs},{self.rhs}->{self.out}", arg_types)
        return TensorType(tuple(sizes[c] for c in self.out), arg_types[0].dtype)

    def apply(self, sem, args, attrs):
        return dot_general(sem, args[0], args[1], *self.dims)

    def emit(self, em, operands, arg_types, attrs, result_type):
        f = em.filled(result_type, 0.0)
        r = em.fresh()
        em.line(f"{r} = {self.mlir_name} {ins_clause(operands, arg_types)} "
                f"outs({f} : {result_type.mlir()}) -> {result_type.mlir()}")
        return r


# --- data movement -----------------------------------------------------------------------------


class Transpose(TransposeFamily, LinalgOp):
    def emit(self, em, operands, arg_types, attrs, result_type):
        e = em.empty(result_type)
        r = em.fresh()
        em.line(f"{r} = linalg.transpose {ins_clause(operands, arg_types)} outs({e} : {result_type.mlir()}) "
                f"permutation = {list(attr_dict(attrs)['permutation'])}")
        return r


class Broadcast(LinalgOp):
    """linalg.broadcast into a higher-rank shape of interest: `dims` are the added
    result dims; the operand dims fill the others in order, sizes equal."""

    arity = 1
    attr_domain_kind = "broadcast"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1 or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        return _broadcast_domain(arg_types[0], ctx.shapes)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        (a,) = arg_types
        d = attr_dict(attrs)
        shape, added = tuple(d["shape"]), d["dims"]
        kept = [k for k in range(len(shape)) if k not in added]
        if len(set(added)) != len(added) or any(not 0 <= k < len(shape) for k in added) \
                or tuple(shape[k] for k in kept) != a.shape:
            raise self.shape_error("the result dims not in `dims` must be the operand's shape",
                                   arg_types, attrs)
        return TensorType(shape, a.dtype)

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        shape, added = tuple(d["shape"]), d["dims"]
        expanded = [1 if k in added else s for k, s in enumerate(shape)]
        return np.array(np.broadcast_to(np.reshape(args[0], expanded), shape))

    def emit(self, em, operands, arg_types, attrs, result_type):
        e = em.empty(result_type)
        r = em.fresh()
        em.line(f"{r} = linalg.broadcast {ins_clause(operands, arg_types)} outs({e} : {result_type.mlir()}) "
                f"dimensions = {list(attr_dict(attrs)['dims'])}")
        return r


@lru_cache(maxsize=4096)
def _broadcast_domain(a: TensorType, shapes: frozenset) -> tuple[Attrs, ...]:
    out = []
    for target in sorted(shapes):
        n = len(target)
        if n <= a.rank:
            continue
        for added in combinations(range(n), n - a.rank):
            kept = [k for k in range(n) if k not in added]
            if tuple(target[k] for k in kept) == a.shape:
                out.append(attrs(shape=tuple(target), dims=added))
    return tuple(out)


class ExtractRange(SliceRangeFamily, LinalgOp):
    """tensor.extract_slice dropping lo[k] elements at the start and hi[k] at the end of
    each dim k (unit strides, rank kept): a[lo0:n0-hi0, ...]; stablehlo.slice_range's
    twin. The offsets are the attributes; the extents come from the operand's shape."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        block = arg_types[0].with_shape(range_shape(self, arg_types, attrs))  # from the attributes
        r = em.fresh()
        em.line(f"{r} = tensor.extract_slice {operands[0]}{_slice_operands(em, attrs, block)} : "
                f"{arg_types[0].mlir()} to {result_type.mlir()}")
        return r


class InsertRange(InsertRangeFamily, LinalgOp):
    """(dest, update): tensor.insert_slice of update into dest's range (lo, hi) (unit
    strides, rank kept); stablehlo.insert_range's twin."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        dest, update = arg_types
        block = dest.with_shape(range_shape(self, arg_types, attrs))  # from the attributes
        r = em.fresh()
        em.line(f"{r} = tensor.insert_slice {operands[1]} into {operands[0]}"
                f"{_slice_operands(em, attrs, block)} : {update.mlir()} into {dest.mlir()}")
        return r


def _slice_operands(em, a: Attrs, block: TensorType) -> str:
    """`[lo...] [sizes...] [1...]`: static offsets, sizes (the block's shape; a dynamic
    dim's as its value, in a generic body) and strides."""
    lo = attr_dict(a)["lo"]
    sizes = ", ".join(em.size(n) if is_dynamic(n) else str(int(n)) for n in block.shape)
    return f"[{', '.join(str(v) for v in lo)}] [{sizes}] [{', '.join('1' for _ in lo)}]"


# --- reduce ----------------------------------------------------------------------------------



class Reduce(ReduceFamily, LinalgOp):
    """linalg.reduce over one dimension, init filled with the identity."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        dt = result_type.dtype
        f = em.filled(result_type, reduce_init(self.kind, dt))
        r, x, acc, y = em.fresh(), em.fresh("in"), em.fresh("acc"), em.fresh("s")
        em.line(f"{r} = linalg.reduce {ins_clause(operands, arg_types)} outs({f} : {result_type.mlir()}) "
                f"dimensions = [{attr_dict(attrs)['dim']}]\n"
                f"  ({x}: {dt}, {acc}: {dt}) {{\n"
                f"    {y} = {scalar_op(self.kind, dt)} {x}, {acc} : {dt}\n"
                f"    linalg.yield {y} : {dt}\n"
                f"  }}")
        return r


# --- fill --------------------------------------------------------------------------------------


class Fill(LinalgOp):
    """A constant tensor: linalg.fill of a context constant into a shape of interest
    (or a rank-0 tensor)."""

    arity = 0
    attr_domain_kind = "fill"

    def attribute_domain(self, arg_types, ctx):
        if arg_types:
            return ()
        shapes = sorted(set(ctx.shapes) | {()})
        return tuple(attrs(value=v, shape=tuple(s), dtype=dt) for v in ctx.constants
                     for s in shapes for dt in ctx.dtypes
                     if dt in FLOAT_DTYPES or (dt in NUMERIC_DTYPES and float(v).is_integer()))

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        d = attr_dict(attrs)
        return TensorType(tuple(d["shape"]), d["dtype"])

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return sem.full(tuple(d["shape"]), d["value"], d["dtype"])

    def emit(self, em, operands, arg_types, attrs, result_type):
        value = attr_dict(attrs)["value"]
        if is_dynamic(value):  # a size as a value (sketches): read at run time, converted
            return _size_filled(em, em.size(value), result_type)
        return em.filled(result_type, value)


def _size_filled(em, size: str, t: TensorType) -> str:
    """A tensor of type `t` filled with the `index` value `size` converted to its dtype
    (as C converts an int: exactly where the type can hold it)."""
    dt = t.dtype
    as_int = em.fresh()
    width = "i64" if dt in FLOAT_DTYPES else dt
    em.line(f"{as_int} = arith.index_cast {size} : index to {width}")
    value = as_int
    if dt in FLOAT_DTYPES:
        value = em.fresh()
        em.line(f"{value} = arith.sitofp {as_int} : i64 to {dt}")
    e = em.empty(t)
    name = em.fresh("f")
    em.line(f"{name} = linalg.fill ins({value} : {dt}) outs({e} : {t.mlir()}) -> {t.mlir()}")
    return name


# --- the grammar ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def grammar() -> tuple[Op, ...]:
    contractions = (
        Contraction("linalg.matmul", "mk", "kn", "mn"),
        Contraction("linalg.matvec", "mk", "k", "m"),
        Contraction("linalg.vecmat", "k", "kn", "n"),
        Contraction("linalg.batch_matmul", "bmk", "bkn", "bmn"),
        Contraction("linalg.dot", "k", "k", ""),
    )
    covered = frozenset([(len(c.lhs), len(c.rhs), c.attrs()) for c in contractions]
                        + [(1, 1, Outer.ATTRS)])
    return (
        Elementwise("linalg.add", 2, "add", NUMERIC_DTYPES),
        Elementwise("linalg.sub", 2, "sub", NUMERIC_DTYPES),
        Elementwise("linalg.mul", 2, "mul", NUMERIC_DTYPES),
        Elementwise("linalg.div", 2, "div", NUMERIC_DTYPES),
        Elementwise("linalg.max", 2, "maximum", NUMERIC_DTYPES),
        Elementwise("linalg.min", 2, "minimum", NUMERIC_DTYPES),
        Elementwise("linalg.negf", 1, "neg", FLOAT_DTYPES),
        Elementwise("linalg.abs", 1, "abs", FLOAT_DTYPES),
        Elementwise("linalg.sqrt", 1, "sqrt", FLOAT_DTYPES),
        Elementwise("linalg.exp", 1, "exp", FLOAT_DTYPES),
        Elementwise("linalg.log", 1, "log", FLOAT_DTYPES),
        Elementwise("linalg.powf", 2, "power", FLOAT_DTYPES),
        *(GenericElementwise(linalg_name(f), 1, f.name, f.math_op, FLOAT_DTYPES) for f in UNARY_MATH),
        GenericElementwise("linalg.remsi", 2, "rem", "arith.remsi", INT_DTYPES),
        GenericElementwise("linalg.andi", 2, "bit_and", "arith.andi", INT_DTYPES),
        GenericElementwise("linalg.ori", 2, "bit_or", "arith.ori", INT_DTYPES),
        GenericElementwise("linalg.xori", 2, "bit_xor", "arith.xori", INT_DTYPES),
        GenericElementwise("linalg.shli", 2, "shift_left", "arith.shli", INT_DTYPES),
        GenericElementwise("linalg.shrsi", 2, "shift_right_arithmetic", "arith.shrsi", INT_DTYPES),
        GenericElementwise("linalg.shrui", 2, "shift_right_logical", "arith.shrui", INT_DTYPES),
        Convert("linalg.convert"),
        *contractions,
        DotGeneral("linalg.dot_general", covered),
        Transpose("linalg.transpose"),
        Broadcast("linalg.broadcast"),
        SliceEdge("linalg.slice_edge"),
        SelectEdge("linalg.select_edge"),
        Reduce("linalg.reduce_add", "add"),
        Reduce("linalg.reduce_max", "max"),
        Reduce("linalg.reduce_min", "min"),
        Fill("linalg.fill"),
        SelectCmp("linalg.select_cmp"),
        SelectIndex("linalg.select_index"),
        ScalarBinary("linalg.scalar_mul", "mul"),
        ScalarBinary("linalg.scalar_add", "add"),
        Outer("linalg.outer"),
        Iota("linalg.iota"),
        # library ops, as loops over tensors (synth.grammar.linalg_library)
        TriangularSolve("linalg.triangular_solve"),
        Cholesky("linalg.cholesky"),
        Lu("linalg.lu"),
        # at a loop counter: only the sketches of loops kept as loops build them
        Take("linalg.take"),
        Flip("linalg.flip"),
        Put("linalg.put"),
        CounterSelect("linalg.counter_select"),
        # not searched by default (synth.synthesis.opset leaves them out): stencil sketches
        ExtractRange("linalg.extract_range"),
        InsertRange("linalg.insert_range"),
        # never searched: the boxes a kernel reaches (synth.synthesis.views)
        LinalgView("linalg.view"),
        LinalgInsertView("linalg.insert_view"),
        # not searched: a read at a sum of two loop indices (synth.grammar.window)
        LinalgWindow("linalg.window"),
        # not searched: a local keeping the index of the largest / smallest term (synth.grammar.argmax)
        LinalgArg("linalg.argmax", "max"),
        LinalgArg("linalg.argmin", "min"),
        # not searched: a read backwards along one dim (synth.grammar.reverse)
        LinalgReverse("linalg.reverse"),
        # not searched: rows of a table at indices read from data (synth.grammar.gather)
        LinalgGather("linalg.gather"),
        # not searched: an affine.if's conditions on the index (synth.grammar.affine_mask)
        LinalgSelectAffine("linalg.select_affine"),
    )
