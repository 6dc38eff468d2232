"""The arith and math ops of the symbolic executor (synth.semantics.affine): one step
per op over the environment, z3 terms for data and Python ints for index math, each op's
meaning taken from the shared scalar table (synth.semantics.scalar). Its handlers are the
table SCALAR_HANDLERS, which the executor merges with its own."""

from __future__ import annotations

from collections.abc import Callable

import z3
from mlir import ir

from synth.errors import InputError
from synth.semantics import z3sem
from synth.semantics.handlers import handles, table
from synth.semantics.scalar import ARITH_MATH, INT_CASTS, Unsupported, cmpf, cmpi, int_cast, type_width
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the executor that calls these handlers
    from synth.semantics.affine import Compiler

Env = list  # slot -> value, one slot per SSA value of the function
Step = Callable[[Env], None]


def _located(fn: Callable, name: str, where: str) -> Callable:
    """`fn` with runtime errors (zero division, unsupported operand kinds) located at the op."""
    def call(*args):
        try:
            return fn(*args)
        except ZeroDivisionError:
            raise InputError(f"'{name}': integer division by zero", where) from None
        except (Unsupported, z3.Z3Exception) as e:
            raise InputError(f"'{name}': {e}", where) from None
    return call


# arith and math -----------------------------------------------------------------------


@handles("arith.constant")
def _constant(c: Compiler, op) -> Step:
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


def _elementwise(c: Compiler, op, fn: Callable) -> Step:
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


@handles(*ARITH_MATH)
def _elementwise_op(c: Compiler, op) -> Step:
    return _elementwise(c, op, ARITH_MATH[op.operation.name])


@handles("arith.cmpf")
def _cmpf(c: Compiler, op) -> Step:
    return _elementwise(c, op, cmpf(op.attributes["predicate"].value))


def _width(t: ir.Type) -> int:
    return type_width(str(t))


@handles("arith.cmpi")
def _cmpi(c: Compiler, op) -> Step:
    return _elementwise(c, op, cmpi(op.attributes["predicate"].value, _width(op.operands[0].type)))


@handles(*(n for n in INT_CASTS if n.startswith("arith.")))
def _int_cast(c: Compiler, op) -> Step:
    name = op.operation.name
    return _elementwise(c, op, int_cast(name, _width(op.operands[0].type), _width(op.results[0].type)))


SCALAR_HANDLERS = table(_constant, _elementwise_op, _cmpf, _cmpi, _int_cast)
