"""The loops of a shape-generic stablehlo raise for IREE (synth.backends.iree_dynamic's
last step): a `stablehlo.while` kept as it is, which IREE runs as a host loop (a counted
one as `scf.for`), or, where IREE needs it, as blocks of branches whose 0-d integer values
(the counter, the bound) are host scalars. Measured in
benchmarks/results/iree_dynamic_loops_2026-12-07.md; tests/test_iree_dynamic_loops.py."""

from __future__ import annotations


def whiles_as_branches(ir, module) -> int:
    """Each `stablehlo.while` carrying a dynamic tensor, in a function of `module`, as
    blocks of that function: ^cond(carried) -> cf.cond_br -> ^body(carried) -> cf.br
    ^cond, or ^after(carried), where the ops after the loop go. The same loop; IREE then
    sees one control-flow graph, in which it resolves the carried tensors' dims, where a
    while nested in another one's body, carrying a dynamic tensor, stops it ("'tensor.dim'
    op unexpected during shape cleanup; dynamic dimensions must have been resolved",
    nussinov's loop over k inside the loop over diagonals). Outermost first: a converted
    loop's body ops move into the function's blocks, its nested loops with them.

    Only a loop holding another while or a dot_general (iree_packed's call then: IREE
    refuses a call of dynamic tensors in a loop, "'util.call' op function type mismatch")
    or carrying a tensor of two or more dynamic dims (such a kept while IREE 3.13 runs
    wrong: a = a + b, b = b + a over ? x ? arrays gave b the new a; right over ? and ? x 1
    ones), and the loops in it: as blocks IREE keeps the counter and test on the device
    and reads the test back each step (a dispatch, a copy to staging, a wait; one more per
    index the step extracts), a kept while's scalars on the host (durbin: 3 submissions,
    2 waits a step -> 1, 0; benchmarks/results/iree_dynamic_loops_2026-12-07.md)."""
    _mark_branches(ir, module)
    count = 0
    while True:
        loop = _outer_while(ir, module)
        if loop is None:
            return count
        _branches(ir, loop)
        count += 1


def _outer_while(ir, module):
    for f in module.body.operations:
        if f.operation.name != "func.func":
            continue
        if "?" not in str(f.attributes["function_type"]):  # a function of static shapes: left as it is
            continue
        for block in f.regions[0].blocks:
            for op in block.operations:
                if op.operation.name == "stablehlo.while" and BRANCHES in op.operation.attributes:
                    return op.operation
    return None


BRANCHES = "synth.branches"  # a while `whiles_as_branches` converts (erased with it)


def _dynamic_dims(ir, value) -> int:
    """How many dims of `value`'s tensor type are dynamic."""
    if not isinstance(value.type, ir.RankedTensorType):
        return 0
    t = ir.RankedTensorType(value.type)
    return sum(t.is_dynamic_dim(k) for k in range(t.rank))


def _mark_branches(ir, module) -> None:
    """Marks each while of a dynamic function holding another while or a dot_general,
    and every while inside it (`whiles_as_branches`)."""
    def inner(op, names) -> list:
        found = []

        def visit(o):
            if o.name in names and o != op:
                found.append(o)
            return ir.WalkResult.ADVANCE
        op.walk(visit)
        return found
    for f in module.body.operations:
        if f.operation.name != "func.func" or "?" not in str(f.attributes["function_type"]):
            continue
        for block in f.regions[0].blocks:
            for op in block.operations:
                loop = op.operation
                if loop.name == "stablehlo.while" and (inner(loop, {"stablehlo.while", "stablehlo.dot_general"})
                                                       or any(_dynamic_dims(ir, v) > 1 for v in loop.operands)):
                    for each in [loop, *inner(loop, {"stablehlo.while"})]:
                        each.attributes[BRANCHES] = ir.UnitAttr.get()


