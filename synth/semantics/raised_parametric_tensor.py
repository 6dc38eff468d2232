"""Handlers of synth.semantics.raised_parametric for linalg.generic, the tensor dialect's
ops and the sizes a shape-generic raise computes as SSA values (tensor.dim,
get_dimension_size, the dynamic stablehlo ops, tensor.cast)."""

from __future__ import annotations

import re

import z3

from synth.semantics.parametric import NotParametric, fresh_index, make_sum
from synth.semantics.canonical import canonical
from synth.semantics.raised_values import i64s, int_attr, z3_sort, value_type

from synth.semantics.raised_parametric_ops import broadcast_at, mentions_acc, unit
from synth.semantics.raised_parametric import (
    Tensor,
    elementwise_fn,
    elementwise_shape,
    numeral,
    scalar_term,
    to_dtype,
    vector_terms,
    handles,
)


@handles("linalg.generic")
def _generic(ev, op, xs, env):
    ir = ev.ir
    view = op.opview
    n_in = len(view.inputs)
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    kinds = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    n_dims = maps[0].n_dims
    domain: list = [None] * n_dims
    for amap, x in zip(maps, xs):
        if not isinstance(x, Tensor):
            continue
        for r, expr in enumerate(amap.results):
            if isinstance(expr, ir.AffineDimExpr) and domain[expr.position] is None:
                domain[expr.position] = x.shape[r]
    if any(d is None for d in domain):
        raise NotParametric("a loop dimension that no operand indexes directly")
    for amap, x in zip(maps, xs):
        if isinstance(x, Tensor):
            for r, expr in enumerate(amap.results):
                if isinstance(expr, ir.AffineDimExpr):
                    ev.same_shape((x.shape[r],), (domain[expr.position],), "linalg.generic: a loop's extent")
    from synth.semantics.affine_parametric import affine_term
    body = op.regions[0].blocks[0]
    reduction = [d for d in range(n_dims) if "reduction" in kinds[d]]
    outs = xs[n_in:]
    results = []
    for o_index, out in enumerate(outs):
        omap = maps[n_in + o_index]
        out_dims = []
        for expr in omap.results:
            if not isinstance(expr, ir.AffineDimExpr):
                raise NotParametric("an output indexing map that is not a projection")
            out_dims.append(expr.position)
        if len(set(out_dims)) != len(out_dims):
            raise NotParametric("an output indexing map that repeats a loop dimension")
        shape, dtype = out.shape, out.dtype
        acc_sort = z3_sort(dtype)

        def at(idx, out=out, out_dims=out_dims, o_index=o_index, dtype=dtype, acc_sort=acc_sort):
            point = [None] * n_dims
            for d, i in zip(out_dims, idx):
                point[d] = i
            ks = {d: fresh_index() for d in reduction if point[d] is None}
            for d, k in ks.items():
                point[d] = k
            if any(p is None for p in point):
                raise NotParametric("a parallel dimension that the output does not index")
            acc = z3.Const(f"acc!{o_index}", acc_sort)
            args = []
            for amap, x in zip(maps[:n_in], xs[:n_in]):
                if isinstance(x, Tensor):
                    args.append(x.at(tuple(affine_term(e, point, ev.sizes.term) for e in amap.results)))
                else:
                    args.append(x)
            # the other outputs: their initial values where each point is visited once; in a
            # reduction they change from one step to the next, so they must not be read
            others = {j: z3.Const(f"out!{j}", z3_sort(o.dtype)) for j, o in enumerate(outs) if j != o_index}
            args += [acc if j == o_index else
                     (others[j] if ks else o.at(tuple(point[d] for d in _proj(ir, maps[n_in + j]))))
                     for j, o in enumerate(outs)]
            ev.index_stack.append(point)
            try:
                y = ev.block(body, args, env)[o_index]
            finally:
                ev.index_stack.pop()
            y = numeral(y, dtype)
            init = out.at(idx)
            if not ks:
                return z3.substitute(y, (acc, init)) if mentions_acc(y, acc) else y
            d_term = canonical(y - acc)
            if mentions_acc(d_term, acc) or any(mentions_acc(d_term, c) for c in others.values()):
                raise NotParametric("a linalg reduction that is not a sum of its own")
            for d in sorted(ks, reverse=True):
                d_term = make_sum(z3.IntVal(0), domain[d], ks[d], d_term)
            return init + d_term
        results.append(Tensor(shape, dtype, at))
    return results


def _proj(ir, amap) -> list[int]:
    return [e.position for e in amap.results]


@handles("linalg.index")
def _index(ev, op, xs, env):
    if not ev.index_stack:
        raise NotParametric("linalg.index outside a linalg.generic")
    return [ev.index_stack[-1][int_attr(ev.ir, op.attributes["dim"])]]


def _static(ev, op, name: str, dynamic=None) -> list:
    """The op's offsets / sizes / strides as terms; a dynamic entry takes the next of
    `dynamic` (an iterator over the op's SSA operands for them, as terms)."""
    values = i64s(ev.ir, op.attributes[name])
    out = []
    for v in values:
        if v < -(2 ** 62):
            if dynamic is None:
                raise NotParametric("dynamic offsets / sizes / strides")
            out.append(next(dynamic))
        else:
            out.append(ev.sizes.term(v))
    return out


