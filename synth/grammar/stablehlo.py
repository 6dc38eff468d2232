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
  iota            shape, dim, dtype
  constant        value, dtype  (shape ())
  triangular_solve  lower, unit_diagonal, transpose_a  (bools; left side)
  cholesky        none (lower = true; zeros above the diagonal)
  lu              none (no such op: a stablehlo.while, right-looking, no pivoting)
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import permutations

import numpy as np

from synth.grammar.dims import has_dynamic, is_dynamic
from synth.grammar.op import Attrs, Emitter, Op, attr_dict, attrs, format_scalar
from synth.grammar.shapes import (broadcast, check_edge_attrs, check_insert_range, dot_domain, edge_domain,
                                  edge_index, edge_slices)
from synth.grammar.types import FLOAT_DTYPES, NUMERIC_DTYPES, TensorType
from synth.analysis.sizes import MIN_SIZE, NEAR as _NEAR
from synth.grammar.families import (CholeskyFamily, CounterSelectFamily, DotGeneralFamily, ElementwiseFamily, LuFamily,
                                    InsertRangeFamily, IotaFamily, PutFamily, ReduceFamily, SelectEdgeFamily,
                                    SliceRangeFamily, TakeFamily, FlipFamily, TransposeFamily, TriangularSolveFamily,
                                    unit_shape)

DIRECTIONS = ("GT", "GE", "LT", "LE", "EQ", "NE")
SMALL_OFFSET = MIN_SIZE - _NEAR - 1  # a constant below it is never read as a size by raised_text


def _types(ts) -> str:
    return ", ".join(t.mlir() for t in ts)


def _tensor_constant(em: Emitter, value, dtype: str) -> str:
    """`stablehlo.constant` of a rank-0 tensor."""
    name = em.fresh("cst")
    em.line(f"{name} = stablehlo.constant dense<{format_scalar(value, dtype)}> : tensor<{dtype}>")
    return name


def _splat(em: Emitter, value, t: TensorType) -> str:
    """`stablehlo.constant` of a tensor with every element `value` (of a dynamic shape:
    a scalar constant broadcast to it)."""
    if has_dynamic(t):
        return _broadcast_to(em, _tensor_constant(em, value, t.dtype), TensorType((), t.dtype), (), t)
    name = em.fresh("cst")
    em.line(f"{name} = stablehlo.constant dense<{format_scalar(value, t.dtype)}> : {t.mlir()}")
    return name


def _broadcast_to(em: Emitter, x: str, x_type: TensorType, dims, t: TensorType) -> str:
    """`x` broadcast to `t` along `dims`: broadcast_in_dim, or dynamic_broadcast_in_dim
    with t's shape as a value where t has a dynamic dim (a shape-generic body)."""
    r = em.fresh()
    if has_dynamic(t):
        em.line(f"{r} = stablehlo.dynamic_broadcast_in_dim {x}, {em.shape_value(t.shape)}, dims = {list(dims)} "
                f": ({x_type.mlir()}, tensor<{t.rank}xi64>) -> {t.mlir()}")
    else:
        em.line(f"{r} = stablehlo.broadcast_in_dim {x}, dims = {list(dims)} : ({x_type.mlir()}) -> {t.mlir()}")
    return r


def _iota(em: Emitter, dim: int, t: TensorType) -> str:
    """iota along `dim` of type `t` (dynamic_iota where t has a dynamic dim)."""
    r = em.fresh()
    if has_dynamic(t):
        em.line(f"{r} = stablehlo.dynamic_iota {em.shape_value(t.shape)}, dim = {dim} : "
                f"(tensor<{t.rank}xi64>) -> {t.mlir()}")
    else:
        em.line(f"{r} = stablehlo.iota dim = {dim} : {t.mlir()}")
    return r


