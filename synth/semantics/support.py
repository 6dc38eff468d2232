"""Z3 encodings the affine symbolic executor needs beyond `synth.semantics.z3sem`.

Kept apart from z3sem (owned by the grammar) so both can change independently; anything
the raised side also needs should move there. What is here:

- `POW` / `power`: math.powf. A numeral exponent 2 gives `x * x`; any other exponent the
  uninterpreted `pow(x, y)` (declared once, by name and sorts, so a declaration of the same
  name elsewhere is the same function).
- Integer division and comparison on Python ints *or* z3 Int terms (mathematical
  integers, no wrap-around): `floor_div`, `ceil_div`, `trunc_div`, `trunc_rem` (arith's
  floordivsi / ceildivsi / divsi / remsi) and `unsigned_compare` (cmpi ult/ule/ugt/uge:
  exact for values that fit the bit width, read as two's complement). Concrete operands
  give Python ints (ZeroDivisionError on a zero divisor); z3 division by zero is
  unspecified, as z3sem documents for reals.
- `evaluate`: closed-form evaluation of z3 terms at a point, in Python floats / ints, with
  memoisation over the shared term DAG (symbolic executions of loop nests share
  subterms heavily: a tree walk is exponential). Floats are evaluated in the term's
  operation order, which is the program's, so results match compiled f64 code closely.
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction
from functools import reduce

import z3

from synth.grammar.unary_math import UNARY_MATH
from synth.semantics import z3sem

POW = z3.Function("pow", z3.RealSort(), z3.RealSort(), z3.RealSort())


# shifts by a symbolic amount (a kernel's `x >> shift`): uninterpreted, so that two programs
# shifting the same terms by the same amount are equal (congruence), which is all an
# equivalence proof between them needs
SHRS = z3.Function("shrs", z3.IntSort(), z3.IntSort(), z3.IntSort())
SHL = z3.Function("shl", z3.IntSort(), z3.IntSort(), z3.IntSort())


def power(base, exponent):
    """math.powf over the reals: x*x for the numeral exponent 2, else uninterpreted POW."""
    if z3.is_rational_value(exponent) and exponent.as_fraction() == 2:
        return base * base
    if isinstance(exponent, (int, float)) and exponent == 2:
        return base * base
    return POW(base, exponent)


# integers -------------------------------------------------------------------------------


def _concrete(*values) -> bool:
    return all(isinstance(v, int) for v in values)  # bool is an int too


def floor_div(a, b):
    if _concrete(a, b):
        return a // b
    # z3's integer division is Euclidean: floor for a positive divisor
    return z3.If(b >= 0, a / b, (-a) / (-b))


def ceil_div(a, b):
    if _concrete(a, b):
        return -((-a) // b)
    return -floor_div(-a, b)


def trunc_div(a, b):
    """Division rounding toward zero (arith.divsi)."""
    if _concrete(a, b):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) or a == 0 else -q
    return z3.If((a >= 0) == (b > 0), floor_div(a, b), ceil_div(a, b))


def trunc_rem(a, b):
    """Remainder with the sign of the dividend (arith.remsi)."""
    return a - b * trunc_div(a, b)


_SIGNED = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}


def unsigned_compare(kind: str, a, b, width: int):
    """`a <kind> b` on the unsigned reading of `width`-bit two's complement integers."""
    cmp = _SIGNED[kind]
    if _concrete(a, b):
        mask = (1 << width) - 1
        return cmp(int(a) & mask, int(b) & mask)
    # same sign: the signed order; different signs: the negative one is the larger
    a_larger = a < 0
    mixed = {"lt": z3.Not(a_larger), "le": z3.Not(a_larger), "gt": a_larger, "ge": a_larger}[kind]
    return z3.If((a >= 0) == (b >= 0), cmp(a, b), mixed)


# evaluation at a point ----------------------------------------------------------------

_UNINTERPRETED = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log, "pow": math.pow,
                  **{f.name: f.python for f in UNARY_MATH},
                  "shrs": lambda a, k: int(a) >> int(k), "shl": lambda a, k: int(a) << int(k)}


def _euclid_div(a: int, b: int) -> int:
    return a // b if b > 0 else -(a // -b)


def _fold(fn):
    return lambda args: reduce(fn, args)


