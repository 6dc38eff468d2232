"""Handlers of synth.semantics.raised_parametric for the stablehlo ops and the ops both
dialects share (constants, compares, calls): each op of a raised function as a term of
a symbolic element index."""

from __future__ import annotations


import z3

from synth.semantics import scalar
from synth.semantics.parametric import NotParametric, fresh_index, make_sum
from synth.semantics.canonical import canonical
from synth.semantics.raised_values import (
    attr_number,
    has,
    i64s,
    int_attr,
    z3_sort,
    arith_compare,
    arith_int_cast,
    dot_indices,
    convert,
    is_dynamic_dim,
    value_type,
)

from synth.semantics.raised_parametric import (
    Tensor,
    DIRECTION,
    DOT_FIELD,
    ELEMENTWISE,
    elementwise_fn,
    elementwise_shape,
    numeral,
    same_operands,
    to_dtype,
    handles,
)


@handles(*ELEMENTWISE)
def _elementwise(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=elementwise_shape(xs))
    same_operands(ev, op, shape, xs)
    fn = ELEMENTWISE[op.operation.name]
    return [elementwise_fn(fn, shape, dtype, is_tensor, xs)]


@handles("stablehlo.convert")
def _convert(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=elementwise_shape(xs))
    same_operands(ev, op, shape, xs)
    src = value_type(op.operands[0].type, dynamic=True).dtype
    return [elementwise_fn(convert(src, dtype), shape, dtype, is_tensor, xs)]


@handles(*scalar.INT_CASTS)
def _int_cast(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=elementwise_shape(xs))
    return [elementwise_fn(arith_int_cast(op), shape, dtype, is_tensor, xs)]


@handles("stablehlo.compare")
def _compare(ev, op, xs, env):
    direction = DIRECTION.search(str(op.attributes["comparison_direction"])).group(1)
    if has(op, "compare_type") and "UNSIGNED" in str(op.attributes["compare_type"]):
        raise NotParametric("unsigned comparison is not modelled")
    shape, dtype, is_tensor = ev.result(op, like=elementwise_shape(xs))
    same_operands(ev, op, shape, xs)
    return [elementwise_fn(lambda a, b: scalar.compare(direction, a, b), shape, dtype, is_tensor, xs)]


@handles("arith.cmpf", "arith.cmpi")
def _arith_compare(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=elementwise_shape(xs))
    return [elementwise_fn(arith_compare(ev.ir, op), shape, dtype, is_tensor, xs)]


@handles("stablehlo.constant", "arith.constant")
def _constant(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op)
    attr = op.attributes["value"]
    if is_tensor:
        dense = ev.ir.DenseElementsAttr(attr)
        if not dense.is_splat:
            raise NotParametric("a constant tensor that is not a splat")
        value = numeral(attr_number(ev.ir, dense.get_splat_value()), dtype)
        return [Tensor(shape, dtype, lambda idx: value)]
    value = attr_number(ev.ir, attr)
    if dtype == "index":
        return [ev.sizes.term(int(value))]
    return [numeral(value, dtype)]


@handles("stablehlo.iota")
def _iota(ev, op, xs, env):
    shape, dtype, _ = ev.result(op)
    dim = int_attr(ev.ir, op.attributes["iota_dimension"])
    return [Tensor(shape, dtype, lambda idx: to_dtype(idx[dim], dtype))]


def broadcast_at(a: Tensor, dims, out_shape):
    """The element function of `a` broadcast to `out_shape` along `dims` (unit dims read at 0)."""
    def at(idx):
        src = []
        for k, d in enumerate(dims):
            one = z3.is_int_value(a.shape[k]) and a.shape[k].as_long() == 1
            other = not (z3.is_int_value(out_shape[d]) and out_shape[d].as_long() == 1)
            src.append(z3.IntVal(0) if one and other else idx[d])
        return a.at(tuple(src))
    return at


