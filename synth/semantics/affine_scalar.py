"""The arith and math ops of the symbolic executor (synth.semantics.affine): one step
per op over the environment, z3 terms for data and Python ints for index math. Its
handlers are the table SCALAR_HANDLERS, which the executor merges with its own."""

from __future__ import annotations

import operator
from collections.abc import Callable

import z3
from mlir import ir

from synth.semantics import support as support
from synth.errors import InputError
from synth.semantics import z3sem
from synth.semantics.handlers import handles, table
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the executor that calls these handlers
    from synth.semantics.affine import _Compiler

Env = list  # slot -> value, one slot per SSA value of the function
Step = Callable[[Env], None]


class _RunError(Exception):
    """A semantic error found while running (located by the step that catches it)."""



def _located(fn: Callable, name: str, where: str) -> Callable:
    """`fn` with runtime errors (zero division, unsupported operand kinds) located at the op."""
    def call(*args):
        try:
            return fn(*args)
        except ZeroDivisionError:
            raise InputError(f"'{name}': integer division by zero", where) from None
        except (_RunError, z3.Z3Exception) as e:
            raise InputError(f"'{name}': {e}", where) from None
    return call


# arith and math -----------------------------------------------------------------------


@handles("arith.constant")
def _constant(c: _Compiler, op) -> Step:
    attr = op.attributes["value"]
    dtype = str(op.results[0].type)
    if isinstance(attr, ir.BoolAttr):
        value = attr.value
    elif isinstance(attr, ir.IntegerAttr):
        value = attr.value if dtype != "i1" else bool(attr.value)
    elif isinstance(attr, ir.FloatAttr):
        value = z3sem.numeral(attr.value, "f64")
    else:
        raise InputError(f"'arith.constant' of {attr} is not supported (scalars only)", c.where(op))
    r = c.define(op.results[0])

    def step(env: Env) -> None:
        env[r] = value
    return step


def _elementwise(c: _Compiler, op, fn: Callable) -> Step:
    fn = _located(fn, op.operation.name, c.where(op))
    args = [c.use(v) for v in op.operands]
    r = c.define(op.results[0])
    if len(args) == 1:
        (a,) = args

        def unary(env: Env) -> None:
            env[r] = fn(env[a])
        return unary
    if len(args) == 2:
        a, b = args

        def binary(env: Env) -> None:
            env[r] = fn(env[a], env[b])
        return binary

    def nary(env: Env) -> None:
        env[r] = fn(*(env[s] for s in args))
    return nary


def _int_or(py: Callable, sym: Callable) -> Callable:
    """`py` on Python ints, `sym` once a z3 term is involved."""
    return lambda a, b: py(a, b) if isinstance(a, int) and isinstance(b, int) else sym(a, b)


def _logic(py: Callable, sym: Callable) -> Callable:
    def fn(a, b):
        if isinstance(a, int) and isinstance(b, int):
            return py(a, b)
        if z3.is_bool(a) or z3.is_bool(b):
            return sym(a, b)
        raise _RunError("bitwise operations on symbolic integers wider than i1 are not supported")
    return fn


_ELEMENTWISE: dict[str, Callable] = {
    # floats: exact real arithmetic
    "arith.addf": operator.add,
    "arith.subf": operator.sub,
    "arith.mulf": operator.mul,
    "arith.divf": z3sem.div,
    "arith.negf": operator.neg,
    "arith.extf": lambda a: a,  # f32 <-> f64: rounding is not modelled
    "arith.truncf": lambda a: a,
    "arith.maximumf": z3sem.maximum,  # no NaN among the reals: all four agree
    "arith.maxnumf": z3sem.maximum,
    "arith.minimumf": z3sem.minimum,
    "arith.minnumf": z3sem.minimum,
    "math.sqrt": z3sem.sqrt,
    "math.absf": lambda a: z3.If(a >= 0, a, -a),
    "math.absi": lambda a: abs(a) if isinstance(a, int) else z3.If(a >= 0, a, -a),
    "math.exp": z3sem.exp,
    "math.powf": support.power,
    # integers and index: mathematical integers
    "arith.addi": operator.add,
    "arith.subi": operator.sub,
    "arith.muli": operator.mul,
    "arith.divsi": support.trunc_div,
    "arith.remsi": support.trunc_rem,
    "arith.floordivsi": support.floor_div,
    "arith.ceildivsi": support.ceil_div,
    "arith.maxsi": _int_or(max, z3sem.maximum),
    "arith.minsi": _int_or(min, z3sem.minimum),
    "arith.andi": _logic(operator.and_, lambda a, b: z3.And(a, b)),
    "arith.ori": _logic(operator.or_, lambda a, b: z3.Or(a, b)),
    "arith.xori": _logic(operator.xor, lambda a, b: z3.Xor(a, b)),
    "arith.select": lambda p, a, b: (a if p else b) if isinstance(p, bool) else z3sem.select(p, a, b),
    "arith.index_cast": lambda a: a,
    "arith.index_castui": lambda a: a,
    "arith.extsi": lambda a: a,
}


