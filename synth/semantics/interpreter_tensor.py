"""Handlers of the interpreter of raised programs (synth.semantics.interpreter) for linalg
(named ops are generalized first), tensor ops and the library ops (triangular_solve,
cholesky)."""

from __future__ import annotations

import re

import numpy as np

from synth.grammar.shapes import cholesky, triangular_solve
from synth.grammar.types import TensorType
from synth.analysis.affine_expr import compile_map
from synth.semantics.handlers import handles

from synth.semantics import scalar
from synth.semantics.raised_values import has, i64s, int_attr
from synth.semantics.scalar import Unsupported
# the interpreter -------------------------------------------------------------------------

from synth.semantics.interpreter import (
    by_cases,
    concrete,
)  # noqa: E402


# --- linalg (named ops are generalized first) and tensor ----------------------------------------


@handles("tensor.cast")
def op_tensor_cast(it, op, xs):
    """A cast between static and dynamic shapes of one tensor: the same elements."""
    return [xs[0]]


@handles("tensor.empty")
def op_empty(it, op, xs):
    """tensor.empty: a fresh array of the result type."""
    dtype = re.search(r"(?:<|x)([a-z]+\d*)>$", str(op.results[0].type)).group(1)
    return [it.fresh_array(TensorType(_shape(op, 0, xs), dtype), "empty")]


@handles("linalg.generic")
def op_generic(it, op, xs):
    """linalg.generic: its body run at every point of the iteration space."""
    ir = it.ir
    view = op.opview
    n_in = len(view.inputs)
    ins, outs = xs[:n_in], [np.array(o, dtype=object) for o in xs[n_in:]]
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    n_dims = maps[0].n_dims
    shapes = [np.shape(x) if isinstance(x, np.ndarray) else None for x in xs]  # dynamic dims too
    domain: list[int | None] = [None] * n_dims
    for amap, shape in zip(maps, shapes):
        if shape is None:
            continue
        for r, expr in enumerate(amap.results):
            if isinstance(expr, ir.AffineDimExpr) and domain[expr.position] is None:
                domain[expr.position] = shape[r]
    if any(d is None for d in domain):
        raise Unsupported("a loop dimension that no operand indexes directly")
    indexers = [None if shape is None else compile_map(amap, ir) for amap, shape in zip(maps, shapes)]
    body = op.regions[0].blocks[0]
    it.index_stack.append(None)
    try:
        for point in np.ndindex(*domain):
            it.index_stack[-1] = point
            args = []
            for fns, x in zip(indexers, ins + outs):
                args.append(x if fns is None else x[tuple(f(point) for f in fns)])
            values = it.run_block(body, args)
            for o, fns, v in zip(outs, indexers[n_in:], values):
                o[tuple(f(point) for f in fns)] = v
    finally:
        it.index_stack.pop()
    return outs


@handles("linalg.index")
def op_index(it, op, xs):
    """linalg.index: the current iteration index along `dim` of the innermost generic."""
    if not it.index_stack or it.index_stack[-1] is None:
        raise Unsupported("linalg.index outside a linalg.generic")
    return [int(it.index_stack[-1][int_attr(it.ir, op.attributes["dim"])])]


_DYNAMIC = -(2 ** 62)  # static offsets / sizes / strides below it are ShapedType::kDynamic


def _slice_params(it, op, dynamic: list) -> tuple[list[int], list[int], list[int]]:
    """(offsets, sizes, strides) of a tensor.extract_slice / insert_slice: the static
    attributes, each dynamic entry taken in order from `dynamic` (the op's index operands).
    Sizes and strides must be concrete; offsets may be symbolic (a loop counter in a proof:
    the slice is then taken by cases)."""
    values = iter(dynamic)
    out = []
    for name in ("static_offsets", "static_sizes", "static_strides"):
        out.append([(next(values) if name == "static_offsets" else concrete(next(values)))
                    if v < _DYNAMIC else v for v in i64s(it.ir, op.attributes[name])])
    return out[0], out[1], out[2]


def _shape(op, k: int, dynamic: list) -> tuple[int, ...]:
    """The shape of result k, its dynamic dims taken in order from `dynamic`."""
    values = iter(dynamic)
    return tuple(concrete(next(values)) if d is None else d for d in _result_dims(op, k))


def _result_dims(op, k: int = 0) -> list[int | None]:
    """The dims of result k's tensor type, None where dynamic (`?`)."""
    dims = re.match(r"tensor<((?:[0-9?]+x)*)", str(op.results[k].type)).group(1).split("x")[:-1]
    return [None if d == "?" else int(d) for d in dims]


