"""Loop distribution of parallel nests, and a time step's nests as parts.

A recurrence along an inner loop sits in its parallel loop beside other statements
(PolyBench's adi: per column i, the boundary values, a forward sweep along j, another
boundary value, a backward sweep along j):

    for i:                               (no iteration of i touches another's elements)
      v[0][i] = 1; p[i][0] = 0; q[i][0] = v[0][i]
      for j: p[i][j] = f(p[i][j-1]) ...
      v[n-1][i] = 1
      for j (down): v[j][i] = p[i][j] * v[j+1][i] + q[i][j]

The i loop is split into one loop per piece of its body (each inner loop a piece, each
run of other statements one), in order:

    for i: v[0][i] = 1; p[i][0] = 0; q[i][0] = v[0][i]
    for i: for j: p[i][j] = ...
    for i: v[n-1][i] = 1
    for i: for j (down): v[j][i] = ...

Legal where the i loop carries no dependence: every array its body writes is addressed,
in every access to it, along one and the same dim by i alone (synth.synthesis.recurrence.
parallel_along), so iterations touch disjoint elements of what is written, every
dependence is within one iteration, and running each piece for every i before the next
keeps the pieces' order within each iteration. Each resulting nest is then a part of its
own (recurrence.nest_parts), the recurrences among them interchanged. A value one piece
computes and a later one uses is recomputed there where it is arithmetic on values from
outside the loop (and the loop's index); a load crossing pieces leaves the nest as it is.

`unwrapped`: a time loop's step (synth.synthesis.steps.step_kernel: the loop left running
once) with that one-trip loop removed, so that its nests are top-level nests.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import affine

from synth.analysis.model import Kernel
from synth.errors import InputError
from synth.frontend.reader import nested_in
from synth.synthesis.recurrence import loop_like, parallel_along, with_values, whole_extents
from synth.synthesis.steps import drop_dead, editable, reloaded


def _pieces(body: list) -> list[list]:
    """The body's ops (its affine.yield left out) in pieces: each affine.for one, each
    maximal run of other ops one."""
    pieces: list[list] = []
    for op in body:
        if op.name == "affine.for" or not pieces or pieces[-1][-1].name == "affine.for":
            pieces.append([op])
        else:
            pieces[-1].append(op)
    return pieces


def _is_pure(op) -> bool:
    return op.name.startswith(("arith.", "math.")) or op.name in ("affine.apply", "affine.load", "memref.load")


def _defining_op(value: ir.Value):
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _recomputable(op, loop, iv, seen: set) -> bool:
    """Whether `op` (in the loop's body) is arithmetic whose operands are, transitively,
    values defined outside the loop or the loop's index."""
    if op in seen:
        return True
    if not (op.name.startswith(("arith.", "math.")) or op.name == "affine.apply") or op.regions:
        return False
    seen.add(op)
    for v in op.operands:
        if v == iv:
            continue
        d = _defining_op(v)
        if d is None:
            if isinstance(v.owner, ir.Block) and (v.owner.owner == loop or nested_in(v.owner.owner, loop)):
                return False
            continue
        if nested_in(d, loop) and not _recomputable(d, loop, iv, seen):
            return False
    return True


def _clone_before(op, user, where: dict) -> ir.Value:
    """A copy of `op` (arithmetic of the loop's body) and of what it computes from in the
    body, inserted before `user`; its result."""
    copy = op.clone(ir.InsertionPoint(user))
    for j, v in enumerate(list(op.operands)):
        d = _defining_op(v)
        if d is not None and d in where:
            copy.operands[j] = _clone_before(d, copy, where)
    return copy.results[0]


def _distribute(loop) -> bool:
    """Split one top-level parallel loop into a loop per piece of its body (module doc), in
    place; False (nothing changed) where it is not such a loop or a piece uses a load of
    another."""
    view = loop.opview
    if len(view.results) or len(view.inits):
        return False
    body = [op.operation for op in view.regions[0].blocks[0].operations][:-1]
    # a run of loads and arithmetic alone is no loop of its own: what later pieces use
    # of it they recompute (or the nest is left as it is)
    pieces = [p for p in _pieces(body) if not all(_is_pure(op) for op in p)]
    if len(pieces) < 2 or sum(1 for p in pieces if p[0].name == "affine.for") == 0:
        return False
    if parallel_along(view, view, set()) is None:
        return False
    iv = view.induction_variable
    where = {op: k for k, piece in enumerate(pieces) for op in piece}
    where.update({op: -1 for op in body if op not in where})  # (in no piece: recomputed where used)
    crossing = []  # (user, operand number, defining op): a value of another piece
    for k, piece in enumerate(pieces):
        for op in piece:
            def visit(inner):
                for j, v in enumerate(inner.operands):
                    d = _defining_op(v)
                    if d is not None and d in where and where[d] != k:
                        crossing.append((k, inner, j, d))
                return ir.WalkResult.ADVANCE
            op.walk(visit)
    if any(not _recomputable(d, loop, iv, set()) for _, _, _, d in crossing):
        return False
    for k, piece in enumerate(pieces):
        with ir.InsertionPoint(loop), loop.location:
            new = loop_like(view, loop.location)
            with ir.InsertionPoint(new.body):
                anchor = affine.AffineYieldOp([])
        for op in piece:
            op.move_before(anchor)
        for _, user, j, d in (c for c in crossing if c[0] == k):  # recomputed right before
            # its use (inside an inner loop too: the interchange reads a nest whose outer
            # body is that loop alone)
            user.operands[j] = _clone_before(d, user, where)
        for use in list(iv.uses):
            owner = use.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            if nested_in(owner, new.operation):
                owner.operands[use.operand_number] = new.induction_variable
    leftover = [op.operation for op in view.regions[0].blocks[0].operations][:-1]
    for op in reversed(leftover):  # what the pieces recomputed, unused in the loop now
        if not any(True for r in op.results for _ in r.uses):
            op.erase()
    loop.erase()
    return True


def distributed(kernel: Kernel) -> Kernel | None:
    """The kernel with each of its top-level parallel nests that holds an inner loop among
    other statements distributed (module doc); None where none is."""
    if kernel.sizes.time_loops or kernel.interface.results or kernel.interface.out_parameters:
        return None
    with editable(kernel) as (module, func, entry):
        loops = [op.operation for op in entry.operations if op.operation.name == "affine.for"]
        changed = [_distribute(loop) for loop in loops]
        if not any(changed):
            return None
        drop_dead(entry)
        text = str(module)
    try:
        return whole_extents(with_values(reloaded(kernel, text), kernel), kernel)
    except InputError:
        return None


def unwrapped(step: Kernel) -> Kernel | None:
    """A time loop's step with its one-trip loop (its index unused) removed, the loop's
    body in its place; None where the step is not one such loop and constants."""
    with editable(step) as (module, func, entry):
        top = [op.operation for op in entry.operations]
        loops = [op for op in top if op.name == "affine.for"]
        if len(loops) != 1 or any(op.name not in ("affine.for", "arith.constant", "func.return") and
                                  not op.name.startswith(("arith.", "math.", "memref.alloca"))
                                  for op in top):
            return None
        loop = loops[0].opview
        lb, ub = loop.lowerBoundMap.value, loop.upperBoundMap.value
        constant = [len(m.results) == 1 and isinstance(m.results[0], ir.AffineConstantExpr) for m in (lb, ub)]
        if not all(constant) or ir.AffineConstantExpr(ub.results[0]).value - \
                ir.AffineConstantExpr(lb.results[0]).value != 1 or len(loop.results) or \
                any(True for _ in loop.induction_variable.uses):
            return None
        for op in list(loop.regions[0].blocks[0].operations)[:-1]:
            op.operation.move_before(loops[0])
        loops[0].erase()
        text = str(module)
    try:
        return whole_extents(with_values(reloaded(step, text), step), step)
    except InputError:
        return None
