"""The type of a value every layer names: a ranked tensor of static shape (scalars are
rank-0 tensors), its element type named the MLIR way ("f64", "i1", ...). It sits in the
analysis layer (a kernel's argument types, synth.analysis.model) and the grammars
(synth.grammar.types) take it from here."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

NUMPY_DTYPES: dict[str, type] = {
    "f64": np.float64,
    "f32": np.float32,
    "i64": np.int64,
    "i32": np.int32,
    "i16": np.int16,
    "i8": np.int8,
    "i1": np.bool_,
}
FLOAT_DTYPES = ("f32", "f64")
INT_DTYPES = ("i32", "i64")
# C's char / short elements: stored and converted (synth.grammar.families.ConvertFamily),
# never computed on (C promotes them to int first; the grammar's arithmetic takes
# NUMERIC_DTYPES only, whose integers the proofs treat as mathematical)
NARROW_INT_DTYPES = ("i8", "i16")


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int, ...]
    dtype: str  # "f64" | "f32" | "i32" | "i64" | "i16" | "i8" | "i1"
    is_tensor = True  # beside synth.semantics.raised_values.ScalarType

    def __post_init__(self):
        if self.dtype not in NUMPY_DTYPES:
            raise ValueError(f"unsupported element type {self.dtype!r}")
        if not isinstance(self.shape, tuple) or not all(
            isinstance(d, int) and d >= 0 for d in self.shape
        ):
            raise ValueError(f"shape must be a tuple of non-negative ints, got {self.shape!r}")

    def mlir(self) -> str:
        """`tensor<3x4xf64>`; rank 0: `tensor<f64>`."""
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + self.dtype + ">"

    def __str__(self) -> str:
        return self.mlir()

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return math.prod(self.shape)

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(NUMPY_DTYPES[self.dtype])

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOAT_DTYPES

    @property
    def is_int(self) -> bool:
        return self.dtype in INT_DTYPES or self.dtype in NARROW_INT_DTYPES

    def with_shape(self, shape: tuple[int, ...]) -> TensorType:
        return TensorType(tuple(shape), self.dtype)

    def with_dtype(self, dtype: str) -> TensorType:
        return TensorType(self.shape, dtype)

    @staticmethod
    def of(array: np.ndarray) -> TensorType:
        """The type of a NumPy array (0-d arrays are rank-0 tensors)."""
        array = np.asarray(array)
        for name, dt in NUMPY_DTYPES.items():
            if array.dtype == np.dtype(dt):
                return TensorType(tuple(int(d) for d in array.shape), name)
        raise ValueError(f"no tensor element type for NumPy dtype {array.dtype}")
