"""The raised function at symbolic sizes, for the all-size proof: each result as a term
of a symbolic element index (synth.semantics.parametric).

A shape-generic raised function (`?` dims, its sizes computed from its arguments:
synth.grammar.dims) is read with its sizes as the SSA values it computes: an argument's
`?` dims are the original's size terms, `tensor.dim` / `stablehlo.get_dimension_size`
and the index arithmetic on them are terms, and each op's `?` result dims are what it
computes (from its operands, or from a shape operand: dynamic_broadcast_in_dim,
dynamic_iota, real_dynamic_slice, dynamic_gather, tensor.empty's sizes, a slice's SSA
sizes), so no integer is read as a size there.

The raised text is written at the kernel's original sizes. Every dimension, slice bound,
pad width and index constant in it that is one of those sizes (or within a few of
exactly one: `n - 1`) stands for that size symbol, by the rule that re-instantiates
raised modules at other sizes (synth.semantics.raised_text.map_size); other integers
are constants. The proof is thus about the family of raised functions that rule gives,
which at the original sizes is the text itself.

A tensor is its shape (z3 Int terms) and a function from a symbolic index to the
element's term. Ops follow the bounded interpreter (synth.semantics.interpreter), with
the same scalar table; contractions and sum reductions become SUM terms. Ops without an
element-wise description at symbolic sizes (cholesky, triangular_solve, max reductions,
non-splat constants) raise NotParametric."""

from __future__ import annotations

import itertools
import re

import z3

from synth.semantics import scalar
from synth.semantics.parametric import NotParametric, canonical, fresh_index, make_sum
from synth.semantics.raised_text import MIN_SIZE, _NEAR
from synth.semantics.raised_values import (_FLOATS, _attr_number, _has, _i64s, _int_attr, _sort,
                                           _Unsupported, arith_compare, dot_indices, is_dynamic_dim, value_type)

_ELEMENTWISE = {**scalar.STABLEHLO, **scalar.ARITH_MATH}
_DIRECTION = re.compile(r"comparison_direction\s+(\w+)")
_DOT_FIELD = re.compile(r"(lhs|rhs)_(batching|contracting)_dimensions\s*=\s*\[([\d,\s]*)\]")
_TERMINATORS = ("func.return", "stablehlo.return", "linalg.yield", "tensor.yield")


class Tensor:
    def __init__(self, shape: tuple, dtype: str, at):
        self.shape, self.dtype, self.at = tuple(shape), dtype, at

    @property
    def rank(self) -> int:
        return len(self.shape)


class Sizes:
    """Integers of the raised text as terms of the size symbols."""

    def __init__(self, values: dict[str, int], near: bool = True):
        self.near = near  # also a number within _NEAR of exactly one size (n - 1)
        self.by_value: dict[int, str] = {}
        for name, v in values.items():
            if v in self.by_value:
                raise NotParametric(f"size symbols {self.by_value[v]} and {name} have the same "
                                    f"value ({v}): the raised text cannot tell them apart")
            self.by_value[v] = name

    def term(self, value: int) -> z3.ArithRef:
        if value in self.by_value:
            return z3.Int(self.by_value[value])
        if self.near and value >= MIN_SIZE - _NEAR:
            for offset in range(1, _NEAR + 1):
                for sign in (-1, 1):
                    hits = [v for v in self.by_value if v + sign * offset == value]
                    if len(hits) == 1:
                        return z3.Int(self.by_value[hits[0]]) + sign * offset
                    if hits:
                        return z3.IntVal(value)
        return z3.IntVal(value)


def _numeral(v, dtype: str):
    if isinstance(v, z3.ExprRef):
        return v
    if dtype in _FLOATS:
        return z3.RealVal(v)
    if dtype == "i1":
        return z3.BoolVal(bool(v))
    return z3.IntVal(int(v))


def _to_dtype(i: z3.ArithRef, dtype: str):
    return z3.ToReal(i) if dtype in _FLOATS else i


