"""Argument lists for running a kernel: size parameters, scalars and arrays."""

from __future__ import annotations

import numpy as np

from .execution import NUMPY_DTYPES
from .kernel import KernelFunction


def random_array(rng: np.random.Generator, shape: tuple[int, ...], elem: str) -> np.ndarray:
    if elem.startswith("f"):
        return rng.uniform(-1.0, 1.0, size=shape).astype(NUMPY_DTYPES[elem])
    return rng.integers(-50, 50, size=shape).astype(NUMPY_DTYPES[elem])


def random_scalar(rng: np.random.Generator, elem: str):
    if elem.startswith("f"):
        return float(rng.uniform(0.5, 2.0))
    return int(rng.integers(1, 10))


def kernel_arguments(kf: KernelFunction, sizes: dict[int, int], rng: np.random.Generator) -> list:
    """Arguments in `synth.execution.run_function` form: `(type, value)` for scalars (size
    parameters take their values from `sizes`), fresh random arrays for memrefs."""
    args: list = []
    for a in kf.arguments:
        if a.is_array:
            args.append(random_array(rng, a.shape, a.type))
        elif a.index in sizes:
            args.append((a.type, sizes[a.index]))
        else:
            args.append((a.type, random_scalar(rng, a.type)))
    return args
