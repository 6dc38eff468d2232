"""The stablehlo grammar: one class per op family, one instance per grammar op.

Each op keeps its attribute domain, shape rule, NumPy reference semantics (`apply`) and
emitter together. `grammar()` returns the ops as a tuple; weight, commutativity
and the MLIR name come from grammars/stablehlo.json.

Attribute keys (values are ints, strs or tuples of ints):
  dot_general     lhs_batch, rhs_batch, lhs_contract, rhs_contract  (each () or (d,))
  broadcast_in_dim  shape (target), dims (broadcast_dimensions)
  transpose       permutation
  reshape         shape
  slice_edge      dims (sorted operand dims), position ("first" | "last")
  slice_range, insert_range   lo, hi (tuples of non-negative ints, one per dim: the
                  elements dropped at the start / end of each dim; never sizes)
  reduce_*        dim
  compare         direction  (GT GE LT LE EQ NE)
  convert         kind (extsi extui trunci extf truncf sitofp uitofp fptosi fptoui), dtype
  iota            shape, dim, dtype
  constant        value, dtype  (shape ())
  triangular_solve  lower, unit_diagonal, transpose_a  (bools; left side)
  cholesky        none (lower = true; zeros above the diagonal)
  lu              none (no such op: a stablehlo.while, right-looking, no pivoting)

Layout: stablehlo_base.py holds the op base class and shared emitters; stablehlo_loops.py
the library ops and the ops at a loop counter; this module the others and `grammar()`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import permutations

import numpy as np

from synth.analysis.symbols import element_count
from synth.grammar.dims import has_dynamic, is_dynamic
from synth.grammar.views import StablehloInsertView, StablehloView
from synth.grammar.op import Attrs, Op, attr_dict, attrs
from synth.grammar.shapes import (broadcast, check_edge_attrs, check_insert_range, dot_domain, edge_domain,
                                  edge_index, edge_slices)
from synth.grammar.types import FLOAT_DTYPES, INT_DTYPES, NUMERIC_DTYPES, TensorType, int_width
from synth.grammar.unary_math import UNARY_MATH, stablehlo_name
from synth.grammar.families import (
    ConvertFamily,
    DotGeneralFamily,
    ElementwiseFamily,
    InsertRangeFamily,
    IotaFamily,
    ReduceFamily,
    SelectEdgeFamily,
    SliceRangeFamily,
    TransposeFamily,
)

from synth.grammar.stablehlo_base import (
    DIRECTIONS,
    SMALL_OFFSET,
    StablehloOp,
    broadcast_to,
    dynamic_slice,
    iota_op,
    plus,
    reshaped,
    splat,
    tensor_constant,
    type_list,
)
from synth.grammar.argmax import StablehloArg
from synth.grammar.reverse import StablehloReverse
from synth.grammar.gather import StablehloGather
from synth.grammar.window import StablehloWindow
from synth.grammar.affine_mask import StablehloSelectAffine
from synth.grammar.stablehlo_loops import (
    Cholesky,
    CounterSelect,
    Flip,
    Lu,
    Put,
    Take,
    TriangularSolve,
    emit_line,
)


class Elementwise(ElementwiseFamily, StablehloOp):
    """Unary / binary elementwise op on operands of one identical type (chlo.erf in
    chlo's syntax: the result type after `->`)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        r = em.fresh()
        arrow = f"{arg_types[0].mlir()} -> " if self.mlir_name.startswith("chlo.") else ""
        em.line(f"{r} = {self.mlir_name} {', '.join(operands)} : {arrow}{result_type.mlir()}")
        return r


class Convert(ConvertFamily, StablehloOp):
    """stablehlo.convert: sign extension or truncation of integers (stablehlo's integers
    are signed), f32 <-> f64, signed integer <-> float; zero extension is convert then
    `and` with the low-bit mask; `uitofp` zero-extends to i64 first; float to integer
    is the convert where the result fits i32 / i64 (XLA saturates past it) and that
    type's minimum elsewhere (x86-64's), to char / short through i32."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        kind = attr_dict(attrs)["kind"]
        src, x = arg_types[0], operands[0]
        if kind == "uitofp":  # the unsigned reading, in i64
            wide = src.with_dtype("i64")
            x, src = _low_bits(em, _convert(em, x, src, wide), int_width(src.dtype), wide), wide
        if kind in ("fptosi", "fptoui"):
            wide = result_type.with_dtype("i64" if result_type.dtype == "i64" else "i32")
            x, src = _fp_to_int(em, x, src, wide), wide
            if src == result_type:
                return x
        r = _convert(em, x, src, result_type)
        return _low_bits(em, r, int_width(src.dtype), result_type) if kind == "extui" else r


def _convert(em, x: str, src: TensorType, dst: TensorType) -> str:
    r = em.fresh()
    em.line(f"{r} = stablehlo.convert {x} : ({src.mlir()}) -> {dst.mlir()}")
    return r


def _fp_to_int(em, x: str, src: TensorType, dst: TensorType) -> str:
    """Floats to i32 / i64: truncated where -2**(w-1) <= x < 2**(w-1), the minimum elsewhere."""
    low = -(1 << (int_width(dst.dtype) - 1))
    c = _convert(em, x, src, dst)
    pred = src.with_dtype("i1")
    above, below = em.fresh(), em.fresh()
    em.line(f"{above} = stablehlo.compare GE, {x}, {splat(em, float(low), src)} : "
            f"({src.mlir()}, {src.mlir()}) -> {pred.mlir()}")
    em.line(f"{below} = stablehlo.compare LT, {x}, {splat(em, -float(low), src)} : "
            f"({src.mlir()}, {src.mlir()}) -> {pred.mlir()}")
    fits, r = em.fresh(), em.fresh()
    em.line(f"{fits} = stablehlo.and {above}, {below} : {pred.mlir()}")
    em.line(f"{r} = stablehlo.select {fits}, {c}, {splat(em, low, dst)} : {pred.mlir()}, {dst.mlir()}")
    return r


def _low_bits(em, x: str, width: int, t: TensorType) -> str:
    """x `and` 2**width - 1: the unsigned reading of a `width`-bit integer widened to `t`."""
    mask = splat(em, (1 << width) - 1, t)
    z = em.fresh()
    em.line(f"{z} = stablehlo.and {x}, {mask} : {t.mlir()}")
    return z


# --- dot_general ---------------------------------------------------------------------------


class DotGeneral(DotGeneralFamily, StablehloOp):
    """dot_general with at most one batching pair and at most one contracting pair."""

    def attribute_domain(self, arg_types, ctx):
        return dot_domain(arg_types, NUMERIC_DTYPES) if len(arg_types) == 2 else ()

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        dims = ""
        if d["lhs_batch"]:
            dims += f"batching_dims = {list(d['lhs_batch'])} x {list(d['rhs_batch'])}, "
        dims += f"contracting_dims = {list(d['lhs_contract'])} x {list(d['rhs_contract'])}"
        r = em.fresh()
        em.line(f"{r} = stablehlo.dot_general {operands[0]}, {operands[1]}, {dims} : "
                f"({type_list(arg_types)}) -> {result_type.mlir()}")
        return r


# --- data movement -------------------------------------------------------------------------


class BroadcastInDim(StablehloOp):
    """broadcast_in_dim into a higher-rank shape of interest; every valid dims mapping
    (operand dims may be reordered; an operand dim of size 1 may stretch)."""

    arity = 1
    attr_domain_kind = "broadcast_in_dim"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1:
            return ()
        return _broadcast_in_dim_domain(arg_types[0], ctx.shapes)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        (a,) = arg_types
        d = attr_dict(attrs)
        shape, dims = d["shape"], d["dims"]
        if len(dims) != a.rank or len(set(dims)) != len(dims) or any(
            not 0 <= k < len(shape) for k in dims
        ):
            raise self.shape_error("dims must map each operand dim to a distinct result dim",
                                   arg_types, attrs)
        for k, r in enumerate(dims):
            if a.shape[k] not in (1, shape[r]):
                raise self.shape_error(f"operand dim {k} ({a.shape[k]}) cannot broadcast to "
                                       f"result dim {r} ({shape[r]})", arg_types, attrs)
        return TensorType(tuple(shape), a.dtype)

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return broadcast(args[0], d["shape"], d["dims"])

    def emit(self, em, operands, arg_types, attrs, result_type):
        return broadcast_to(em, operands[0], arg_types[0], attr_dict(attrs)["dims"], result_type)


@lru_cache(maxsize=4096)
def _broadcast_in_dim_domain(a: TensorType, shapes: frozenset) -> tuple[Attrs, ...]:
    out = []
    for target in sorted(shapes):
        if len(target) <= a.rank:
            continue
        for dims in permutations(range(len(target)), a.rank):
            if all(a.shape[k] in (1, target[r]) for k, r in enumerate(dims)):
                out.append(attrs(shape=tuple(target), dims=dims))
    return tuple(out)


class Transpose(TransposeFamily, StablehloOp):
    def emit(self, em, operands, arg_types, attrs, result_type):
        r = em.fresh()
        em.line(f"{r} = stablehlo.transpose {operands[0]}, dims = {list(attr_dict(attrs)['permutation'])} "
                f": ({arg_types[0].mlir()}) -> {result_type.mlir()}")
        return r


class Reshape(StablehloOp):
    """reshape (row-major) into another shape of interest with as many elements."""

    arity = 1
    attr_domain_kind = "reshape"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1:
            return ()
        a = arg_types[0]
        count = element_count(a.shape)
        return tuple(attrs(shape=tuple(s)) for s in sorted(ctx.shapes)
                     if math.prod(s) == a.size and tuple(s) != a.shape and element_count(s) == count)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        shape = tuple(attr_dict(attrs)["shape"])
        # as many elements at every size, not only at these (6 x 5 is not 3 x 10 where
        # the sizes change): a reshape typed by coinciding values fits no other sizes
        if math.prod(shape) != arg_types[0].size or element_count(shape) != element_count(arg_types[0].shape):
            raise self.shape_error("element counts differ", arg_types, attrs)
        return arg_types[0].with_shape(shape)

    def apply(self, sem, args, attrs):
        return np.array(np.reshape(args[0], attr_dict(attrs)["shape"]))

    def emit(self, em, operands, arg_types, attrs, result_type):
        return reshaped(em, operands[0], arg_types[0], result_type)


class SliceEdge(StablehloOp):
    """stablehlo.slice keeping the first or the last index along `dims` and every index
    along the other dims. The rank is kept (size 1 along `dims`); `stablehlo.reshape`
    drops those dims. The position is symbolic: the start index (0 or size - 1) is
    computed from the operand shape, so the attributes hold no sizes."""

    arity = 1
    attr_domain_kind = "slice_edge"

    def attribute_domain(self, arg_types, ctx):
        return edge_domain(arg_types[0].shape) if len(arg_types) == 1 else ()

    def result_type(self, arg_types, attrs):
        dims, _ = check_edge_attrs(self, arg_types, attrs)
        a = arg_types[0]
        return a.with_shape(tuple(1 if k in dims else s for k, s in enumerate(a.shape)))

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        a = np.asarray(args[0])
        return np.array(a[edge_slices(a.shape, d["dims"], d["position"], keep_dims=True)])

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        if has_dynamic(a):
            starts = [edge_index(n, d["position"]) if k in d["dims"] else 0 for k, n in enumerate(a.shape)]
            limits = [plus(i, 1) if k in d["dims"] else n for k, (i, n) in enumerate(zip(starts, a.shape))]
            return dynamic_slice(em, operands[0], a, starts, limits, result_type)
        ranges = []
        for k, n in enumerate(a.shape):
            i = edge_index(n, d["position"])
            ranges.append(f"{i}:{i + 1}" if k in d["dims"] else f"0:{n}")
        r = em.fresh()
        em.line(f"{r} = stablehlo.slice {operands[0]} [{', '.join(ranges)}] : "
                f"({a.mlir()}) -> {result_type.mlir()}")
        return r


class SliceRange(SliceRangeFamily, StablehloOp):
    """stablehlo.slice dropping lo[k] elements at the start and hi[k] at the end of each
    dim k (a stencil's shifted neighbourhood, or the interior it writes): a[lo0:n0-hi0, ...].
    The offsets are the attributes; the extents come from the operand's shape."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        if has_dynamic(a):
            limits = [plus(n, -hi) for n, hi in zip(a.shape, d["hi"])]
            return dynamic_slice(em, operands[0], a, d["lo"], limits, result_type)
        ranges = [f"{lo}:{n - hi}" for n, lo, hi in zip(a.shape, d["lo"], d["hi"])]
        r = em.fresh()
        em.line(f"{r} = stablehlo.slice {operands[0]} [{', '.join(ranges)}] : "
                f"({a.mlir()}) -> {result_type.mlir()}")
        return r


class InsertRange(InsertRangeFamily, StablehloOp):
    """(dest, update): dest with its range (lo, hi) replaced by update, whose shape is that
    range's (a stencil writing the interior of an array). With nothing trimmed (lo = hi = 0)
    the value is the update itself.

    Where every start lo is small (below SMALL_OFFSET, so not a size minus an offset for
    the textual re-instantiation of synth.semantics.raised_text), it is a
    `stablehlo.dynamic_update_slice` at constant starts: XLA writes that in place, in a
    time loop's body too (jacobi-2d on XLA CPU: 5.0 ms a step against 17.9 ms for the
    select form below). Otherwise it is a select between update padded to dest's shape
    (stablehlo.pad, low = lo, high = hi) and dest, on a mask that is a splat `true` of
    update's shape padded with `false` the same way: every number in it is an offset or a
    dimension, so the text re-instantiates at other sizes (a start n - 1 in a dense<>
    constant would not)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        check_insert_range(self, arg_types, attrs)  # dynamic_update_slice's verifier does not know hi
        d = attr_dict(attrs)
        dest, update = arg_types
        if not any(d["lo"]) and not any(d["hi"]):
            return operands[1]
        if max(d["lo"]) < SMALL_OFFSET or has_dynamic(dest):  # a generic body: lo are offsets
            starts = []
            for lo in d["lo"]:
                c = em.fresh("c")
                em.line(f"{c} = stablehlo.constant dense<{lo}> : tensor<i64>")
                starts.append(c)
            r = em.fresh()
            em.line(f"{r} = stablehlo.dynamic_update_slice {operands[0]}, {operands[1]}, {', '.join(starts)} : "
                    f"({dest.mlir()}, {update.mlir()}, {', '.join(['tensor<i64>'] * dest.rank)}) -> {dest.mlir()}")
            return r
        pads = (f"low = {list(d['lo'])}, high = {list(d['hi'])}, "
                f"interior = {[0] * dest.rank}")
        ones, no, mask = em.fresh("cst"), em.fresh("cst"), em.fresh()
        em.line(f"{ones} = stablehlo.constant dense<true> : {update.with_dtype('i1').mlir()}")
        em.line(f"{no} = stablehlo.constant dense<false> : tensor<i1>")
        em.line(f"{mask} = stablehlo.pad {ones}, {no}, {pads} : "
                f"({update.with_dtype('i1').mlir()}, tensor<i1>) -> {dest.with_dtype('i1').mlir()}")
        zero = tensor_constant(em, 0, dest.dtype)
        padded = em.fresh()
        em.line(f"{padded} = stablehlo.pad {operands[1]}, {zero}, {pads} : "
                f"({update.mlir()}, tensor<{dest.dtype}>) -> {dest.mlir()}")
        r = em.fresh()
        em.line(f"{r} = stablehlo.select {mask}, {padded}, {operands[0]} : "
                f"{dest.with_dtype('i1').mlir()}, {dest.mlir()}")
        return r


class SelectEdge(SelectEdgeFamily, StablehloOp):
    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        t = result_type
        if has_dynamic(t):
            return self._generic(em, operands, d, t)
        mask = None
        for k in d["dims"]:
            it, c, cmp = em.fresh(), em.fresh("cst"), em.fresh()
            idx = edge_index(t.shape[k], d["position"])
            em.line(f"{it} = stablehlo.iota dim = {k} : tensor<{''.join(f'{n}x' for n in t.shape)}i64>")
            em.line(f"{c} = stablehlo.constant dense<{idx}> : tensor<{''.join(f'{n}x' for n in t.shape)}i64>")
            em.line(f"{cmp} = stablehlo.compare EQ, {it}, {c} : "
                    f"(tensor<{''.join(f'{n}x' for n in t.shape)}i64>, tensor<{''.join(f'{n}x' for n in t.shape)}i64>) "
                    f"-> tensor<{''.join(f'{n}x' for n in t.shape)}i1>")
            if mask is None:
                mask = cmp
            else:
                both = em.fresh()
                em.line(f"{both} = stablehlo.and {mask}, {cmp} : tensor<{''.join(f'{n}x' for n in t.shape)}i1>")
                mask = both
        r = em.fresh()
        em.line(f"{r} = stablehlo.select {mask}, {operands[0]}, {operands[1]} : "
                f"tensor<{''.join(f'{n}x' for n in t.shape)}i1>, {t.mlir()}")
        return r

    @staticmethod
    def _generic(em, operands, d, t: TensorType) -> str:
        """The same mask where t has a dynamic dim: the edge index is a size value."""
        it, mt = t.with_dtype("i64"), t.with_dtype("i1")
        mask = None
        for k in d["dims"]:
            at = broadcast_to(em, em.size(edge_index(t.shape[k], d["position"])), TensorType((), "i64"), (), it)
            cmp = emit_line(em, f"stablehlo.compare EQ, {iota_op(em, k, it)}, {at} : ({it.mlir()}, {it.mlir()}) -> {mt.mlir()}")
            mask = cmp if mask is None else emit_line(em, f"stablehlo.and {mask}, {cmp} : {mt.mlir()}")
        return emit_line(em, f"stablehlo.select {mask}, {operands[0]}, {operands[1]} : {mt.mlir()}, {t.mlir()}")


# --- reduce --------------------------------------------------------------------------------

_REDUCE_BODY = {"add": "stablehlo.add", "max": "stablehlo.maximum", "min": "stablehlo.minimum"}


def reduce_init(kind: str, dtype: str):
    """The identity of a reduction: 0, -inf / +inf (or the integer extremes)."""
    if kind == "add":
        return 0
    if dtype in FLOAT_DTYPES:
        return -math.inf if kind == "max" else math.inf
    info = np.iinfo(TensorType((), dtype).numpy_dtype)
    return int(info.min) if kind == "max" else int(info.max)


class Reduce(ReduceFamily, StablehloOp):
    """reduce over one dimension with add / maximum / minimum and its identity as init."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        dt = arg_types[0].dtype
        init = tensor_constant(em, reduce_init(self.kind, dt), dt)
        r = em.fresh()
        em.line(f"{r} = stablehlo.reduce({operands[0]} init: {init}) applies {_REDUCE_BODY[self.kind]} "
                f"across dimensions = [{attr_dict(attrs)['dim']}] : "
                f"({arg_types[0].mlir()}, tensor<{dt}>) -> {result_type.mlir()}")
        return r


# --- compare / select ------------------------------------------------------------------------


class Compare(StablehloOp):
    arity = 2
    attr_domain_kind = "comparison_direction"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 2 or arg_types[0] != arg_types[1] or arg_types[0].dtype not in NUMERIC_DTYPES:
            return ()
        return tuple(attrs(direction=d) for d in DIRECTIONS)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if arg_types[0] != arg_types[1] or arg_types[0].dtype not in NUMERIC_DTYPES:
            raise self.shape_error("operands need one numeric type", arg_types, attrs)
        if attr_dict(attrs)["direction"] not in DIRECTIONS:
            raise self.shape_error("unknown direction", arg_types, attrs)
        return arg_types[0].with_dtype("i1")

    def apply(self, sem, args, attrs):
        return sem.compare(attr_dict(attrs)["direction"], args[0], args[1])

    def emit(self, em, operands, arg_types, attrs, result_type):
        r = em.fresh()
        em.line(f"{r} = stablehlo.compare {attr_dict(attrs)['direction']}, {operands[0]}, {operands[1]} "
                f": ({type_list(arg_types)}) -> {result_type.mlir()}")
        return r


class Select(StablehloOp):
    """select(pred, on_true, on_false) with an i1 pred of the same shape."""

    arity = 3
    attr_domain_kind = "none"

    def _fits(self, arg_types) -> bool:
        if len(arg_types) != 3:
            return False
        p, a, b = arg_types
        return p.dtype == "i1" and a == b and p.shape == a.shape

    def attribute_domain(self, arg_types, ctx):
        return ((),) if self._fits(arg_types) else ()

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if not self._fits(arg_types):
            raise self.shape_error("needs an i1 pred and two branches of one type, same shape",
                                   arg_types)
        return arg_types[1]

    def apply(self, sem, args, attrs):
        return sem.select(*args)

    def emit(self, em, operands, arg_types, attrs, result_type):
        r = em.fresh()
        em.line(f"{r} = stablehlo.select {', '.join(operands)} : "
                f"{arg_types[0].mlir()}, {result_type.mlir()}")
        return r


# --- library ops -------------------------------------------------------------------------------


class Iota(IotaFamily, StablehloOp):
    """iota over a shape of interest along one dimension."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        return iota_op(em, attr_dict(attrs)["dim"], result_type)


class Constant(StablehloOp):
    """A rank-0 constant from the context's constants."""

    arity = 0
    attr_domain_kind = "constant"

    def attribute_domain(self, arg_types, ctx):
        if arg_types:
            return ()
        return tuple(attrs(value=v, dtype=dt) for v in ctx.constants for dt in ctx.dtypes
                     if dt in FLOAT_DTYPES or (dt in NUMERIC_DTYPES and float(v).is_integer()))

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        return TensorType((), attr_dict(attrs)["dtype"])

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return sem.full((), d["value"], d["dtype"])

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        if is_dynamic(d["value"]):  # a size as a value (sketches): read at run time, converted
            if d["dtype"] == "i64":
                return em.size(d["value"])
            r = em.fresh()
            em.line(f"{r} = stablehlo.convert {em.size(d['value'])} : (tensor<i64>) -> tensor<{d['dtype']}>")
            return r
        return tensor_constant(em, d["value"], d["dtype"])


# --- the grammar ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def grammar() -> tuple[Op, ...]:
    return (
        Elementwise("stablehlo.add", 2, "add"),
        Elementwise("stablehlo.subtract", 2, "sub"),
        Elementwise("stablehlo.multiply", 2, "mul"),
        Elementwise("stablehlo.divide", 2, "div"),
        Elementwise("stablehlo.maximum", 2, "maximum"),
        Elementwise("stablehlo.minimum", 2, "minimum"),
        Elementwise("stablehlo.negate", 1, "neg"),
        Elementwise("stablehlo.abs", 1, "abs"),
        Elementwise("stablehlo.sqrt", 1, "sqrt", FLOAT_DTYPES),
        Elementwise("stablehlo.exponential", 1, "exp", FLOAT_DTYPES),
        Elementwise("stablehlo.log", 1, "log", FLOAT_DTYPES),
        Elementwise("stablehlo.power", 2, "power", FLOAT_DTYPES),
        *(Elementwise(stablehlo_name(f), 1, f.name, FLOAT_DTYPES) for f in UNARY_MATH),
        Elementwise("stablehlo.remainder", 2, "rem", INT_DTYPES),
        Elementwise("stablehlo.and", 2, "bit_and", INT_DTYPES),
        Elementwise("stablehlo.or", 2, "bit_or", INT_DTYPES),
        Elementwise("stablehlo.xor", 2, "bit_xor", INT_DTYPES),
        Elementwise("stablehlo.shift_left", 2, "shift_left", INT_DTYPES),
        Elementwise("stablehlo.shift_right_arithmetic", 2, "shift_right_arithmetic", INT_DTYPES),
        Elementwise("stablehlo.shift_right_logical", 2, "shift_right_logical", INT_DTYPES),
        Convert("stablehlo.convert"),
        DotGeneral("stablehlo.dot_general"),
        BroadcastInDim("stablehlo.broadcast_in_dim"),
        Transpose("stablehlo.transpose"),
        Reshape("stablehlo.reshape"),
        SliceEdge("stablehlo.slice_edge"),
        SelectEdge("stablehlo.select_edge"),
        Reduce("stablehlo.reduce_add", "add"),
        Reduce("stablehlo.reduce_max", "max"),
        Reduce("stablehlo.reduce_min", "min"),
        Compare("stablehlo.compare"),
        Select("stablehlo.select"),
        Iota("stablehlo.iota"),
        Constant("stablehlo.constant"),
        TriangularSolve("stablehlo.triangular_solve"),
        Cholesky("stablehlo.cholesky"),
        Lu("stablehlo.lu"),
        # at a loop counter: only the sketches of loops kept as loops build them
        Take("stablehlo.take"),
        Flip("stablehlo.flip"),
        Put("stablehlo.put"),
        CounterSelect("stablehlo.counter_select"),
        # not searched by default (synth.synthesis.opset leaves them out): stencil sketches
        SliceRange("stablehlo.slice_range"),
        InsertRange("stablehlo.insert_range"),
        # never searched: the boxes a kernel reaches (synth.synthesis.views)
        StablehloView("stablehlo.view"),
        StablehloInsertView("stablehlo.insert_view"),
        # not searched: a read at a sum of two loop indices (synth.grammar.window)
        StablehloWindow("stablehlo.window"),
        # not searched: a local keeping the index of the largest / smallest term (synth.grammar.argmax)
        StablehloArg("stablehlo.argmax", "max"),
        StablehloArg("stablehlo.argmin", "min"),
        # not searched: a read backwards along one dim (synth.grammar.reverse)
        StablehloReverse("stablehlo.reverse"),
        # not searched: rows of a table at indices read from data (synth.grammar.gather)
        StablehloGather("stablehlo.gather"),
        # not searched: an affine.if's conditions on the index (synth.grammar.affine_mask)
        StablehloSelectAffine("stablehlo.select_affine"),
    )
