"""synth-reads-first: a read of a tensor that comes after an update of it in place (an
insert_slice into it) moved before the update, so bufferization writes the array in place
instead of copying all of it first.

adi's time step starts with its boundary statements, raised as parallel assignments of the
array values the step starts from:

    %a1 = tensor.insert_slice %row into %v[0, 0] [1, N]        // v[0][*] = 1
    %c  = linalg.generic ins(%v) ... -> tensor<Nx1>           // column 0 of the OLD v
    %a2 = tensor.insert_slice %c into %a1[0, 0] [N, 1]

The generic reads %v after %a1 updated it: one-shot bufferization cannot write %a1 into v's
buffer and still give the generic the old v, so it copies all of v (8 MB at LARGE, seven
times a time step: more than the sweeps cost). The generic is a function of %v alone; computed
before the insert, it sees the same value and the insert is in place.

Moved: an op without regions or a linalg.generic / linalg.fill / linalg.copy / extract op
(no side effects: ops on tensors), in the block of the insert and after it, reading the
insert's destination (not as the outs it writes), whose other operands are defined before
the insert or by ops movable the same way (tensor.empty, constants); moved with those just
before the insert, in their order. Values are unchanged: each moved op computes what it did
from the same operands.
"""

from __future__ import annotations

from synth.backends.ir_toolkit import defining, operation, ops_named

_PURE = ("linalg.generic", "linalg.fill", "linalg.copy", "tensor.extract_slice", "tensor.extract",
         "tensor.empty", "arith.constant", "tensor.expand_shape", "tensor.collapse_shape")


def _block_of(op):
    """The block holding `op`."""
    for region in operation(op.parent).regions:
        for block in region.blocks:
            if any(operation(o) == op for o in block.operations):
                return block
    return None


def _position(block) -> dict:
    return {operation(op): k for k, op in enumerate(block.operations)}


def _needs(op, at: int, pos: dict, block, seen: list, depth: int = 4) -> bool:
    """Whether `op` (after position `at` of `block`) can be computed before it: add it and
    the ops it needs from after `at` to `seen` (in dependence order)."""
    if op.name not in _PURE or depth == 0:
        return False
    if op.name == "linalg.generic" and any(
            not operation(i).name.startswith(("arith.", "math.", "linalg.yield"))
            for i in op.regions[0].blocks[0].operations):
        return False
    if op.name != "linalg.generic" and len(op.regions):
        return False
    captured = [v for i in op.regions[0].blocks[0].operations for v in operation(i).operands] \
        if op.name == "linalg.generic" else []  # values its payload uses from outside it
    for v in list(op.operands) + captured:
        d = defining(v)
        if d is None:  # a block argument: of this block or an enclosing one
            continue
        k = pos.get(d)
        if k is None or k < at or d in seen:  # outside the block, or before the insert
            continue
        if not _needs(d, at, pos, block, seen, depth - 1):
            return False
    if op not in seen:
        seen.append(op)
    return True


def _reads(dest, insert, pos: dict) -> list:
    """The ops after `insert` in its block reading `dest` as an input."""
    at, found = pos[insert], []
    for use in dest.uses:
        user = operation(use.owner)
        k = pos.get(user)
        if k is None or k <= at or user == insert:
            continue
        if user.name == "linalg.generic" and dest in list(user.opview.outputs):
            continue
        found.append(user)
    return sorted(found, key=lambda o: pos[o])


def _own_buffer(reader) -> None:
    """A moved generic's outs from a tensor.empty of its own as a bufferization.alloc_tensor:
    eliminate-empty-tensors would make it a slice of the updated array (defined after the
    update), and the read after the update again."""
    from mlir import ir
    from mlir.dialects import bufferization
    if reader.name != "linalg.generic":
        return
    n_in = len(reader.opview.inputs)
    for k, out in enumerate(list(reader.opview.outputs)):
        empty = defining(out)
        if empty is None or empty.name != "tensor.empty" or len(empty.operands):
            continue
        with ir.InsertionPoint(reader), reader.location:
            alloc = bufferization.AllocTensorOp(out.type, [])
        reader.operands[n_in + k] = alloc.result
        if not len(list(empty.results[0].uses)):
            empty.erase()


def reads_first(module) -> int:
    """Move the reads of each in-place-updated tensor of `module` before the update (module
    docstring); the number of reads moved."""
    count = 0
    for insert in ops_named(module, ("tensor.insert_slice",)):
        dest = insert.operands[1]
        parent_block = _block_of(insert)
        if parent_block is None:
            continue
        pos = _position(parent_block)
        for reader in _reads(dest, insert, pos):
            seen: list = []
            if not _needs(reader, pos[insert], pos, parent_block, seen):
                continue
            for op in sorted(seen, key=lambda o: pos[o]):
                op.move_before(insert)
            _own_buffer(reader)
            pos = _position(parent_block)
            count += 1
    return count
