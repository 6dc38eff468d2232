"""A kernel rewritten over the boxes it reaches (synth.analysis.regions): each argument
with a box becomes that box (its memref type the box's shape, each access's index
(index - lo) / stride), the reads of elements only read (`Views.extra`) read a new
argument appended after the others (one per box), and a loop of constant bounds and a step above 1
runs over its iterations (0 .. trip count, step 1), its index `lb + step * i` inside the
accesses. The rewritten indices are plain affine forms (no floordiv): the stride divides
every access's steps, which is how it was chosen."""

from __future__ import annotations

from typing import Mapping

from mlir import ir

from synth.analysis.regions import Box
from synth.frontend.reader import SourceModule, affine_linear


def _linear(e, n_dims: int):
    """An AffineExpr as ({operand position: coefficient}, constant), symbols after dims;
    None where it is not linear."""
    return affine_linear(e, dim=lambda p: ({p: 1}, 0), symbol=lambda p: ({n_dims + p: 1}, 0))

def _expr(terms: dict, const: int, n_dims: int):
    c = ir.AffineConstantExpr.get
    out = c(const)
    for k, v in sorted(terms.items()):
        if v:
            x = ir.AffineDimExpr.get(k) if k < n_dims else ir.AffineSymbolExpr.get(k - n_dims)
            out = ir.AffineAddExpr.get(out, ir.AffineMulExpr.get(x, c(v)))
    return out


def ordered_accesses(block, entry) -> list:
    """The affine.load / affine.store ops on `entry`'s arguments under `block`, in the
    order synth.analysis.regions walks them (program order, into every region)."""
    out = []
    for op in block.operations:
        name = op.operation.name
        if name in ("affine.load", "affine.store"):
            m = op.operands[0] if name == "affine.load" else op.operands[1]
            if isinstance(m.owner, ir.Block) and m.owner == entry:
                out.append(op)
            continue
        for region in op.regions:
            for b in region.blocks:
                out += ordered_accesses(b, entry)
    return out


def _constant(amap) -> int | None:
    if amap.n_dims or amap.n_symbols or len(amap.results) != 1 or \
            not isinstance(amap.results[0], ir.AffineConstantExpr):
        return None
    return amap.results[0].value


def _normalize_steps(block) -> dict:
    """Rewrite each loop of constant bounds and step > 1 whose index only indexes loads
    and stores to 0 .. trips step 1; returns {its index value: (lb, step)}."""
    fors = []

    def visit(op):
        if op.name == "affine.for":
            fors.append(op)
        return ir.WalkResult.ADVANCE
    block.owner.operation.walk(visit)
    subst = {}
    for f in fors:
        step = ir.IntegerAttr(f.attributes["step"]).value
        lb = _constant(ir.AffineMapAttr(f.attributes["lowerBoundMap"]).value)
        ub = _constant(ir.AffineMapAttr(f.attributes["upperBoundMap"]).value)
        if step == 1 or lb is None or ub is None:
            continue
        iv = f.regions[0].blocks[0].arguments[0]
        uses = [(u.owner, u.operand_number) for u in iv.uses]
        if any(o.name not in ("affine.load", "affine.store") or n < (1 if o.name == "affine.load" else 2)
               for o, n in uses):
            continue
        subst[iv] = (lb, step)
        trips = max(0, -(-(ub - lb) // step))
        f.attributes["lowerBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get(0, 0, [ir.AffineConstantExpr.get(0)]))
        f.attributes["upperBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get(0, 0, [ir.AffineConstantExpr.get(trips)]))
        f.attributes["step"] = ir.IntegerAttr.get(ir.IndexType.get(), 1)
    return subst


def view_source(source: SourceModule, name: str, main: Mapping[int, Box], extra: Mapping[int, tuple],
                roles: tuple, n_arguments: int) -> SourceModule:
    """@name over its boxes (numeric, at the module's sizes): `main` replaces arguments,
    `extra` boxes (argument -> its boxes) become arguments n_arguments, n_arguments + 1,
    ... (in argument order, then box order), read by the accesses whose role is "extra:J"."""
    module = source.copy()
    with source.context, ir.Location.unknown():
        func = next(op for op in module.body.operations if op.operation.name == "func.func"
                    and op.attributes["sym_name"].value == name)
        block = func.regions[0].blocks[0]
        accesses = ordered_accesses(block, block)
        if len(accesses) != len(roles):
            raise ValueError("the accesses differ from the ones the boxes were found for")
        normalized = _normalize_steps(block)
        added = {}
        for k in sorted(extra):
            t = ir.MemRefType(block.arguments[k].type)
            for j, b in enumerate(extra[k]):
                added[(k, j)] = block.add_argument(ir.MemRefType.get(list(b.count), t.element_type),
                                                   ir.Location.unknown())
        for value in list(block.arguments)[:n_arguments]:
            b = main.get(value.arg_number)
            if b is not None:
                value.set_type(ir.MemRefType.get(list(b.count), ir.MemRefType(value.type).element_type))
        if added and "arg_attrs" in func.attributes:  # the new arguments have no attributes
            old = ir.ArrayAttr(func.attributes["arg_attrs"])
            func.attributes["arg_attrs"] = ir.ArrayAttr.get(list(old) + [ir.DictAttr.get({})] * len(added))
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        func.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([a.type for a in block.arguments], list(ftype.results)))
        for op, role in zip(accesses, roles):
            at = 0 if op.name == "affine.load" else 1
            k = ir.BlockArgument(op.operands[at]).arg_number
            slot = (k, int(role.split(":")[1])) if role.startswith("extra") else None
            box = extra[k][slot[1]] if slot is not None else main.get(k)
            first = 1 if op.name == "affine.load" else 2  # the map's operands follow
            steps = {p: normalized[v] for p, v in enumerate(list(op.operands)[first:]) if v in normalized}
            if box is None and not steps:
                continue
            if slot is not None:
                op.operands[at] = added[slot]
            amap = ir.AffineMapAttr(op.attributes["map"]).value
            results = []
            for d, r in enumerate(amap.results):
                form = _linear(r, amap.n_dims)
                if form is None:
                    raise ValueError("an index that is not an affine form")
                terms, const = dict(form[0]), form[1]
                for p, (lb, step) in steps.items():  # index = lb + step * iteration
                    c = terms.get(p, 0)
                    const += c * lb
                    terms[p] = c * step
                if box is not None:
                    lo, s = int(box.lo[d]), int(box.stride[d])
                    const -= lo
                    if const % s or any(c % s for c in terms.values()):
                        raise ValueError("a stride that does not divide an access")
                    const //= s
                    terms = {p: c // s for p, c in terms.items()}
                results.append(_expr(terms, const, amap.n_dims))
            op.attributes["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(amap.n_dims, amap.n_symbols, results))
        module.operation.verify()
        return SourceModule(source.path, module.operation.get_asm(enable_debug_info=True), list(source.notes))
