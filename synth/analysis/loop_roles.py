"""What role a loop whose index nothing uses (or uses only to read inputs) plays in the
size analysis (synth.analysis.size_analysis): a time step that reads what an earlier
repetition wrote, a repeated in-place update, or a sweep reading its input at the step."""

from __future__ import annotations

from synth.analysis.collect import Collector, Loop


def reads_inputs_only(col: Collector, loop: Loop) -> bool:
    """Whether the loop's index is used only to read arrays the kernel never writes, each
    read at `index + c` along one dim (fdtd-2d's `fict[t]`): a time loop whose step reads
    its input at the step's index (synth.synthesis.steps rotates such inputs)."""
    if any(use.owner.name != "affine.load" for use in loop.iv.uses):
        return False
    key = ("iv", loop.id)
    written = {a.array for a in col.accesses if a.write}
    for a in col.accesses:
        dims = [f for f in a.forms if f is not None and key in f.terms]
        if not dims:
            continue
        if a.write or a.array in written or len(dims) != 1 or dims[0].terms != {key: 1}:
            return False
    return True


def carries_dependence(col: Collector, loop: Loop) -> bool:
    """Whether a loop whose index nothing uses repeats a computation that reads what an
    earlier repetition wrote elsewhere (a time step), rather than accumulating into the
    same elements (a repeated update, `y[i] += c`)."""
    op_lo = loop.op_index
    inner = [a for a in col.accesses if _inside(col, a.op_index, loop)]
    written = {}
    for a in inner:
        if a.write:
            written.setdefault(a.array, []).append(a.forms)
    for a in inner:
        if not a.write and a.array in written:
            if any(_same_forms(a.forms, w) for w in written[a.array]):
                continue
            return True
    return op_lo < 0


def updates_in_place(col: Collector, loop: Loop) -> bool:
    """Whether an iteration of the loop reads an element that it (or an earlier one) wrote."""
    inner = [a for a in col.accesses if _inside(col, a.op_index, loop)]
    written = {}
    for a in inner:
        if a.write:
            written.setdefault(a.array, []).append(a.forms)
    return any(not a.write and any(_same_forms(a.forms, w) for w in written.get(a.array, ()))
               for a in inner)


def _inside(col: Collector, op_index: int, loop: Loop) -> bool:
    # ops are numbered in pre-order: the loop's body spans the indices up to the next op
    # that is not nested in it; find it from the walk positions of the loops after it
    end = _loop_end(col, loop)
    return loop.op_index < op_index < end


def _loop_end(col: Collector, loop: Loop) -> int:
    cache = getattr(col, "_ends", None)
    if cache is None:
        cache = col._ends = {}
        count = 0
        ends = {}

        def visit(block):
            nonlocal count
            for op in block.operations:
                op = op.operation
                start = count
                count += 1
                for region in op.regions:
                    for b in region.blocks:
                        visit(b)
                ends[start] = count
        visit(col.block)
        cache.update(ends)
    return cache[loop.op_index]


def _same_forms(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is None or y is None or x.terms != y.terms or x.const != y.const:
            return False
    return True
