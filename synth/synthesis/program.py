"""Programs the search builds: expression trees over grammar ops, their emission as MLIR
text, and their re-instantiation at other sizes (from the size symbols their types and
attributes carry, see synth.analysis.symbols)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from synth.analysis.symbols import reinstantiate_value
from synth.grammar.op import Attrs, Emitter, Op
from synth.grammar.types import ShapeError, TensorType


@dataclass(frozen=True, eq=False)
class Expr:
    """`op(args...)` with attributes, or an input leaf (`op is None`, `leaf` = argument index)."""

    type: TensorType
    op: Op | None = None
    attrs: Attrs = ()
    args: tuple["Expr", ...] = ()
    leaf: int | None = None

    def size(self) -> int:
        """Number of ops (leaves and arity-0 ops count 0)."""
        if self.op is None or not self.args:
            return 0
        return self.op.weight + sum(a.size() for a in self.args)

    def ops(self) -> list[str]:
        out = [] if self.op is None else [self.op.name]
        for a in self.args:
            out += a.ops()
        return out

    def __str__(self) -> str:
        if self.op is None:
            return f"arg{self.leaf}"
        attrs = ", ".join(f"{k}={v}" for k, v in self.attrs)
        inner = ", ".join(str(a) for a in self.args)
        sep = "; " if inner and attrs else ""
        return f"{self.op.name.split('.', 1)[1]}({inner}{sep}{attrs})"


def instantiate(expr: Expr, values: Mapping[str, int], input_types: dict[int, TensorType],
                memo: dict | None = None) -> Expr:
    """The same program at other values of the size symbols: attributes that hold sizes
    (`Size`s) are re-evaluated, result types recomputed by the shape rules. Raises
    ShapeError if the program does not fit there."""
    memo = {} if memo is None else memo
    if id(expr) in memo:
        return memo[id(expr)]
    if expr.op is None:
        out = Expr(input_types[expr.leaf], leaf=expr.leaf)
    else:
        args = tuple(instantiate(a, values, input_types, memo) for a in expr.args)
        attrs = tuple((k, reinstantiate_value(v, values)) for k, v in expr.attrs)
        rt = expr.op.result_type(tuple(a.type for a in args), attrs)
        out = Expr(rt, expr.op, attrs, args)
    memo[id(expr)] = out
    return out


def cost(expr: Expr) -> int:
    """Estimated work of the program at the sizes its types carry: the sum of its ops'
    `Op.cost`, each distinct subexpression (a shared value is computed once) counted once."""
    seen: set[int] = set()
    total = 0
    stack = [expr]
    while stack:
        e = stack.pop()
        if id(e) in seen or e.op is None:
            continue
        seen.add(id(e))
        total += e.op.cost(tuple(a.type for a in e.args), e.attrs, e.type)
        stack.extend(e.args)
    return total


def leaves(*exprs: Expr) -> set[int]:
    """The input leaves the programs read (each distinct subexpression visited once)."""
    seen: set[int] = set()
    found: set[int] = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.op is None:
            found.add(e.leaf)
        stack.extend(e.args)
    return found


def evaluate(expr: Expr, examples_in: list[dict], memo: dict | None = None) -> tuple:
    """The program's value on each example (`examples_in[e][leaf]` are the inputs)."""
    import numpy as np

    memo = {} if memo is None else memo
    if id(expr) in memo:
        return memo[id(expr)]
    if expr.op is None:
        out = tuple(np.asarray(ex[expr.leaf]) for ex in examples_in)
    else:
        args = [evaluate(a, examples_in, memo) for a in expr.args]
        with np.errstate(all="ignore"):
            out = tuple(np.asarray(expr.op.evaluate([a[e] for a in args], expr.attrs),
                                   dtype=expr.type.numpy_dtype) for e in range(len(examples_in)))
    memo[id(expr)] = out
    return out


@dataclass
class ProgramEmitter:
    """Emits expressions into one function body, sharing common subexpressions."""

    em: Emitter
    env: dict[int, str]  # input argument index -> SSA name
    memo: dict[int, str] = field(default_factory=dict)

    def emit(self, expr: Expr) -> str:
        if expr.op is None:
            return self.env[expr.leaf]
        key = id(expr)
        if key not in self.memo:
            operands = [self.emit(a) for a in expr.args]
            name, _ = self.em.apply(expr.op, operands, [a.type for a in expr.args], expr.attrs)
            self.memo[key] = name
        return self.memo[key]


__all__ = ["Expr", "ProgramEmitter", "ShapeError", "cost", "instantiate", "leaves"]
