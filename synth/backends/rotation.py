"""A loop that carries values its step computes at its end for the next step, turned into
one that computes them at the start of each step (mlir-cpu backend; pivot_blocks uses it).

codegen.raised emits a stablehlo counter loop that carries, besides the arrays it updates,
the lines its step reads from them at the counter (floyd-warshall's row and column k):
computed after each step from the new arrays at the next counter, and before the loop from
the initial arrays at the first. That spares XLA a copy of the array per step, but the
step no longer reads its lines from the array it updates, which is what the blocks of
steps of pivot_blocks need. `derotate` puts those ops back at the start of the step, at the
counter before (k - 1 + 1), reading the array the step starts with; the loop then carries
the array alone. It does so only where the values the loop starts with are what those ops
give at the first step (`_same`: the ops before the loop against the step's, the new array
taken as the loop's initial one, integer scalars compared by their values at the counter
lower - 1), and where the caller takes the new loop.
"""

from __future__ import annotations

from synth.backends.ir_toolkit import (
    value_within, evaluate, feeding, clone_into, constant_int, defining, operation,
    mixed)



def derotate(loop, accept):
    """A loop that carries, besides its matrix, values the step computes at its end from the
    new matrix for the next step (codegen.raised's carried lines in stablehlo: row and column
    k + 1): the same loop computing them at the start of each step from the matrix, at the
    counter before, where the values the loop starts with are those at the first step (checked:
    `_same`), where `accept` takes the new loop (an ir.Operation -> bool). Returns the new
    loop, or None (the loop left as it was)."""
    from mlir import ir
    from mlir.dialects import arith, scf
    view = loop.opview
    body = loop.regions[0].blocks[0]
    args = list(body.arguments)
    if len(args) < 3:
        return None
    counter, matrix, carried = args[0], args[1], args[2:]
    lower, upper, stride = (constant_int(v) for v in (view.lowerBound, view.upperBound, view.step))
    if None in (lower, upper, stride) or stride != 1 or upper <= lower:
        return None
    if any(len(list(r.uses)) for r in list(loop.results)[1:]):
        return None
    ops = [operation(o) for o in body.operations]
    yielded = list(ops[-1].operands)
    new_matrix, nexts = yielded[0], yielded[1:]
    if defining(new_matrix) is None or value_within(new_matrix, loop) is False:
        return None
    epilogue = feeding(nexts, body, {new_matrix})
    for op in epilogue:  # computed from the new matrix and the counter alone
        used = set(op.operands)
        for region in op.regions:
            for b in region.blocks:
                for inner in b.operations:
                    used.update(operation(inner).operands)
        if used & (set(carried) | {matrix}):
            return None
    inits = list(view.initArgs)
    if not all(_same(n, i, {new_matrix: inits[0]}, counter, lower - 1, {}) for n, i in zip(nexts, inits[1:])):
        return None
    index = ir.IndexType.get()
    with ir.InsertionPoint(loop), loop.location:
        new = scf.ForOp(view.lowerBound, view.upperBound, view.step, iter_args=[inits[0]])
        with ir.InsertionPoint(new.body):
            k, m = new.induction_variable, new.inner_iter_args[0]
            before = arith.subi(k, arith.constant(index, 1))
            mapping = {counter: before, new_matrix: m}
            clone_into(epilogue, mapping)
            step = {counter: k, matrix: m}
            step.update({c: mapping[n] for c, n in zip(carried, nexts)})
            clone_into(feeding([new_matrix], body, set()), step)
            scf.YieldOp([step[new_matrix]])
    if not accept(operation(new)):
        operation(new).erase()
        return None
    loop.results[0].replace_all_uses_with(new.results[0])
    loop.erase()
    return operation(new)


def _same(a, b, leaves: dict, counter, at: int, memo: dict) -> bool:
    """Whether value `a` (of the loop's body) computes what `b` (before the loop) does, the
    counter at `at` and the values `leaves` maps taken as equal: the same ops with the same
    attributes on the same operands, integer scalars compared by their values."""
    from mlir import ir
    if a in leaves:
        return leaves[a] == b
    if str(a.type) != str(b.type):
        return False
    key = (a, b)
    if key in memo:
        return memo[key]
    memo[key] = False
    if isinstance(a.type, (ir.IntegerType, ir.IndexType)):
        va, vb = evaluate(a, counter, at, {}), evaluate(b, counter, at, {})
        if va is not None or vb is not None:
            memo[key] = va is not None and va == vb
            return memo[key]
    oa, ob = defining(a), defining(b)
    if oa is None or ob is None:
        memo[key] = a == b
        return memo[key]
    if oa.name != ob.name or list(oa.results).index(a) != list(ob.results).index(b):
        return False
    if oa.name in ("tensor.extract_slice", "tensor.insert_slice"):  # offsets: static or not
        for kind in ("offsets", "sizes"):
            for x, y in zip(mixed(oa, kind), mixed(ob, kind)):
                if not _same_index(x, y, counter, at):
                    return False
        if str(oa.attributes["static_strides"]) != str(ob.attributes["static_strides"]):
            return False
        sources = [oa.operands[0]] + ([oa.operands[1]] if oa.name == "tensor.insert_slice" else [])
        others = [ob.operands[0]] + ([ob.operands[1]] if ob.name == "tensor.insert_slice" else [])
        memo[key] = all(_same(x, y, leaves, counter, at, memo) for x, y in zip(sources, others))
        return memo[key]
    if _attributes(oa) != _attributes(ob) or len(oa.operands) != len(ob.operands) or \
            len(oa.regions) != len(ob.regions):
        return False
    if not all(_same(x, y, leaves, counter, at, memo) for x, y in zip(oa.operands, ob.operands)):
        return False
    for ra, rb in zip(oa.regions, ob.regions):
        ba, bb = list(ra.blocks), list(rb.blocks)
        if len(ba) != len(bb):
            return False
        for xa, xb in zip(ba, bb):
            inner = dict(leaves)
            inner.update(zip(xa.arguments, xb.arguments))
            la, lb = [operation(o) for o in xa.operations], [operation(o) for o in xb.operations]
            if len(la) != len(lb):
                return False
            for pa, pb in zip(la, lb):
                for x, y in zip(pa.results, pb.results):
                    inner[x] = y
            for pa, pb in zip(la, lb):
                if pa.name != pb.name or len(pa.operands) != len(pb.operands):
                    return False
                if _attributes(pa) != _attributes(pb):
                    return False
                if not all(inner.get(x) == y if x in inner else _same(x, y, leaves, counter, at, memo)
                           for x, y in zip(pa.operands, pb.operands)):
                    return False
    memo[key] = True
    return True


def _attributes(op) -> dict:
    """An op's attributes, name -> text."""
    named = [op.attributes[i] for i in range(len(op.attributes))]
    return {n.name: str(n.attr) for n in named}


def _same_index(x, y, counter, at: int) -> bool:
    """Whether two offsets or sizes (ints or index Values) are the same number, the counter
    at `at`."""
    vx = x if isinstance(x, int) else evaluate(x, counter, at, {})
    vy = y if isinstance(y, int) else evaluate(y, counter, at, {})
    return vx is not None and vx == vy
