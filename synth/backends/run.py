"""Running a raised function on NumPy inputs: stablehlo on XLA CPU (as @main), linalg on
tensors through the ExecutionEngine worker."""

from __future__ import annotations

import numpy as np

from synth.errors import ExecutionError
from synth.execution import FUSED_TENSOR_PIPELINE, run_tensor_function


def run_raised(dialect: str, text: str, fname: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if dialect == "stablehlo":
        from synth.backends.xla import run_stablehlo

        return run_stablehlo(text.replace(f"func.func @{fname}(", "func.func @main(", 1), inputs)
    key = hash(text)
    if key not in _FUSION_CRASHES:
        try:  # elementwise chains fused; where MLIR crashes on that, the plain pipeline
            return run_tensor_function(text, fname, inputs, pipeline=FUSED_TENSOR_PIPELINE)
        except ExecutionError as e:
            if "crashed" not in str(e):
                raise
            _FUSION_CRASHES.add(key)
    return run_tensor_function(text, fname, inputs)


_FUSION_CRASHES: set[int] = set()  # texts on which the fused pipeline crashed MLIR