_OPS = {
    z3.Z3_OP_ADD: _fold(operator.add),
    z3.Z3_OP_SUB: _fold(operator.sub),
    z3.Z3_OP_MUL: _fold(operator.mul),
    z3.Z3_OP_DIV: lambda a: a[0] / a[1],
    z3.Z3_OP_IDIV: lambda a: _euclid_div(a[0], a[1]),
    z3.Z3_OP_MOD: lambda a: a[0] - a[1] * _euclid_div(a[0], a[1]),
    z3.Z3_OP_UMINUS: lambda a: -a[0],
    z3.Z3_OP_ITE: lambda a: a[1] if a[0] else a[2],
    z3.Z3_OP_LT: lambda a: a[0] < a[1],
    z3.Z3_OP_LE: lambda a: a[0] <= a[1],
    z3.Z3_OP_GT: lambda a: a[0] > a[1],
    z3.Z3_OP_GE: lambda a: a[0] >= a[1],
    z3.Z3_OP_EQ: lambda a: a[0] == a[1],
    z3.Z3_OP_DISTINCT: lambda a: len(set(a)) == len(a),
    z3.Z3_OP_NOT: lambda a: not a[0],
    z3.Z3_OP_AND: all,
    z3.Z3_OP_OR: any,
    z3.Z3_OP_XOR: _fold(operator.xor),
    z3.Z3_OP_IMPLIES: lambda a: (not a[0]) or a[1],
    z3.Z3_OP_TO_REAL: lambda a: float(a[0]),
    z3.Z3_OP_TO_INT: lambda a: math.floor(a[0]),
    z3.Z3_OP_POWER: lambda a: float(a[0]) ** float(a[1]),
    # bitwise ops of symbolic integers (synth.semantics.scalar): bit-vectors as
    # non-negative Python ints
    z3.Z3_OP_BAND: _fold(operator.and_),
    z3.Z3_OP_BOR: _fold(operator.or_),
    z3.Z3_OP_BXOR: _fold(operator.xor),
    z3.Z3_OP_BV2INT: lambda a: a[0],
}


def evaluate(terms, bindings: dict[int, object]) -> list:
    """Values of z3 `terms` (or plain Python numbers, passed through) at a point.

    `bindings` maps the AST id (`term.get_id()`) of every free constant to a Python value.
    Reals evaluate to floats, ints to ints, Bools to bools; `sqrt`, `exp` and `pow` by
    `math`. Raises KeyError naming an unbound constant."""
    memo: dict[int, object] = dict(bindings)
    out = []
    for term in terms:
        if not isinstance(term, z3.ExprRef):
            out.append(term)
            continue
        stack = [(term, False)]
        while stack:
            t, expanded = stack.pop()
            tid = t.get_id()
            if tid in memo:
                continue
            if not expanded:
                leaf = _leaf_value(t)
                if leaf is not None:
                    memo[tid] = leaf
                    continue
                if t.num_args() == 0:
                    raise KeyError(f"no value for the free constant {t}")
                stack.append((t, True))
                stack.extend((c, False) for c in t.children() if c.get_id() not in memo)
                continue
            args = [memo[c.get_id()] for c in t.children()]
            memo[tid] = _apply(t, args)
        out.append(memo[term.get_id()])
    return out


def _leaf_value(t: z3.ExprRef):
    if z3.is_true(t):
        return True
    if z3.is_false(t):
        return False
    if z3.is_int_value(t):
        return t.as_long()
    if z3.is_rational_value(t):
        return float(Fraction(t.numerator_as_long(), t.denominator_as_long()))
    return None


def _apply(t: z3.ExprRef, args: list):
    kind = t.decl().kind()
    if kind == z3.Z3_OP_UNINTERPRETED:
        fn = _UNINTERPRETED.get(t.decl().name())
        if fn is None:
            raise ValueError(f"cannot evaluate the uninterpreted function in {t}")
        return fn(*args) if t.decl().name() in ("shrs", "shl") else fn(*map(float, args))
    if kind == z3.Z3_OP_INT2BV:
        return int(args[0]) % (1 << t.decl().params()[0])
    fn = _OPS.get(kind)
    if fn is None:
        raise ValueError(f"cannot evaluate operator {t.decl().name()} in {t}")
    return fn(args)


def numeral_like(value, dtype: str) -> z3.ExprRef:
    """A Python scalar as the z3 numeral of an element type (z3 terms pass through)."""
    if isinstance(value, z3.ExprRef):
        return value
    return z3sem.numeral(value, dtype)
