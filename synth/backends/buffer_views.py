"""synth-one-view-per-buffer: the tensors read from one memref by several
`bufferization.to_tensor` ops, with no write of the memref between them, become one tensor
(the first), writable where any of them was.

Why: synth cc's drop-in reads an argument it also writes (an in-out array: doitgen's A,
durbin's y) as `to_tensor %A restrict` and writes the result back with
`materialize_in_destination %r in restrict writable %A`. MLIR's eliminate-empty-tensors
computes %r in place in its destination: it replaces the tensor.empty %r starts from by a
second `to_tensor %A restrict writable` (the `restrict` moved there from the
materialization). Two `restrict` tensors of one buffer tell one-shot bufferization they do
not alias, so the result was written into A while the computation still read A (doitgen:
every element of A and sum wrong; durbin's y likewise). With the two made one tensor, the
bufferization's own conflict analysis sees the reads and writes of one buffer and copies
only where a write would clobber a value still to be read.

A function that only reads its arrays, or only writes fresh ones (synth bench calls the
raised function alone, its results out-parameters), has one to_tensor per memref: the pass
changes nothing there.
"""

from __future__ import annotations

from synth.backends.ir_toolkit import operation, ops_named

TO_TENSOR = "bufferization.to_tensor"


def _in_block(op, block):
    """`op` or its ancestor directly in `block`; None when none is (stops at the module)."""
    op = operation(op)
    while op is not None and op.name != "builtin.module":
        if op.block == block:
            return op
        op = op.parent
    return None


def _positions(block) -> dict:
    return {operation(op): k for k, op in enumerate(block.operations)}


def one_view_per_buffer(module) -> int:
    """Merge the to_tensor ops of each memref into its first (see the module doc); the
    number of to_tensor ops removed."""
    from mlir import ir

    groups: dict = {}
    for op in ops_named(module, (TO_TENSOR,)):
        groups.setdefault(op.operands[0], []).append(op)
    count = 0
    for memref, views in groups.items():
        if len(views) < 2:
            continue
        first = views[0]
        block = first.block
        where = _positions(block)
        # the ops of `block` that touch the memref other than by a to_tensor (a use in
        # another block, e.g. the drop-in's other branch, cannot run between two ops of it)
        writers = [_in_block(use.owner, block) for use in memref.uses
                   if operation(use.owner).name != TO_TENSOR]
        writer_at = sorted(where[w] for w in writers if w is not None)
        for later in views[1:]:
            top = _in_block(later, block)
            if top is None or str(later.results[0].type) != str(first.results[0].type):
                continue
            start, end = where[first], where[top]
            if start >= end or any(start < w <= end for w in writer_at):
                continue  # not after the first, or the buffer may change between them
            later.results[0].replace_all_uses_with(first.results[0])
            if "writable" in later.attributes:
                first.attributes["writable"] = ir.UnitAttr.get()
            later.erase()
            count += 1
    return count


def writable_in_out(module) -> int:
    """Mark writable the to_tensor of a memref that a later materialize_in_destination of
    the same block writes (an in-out argument of the drop-in): its buffer is the result's
    home anyway, and a loop that updates the array in place (floyd-warshall's step, written
    in place by synth-write-in-place) otherwise copied the whole array per iteration, as
    one-shot bufferization does for a tensor it may not write: floyd-warshall LARGE 25 s
    in synth cc's object against 2 s in synth bench, whose arguments are writable. The
    number of to_tensor ops marked."""
    from mlir import ir

    count = 0
    for op in ops_named(module, (TO_TENSOR,)):
        if "writable" in op.attributes:
            continue
        memref, block = op.operands[0], op.block
        where = _positions(block)
        for use in memref.uses:
            user = operation(use.owner)
            if (user.name == "bufferization.materialize_in_destination" and user.block == block
                    and where[user] > where[op] and user.operands[1] == memref):
                op.attributes["writable"] = ir.UnitAttr.get()
                count += 1
                break
    return count
