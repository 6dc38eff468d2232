"""The interpreter of raised functions: one handler per op (stablehlo, linalg generics
after generalization, tensor, arith, math, func.call), on NumPy object arrays of z3
terms. Its op handlers are listed in the table HANDLERS (synth.semantics.handlers)."""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Callable

import numpy as np
import z3

from synth.errors import InputError
from synth.grammar.shapes import broadcast
from synth.semantics.handlers import handles, table

from synth.semantics import scalar
from synth.semantics.raised_values import (ValueType, z3_sort, arith_compare, arith_int_cast, convert, dot_general, numeral, value_type,
    has, i64s, int_attr, map_elements, attr_number, dense_values, scalar_array)
from synth.semantics.scalar import Unsupported
# the interpreter -------------------------------------------------------------------------

Handler = Callable[["Interpreter", object, list], list]


_TERMINATORS = ("func.return", "stablehlo.return", "linalg.yield", "tensor.yield", "scf.yield")
MAX_ITERATIONS = 100_000  # of a loop in a raised function (stablehlo.while, scf.for)


class Interpreter:
    """Evaluates the functions of a raised module on values (numbers, z3 terms, object arrays),
    each op through its handler."""
    def __init__(self, ir, module, path: str, handlers=None):
        self.ir, self.path = ir, path
        self.handlers = HANDLERS if handlers is None else handlers  # op name -> handler
        self.functions = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                self.functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
        self.index_stack: list[tuple[int, ...] | None] = []  # linalg.generic points, innermost last
        self.env: ChainMap | None = None  # SSA value -> value, innermost block first

    def where(self, op) -> str:
        m = re.search(r'loc\("[^"]*":(\d+):(\d+)', str(op.location))
        return f"{self.path}:{m.group(1)}:{m.group(2)}" if m else self.path

    def call(self, name: str, args: list) -> list:
        func = self.functions.get(name)
        if func is None or len(func.regions[0].blocks) == 0:
            raise InputError(f"no function @{name} with a body in the raised module", self.path)
        return self.run_block(func.regions[0].blocks[0], args)

    def run_block(self, block, args: list) -> list:
        """Run a block on its argument values; the values its terminator returns. Values
        of enclosing blocks stay visible (a linalg.generic body may use constants
        defined, or hoisted by MLIR's folder, outside it)."""
        outer = self.env
        self.env = env = ChainMap(dict(zip(block.arguments, args)), *([outer] if outer is not None else []))
        try:
            for op in block.operations:
                name = op.operation.name
                operands = [env[v] for v in op.operands]
                if name in _TERMINATORS:
                    return operands
                handler = self.handlers.get(name)
                if handler is None:
                    raise InputError(f"the raised-function interpreter does not support '{name}'",
                                     self.where(op))
                try:
                    results = handler(self, op, operands)
                except Unsupported as e:
                    raise InputError(f"'{name}': {e}", self.where(op)) from None
                env.maps[0].update(zip(op.results, results))
            return []
        finally:
            self.env = outer

    def result_type(self, op, k: int = 0) -> ValueType:
        return value_type(op.results[k].type)

    def fresh_array(self, t: ValueType, what: str) -> np.ndarray:
        out = np.empty(t.shape, dtype=object)
        sort = z3_sort(t.dtype)
        for idx in np.ndindex(*t.shape):
            out[idx] = z3.FreshConst(sort, prefix=what)
        return out


# --- elementwise (stablehlo, arith / math on scalars or tensors) ---------------------------

_ELEMENTWISE: dict[str, Callable] = {**scalar.STABLEHLO, **scalar.ARITH_MATH}


def _apply_elementwise(fn: Callable, t: ValueType, operands: list):
    if not t.is_tensor:
        return fn(*operands)
    return map_elements(fn, t.shape, *operands)


@handles(*_ELEMENTWISE)
def _elementwise(it: Interpreter, op, xs: list) -> list:
    return [_apply_elementwise(_ELEMENTWISE[op.operation.name], it.result_type(op), xs)]


@handles("stablehlo.convert")
def _convert(it, op, xs):
    t = it.result_type(op)
    src = value_type(op.operands[0].type).dtype
    return [_apply_elementwise(convert(src, t.dtype), t, xs)]


