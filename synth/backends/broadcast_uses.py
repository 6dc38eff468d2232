"""synth-broadcasts-per-use: a broadcast of a scalar (an all-parallel linalg.generic that
yields the element of its one rank-0 input, into a tensor.empty) that several ops use is
computed once per use, before elementwise fusion.

MLIR's linalg-fuse-elementwise-ops fuses a producer only into its single consumer. A raise
that multiplies two updates by the same constant reads one broadcast twice once CSE has
merged the two (the shape-generic text made static runs canonicalize and cse): the
broadcast then stays a tensor of its own, both updates read it from memory, and the
stencil passes after fusion (synth-wavefront) do not recognise the updates (jacobi-2d's
generic raise at PolyBench LARGE ran 9x slower than its static raise). A copy per use is
fused into each consumer, where the scalar is a value of the payload, as in the static
raise. The values are the same: the copies compute the same elements."""

from __future__ import annotations

from synth.backends.ir_toolkit import all_parallel, defining, ops_named


def _scalar_broadcast(op) -> bool:
    """Whether `op` (a linalg.generic) only broadcasts a rank-0 input: its payload yields
    that input's element, every loop parallel, into one tensor.empty (a generic computing
    its elements, a flip gathering them say, is not copied: that would double its work)."""
    from mlir import ir

    view = op.opview
    if len(op.results) != 1 or len(view.outputs) != 1 or len(view.inputs) != 1 or not all_parallel(op):
        return False
    empty = defining(view.outputs[0])
    if empty is None or empty.name != "tensor.empty":
        return False
    source = view.inputs[0]
    if not (isinstance(source.type, ir.RankedTensorType) and ir.RankedTensorType(source.type).rank == 0):
        return False
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    return len(body) == 1 and body[0].operands[0] == block.arguments[0]


def broadcasts_per_use(module) -> int:
    """Give each use but the first of every scalar broadcast in `module` its own copy (the
    broadcast and its tensor.empty, cloned just before the user); the number of copies."""
    from mlir import ir

    copies = 0
    for op in ops_named(module, ("linalg.generic",)):
        if not _scalar_broadcast(op):
            continue
        uses = [(use.owner, use.operand_number) for use in op.results[0].uses]
        empty = defining(op.opview.outputs[0])
        for owner, number in uses[1:]:
            user = getattr(owner, "operation", owner)
            at = ir.InsertionPoint(user)
            fresh = empty.clone(at)
            clone = op.clone(at)
            clone.operands[len(clone.operands) - 1] = fresh.results[0]
            user.operands[number] = clone.results[0]
            copies += 1
    return copies