@handles("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(ev, op, xs, env):
    shape, dtype, _ = ev.result(op)
    dims = i64s(ev.ir, op.attributes["broadcast_dimensions"])
    for k, d in enumerate(dims):
        if not unit(xs[0].shape[k]):
            ev.same_shape((xs[0].shape[k],), (shape[d],), "broadcast_in_dim: an operand dimension")
    return [Tensor(shape, dtype, broadcast_at(xs[0], dims, shape))]


@handles("stablehlo.transpose")
def _transpose(ev, op, xs, env):
    perm = i64s(ev.ir, op.attributes["permutation"])
    a = xs[0]
    shape, dtype, _ = ev.result(op, like=tuple(a.shape[p] for p in perm))
    ev.same_shape(tuple(a.shape[p] for p in perm), shape, "transpose: result dimensions")

    def at(idx):
        src = [None] * len(perm)
        for r, p in enumerate(perm):
            src[p] = idx[r]
        return a.at(tuple(src))
    return [Tensor(shape, dtype, at)]


def unit(d) -> bool:
    """Whether the z3 extent `d` is the constant 1."""
    return z3.is_int_value(d) and d.as_long() == 1


@handles("stablehlo.reshape", "tensor.collapse_shape", "tensor.expand_shape", "tensor.reshape")
def _reshape(ev, op, xs, env):
    a = xs[0]
    rt = value_type(op.results[0].type, dynamic=True)
    # a `?` result dim: the operand's next dim that is not a unit (only unit dims come or go)
    rest = iter([n for n in a.shape if not unit(n)])
    like = tuple(next(rest, None) if is_dynamic_dim(d) else None for d in rt.shape)
    shape, dtype, _ = ev.result(op, like=like)
    src_dims = [d for d in range(a.rank) if not unit(a.shape[d])]
    out_dims = [d for d in range(len(shape)) if not unit(shape[d])]
    if len(src_dims) != len(out_dims) or any(
            not z3.eq(z3.simplify(a.shape[s]), z3.simplify(shape[o])) for s, o in zip(src_dims, out_dims)):
        raise NotParametric("a reshape that does more than add or drop unit dimensions")

    def at(idx):
        src = [z3.IntVal(0)] * a.rank
        for s, o in zip(src_dims, out_dims):
            src[s] = idx[o]
        return a.at(tuple(src))
    return [Tensor(shape, dtype, at)]


@handles("stablehlo.reverse")
def _reverse(ev, op, xs, env):
    a = xs[0]
    shape, dtype, _ = ev.result(op, like=a.shape)  # a shape-generic reverse keeps its operand's
    dims = set(i64s(ev.ir, op.attributes["dimensions"]))
    return [Tensor(shape, dtype, lambda idx: a.at(tuple(shape[d] - 1 - i if d in dims else i
                                                        for d, i in enumerate(idx))))]


@handles("stablehlo.slice")
def _slice(ev, op, xs, env):
    shape, dtype, _ = ev.result(op)
    start = [ev.sizes.term(v) for v in i64s(ev.ir, op.attributes["start_indices"])]
    strides = i64s(ev.ir, op.attributes["strides"]) if has(op, "strides") else [1] * len(start)
    a = xs[0]
    for s0, k, n_out, n_in in zip(start, strides, shape, a.shape):
        ev.require(z3.And(0 <= s0, z3.Or(n_out <= 0, s0 + k * (n_out - 1) < n_in)),
                   "slice: within its operand")
    return [Tensor(shape, dtype, lambda idx: a.at(tuple(s + k * i for s, k, i in zip(start, strides, idx))))]


@handles("stablehlo.concatenate")
def _concatenate(ev, op, xs, env):
    dim = int_attr(ev.ir, op.attributes["dimension"])
    like = tuple(z3.Sum([x.shape[dim] for x in xs]) if d == dim else n for d, n in enumerate(xs[0].shape))
    shape, dtype, _ = ev.result(op, like=like)
    for x in xs:
        ev.same_shape(tuple(n for d, n in enumerate(x.shape) if d != dim),
                      tuple(n for d, n in enumerate(shape) if d != dim), "concatenate: other dimensions")
    ev.same_shape((z3.Sum([x.shape[dim] for x in xs]),), (shape[dim],), "concatenate: the joined dimension")

    def at(idx):
        offsets, off = [], z3.IntVal(0)
        for x in xs:
            offsets.append(off)
            off = off + x.shape[dim]
        out = None
        for x, o in reversed(list(zip(xs, offsets))):
            shifted = tuple(i - o if d == dim else i for d, i in enumerate(idx))
            value = x.at(shifted)
            out = value if out is None else z3.If(idx[dim] < o + x.shape[dim], value, out)
        return out
    return [Tensor(shape, dtype, at)]


@handles("stablehlo.pad")
def _pad(ev, op, xs, env):
    shape, dtype, _ = ev.result(op)
    a, value = xs[0], xs[1].at(())
    low = [ev.sizes.term(v) for v in i64s(ev.ir, op.attributes["edge_padding_low"])]
    if any(i64s(ev.ir, op.attributes["interior_padding"])):
        raise NotParametric("interior padding")
    high = [ev.sizes.term(v) for v in i64s(ev.ir, op.attributes["edge_padding_high"])]
    ev.same_shape(tuple(lo + n + hi for lo, n, hi in zip(low, a.shape, high)), shape, "pad: result dimensions")

    def at(idx):
        src = tuple(i - lo for i, lo in zip(idx, low))
        inside = z3.And([z3.And(0 <= s, s < n) for s, n in zip(src, a.shape)])
        return z3.If(inside, a.at(src), value)
    return [Tensor(shape, dtype, at)]


@handles("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(ev, op, xs, env):
    dest, update = xs[0], xs[1]
    starts = [x.at(()) for x in xs[2:]]
    for s0, n, m in zip(starts, dest.shape, update.shape):
        # stablehlo clamps a start into [0, n - m]; the raised code never relies on that
        ev.require(z3.And(0 <= s0, s0 + m <= n), "dynamic_update_slice: within its destination")

    def at(idx):
        inside = z3.And([z3.And(s0 <= i, i < s0 + m) for s0, i, m in zip(starts, idx, update.shape)])
        return z3.If(inside, update.at(tuple(i - s0 for s0, i in zip(starts, idx))), dest.at(idx))
    return [Tensor(dest.shape, dest.dtype, at)]


def _contract(ev, a: Tensor, b: Tensor, lb, rb, lc, rc, shape, dtype):
    lf = [k for k in range(a.rank) if k not in lb and k not in lc]
    rf = [k for k in range(b.rank) if k not in rb and k not in rc]
    ev.same_shape(tuple(a.shape[k] for k in lc), tuple(b.shape[k] for k in rc), "dot: contracting dimensions")
    ev.same_shape(tuple(a.shape[k] for k in lb), tuple(b.shape[k] for k in rb), "dot: batching dimensions")
    ev.same_shape(tuple(a.shape[k] for k in lb) + tuple(a.shape[k] for k in lf) + tuple(b.shape[k] for k in rf),
                  shape, "dot: result dimensions")

    def at(idx):
        ks = [fresh_index() for _ in lc]
        ai, bj = dot_indices(a.rank, b.rank, lb, rb, lc, rc, idx, ks)
        term = a.at(tuple(ai)) * b.at(tuple(bj))
        for k, kk in reversed(list(zip(lc, ks))):
            term = make_sum(z3.IntVal(0), a.shape[k], kk, term)
        return term
    return Tensor(shape, dtype, at)


@handles("stablehlo.dot_general")
def _dot_general(ev, op, xs, env):
    dims = {("lhs", "batching"): [], ("rhs", "batching"): [],
            ("lhs", "contracting"): [], ("rhs", "contracting"): []}
    for side, kind, values in DOT_FIELD.findall(str(op.attributes["dot_dimension_numbers"])):
        dims[(side, kind)] = [int(v) for v in values.replace(" ", "").split(",") if v]
    a, b = xs
    lb, rb, lc, rc = (dims[("lhs", "batching")], dims[("rhs", "batching")], dims[("lhs", "contracting")],
                      dims[("rhs", "contracting")])
    like = (tuple(a.shape[k] for k in lb) + tuple(a.shape[k] for k in range(a.rank) if k not in lb + lc)
            + tuple(b.shape[k] for k in range(b.rank) if k not in rb + rc))
    shape, dtype, _ = ev.result(op, like=like)
    return [_contract(ev, xs[0], xs[1], dims[("lhs", "batching")], dims[("rhs", "batching")],
                      dims[("lhs", "contracting")], dims[("rhs", "contracting")], shape, dtype)]


@handles("stablehlo.dot")
def _dot(ev, op, xs, env):
    shape, dtype, _ = ev.result(op)
    a, b = xs
    return [_contract(ev, a, b, [], [], [a.rank - 1], [0], shape, dtype)]


def _sum_step(ev, body, acc_sort, outer: dict):
    """The increment of a reduction body, `body(acc, x) - acc` as a function of x, when it
    does not depend on acc (a sum); None otherwise."""
    acc = z3.Const("acc!red", acc_sort)

    def increment(*xs):
        (y,) = ev.block(body, [acc, *xs], outer)[:1]
        y = y.at(()) if isinstance(y, Tensor) else y
        d = canonical(y - acc)
        if mentions_acc(d, acc):
            raise NotParametric("a reduction that is not a sum")
        return d
    return increment


def mentions_acc(t, acc) -> bool:
    """Whether the z3 term `t` mentions the accumulator `acc`."""
    from synth.semantics.parametric import mentions
    return mentions(t, acc)


@handles("stablehlo.reduce")
def _reduce(ev, op, xs, env):
    n = len(xs) // 2
    if n != 1:
        raise NotParametric("a reduce of several inputs")
    a, init = xs[0], xs[1].at(())
    dims = sorted(i64s(ev.ir, op.attributes["dimensions"]))
    kept = [d for d in range(a.rank) if d not in dims]
    shape, dtype, _ = ev.result(op, like=tuple(a.shape[d] for d in kept))
    ev.same_shape(tuple(a.shape[d] for d in kept), shape, "reduce: result dimensions")
    body = op.regions[0].blocks[0]
    wrap = lambda v: Tensor((), dtype, lambda idx, v=v: v)  # noqa: E731
    step = _sum_step(ev, body, z3_sort(dtype), env)

    def at(idx):
        ks = [fresh_index() for _ in dims]
        src = [None] * a.rank
        for d, i in zip(kept, idx):
            src[d] = i
        for d, k in zip(dims, ks):
            src[d] = k
        term = step(wrap(a.at(tuple(src))))
        for d, k in reversed(list(zip(dims, ks))):
            term = make_sum(z3.IntVal(0), a.shape[d], k, term)
        return init + term
    return [Tensor(shape, dtype, at)]


@handles("func.call")
def _call(ev, op, xs, env):
    return ev.call(str(op.attributes["callee"]).lstrip("@"), xs)


@handles("tensor.empty")
def _empty(ev, op, xs, env):
    rt = value_type(op.results[0].type, dynamic=True)
    sizes = iter(xs)  # the dynamic dims' sizes, in order
    like = tuple(next(sizes) if is_dynamic_dim(d) else None for d in rt.shape)
    shape, dtype, _ = ev.result(op, like=like)
    f = z3.Function(f"empty!{next(ev.empties)}", *([z3.IntSort()] * len(shape)), z3_sort(dtype))
    return [Tensor(shape, dtype, lambda idx: f(*idx))]