def _reduced(sizes: list[int], static: list[int], result: list[int | None]) -> tuple[int, ...]:
    """A slice's sizes less the unit dims tensor.extract_slice's rank reduction drops:
    the static sizes matched to the result's dims from the left (a static size to the
    same static dim, a dynamic one to a dynamic dim), a static 1 that does not match
    dropped."""
    out, r = [], 0
    for n, s in zip(sizes, static):
        dynamic = s < _DYNAMIC
        if r < len(result) and (result[r] is None if dynamic else result[r] == s):
            out.append(n)
            r += 1
        elif dynamic or s != 1:
            raise Unsupported("a rank-reducing slice whose dropped dims are not static unit dims")
    return tuple(out)


@handles("tensor.extract_slice")
def op_extract_slice(it, op, xs):
    """tensor.extract_slice (a symbolic offset: by cases)."""
    off, size, stride = _slice_params(it, op, xs[1:])
    shape = _reduced(size, i64s(it.ir, op.attributes["static_sizes"]), _result_dims(op))
    a = np.asarray(xs[0], dtype=object)
    bounds = [(0, max(n - (s - 1) * k - 1, 0)) for n, s, k in zip(a.shape, size, stride)]
    return [by_cases(off, bounds, lambda o: np.array(a[tuple(slice(b, b + s * k, k) for b, s, k
                                                               in zip(o, size, stride))]).reshape(shape))]


@handles("tensor.insert_slice")
def op_insert_slice(it, op, xs):
    """tensor.insert_slice (a symbolic offset: by cases)."""
    off, size, stride = _slice_params(it, op, xs[2:])
    dest = np.asarray(xs[1], dtype=object)
    bounds = [(0, max(n - (s - 1) * k - 1, 0)) for n, s, k in zip(dest.shape, size, stride)]

    def build(o):
        out = np.array(dest, dtype=object)
        index = tuple(slice(b, b + s * k, k) for b, s, k in zip(o, size, stride))
        out[index] = np.asarray(xs[0], dtype=object).reshape(out[index].shape)
        return out
    return [by_cases(off, bounds, build)]


@handles("tensor.extract")
def op_extract(it, op, xs):
    """tensor.extract (a symbolic index: by cases)."""
    x = np.asarray(xs[0], dtype=object)
    try:
        return [x[tuple(concrete(i) for i in xs[1:])]]
    except Unsupported:  # a symbolic index (an element at a loop counter): by cases
        out = by_cases(list(xs[1:]), [(0, n - 1) for n in x.shape], lambda ks: x[tuple(ks)])
        return [out[()]]


@handles("tensor.insert")
def op_insert(it, op, xs):
    """tensor.insert at concrete indices."""
    dest = np.array(xs[1], dtype=object)
    dest[tuple(concrete(i) for i in xs[2:])] = xs[0]
    return [dest]


@handles("tensor.from_elements")
def op_from_elements(it, op, xs):
    """tensor.from_elements in row-major order."""
    t = it.result_type(op)
    out = np.empty(t.shape, dtype=object)
    for idx, v in zip(np.ndindex(*t.shape), xs):
        out[idx] = v
    return [out]


@handles("stablehlo.triangular_solve")
def op_triangular_solve(it, op, xs):
    """stablehlo.triangular_solve (left_side only)."""
    def flag(name: str) -> bool:
        return it.ir.BoolAttr(op.attributes[name]).value

    if not flag("left_side"):
        raise Unsupported("only left_side = true is modelled")
    transpose = str(op.attributes["transpose_a"])
    if "ADJOINT" in transpose:
        raise Unsupported("transpose_a = ADJOINT is not modelled")
    ops = scalar.STABLEHLO
    return [triangular_solve(xs[0], xs[1], flag("lower"), flag("unit_diagonal"), "NO_TRANSPOSE" not in transpose,
                             ops["stablehlo.subtract"], ops["stablehlo.multiply"], ops["stablehlo.divide"])]


@handles("stablehlo.cholesky")
def op_cholesky(it, op, xs):
    """stablehlo.cholesky (lower only; the upper triangle is implementation-defined)."""
    if not (has(op, "lower") and it.ir.BoolAttr(op.attributes["lower"]).value):
        raise Unsupported("only lower = true is modelled")
    ops = scalar.STABLEHLO
    out = cholesky(xs[0], ops["stablehlo.subtract"], ops["stablehlo.multiply"], ops["stablehlo.divide"],
                   ops["stablehlo.sqrt"])
    unknown = it.fresh_array(it.result_type(op), "cholesky_upper")  # implementation-defined
    upper = np.triu(np.ones(out.shape, dtype=bool), 1)
    out[upper] = unknown[upper]
    return [out]
