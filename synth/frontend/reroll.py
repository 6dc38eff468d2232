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
- **Constant copies.** A loop body (no iter_args) that is k >= 2 copies of one block of
  ops without regions, the r-th copy the first with some subscripts plus r (`p[i][0]`,
  `p[i][1]`, ... of a pointer walk unrolled by hand, as the C front end reads it), runs
  the first copy at a new index v = 0, 1, ..., k-1 in order: the copies become a loop
  over v (the first copy with those subscripts plus v).
- **Fusion.** Two consecutive unit-step `affine.for` without iter_args whose bodies are the
  same (the second's index read as the first's), the first's upper bound the second's
  lower bound, with constant bounds `lb1 <= ub1 <= ub2`: they run the one body over
  `lb1 .. ub2` in order, so they become one loop.

Anything else is left as it is (the rest of synth reads it or says why not)."""

from __future__ import annotations

from mlir import ir

from synth.frontend.reader import affine_linear

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


def _operands_match(a, b, env: dict, inner: set, iv_a=None, iv_b=None) -> bool:
    """Whether each operand of op `b` is op `a`'s at the same place: the value `env` maps
    it to, else the same value defined outside `inner`; `iv_b` (where given) must be `iv_a`."""
    for va, vb in zip(a.operands, b.operands):
        if iv_b is not None and vb == iv_b:
            if va != iv_a:
                return False
            continue
        if vb in env:
            if env[vb] != va:
                return False
        elif va in inner or vb in inner or va != vb:
            return False
    return True


def _bind_results(a, b, env: dict) -> bool:
    """`b`'s results mapped to `a`'s in `env`; False (env partly filled) where a type differs."""
    for ra, rb in zip(a.results, b.results):
        if ra.type != rb.type:
            return False
        env[rb] = ra
    return True


def _same_ops(a_ops: list, b_ops: list, env: dict, iv_a, iv_b, shift: int, inner: set) -> None:
    """Raise _Mismatch unless `a_ops` are `b_ops` with `iv_b` read as `iv_a + shift`. `env`
    maps values of `b_ops` to those of `a_ops` (filled in); `inner`: values a copy may only
    read from itself (the loop body's)."""
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
        in_maps = sum(v == iv_b for _, operands in _map_operands(b) for v in operands)
        if shift and sum(v == iv_b for v in b.operands) != in_maps:
            raise _Mismatch  # the index read outside a map (a cast of i) cannot be shifted
        if not _operands_match(a, b, env, inner, iv_a, iv_b):
            raise _Mismatch
        for key in b.attributes.keys():
            aa, ab = a.attributes[key], b.attributes[key]
            if key in iv_pos:
                # printed forms: `d0 * 11 + (d1 + 1)` from the shift prints as `d0 * 11 + d1 + 1`
                if str(_map(a, key)) != str(_shifted(_map(b, key), iv_pos[key], shift)):
                    raise _Mismatch
            elif str(aa) != str(ab):
                raise _Mismatch
        if not _bind_results(a, b, env):
            raise _Mismatch
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
                    env[pb] = pa
                _same_ops(list(xa.operations), list(xb.operations), env, iv_a, iv_b, shift, inner)


def _defined(ops: list) -> set:
    """Every value the ops define (results, nested block arguments and results)."""
    out = set()
    for op in ops:
        op = op.operation
        out.update(op.results)
        for g in op.regions:
            for blk in g.blocks:
                out.update(blk.arguments)
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
        trips = ir.AffineFloorDivExpr.get(ue - le + (k - 1), ir.AffineConstantExpr.get(k))
        new = ir.AffineMap.get(ub.n_dims, ub.n_symbols, [le + trips * k])
    else:
        return False
    for op in reversed(body[n:]):
        op.operation.erase()
    loop.attributes["upperBoundMap"] = ir.AffineMapAttr.get(new)
    loop.attributes["step"] = ir.IntegerAttr.get(ir.IndexType.get(), 1)
    return True


def _copy_positions(a, b, r: int) -> dict[str, tuple[int, ...]] | None:
    """Per map attribute of op `a` (copy r) and `b` (copy 0), the results that are b's
    plus r (the others equal b's); None where a result differs otherwise."""
    out = {}
    for name, _ in _map_operands(b):
        ma, mb = _map(a, name), _map(b, name)
        if (ma.n_dims, ma.n_symbols, len(ma.results)) != (mb.n_dims, mb.n_symbols, len(mb.results)):
            return None
        pos = []
        for k, (ea, eb) in enumerate(zip(ma.results, mb.results)):
            la, lb = affine_linear(ea), affine_linear(eb)
            if la is None or lb is None:
                if str(ea) != str(eb):
                    return None
                continue
            if la[0] != lb[0] or la[1] - lb[1] not in (0, r):
                return None
            if la[1] - lb[1] == r:
                pos.append(k)
        out[name] = tuple(pos)
    return out


def _same_copy(a_ops: list, b_ops: list, r: int, inner: set) -> dict | None:
    """{index in b_ops: positions per map} where copy `a_ops` is `b_ops` with those map
    results plus r; None where it is not."""
    if len(a_ops) != len(b_ops):
        return None
    env: dict = {}
    out = {}
    for n, (a, b) in enumerate(zip(a_ops, b_ops)):
        a, b = a.operation, b.operation
        if a.name != b.name or len(a.operands) != len(b.operands) or len(a.results) != len(b.results) \
                or len(a.regions) or len(b.regions) or set(a.attributes.keys()) != set(b.attributes.keys()):
            return None
        pos = _copy_positions(a, b, r)
        if pos is None:
            return None
        for key in b.attributes.keys():
            if key not in pos and str(a.attributes[key]) != str(b.attributes[key]):
                return None
        if not (_operands_match(a, b, env, inner) and _bind_results(a, b, env)):
            return None
        if any(pos.values()):
            out[n] = pos
    return out


def _with_index(op, positions: dict, v) -> None:
    """Rebuild `op` (affine.load / store / apply: one map over its trailing operands) with
    its results at `positions` plus the new loop index `v`."""
    m = _map(op, "map")
    n = m.n_dims + m.n_symbols
    ops = list(op.operands)
    head, maps = ops[:len(ops) - n], ops[len(ops) - n:]
    dims, syms = maps[:m.n_dims], maps[m.n_dims:]
    d = ir.AffineDimExpr.get(m.n_dims)
    results = [e + d if k in positions["map"] else e for k, e in enumerate(m.results)]
    attrs = {k: op.attributes[k] for k in op.attributes.keys()}
    attrs["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(m.n_dims + 1, m.n_symbols, results))
    new = ir.Operation.create(op.name, results=[r.type for r in op.results],
                              operands=head + dims + [v] + syms, attributes=attrs,
                              loc=op.location, ip=ir.InsertionPoint(op))
    for old, r in zip(op.results, new.results):
        old.replace_all_uses_with(r)
    op.erase()


def _constant_copies(loop) -> bool:
    from mlir.dialects import affine as affine_d

    body = _body(loop)
    if _iterargs(loop) or len(body) < 2:
        return False
    inner = _defined(body)
    for n in range(1, len(body) // 2 + 1):
        if len(body) % n:
            continue
        k = len(body) // n
        chunks = [body[r * n:(r + 1) * n] for r in range(k)]
        found = [_same_copy(chunks[r], chunks[0], r, inner) for r in range(1, k)]
        if any(f is None for f in found) or not found[0] or any(f != found[0] for f in found):
            continue
        if any(set(p) != {"map"} or chunks[0][i].operation.name not in ("affine.load", "affine.store")
               for i, p in found[0].items()):
            continue
        with chunks[0][0].location:
            zero = ir.AffineMap.get_constant(0)
            new = affine_d.AffineForOp(zero, ir.AffineMap.get_constant(k), 1,
                                       ip=ir.InsertionPoint(chunks[0][0].operation))
            with ir.InsertionPoint(new.body):
                yield_ = affine_d.AffineYieldOp([])
        for op in chunks[0]:
            op.operation.move_before(yield_.operation)
        for i, pos in found[0].items():
            _with_index(chunks[0][i].operation, pos, new.induction_variable)
        for op in reversed(body[n:]):
            op.operation.erase()
        return True
    return False


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
    rerolled += sum(_constant_copies(loop) for loop in _loops(block))
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
