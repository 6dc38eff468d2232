"""Running a raised function on NumPy inputs to check what it computes: the reference
lowering (synth.validation.reference: stablehlo on XLA CPU, linalg through upstream MLIR
passes to loops), never a backend's performance pipeline. Timing a backend goes through
synth.backends.registry."""

from __future__ import annotations

import numpy as np

from synth.validation.reference import run_reference


def run_raised(dialect: str, text: str, fname: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return run_reference(dialect, text, fname, inputs)