class _Eval:
    def __init__(self, ir, module, sizes: Sizes):
        self.ir, self.sizes = ir, sizes
        self.functions = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                self.functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
        self.index_stack: list = []
        self.empties = itertools.count()  # names of tensor.empty contents, one per op run
        self.obligations: list = []  # (condition on the sizes, what it says): well-typedness

    def require(self, cond, what: str) -> None:
        """A condition the op's types need at every size (true at the text's own sizes,
        which MLIR verified); the proof checks them all over the domain."""
        self.obligations.append((cond, what))

    def same_shape(self, a: tuple, b: tuple, what: str) -> None:
        if len(a) != len(b):
            raise NotParametric(f"{what}: ranks differ")
        for x, y in zip(a, b):
            if not z3.eq(z3.simplify(x), z3.simplify(y)):
                self.require(x == y, what)

    def shape(self, t, like=None) -> tuple:
        """The shape of type `t` as terms; its `?` dims from `like` (the shape the op
        computes), NotParametric where there is none."""
        vt = value_type(t, dynamic=True)
        if not vt.is_tensor:
            return ()
        out = []
        for k, d in enumerate(vt.shape):
            if is_dynamic_dim(d):
                if like is None or k >= len(like) or like[k] is None:
                    raise NotParametric(f"a dynamic dimension of {t} that the op does not determine")
                out.append(like[k])
            else:
                out.append(self.sizes.term(d))
        return tuple(out)

    def call(self, name: str, args: list) -> list:
        func = self.functions.get(name)
        if func is None or not len(func.regions[0].blocks):
            raise NotParametric(f"no function @{name} with a body")
        return self.block(func.regions[0].blocks[0], args, {})

    def block(self, block, args: list, outer: dict) -> list:
        env = dict(outer)
        env.update(zip(block.arguments, args))
        for op in block.operations:
            name = op.operation.name
            xs = [env[v] for v in op.operands]
            if name in _TERMINATORS:
                return xs
            handler = _HANDLERS.get(name)
            if handler is None:
                raise NotParametric(f"'{name}' has no description at symbolic sizes")
            try:
                results = handler(self, op, xs, env)
            except _Unsupported as e:
                raise NotParametric(f"'{name}': {e}") from None
            env.update(zip(op.results, results))
        return []

    def result(self, op, k: int = 0, like=None):
        vt = value_type(op.results[k].type, dynamic=True)
        return self.shape(op.results[k].type, like), vt.dtype, vt.is_tensor


_HANDLERS: dict = {}


def handles(*names):
    def register(fn):
        for n in names:
            _HANDLERS[n] = fn
        return fn
    return register


def _elementwise_fn(fn, shape, dtype, is_tensor, xs):
    if not is_tensor:
        return fn(*xs)
    ats = [x.at if isinstance(x, Tensor) else (lambda idx, x=x: x) for x in xs]
    return Tensor(shape, dtype, lambda idx: fn(*(a(idx) for a in ats)))


def _same_operands(ev, op, shape, xs) -> None:
    for x in xs:
        if isinstance(x, Tensor):
            ev.same_shape(x.shape, shape, f"'{op.operation.name}' operand and result shapes")


def _like(xs) -> tuple | None:
    """The shape of the first tensor operand of the largest rank (an elementwise op's)."""
    tensors = [x for x in xs if isinstance(x, Tensor)]
    return max(tensors, key=lambda x: x.rank).shape if tensors else None


@handles(*_ELEMENTWISE)
def _elementwise(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=_like(xs))
    _same_operands(ev, op, shape, xs)
    fn = _ELEMENTWISE[op.operation.name]
    return [_elementwise_fn(fn, shape, dtype, is_tensor, xs)]