def _dynamic_slice(em: Emitter, x: str, x_type: TensorType, starts, limits, result: TensorType) -> str:
    """real_dynamic_slice of `x` from `starts` to `limits` (ints or Sizes), unit strides:
    a slice whose bounds or operand depend on a size known at run time."""
    strides = em.shape_value((1,) * x_type.rank)
    r = em.fresh()
    em.line(f"{r} = stablehlo.real_dynamic_slice {x}, {em.shape_value(tuple(starts))}, "
            f"{em.shape_value(tuple(limits))}, {strides} : ({x_type.mlir()}, "
            f"{', '.join([f'tensor<{x_type.rank}xi64>'] * 3)}) -> {result.mlir()}")
    return r


def _reshaped(em: Emitter, x: str, x_type: TensorType, t: TensorType) -> str:
    """reshape of `x` to `t` (dynamic_reshape where t has a dynamic dim)."""
    r = em.fresh()
    if has_dynamic(t) or has_dynamic(x_type):
        em.line(f"{r} = stablehlo.dynamic_reshape {x}, {em.shape_value(t.shape)} : "
                f"({x_type.mlir()}, tensor<{t.rank}xi64>) -> {t.mlir()}")
    else:
        em.line(f"{r} = stablehlo.reshape {x} : ({x_type.mlir()}) -> {t.mlir()}")
    return r


class StablehloOp(Op):
    dialect = "stablehlo"


def _plus(n, k: int):
    """A dimension or index plus `k`: a Size keeps its expression (a generic body's value)."""
    return n.offset(k) if is_dynamic(n) else int(n) + k


# --- elementwise ---------------------------------------------------------------------------


class Elementwise(ElementwiseFamily, StablehloOp):
    """Unary / binary elementwise op on operands of one identical type."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        r = em.fresh()
        em.line(f"{r} = {self.mlir_name} {', '.join(operands)} : {result_type.mlir()}")
        return r


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
                f"({_types(arg_types)}) -> {result_type.mlir()}")
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
        return _broadcast_to(em, operands[0], arg_types[0], attr_dict(attrs)["dims"], result_type)


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
        return tuple(attrs(shape=tuple(s)) for s in sorted(ctx.shapes)
                     if math.prod(s) == a.size and tuple(s) != a.shape)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        shape = tuple(attr_dict(attrs)["shape"])
        if math.prod(shape) != arg_types[0].size:
            raise self.shape_error("element counts differ", arg_types, attrs)
        return arg_types[0].with_shape(shape)

    def apply(self, sem, args, attrs):
        return np.array(np.reshape(args[0], attr_dict(attrs)["shape"]))

    def emit(self, em, operands, arg_types, attrs, result_type):
        return _reshaped(em, operands[0], arg_types[0], result_type)


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
            limits = [_plus(i, 1) if k in d["dims"] else n for k, (i, n) in enumerate(zip(starts, a.shape))]
            return _dynamic_slice(em, operands[0], a, starts, limits, result_type)
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
            limits = [_plus(n, -hi) for n, hi in zip(a.shape, d["hi"])]
            return _dynamic_slice(em, operands[0], a, d["lo"], limits, result_type)
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
        zero = _tensor_constant(em, 0, dest.dtype)
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
            at = _broadcast_to(em, em.size(edge_index(t.shape[k], d["position"])), TensorType((), "i64"), (), it)
            cmp = _line(em, f"stablehlo.compare EQ, {_iota(em, k, it)}, {at} : ({it.mlir()}, {it.mlir()}) -> {mt.mlir()}")
            mask = cmp if mask is None else _line(em, f"stablehlo.and {mask}, {cmp} : {mt.mlir()}")
        return _line(em, f"stablehlo.select {mask}, {operands[0]}, {operands[1]} : {mt.mlir()}, {t.mlir()}")


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
        init = _tensor_constant(em, reduce_init(self.kind, dt), dt)
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
                f": ({_types(arg_types)}) -> {result_type.mlir()}")
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


def _line(em, rhs: str) -> str:
    """`%name = rhs` on a line of its own; the name."""
    name = em.fresh()
    em.line(f"{name} = {rhs}")
    return name


def _take(em, x: str, x_type: str, starts: list[str], sizes: list[int], dtype: str,
          as_type: str | None = None) -> str:
    """`stablehlo.dynamic_slice` of `x` (of type x_type) at the i64 scalars `starts`,
    `sizes` elements of `dtype`; reshaped to `as_type` where given (a row, column or
    element of a matrix as a vector or scalar). The library ops' reads."""
    sliced = "tensor<" + "".join(f"{d}x" for d in sizes) + f"{dtype}>"
    out = _line(em, f"stablehlo.dynamic_slice {x}, {', '.join(starts)}, sizes = [{', '.join(map(str, sizes))}] : "
                    f"({x_type}, {', '.join(['tensor<i64>'] * len(starts))}) -> {sliced}")
    return out if as_type is None else _line(em, f"stablehlo.reshape {out} : ({sliced}) -> {as_type}")


