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
from synth.analysis.reach import located_name
from synth.analysis.symbols import SizeExpr


def c_shape(func, arg: int) -> list[str] | None:
    """The `synth.c_shape` strings of argument `arg` (None where the front end gave none)."""
    if "arg_attrs" not in func.attributes:
        return None
    attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
    if arg >= len(attrs) or "synth.c_shape" not in ir.DictAttr(attrs[arg]):
        return None
    return [ir.StringAttr(x).value for x in ir.ArrayAttr(ir.DictAttr(attrs[arg])["synth.c_shape"])]


def c_name(func, arg: int) -> str | None:
    """The C name of argument `arg` as the front end wrote it (`synth.c_name`), or None."""
    if "arg_attrs" not in func.attributes:
        return None
    attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
    if arg >= len(attrs) or "synth.c_name" not in ir.DictAttr(attrs[arg]):
        return None
    return ir.StringAttr(ir.DictAttr(attrs[arg])["synth.c_name"]).value


def declared_by_c(func, arg: int, d: int) -> bool:
    """The C declares dim `d` of argument `arg` as one size (`double u[n][n]`: its
    synth.c_shape entry a plain name), not as what its accesses reach (`float *y`, `y[i]`
    for i < n - 1: "n - 1")."""
    shape = c_shape(func, arg)
    return shape is not None and d < len(shape) and shape[d].isidentifier()


def poly_terms(text: str, names: dict[str, int]) -> dict[tuple[int, ...], int] | None:
    """`text`, a C expression of parameter names, as a polynomial in them (monomial: the
    sorted parameter indices, () for the constant -> coefficient) where it is sums,
    differences and products; None otherwise (a division, an unknown name)."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None

    def poly(node) -> dict[tuple[int, ...], int] | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return {(): node.value}
        if isinstance(node, ast.Name):
            return {(names[node.id],): 1} if node.id in names else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            x = poly(node.operand)
            return x if x is None or isinstance(node.op, ast.UAdd) else {m: -c for m, c in x.items()}
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = poly(node.left), poly(node.right)
            if a is None or b is None:
                return None
            out: dict[tuple[int, ...], int] = {}
            if isinstance(node.op, ast.Mult):
                for ma, ca in a.items():
                    for mb, cb in b.items():
                        m = tuple(sorted(ma + mb))
                        out[m] = out.get(m, 0) + ca * cb
            else:
                sign = 1 if isinstance(node.op, ast.Add) else -1
                out = dict(a)
                for m, c in b.items():
                    out[m] = out.get(m, 0) + sign * c
            return {m: c for m, c in out.items() if c}
        return None

    return poly(tree)


def front_end_extent(func, block, arg: int, d: int) -> dict[tuple[int, ...], int] | None:
    """Dim `d` of array argument `arg` as the C front end read it, where that is a
    polynomial in the function's integer parameters with at least one of them and no
    negative coefficient (`n`, `2 * n + 1`, `sw * sh`; see poly_terms); None otherwise."""
    shape = c_shape(func, arg)
    if shape is None or d >= len(shape) or shape[d] == "?":
        return None
    arg_types = [a.type for a in block.arguments]
    # the names the front end wrote (synth.c_name), else those read at the parameters' C
    # locations (an MLIR file's %arg2 names none)
    names = {c_name(func, p) or located_name(block, p): p for p, t in enumerate(arg_types) if str(t) in SIZE_TYPES}
    names.pop(None, None)
    out = poly_terms(shape[d], names)
    if out is None or not any(out) or any(c < 0 for c in out.values()):
        return None
    return out


def take_front_end_extent(func, block, key: tuple, params: dict[int, str], symbols: dict,
                          unused: list[int], counter: int | None, products: dict) -> SizeExpr | None:
    """The extent of a dynamic dim (`key`: (array, dim)) that no access reaches affinely,
    as the C front end read it (see above), or None. A parameter it names that bounds no
    loop (the vocabulary V of `emb[V][d]`) becomes a size symbol of its own, of unknown
    value (a raise for every size takes it at run time; synth.analysis.sizes gives it a
    test value). A product of sizes (`sw * sh` of a flat image) becomes a product symbol
    (`p0`, entered in `products`: its monomials; SizeModel.products), whose value the
    model computes from the sizes and a raise for every size reads off the array."""
    from synth.analysis.sizes import Symbol

    arr, d = key
    if arr[0] != "arg":
        return None
    found = front_end_extent(func, block, arr[1], d)
    if found is None or any(counter in m for m in found):
        return None
    for p in sorted({p for m in found for p in m}):
        if p not in params:
            params[p] = f"arg{p}"
            symbols[f"arg{p}"] = Symbol(f"arg{p}", -1, "parameter", f"argument #{p}")
            if p in unused:
                unused.remove(p)
    if all(len(m) <= 1 for m in found):
        return SizeExpr(tuple(sorted((params[m[0]], c) for m, c in found.items() if m)), found.get((), 0))
    monos = tuple(sorted((tuple(params[p] for p in m), c) for m, c in found.items()))
    name = next((n for n, e in products.items() if e == monos), f"p{len(products)}")
    products[name] = monos
    return SizeExpr.symbol(name)