@handles(*scalar.INT_CASTS)
def _int_cast(it, op, xs):
    return [_apply_elementwise(arith_int_cast(op), it.result_type(op), xs)]


_DIRECTION = re.compile(r"comparison_direction\s+(\w+)")


@handles("stablehlo.compare")
def _sh_compare(it, op, xs):
    direction = _DIRECTION.search(str(op.attributes["comparison_direction"])).group(1)
    if has(op, "compare_type") and "UNSIGNED" in str(op.attributes["compare_type"]):
        raise Unsupported("unsigned comparison is not modelled")
    t = it.result_type(op)
    return [map_elements(lambda a, b: scalar.compare(direction, a, b), t.shape, *xs)]


@handles("arith.cmpf", "arith.cmpi")
def _arith_compare(it, op, xs):
    return [_apply_elementwise(arith_compare(it.ir, op), it.result_type(op), xs)]


# --- constants and shapes ---------------------------------------------------------------------


@handles("stablehlo.constant", "arith.constant")
def _constant(it, op, xs):
    t = it.result_type(op)
    attr = op.attributes["value"]
    if t.is_tensor:
        return [dense_values(it.ir, attr, t)]
    value = attr_number(it.ir, attr)
    if t.dtype == "index":
        return [int(value)]
    if t.dtype == "i1":
        return [bool(value)]
    return [numeral(value, t.dtype)]


@handles("stablehlo.iota")
def _iota(it, op, xs):
    t = it.result_type(op)
    dim = int_attr(it.ir, op.attributes["iota_dimension"])
    out = np.empty(t.shape, dtype=object)
    for idx in np.ndindex(*t.shape):
        out[idx] = numeral(idx[dim], t.dtype)
    return [out]


