"""Running a raised function on NumPy inputs: stablehlo on XLA CPU (as @main), linalg on
tensors through the ExecutionEngine worker (elementwise chains fused; from LARGE_INPUTS
input elements on, through the MLIR CPU backend's tiled pipeline)."""

from __future__ import annotations

import numpy as np

from synth.errors import ExecutionError
from synth.execution import FUSED_TENSOR_PIPELINE, run_tensor_function


def run_raised(dialect: str, text: str, fname: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if dialect == "stablehlo":
        from synth.backends.xla import run_stablehlo

        return run_stablehlo(text.replace(f"func.func @{fname}(", "func.func @main(", 1), inputs)
    key = hash(text)
    if sum(np.size(a) for a in inputs) >= LARGE_INPUTS and key not in _TILED_FAILURES:
        # at sizes like PolyBench LARGE the plain loops of a contraction take tens of
        # seconds (correlation: 28 s): the MLIR CPU backend's tiled pipeline, which is
        # what synth bench times; where it fails, the pipelines below
        from synth.backends.mlir_cpu import tiled_pipeline
        try:
            return run_tensor_function(text, fname, inputs, pipeline=tiled_pipeline())
        except ExecutionError:
            _TILED_FAILURES.add(key)
    if key not in _FUSION_CRASHES:
        try:  # elementwise chains fused; where MLIR crashes on that or the fused IR does
            # not bufferize (a loop's yield no longer in place of its iter_arg), the plain one
            return run_tensor_function(text, fname, inputs, pipeline=FUSED_TENSOR_PIPELINE)
        except ExecutionError as e:
            if "crashed" not in str(e) and "MLIRError" not in str(e):
                raise
            _FUSION_CRASHES.add(key)
    return run_tensor_function(text, fname, inputs)


_FUSION_CRASHES: set[int] = set()  # texts on which the fused pipeline crashed or failed
_TILED_FAILURES: set[int] = set()  # texts the tiled pipeline did not compile or run
LARGE_INPUTS = 1 << 20  # input elements from which linalg runs through the tiled pipeline
