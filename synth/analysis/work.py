"""How much a kernel computes at the sizes its module is written at: an upper bound on
the iterations of its innermost loops (a reduction carried in `iter_args` stores
nothing) plus the stores outside every loop, by the interval bounds of its loops
(synth.analysis.regions' walk: each loop's trip count taken at the widest range of its
bounds, so a triangular nest counts as its bounding box).

Validation uses it to see whether running a kernel at its own sizes costs more than a
test should (synth.validation.plan)."""

from __future__ import annotations

from typing import Mapping

from mlir import ir

from synth.analysis.regions import Walker
from synth.frontend.reader import SourceModule


class _Counter(Walker):
    def __init__(self, block, params: Mapping[int, int]):
        super().__init__(block, params)
        self.trips = [1]  # iterations of the innermost open loop, all its enclosing ones' included
        self.instances = 0
        self.loops = 0  # loops entered so far

    def loop(self, f) -> bool:
        if self.dead:
            return super().loop(f)
        nl = f.lowerBoundMap.value.n_dims + f.lowerBoundMap.value.n_symbols
        nu = f.upperBoundMap.value.n_dims + f.upperBoundMap.value.n_symbols
        ops = list(f.operands)
        lb = self.bound(f.lowerBoundMap.value, ops[:nl], False)
        ub = self.bound(f.upperBoundMap.value, ops[nl:nl + nu], True)
        if lb is None or ub is None:
            return False
        step = int(ir.IntegerAttr(f.attributes["step"]).value) if "step" in f.attributes else 1
        trip = max(0, (ub[1] - 1 - lb[0]) // step + 1)
        self.trips.append(self.trips[-1] * trip)
        self.loops += 1
        before = self.loops
        try:
            return super().loop(f)
        finally:
            if self.loops == before and not self.dead:  # an innermost loop
                self.instances += self.trips[-1]
            self.trips.pop()

    def record(self, op) -> None:
        if op.name == "affine.store" and not self.dead and len(self.trips) == 1:
            self.instances += 1
        super().record(op)


def statement_instances(source: SourceModule, name: str, params: Mapping[int, int]) -> int | None:
    """At most how many iterations @name's innermost loops run (and stores outside any
    loop), at the sizes `source` is written at (`params`: size argument index -> value); None where a loop bound or an
    access cannot be followed."""
    with source.context:
        module = source.parsed()
        func = next((op for op in module.body.operations if op.operation.name == "func.func"
                     and op.attributes["sym_name"].value == name), None)
        if func is None:
            return None
        block = func.regions[0].blocks[0]
        counter = _Counter(block, params)
        if not counter.walk(block):
            return None
    return counter.instances
