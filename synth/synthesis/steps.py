"""Loops that stay loops: a time-step loop around the whole kernel.

A kernel whose statements all sit in one loop that repeats them (its index unused, each
repetition reading what the previous one wrote: PolyBench's stencils) has no loop-free
tensor program. Its raise is a loop in the target whose body is a tensor program:

    stablehlo: stablehlo.while over (counter, the arrays the body writes)
    linalg:    scf.for over the same arrays as iter_args

The body is one repetition: the kernel with that loop running once (`step_kernel`) is
raised like any other kernel (sketches and search), and synth.codegen.raised emits its
program inside the loop, `TimeLoop.trip` times (an expression of the size symbols).
Validation checks the whole raised function against the original, loop and all.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from synth.analysis.model import Kernel, load_kernel
from synth.analysis.symbols import SizeExpr
from synth.errors import NoSolutionError
from synth.frontend.reader import SourceModule, diagnostic_location


@dataclass(frozen=True)
class TimeLoop:
    trip: SizeExpr  # repetitions, in the kernel's size symbols
    location: str


def _why_not(kernel: Kernel, why: str) -> NoSolutionError:
    return NoSolutionError(
        f"@{kernel.name}: the loop at {kernel.sizes.time_loops[0]} repeats a computation that "
        f"reads what its previous iteration wrote (a time-step loop); {why}, so no equivalent "
        f"program exists in the grammar")


def step_kernel(kernel: Kernel) -> tuple[Kernel, TimeLoop]:
    """The kernel with its time loop running once, and the loop. NoSolutionError where
    the loop is not one the targets' loops express: several time loops, statements
    outside it, a trip count that is not an expression of the sizes."""
    sizes = kernel.sizes
    if len(sizes.time_loops) != 1:
        raise _why_not(kernel, f"it is one of {len(sizes.time_loops)} such loops (one loop of the "
                               f"target around one step is supported, not more)")
    trip = sizes.time_trips[0] if sizes.time_trips else None
    if trip is None:
        raise _why_not(kernel, "its trip count is not an expression of the sizes")
    if kernel.interface.results or kernel.interface.out_parameters:
        raise _why_not(kernel, "it returns values (not carried by the target's loops yet)")
    location = sizes.time_loops[0]
    source = kernel.normal
    path = source.path
    with source.context, ir.Location.unknown():
        module = source.copy()
        loops = []

        def visit(op):
            if op.name == "affine.for" and diagnostic_location(path, op.location) == location:
                loops.append(op)
            return ir.WalkResult.ADVANCE
        module.walk(visit)
        if len(loops) != 1:
            raise _why_not(kernel, "the loop could not be found again")
        loop = loops[0].opview
        stores_outside = []

        def outside(op):
            if op.name in ("affine.store", "memref.store") and not _inside(op, loops[0]):
                stores_outside.append(op)
            return ir.WalkResult.ADVANCE
        module.walk(outside)
        if stores_outside:
            raise _why_not(kernel, "statements outside the loop")
        lb = loop.lowerBoundMap.value
        # 0 to 1 (its index is unused): a bound of 2 would read as a size of its own
        ub = loop.upperBoundMap.value
        for attr, amap, value in (("lowerBoundMap", lb, 0), ("upperBoundMap", ub, 1)):
            once = ir.AffineMap.get(amap.n_dims, amap.n_symbols, [ir.AffineConstantExpr.get(value)])
            loop.operation.attributes[attr] = ir.AffineMapAttr.get(once)
        text = str(module)
    step = load_kernel(SourceModule(path, text), kernel.name)
    if step.sizes.time_loops:
        raise _why_not(kernel, "another loop inside it repeats too")
    return step, TimeLoop(trip, location)


def _inside(op, loop) -> bool:
    parent = op.parent
    while parent is not None:
        if parent == loop:
            return True
        parent = parent.parent
    return False
