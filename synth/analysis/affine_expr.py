"""Affine expressions, in one place: evaluated on integers (the symbolic executor of the
original, for the map operands of affine ops, and the interpreter of raised programs, for
the indexing maps of linalg.generic), printed as isl text (the dependence analysis), and
`affine_set` conditions read as maps (the executor, size analysis, instantiation and
dependences).

An expression is compiled once into a function of the dims followed by the symbols.
`ir` is the binding the expression comes from (the upstream MLIR bindings by default;
the interpreter passes the one it parsed the raised module with)."""

from __future__ import annotations

import operator
import re
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


_SET = re.compile(r"^affine_set<(?P<head>.*?) : \((?P<body>.*)\)>$", re.DOTALL)


def integer_set(attr, ir=mlir_ir) -> tuple:
    """An `affine_set` as a map of its constraint expressions plus `is_eq` flags (ValueError
    when it cannot be read).

    The bindings give no access to an IntegerSetAttr's set, so its canonical text
    (`(d0)[s0] : (d0 - s0 >= 0, d0 == 0)`) is re-read as an affine map."""
    m = _SET.match(str(attr))
    if m is None:
        raise ValueError(f"cannot read integer set {attr}")
    parts, depth, start, body = [], 0, 0, m["body"]
    for i, ch in enumerate(body):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    exprs, eqs = [], []
    for part in parts:
        part = part.strip()
        for suffix, is_eq in ((" >= 0", False), (" == 0", True)):
            if part.endswith(suffix):
                exprs.append(part[: -len(suffix)])
                eqs.append(is_eq)
                break
        else:
            raise ValueError(f"cannot read constraint {part!r} of {attr}")
    amap = ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{m['head']} -> ({', '.join(exprs)})>")).value
    return amap, eqs


def _atom(s: str) -> bool:
    return s.lstrip("-").isalnum()


def isl_wrap(s: str) -> str:
    """`s` parenthesized unless it is a name or a number."""
    return s if _atom(s) else f"({s})"


def isl_text(expr, dims: list[str | None], syms: list[str | None], ir=mlir_ir) -> str | None:
    """isl text of an affine expression (isl's parser wants constants bare); None when it
    uses an unknown operand or is not affine (a product of two variables)."""
    if isinstance(expr, ir.AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, ir.AffineSymbolExpr):
        return syms[expr.position]
    if isinstance(expr, ir.AffineConstantExpr):
        return str(expr.value)
    lhs, rhs = isl_text(expr.lhs, dims, syms, ir), isl_text(expr.rhs, dims, syms, ir)
    if lhs is None or rhs is None:
        return None
    if isinstance(expr, ir.AffineAddExpr):
        return f"{isl_wrap(lhs)} + {isl_wrap(rhs)}"
    constant = isinstance(expr.rhs, ir.AffineConstantExpr)
    if isinstance(expr, ir.AffineMulExpr):
        if constant:
            return f"{rhs} * {isl_wrap(lhs)}"
        if isinstance(expr.lhs, ir.AffineConstantExpr):
            return f"{lhs} * {isl_wrap(rhs)}"
        return None
    if not constant or expr.rhs.value <= 0:
        return None
    if isinstance(expr, ir.AffineModExpr):
        return f"({isl_wrap(lhs)} mod {rhs})"
    if isinstance(expr, ir.AffineFloorDivExpr):
        return f"floor(({lhs})/{rhs})"
    if isinstance(expr, ir.AffineCeilDivExpr):
        return f"ceil(({lhs})/{rhs})"
    return None
