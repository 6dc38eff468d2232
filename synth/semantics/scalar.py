"""Scalar semantics, one function per operation, in one table for each dialect:
`ARITH_MATH` (arith and math) and `STABLEHLO` (stablehlo's elementwise ops). Both sides of
an equivalence proof use them: the symbolic executor of the affine original
(synth.semantics.affine_scalar) takes ARITH_MATH, the interpreter of raised programs
(synth.semantics.interpreter) both, for stablehlo ops and for the arith / math bodies of
`linalg.generic`. `cmpf(predicate)` and `cmpi(predicate, width)` give the comparisons.

Values are exact. Python bool (i1) and int (index and integer types) where a value is
known while translating (index math, loop counters); z3 terms otherwise: Real for every
float type (real arithmetic, no rounding; f32 <-> f64 casts are the identity), Int for
integer types, Bool for i1. i32, i64 and index are mathematical integers (no wrap-around);
i8 and i16 (C's char and short) are exact: a value of the type is its two's complement
reading, `int_cast` gives arith.extsi (the value), extui (`a mod 2**w`) and trunci to
them (the low bits, read as two's complement), so C's promotions and its conversions
back are what the machine does. Division by zero:
integers raise ZeroDivisionError when concrete, z3's division is total but unspecified
(see synth.semantics.z3sem). The infinities POS_INF / NEG_INF are sentinels for the
identities of max / min reductions: maximum, minimum, compare and select understand them,
any other operation raises Unsupported, as does anything else outside the model (bitwise
operations on symbolic integers wider than i1, signed order of symbolic i1 values).
Each executor turns Unsupported into an InputError at the op's location. Conversions
between float types are the identity (reals): rounding to f32 is left to the execution
tests; float to integer (fptosi / fptoui) truncates the real toward zero where it fits,
and gives what x86-64 gives elsewhere (fp_to_int).
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable

import z3

from synth.grammar.unary_math import UNARY_MATH
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


_BV = 64  # bitwise ops on symbolic integers: two's complement at 64 bits, exact for every
# value of i64 and narrower (sign extension commutes with and / or / xor)


def _bitwise(py: Callable, bv: Callable, sym: Callable) -> Callable:
    """and / or / xor: `py` on Python ints, `sym` on i1 terms, `bv` on bit-vectors of
    symbolic integers (z3's Int2BV / BV2Int, read back as two's complement)."""
    concrete = logic(py, sym)

    def fn(a, b):
        if all(isinstance(x, int) for x in (a, b)) or all(isinstance(x, bool) or z3.is_bool(x) for x in (a, b)):
            return concrete(a, b)
        if not all(isinstance(x, int) or (isinstance(x, z3.ArithRef) and x.is_int()) for x in (a, b)):
            raise Unsupported("bitwise operations on booleans and integers together are not supported")
        va, vb = (z3.Int2BV(z3.IntVal(x) if isinstance(x, int) else x, _BV) for x in (a, b))
        r = z3.BV2Int(bv(va, vb))
        return z3.If(r >= 2 ** (_BV - 1), r - 2 ** _BV, r)
    return fn


def _shift_amount(k) -> int:
    v = _int_value(k)
    if v is None:
        raise Unsupported("a shift by a symbolic amount is not modelled")
    if v < 0:
        raise Unsupported(f"a shift by {v}")
    return v


def int_remainder(a, b):
    """stablehlo.remainder of integers (C's %); on floats (fmod) it is not modelled."""
    if any(isinstance(x, z3.ArithRef) and not x.is_int() for x in (a, b)):
        raise Unsupported("the remainder of floats is not modelled")
    return support.trunc_rem(a, b)


def shift_left(a, k):
    """arith.shli / stablehlo.shift_left: a * 2**k (mathematical integers); by a
    symbolic amount, the uninterpreted support.SHL."""
    if _int_value(k) is None:
        return support.SHL(a, k)
    return a * (1 << _shift_amount(k))


def shift_right_arithmetic(a, k):
    """arith.shrsi / stablehlo.shift_right_arithmetic: floor(a / 2**k); by a symbolic
    amount, the uninterpreted support.SHRS."""
    if _int_value(k) is None:
        return support.SHRS(z3.IntVal(a) if isinstance(a, int) else a, k)
    n = 1 << _shift_amount(k)
    v = _int_value(a)
    return v // n if v is not None else a / n  # z3's Int division floors for a positive divisor


def bit_and(a, b):
    """`and`; with a low-bit mask `2**k - 1` on a symbolic integer it is `a mod 2**k` (the
    zero extension stablehlo writes as convert + and)."""
    for x, m in ((a, b), (b, a)):
        v = _int_value(m)
        if v is not None and v > 0 and (v & (v + 1)) == 0 and isinstance(x, z3.ArithRef) \
                and x.is_int() and not z3.is_int_value(x):
            return x % (v + 1)
    return _bitwise(operator.and_, operator.and_, z3.And)(a, b)


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


def uitofp_from(width: int) -> Callable:
    """arith.uitofp of a `width`-bit integer: its unsigned reading (extui_from) as a real."""
    extui = extui_from(width)
    return lambda a: int_to_float(a, 1) if isinstance(a, bool) or z3.is_bool(a) else int_to_float(extui(a))


def trunc(a):
    """A real truncated toward zero (an integer term)."""
    if isinstance(a, float):
        return math.trunc(a)
    if isinstance(a, int) or z3.is_int(a):
        return a
    return z3.If(a >= 0, z3.ToInt(a), -z3.ToInt(-a))


def fp_to_int(width: int) -> Callable:
    """arith.fptosi / fptoui to `width` bits (C's conversion of a float to an integer): the
    real truncated toward zero where that fits i32 (i64 for width 64), elsewhere what
    x86-64 gives, the type's minimum; char and short go through i32, then wrap (the
    grammar's convert, synth.grammar.families.ConvertFamily, means the same)."""
    low = -(1 << (63 if width == 64 else 31))
    narrow = trunci_to(width)

    def convert(a):
        if isinstance(a, float):
            return narrow(math.trunc(a) if low <= a < -low else low)
        return narrow(z3.If(z3.And(a >= low, a < -low), trunc(a), z3.IntVal(low)))
    return convert


def saturated(width: int) -> Callable:
    """stablehlo.convert of a float to a `width`-bit integer on XLA: truncated toward
    zero, clamped to the type's range."""
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    return lambda a: z3.If(a < low, z3.IntVal(low), z3.If(a >= high, z3.IntVal(high), trunc(a)))


def extsi(a):
    if isinstance(a, bool):
        return -1 if a else 0
    if z3.is_bool(a):
        return z3.If(a, z3.IntVal(-1), z3.IntVal(0))
    return a


# the widest integer type whose arithmetic is modelled exactly (wrap-around included); wider
# ones (i32, i64, index) are mathematical integers (module docstring)
NARROW_WIDTH = 16


def _int_value(x) -> int | None:
    """A concrete integer (Python int or z3 numeral) as an int, else None."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    if isinstance(x, z3.ArithRef) and z3.is_int_value(x):
        return x.as_long()
    return None


def extui_from(width: int) -> Callable:
    """arith.extui of a `width`-bit integer: its unsigned reading, `a mod 2**width` (z3's
    mod is non-negative): exact for every value of the type read as two's complement, and
    for an i32 / i64 computed past its range, whose machine value is the same mod 2**width."""
    def extui(a):
        if isinstance(a, bool):
            return int(a)
        if z3.is_bool(a):
            return z3.If(a, z3.IntVal(1), z3.IntVal(0))
        v = _int_value(a)
        if v is not None:
            return v % (1 << width)
        return a % (1 << width)  # exact for a wider type too: its machine value is a mod 2**width
    return extui


def wrap(a, width: int):
    """An integer kept to its low `width` bits, read as two's complement (arith.trunci to
    i`width`, stablehlo.convert to a narrower integer)."""
    half = 1 << (width - 1)
    v = _int_value(a)
    if v is not None:
        return (v + half) % (2 * half) - half
    return (a + half) % (2 * half) - half


def trunci_to(width: int) -> Callable:
    """arith.trunci to `width` bits: wraps for char / short (<= NARROW_WIDTH); to i1 or a
    type of 32 bits or more the value is kept (integers are mathematical there)."""
    if width == 1 or width > NARROW_WIDTH:
        return _same
    return lambda a: a if isinstance(a, bool) or z3.is_bool(a) else wrap(a, width)


def int_cast(name: str, src_width: int, dst_width: int) -> Callable:
    """The scalar function of arith.extsi / extui / trunci from `src_width` to `dst_width`
    bits, or of a logical right shift (arith.shrui, stablehlo.shift_right_logical) of
    `src_width`-bit integers: the unsigned reading (`a mod 2**w`, exact) shifted."""
    if name == "arith.extsi":
        return _finite_only(name, extsi)
    if name == "arith.extui":
        return _finite_only(name, extui_from(src_width))
    if name == "arith.trunci":
        return _finite_only(name, trunci_to(dst_width))
    if name == "arith.uitofp":
        return _finite_only(name, uitofp_from(src_width))
    if name == "arith.fptoui" and dst_width >= 32:
        # C's (unsigned) of a float in [2**31, 2**32) is defined and is not fptosi's value:
        # no model that a signed conversion could be proven equal to
        raise Unsupported(f"{name} to i{dst_width} (an unsigned conversion of a float) is not modelled")
    if name in ("arith.fptosi", "arith.fptoui"):
        return _finite_only(name, fp_to_int(dst_width))
    if name in ("arith.shrui", "stablehlo.shift_right_logical"):  # the unsigned reading, shifted
        extui = extui_from(src_width)
        return _finite_only(name, lambda a, k: shift_right_arithmetic(extui(a), k))
    raise ValueError(f"{name} is not an integer cast")


# the ops whose meaning depends on the operands' width (int_cast; a float's width is its
# type's: type_width)
INT_CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "arith.uitofp", "arith.fptosi", "arith.fptoui",
             "arith.shrui", "stablehlo.shift_right_logical")


def type_width(dtype: str) -> int:
    """The width in bits of an element type named the MLIR way (index: 64)."""
    if dtype == "index":
        return 64
    digits = re.sub(r"^[a-z]+", "", dtype)
    if not digits.isdigit():  # f8E4M3FN, vectors ...: no width the proofs model
        raise Unsupported(f"element type {dtype} is not modelled")
    return int(digits)


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
    "abs": absolute, "sqrt": z3sem.sqrt, "rsqrt": rsqrt, "exp": z3sem.exp, "log": z3sem.log, "pow": support.power,
    "trunc_div": support.trunc_div, "trunc_rem": support.trunc_rem,
    "floor_div": support.floor_div, "ceil_div": support.ceil_div,
    "and": bit_and, "or": _bitwise(operator.or_, operator.or_, z3.Or),
    "xor": _bitwise(operator.xor, operator.xor, z3.Xor),
    "shl": shift_left, "shrs": shift_right_arithmetic, "int_rem": int_remainder,
    "not": logic(lambda a: (not a) if isinstance(a, bool) else ~a, z3.Not),
    "sitofp": sitofp,
    **{f.name: z3sem.unary(f.name) for f in UNARY_MATH},
}
_ANY = {"max": maximum, "min": minimum, "select": select, "clamp": clamp, "same": _same}  # infinities too


def _table(names: dict[str, str]) -> dict[str, Callable]:
    return {op: _ANY[f] if f in _ANY else _finite_only(op, _EXACT[f]) for op, f in names.items()}


ARITH_MATH: dict[str, Callable] = _table({
    "arith.addf": "add", "arith.subf": "sub", "arith.mulf": "mul", "arith.divf": "div",
    "arith.negf": "neg",
    "arith.maximumf": "max", "arith.maxnumf": "max", "arith.minimumf": "min", "arith.minnumf": "min",
    "arith.extf": "same", "arith.truncf": "same",
    "arith.sitofp": "sitofp",
    "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul", "arith.divsi": "trunc_div",
    "arith.remsi": "trunc_rem", "arith.floordivsi": "floor_div", "arith.ceildivsi": "ceil_div",
    "arith.maxsi": "max", "arith.minsi": "min",
    "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor",
    "arith.shli": "shl", "arith.shrsi": "shrs",
    "arith.select": "select",
    "arith.index_cast": "same", "arith.index_castui": "same",
    # arith.extsi / extui / trunci / uitofp / fptosi / fptoui: int_cast (their meaning
    # depends on the widths)
    "math.sqrt": "sqrt", "math.rsqrt": "rsqrt", "math.exp": "exp", "math.log": "log", "math.absf": "abs",
    "math.absi": "abs", "math.powf": "pow",
    **{f.math_op: f.name for f in UNARY_MATH},
})

STABLEHLO: dict[str, Callable] = _table({
    "stablehlo.add": "add", "stablehlo.subtract": "sub", "stablehlo.multiply": "mul",
    "stablehlo.divide": "div", "stablehlo.negate": "neg", "stablehlo.abs": "abs",
    "stablehlo.maximum": "max", "stablehlo.minimum": "min", "stablehlo.clamp": "clamp",
    "stablehlo.sqrt": "sqrt", "stablehlo.rsqrt": "rsqrt", "stablehlo.exponential": "exp", "stablehlo.log": "log",
    "stablehlo.power": "pow",
    "stablehlo.and": "and", "stablehlo.or": "or", "stablehlo.xor": "xor", "stablehlo.not": "not",
    "stablehlo.shift_left": "shl", "stablehlo.shift_right_arithmetic": "shrs",
    "stablehlo.remainder": "int_rem",
    "stablehlo.select": "select",
    **{f.stablehlo_op: f.name for f in UNARY_MATH},
})