def _branches(ir, loop) -> None:
    """`loop` as blocks; its 0-d integer tensors (the counter) carried as scalars, a
    tensor again in each block (IREE then computes them on the host, as a while's)."""
    block = loop.block
    tensors = [v.type for v in loop.operands]
    scalar = [isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).rank == 0
              and isinstance(ir.RankedTensorType(t).element_type, ir.IntegerType) for t in tensors]
    types = [ir.RankedTensorType(t).element_type if s else t for t, s in zip(tensors, scalar)]
    after = block.create_after(*types, arg_locs=[loop.location] * len(types))
    body = block.create_after(*types, arg_locs=[loop.location] * len(types))
    cond = block.create_after(*types, arg_locs=[loop.location] * len(types))

    def views(target):  # the block's arguments as the loop's tensors
        with ir.InsertionPoint.at_block_begin(target), loop.location:
            return [ir.Operation.create("tensor.from_elements", results=[t], operands=[a]).results[0] if s else a
                    for a, t, s in zip(target.arguments, tensors, scalar)]

    def scalars(values):  # the loop's tensors as the blocks' arguments
        return [ir.Operation.create("tensor.extract", results=[t], operands=[v]).results[0] if s else v
                for v, t, s in zip(values, types, scalar)]
    rest, seen = [], False
    for op in block.operations:
        if seen:
            rest.append(op.operation)
        seen = seen or op.operation == loop
    after_views = views(after)
    for op in rest:
        op.detach_from_parent()
        after.append(op)
    for result, arg in zip(loop.results, after_views):
        result.replace_all_uses_with(arg)

    def move(region, target):
        source = region.blocks[0]
        for old, new in zip(source.arguments, views(target)):
            old.replace_all_uses_with(new)
        ops = [op.operation for op in source.operations]
        for op in ops[:-1]:
            op.detach_from_parent()
            target.append(op)
        return ops[-1]  # the stablehlo.return, still in the region
    go = move(loop.regions[0], cond)
    with ir.InsertionPoint(cond), loop.location:
        flag = _host_test(ir, go.operands[0], cond, loop) or ir.Operation.create(
            "tensor.extract", results=[ir.IntegerType.get_signless(1)], operands=[go.operands[0]]).results[0]
        ir.Operation.create("cf.cond_br", operands=[flag, *cond.arguments, *cond.arguments],
                            successors=[body, after],
                            attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                                [1, len(types), len(types)])})
    done = move(loop.regions[1], body)
    with ir.InsertionPoint(body), loop.location:
        ir.Operation.create("cf.br", operands=scalars(list(done.operands)), successors=[cond])
    with ir.InsertionPoint(loop), loop.location:
        ir.Operation.create("cf.br", operands=scalars(list(loop.operands)), successors=[cond])
    loop.erase()


_PREDICATES = {"LT": 2, "LE": 3, "GT": 4, "GE": 5, "EQ": 0, "NE": 1}  # arith.cmpi slt, sle, sgt, sge, eq, ne


def _host_test(ir, go, cond, loop):
    """The loop's test `go`, a compare of two 0-d integer tensors, as `arith.cmpi` of
    their scalars: a counter carried as a scalar (`_branches`) and a bound from before the
    loop, read once there; else None (the test read back from the device each step)."""
    op = go.owner
    if not hasattr(op, "name") or op.name != "stablehlo.compare" or len(op.operands) != 2:
        return None
    direction = str(op.attributes["comparison_direction"]).split()[-1].rstrip(">")
    t = ir.RankedTensorType(op.operands[0].type)
    if direction not in _PREDICATES or t.rank != 0 or not isinstance(t.element_type, ir.IntegerType) \
            or ir.IntegerType(t.element_type).is_unsigned:
        return None
    sides = []
    for v in op.operands:
        owner = v.owner
        if hasattr(owner, "name") and owner.name == "tensor.from_elements":
            sides.append(owner.operands[0])  # a carried scalar's view
        elif (owner.operation.block if hasattr(owner, "name") else owner) != cond:  # from before the loop
            with ir.InsertionPoint(loop), loop.location:
                sides.append(ir.Operation.create("tensor.extract", results=[t.element_type],
                                                 operands=[v]).results[0])
        else:
            return None
    i64 = ir.IntegerType.get_signless(64)
    return ir.Operation.create("arith.cmpi", results=[ir.IntegerType.get_signless(1)], operands=sides,
                               attributes={"predicate": ir.IntegerAttr.get(i64, _PREDICATES[direction])}).results[0]
