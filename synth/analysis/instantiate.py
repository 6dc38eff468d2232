"""The kernel at other sizes: every size the `SizeModel` names is rewritten from its
expression, nothing else changes.

Array argument and local allocation types become static at the new sizes (a dynamic
`memref<?x2100xf64>` argument too: an instance has one size), loop bounds, access maps,
`affine.apply` maps and `affine.if` conditions get their size constants recomputed. Size
arguments keep their role: callers pass `SizeModel.param_values`. Ops are matched to the
model by their pre-order position, so the text must be the one the model was built from.
"""

from __future__ import annotations

from typing import Mapping

from mlir import ir
from mlir.dialects import memref as memref_d

from synth.frontend.reader import SourceModule
from synth.analysis.collect import split_const, walk
from synth.analysis.sizes import SizeModel


def _with_constant(expr: ir.AffineExpr, value: int) -> ir.AffineExpr:
    rest, _ = split_const(expr)
    if rest is None:
        return ir.AffineConstantExpr.get(value)
    return rest + value


def _rewrite_map(amap: ir.AffineMap, sites: dict[int, int]) -> ir.AffineMap:
    results = list(amap.results)
    for r, value in sites.items():
        results[r] = _with_constant(results[r], value)
    return ir.AffineMap.get(amap.n_dims, amap.n_symbols, results)


def _rewrite_set(attr: ir.Attribute, sites: dict[int, int]) -> ir.Attribute:
    from synth.analysis.affine_expr import integer_set

    amap, eqs = integer_set(attr)
    amap = _rewrite_map(amap, sites)
    return ir.IntegerSetAttr.get(ir.IntegerSet.get(amap.n_dims, amap.n_symbols, list(amap.results), eqs))


def instantiate_function(func, model: SizeModel, values: Mapping[str, int], *,
                         keep_dynamic: bool = False) -> None:
    """Rewrite `func` (in place, in the caller's context) at symbol `values`; dynamic
    argument dims become static unless `keep_dynamic`."""
    values = model.with_quotients(values)  # (extents that hold a quotient or product symbol)
    block = func.regions[0].blocks[0]
    new_inputs = []
    for value in block.arguments:
        i = value.arg_number
        if i in model.arg_dims:
            mt = ir.MemRefType(value.type)
            shape = [ir.ShapedType.get_dynamic_size() if keep_dynamic and mt.is_dynamic_dim(d)
                     else e.at(values) for d, e in enumerate(model.arg_dims[i])]
            value.set_type(ir.MemRefType.get(shape, ir.MemRefType(value.type).element_type))
        new_inputs.append(value.type)
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(new_inputs, list(ftype.results)))

    by_op: dict[int, dict[str, dict[int, int]]] = {}
    for (index, attr, r), e in model.sites.items():
        by_op.setdefault(index, {}).setdefault(attr, {})[r] = e.at(values)
    ops = list(walk(block))
    for index, op in enumerate(ops):
        if index in model.alloc_dims:
            t = ir.MemRefType(op.results[0].type)
            shape = [e.at(values) for e in model.alloc_dims[index]]
            if shape != list(t.shape):
                with ir.InsertionPoint(op), op.location:
                    build = memref_d.alloca if op.name == "memref.alloca" else memref_d.alloc
                    new = build(ir.MemRefType.get(shape, t.element_type), [], [])
                if "alignment" in op.attributes:
                    new.owner.attributes["alignment"] = op.attributes["alignment"]
                op.results[0].replace_all_uses_with(new)
                op.erase()
            continue
        for attr, sites in by_op.get(index, {}).items():
            if attr == "condition":
                op.attributes["condition"] = _rewrite_set(op.attributes["condition"], sites)
            else:
                amap = ir.AffineMapAttr(op.attributes[attr]).value
                op.attributes[attr] = ir.AffineMapAttr.get(_rewrite_map(amap, sites))


def instantiate(source: SourceModule, name: str, model: SizeModel, values: Mapping[str, int]) -> SourceModule:
    """The module with @name rewritten at symbol `values` (locations kept)."""
    module = source.copy()
    with source.context, ir.Location.unknown():
        func = next(op for op in module.body.operations if op.operation.name == "func.func"
                    and op.attributes["sym_name"].value == name)
        instantiate_function(func, model, values)
        module.operation.verify()
        return SourceModule(source.path, module.operation.get_asm(enable_debug_info=True), list(source.notes))