@handles("stablehlo.convert")
def _convert(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=_like(xs))
    _same_operands(ev, op, shape, xs)
    src = value_type(op.operands[0].type).dtype
    if dtype in _FLOATS:
        fn = scalar.int_to_float if src not in _FLOATS else (lambda a: a)
    elif src in _FLOATS:
        raise NotParametric("float to integer conversion is not modelled")
    elif dtype == "i1":
        fn = lambda a: a != 0 if not z3.is_bool(a) else a  # noqa: E731
    else:
        fn = lambda a: z3.If(a, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(a) else a  # noqa: E731
    return [_elementwise_fn(fn, shape, dtype, is_tensor, xs)]


@handles("stablehlo.compare")
def _compare(ev, op, xs, env):
    direction = _DIRECTION.search(str(op.attributes["comparison_direction"])).group(1)
    if _has(op, "compare_type") and "UNSIGNED" in str(op.attributes["compare_type"]):
        raise NotParametric("unsigned comparison is not modelled")
    shape, dtype, is_tensor = ev.result(op, like=_like(xs))
    _same_operands(ev, op, shape, xs)
    return [_elementwise_fn(lambda a, b: scalar.compare(direction, a, b), shape, dtype, is_tensor, xs)]


@handles("arith.cmpf", "arith.cmpi")
def _arith_compare(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=_like(xs))
    return [_elementwise_fn(arith_compare(ev.ir, op), shape, dtype, is_tensor, xs)]


@handles("stablehlo.constant", "arith.constant")
def _constant(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op)
    attr = op.attributes["value"]
    if is_tensor:
        dense = ev.ir.DenseElementsAttr(attr)
        if not dense.is_splat:
            raise NotParametric("a constant tensor that is not a splat")
        value = _numeral(_attr_number(ev.ir, dense.get_splat_value()), dtype)
        return [Tensor(shape, dtype, lambda idx: value)]
    value = _attr_number(ev.ir, attr)
    if dtype == "index":
        return [ev.sizes.term(int(value))]
    return [_numeral(value, dtype)]


@handles("stablehlo.iota")
def _iota(ev, op, xs, env):
    shape, dtype, _ = ev.result(op)
    dim = _int_attr(ev.ir, op.attributes["iota_dimension"])
    return [Tensor(shape, dtype, lambda idx: _to_dtype(idx[dim], dtype))]


def _broadcast_at(a: Tensor, dims, out_shape):
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
    dims = _i64s(ev.ir, op.attributes["broadcast_dimensions"])
    for k, d in enumerate(dims):
        if not _unit(xs[0].shape[k]):
            ev.same_shape((xs[0].shape[k],), (shape[d],), "broadcast_in_dim: an operand dimension")
    return [Tensor(shape, dtype, _broadcast_at(xs[0], dims, shape))]


@handles("stablehlo.transpose")
def _transpose(ev, op, xs, env):
    perm = _i64s(ev.ir, op.attributes["permutation"])
    a = xs[0]
    shape, dtype, _ = ev.result(op, like=tuple(a.shape[p] for p in perm))
    ev.same_shape(tuple(a.shape[p] for p in perm), shape, "transpose: result dimensions")

    def at(idx):
        src = [None] * len(perm)
        for r, p in enumerate(perm):
            src[p] = idx[r]
        return a.at(tuple(src))
    return [Tensor(shape, dtype, at)]


def _unit(d) -> bool:
    return z3.is_int_value(d) and d.as_long() == 1


@handles("stablehlo.reshape", "tensor.collapse_shape", "tensor.expand_shape", "tensor.reshape")
def _reshape(ev, op, xs, env):
    a = xs[0]
    rt = value_type(op.results[0].type, dynamic=True)
    # a `?` result dim: the operand's next dim that is not a unit (only unit dims come or go)
    rest = iter([n for n in a.shape if not _unit(n)])
    like = tuple(next(rest, None) if is_dynamic_dim(d) else None for d in rt.shape)
    shape, dtype, _ = ev.result(op, like=like)
    src_dims = [d for d in range(a.rank) if not _unit(a.shape[d])]
    out_dims = [d for d in range(len(shape)) if not _unit(shape[d])]
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
    shape, dtype, _ = ev.result(op)
    dims = set(_i64s(ev.ir, op.attributes["dimensions"]))
    a = xs[0]
    return [Tensor(shape, dtype, lambda idx: a.at(tuple(shape[d] - 1 - i if d in dims else i
                                                        for d, i in enumerate(idx))))]


@handles("stablehlo.slice")
def _slice(ev, op, xs, env):
    shape, dtype, _ = ev.result(op)
    start = [ev.sizes.term(v) for v in _i64s(ev.ir, op.attributes["start_indices"])]
    strides = _i64s(ev.ir, op.attributes["strides"]) if _has(op, "strides") else [1] * len(start)
    a = xs[0]
    for s0, k, n_out, n_in in zip(start, strides, shape, a.shape):
        ev.require(z3.And(0 <= s0, z3.Or(n_out <= 0, s0 + k * (n_out - 1) < n_in)),
                   "slice: within its operand")
    return [Tensor(shape, dtype, lambda idx: a.at(tuple(s + k * i for s, k, i in zip(start, strides, idx))))]


@handles("stablehlo.concatenate")
def _concatenate(ev, op, xs, env):
    dim = _int_attr(ev.ir, op.attributes["dimension"])
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
    low = [ev.sizes.term(v) for v in _i64s(ev.ir, op.attributes["edge_padding_low"])]
    if any(_i64s(ev.ir, op.attributes["interior_padding"])):
        raise NotParametric("interior padding")
    high = [ev.sizes.term(v) for v in _i64s(ev.ir, op.attributes["edge_padding_high"])]
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
    for side, kind, values in _DOT_FIELD.findall(str(op.attributes["dot_dimension_numbers"])):
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
        if _mentions_acc(d, acc):
            raise NotParametric("a reduction that is not a sum")
        return d
    return increment


def _mentions_acc(t, acc) -> bool:
    from synth.semantics.parametric import mentions
    return mentions(t, acc)


@handles("stablehlo.reduce")
def _reduce(ev, op, xs, env):
    n = len(xs) // 2
    if n != 1:
        raise NotParametric("a reduce of several inputs")
    a, init = xs[0], xs[1].at(())
    dims = sorted(_i64s(ev.ir, op.attributes["dimensions"]))
    kept = [d for d in range(a.rank) if d not in dims]
    shape, dtype, _ = ev.result(op, like=tuple(a.shape[d] for d in kept))
    ev.same_shape(tuple(a.shape[d] for d in kept), shape, "reduce: result dimensions")
    body = op.regions[0].blocks[0]
    wrap = lambda v: Tensor((), dtype, lambda idx, v=v: v)  # noqa: E731
    step = _sum_step(ev, body, _sort(dtype), env)

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
    f = z3.Function(f"empty!{next(ev.empties)}", *([z3.IntSort()] * len(shape)), _sort(dtype))
    return [Tensor(shape, dtype, lambda idx: f(*idx))]


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
        acc_sort = _sort(dtype)

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
            others = {j: z3.Const(f"out!{j}", _sort(o.dtype)) for j, o in enumerate(outs) if j != o_index}
            args += [acc if j == o_index else
                     (others[j] if ks else o.at(tuple(point[d] for d in _proj(ir, maps[n_in + j]))))
                     for j, o in enumerate(outs)]
            ev.index_stack.append(point)
            try:
                y = ev.block(body, args, env)[o_index]
            finally:
                ev.index_stack.pop()
            y = _numeral(y, dtype)
            init = out.at(idx)
            if not ks:
                return z3.substitute(y, (acc, init)) if _mentions_acc(y, acc) else y
            d_term = canonical(y - acc)
            if _mentions_acc(d_term, acc) or any(_mentions_acc(d_term, c) for c in others.values()):
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
    return [ev.index_stack[-1][_int_attr(ev.ir, op.attributes["dim"])]]


def _static(ev, op, name: str, dynamic=None) -> list:
    """The op's offsets / sizes / strides as terms; a dynamic entry takes the next of
    `dynamic` (an iterator over the op's SSA operands for them, as terms)."""
    values = _i64s(ev.ir, op.attributes[name])
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


def evaluate(raised, sizes: dict[str, int], args: list, near: bool = True) -> tuple[list[tuple], list]:
    """The raised function's results at symbolic sizes, as (shape, index variables,
    term of the element at those indices); `args` are Tensors (arrays) or terms
    (scalars), in the function's argument order; and the conditions on the sizes its
    ops' types need (`Eval.require`). Everything is evaluated while the module is alive
    (its ops are not usable after)."""
    sz = Sizes(sizes, near)

    def work(ir, module, func):
        ev = _Eval(ir, module, sz)
        out = []
        for r in ev.call(raised.name, args):
            if not isinstance(r, Tensor):
                out.append(((), (), r))
                continue
            x = tuple(z3.Int(f"x{d}") for d in range(r.rank))
            out.append((r.shape, x, r.at(x)))
        return out, ev.obligations
    return raised._inside(work, generalize=raised.dialect == "linalg")


# --- sizes as SSA values (a shape-generic raised function) ------------------------------------


def _scalar_term(x):
    return x.at(()) if isinstance(x, Tensor) else x


def _vector_terms(x: Tensor) -> list:
    """The elements of a static-length 1-D tensor (a shape operand) as terms."""
    if x.rank != 1 or not z3.is_int_value(z3.simplify(x.shape[0])):
        raise NotParametric("a shape operand whose length is not a constant")
    return [z3.simplify(x.at((z3.IntVal(k),))) for k in range(z3.simplify(x.shape[0]).as_long())]


@handles("tensor.dim")
def _tensor_dim(ev, op, xs, env):
    d = z3.simplify(_scalar_term(xs[1]))
    if not z3.is_int_value(d):
        raise NotParametric("tensor.dim of a dimension that is not a constant")
    return [xs[0].shape[d.as_long()]]


@handles("stablehlo.get_dimension_size")
def _dimension_size(ev, op, xs, env):
    n = xs[0].shape[_int_attr(ev.ir, op.attributes["dimension"])]
    return [Tensor((), "i32", lambda idx: n)]


@handles("arith.index_cast", "arith.index_castui")
def _index_cast(ev, op, xs, env):
    shape, dtype, is_tensor = ev.result(op, like=_like(xs))
    return [_elementwise_fn(lambda a: a, shape, dtype, is_tensor, xs)]


@handles("stablehlo.dynamic_broadcast_in_dim")
def _dynamic_broadcast_in_dim(ev, op, xs, env):
    out = tuple(_vector_terms(xs[1]))
    shape, dtype, _ = ev.result(op, like=out)
    dims = _i64s(ev.ir, op.attributes["broadcast_dimensions"])
    for k, d in enumerate(dims):
        if not _unit(xs[0].shape[k]):
            ev.same_shape((xs[0].shape[k],), (shape[d],), "dynamic_broadcast_in_dim: an operand dimension")
    return [Tensor(shape, dtype, _broadcast_at(xs[0], dims, shape))]


@handles("stablehlo.dynamic_iota")
def _dynamic_iota(ev, op, xs, env):
    shape, dtype, _ = ev.result(op, like=tuple(_vector_terms(xs[0])))
    dim = _int_attr(ev.ir, op.attributes["iota_dimension"])
    return [Tensor(shape, dtype, lambda idx: _to_dtype(idx[dim], dtype))]


@handles("stablehlo.dynamic_reshape")
def _dynamic_reshape(ev, op, xs, env):
    a, out = xs[0], tuple(_vector_terms(xs[1]))
    shape, dtype, _ = ev.result(op, like=out)
    src_dims = [d for d in range(a.rank) if not _unit(a.shape[d])]
    out_dims = [d for d in range(len(shape)) if not _unit(shape[d])]
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
    start, limit, strides = (_vector_terms(x) for x in xs[1:4])
    if any(not (z3.is_int_value(k) and k.as_long() == 1) for k in strides):
        raise NotParametric("a strided real_dynamic_slice")
    shape, dtype, _ = ev.result(op, like=tuple(hi - lo for lo, hi in zip(start, limit)))
    for lo, hi, n in zip(start, limit, a.shape):  # as stablehlo.slice's: an empty one anywhere
        ev.require(z3.Or(hi - lo <= 0, z3.And(0 <= lo, hi <= n)), "real_dynamic_slice: within its operand")
    return [Tensor(shape, dtype, lambda idx: a.at(tuple(lo + i for lo, i in zip(start, idx))))]


_GATHER_FIELD = re.compile(r"(offset_dims|collapsed_slice_dims|start_index_map|index_vector_dim)\s*=\s*\[?([\d,\s]*)\]?")


@handles("stablehlo.dynamic_gather")
def _dynamic_gather(ev, op, xs, env):
    """The gathers a generic raise emits: one index (a line at a counter, index_vector_dim
    0) or one index per position along one dim (a flip, index shape (n, 1)); the slice
    sizes 1 along that dim and whole along the others; indices clamped into the dim."""
    fields = {"index_vector_dim": [0]}
    fields.update({k: [int(v) for v in vs.replace(" ", "").split(",") if v]
                   for k, vs in _GATHER_FIELD.findall(str(op.attributes["dimension_numbers"]))})
    a, index, sizes = xs[0], xs[1], _vector_terms(xs[2])
    collapsed = fields.get("collapsed_slice_dims", [])
    if len(collapsed) != 1 or fields.get("start_index_map") != collapsed:
        raise NotParametric("a dynamic_gather of another form")
    dim = collapsed[0]
    for k, (n, m) in enumerate(zip(a.shape, sizes)):
        ev.same_shape((m,), (z3.IntVal(1) if k == dim else n,), "dynamic_gather: a slice size")

    def clamp(i):
        return z3.If(i < 0, 0, z3.If(i > a.shape[dim] - 1, a.shape[dim] - 1, i))
    if fields["index_vector_dim"] == [0] and index.rank == 1:  # one line
        shape, dtype, _ = ev.result(op, like=tuple(n for k, n in enumerate(a.shape) if k != dim))
        at_index = clamp(index.at((z3.IntVal(0),)))
        return [Tensor(shape, dtype, lambda idx: a.at(tuple(idx[:dim]) + (at_index,) + tuple(idx[dim:])))]
    if fields["index_vector_dim"] == [1] and index.rank == 2 \
            and fields.get("offset_dims", []) == [k for k in range(a.rank) if k != dim]:
        shape, dtype, _ = ev.result(op, like=a.shape)
        return [Tensor(shape, dtype, lambda idx: a.at(tuple(clamp(index.at((idx[dim], z3.IntVal(0))))
                                                            if k == dim else i for k, i in enumerate(idx))))]
    raise NotParametric("a dynamic_gather of another form")


@handles("tensor.cast")
def _tensor_cast(ev, op, xs, env):
    return [xs[0]]
