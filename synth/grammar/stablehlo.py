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
from synth.semantics.raised_text import MIN_SIZE, _NEAR
from synth.grammar.families import (CholeskyFamily, CounterSelectFamily, DotGeneralFamily, ElementwiseFamily, LuFamily, lu_outer_panel, lu_panel,
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


def while_loop(em, state: list[tuple[str, str, str]], bound, body) -> str:
    """`stablehlo.while` over (name, initial value, type) with the first element an i64
    counter running while below `bound` (an int, or a dynamic Size in a generic body); body(names) emits the body and
    returns the next values. The result's name (`%r#k` is the k-th state). The library
    ops' loops and synth.codegen.raised's time loops."""
    out = em.fresh("loop")
    em.line(f"{out}:{len(state)} = stablehlo.while(" + ", ".join(f"{a} = {v}" for a, v, _ in state)
            + ") : " + ", ".join(t for _, _, t in state))
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


def lu_by_panels(em, a_value: str, a, b: int, sub: int | None = None) -> str:
    """The right-looking blocked LU (no pivoting) of `a_value`, its n / b panels unrolled
    on static slices of what is left to factor (Lu emits it where n has a panel width).
    Per panel K: its column panel (rows K.., an (n - K) x b block) is factored by
    `_tall_lu` in sub-panels of `sub` columns (sub = b: one, by column steps); then the rows
    of the panel right of it become U12 by a unit lower triangular solve (by blocks of sub
    rows: each block solved by the op, the rows below it less its product), and the
    trailing block below and right of the panel is less L21 U12, one dot_general."""
    n, dt = int(a.shape[0]), a.dtype
    sub = b if sub is None else sub
    t, s = a.mlir(), "tensor<i64>"
    line = lambda rhs: _line(em, rhs)  # noqa: E731
    const = lambda v: line(f"stablehlo.constant dense<{v}> : {s}")  # noqa: E731
    state = a_value
    for big_k in range(0, n, b):
        m, w = n - big_k, n - big_k - b
        pt = f"tensor<{m}x{b}x{dt}>"
        p0 = line(f"stablehlo.slice {state} [{big_k}:{n}, {big_k}:{big_k + b}] : ({t}) -> {pt}")
        panel = _tall_lu(em, p0, m, b, sub, dt)
        at_k = const(big_k)
        state = line(f"stablehlo.dynamic_update_slice {state}, {panel}, {at_k}, {at_k} : ({t}, {pt}, {s}, {s}) -> {t}")
        if w <= 0:
            continue
        lt, wt, ut = f"tensor<{w}x{b}x{dt}>", f"tensor<{w}x{w}x{dt}>", f"tensor<{b}x{w}x{dt}>"
        l21 = line(f"stablehlo.slice {panel} [{b}:{m}, 0:{b}] : ({pt}) -> {lt}")
        a12 = line(f"stablehlo.slice {state} [{big_k}:{big_k + b}, {big_k + b}:{n}] : ({t}) -> {ut}")
        u12 = _blocked_u12(em, panel, pt, a12, b, w, sub, dt)
        at_w = const(big_k + b)
        state = line(f"stablehlo.dynamic_update_slice {state}, {u12}, {at_k}, {at_w} : ({t}, {ut}, {s}, {s}) -> {t}")
        state = _less_product(em, state, t, (big_k + b, big_k + b), (w, w), (l21, lt), (u12, ut), dt, (at_w, at_w))
    return state


def _less_product(em, x: str, x_t: str, at: tuple[int, int], shape: tuple[int, int], lhs: tuple[str, str],
                  rhs: tuple[str, str], dt: str, starts: tuple[str, str]) -> str:
    """`x` with its block of `shape` at `at` less the product of the (value, type) pairs
    `lhs` and `rhs` (a dot_general), written back (a dynamic_update_slice at `starts`, the
    i64 constants of `at`)."""
    line = lambda rhs_: _line(em, rhs_)  # noqa: E731
    (r0, c0), (rows, cols), s = at, shape, "tensor<i64>"
    bt = f"tensor<{rows}x{cols}x{dt}>"
    block = line(f"stablehlo.slice {x} [{r0}:{r0 + rows}, {c0}:{c0 + cols}] : ({x_t}) -> {bt}")
    prod = line(f"stablehlo.dot_general {lhs[0]}, {rhs[0]}, contracting_dims = [1] x [0] : ({lhs[1]}, {rhs[1]}) -> {bt}")
    block = line(f"stablehlo.subtract {block}, {prod} : {bt}")
    return line(f"stablehlo.dynamic_update_slice {x}, {block}, {starts[0]}, {starts[1]} : ({x_t}, {bt}, {s}, {s}) -> {x_t}")


def _column_steps(em, p0: str, m: int, b: int, dt: str) -> str:
    """A while over the b columns of the m x b panel `p0` (m >= b) eliminating below the
    diagonal: column k below the pivot divided by it, the columns right of k less the outer
    product of that column with the pivot's row (masked selects over the whole panel)."""
    s = "tensor<i64>"
    line = lambda rhs: _line(em, rhs)  # noqa: E731
    pt, it, mt, vm, vb = (f"tensor<{m}x{b}x{dt}>", f"tensor<{m}x{b}xi64>", f"tensor<{m}x{b}xi1>",
                          f"tensor<{m}x{dt}>", f"tensor<{b}x{dt}>")

    def step(names):
        k, p = names
        z = line(f"stablehlo.constant dense<0> : {s}")
        one = line(f"stablehlo.constant dense<1> : {s}")
        piv = _take(em, p, pt, [k, k], [1, 1], dt, f"tensor<{dt}>")
        col = _take(em, p, pt, [z, k], [m, 1], dt, vm)
        pivs = line(f"stablehlo.broadcast_in_dim {piv}, dims = [] : (tensor<{dt}>) -> {vm}")
        l = line(f"stablehlo.divide {col}, {pivs} : {vm}")
        other = _take(em, p, pt, [k, z], [1, b], dt, vb)
        lp = line(f"stablehlo.broadcast_in_dim {l}, dims = [0] : ({vm}) -> {pt}")
        op = line(f"stablehlo.broadcast_in_dim {other}, dims = [1] : ({vb}) -> {pt}")
        upd = line(f"stablehlo.subtract {p}, {line(f'stablehlo.multiply {lp}, {op} : {pt}')} : {pt}")
        rows, cols = line(f"stablehlo.iota dim = 0 : {it}"), line(f"stablehlo.iota dim = 1 : {it}")
        kb = line(f"stablehlo.broadcast_in_dim {k}, dims = [] : ({s}) -> {it}")
        below = line(f"stablehlo.compare GT, {rows}, {kb} : ({it}, {it}) -> {mt}")
        right = line(f"stablehlo.compare GT, {cols}, {kb} : ({it}, {it}) -> {mt}")
        at_k = line(f"stablehlo.compare EQ, {cols}, {kb} : ({it}, {it}) -> {mt}")
        p1 = line(f"stablehlo.select {right}, {upd}, {p} : {mt}, {pt}")
        p2 = line(f"stablehlo.select {at_k}, {lp}, {p1} : {mt}, {pt}")
        new = line(f"stablehlo.select {below}, {p2}, {p} : {mt}, {pt}")
        return [line(f"stablehlo.add {k}, {one} : {s}"), new]

    c0 = line(f"stablehlo.constant dense<0> : {s}")
    return f"{while_loop(em, [(em.fresh('k'), c0, s), (em.fresh('p'), p0, pt)], min(b, m - 1), step)}#1"


def _tall_lu(em, p0: str, m: int, b: int, sub: int, dt: str) -> str:
    """The m x b column panel `p0` (m >= b) factored (unit lower multipliers below the
    diagonal, U on and above it) by sub-panels of `sub` columns: each by `_column_steps`
    on its rows from its diagonal down, the rows of the sub-panel right of it (up to the
    panel's last column) solved by its unit lower triangle, and the block below and right
    of it less the sub-panel's multipliers times those rows (a dot_general)."""
    s = "tensor<i64>"
    line = lambda rhs: _line(em, rhs)  # noqa: E731
    const = lambda v: line(f"stablehlo.constant dense<{v}> : {s}")  # noqa: E731
    pt = f"tensor<{m}x{b}x{dt}>"
    panel = p0
    for kk in range(0, b, sub):
        mm, r = m - kk, b - kk - sub  # rows from the sub-panel's diagonal down; columns right of it
        qt = f"tensor<{mm}x{sub}x{dt}>"
        q = line(f"stablehlo.slice {panel} [{kk}:{m}, {kk}:{kk + sub}] : ({pt}) -> {qt}")
        q = _column_steps(em, q, mm, sub, dt)
        at = const(kk)
        panel = line(f"stablehlo.dynamic_update_slice {panel}, {q}, {at}, {at} : ({pt}, {qt}, {s}, {s}) -> {pt}")
        if r <= 0:
            continue
        rt, lt = f"tensor<{sub}x{r}x{dt}>", f"tensor<{mm - sub}x{sub}x{dt}>"
        l11 = line(f"stablehlo.slice {q} [0:{sub}, 0:{sub}] : ({qt}) -> tensor<{sub}x{sub}x{dt}>")
        a12 = line(f"stablehlo.slice {panel} [{kk}:{kk + sub}, {kk + sub}:{b}] : ({pt}) -> {rt}")
        u12 = TriangularSolve._call(em, l11, a12, f"tensor<{sub}x{sub}x{dt}>", rt, _UNIT_LOWER)
        right = const(kk + sub)
        panel = line(f"stablehlo.dynamic_update_slice {panel}, {u12}, {at}, {right} : ({pt}, {rt}, {s}, {s}) -> {pt}")
        l21 = line(f"stablehlo.slice {q} [{sub}:{mm}, 0:{sub}] : ({qt}) -> {lt}")
        panel = _less_product(em, panel, pt, (kk + sub, kk + sub), (mm - sub, r), (l21, lt), (u12, rt), dt, (right, right))
    return panel


_UNIT_LOWER = {"lower": True, "unit_diagonal": True, "transpose_a": False}  # U12's solves


def _blocked_u12(em, panel: str, pt: str, a12: str, b: int, w: int, sub: int, dt: str) -> str:
    """U12: the b x w rows `a12` solved by the unit lower triangle of the panel's top b x b
    block, by blocks of `sub` rows: each block solved by its sub x sub diagonal block, then
    the rows below it (within the b) less their multipliers times its solution."""
    s = "tensor<i64>"
    line = lambda rhs: _line(em, rhs)  # noqa: E731
    ut, rt, st = f"tensor<{b}x{w}x{dt}>", f"tensor<{sub}x{w}x{dt}>", f"tensor<{sub}x{sub}x{dt}>"
    x = a12
    for kk in range(0, b, sub):
        lkk = line(f"stablehlo.slice {panel} [{kk}:{kk + sub}, {kk}:{kk + sub}] : ({pt}) -> {st}")
        rows = line(f"stablehlo.slice {x} [{kk}:{kk + sub}, 0:{w}] : ({ut}) -> {rt}")
        sol = TriangularSolve._call(em, lkk, rows, st, rt, _UNIT_LOWER)
        at, c0 = line(f"stablehlo.constant dense<{kk}> : {s}"), line(f"stablehlo.constant dense<0> : {s}")
        x = line(f"stablehlo.dynamic_update_slice {x}, {sol}, {at}, {c0} : ({ut}, {rt}, {s}, {s}) -> {ut}")
        below = b - kk - sub
        if below <= 0:
            continue
        lt = f"tensor<{below}x{sub}x{dt}>"
        lb = line(f"stablehlo.slice {panel} [{kk + sub}:{b}, {kk}:{kk + sub}] : ({pt}) -> {lt}")
        nxt = line(f"stablehlo.constant dense<{kk + sub}> : {s}")
        x = _less_product(em, x, ut, (kk + sub, 0), (below, w), (lb, lt), (sol, rt), dt, (nxt, c0))
    return x


def _counter_mask(em, direction: str, k: str, n: int) -> str:
    """`iota(n) DIRECTION k` (k an i64 scalar): the n-vector of i1 that masks the positions
    before (LT) or at (EQ) a loop's counter."""
    it = f"tensor<{n}xi64>"
    iota = _line(em, f"stablehlo.iota dim = 0 : {it}")
    ks = _line(em, f"stablehlo.broadcast_in_dim {k}, dims = [] : (tensor<i64>) -> {it}")
    return _line(em, f"stablehlo.compare {direction}, {iota}, {ks} : ({it}, {it}) -> tensor<{n}xi1>")


def cholesky_by_panels(em, a_value: str, a, b: int) -> str:
    """The left-looking blocked Cholesky of `a_value` (lower), its n / b panels unrolled on
    static slices. Per panel K: the column panel a[K:, K:K+b] less L[K:, :K] L[K:K+b, :K]^T,
    one dot_general (the columns left of the panel, all of them final); then a while over
    its b columns: column k less the panel's columns left of k times row k of the panel
    there (a matrix-vector dot_general with row k masked to the columns before k), its
    diagonal element's square root the diagonal, the rest divided by it. Only the lower
    triangle is ever read: the rows above k of column k get values that the caller's
    zeroing of the upper triangle drops. Each element gets PolyBench's sum of products in
    two parts (the columns before the panel, then the panel's), as linalg's Cholesky; the
    flops are the factorization's n^3 / 3, where a right-looking update of the whole
    trailing block by each panel computes its upper half too."""
    n, dt = int(a.shape[0]), a.dtype
    t, s = a.mlir(), "tensor<i64>"
    line = lambda rhs: _line(em, rhs)  # noqa: E731
    state = a_value
    for big_k in range(0, n, b):
        m = n - big_k
        pt, vm, vb = f"tensor<{m}x{b}x{dt}>", f"tensor<{m}x{dt}>", f"tensor<{b}x{dt}>"
        p0 = line(f"stablehlo.slice {state} [{big_k}:{n}, {big_k}:{big_k + b}] : ({t}) -> {pt}")
        if big_k:
            left = line(f"stablehlo.slice {state} [{big_k}:{n}, 0:{big_k}] : ({t}) -> tensor<{m}x{big_k}x{dt}>")
            top = line(f"stablehlo.slice {state} [{big_k}:{big_k + b}, 0:{big_k}] : ({t}) -> tensor<{b}x{big_k}x{dt}>")
            prod = line(f"stablehlo.dot_general {left}, {top}, contracting_dims = [1] x [1] : "
                        f"(tensor<{m}x{big_k}x{dt}>, tensor<{b}x{big_k}x{dt}>) -> {pt}")
            p0 = line(f"stablehlo.subtract {p0}, {prod} : {pt}")

        def step(names, m=m, pt=pt, vm=vm, vb=vb):
            k, p = names
            z = line(f"stablehlo.constant dense<0> : {s}")
            one = line(f"stablehlo.constant dense<1> : {s}")
            row = _take(em, p, pt, [k, z], [1, b], dt, vb)
            before = _counter_mask(em, "LT", k, b)
            zeros = _splat(em, 0.0, a.with_shape((b,)))
            masked = line(f"stablehlo.select {before}, {row}, {zeros} : tensor<{b}xi1>, {vb}")
            sums = line(f"stablehlo.dot_general {p}, {masked}, contracting_dims = [1] x [0] : ({pt}, {vb}) -> {vm}")
            col = line(f"stablehlo.subtract {_take(em, p, pt, [z, k], [m, 1], dt, vm)}, {sums} : {vm}")
            piv = line(f"stablehlo.sqrt {_take(em, col, vm, [k], [1], dt, f'tensor<{dt}>')} : tensor<{dt}>")
            pivs = line(f"stablehlo.broadcast_in_dim {piv}, dims = [] : (tensor<{dt}>) -> {vm}")
            at_k = _counter_mask(em, "EQ", k, m)
            new = line(f"stablehlo.select {at_k}, {pivs}, {line(f'stablehlo.divide {col}, {pivs} : {vm}')} : "
                       f"tensor<{m}xi1>, {vm}")
            as_col = line(f"stablehlo.reshape {new} : ({vm}) -> tensor<{m}x1x{dt}>")
            p = line(f"stablehlo.dynamic_update_slice {p}, {as_col}, {z}, {k} : "
                     f"({pt}, tensor<{m}x1x{dt}>, {s}, {s}) -> {pt}")
            return [line(f"stablehlo.add {k}, {one} : {s}"), p]

        c0 = line(f"stablehlo.constant dense<0> : {s}")
        steps = while_loop(em, [(em.fresh("k"), c0, s), (em.fresh("p"), p0, pt)], b, step)
        at_k = line(f"stablehlo.constant dense<{big_k}> : {s}")
        state = line(f"stablehlo.dynamic_update_slice {state}, {steps}#1, {at_k}, {at_k} : ({t}, {pt}, {s}, {s}) -> {t}")
    return state


class TriangularSolve(TriangularSolveFamily, StablehloOp):
    """stablehlo.triangular_solve (left side). `b` may be a vector: it is reshaped to a
    column and back around the op (the op wants rank 2).

    One right-hand side at a size with a panel width (families.lu_panel; not transposed):
    XLA's own expansion of the op (diagonal blocks inverted, then products) takes twice
    the time of the loops for one vector, so the solve goes by panels of w rows (from the
    top for a lower triangle, from the bottom for an upper one). Up to MAX_UNROLLED_PANELS
    panels they are unrolled with static slices: panel p is its rows of b less the rows of
    the triangle left of the panel (right of it, upper) times the solution so far (a
    dot_general), then its w x w triangle solved by the op; only the triangle is read, a
    row panel is contiguous. Each panel's solution is written over the right-hand side
    (a dynamic_update_slice at a constant offset, in place), whose solved rows the next
    panels read as a slice: concatenating the solutions so far for each panel allocated
    and copied a vector per panel (trisolv at LARGE on mlir-cpu, AMD EPYC host, one
    thread, old and new raise in alternating processes: medians of 40 calls 0.74, 0.88,
    0.84 -> 0.74, 0.75, 0.81 ms; of 3000 calls on inputs in cache 0.42, 0.49 -> 0.33,
    0.35 ms). Beyond that: a while over the panels, each solving its
    triangle and subtracting its columns times its solution from the rows not yet solved
    (the whole column panel, masked)."""

    shape_generic = False  # its loops and panels are written at static sizes

    MAX_UNROLLED_PANELS = 64

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a, b = arg_types
        panel = lu_panel(int(a.shape[0]))
        if b.rank == 1 and panel is not None and not d["transpose_a"]:
            if int(a.shape[0]) // panel <= self.MAX_UNROLLED_PANELS:
                return self._unrolled(em, operands, a, b, d, panel)
            return self._blocked(em, operands, a, b, d, panel)
        return self._op(em, operands, a, b, d, result_type)

    def _unrolled(self, em, operands, a, b, d, w: int) -> str:
        n, dt = int(a.shape[0]), a.dtype
        vw, colw, sq = f"tensor<{w}x{dt}>", f"tensor<{w}x1x{dt}>", f"tensor<{w}x{w}x{dt}>"
        line = lambda rhs: _line(em, rhs)  # noqa: E731
        # x: the right-hand side with the panels solved so far written over it (each panel's
        # solution put at constant offsets: updated in place, its solved part read as a slice)
        x = operands[1]
        for p in range(n // w):
            at = p * w if d["lower"] else n - (p + 1) * w
            rhs = line(f"stablehlo.slice {x} [{at}:{at + w}] : ({b.mlir()}) -> {vw}")
            if p:
                done = p * w  # rows solved: [0, at) below the diagonal, [at + w, n) above it
                lo, hi = (0, at) if d["lower"] else (at + w, n)
                known = line(f"stablehlo.slice {x} [{lo}:{hi}] : ({b.mlir()}) -> tensor<{done}x{dt}>")
                rows = line(f"stablehlo.slice {operands[0]} [{at}:{at + w}, {lo}:{hi}] : "
                            f"({a.mlir()}) -> tensor<{w}x{done}x{dt}>")
                prod = line(f"stablehlo.dot_general {rows}, {known}, contracting_dims = [1] x [0] : "
                            f"(tensor<{w}x{done}x{dt}>, tensor<{done}x{dt}>) -> {vw}")
                rhs = line(f"stablehlo.subtract {rhs}, {prod} : {vw}")
            diag = line(f"stablehlo.slice {operands[0]} [{at}:{at + w}, {at}:{at + w}] : ({a.mlir()}) -> {sq}")
            column = line(f"stablehlo.reshape {rhs} : ({vw}) -> {colw}")
            sol = line(f"stablehlo.reshape {self._call(em, diag, column, sq, colw, d)} : ({colw}) -> {vw}")
            offset = line(f"stablehlo.constant dense<{at}> : tensor<i64>")
            x = line(f"stablehlo.dynamic_update_slice {x}, {sol}, {offset} : ({b.mlir()}, {vw}, tensor<i64>) -> {b.mlir()}")
        return x

    @staticmethod
    def _call(em, a_value: str, rhs: str, a_t: str, col_t: str, d) -> str:
        x = em.fresh()
        flag = lambda v: "true" if v else "false"  # noqa: E731
        transpose = "TRANSPOSE" if d["transpose_a"] else "NO_TRANSPOSE"
        em.line(f'{x} = "stablehlo.triangular_solve"({a_value}, {rhs}) {{left_side = true, '
                f'lower = {flag(d["lower"])}, unit_diagonal = {flag(d["unit_diagonal"])}, '
                f'transpose_a = #stablehlo<transpose {transpose}>}} : ({a_t}, {col_t}) -> {col_t}')
        return x

    def _blocked(self, em, operands, a, b, d, w: int) -> str:
        n, dt, s = int(a.shape[0]), a.dtype, "tensor<i64>"
        t, v, vw, colw = a.mlir(), b.mlir(), f"tensor<{w}x{dt}>", f"tensor<{w}x1x{dt}>"
        iv, mv = f"tensor<{n}xi64>", f"tensor<{n}xi1>"
        line = lambda rhs: _line(em, rhs)  # noqa: E731
        c0 = line(f"stablehlo.constant dense<0> : {s}")

        def body(names):
            p, x, mat = names
            zero = line(f"stablehlo.constant dense<0> : {s}")
            one = line(f"stablehlo.constant dense<1> : {s}")
            width = line(f"stablehlo.constant dense<{w}> : {s}")
            at = line(f"stablehlo.multiply {p}, {width} : {s}")
            if not d["lower"]:  # panels from the bottom
                last = line(f"stablehlo.constant dense<{n - w}> : {s}")
                at = line(f"stablehlo.subtract {last}, {at} : {s}")
            diag = _take(em, mat, t, [at, at], [w, w], dt)
            xb = _take(em, x, v, [at], [w], dt, colw)
            sol = self._call(em, diag, xb, f"tensor<{w}x{w}x{dt}>", colw, d)
            sol = line(f"stablehlo.reshape {sol} : ({colw}) -> {vw}")
            cols = _take(em, mat, t, [zero, at], [n, w], dt)
            prod = line(f"stablehlo.dot_general {cols}, {sol}, contracting_dims = [1] x [0] : "
                        f"(tensor<{n}x{w}x{dt}>, {vw}) -> {v}")
            rows = line(f"stablehlo.iota dim = 0 : {iv}")
            if d["lower"]:  # the rows after the panel
                bound = line(f"stablehlo.add {at}, {width} : {s}")
                pending = line(f"stablehlo.compare GE, {rows}, "
                               f"{line(f'stablehlo.broadcast_in_dim {bound}, dims = [] : ({s}) -> {iv}')} : "
                               f"({iv}, {iv}) -> {mv}")
            else:  # the rows before it
                pending = line(f"stablehlo.compare LT, {rows}, "
                               f"{line(f'stablehlo.broadcast_in_dim {at}, dims = [] : ({s}) -> {iv}')} : "
                               f"({iv}, {iv}) -> {mv}")
            less = line(f"stablehlo.subtract {x}, {prod} : {v}")
            x1 = line(f"stablehlo.select {pending}, {less}, {x} : {mv}, {v}")
            x2 = line(f"stablehlo.dynamic_update_slice {x1}, {sol}, {at} : ({v}, {vw}, {s}) -> {v}")
            return [line(f"stablehlo.add {p}, {one} : {s}"), x2, mat]
        out = while_loop(em, [(em.fresh("p"), c0, s), (em.fresh("x"), operands[1], v),
                             (em.fresh("mat"), operands[0], t)], n // w, body)
        return f"{out}#1"

    def _op(self, em, operands, a, b, d, result_type) -> str:
        rhs, column = operands[1], b.with_shape((b.shape[0], 1)) if b.rank == 1 else b
        if b.rank == 1:
            rhs = em.fresh()
            em.line(f"{rhs} = stablehlo.reshape {operands[1]} : ({b.mlir()}) -> {column.mlir()}")
        x = self._call(em, operands[0], rhs, a.mlir(), column.mlir(), d)
        if b.rank == 2:
            return x
        r = em.fresh()
        em.line(f"{r} = stablehlo.reshape {x} : ({column.mlir()}) -> {result_type.mlir()}")
        return r


class Cholesky(CholeskyFamily, StablehloOp):
    """stablehlo.cholesky, lower = true. What the op leaves above the diagonal is
    implementation-defined, so the emitter zeroes it explicitly (a select on an iota
    comparison).

    At a size with a panel width (families.lu_panel, "stablehlo-cholesky": a multiple of 8
    columns, 40 at n = 2000) and at most MAX_UNROLLED_PANELS panels: cholesky_by_panels,
    then above the diagonal zeroed. At n = 2000 on one core
    (XLA CPU, medians of 7 calls, 2026-11-27, AMD EPYC): 0.11-0.12 s, where the
    right-looking form before (each panel's columns by masked rank-1 updates of the whole
    panel, the whole trailing block less one dot_general) took 0.20 s; on the mlir-cpu
    backend 0.17-0.19 s against 0.43 s. XLA's expansion of stablehlo.cholesky takes 1.5x
    the right-looking form's time."""

    shape_generic = False  # its loops and panels are written at static sizes

    MAX_UNROLLED_PANELS = 64

    def emit(self, em, operands, arg_types, attrs, result_type):
        n = int(result_type.shape[0])
        b = lu_panel(n, "stablehlo-cholesky")
        if b is not None and n // b <= self.MAX_UNROLLED_PANELS:
            return self._zero_upper(em, cholesky_by_panels(em, operands[0], result_type, b), result_type)
        return self._op(em, operands, result_type)

    @staticmethod
    def _zero_upper(em, value: str, result_type) -> str:
        t, mask_t, it = result_type.mlir(), result_type.with_dtype("i1").mlir(), result_type.with_dtype("i64").mlir()
        rows, cols, lower, zeros, r = (em.fresh() for _ in range(5))
        em.line(f"{rows} = stablehlo.iota dim = 0 : {it}")
        em.line(f"{cols} = stablehlo.iota dim = 1 : {it}")
        em.line(f"{lower} = stablehlo.compare GE, {rows}, {cols} : ({it}, {it}) -> {mask_t}")
        zero = _tensor_constant(em, 0.0, result_type.dtype)
        em.line(f"{zeros} = stablehlo.broadcast_in_dim {zero}, dims = [] : (tensor<{result_type.dtype}>) -> {t}")
        em.line(f"{r} = stablehlo.select {lower}, {value}, {zeros} : {mask_t}, {t}")
        return r

    def _op(self, em, operands, result_type):
        factor = em.fresh()
        em.line(f"{factor} = stablehlo.cholesky {operands[0]}, lower = true : {result_type.mlir()}")
        return self._zero_upper(em, factor, result_type)


class Lu(LuFamily, StablehloOp):
    """LU without pivoting as stablehlo.while loops (static shapes: masks select the part
    of a matrix a step changes).

    Unblocked (n without a panel width, families.lu_panel, e.g. the small sizes of proofs): a while
    over k = 0 .. n-2: column k divided by the pivot, the block below and right of (k, k)
    less the outer product of those multipliers with row k; each step computes the whole
    matrix. Every element gets the operations of PolyBench's loops in their order.

    Blocked (panel width b dividing n), up to MAX_UNROLLED_PANELS panels: lu_by_panels,
    each panel on static slices of what is left (lu LARGE on XLA CPU, one core: 0.60 s
    for the while below, 0.20 s), two levels where n has a wider multiple of b
    (families.lu_outer_panel: panels of 250 factored by sub-panels of 50 at n = 2000), so
    that the trailing block is updated by products as deep as the outer panel. More
    panels: a while over the panels K = 0, b, .., n-b;
    in each, a while over its b columns does the unblocked steps on the column panel (n x b) and the
    same eliminations on the row panel right of it (b x n: rows K..K+b-1, the unit lower
    solve of U12), then the block below and right of the panel is updated by one
    dot_general (n x b times b x n): there the b products of a panel are summed before
    they are subtracted (reassociated; the rest in the loops' order)."""

    shape_generic = False  # its loops and panels are written at static sizes

    MAX_UNROLLED_PANELS = 64

    def emit(self, em, operands, arg_types, attrs, result_type):
        n = int(arg_types[0].shape[0])
        b = lu_panel(n)
        if b is None:
            return self._unblocked(em, operands[0], arg_types[0])
        if n // b <= self.MAX_UNROLLED_PANELS:
            return lu_by_panels(em, operands[0], arg_types[0], lu_outer_panel(n, b), b)
        return self._blocked(em, operands[0], arg_types[0], b)

    def _unblocked(self, em, a_value: str, a):
        n, dt = int(a.shape[0]), a.dtype
        t, vec = a.mlir(), f"tensor<{n}x{dt}>"
        it, scalar, mask = a.with_dtype("i64").mlir(), "tensor<i64>", a.with_dtype("i1").mlir()
        line = lambda rhs: _line(em, rhs)  # noqa: E731
        c0 = line("stablehlo.constant dense<0> : tensor<i64>")

        def body(names):
            k, state = names
            zero = line(f"stablehlo.constant dense<0> : {scalar}")
            one = line(f"stablehlo.constant dense<1> : {scalar}")
            col = _take(em, state, t, [zero, k], [n, 1], dt, vec)
            row = _take(em, state, t, [k, zero], [1, n], dt, vec)
            piv = _take(em, state, t, [k, k], [1, 1], dt, f"tensor<{dt}>")
            pivs = line(f"stablehlo.broadcast_in_dim {piv}, dims = [] : (tensor<{dt}>) -> {vec}")
            l = line(f"stablehlo.divide {col}, {pivs} : {vec}")
            lb = line(f"stablehlo.broadcast_in_dim {l}, dims = [0] : ({vec}) -> {t}")
            rb = line(f"stablehlo.broadcast_in_dim {row}, dims = [1] : ({vec}) -> {t}")
            prod = line(f"stablehlo.multiply {lb}, {rb} : {t}")
            upd = line(f"stablehlo.subtract {state}, {prod} : {t}")
            rows = line(f"stablehlo.iota dim = 0 : {it}")
            cols = line(f"stablehlo.iota dim = 1 : {it}")
            kb = line(f"stablehlo.broadcast_in_dim {k}, dims = [] : ({scalar}) -> {it}")
            inner = line(f"stablehlo.minimum {rows}, {cols} : {it}")
            block = line(f"stablehlo.compare GT, {inner}, {kb} : ({it}, {it}) -> {mask}")
            below = line(f"stablehlo.compare GT, {rows}, {kb} : ({it}, {it}) -> {mask}")
            at_k = line(f"stablehlo.compare EQ, {cols}, {kb} : ({it}, {it}) -> {mask}")
            multipliers = line(f"stablehlo.select {at_k}, {lb}, {state} : {mask}, {t}")
            kept = line(f"stablehlo.select {below}, {multipliers}, {state} : {mask}, {t}")
            new = line(f"stablehlo.select {block}, {upd}, {kept} : {mask}, {t}")
            return [line(f"stablehlo.add {k}, {one} : {scalar}"), new]
        out = while_loop(em, [(em.fresh("k"), c0, "tensor<i64>"), (em.fresh("state"), a_value, t)], n - 1, body)
        return f"{out}#1"

    def _blocked(self, em, a_value: str, a, b: int):
        n, dt = int(a.shape[0]), a.dtype
        t, s = a.mlir(), "tensor<i64>"
        panel, rpanel = f"tensor<{n}x{b}x{dt}>", f"tensor<{b}x{n}x{dt}>"
        vn, vb = f"tensor<{n}x{dt}>", f"tensor<{b}x{dt}>"
        ip, ir, it = f"tensor<{n}x{b}xi64>", f"tensor<{b}x{n}xi64>", f"tensor<{n}x{n}xi64>"
        mp, mr, mt = f"tensor<{n}x{b}xi1>", f"tensor<{b}x{n}xi1>", f"tensor<{n}x{n}xi1>"
        line = lambda rhs: _line(em, rhs)  # noqa: E731
        c0 = line(f"stablehlo.constant dense<0> : {s}")

        def bcast(x, xt, dims, rt):
            return line(f"stablehlo.broadcast_in_dim {x}, dims = [{', '.join(map(str, dims))}] : ({xt}) -> {rt}")

        def outer(names):
            kk, state = names
            zero = line(f"stablehlo.constant dense<0> : {s}")
            bc = line(f"stablehlo.constant dense<{b}> : {s}")
            end = line(f"stablehlo.add {kk}, {bc} : {s}")  # K + b: the first column after the panel
            p0 = _take(em, state, t, [zero, kk], [n, b], dt)
            r0 = _take(em, state, t, [kk, zero], [b, n], dt)

            def inner(names):
                k, big_k, p, r = names
                z = line(f"stablehlo.constant dense<0> : {s}")
                one = line(f"stablehlo.constant dense<1> : {s}")
                g = line(f"stablehlo.add {big_k}, {k} : {s}")  # the global row / column of the step
                piv = _take(em, p, panel, [g, k], [1, 1], dt, f"tensor<{dt}>")
                col = _take(em, p, panel, [z, k], [n, 1], dt, vn)
                l = line(f"stablehlo.divide {col}, {bcast(piv, f'tensor<{dt}>', [], vn)} : {vn}")
                prow = _take(em, p, panel, [g, z], [1, b], dt, vb)
                lp = bcast(l, vn, [0], panel)
                prod = line(f"stablehlo.multiply {lp}, {bcast(prow, vb, [1], panel)} : {panel}")
                upd = line(f"stablehlo.subtract {p}, {prod} : {panel}")
                pr, pc = line(f"stablehlo.iota dim = 0 : {ip}"), line(f"stablehlo.iota dim = 1 : {ip}")
                below = line(f"stablehlo.compare GT, {pr}, {bcast(g, s, [], ip)} : ({ip}, {ip}) -> {mp}")
                kp = bcast(k, s, [], ip)
                right = line(f"stablehlo.compare GT, {pc}, {kp} : ({ip}, {ip}) -> {mp}")
                at_k = line(f"stablehlo.compare EQ, {pc}, {kp} : ({ip}, {ip}) -> {mp}")
                p1 = line(f"stablehlo.select {right}, {upd}, {p} : {mp}, {panel}")
                p2 = line(f"stablehlo.select {at_k}, {lp}, {p1} : {mp}, {panel}")
                p3 = line(f"stablehlo.select {below}, {p2}, {p} : {mp}, {panel}")
                # the row panel: rows after the step's, columns after the panel
                rrow = _take(em, r, rpanel, [k, z], [1, n], dt, vn)
                lr = _take(em, l, vn, [big_k], [b], dt)
                lrb, rrb = bcast(lr, vb, [0], rpanel), bcast(rrow, vn, [1], rpanel)
                rprod = line(f"stablehlo.multiply {lrb}, {rrb} : {rpanel}")
                rupd = line(f"stablehlo.subtract {r}, {rprod} : {rpanel}")
                rr, rc = line(f"stablehlo.iota dim = 0 : {ir}"), line(f"stablehlo.iota dim = 1 : {ir}")
                later = line(f"stablehlo.compare GT, {rr}, {bcast(k, s, [], ir)} : ({ir}, {ir}) -> {mr}")
                width = line(f"stablehlo.constant dense<{b}> : {s}")
                panel_end = bcast(line(f"stablehlo.add {big_k}, {width} : {s}"), s, [], ir)
                after = line(f"stablehlo.compare GE, {rc}, {panel_end} : ({ir}, {ir}) -> {mr}")
                r1 = line(f"stablehlo.select {after}, {rupd}, {r} : {mr}, {rpanel}")
                r2 = line(f"stablehlo.select {later}, {r1}, {r} : {mr}, {rpanel}")
                return [line(f"stablehlo.add {k}, {one} : {s}"), big_k, p3, r2]

            steps = while_loop(em, [(em.fresh("k"), line(f"stablehlo.constant dense<0> : {s}"), s),
                                     (em.fresh("kk"), kk, s), (em.fresh("p"), p0, panel),
                                     (em.fresh("r"), r0, rpanel)], b, inner)
            pf, rf = f"{steps}#2", f"{steps}#3"
            a1 = line(f"stablehlo.dynamic_update_slice {state}, {pf}, {zero}, {kk} : ({t}, {panel}, {s}, {s}) -> {t}")
            rcur = _take(em, a1, t, [kk, zero], [b, n], dt)
            rc = line(f"stablehlo.iota dim = 1 : {ir}")
            after = line(f"stablehlo.compare GE, {rc}, {bcast(end, s, [], ir)} : ({ir}, {ir}) -> {mr}")
            rm = line(f"stablehlo.select {after}, {rf}, {rcur} : {mr}, {rpanel}")
            a2 = line(f"stablehlo.dynamic_update_slice {a1}, {rm}, {kk}, {zero} : ({t}, {rpanel}, {s}, {s}) -> {t}")
            zc = line(f"stablehlo.constant dense<0.000000e+00> : tensor<{dt}>")
            pr = line(f"stablehlo.iota dim = 0 : {ip}")
            lower = line(f"stablehlo.compare GE, {pr}, {bcast(end, s, [], ip)} : ({ip}, {ip}) -> {mp}")
            l21 = line(f"stablehlo.select {lower}, {pf}, {bcast(zc, f'tensor<{dt}>', [], panel)} : {mp}, {panel}")
            u12 = line(f"stablehlo.select {after}, {rf}, {bcast(zc, f'tensor<{dt}>', [], rpanel)} : {mr}, {rpanel}")
            prod = line(f"stablehlo.dot_general {l21}, {u12}, contracting_dims = [1] x [0] : ({panel}, {rpanel}) -> {t}")
            upd = line(f"stablehlo.subtract {a2}, {prod} : {t}")
            rows, cols = line(f"stablehlo.iota dim = 0 : {it}"), line(f"stablehlo.iota dim = 1 : {it}")
            inner_m = line(f"stablehlo.minimum {rows}, {cols} : {it}")
            trailing = line(f"stablehlo.compare GE, {inner_m}, {bcast(end, s, [], it)} : ({it}, {it}) -> {mt}")
            a3 = line(f"stablehlo.select {trailing}, {upd}, {a2} : {mt}, {t}")
            return [end, a3]

        out = while_loop(em, [(em.fresh("kk"), c0, s), (em.fresh("state"), a_value, t)], n, outer)
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
    reads, no padded copy."""

    shape_generic = False  # its loops and panels are written at static sizes

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
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
