"""Loops unrolled by hand, read as the loops they were unrolled from (part of the normal form).

Library C unrolls loops by hand: reference BLAS's daxpy runs `for (i = m; i < n; i += 4)
{ dy[i] += ...; dy[i+1] += ...; dy[i+2] += ...; dy[i+3] += ...; }` after a clean-up loop
`for (i = 0; i < m; i++)` over the first `m = n % 4` elements. Two rewrites read that as the
one loop it computes; each is an identity of the execution: the rewritten loops perform
the same statements on the same elements in the same order, so nothing is assumed about
dependences or overlap.

- **Reroll.** An `affine.for` of constant step k > 1 without iter_args whose body is k
  copies of one block of ops, the r-th copy the first with the loop index `i` read as
  `i + r` (in every affine map that reads `i`; no other use of `i`; no copy uses another
  copy's values), runs the first copy at `i = lb, lb + 1, ..., lb + k*ceil((ub - lb)/k) - 1`
  in order: the loop becomes that unit-step loop over the first copy. Copies are compared
  op by op (names, attributes, types, operands, nested regions) with the shifted maps.
- **Fusion.** Two consecutive unit-step `affine.for` without iter_args whose bodies are the
  same (the second's index read as the first's), the first's upper bound the second's
  lower bound, with constant bounds `lb1 <= ub1 <= ub2`: they run the one body over
  `lb1 .. ub2` in order, so they become one loop.

Anything else is left as it is (the rest of synth reads it or says why not)."""

from __future__ import annotations

from mlir import ir

_MAP_ATTRS = ("map",)  # affine.load / store / apply / prefetch: the map reads the trailing operands


def _step(loop) -> int:
    s = loop.attributes["step"]
    return int(ir.IntegerAttr(s).value)


def _map(op, name: str) -> ir.AffineMap:
    return ir.AffineMapAttr(op.attributes[name]).value


def _body(loop) -> list:
    return list(loop.regions[0].blocks[0].operations)[:-1]  # without affine.yield


def _map_operands(op) -> list[tuple[str, list]]:
    """(attribute name, the operands its map reads) for each affine map of `op`."""
    ops = list(op.operands)
    if op.name == "affine.for":
        lb, ub = _map(op, "lowerBoundMap"), _map(op, "upperBoundMap")
        nl, nu = lb.n_dims + lb.n_symbols, ub.n_dims + ub.n_symbols
        return [("lowerBoundMap", ops[:nl]), ("upperBoundMap", ops[nl:nl + nu])]
    if "map" in op.attributes and isinstance(op.attributes["map"], ir.AffineMapAttr):
        m = _map(op, "map")
        n = m.n_dims + m.n_symbols
        return [("map", ops[len(ops) - n:])]
    return []


def _shifted(amap: ir.AffineMap, positions: list[int], shift: int) -> ir.AffineMap:
    """`amap` with its dims at `positions` read as d + shift."""
    if not shift or not positions:
        return amap
    dims = [ir.AffineDimExpr.get(d) + shift if d in positions else ir.AffineDimExpr.get(d)
            for d in range(amap.n_dims)]
    sub = ir.AffineMap.get(amap.n_dims, amap.n_symbols, dims)
    return ir.AffineMap.get(amap.n_dims, amap.n_symbols, [e.compose(sub) for e in amap.results])


class _Mismatch(Exception):
    pass


def _same_ops(a_ops: list, b_ops: list, env: dict, iv_a, iv_b, shift: int, inner: set) -> None:
    """Raise _Mismatch unless `a_ops` are `b_ops` with `iv_b` read as `iv_a + shift`. `env`
    maps values of `b_ops` to those of `a_ops` (filled in); `inner`: values a copy may only
    read from itself (the loop body's), as hashes."""
    if len(a_ops) != len(b_ops):
        raise _Mismatch
    for a, b in zip(a_ops, b_ops):
        a, b = a.operation, b.operation
        if a.name != b.name or len(a.operands) != len(b.operands) or len(a.results) != len(b.results) \
                or len(a.regions) != len(b.regions) or set(a.attributes.keys()) != set(b.attributes.keys()):
            raise _Mismatch
        iv_pos: dict[str, list[int]] = {}
        for name, operands in _map_operands(b):
            iv_pos[name] = [i for i, v in enumerate(operands) if v == iv_b]
            m = _map(b, name)
            if any(i >= m.n_dims for i in iv_pos[name]):
                raise _Mismatch  # the index as a symbol: not shifted here
        for va, vb in zip(a.operands, b.operands):
            if vb == iv_b:
                if va != iv_a:
                    raise _Mismatch
                if shift and not any(v == iv_b for _, ops in _map_operands(b) for v in ops):
                    raise _Mismatch  # the index read outside a map cannot be shifted
                continue
            hb = _key(vb)
            if hb in env:
                if env[hb] != _key(va):
                    raise _Mismatch
            elif _key(va) in inner or hb in inner or va != vb:
                raise _Mismatch
        for key in b.attributes.keys():
            aa, ab = a.attributes[key], b.attributes[key]
            if key in iv_pos:
                # printed forms: `d0 * 11 + (d1 + 1)` from the shift prints as `d0 * 11 + d1 + 1`
                if str(_map(a, key)) != str(_shifted(_map(b, key), iv_pos[key], shift)):
                    raise _Mismatch
            elif str(aa) != str(ab):
                raise _Mismatch
        for ra, rb in zip(a.results, b.results):
            if ra.type != rb.type:
                raise _Mismatch
            env[_key(rb)] = _key(ra)
        for ga, gb in zip(a.regions, b.regions):
            ba, bb = list(ga.blocks), list(gb.blocks)
            if len(ba) != len(bb):
                raise _Mismatch
            for xa, xb in zip(ba, bb):
                if len(xa.arguments) != len(xb.arguments):
                    raise _Mismatch
                for pa, pb in zip(xa.arguments, xb.arguments):
                    if pa.type != pb.type:
                        raise _Mismatch
                    env[_key(pb)] = _key(pa)
                _same_ops(list(xa.operations), list(xb.operations), env, iv_a, iv_b, shift, inner)