def while_loop(em, state: list[tuple[str, str, str]], bound, body, library: str | None = None) -> str:
    """`stablehlo.while` over (name, initial value, type) with the first element an i64
    counter running while below `bound` (an int, or a dynamic Size in a generic body);
    `library`: the loop is a library op's (synth.library, which a backend lowers); body(names) emits the body and
    returns the next values. The result's name (`%r#k` is the k-th state). The library
    ops' loops and synth.codegen.raised's time loops."""
    out = em.fresh("loop")
    marker = f' attributes {{synth.library = "{library}"}}' if library else ""
    em.line(f"{out}:{len(state)} = stablehlo.while(" + ", ".join(f"{a} = {v}" for a, v, _ in state)
            + ") : " + ", ".join(t for _, _, t in state) + marker)
    em.line("cond {")
    c, p = em.fresh("c"), em.fresh("p")
    if is_dynamic(bound):  # a count known at run time (a generic body): its value, from the prologue
        c = em.size(bound)
    else:
        em.line(f"  {c} = stablehlo.constant dense<{bound}> : tensor<i64>")
    em.line(f"  {p} = stablehlo.compare LT, {state[0][0]}, {c} : (tensor<i64>, tensor<i64>) -> tensor<i1>")
    em.line(f"  stablehlo.return {p} : tensor<i1>")
    em.line("} do {")
    indent = em.indent
    em.indent = indent + "  "
    nexts = body([a for a, _, _ in state])
    em.line(f"stablehlo.return {', '.join(nexts)} : " + ", ".join(t for _, _, t in state))
    em.indent = indent
    em.line("}")
    return out


