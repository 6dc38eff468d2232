"""Value types of the grammars: static tensor types, the shape-rule error, the search context.

Every value the search builds is a ranked tensor with a static shape; scalars are rank-0
tensors. Element types are named the MLIR way ("f64", "i1", ...).
"""

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
NUMERIC_DTYPES = FLOAT_DTYPES + INT_DTYPES
# C's char / short elements: stored and converted (synth.grammar.families.ConvertFamily),
# never computed on (C promotes them to int first; the grammar's arithmetic takes
# NUMERIC_DTYPES only, whose integers the proofs treat as mathematical)
NARROW_INT_DTYPES = ("i8", "i16")
STORED_DTYPES = NUMERIC_DTYPES + NARROW_INT_DTYPES  # what the ops that only move values take


def computed_dtypes(dtypes) -> tuple[str, ...]:
    """The element types of a search context, given those stored: char / short
    (NARROW_INT_DTYPES) are computed on as i32, after C's integer promotions (the ops that
    make values from nothing take NUMERIC_DTYPES only; conversions take all)."""
    dtypes = set(dtypes)
    if dtypes & set(NARROW_INT_DTYPES):
        dtypes |= {"i32"}
    return tuple(sorted(dtypes))


def full_range(dtype: str) -> tuple[int, int]:
    """[low, high) of every value of an integer element type (random inputs of char /
    short arrays cover it: the unsigned reading of an i8 reaches 255 only so)."""
    info = np.iinfo(NUMPY_DTYPES[dtype])
    return int(info.min), int(info.max) + 1


def int_width(dtype: str) -> int:
    """The width in bits of an integer element type ("i8" -> 8, "i1" -> 1)."""
    return int(dtype[1:])


def float_width(dtype: str) -> int:
    """The width in bits of a float element type ("f32" -> 32)."""
    return int(dtype[1:])


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


class ShapeError(Exception):
    """A shape rule rejected its operands; the message names the op, the attribute and the shapes."""


@dataclass(frozen=True)
class SearchContext:
    """What attribute domains may draw on besides the operand types.

    shapes: shapes of interest (the problem's inputs and outputs); targets for broadcast,
        reshape, iota and fill.
    constants: scalar values for `constant` / `fill`.
    dtypes: element types for ops that create values from nothing (constant, iota, fill).
    """

    shapes: frozenset[tuple[int, ...]]
    constants: tuple[float, ...] = (0.0, 1.0)
    dtypes: tuple[str, ...] = ("f64",)

    @staticmethod
    def for_types(types, constants: tuple[float, ...] = (0.0, 1.0)) -> SearchContext:
        """A context whose shapes and dtypes are those of `types` (TensorTypes)."""
        types = list(types)
        dtypes = computed_dtypes({t.dtype for t in types if t.dtype != "i1"}) or ("f64",)
        return SearchContext(frozenset(t.shape for t in types), tuple(constants), dtypes)