def _slice_params(ev, op, xs, first: int) -> tuple[list, list, list]:
    """(offsets, sizes, strides) of tensor.extract_slice / insert_slice, whose dynamic
    entries are its operands from `first` on, in that order."""
    dynamic = iter(xs[first:])
    return tuple(_static(ev, op, n, dynamic) for n in ("static_offsets", "static_sizes", "static_strides"))


def _kept_dims(rank: int, reduced: int, size: list) -> list[int]:
    """The dims of a slice that a rank-reduced tensor of rank `reduced` keeps: when the
    rank drops, exactly the unit-size dims go (otherwise which ones would be ambiguous)."""
    if reduced == rank:
        return list(range(rank))
    units = [d for d in range(rank) if z3.is_int_value(size[d]) and size[d].as_long() == 1]
    if len(units) != rank - reduced:
        raise NotParametric("a rank-reducing slice that keeps some unit dimensions")
    return [d for d in range(rank) if d not in units]


@handles("tensor.extract_slice")
def _extract_slice(ev, op, xs, env):
    off, size, stride = _slice_params(ev, op, xs, 1)
    a = xs[0]
    rank = len(value_type(op.results[0].type, dynamic=True).shape)
    kept = _kept_dims(a.rank, rank, size)
    shape, dtype, _ = ev.result(op, like=tuple(size[d] for d in kept))
    for d in range(a.rank):
        ev.require(z3.And(0 <= off[d], z3.Or(size[d] <= 0, off[d] + stride[d] * (size[d] - 1) < a.shape[d])),
                   "extract_slice: within its source")

    def at(idx):
        src = list(off)
        for d, i in zip(kept, idx):
            src[d] = off[d] + stride[d] * i
        return a.at(tuple(src))
    return [Tensor(shape, dtype, at)]


@handles("tensor.insert_slice")
def _insert_slice(ev, op, xs, env):
    src, dest = xs[0], xs[1]
    off, size, stride = _slice_params(ev, op, xs, 2)
    if any(not (z3.is_int_value(k) and k.as_long() == 1) for k in stride):
        raise NotParametric("a strided insert_slice")
    kept = _kept_dims(dest.rank, src.rank, size)
    for d in range(dest.rank):
        ev.require(z3.And(0 <= off[d], off[d] + size[d] <= dest.shape[d]), "insert_slice: within its destination")

    def at(idx):
        inside = z3.And([z3.And(off[d] <= idx[d], idx[d] < off[d] + size[d]) for d in range(dest.rank)])
        local = tuple(idx[d] - off[d] for d in kept)
        return z3.If(inside, src.at(local), dest.at(idx))
    return [Tensor(dest.shape, dest.dtype, at)]


@handles("tensor.extract")
def _extract(ev, op, xs, env):
    return [xs[0].at(tuple(i if isinstance(i, z3.ExprRef) else z3.IntVal(i) for i in xs[1:]))]


@handles("tensor.from_elements")
def _from_elements(ev, op, xs, env):
    shape, dtype, _ = ev.result(op)
    if len(shape) > 1 or (shape and not z3.is_int_value(shape[0])):
        raise NotParametric("from_elements beyond a small vector")

    def at(idx):
        if not idx:
            return xs[0]
        out = xs[-1]
        for k in range(len(xs) - 2, -1, -1):
            out = z3.If(idx[0] == k, xs[k], out)
        return out
    return [Tensor(shape, dtype, at)]


@handles("tensor.dim")
def _tensor_dim(ev, op, xs, env):
    d = z3.simplify(scalar_term(xs[1]))
    if not z3.is_int_value(d):
        raise NotParametric("tensor.dim of a dimension that is not a constant")
    return [xs[0].shape[d.as_long()]]


@handles("stablehlo.get_dimension_size")
def _dimension_size(ev, op, xs, env):
    n = xs[0].shape[int_attr(ev.ir, op.attributes["dimension"])]
    return [Tensor((), "i32", lambda idx: n)]


@handles("arith.index_cast", "arith.index_castui")
def _index_cast(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=elementwise_shape(xs))
    return [elementwise_fn(lambda a: a, shape, dtype, is_tensor, xs)]


@handles("stablehlo.dynamic_broadcast_in_dim")
def _dynamic_broadcast_in_dim(ev, op, xs, env):
    out = tuple(vector_terms(xs[1]))
    shape, dtype, _ = ev.result(op, like=out)
    dims = i64s(ev.ir, op.attributes["broadcast_dimensions"])
    for k, d in enumerate(dims):
        if not unit(xs[0].shape[k]):
            ev.same_shape((xs[0].shape[k],), (shape[d],), "dynamic_broadcast_in_dim: an operand dimension")
    return [Tensor(shape, dtype, broadcast_at(xs[0], dims, shape))]