class TriangularSolve(TriangularSolveFamily, StablehloOp):
    """stablehlo.triangular_solve (left side), at every size. `b` may be a vector: it is
    reshaped to a column and back around the op (the op wants rank 2).

    This is the op the raise means and its proofs cover; how a backend runs it (XLA's own
    expansion, or panels of rows where n has a panel width) is a lowering below the
    raised IR (synth.backends.library_stablehlo)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a, b = arg_types
        return self._op(em, operands, a, b, d, result_type)

    @staticmethod
    def _call(em, a_value: str, rhs: str, a_t: str, col_t: str, d) -> str:
        x = em.fresh()
        flag = lambda v: "true" if v else "false"  # noqa: E731
        transpose = "TRANSPOSE" if d["transpose_a"] else "NO_TRANSPOSE"
        em.line(f'{x} = "stablehlo.triangular_solve"({a_value}, {rhs}) {{left_side = true, '
                f'lower = {flag(d["lower"])}, unit_diagonal = {flag(d["unit_diagonal"])}, '
                f'transpose_a = #stablehlo<transpose {transpose}>}} : ({a_t}, {col_t}) -> {col_t}')
        return x

    def _op(self, em, operands, a, b, d, result_type) -> str:
        rhs, column = operands[1], b.with_shape((b.shape[0], 1)) if b.rank == 1 else b
        if b.rank == 1:
            rhs = _reshaped(em, operands[1], b, column)
        x = self._call(em, operands[0], rhs, a.mlir(), column.mlir(), d)
        if b.rank == 2:
            return x
        return _reshaped(em, x, column, result_type)


class Cholesky(CholeskyFamily, StablehloOp):
    """stablehlo.cholesky, lower = true, at every size. What the op leaves above the
    diagonal is implementation-defined, so the emitter zeroes it explicitly (a select on
    an iota comparison). Panels where n has a panel width are a lowering below the raised
    IR (synth.backends.library_stablehlo)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        return self._op(em, operands, result_type)

    @staticmethod
    def _zero_upper(em, value: str, result_type) -> str:
        t, mask_t, it = result_type.mlir(), result_type.with_dtype("i1").mlir(), result_type.with_dtype("i64").mlir()
        rows, cols = _iota(em, 0, result_type.with_dtype("i64")), _iota(em, 1, result_type.with_dtype("i64"))
        lower, r = em.fresh(), em.fresh()
        em.line(f"{lower} = stablehlo.compare GE, {rows}, {cols} : ({it}, {it}) -> {mask_t}")
        zero = _tensor_constant(em, 0.0, result_type.dtype)
        zeros = _broadcast_to(em, zero, TensorType((), result_type.dtype), (), result_type)
        em.line(f"{r} = stablehlo.select {lower}, {value}, {zeros} : {mask_t}, {t}")
        return r

    def _op(self, em, operands, result_type):
        factor = em.fresh()
        em.line(f"{factor} = stablehlo.cholesky {operands[0]}, lower = true : {result_type.mlir()}")
        return self._zero_upper(em, factor, result_type)


class Lu(LuFamily, StablehloOp):
    """LU without pivoting as a stablehlo.while, at every size: a while over k = 0 ..
    n-2: column k divided by the pivot, the block below and right of (k, k) less the
    outer product of those multipliers with row k; each step computes the whole matrix
    (masks select the part a step changes). Every element gets the operations of
    PolyBench's loops in their order. The while carries `synth.library = "lu"`: a backend
    lowering below the raised IR factors by panels where n has a panel width
    (synth.backends.library_stablehlo)."""

    LIBRARY = "lu"  # the while's synth.library marker

    def emit(self, em, operands, arg_types, attrs, result_type):
        return self._unblocked(em, operands[0], arg_types[0])

    def _unblocked(self, em, a_value: str, a):
        n, dt = a.shape[0], a.dtype
        vt = a.with_shape((n,))
        t, vec = a.mlir(), vt.mlir()
        it, scalar, mask = a.with_dtype("i64"), "tensor<i64>", a.with_dtype("i1").mlir()
        line = lambda rhs: _line(em, rhs)  # noqa: E731
        c0 = line("stablehlo.constant dense<0> : tensor<i64>")

        def take(state, k, dim):  # column (dim 1) or row (dim 0) k as a vector
            if has_dynamic(a):
                return _counter_gather(em, state, a, k, dim, vt)
            zero = line(f"stablehlo.constant dense<0> : {scalar}")
            starts = [zero, k] if dim == 1 else [k, zero]
            return _take(em, state, t, starts, [int(n), 1] if dim == 1 else [1, int(n)], dt, vec)

        def body(names):
            k, state = names
            one = line(f"stablehlo.constant dense<1> : {scalar}")
            col, row = take(state, k, 1), take(state, k, 0)
            piv = _take(em, state, t, [k, k], [1, 1], dt, f"tensor<{dt}>")
            pivs = _broadcast_to(em, piv, TensorType((), dt), (), vt)
            l = line(f"stablehlo.divide {col}, {pivs} : {vec}")
            lb = _broadcast_to(em, l, vt, (0,), a)
            rb = _broadcast_to(em, row, vt, (1,), a)
            prod = line(f"stablehlo.multiply {lb}, {rb} : {t}")
            upd = line(f"stablehlo.subtract {state}, {prod} : {t}")
            rows, cols = _iota(em, 0, it), _iota(em, 1, it)
            kb = _broadcast_to(em, k, TensorType((), "i64"), (), it)
            inner = line(f"stablehlo.minimum {rows}, {cols} : {it.mlir()}")
            block = line(f"stablehlo.compare GT, {inner}, {kb} : ({it.mlir()}, {it.mlir()}) -> {mask}")
            below = line(f"stablehlo.compare GT, {rows}, {kb} : ({it.mlir()}, {it.mlir()}) -> {mask}")
            at_k = line(f"stablehlo.compare EQ, {cols}, {kb} : ({it.mlir()}, {it.mlir()}) -> {mask}")
            multipliers = line(f"stablehlo.select {at_k}, {lb}, {state} : {mask}, {t}")
            kept = line(f"stablehlo.select {below}, {multipliers}, {state} : {mask}, {t}")
            new = line(f"stablehlo.select {block}, {upd}, {kept} : {mask}, {t}")
            return [line(f"stablehlo.add {k}, {one} : {scalar}"), new]
        bound = n.offset(-1) if is_dynamic(n) else int(n) - 1
        out = while_loop(em, [(em.fresh("k"), c0, "tensor<i64>"), (em.fresh("state"), a_value, t)], bound, body,
                         library=self.LIBRARY)
        return f"{out}#1"