def _key(v: ir.Value):
    """A hashable identity of an SSA value."""
    return v


def _defined(ops: list) -> set:
    """Every value the ops define (results, nested block arguments and results)."""
    out = set()
    for op in ops:
        op = op.operation
        out.update(_key(r) for r in op.results)
        for g in op.regions:
            for blk in g.blocks:
                out.update(_key(a) for a in blk.arguments)
                out |= _defined(list(blk.operations))
    return out


def _iterargs(loop) -> bool:
    return len(loop.results) > 0


def _reroll(loop) -> bool:
    k = _step(loop)
    body = _body(loop)
    if k <= 1 or _iterargs(loop) or not body or len(body) % k:
        return False
    n = len(body) // k
    iv = loop.regions[0].blocks[0].arguments[0]
    chunks = [body[r * n:(r + 1) * n] for r in range(k)]
    inner = _defined(body)
    try:
        for r in range(1, k):
            _same_ops(chunks[r], chunks[0], {}, iv, iv, r, inner)
    except _Mismatch:
        return False
    lb, ub = _map(loop, "lowerBoundMap"), _map(loop, "upperBoundMap")
    operands = list(loop.operands)
    nl = lb.n_dims + lb.n_symbols
    if len(lb.results) != 1 or len(ub.results) != 1:
        return False
    le, ue = lb.results[0], ub.results[0]
    if isinstance(le, ir.AffineConstantExpr) and isinstance(ue, ir.AffineConstantExpr):
        lo, hi = le.value, ue.value
        new = ir.AffineMap.get(ub.n_dims, ub.n_symbols,
                               [ir.AffineConstantExpr.get(lo + k * -(-(hi - lo) // k) if hi > lo else hi)])
    elif operands[:nl] == operands[nl:] and (lb.n_dims, lb.n_symbols) == (ub.n_dims, ub.n_symbols):
        new = ir.AffineMap.get(ub.n_dims, ub.n_symbols, [le + ((ue - le + (k - 1)).floor_div(k)) * k]) \
            if hasattr(ue, "floor_div") else None
        if new is None:
            return False
    else:
        return False
    for op in reversed(body[n:]):
        op.operation.erase()
    loop.attributes["upperBoundMap"] = ir.AffineMapAttr.get(new)
    loop.attributes["step"] = ir.IntegerAttr.get(ir.IndexType.get(), 1)
    return True


def _constant_bounds(loop):
    lb, ub = _map(loop, "lowerBoundMap"), _map(loop, "upperBoundMap")
    if len(lb.results) != 1 or len(ub.results) != 1:
        return None
    le, ue = lb.results[0], ub.results[0]
    if isinstance(le, ir.AffineConstantExpr) and isinstance(ue, ir.AffineConstantExpr):
        return le.value, ue.value
    return None


def _fuse(first, second) -> bool:
    if first.name != "affine.for" or second.name != "affine.for" or _step(first) != 1 \
            or _step(second) != 1 or _iterargs(first) or _iterargs(second):
        return False
    b1, b2 = _constant_bounds(first), _constant_bounds(second)
    if b1 is None or b2 is None or not (b1[0] <= b1[1] == b2[0] <= b2[1]):
        return False
    iv1 = first.regions[0].blocks[0].arguments[0]
    iv2 = second.regions[0].blocks[0].arguments[0]
    body2 = _body(second)
    try:
        _same_ops(body2, _body(first), {}, iv2, iv1, 0, _defined(body2) | _defined(_body(first)))
    except _Mismatch:
        return False
    first.attributes["upperBoundMap"] = second.attributes["upperBoundMap"]
    second.erase()
    return True


def _loops(block: ir.Block) -> list:
    out = []
    for op in block.operations:
        for g in op.operation.regions:
            for blk in g.blocks:
                out += _loops(blk)
        if op.operation.name == "affine.for":
            out.append(op.operation)
    return out  # inner loops first


def _blocks(block: ir.Block) -> list:
    out = [block]
    for op in block.operations:
        for g in op.operation.regions:
            for blk in g.blocks:
                out += _blocks(blk)
    return out


def reroll_loops(block: ir.Block) -> tuple[int, int]:
    """Reroll the hand-unrolled loops under `block`, then fuse consecutive loops that run
    one body over adjacent ranges. (loops rerolled, loops fused away)."""
    rerolled = sum(_reroll(loop) for loop in _loops(block))
    fused = 0
    if rerolled:
        for blk in _blocks(block):
            changed = True
            while changed:
                changed = False
                ops = [op.operation for op in blk.operations]
                for a, b in zip(ops, ops[1:]):
                    if _fuse(a, b):
                        fused += 1
                        changed = True
                        break
    return rerolled, fused
