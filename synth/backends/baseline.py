"""The baseline: the original affine function, lowered by MLIR to LLVM and JIT-ed at -O3.

It runs in synth's isolated ExecutionEngine worker (`synth.execution.run_function`), which
copies the inputs afresh before every call and times the call alone. The worker compiles
on the first call (cached by IR hash), so `compile_seconds` is known after it.
"""

from __future__ import annotations

import numpy as np

from synth.execution import run_function
from synth.backends.registry import Backend, Prepared
from synth.backends.timing import Timing, measure_batched

OPT_LEVEL = 3


class AffineBaseline(Backend):
    name = "affine-mlir-O3"
    target = None

    def prepare(self, module_text: str, func: str, outputs: list[int] | None = None) -> "AffinePrepared":
        """`outputs`: indices of the arguments the function writes (default: from synth's
        kernel analysis of `module_text`)."""
        if outputs is None:
            from synth.analysis.function import describe
            from synth.frontend.reader import SourceModule

            outputs = describe(SourceModule("<bench>", module_text), func).outputs
        return AffinePrepared(module_text, func, list(outputs))


class AffinePrepared(Prepared):
    backend = AffineBaseline.name

    def __init__(self, text: str, func: str, outputs: list[int]):
        self.text, self.function, self.outputs = text, func, outputs
        self.compile_seconds = None

    def _call(self, inputs: list, repeat: int) -> tuple[list[np.ndarray], list[float], list[float]]:
        """(outputs, each call's wall time, each call's CPU time in the worker)."""
        result = run_function(self.text, self.function, list(inputs), opt_level=OPT_LEVEL, repeat=repeat)
        if result.compile_seconds > 0.0 or self.compile_seconds is None:
            self.compile_seconds = result.compile_seconds
        return [result.outputs[i] for i in self.outputs] + list(result.results), result.seconds, result.cpu_seconds

    def run(self, inputs: list) -> list[np.ndarray]:
        """The arrays the function writes (`outputs` order), then what it returns, after one
        call on a copy of `inputs`."""
        return self._call(inputs, 1)[0]

    def time(self, inputs: list, warmup: int = 1, repeats: int = 5, min_total: float = 0.0) -> Timing:
        return measure_batched(lambda n: self._call(inputs, n)[1:], warmup, repeats, min_total)