# --- reads and writes at a loop counter ---------------------------------------------------------


def _counter_starts(em: Emitter, t: str, offset: int, dim: int, rank: int) -> list[str]:
    """Start indices (tensor<i64>): the counter plus `offset` along `dim`, 0 elsewhere."""
    at = t
    if offset:
        c = _tensor_constant(em, offset, "i64")
        at = em.fresh()
        em.line(f"{at} = stablehlo.add {t}, {c} : tensor<i64>")
    zero = _tensor_constant(em, 0, "i64") if rank > 1 else None
    return [at if k == dim else zero for k in range(rank)]


def _counter_gather(em: Emitter, x: str, a: TensorType, start: str, dim: int, result: TensorType) -> str:
    """The line of `x` at index `start` (a tensor<i64>, clamped into the dim) along `dim`,
    that dim dropped: Take's read in a generic body, a dynamic_gather whose slice sizes
    (1 along `dim`, the whole of the other dims) are a value (dynamic_slice's are static)."""
    index = _line(em, f"stablehlo.reshape {start} : (tensor<i64>) -> tensor<1xi64>")
    sizes = em.shape_value(tuple(1 if k == dim else n for k, n in enumerate(a.shape)))
    offsets = ", ".join(str(k) for k in range(a.rank - 1))
    return _line(em, f'"stablehlo.dynamic_gather"({x}, {index}, {sizes}) {{dimension_numbers = '
                     f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [{dim}], "
                     f"start_index_map = [{dim}], index_vector_dim = 0>, indices_are_sorted = false}} : "
                     f"({a.mlir()}, tensor<1xi64>, tensor<{a.rank}xi64>) -> {result.mlir()}")


