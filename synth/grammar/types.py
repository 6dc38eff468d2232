"""Value types of the grammars: static tensor types, the shape-rule error, the search context.

Every value the search builds is a ranked tensor with a static shape; scalars are rank-0
tensors. Element types are named the MLIR way ("f64", "i1", ...). TensorType and the
element type tables are defined below the grammars (synth.analysis.tensor_type: a kernel's
argument types are tensor types too) and named here as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from synth.analysis.tensor_type import (  # noqa: F401  (the grammars' names for them)
    FLOAT_DTYPES, INT_DTYPES, NARROW_INT_DTYPES, NUMPY_DTYPES, TensorType)

NUMERIC_DTYPES = FLOAT_DTYPES + INT_DTYPES
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