@handles(*_ELEMENTWISE)
def _elementwise_op(c: _Compiler, op) -> Step:
    return _elementwise(c, op, _ELEMENTWISE[op.operation.name])


@handles("arith.extui")
def _extui(c: _Compiler, op) -> Step:
    def extend(a):
        if isinstance(a, bool):
            return int(a)
        if z3.is_bool(a):
            return z3.If(a, 1, 0)
        if isinstance(a, int) and a >= 0:
            return a
        raise _RunError("zero extension of a (possibly) negative integer is not modelled; "
                        "only i1 and non-negative concrete values are supported")
    return _elementwise(c, op, extend)


@handles("arith.sitofp", "arith.uitofp")
def _int_to_float(c: _Compiler, op) -> Step:
    signed = op.operation.name == "arith.sitofp"
    one = -1 if signed else 1  # i1 true is -1 as a signed integer

    def convert(a):
        if isinstance(a, bool):
            return z3sem.numeral(one if a else 0, "f64")
        if isinstance(a, int):
            return z3sem.numeral(a, "f64")
        if z3.is_bool(a):
            return z3.If(a, z3.RealVal(one), z3.RealVal(0))
        if not signed:
            raise _RunError("uitofp of a symbolic integer is not modelled (sign unknown)")
        return z3.ToReal(a)
    return _elementwise(c, op, convert)


# cmpf: predicates in arith's enum order. Reals have no NaN, so ordered and unordered
# predicates coincide; "ord" is always true and "uno" always false.
_CMPF = [
    lambda a, b: z3.BoolVal(False), z3sem.COMPARE["EQ"], z3sem.COMPARE["GT"], z3sem.COMPARE["GE"],
    z3sem.COMPARE["LT"], z3sem.COMPARE["LE"], z3sem.COMPARE["NE"], lambda a, b: z3.BoolVal(True),
    z3sem.COMPARE["EQ"], z3sem.COMPARE["GT"], z3sem.COMPARE["GE"], z3sem.COMPARE["LT"],
    z3sem.COMPARE["LE"], z3sem.COMPARE["NE"], lambda a, b: z3.BoolVal(False),
    lambda a, b: z3.BoolVal(True),
]


@handles("arith.cmpf")
def _cmpf(c: _Compiler, op) -> Step:
    return _elementwise(c, op, _CMPF[op.attributes["predicate"].value])


def _width(t: ir.Type) -> int:
    return 64 if str(t) == "index" else ir.IntegerType(t).width


@handles("arith.cmpi")
def _cmpi(c: _Compiler, op) -> Step:
    pred = op.attributes["predicate"].value
    width = _width(op.operands[0].type)
    signed = [z3sem.COMPARE[k] for k in ("EQ", "NE", "LT", "LE", "GT", "GE")]
    if pred < 6:
        fn = signed[pred]
        if width == 1 and pred >= 2:  # i1 as signed: true is -1
            fn = _i1_signed(fn)
    else:
        kind = ("lt", "le", "gt", "ge")[pred - 6]

        def fn(a, b):
            return support.unsigned_compare(kind, a, b, width)
    return _elementwise(c, op, fn)


def _i1_signed(cmp: Callable) -> Callable:
    def fn(a, b):
        if isinstance(a, bool) and isinstance(b, bool):
            return cmp(-int(a), -int(b))
        raise _RunError("signed order on symbolic i1 values is not supported")
    return fn


SCALAR_HANDLERS = table(
    _constant, _elementwise_op, _extui, _int_to_float, _cmpf, _cmpi,
)