class Take(TakeFamily, StablehloOp):
    """dynamic_slice of extent 1 along `dim` at the counter, reshaped to drop that dim."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        unit = a.with_shape(unit_shape(a.shape, d["dim"]))
        starts = _counter_starts(em, operands[1], d["offset"], d["dim"], a.rank)
        if has_dynamic(a):  # dynamic_slice's sizes are static: a gather with its sizes as a value
            return _counter_gather(em, operands[0], a, starts[d["dim"]], d["dim"], result_type)
        s, r = em.fresh(), em.fresh()
        em.line(f"{s} = stablehlo.dynamic_slice {operands[0]}, {', '.join(starts)}, "
                f"sizes = [{', '.join(str(int(n)) for n in unit.shape)}] : "
                f"({a.mlir()}, {', '.join(['tensor<i64>'] * a.rank)}) -> {unit.mlir()}")
        em.line(f"{r} = stablehlo.reshape {s} : ({unit.mlir()}) -> {result_type.mlir()}")
        return r


class Flip(FlipFamily, StablehloOp):
    """A gather along `dim` at index t + offset - p (an iota subtracted from the counter,
    clamped into the dim), selected against 0 where that index lies outside the dim: n
    reads, no padded copy. In a generic body the dim's extent is a value and the gather's
    slice sizes too (dynamic_gather)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        if has_dynamic(a):
            return self._generic(em, operands, a, d)
        k, n, rank = d["dim"], int(a.shape[d["dim"]]), a.rank
        line = TensorType((n,), "i64").mlir()
        iota, shift, spread, index, ge, lt, inside, clamped, column, gathered, mask, out = (
            em.fresh() for _ in range(12))
        em.line(f"{iota} = stablehlo.iota dim = 0 : {line}")
        em.line(f"{shift} = stablehlo.add {operands[1]}, {_tensor_constant(em, d['offset'], 'i64')} : tensor<i64>")
        em.line(f"{spread} = stablehlo.broadcast_in_dim {shift}, dims = [] : (tensor<i64>) -> {line}")
        em.line(f"{index} = stablehlo.subtract {spread}, {iota} : {line}")
        zero, last, extent = (_splat(em, v, TensorType((n,), "i64")) for v in (0, n - 1, n))
        em.line(f"{ge} = stablehlo.compare GE, {index}, {zero} : ({line}, {line}) -> tensor<{n}xi1>")
        em.line(f"{lt} = stablehlo.compare LT, {index}, {extent} : ({line}, {line}) -> tensor<{n}xi1>")
        em.line(f"{inside} = stablehlo.and {ge}, {lt} : tensor<{n}xi1>")
        em.line(f"{clamped} = stablehlo.clamp {zero}, {index}, {last} : {line}")
        em.line(f"{column} = stablehlo.reshape {clamped} : ({line}) -> tensor<{n}x1xi64>")
        offsets = ", ".join(str(m) for m in range(rank) if m != k)
        sizes = ", ".join("1" if m == k else str(int(w)) for m, w in enumerate(a.shape))
        em.line(f'{gathered} = "stablehlo.gather"({operands[0]}, {column}) {{dimension_numbers = '
                f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [{k}], "
                f"start_index_map = [{k}], index_vector_dim = 1>, indices_are_sorted = false, "
                f"slice_sizes = array<i64: {sizes}>}} : ({a.mlir()}, tensor<{n}x1xi64>) -> {a.mlir()}")
        predicate = a.with_dtype("i1")
        em.line(f"{mask} = stablehlo.broadcast_in_dim {inside}, dims = [{k}] : (tensor<{n}xi1>) -> {predicate.mlir()}")
        zeros = _splat(em, 0, a)
        em.line(f"{out} = stablehlo.select {mask}, {gathered}, {zeros} : {predicate.mlir()}, {a.mlir()}")
        return out

    @staticmethod
    def _generic(em, operands, a: TensorType, d) -> str:
        k, rank = d["dim"], a.rank
        n = a.shape[k]
        vt, st = TensorType((n,), "i64"), TensorType((), "i64")
        line, mask_t = vt.mlir(), vt.with_dtype("i1").mlir()
        iota = _iota(em, 0, vt)
        shift = _line(em, f"stablehlo.add {operands[1]}, {_tensor_constant(em, d['offset'], 'i64')} : tensor<i64>")
        index = _line(em, f"stablehlo.subtract {_broadcast_to(em, shift, st, (), vt)}, {iota} : {line}")
        zero = _splat(em, 0, vt)
        last = _broadcast_to(em, em.size(_plus(n, -1)), st, (), vt)
        extent = _broadcast_to(em, em.size(n), st, (), vt)
        ge = _line(em, f"stablehlo.compare GE, {index}, {zero} : ({line}, {line}) -> {mask_t}")
        lt = _line(em, f"stablehlo.compare LT, {index}, {extent} : ({line}, {line}) -> {mask_t}")
        inside = _line(em, f"stablehlo.and {ge}, {lt} : {mask_t}")
        clamped = _line(em, f"stablehlo.clamp {zero}, {index}, {last} : {line}")
        column_t = TensorType((n, 1), "i64")
        column = _reshaped(em, clamped, vt, column_t)
        offsets = ", ".join(str(m) for m in range(rank) if m != k)
        sizes = em.shape_value(tuple(1 if m == k else w for m, w in enumerate(a.shape)))
        gathered = _line(em, f'"stablehlo.dynamic_gather"({operands[0]}, {column}, {sizes}) {{dimension_numbers = '
                             f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [{k}], "
                             f"start_index_map = [{k}], index_vector_dim = 1>, indices_are_sorted = false}} : "
                             f"({a.mlir()}, {column_t.mlir()}, tensor<{rank}xi64>) -> {a.mlir()}")
        predicate = a.with_dtype("i1")
        mask = _broadcast_to(em, inside, vt.with_dtype("i1"), (k,), predicate)
        zeros = _splat(em, 0, a)
        return _line(em, f"stablehlo.select {mask}, {gathered}, {zeros} : {predicate.mlir()}, {a.mlir()}")


