"""A loop step's reversed read of a vector the loop does not change becomes a slice of one
reversal computed before the loop (mlir-cpu backend).

durbin's step k sums r[k - 1 - i] * y[i] over i < k. Raised, the flipped operand is a
linalg.generic over i < k with no inputs whose payload reads r at k - 1 - i (clamped into r,
zero outside it); r is a function argument, so every step reverses the same vector again
into a new buffer, and the dot then reads that buffer (a quarter of durbin's time at
PolyBench LARGE, perf).

`hoist_flips` takes each such generic G inside an scf.for: no inputs, one rank-1 output
that its payload does not read, and a payload that reads `linalg.index 0` only as
`c - i` (c from values outside G, used nowhere else in the payload) and every other value it
uses from outside the loop. Its element i is then h(c - i) for a function h the loop does
not change. With the ranges of c and of G's length m over the loop (`int_range`: constants,
loop counters with constant bounds, casts, +, -, max and min), v = c - i lies in
[v0, v1] = [min c - max m + 1, max c]. Before the loop, a clone of G computes
H[j] = h(v1 - j) for j in [0, v1 - v0]; in the loop, G is the slice of H at v1 - c, m
long: H[v1 - c + i] = h(c - i). Same payload, same values, one reversal per loop instead
of one per step. c may be computed in the payload from values outside it (the stablehlo
raise's k - 1 from the counter): those ops are cloned before G in the loop and dropped from
H's payload.

durbin at PolyBench LARGE, AMD EPYC host, one thread, old and new code in alternating
processes, medians (minimums) of 20 calls: linalg 1.19, 1.14 (1.11, 1.12) -> 0.89, 1.02
(0.77, 0.84) ms; stablehlo 1.59, 1.11 (1.45, 1.07) -> 0.88, 0.89 (0.78, 0.79) ms;
outputs bitwise equal. No other raised PolyBench kernel has such a flip.
"""

from __future__ import annotations

from synth.backends.ir_toolkit import (
    int_range, defining, operation, ops_named, op_within)


_MAX_ELEMENTS = 1 << 24  # the longest reversal computed before a loop


def _chain(value, generic) -> list | None:
    """The ops of `generic`'s payload that compute `value` (itself included, in payload
    order) where those are integer arithmetic on values from outside the payload; [] for a
    value from outside; None where one reads linalg.index or a payload argument."""
    from mlir import ir

    owner = value.owner
    if isinstance(owner, ir.Block):
        return None if operation(owner.owner) == generic else []
    op = operation(owner)
    if operation(op.parent) != generic:
        return []
    if not op.name.startswith("arith.") or op.name == "arith.select":
        return None
    ops: list = []
    for v in op.operands:
        inner = _chain(v, generic)
        if inner is None:
            return None
        ops += [o for o in inner if o not in ops]
    return ops + [op]


def _flip(generic, loop):
    """(the subi computing c - i, c, the payload ops computing c) of a generic of the form
    above inside `loop`; None for any other."""
    from mlir import ir

    view = generic.opview
    if len(view.inputs) != 0 or len(view.outputs) != 1 or len(generic.results) != 1:
        return None
    if ir.RankedTensorType(generic.results[0].type).rank != 1 or "reduction" in str(generic.attributes["iterator_types"]):
        return None
    body = generic.regions[0].blocks[0]
    if len(list(body.arguments[0].uses)):
        return None
    payload = [operation(o) for o in body.operations]
    indices = [o for o in payload if o.name == "linalg.index"]
    if len(indices) != 1:
        return None
    position = indices[0].results[0]
    uses = [u.owner for u in position.uses]
    if len(uses) == 1 and operation(uses[0]).name == "arith.index_cast":
        position = operation(uses[0]).results[0]
        uses = [u.owner for u in position.uses]
    if len(uses) != 1 or operation(uses[0]).name != "arith.subi" or operation(uses[0]).operands[1] != position:
        return None
    subi = operation(uses[0])
    c = subi.operands[0]
    chain = _chain(c, generic)
    if chain is None:
        return None
    for op in chain:  # c's ops feed c only
        if any(operation(u.owner) not in chain + [subi] for r in op.results for u in r.uses):
            return None
    for op in payload:
        if op in chain:
            continue
        for v in op.operands:
            owner = defining(v)
            if owner is None:  # a block argument: the payload's own (its unused out), or of
                holder = operation(v.owner.owner)  # an op around the loop (the function's)
                if holder != generic and op_within(holder, loop):
                    return None
                continue
            if operation(owner.parent) == generic:
                continue  # defined in the payload
            if v == c:
                if op != subi:
                    return None
                continue
            if op_within(owner, loop):
                return None
    return subi, c, chain


def hoist_flips(module) -> int:
    """Rewrite each generic of the form above (see the module); the number rewritten."""
    from mlir import ir
    from mlir.dialects import arith, tensor

    from synth.backends.ir_toolkit import clone_into

    count = 0
    for generic in ops_named(module, ["linalg.generic"]):
        loop = operation(generic.parent)
        while loop is not None and loop.name not in ("scf.for", "func.func"):
            loop = operation(loop.parent) if loop.parent is not None else None
        if loop is None or loop.name != "scf.for":
            continue
        found = _flip(generic, loop)
        if found is None:
            continue
        subi, c, chain = found
        out = generic.operands[0]
        t = ir.RankedTensorType(out.type)
        empty = defining(out)
        if t.is_dynamic_dim(0):
            if empty is None or empty.name != "tensor.empty":
                continue
            length = int_range(empty.operands[0])
        else:
            length = (t.shape[0], t.shape[0])
        reach = int_range(c)
        if length is None or reach is None or length[1] < 1:
            continue
        v1, v0 = reach[1], reach[0] - length[1] + 1
        if v1 - v0 + 1 > _MAX_ELEMENTS:
            continue
        index = ir.IndexType.get()
        with ir.InsertionPoint(loop), loop.location:
            extent = v1 - v0 + 1
            whole = tensor.EmptyOp([arith.constant(index, extent) if t.is_dynamic_dim(0) else extent],
                                   t.element_type).result
            top = arith.constant(c.type, v1)
        # H[j] = h(v1 - j): G's payload with v1 for c, before the loop
        clone = generic.clone(ir.InsertionPoint(loop))
        if not t.is_dynamic_dim(0):
            with loop.location:
                clone.results[0].set_type(ir.RankedTensorType.get([extent], t.element_type))
        clone.operands[0] = whole
        payload = [operation(o) for o in clone.regions[0].blocks[0].operations]
        index_of = [operation(o) for o in generic.regions[0].blocks[0].operations]
        clone_subi = payload[index_of.index(subi)]
        clone_subi.operands[0] = top
        for op in reversed([payload[index_of.index(o)] for o in chain]):
            op.erase()
        # in the loop: c computed outside G, and G the slice of H at v1 - c
        with ir.InsertionPoint(generic), generic.location:
            mapping: dict = {}
            clone_into(chain, mapping)
            here = mapping.get(c, c)
            start = arith.subi(top, here)
            if start.type != index:
                start = arith.index_cast(index, start)
            dynamic = ir.ShapedType.get_dynamic_size()
            if t.is_dynamic_dim(0):
                sizes, static_sizes = [empty.operands[0]], [dynamic]
            else:
                sizes, static_sizes = [], [t.shape[0]]
            part = tensor.ExtractSliceOp(generic.results[0].type, clone.results[0], [start], sizes, [],
                                         [dynamic], static_sizes, [1]).result
        generic.results[0].replace_all_uses_with(part)
        generic.erase()
        count += 1
    return count
