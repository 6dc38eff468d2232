"""Values of the raised-program interpreter: tensor and scalar types, constants as z3
numerals (the infinities of max / min reductions as synth.semantics.scalar's sentinels),
dot_general on object arrays, and the helpers that read MLIR attributes into NumPy
arrays. The scalar operations themselves are synth.semantics.scalar's."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import z3

from synth.grammar.types import TensorType

from synth.semantics import z3sem
from synth.semantics.scalar import (NARROW_WIDTH, NEG_INF, POS_INF, Unsupported as _Unsupported, add as _add,
                                    cmpf, cmpi, finite as _finite, int_cast, int_to_float, saturated, type_width,
                                    wrap)

# types -------------------------------------------------------------------------------------

FLOATS = ("f16", "bf16", "f32", "f64")
_TENSOR = re.compile(r"^tensor<(.*)>$")


@dataclass(frozen=True)
class ScalarType:
    """A value of the raised IR that is not a tensor (f64, i32, index, i1, ... in MLIR's
    spelling): scalar arguments, and the scalars inside linalg.generic bodies. Tensors
    are synth.grammar.types.TensorType, the search's own type."""

    dtype: str
    shape = None
    is_tensor = False

    def mlir(self) -> str:
        return self.dtype


ValueType = TensorType | ScalarType  # the type of one SSA value of a raised function


# a `?` dimension of a shape-generic raised function, where the reader allows it: an int
# (0) that prints as `?`; its value is what the op computes (synth.semantics.raised_parametric)
DYNAMIC_DIM = None


def dynamic_dim():
    global DYNAMIC_DIM
    if DYNAMIC_DIM is None:
        from synth.analysis.symbols import Size, SizeExpr

        DYNAMIC_DIM = Size(0, SizeExpr.symbol("?"), frozenset({"?"}))
    return DYNAMIC_DIM


def is_dynamic_dim(d) -> bool:
    return d is DYNAMIC_DIM and d is not None


def value_type(t, dynamic: bool = False) -> ValueType:
    """The type of an MLIR value (either binding), via its text; `dynamic`: a `?` dim is
    DYNAMIC_DIM (else unsupported)."""
    s = str(t)
    m = _TENSOR.match(s)
    if m is None:
        return ScalarType(s)
    parts = m.group(1).split("x")
    if dynamic and any(p == "?" for p in parts[:-1]):
        try:
            return TensorType(tuple(dynamic_dim() if p == "?" else int(p) for p in parts[:-1]), parts[-1])
        except ValueError:
            raise _Unsupported(f"element type of {s} is not supported") from None
    if any(not p.isdigit() for p in parts[:-1]):
        raise _Unsupported(f"dynamic or unsupported tensor type {s}")
    try:
        return TensorType(tuple(int(p) for p in parts[:-1]), parts[-1])
    except ValueError:
        raise _Unsupported(f"element type of {s} is not supported") from None


def z3_sort(dtype: str) -> z3.SortRef:
    """The z3 sort of an element type (Real for floats, Bool for i1, Int for integers and index)."""
    if dtype in FLOATS:
        return z3.RealSort()
    if dtype == "i1":
        return z3.BoolSort()
    if dtype == "index" or re.fullmatch(r"[su]?i\d+", dtype):
        return z3.IntSort()
    raise _Unsupported(f"element type {dtype} has no z3 sort")


# constants ----------------------------------------------------------------------------------


def numeral(value, dtype: str):
    """A constant as a z3 numeral of `dtype` (infinities as sentinels; NaN unsupported)."""
    if dtype == "i1":
        return z3.BoolVal(bool(value))
    if dtype in FLOATS:
        v = float(value)
        if math.isnan(v):
            raise _Unsupported("NaN constants have no real-number value")
        if math.isinf(v):
            return POS_INF if v > 0 else NEG_INF
        return z3sem.numeral(v, "f64")
    return z3.IntVal(int(value))


# arrays ------------------------------------------------------------------------------------


def map_elements(fn: Callable, shape: tuple[int, ...], *arrays) -> np.ndarray:
    """`fn` applied pointwise to `arrays` broadcast to `shape` (an object array)."""
    arrays = [np.broadcast_to(np.asarray(a, dtype=object), shape) for a in arrays]
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = fn(*(a[idx] for a in arrays))
    return out


def scalar_array(value) -> np.ndarray:
    """`value` as a rank-0 object array."""
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def dense_values(ir, attr, t: ValueType) -> np.ndarray:
    """The elements of a dense elements attribute as numerals of `t.dtype`."""
    dense = ir.DenseElementsAttr(attr)
    shape = t.shape if t.is_tensor else ()
    if dense.is_splat:
        value = numeral(attr_number(ir, dense.get_splat_value()), t.dtype)
        out = np.empty(shape, dtype=object)
        for idx in np.ndindex(*shape):
            out[idx] = value
        return out
    if t.dtype in FLOATS:
        raw = np.array(ir.DenseFPElementsAttr(attr))
    elif t.dtype == "i1":
        raise _Unsupported("non-splat i1 constants are not supported")
    else:
        raw = np.array(ir.DenseIntElementsAttr(attr))
    raw = raw.reshape(shape)
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = numeral(raw[idx], t.dtype)
    return out