class Put(PutFamily, StablehloOp):
    """The value reshaped to a unit dim at `dim`, then dynamic_update_slice at the counter."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a, v = arg_types[0], arg_types[1]
        unit = a.with_shape(unit_shape(a.shape, d["dim"]))
        u = _reshaped(em, operands[1], v, unit)
        starts = _counter_starts(em, operands[2], d["offset"], d["dim"], a.rank)
        r = em.fresh()
        em.line(f"{r} = stablehlo.dynamic_update_slice {operands[0]}, {u}, {', '.join(starts)} : "
                f"({a.mlir()}, {unit.mlir()}, {', '.join(['tensor<i64>'] * a.rank)}) -> {a.mlir()}")
        return r


class CounterSelect(CounterSelectFamily, StablehloOp):
    """select(iota along `dim` <direction> broadcast(counter + offset), x, y)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        x = arg_types[0]
        it = x.with_dtype("i64").mlir()
        at = _counter_starts(em, operands[2], d["offset"], 0, 1)[0]
        if has_dynamic(x):
            io, b = _iota(em, d["dim"], x.with_dtype("i64")), _broadcast_to(
                em, at, TensorType((), "i64"), (), x.with_dtype("i64"))
            p, r = em.fresh(), em.fresh()
        else:
            io, b, p, r = em.fresh(), em.fresh(), em.fresh(), em.fresh()
            em.line(f"{io} = stablehlo.iota dim = {d['dim']} : {it}")
            em.line(f"{b} = stablehlo.broadcast_in_dim {at}, dims = [] : (tensor<i64>) -> {it}")
        em.line(f"{p} = stablehlo.compare {d['direction']}, {io}, {b} : ({it}, {it}) -> {x.with_dtype('i1').mlir()}")
        em.line(f"{r} = stablehlo.select {p}, {operands[0]}, {operands[1]} : {x.with_dtype('i1').mlir()}, {x.mlir()}")
        return r


# --- values from nothing ---------------------------------------------------------------------


class Iota(IotaFamily, StablehloOp):
    """iota over a shape of interest along one dimension."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        return _iota(em, attr_dict(attrs)["dim"], result_type)


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
        return _tensor_constant(em, d["value"], d["dtype"])


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
    )
