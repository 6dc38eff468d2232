"""Running a raised function on NumPy inputs: stablehlo on XLA CPU (as @main), linalg on
tensors through the ExecutionEngine worker."""

from __future__ import annotations

import numpy as np

from synth.execution import run_tensor_function


def run_raised(dialect: str, text: str, fname: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if dialect == "stablehlo":
        from synth.backends.xla import run_stablehlo

        return run_stablehlo(text.replace(f"func.func @{fname}(", "func.func @main(", 1), inputs)
    return run_tensor_function(text, fname, inputs)
