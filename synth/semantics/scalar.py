"""Scalar semantics, one function per operation, in one table for each dialect:
`ARITH_MATH` (arith and math) and `STABLEHLO` (stablehlo's elementwise ops). Both sides of
an equivalence proof use them: the symbolic executor of the affine original
(synth.semantics.affine_scalar) takes ARITH_MATH, the interpreter of raised programs
(synth.semantics.interpreter) both, for stablehlo ops and for the arith / math bodies of
`linalg.generic`. `cmpf(predicate)` and `cmpi(predicate, width)` give the comparisons.

Values are exact. Python bool (i1) and int (index and integer types) where a value is
known while translating (index math, loop counters); z3 terms otherwise: Real for every
float type (real arithmetic, no rounding; f32 <-> f64 casts are the identity), Int for
integer types (mathematical integers, no wrap-around), Bool for i1. Division by zero:
integers raise ZeroDivisionError when concrete, z3's division is total but unspecified
(see synth.semantics.z3sem). The infinities POS_INF / NEG_INF are sentinels for the
identities of max / min reductions: maximum, minimum, compare and select understand them,
any other operation raises Unsupported, as does anything else outside the model (bitwise
operations on symbolic integers wider than i1, signed order of symbolic i1 values,
uitofp of a symbolic integer). Each executor turns Unsupported into an InputError at the
op's location.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import z3

from synth.semantics import support, z3sem


class Unsupported(Exception):
    """An operation or value outside what the semantics models."""


# infinities ---------------------------------------------------------------------------------


class _Infinity:
    """+inf / -inf: only as identities of max / min (see the module docstring)."""

    __slots__ = ("sign",)

    def __init__(self, sign: int):
        self.sign = sign

    def __repr__(self) -> str:
        return "+inf" if self.sign > 0 else "-inf"


POS_INF, NEG_INF = _Infinity(1), _Infinity(-1)


def is_inf(x) -> bool:
    return isinstance(x, _Infinity)


def finite(name: str, *xs) -> None:
    if any(isinstance(x, _Infinity) for x in xs):
        raise Unsupported(f"an infinite value reaches '{name}'; infinities are supported only "
                          f"as identities of max / min reductions")


def _finite_only(name: str, fn: Callable) -> Callable:
    def call(*xs):
        finite(name, *xs)
        return fn(*xs)
    return call


# arithmetic ---------------------------------------------------------------------------------


def is_zero(x) -> bool:
    """A literal zero (Python int or z3 numeral): `add` drops it to keep terms small."""
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return x == 0
    if isinstance(x, z3.ArithRef) and z3.is_int_value(x):
        return x.as_long() == 0
    return isinstance(x, z3.ArithRef) and z3.is_rational_value(x) and x.as_fraction() == 0


def add(a, b):
    if is_zero(a):
        return b
    if is_zero(b):
        return a
    return a + b


def absolute(a):
    return abs(a) if isinstance(a, int) else z3.If(a >= 0, a, -a)


def rsqrt(a):
    return z3sem.div(z3.RealVal(1), z3sem.sqrt(a))


def maximum(a, b):
    if is_inf(a):
        return b if a.sign < 0 else a
    if is_inf(b):
        return a if b.sign < 0 else b
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return z3sem.maximum(a, b)


def minimum(a, b):
    if is_inf(a):
        return b if a.sign > 0 else a
    if is_inf(b):
        return a if b.sign > 0 else b
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return z3sem.minimum(a, b)


def clamp(lo, x, hi):
    return minimum(maximum(x, lo), hi)


_PY_COMPARE = {"GT": operator.gt, "GE": operator.ge, "LT": operator.lt, "LE": operator.le,
               "EQ": operator.eq, "NE": operator.ne}


def compare(direction: str, a, b):
    """`a <direction> b` (GT GE LT LE EQ NE): a Python bool for Python numbers."""
    if is_inf(a) or is_inf(b):
        # -inf < every real < +inf; both infinite: compare the signs
        rank_a = a.sign if is_inf(a) else 0
        rank_b = b.sign if is_inf(b) else 0
        return z3.BoolVal(_PY_COMPARE[direction](rank_a, rank_b))
    if isinstance(a, int) and isinstance(b, int):
        return _PY_COMPARE[direction](a, b)
    return z3sem.COMPARE[direction](a, b)


def select(p, a, b):
    if isinstance(p, bool):
        return a if p else b
    if z3.is_true(p):
        return a
    if z3.is_false(p):
        return b
    if a is b:
        return a
    finite("select", a, b)
    return z3sem.select(p, a, b)


def logic(py: Callable, sym: Callable) -> Callable:
    """A bitwise op: `py` on Python ints / bools, `sym` on i1 terms."""
    def fn(*xs):
        if all(isinstance(x, int) for x in xs):  # bool is an int too
            return py(*xs)
        if all(isinstance(x, bool) or z3.is_bool(x) for x in xs):
            return sym(*xs)
        raise Unsupported("bitwise operations on symbolic integers wider than i1 are not supported")
    return fn


# conversions --------------------------------------------------------------------------------


def int_to_float(a, true_value: int = 1):
    """An integer (or i1, whose true reads as `true_value`) as a real."""
    if isinstance(a, bool):
        return z3sem.numeral(true_value if a else 0, "f64")
    if isinstance(a, int):
        return z3sem.numeral(a, "f64")
    if z3.is_bool(a):
        return z3.If(a, z3.RealVal(true_value), z3.RealVal(0))
    if z3.is_int(a):
        return z3.ToReal(a)
    return a


def sitofp(a):
    return int_to_float(a, -1)  # i1 true is -1 as a signed integer


def uitofp(a):
    if isinstance(a, z3.ArithRef) and z3.is_int(a):
        raise Unsupported("uitofp of a symbolic integer is not modelled (sign unknown)")
    return int_to_float(a, 1)


def extsi(a):
    if isinstance(a, bool):
        return -1 if a else 0
    if z3.is_bool(a):
        return z3.If(a, z3.IntVal(-1), z3.IntVal(0))
    return a


def extui(a):
    if isinstance(a, bool):
        return int(a)
    if z3.is_bool(a):
        return z3.If(a, z3.IntVal(1), z3.IntVal(0))
    if isinstance(a, int) and a >= 0:
        return a
    raise Unsupported("zero extension of a (possibly) negative integer is not modelled; "
                      "only i1 and non-negative concrete values are supported")


def _same(a):
    return a


# comparisons ----------------------------------------------------------------------------------

# arith.cmpf predicates in enum order. Reals have no NaN: ordered and unordered predicates
# coincide, "ord" is always true and "uno" always false.
_CMPF = (False, "EQ", "GT", "GE", "LT", "LE", "NE", True,
         "EQ", "GT", "GE", "LT", "LE", "NE", False, True)
_CMPI_SIGNED = ("EQ", "NE", "LT", "LE", "GT", "GE")


def cmpf(predicate: int) -> Callable:
    d = _CMPF[predicate]
    if isinstance(d, bool):
        return lambda a, b: z3.BoolVal(d)
    return lambda a, b: compare(d, a, b)


def cmpi(predicate: int, width: int) -> Callable:
    """arith.cmpi with `predicate` on `width`-bit integers (1 for i1, 64 for index)."""
    if predicate >= 6:
        kind = ("lt", "le", "gt", "ge")[predicate - 6]
        return lambda a, b: support.unsigned_compare(kind, a, b, width)
    d = _CMPI_SIGNED[predicate]
    if width != 1 or d in ("EQ", "NE"):
        return lambda a, b: compare(d, a, b)

    def i1_signed(a, b):  # true is -1
        if isinstance(a, bool) and isinstance(b, bool):
            return compare(d, -int(a), -int(b))
        raise Unsupported("signed order on symbolic i1 values is not supported")
    return i1_signed


# the tables ----------------------------------------------------------------------------------

_EXACT = {  # defined on finite values only
    "add": add, "sub": operator.sub, "mul": operator.mul, "div": z3sem.div, "neg": operator.neg,
    "abs": absolute, "sqrt": z3sem.sqrt, "rsqrt": rsqrt, "exp": z3sem.exp, "pow": support.power,
    "trunc_div": support.trunc_div, "trunc_rem": support.trunc_rem,
    "floor_div": support.floor_div, "ceil_div": support.ceil_div,
    "and": logic(operator.and_, z3.And), "or": logic(operator.or_, z3.Or),
    "xor": logic(operator.xor, z3.Xor),
    "not": logic(lambda a: (not a) if isinstance(a, bool) else ~a, z3.Not),
    "sitofp": sitofp, "uitofp": uitofp, "extsi": extsi, "extui": extui,
}
_ANY = {"max": maximum, "min": minimum, "select": select, "clamp": clamp, "same": _same}  # infinities too


def _table(names: dict[str, str]) -> dict[str, Callable]:
    return {op: _ANY[f] if f in _ANY else _finite_only(op, _EXACT[f]) for op, f in names.items()}


ARITH_MATH: dict[str, Callable] = _table({
    "arith.addf": "add", "arith.subf": "sub", "arith.mulf": "mul", "arith.divf": "div",
    "arith.negf": "neg",
    "arith.maximumf": "max", "arith.maxnumf": "max", "arith.minimumf": "min", "arith.minnumf": "min",
    "arith.extf": "same", "arith.truncf": "same",
    "arith.sitofp": "sitofp", "arith.uitofp": "uitofp",
    "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul", "arith.divsi": "trunc_div",
    "arith.remsi": "trunc_rem", "arith.floordivsi": "floor_div", "arith.ceildivsi": "ceil_div",
    "arith.maxsi": "max", "arith.minsi": "min",
    "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor",
    "arith.select": "select",
    "arith.index_cast": "same", "arith.index_castui": "same", "arith.extsi": "extsi",
    "arith.trunci": "same",  # integers are mathematical: no wrap-around (module docstring)
    "arith.extui": "extui",
    "math.sqrt": "sqrt", "math.rsqrt": "rsqrt", "math.exp": "exp", "math.absf": "abs",
    "math.absi": "abs", "math.powf": "pow",
})

STABLEHLO: dict[str, Callable] = _table({
    "stablehlo.add": "add", "stablehlo.subtract": "sub", "stablehlo.multiply": "mul",
    "stablehlo.divide": "div", "stablehlo.negate": "neg", "stablehlo.abs": "abs",
    "stablehlo.maximum": "max", "stablehlo.minimum": "min", "stablehlo.clamp": "clamp",
    "stablehlo.sqrt": "sqrt", "stablehlo.rsqrt": "rsqrt", "stablehlo.exponential": "exp",
    "stablehlo.power": "pow",
    "stablehlo.and": "and", "stablehlo.or": "or", "stablehlo.xor": "xor", "stablehlo.not": "not",
    "stablehlo.select": "select",
})