def cast(cls, attr):
    """`cls(attr)`, or None when the attribute is of another kind (either binding)."""
    try:
        return cls(attr)
    except (ValueError, TypeError):
        return None


def attr_number(ir, attr):
    """The number of a bool, float or integer attribute."""
    for cls in (ir.BoolAttr, ir.FloatAttr, ir.IntegerAttr):
        a = cast(cls, attr)
        if a is not None:
            return a.value
    raise _Unsupported(f"constant {attr} is not a number")


def i64s(ir, attr) -> list[int]:
    """The integers of a dense i64 array, dense int elements or array attribute."""
    if (a := cast(ir.DenseI64ArrayAttr, attr)) is not None:
        return [int(x) for x in a]
    if (a := cast(ir.DenseIntElementsAttr, attr)) is not None:
        return [int(x) for x in np.array(a).reshape(-1)]
    if (a := cast(ir.ArrayAttr, attr)) is not None:
        return [int(ir.IntegerAttr(x).value) for x in a]
    raise _Unsupported(f"expected a list of integers, got {attr}")


def int_attr(ir, attr) -> int:
    """The value of an integer attribute."""
    return int(ir.IntegerAttr(attr).value)


def has(op, name: str) -> bool:
    """Whether `op` has the attribute `name`."""
    try:
        op.attributes[name]
        return True
    except KeyError:
        return False


def arith_compare(ir, op):
    """The scalar function of an arith.cmpf / arith.cmpi op (synth.semantics.scalar)."""
    pred = int_attr(ir, op.attributes["predicate"])
    if op.operation.name == "arith.cmpf":
        return cmpf(pred)
    dtype = value_type(op.operands[0].type).dtype
    return cmpi(pred, 64 if dtype == "index" else int(dtype.lstrip("sui")))


def _dtype_width(dtype: str) -> int:
    return type_width(dtype)


def arith_int_cast(op):
    """The scalar function of an arith.extsi / extui / trunci / uitofp op (synth.semantics.scalar)."""
    src, dst = (_dtype_width(value_type(v.type, dynamic=True).dtype) for v in (op.operands[0], op.results[0]))
    return int_cast(op.operation.name, src, dst)


def convert(src: str, dst: str):
    """The scalar function of stablehlo.convert from `src` to `dst` elements: between
    floats the identity (reals), an integer (i1: 0 / 1) as a real, a real truncated
    toward zero and clamped as XLA does (scalar.saturated), to i1 `!= 0`, between integers int_convert."""
    if dst in FLOATS:
        return (lambda a: a) if src in FLOATS else int_to_float
    if dst == "i1":  # from a float too: XLA's `x != 0`
        return lambda a: a != 0 if not z3.is_bool(a) else a
    if src in FLOATS:
        return saturated(_dtype_width(dst))
    return int_convert(src, dst)


def int_convert(src: str, dst: str):
    """stablehlo.convert between integer types (i1 excluded): sign extension, or the low
    bits of a narrower char / short type (synth.semantics.scalar.wrap)."""
    s, d = _dtype_width(src), _dtype_width(dst)
    if d < s and d <= NARROW_WIDTH:
        return lambda a: z3.If(a, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(a) else wrap(a, d)
    return lambda a: z3.If(a, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(a) else a


def dot_indices(a_rank: int, b_rank: int, lb, rb, lc, rc, idx, contract) -> tuple[list, list]:
    """The operand indices of dot_general's result element `idx` (batch dims, then the lhs
    free dims, then the rhs free dims) at contraction index `contract` (one per lc / rc)."""
    lf = [k for k in range(a_rank) if k not in lb and k not in lc]
    rf = [k for k in range(b_rank) if k not in rb and k not in rc]
    bi, li, ri = idx[:len(lb)], idx[len(lb):len(lb) + len(lf)], idx[len(lb) + len(lf):]
    ai, bj = [None] * a_rank, [None] * b_rank
    for dims, values, out in ((lb, bi, ai), (rb, bi, bj), (lf, li, ai), (rf, ri, bj),
                              (lc, contract, ai), (rc, contract, bj)):
        for k, v in zip(dims, values):
            out[k] = v
    return ai, bj


def dot_general(a: np.ndarray, b: np.ndarray, lb, rb, lc, rc, add=_add) -> np.ndarray:
    """StableHLO dot_general on object arrays: result dims are the batch dims, then the
    lhs free dims, then the rhs free dims; products summed left to right."""
    lf = [k for k in range(a.ndim) if k not in lb and k not in lc]
    rf = [k for k in range(b.ndim) if k not in rb and k not in rc]
    out_shape = tuple(a.shape[k] for k in lb) + tuple(a.shape[k] for k in lf) + tuple(b.shape[k] for k in rf)
    contract_shape = tuple(a.shape[k] for k in lc)
    out = np.empty(out_shape, dtype=object)
    for idx in np.ndindex(*out_shape):
        acc = None
        for c in np.ndindex(*contract_shape):
            ai, bj = dot_indices(a.ndim, b.ndim, lb, rb, lc, rc, idx, c)
            x, y = a[tuple(ai)], b[tuple(bj)]
            _finite("dot_general", x, y)
            term = x * y
            acc = term if acc is None else add(acc, term)
        out[idx] = acc  # None for an empty contraction: the caller fills in a typed zero
    return out


