"""Extents the C front end read for arrays that no loop index reaches
(synth.analysis.size_analysis).

An array read only at indices C computes by integer division (`src[i / 2]` over i < 2n,
`src[i / k]` over i < n * k: synth.frontend.c.computed) or at indices read from data
(`emb[tok[i]][j]` of `const float emb[V][d]`) has dims no affine subscript reaches. The C
front end knows their extents: for a computed index the bound it proved (the index's
highest value + 1, here n), for a table its declared extent (V, with `0 <= tok[i] < V` in
synth.assumptions). It records them per argument as `synth.c_shape`, C expressions over
the function's parameters. Where such an expression is affine in the size parameters
(`n`, `V`, `2 * n + 1`) it is the dim's extent for every size: the raise takes the array
at that extent, the drop-in passes it so (synth.driver.rewrite reads the same attribute),
and the original never reads past it at any size (the front end proved the computed
index below it, or said the data's range in synth.assumptions). A product of sizes
(`sw * sh` of a flat image) is no size expression: still refused."""

from __future__ import annotations

import ast

from mlir import ir

from synth.analysis.collect import SIZE_TYPES
from synth.analysis.reach import param_name
from synth.analysis.symbols import SizeExpr


def c_shape(func, arg: int) -> list[str] | None:
    """The `synth.c_shape` strings of argument `arg` (None where the front end gave none)."""
    if "arg_attrs" not in func.attributes:
        return None
    attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
    if arg >= len(attrs) or "synth.c_shape" not in ir.DictAttr(attrs[arg]):
        return None
    return [ir.StringAttr(x).value for x in ir.ArrayAttr(ir.DictAttr(attrs[arg])["synth.c_shape"])]


def declared_by_c(func, arg: int, d: int) -> bool:
    """The C declares dim `d` of argument `arg` as one size (`double u[n][n]`: its
    synth.c_shape entry a plain name), not as what its accesses reach (`float *y`, `y[i]`
    for i < n - 1: "n - 1")."""
    shape = c_shape(func, arg)
    return shape is not None and d < len(shape) and shape[d].isidentifier()


def affine_terms(text: str, names: dict[str, int]) -> tuple[dict[int, int], int] | None:
    """`text`, a C expression of parameter names, as (parameter index -> coefficient,
    constant) where it is affine in them (sums, differences, products by integer
    constants); None otherwise (a product of two names, a division, an unknown name)."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None

    def lin(node) -> tuple[dict[int, int], int] | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return {}, node.value
        if isinstance(node, ast.Name):
            return ({names[node.id]: 1}, 0) if node.id in names else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            x = lin(node.operand)
            if x is None or isinstance(node.op, ast.UAdd):
                return x
            return {p: -c for p, c in x[0].items()}, -x[1]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = lin(node.left), lin(node.right)
            if a is None or b is None:
                return None
            if isinstance(node.op, ast.Mult):
                if a[0] and b[0]:
                    return None  # a product of sizes
                (k, (terms, c)) = (a[1], b) if not a[0] else (b[1], a)
                return {p: k * v for p, v in terms.items() if k * v}, k * c
            sign = 1 if isinstance(node.op, ast.Add) else -1
            terms = dict(a[0])
            for p, v in b[0].items():
                terms[p] = terms.get(p, 0) + sign * v
            return {p: v for p, v in terms.items() if v}, a[1] + sign * b[1]
        return None

    return lin(tree)


def front_end_extent(func, block, arg: int, d: int) -> tuple[dict[int, int], int] | None:
    """Dim `d` of array argument `arg` as the C front end read it, where that is an affine
    expression of the function's integer parameters with at least one of them: (parameter
    index -> coefficient, constant); None otherwise."""
    shape = c_shape(func, arg)
    if shape is None or d >= len(shape) or shape[d] == "?":
        return None
    arg_types = [a.type for a in block.arguments]
    names = {param_name(block, p): p for p, t in enumerate(arg_types) if str(t) in SIZE_TYPES}
    out = affine_terms(shape[d], names)
    if out is None or not out[0] or any(c < 0 for c in out[0].values()):
        return None
    return out


def as_size_expr(terms: dict[int, int], const: int, params: dict[int, str]) -> SizeExpr:
    """(parameter -> coefficient, constant) over the parameters' symbols (`params`)."""
    return SizeExpr(tuple(sorted((params[p], c) for p, c in terms.items())), const)


def take_front_end_extent(func, block, key: tuple, params: dict[int, str], symbols: dict,
                          unused: list[int], counter: int | None) -> SizeExpr | None:
    """The extent of a dynamic dim (`key`: (array, dim)) that no access reaches affinely,
    as the C front end read it (see above), or None. A parameter it names that bounds no
    loop (the vocabulary V of `emb[V][d]`) becomes a size symbol of its own, of unknown
    value (a raise for every size takes it at run time; synth.analysis.sizes gives it a
    test value)."""
    from synth.analysis.sizes import Symbol

    arr, d = key
    if arr[0] != "arg":
        return None
    found = front_end_extent(func, block, arr[1], d)
    if found is None or counter in found[0]:
        return None
    for p in found[0]:
        if p not in params:
            params[p] = f"arg{p}"
            symbols[f"arg{p}"] = Symbol(f"arg{p}", -1, "parameter", f"argument #{p}")
            if p in unused:
                unused.remove(p)
    return as_size_expr(*found, params)
