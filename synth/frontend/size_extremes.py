"""A loop bound that is the min (max) of size arguments alone as a size of its own.

`affine.for %j = 0 to min(%k, %n)` (C's `j < MIN(k, n)`) runs to no one affine
expression of the sizes at every size; `for (i = MAX(s, 0); i < n; i++)` starts at none.
The normal form passes such a bound as a new trailing `index` argument (`Interface.extremes`
records how the drop-in computes it from the size arguments: `affine.min` / `affine.max`
of the same map over the same arguments), and the loop runs to (from) that argument. The
size analysis then sees a size argument like any other; a raise proven equal to the
rewritten function at every value of that argument is equal to the original where the
argument is the min (max), which is what the drop-in passes.

Only bounds whose every operand is a size argument of the function (through index_cast
/ extsi) are rewritten; a bound that reads a loop index (`min(i + 4, n)`, a tile's end)
stays, as the size analysis reads those. So does one that reads an argument through
index_castui (C's `unsigned`): the drop-in, the raise and the proof read the arguments as
signed, and `max(s, 1)` of an unsigned s at or above 2**31 (the C's loop runs no times)
would be 1 there, inside the domain the drop-in checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from synth.frontend.reader import walk_ops

_SIZE_TYPES = ("i32", "i64", "index")
_CASTS = ("arith.index_cast", "arith.extsi")  # signed: see the module docstring


@dataclass(frozen=True)
class Extreme:
    """A trailing `index` argument of the normal form that holds a loop bound: `kind`
    ("min" or "max") of `map` (affine map text, no dims) over the size `arguments`."""

    argument: int
    kind: str
    map: str
    arguments: tuple[int, ...]


def _size_argument(v: ir.Value, block: ir.Block) -> int | None:
    """The function argument `v` is (through casts), where it is a size argument."""
    while isinstance(v, ir.OpResult) and v.owner.name in _CASTS:
        v = v.owner.operands[0]
    if isinstance(v, ir.BlockArgument) and v.owner == block and str(v.type) in _SIZE_TYPES:
        return v.arg_number
    return None


def extremes_as_arguments(func) -> list[Extreme]:
    """Rewrite each pure-size min upper (max lower) bound of an affine.for in `func` as
    a new trailing index argument; the Extremes made (one per distinct bound)."""
    block = func.regions[0].blocks[0]
    made: dict[tuple, Extreme] = {}
    inputs = list(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
    for op in [op for op in walk_ops(block) if op.name == "affine.for"]:
        view = op.opview
        for attr, operands, kind in (("upperBoundMap", view.upperBoundOperands, "min"),
                                     ("lowerBoundMap", view.lowerBoundOperands, "max")):
            amap = ir.AffineMapAttr(op.attributes[attr]).value
            if len(amap.results) < 2:
                continue
            args = [_size_argument(v, block) for v in operands]
            if not args or any(a is None for a in args):
                continue
            # a map over the arguments as symbols (dims read as symbols: both are values)
            text = str(ir.AffineMap.get(0, len(args), [_as_symbols(r, amap.n_dims) for r in amap.results]))
            key = (kind, text, tuple(args))
            if key not in made:
                value = block.add_argument(ir.IndexType.get(), op.location)
                inputs.append(ir.IndexType.get())
                made[key] = Extreme(value.arg_number, kind, text, tuple(args))
            new = block.arguments[made[key].argument]
            for k in range(len(operands)):  # every operand the new argument; the map reads one
                operands[k] = new
            op.attributes[attr] = ir.AffineMapAttr.get(
                ir.AffineMap.get(0, len(args), [ir.AffineSymbolExpr.get(0)]))
    if made:
        func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, []))
        if "arg_attrs" in func.attributes:
            old = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
            old += [ir.DictAttr.get({})] * (len(inputs) - len(old))
            func.attributes["arg_attrs"] = ir.ArrayAttr.get(old)
    return list(made.values())


def _as_symbols(expr, n_dims: int):
    """`expr` with dim d as symbol d and symbol s as symbol n_dims + s (the order of the
    bound's operands)."""
    if isinstance(expr, ir.AffineDimExpr):
        return ir.AffineSymbolExpr.get(expr.position)
    if isinstance(expr, ir.AffineSymbolExpr):
        return ir.AffineSymbolExpr.get(n_dims + expr.position)
    for kind, make in ((ir.AffineAddExpr, ir.AffineExpr.get_add), (ir.AffineMulExpr, ir.AffineExpr.get_mul),
                       (ir.AffineFloorDivExpr, ir.AffineExpr.get_floor_div),
                       (ir.AffineCeilDivExpr, ir.AffineExpr.get_ceil_div), (ir.AffineModExpr, ir.AffineExpr.get_mod)):
        if isinstance(expr, kind):
            return make(_as_symbols(expr.lhs, n_dims), _as_symbols(expr.rhs, n_dims))
    return expr


def extreme_value(e: Extreme, values: dict[int, int]) -> int:
    """The bound at the size arguments' `values` (argument -> value)."""
    with ir.Context():
        amap = ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{e.map}>")).value
        results = [_evaluate(r, [values[a] for a in e.arguments]) for r in amap.results]
    return min(results) if e.kind == "min" else max(results)


def _evaluate(expr, symbols: list[int]) -> int:
    if isinstance(expr, ir.AffineConstantExpr):
        return expr.value
    if isinstance(expr, ir.AffineSymbolExpr):
        return symbols[expr.position]
    if isinstance(expr, ir.AffineAddExpr):
        return _evaluate(expr.lhs, symbols) + _evaluate(expr.rhs, symbols)
    if isinstance(expr, ir.AffineMulExpr):
        return _evaluate(expr.lhs, symbols) * _evaluate(expr.rhs, symbols)
    if isinstance(expr, ir.AffineFloorDivExpr):
        return _evaluate(expr.lhs, symbols) // _evaluate(expr.rhs, symbols)
    if isinstance(expr, ir.AffineModExpr):
        return _evaluate(expr.lhs, symbols) % _evaluate(expr.rhs, symbols)
    if isinstance(expr, ir.AffineCeilDivExpr):
        return -(-_evaluate(expr.lhs, symbols) // _evaluate(expr.rhs, symbols))
    raise ValueError(f"unknown affine expression {expr}")


def operands_for(e: Extreme, value: int, known: dict[int, int]) -> dict[int, int]:
    """Values of the size arguments `e` reads that make it `value` where there are some
    (`known`: those that other loops fix), so that the arguments as written give the
    drop-in, which computes the bound from them, the sizes the normal form runs at: the
    results that are an argument of their own (`k`, `n` of min(k, n)) one at `value`, the
    others one past it (below it for a max); which one is the bound alternates with the
    value (`value // 2`), so that tests at several sizes see each side chosen. Where none
    do (both fixed elsewhere), the normal form's runs stand on their own (its argument is
    a size like any) and `consistent` says so to callers passing the arguments as written."""
    out = dict(known)
    with ir.Context():
        amap = ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{e.map}>")).value
        own = [e.arguments[r.position] for r in amap.results if isinstance(r, ir.AffineSymbolExpr)]
    free = [a for a in dict.fromkeys(own) if a not in out]
    if free:
        chosen = free[(value // 2) % len(free)]
        for a in free:
            out[a] = value if a == chosen else value + (1 if e.kind == "min" else -1)
        if extreme_value(e, out) != value:  # a constant or fixed result decides otherwise
            out.update({a: value for a in free})
    return {a: out[a] for a in e.arguments if a in out}


def consistent(extremes: dict, params: dict[int, int]) -> bool:
    """Whether each bound's argument in `params` (argument -> value) is the min (max) of
    the size arguments there."""
    return all(all(a in params for a in e.arguments) and k in params
               and extreme_value(e, params) == params[k] for k, e in extremes.items())


def parts(e: Extreme) -> tuple | None:
    """Its results as (argument, 0) for a size argument alone, (None, c) for a constant
    (`max(s, 0)`): what a raised function computes it from, reading the arguments; None
    where a result is another expression."""
    out = []
    with ir.Context():
        amap = ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{e.map}>")).value
        for r in amap.results:
            if isinstance(r, ir.AffineSymbolExpr):
                out.append((e.arguments[r.position], 0))
            elif isinstance(r, ir.AffineConstantExpr):
                out.append((None, r.value))
            else:
                return None
    return tuple(out)