@handles("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(it, op, xs):
    t = it.result_type(op)
    dims = tuple(i64s(it.ir, op.attributes["broadcast_dimensions"]))
    return [broadcast(xs[0], t.shape, dims)]


@handles("stablehlo.broadcast")
def _sh_broadcast(it, op, xs):
    t = it.result_type(op)
    a = np.asarray(xs[0], dtype=object)
    return [np.array(np.broadcast_to(a, t.shape), dtype=object)]


@handles("stablehlo.transpose")
def _transpose(it, op, xs):
    perm = i64s(it.ir, op.attributes["permutation"])
    return [np.ascontiguousarray(np.transpose(xs[0], perm))]


@handles("stablehlo.reshape", "tensor.collapse_shape", "tensor.expand_shape", "tensor.reshape")
def _reshape(it, op, xs):
    t = it.result_type(op)
    return [np.array(np.reshape(xs[0], t.shape), dtype=object)]


@handles("stablehlo.reverse")
def _reverse(it, op, xs):
    dims = i64s(it.ir, op.attributes["dimensions"])
    return [np.ascontiguousarray(np.flip(xs[0], axis=tuple(dims)))]


@handles("stablehlo.slice")
def _slice(it, op, xs):
    start = i64s(it.ir, op.attributes["start_indices"])
    limit = i64s(it.ir, op.attributes["limit_indices"])
    strides = i64s(it.ir, op.attributes["strides"]) if has(op, "strides") else [1] * len(start)
    index = tuple(slice(s, e, k) for s, e, k in zip(start, limit, strides))
    return [np.array(xs[0][index], dtype=object)]


@handles("stablehlo.concatenate")
def _concatenate(it, op, xs):
    dim = int_attr(it.ir, op.attributes["dimension"])
    return [np.concatenate([np.asarray(x, dtype=object) for x in xs], axis=dim)]


@handles("stablehlo.pad")
def _pad(it, op, xs):
    a, value = xs[0], xs[1][()]
    low = i64s(it.ir, op.attributes["edge_padding_low"])
    interior = i64s(it.ir, op.attributes["interior_padding"])
    t = it.result_type(op)
    out = np.empty(t.shape, dtype=object)
    for idx in np.ndindex(*t.shape):
        src = []
        for d, i in enumerate(idx):
            pos = i - low[d]
            step = interior[d] + 1
            if pos < 0 or pos % step or pos // step >= a.shape[d]:
                src = None
                break
            src.append(pos // step)
        out[idx] = value if src is None else a[tuple(src)]
    return [out]


@handles("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(it, op, xs):
    """dest with update written at the start indices, each clamped into [0, dest - update]
    as stablehlo defines it (symbolic indices: by cases)."""
    dest, update = np.asarray(xs[0], dtype=object), np.asarray(xs[1], dtype=object)

    def build(starts):
        out = np.array(dest, dtype=object)
        out[tuple(slice(s, s + m) for s, m in zip(starts, update.shape))] = update
        return out
    return [by_cases(xs[2:], [(0, n - m) for n, m in zip(dest.shape, update.shape)], build)]


@handles("stablehlo.dynamic_slice")
def _dynamic_slice(it, op, xs):
    """The slice of the static sizes at the start indices, each clamped into [0, n - size]
    (symbolic indices: by cases)."""
    sizes = i64s(it.ir, op.attributes["slice_sizes"])
    a = np.asarray(xs[0], dtype=object)
    return [by_cases(xs[1:], [(0, n - m) for n, m in zip(a.shape, sizes)],
                      lambda starts: a[tuple(slice(s, s + m) for s, m in zip(starts, sizes))])]


_GATHER_FIELD = re.compile(r"(offset_dims|collapsed_slice_dims|start_index_map|index_vector_dim)\s*=\s*\[?([\d,\s]*)\]?")


@handles("stablehlo.gather")
def _gather(it, op, xs):
    """The gather of one index per position along one dim (what stablehlo.flip emits):
    indices of shape (n, 1), the dim collapsed, the other dims whole; result element p
    along that dim is the operand's slice at index[p], clamped into the dim (symbolic
    indices: by cases). Also one index (shape (1,)): the line there (a generic take)."""
    fields = {"index_vector_dim": [0]}  # printed only where it is not 0
    fields.update({k: [int(v) for v in vs.replace(" ", "").split(",") if v]
                   for k, vs in _GATHER_FIELD.findall(str(op.attributes["dimension_numbers"]))})
    a, index = np.asarray(xs[0], dtype=object), np.asarray(xs[1], dtype=object)
    sizes = i64s(it.ir, op.attributes["slice_sizes"])
    collapsed = fields.get("collapsed_slice_dims", [])
    if fields.get("index_vector_dim") == [index.ndim]:  # an implicit trailing dim of 1
        index = index[..., None]
    if len(collapsed) == 1 and fields.get("start_index_map") == collapsed and index.shape == (1,) \
            and fields.get("index_vector_dim") == [0] and fields.get("offset_dims", []) == list(range(a.ndim - 1)) \
            and all(m == (1 if k == collapsed[0] else n) for k, (n, m) in enumerate(zip(a.shape, sizes))):
        # one index: the line at it along the collapsed dim (a shape-generic take, refined)
        dim = collapsed[0]
        slab = by_cases([index[0]], [(0, a.shape[dim] - 1)], lambda ks: np.take(a, ks[0], axis=dim))
        return [np.asarray(slab, dtype=object)]
    if len(collapsed) == 1 and fields.get("start_index_map") == collapsed and index.ndim >= 3 \
            and index.shape[-1] == 1 and fields.get("index_vector_dim") == [index.ndim - 1] \
            and all(m == (1 if k == collapsed[0] else n) for k, (n, m) in enumerate(zip(a.shape, sizes))):
        return [_gather_batches(it, op, a, index, collapsed[0], fields.get("offset_dims", []))]
    if len(collapsed) != 1 or fields.get("start_index_map") != collapsed or index.ndim != 2 \
            or index.shape[1] != 1 or fields.get("index_vector_dim") != [1] \
            or fields.get("offset_dims", []) != [k for k in range(a.ndim) if k != collapsed[0]] \
            or any(m != (1 if k == collapsed[0] else n) for k, (n, m) in enumerate(zip(a.shape, sizes))):
        raise Unsupported("stablehlo.gather beyond one index per position along one dim")
    dim = collapsed[0]
    out = np.empty(it.result_type(op).shape, dtype=object)
    for p in range(index.shape[0]):
        slab = by_cases([index[p, 0]], [(0, a.shape[dim] - 1)], lambda ks: np.take(a, ks[0], axis=dim))
        out[(slice(None),) * dim + (p,)] = slab if slab.ndim else slab[()]
    return [out]


def _gather_batches(it, op, a, index, dim: int, offset_dims: list) -> np.ndarray:
    """A gather of one index per position of a batch of several dims (what
    synth.grammar.window emits: indices (m, w, 1)): result element (b, o) is the
    operand's slice at index[b] along `dim` (clamped), the batch dims at the result's
    positions outside `offset_dims`, the operand's other dims whole at `offset_dims`."""
    out_t = it.result_type(op).shape
    batch = index.shape[:-1]
    if len(offset_dims) != a.ndim - 1 or len(out_t) != len(batch) + a.ndim - 1:
        raise Unsupported("stablehlo.gather whose offset dims are not the operand's other dims")
    slabs = np.empty(batch + tuple(n for k, n in enumerate(a.shape) if k != dim), dtype=object)
    for b in np.ndindex(*batch):
        slab = by_cases([index[b + (0,)]], [(0, a.shape[dim] - 1)], lambda ks: np.take(a, ks[0], axis=dim))
        slabs[b] = slab if slab.ndim else slab[()]
    batch_at = [k for k in range(len(out_t)) if k not in offset_dims]
    order = [0] * len(out_t)  # result dim -> dim of slabs
    for j, k in enumerate(batch_at):
        order[k] = j
    for j, k in enumerate(offset_dims):
        order[k] = len(batch) + j
    return np.transpose(slabs, order)


# --- contractions and reductions ---------------------------------------------------------------

_DOT_FIELD = re.compile(r"(lhs|rhs)_(batching|contracting)_dimensions\s*=\s*\[([\d,\s]*)\]")


@handles("stablehlo.dot_general")
def _dot_general(it, op, xs):
    dims = {("lhs", "batching"): [], ("rhs", "batching"): [],
            ("lhs", "contracting"): [], ("rhs", "contracting"): []}
    for side, kind, values in _DOT_FIELD.findall(str(op.attributes["dot_dimension_numbers"])):
        dims[(side, kind)] = [int(v) for v in values.replace(" ", "").split(",") if v]
    out = dot_general(np.asarray(xs[0], dtype=object), np.asarray(xs[1], dtype=object),
                      dims[("lhs", "batching")], dims[("rhs", "batching")],
                      dims[("lhs", "contracting")], dims[("rhs", "contracting")])
    return [_zero_fill(out, it.result_type(op))]


@handles("stablehlo.dot")
def _dot(it, op, xs):
    a, b = (np.asarray(x, dtype=object) for x in xs)
    out = dot_general(a, b, [], [], [a.ndim - 1], [0])
    return [_zero_fill(out, it.result_type(op))]


def _zero_fill(out: np.ndarray, t: ValueType) -> np.ndarray:
    """Empty contractions give zeros of the result's element type."""
    for idx in np.ndindex(*out.shape):
        if out[idx] is None:
            out[idx] = numeral(0, t.dtype)
    return np.asarray(out, dtype=object).reshape(t.shape)


@handles("stablehlo.reduce")
def _reduce(it, op, xs):
    n = len(xs) // 2
    inputs, inits = xs[:n], [x[()] for x in xs[n:]]
    dims = sorted(i64s(it.ir, op.attributes["dimensions"]))
    body = op.regions[0].blocks[0]
    a0 = np.asarray(inputs[0], dtype=object)
    kept = [d for d in range(a0.ndim) if d not in dims]
    out_shape = tuple(a0.shape[d] for d in kept)
    outs = [np.empty(out_shape, dtype=object) for _ in range(n)]
    moved = [np.asarray(x, dtype=object).transpose(kept + dims).reshape(out_shape + (-1,)) for x in inputs]
    for idx in np.ndindex(*out_shape):
        acc = list(inits)
        for k in range(moved[0].shape[-1]):
            args = [scalar_array(v) for v in acc] + [scalar_array(m[idx + (k,)]) for m in moved]
            acc = [r[()] for r in it.run_block(body, args)]
        for o, v in zip(outs, acc):
            o[idx] = v
    return outs


# --- functions ---------------------------------------------------------------------------------


# --- loops (a time loop around a step, synth.synthesis.steps): run at concrete trip counts ---


def concrete(v):
    """A loop counter or condition as a Python int / bool; Unsupported where it depends
    on the inputs."""
    if isinstance(v, np.ndarray):
        v = v[()] if v.shape == () else None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, z3.ExprRef):
        t = z3.simplify(v)
        if z3.is_true(t) or z3.is_false(t):
            return z3.is_true(t)
        if z3.is_int_value(t):
            return t.as_long()
        if z3.is_bv_value(t):
            return t.as_signed_long()
    raise Unsupported("a loop whose trip count depends on the inputs")


def _index_cases(v, lo: int, hi: int) -> list[tuple[object, int]]:
    """(condition, value) pairs covering an index clamped into [lo, hi]: one pair with
    condition True where it is concrete; else each value with the condition that the
    (symbolic) index clamps to it. A dynamic slice at a loop counter that is symbolic in a
    proof (every counter value at once) is the merge of the slices at every position."""
    try:
        return [(True, min(max(concrete(v), lo), hi))]
    except Unsupported:
        pass
    if isinstance(v, np.ndarray):
        v = v[()]
    if hi <= lo:
        return [(True, lo)]
    return [(v <= lo if k == lo else v >= hi if k == hi else v == k, k) for k in range(lo, hi + 1)]


def by_cases(indices: list, bounds: list[tuple[int, int]], build) -> np.ndarray:
    """build(concrete indices) for indices that may be symbolic (each clamped into its
    bounds): one array per combination of their cases, merged elementwise by z3.If."""
    from itertools import product

    combos = list(product(*(_index_cases(v, lo, hi) for v, (lo, hi) in zip(indices, bounds))))
    results = [(z3.And(*[c for c, _ in combo if c is not True]) if any(c is not True for c, _ in combo) else True,
                np.asarray(build([k for _, k in combo]), dtype=object)) for combo in combos]
    cond, out = results[-1]
    out = np.array(out, dtype=object)
    for cond, value in reversed(results[:-1]):
        for idx in np.ndindex(*out.shape):
            a, b = value[idx], out[idx]
            if a is not b and not (isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.eq(b)):
                out[idx] = z3.If(cond, a, b)
    return out


@handles("stablehlo.while")
def _while(it, op, xs):
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    values = list(xs)
    for _ in range(MAX_ITERATIONS):
        (go,) = it.run_block(cond, values)
        if not concrete(go):
            return values
        values = it.run_block(body, values)
    raise Unsupported(f"a loop of more than {MAX_ITERATIONS} iterations")


@handles("scf.for")
def _for(it, op, xs):
    lb, ub, step = (concrete(x) for x in xs[:3])
    if step <= 0 or (ub - lb) // step > MAX_ITERATIONS:
        raise Unsupported(f"a loop of step {step} or of more than {MAX_ITERATIONS} iterations")
    values = list(xs[3:])
    block = op.regions[0].blocks[0]
    for i in range(lb, ub, step):
        values = it.run_block(block, [z3.IntVal(i)] + values)
    return values


@handles("scf.if")
def _if(it, op, xs):
    """An scf.if on a condition the sizes and loop counters decide (a bound of a diagonal's
    cell, synth.synthesis.diagonals): the branch taken."""
    taken = 0 if concrete(xs[0]) else 1
    if not op.regions[taken].blocks:
        return []
    return it.run_block(op.regions[taken].blocks[0], [])


@handles("func.call")
def _call(it, op, xs):
    callee = str(op.attributes["callee"]).lstrip("@")
    return it.call(callee, xs)


# the handlers of linalg, tensor and the library ops (that module imports this one)
from synth.semantics.interpreter_tensor import (  # noqa: E402
    op_cholesky, op_empty, op_extract, op_extract_slice, op_from_elements, op_generic, op_index, op_insert, op_insert_slice,
    op_tensor_cast, op_triangular_solve,
)

HANDLERS = table(
    _elementwise, _convert, _int_cast, _sh_compare, _arith_compare, _constant, _iota,
    _broadcast_in_dim, _sh_broadcast, _transpose, _reshape, _reverse, _slice, _concatenate,
    _pad, _dynamic_update_slice, _dynamic_slice, _gather, _dot_general, _dot, _reduce, _call, op_empty, op_generic, op_index, op_extract_slice,
    op_insert_slice, op_extract, op_insert, op_from_elements, op_triangular_solve, op_cholesky, _while, _for, _if,
    op_tensor_cast,
)