@handles("stablehlo.dynamic_iota")
def _dynamic_iota(ev, op, xs, env):
    shape, dtype, _ = ev.result(op, like=tuple(vector_terms(xs[0])))
    dim = int_attr(ev.ir, op.attributes["iota_dimension"])
    return [Tensor(shape, dtype, lambda idx: to_dtype(idx[dim], dtype))]


@handles("stablehlo.dynamic_reshape")
def _dynamic_reshape(ev, op, xs, env):
    a, out = xs[0], tuple(vector_terms(xs[1]))
    shape, dtype, _ = ev.result(op, like=out)
    src_dims = [d for d in range(a.rank) if not unit(a.shape[d])]
    out_dims = [d for d in range(len(shape)) if not unit(shape[d])]
    if len(src_dims) != len(out_dims):
        raise NotParametric("a reshape that does more than add or drop unit dimensions")
    for s0, o in zip(src_dims, out_dims):
        ev.same_shape((a.shape[s0],), (shape[o],), "dynamic_reshape: a dimension")

    def at(idx):
        src = [z3.IntVal(0)] * a.rank
        for s0, o in zip(src_dims, out_dims):
            src[s0] = idx[o]
        return a.at(tuple(src))
    return [Tensor(shape, dtype, at)]


@handles("stablehlo.real_dynamic_slice")
def _real_dynamic_slice(ev, op, xs, env):
    a = xs[0]
    start, limit, strides = (vector_terms(x) for x in xs[1:4])
    if any(not (z3.is_int_value(k) and k.as_long() >= 1) for k in strides):
        raise NotParametric("a real_dynamic_slice whose strides are not constants")
    steps = [k.as_long() for k in strides]
    # ceil((hi - lo) / s) elements per dim (a view's box: lo + (n - 1) * s + 1 gives n)
    extents = tuple(hi - lo if s == 1 else (hi - lo + s - 1) / s for lo, hi, s in zip(start, limit, steps))
    shape, dtype, _ = ev.result(op, like=extents)
    for lo, hi, n in zip(start, limit, a.shape):  # as stablehlo.slice's: an empty one anywhere
        ev.require(z3.Or(hi - lo <= 0, z3.And(0 <= lo, hi <= n)), "real_dynamic_slice: within its operand")
    return [Tensor(shape, dtype, lambda idx: a.at(tuple(lo + s * i for lo, s, i in zip(start, steps, idx))))]


_GATHER_FIELD = re.compile(r"(offset_dims|collapsed_slice_dims|start_index_map|index_vector_dim)\s*=\s*\[?([\d,\s]*)\]?")


@handles("stablehlo.dynamic_gather")
def _dynamic_gather(ev, op, xs, env):
    """The gathers a generic raise emits: one index per position of the index tensor's
    leading (batch) dims, its last dim the index vector of extent 1 (a line at a counter:
    no batch dim; a flip: one, index (n, 1); a window: two, index (m, w, 1)); the slice
    sizes 1 along the indexed dim (collapsed) and whole along the others (the offset
    dims, in order); each index clamped into the dim, as gather clamps a start."""
    fields = {"index_vector_dim": [0]}
    fields.update({k: [int(v) for v in vs.replace(" ", "").split(",") if v]
                   for k, vs in _GATHER_FIELD.findall(str(op.attributes["dimension_numbers"]))})
    a, index, sizes = xs[0], xs[1], vector_terms(xs[2])
    collapsed = fields.get("collapsed_slice_dims", [])
    offset_dims = fields.get("offset_dims", [])
    if len(collapsed) != 1 or fields.get("start_index_map") != collapsed \
            or fields["index_vector_dim"] != [index.rank - 1] or len(offset_dims) != a.rank - 1:
        raise NotParametric("a dynamic_gather of another form")
    dim = collapsed[0]
    ev.same_shape((index.shape[index.rank - 1],), (z3.IntVal(1),), "dynamic_gather: an index vector")
    for k, (n, m) in enumerate(zip(a.shape, sizes)):
        ev.same_shape((m,), (z3.IntVal(1) if k == dim else n,), "dynamic_gather: a slice size")
    rank = index.rank - 1 + a.rank - 1
    batch = [p for p in range(rank) if p not in offset_dims]
    if len(batch) != index.rank - 1 or sorted(offset_dims) != offset_dims or offset_dims[-1:] >= [rank]:
        raise NotParametric("a dynamic_gather of another form")
    kept = [k for k in range(a.rank) if k != dim]
    like = [None] * rank
    for b, p in enumerate(batch):
        like[p] = index.shape[b]
    for j, p in enumerate(offset_dims):
        like[p] = a.shape[kept[j]]
    shape, dtype, _ = ev.result(op, like=tuple(like))

    def at(idx):
        i = index.at(tuple(idx[p] for p in batch) + (z3.IntVal(0),))
        i = z3.If(i < 0, 0, z3.If(i > a.shape[dim] - 1, a.shape[dim] - 1, i))
        source = {k: idx[offset_dims[j]] for j, k in enumerate(kept)}
        source[dim] = i
        return a.at(tuple(source[k] for k in range(a.rank)))
    return [Tensor(shape, dtype, at)]


@handles("tensor.cast")
def _tensor_cast(ev, op, xs, env):
    return [xs[0]]
