"""Affine expressions evaluated on integers: the one evaluator of `ir.AffineExpr` /
`ir.AffineMap` that the symbolic executor of the original (map operands of affine ops)
and the interpreter of raised programs (indexing maps of linalg.generic) share.

An expression is compiled once into a function of the dims followed by the symbols.
`ir` is the binding the expression comes from (the upstream MLIR bindings by default;
the interpreter passes the one it parsed the raised module with)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

from mlir import ir as mlir_ir

IntFn = Callable[[Sequence[int]], int]


def compile_expr(expr, n_dims: int, ir=mlir_ir) -> IntFn:
    """`expr` as a function of (d0, ..., d(n_dims - 1), s0, s1, ...)."""
    if isinstance(expr, ir.AffineConstantExpr):
        value = expr.value
        return lambda x: value
    if isinstance(expr, ir.AffineDimExpr):
        return operator.itemgetter(expr.position)
    if isinstance(expr, ir.AffineSymbolExpr):
        return operator.itemgetter(n_dims + expr.position)
    lhs, rhs = compile_expr(expr.lhs, n_dims, ir), compile_expr(expr.rhs, n_dims, ir)
    if isinstance(expr, ir.AffineAddExpr):
        return lambda x: lhs(x) + rhs(x)
    if isinstance(expr, ir.AffineMulExpr):
        return lambda x: lhs(x) * rhs(x)
    if isinstance(expr, ir.AffineModExpr):  # rhs > 0 in valid affine code: Python's % agrees
        return lambda x: lhs(x) % rhs(x)
    if isinstance(expr, ir.AffineFloorDivExpr):
        return lambda x: lhs(x) // rhs(x)
    if isinstance(expr, ir.AffineCeilDivExpr):
        return lambda x: -(-lhs(x) // rhs(x))
    raise ValueError(f"unknown affine expression {expr}")


def compile_map(amap, ir=mlir_ir) -> list[IntFn]:
    """One function per result of the map."""
    return [compile_expr(e, amap.n_dims, ir) for e in amap.results]
