"""The second half of synth.backends.stablehlo_linalg.to_linalg: the legalized linalg module
in the upstream `mlir` context, cleaned up for mlir-cpu's pipeline (`in_upstream`): calls
inlined, counter selects sliced, contraction operands kept apart, elementwise producers
fused, 0-d operands made scalars, unit dims collapsed, transposed matrix-vector products
named vecmats, and matmuls accumulating into a fill of zeros written as accumulations."""

from __future__ import annotations

from synth.backends import contraction_operands, narrow
from synth.backends.ir_toolkit import all_parallel, defining_named, generic_like, indexing_maps, is_identity_map, ops_named

_INLINE = "builtin.module(inline,canonicalize)"
_FUSE = "builtin.module(func.func(linalg-fuse-elementwise-ops),canonicalize)"


def in_upstream(text: str) -> str:
    """`text` parsed in the `mlir` context: the calls inlined, the counter selects sliced
    (narrow.slice_selects, before fusion folds them into their producers), the operands of
    matrix products kept out of them (contraction_operands), elementwise
    producers fused into their consumers at once (before anything, cse, merges the per-use
    masks again), 0-d operands made scalars, and the transposed matrix-vector products named
    (`_vecmats`)."""
    from mlir import ir, passmanager

    with ir.Context():
        module = ir.Module.parse(text)
        passmanager.PassManager.parse(_INLINE).run(module.operation)
        narrow.slice_selects(module)
        contraction_operands.keep_operands(module)
        passmanager.PassManager.parse(_FUSE).run(module.operation)
        if _scalar_operands(module):
            passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        _unit_dims_collapsed(module)
        _vecmats(module)
        _accumulating_matmuls(module)
        return str(module)


_VECMAT_MAPS = {  # the generic's maps (matrix, vector, result) -> the vecmat's operand order
    ("affine_map<(d0, d1) -> (d1, d0)>", "affine_map<(d0, d1) -> (d1)>", "affine_map<(d0, d1) -> (d0)>"): (1, 0),
    ("affine_map<(d0, d1) -> (d1)>", "affine_map<(d0, d1) -> (d1, d0)>", "affine_map<(d0, d1) -> (d0)>"): (0, 1),
}


def _vecmats(module) -> None:
    """A `linalg.generic` that sums A[k, j] * x[k] over k, as legalization writes the
    dot_general of a vector with a matrix's rows (y^T A: atax, mvt, gemver), replaced by
    the `linalg.vecmat` it is, which the mlir-cpu pipeline interchanges to walk A's rows
    and fuses with a matvec on the same matrix (row_passes). Same sum, same order. A sum
    over a second, unit dim as well (gramschmidt's `q^T A` with q a column, 1000 x 1, and A
    expanded to 1000 x 1 x 1200, which legalization wrote as a three-dim generic that
    walked A by columns) is taken with that dim collapsed out of its operands.

    gramschmidt raised to stablehlo, PolyBench LARGE, mlir-cpu, one thread, AMD EPYC host
    (medians of 3 calls): 4.0-4.3 s -> 1.25-1.43 s with the vecmat, 0.34-0.38 s with its
    rank-1 update narrowed as well (_unit_dims_collapsed); XLA 0.41 s."""
    from mlir import ir
    from mlir.dialects import linalg, tensor

    for op in ops_named(module, ("linalg.generic",)):
        if len(op.operands) != 3 or len(op.results) != 1:
            continue
        operands, maps, iterators = _unit_reduction_dropped(op)
        order = _VECMAT_MAPS.get(maps)
        if order is None or iterators != ["#linalg.iterator_type<parallel>", "#linalg.iterator_type<reduction>"]:
            continue
        block = op.regions[0].blocks[0]
        body = [o.operation for o in block.operations]
        if [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
            continue
        mul, add, done = body
        a, b, out = block.arguments
        if {v for v in mul.operands} != {a, b} or {v for v in add.operands} != {out, mul.result} or \
                done.operands[0] != add.result:
            continue
        with ir.Location.unknown(), ir.InsertionPoint(op):
            operands = [v if isinstance(v, ir.Value) else _collapse(*v) for v in operands]
            vec = linalg.vecmat(operands[order[0]], operands[order[1]], outs=[operands[2]])
        op.results[0].replace_all_uses_with(vec)
        op.erase()


def _unit_reduction_dropped(op) -> tuple[list, tuple, list]:
    """(operands, indexing maps as text, iterator types as text) of the generic `op`, a
    reduction dim whose extent is 1 (every operand indexed by it is 1 wide there) dropped,
    if it has one and no output is indexed by it: each operand indexed by it given as
    (the operand, the collapse_shape reassociation that removes that dim) instead."""
    from mlir import ir
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    iterators = [str(t) for t in op.attributes["iterator_types"]]
    operands = list(op.operands)
    n_in = len(op.opview.inputs)
    for d, kind in enumerate(iterators):
        if kind != "#linalg.iterator_type<reduction>":
            continue
        uses = [(k, p) for k, m in enumerate(maps) for p in _at(m, d)]
        if not uses or any(k >= n_in for k, _ in uses) or len({k for k, _ in uses}) != len(uses):
            continue
        shapes = {k: ir.RankedTensorType(operands[k].type).shape for k, _ in uses}
        if any(shapes[k][p] != 1 or len(shapes[k]) < 2 for k, p in uses):
            continue
        where = dict(uses)
        new_maps, new_operands = [], []
        for k, (m, v) in enumerate(zip(maps, operands)):
            new_maps.append(_without_dim(m, d))
            if k in where:
                new_operands.append((v, _merged(len(shapes[k]), where[k])))
            else:
                new_operands.append(v)
        return new_operands, tuple(new_maps), iterators[:d] + iterators[d + 1:]
    return operands, tuple(str(m) for m in op.attributes["indexing_maps"]), iterators


def _at(amap, d: int) -> list[int]:
    """The positions of `amap`'s results that are dim d."""
    from mlir import ir
    return [p for p, e in enumerate(amap.results) if isinstance(e, ir.AffineDimExpr) and ir.AffineDimExpr(e).position == d]


def _reassociation(op) -> list[list[int]]:
    """The reassociation of a tensor.collapse_shape or tensor.expand_shape, as lists."""
    from mlir import ir
    return [[ir.IntegerAttr(j).value for j in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]


def _merged(rank: int, p: int) -> list[list[int]]:
    """The reassociation of `rank` dims that merges dim p into its neighbour (the one before
    it, or after it for dim 0)."""
    groups = [[j] for j in range(rank) if j != p]
    groups[max(p - 1, 0)].insert(0 if p == 0 else len(groups[max(p - 1, 0)]), p)
    return groups


def _without_dim(amap, d: int) -> str:
    """`amap` (an ir.AffineMap) with dim d dropped from its results and the later dims
    renumbered, as text."""
    from mlir import ir
    results = []
    for e in amap.results:
        if isinstance(e, ir.AffineDimExpr):
            position = ir.AffineDimExpr(e).position
            if position == d:
                continue
            e = ir.AffineDimExpr.get(position - (position > d))
        results.append(e)
    return str(ir.AffineMapAttr.get(ir.AffineMap.get(amap.n_dims - 1, 0, results)))


def _unit_dims_collapsed(module) -> int:
    """An elementwise linalg.generic whose result is only collapsed (tensor.collapse_shape)
    to drop a unit dim of it computes the collapsed result itself, over one dim less, its
    operands collapsed the same way (see _collapse). Legalization leaves such a generic where
    stablehlo reshaped a column (gramschmidt's rank-1 update `A - q r^T` over 1000 x 1 x 1199):
    the collapse between it and the slice of it that is kept stops narrow.narrow_producers,
    and the update was computed over all columns each step, into a temporary. The number
    rewritten."""
    from mlir import ir
    done = 0
    for collapse in ops_named(module, ("tensor.collapse_shape",)):
        generic = defining_named(collapse.operands[0], "linalg.generic")
        if generic is None or len(generic.results) != 1 or len(list(generic.results[0].uses)) != 1:
            continue
        if not all_parallel(generic) or ops_named(generic, ("linalg.index",)):
            continue
        source = ir.RankedTensorType(collapse.operands[0].type)
        groups = _reassociation(collapse)
        units = [j for g in groups if len(g) == 2 for j in g if source.shape[j] == 1]
        if len(groups) != source.rank - 1 or not units or groups != _merged(source.rank, units[0]):
            continue
        d = units[0]
        maps = [ir.AffineMapAttr(a).value for a in generic.attributes["indexing_maps"]]
        if maps[-1] != ir.AffineMap.get_identity(source.rank):
            continue
        positions = [_at(m, d) for m in maps]
        if any(len(at) > 1 for at in positions):
            continue  # an operand read at (.., d, .., d, ..): one collapse would not remove both
        n_in = len(generic.opview.inputs)
        with ir.Location.unknown(), ir.InsertionPoint(generic):
            operands = [_collapse(v, _merged(len(m.results), at[0])) if at else v
                        for v, m, at in zip(generic.operands, maps, positions)]
            new_maps = [ir.Attribute.parse(_without_dim(m, d)) for m in maps]
            iterators = ir.ArrayAttr(generic.attributes["iterator_types"])
            new = generic_like(generic, operands, n_in, new_maps)
        new.attributes["iterator_types"] = ir.ArrayAttr.get([iterators[j] for j in range(len(iterators)) if j != d])
        new.results[0].set_type(collapse.results[0].type)
        generic.regions[0].blocks[0].append_to(new.regions[0])
        collapse.results[0].replace_all_uses_with(new.results[0])
        collapse.erase()
        generic.erase()
        done += 1
    return done


def _collapse(value, groups):
    """`value` collapsed by `groups` (a reassociation, which merges a unit dim): the source
    of the tensor.expand_shape that defines it by the same groups, the tensor.extract_slice
    that defines it taken rank-reduced, a new tensor.empty for a static one, else a
    tensor.collapse_shape (elementwise fusion folds a reshape into the vecmat, which makes it
    a generic over the unit dim again)."""
    from mlir.dialects import tensor
    expand = defining_named(value, "tensor.expand_shape")
    if expand is not None and _reassociation(expand) == groups:
        return expand.operands[0]
    result = _collapsed_type(value, groups)
    empty = defining_named(value, "tensor.empty")
    if empty is not None and len(empty.operands) == 0:
        return tensor.empty(result.shape, result.element_type)
    extract = defining_named(value, "tensor.extract_slice")
    if extract is not None:  # the slice taken rank-reduced (a collapse would be fused into the vecmat too)
        view = extract.opview
        return tensor.ExtractSliceOp(result, view.source, view.offsets, view.sizes, view.strides,
                                     view.static_offsets, view.static_sizes, view.static_strides).result
    return tensor.collapse_shape(result, value, groups)


def _collapsed_type(value, groups):
    """The type of `value` (a ranked tensor) collapsed by `groups` (a reassociation)."""
    from mlir import ir
    t = ir.RankedTensorType(value.type)
    shape = []
    for group in groups:
        size = 1
        for j in group:
            size *= t.shape[j]
        shape.append(size)
    return ir.RankedTensorType.get(shape, t.element_type)


def _zero_fill(value) -> bool:
    """Whether `value` is a `linalg.fill` of 0.0 into a tensor.empty, used once."""
    from mlir import ir
    fill = defining_named(value, "linalg.fill")
    if fill is None or len(list(value.uses)) != 1:
        return False
    constant = defining_named(fill.operands[0], "arith.constant")
    empty = defining_named(fill.operands[1], "tensor.empty")
    return constant is not None and empty is not None and \
        ir.FloatAttr(constant.attributes["value"]).value == 0.0


def _accumulating_matmuls(module) -> int:
    """`X - matmul(L, U)` (a linalg.matmul into zeros, then an elementwise subtraction; LU's
    trailing block less L21 U12, as legalization writes stablehlo's dot_general and
    subtract) becomes `matmul(-L, U)` accumulating into X: the product is added to the
    block where it lies (bufferized in place, as the linalg raise's blocked LU does) rather
    than written to a temporary that a second pass over the block subtracts and copies
    back. The sums are the same but for rounding (X + sum(-l u) term by term, against X
    less the whole sum). Returns how many."""
    from mlir import ir
    from mlir.dialects import linalg, tensor

    count = 0
    for op in ops_named(module, ("linalg.generic",)):
        if len(op.operands) != 3 or len(op.results) != 1 or not all_parallel(op) \
                or not all(map(is_identity_map, indexing_maps(op))):
            continue
        block = op.regions[0].blocks[0]
        body = [o.operation for o in block.operations]
        if [o.name for o in body] != ["arith.subf", "linalg.yield"] or \
                list(body[0].operands) != list(block.arguments)[:2] or body[1].operands[0] != body[0].result:
            continue
        x, product = op.operands[0], op.operands[1]
        matmul = defining_named(product, "linalg.matmul")
        if matmul is None or len(list(product.uses)) != 1 or not _zero_fill(matmul.operands[2]) \
                or x.type != product.type:
            continue
        lhs, rhs = matmul.operands[0], matmul.operands[1]
        t = ir.RankedTensorType(lhs.type)
        if not t.has_static_shape:
            continue
        with op.location, ir.InsertionPoint(op):
            negated = linalg.negf(lhs, outs=[tensor.empty(t.shape, t.element_type)])
            accumulated = linalg.matmul(negated, rhs, outs=[x])
        op.results[0].replace_all_uses_with(accumulated)
        fill = defining_named(matmul.operands[2], "linalg.fill")
        op.erase()
        matmul.erase()
        fill.erase()
        count += 1
    return count


def _rank0(value) -> bool:
    from mlir import ir
    return isinstance(value.type, ir.RankedTensorType) and ir.RankedTensorType(value.type).rank == 0


def _scalar_operands(module) -> int:
    """Legalization computes scalars (loop counters, durbin's alpha and beta) as 0-d tensors:
    each 0-d input of a generic becomes a `tensor.extract` before it that the payload uses,
    and a generic over 0-d tensors alone becomes its payload on scalars. A bound read from
    memory in every iteration of a generic that also stores (durbin's flips) is loaded again
    per element; a scalar stays in a register, as in linalg's own raise. The number of
    generics rewritten."""
    from mlir import ir
    from mlir.dialects import tensor

    done = 0
    for generic in ops_named(module, ("linalg.generic",)):
        view = generic.opview
        inputs, outputs = list(view.inputs), list(view.outputs)
        drop = [i for i, v in enumerate(inputs) if _rank0(v)]
        scalar = all(_rank0(v) for v in inputs + outputs) and len(generic.results) == len(outputs)
        if not drop and not scalar:
            continue
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(generic), generic.location:
            for i in drop:
                block.arguments[i].replace_all_uses_with(tensor.extract(inputs[i], []))
            if scalar:
                for k, init in enumerate(outputs):
                    argument = block.arguments[len(inputs) + k]
                    if list(argument.uses):
                        argument.replace_all_uses_with(tensor.extract(init, []))
                body = [o.operation for o in block.operations]
                for o in body[:-1]:
                    o.move_before(generic)
                values = [tensor.from_elements(r.type, [v]) for r, v in zip(generic.results, body[-1].operands)]
                for r, v in zip(generic.results, values):
                    r.replace_all_uses_with(v)
                generic.erase()
                done += 1
                continue
            keep = [i for i in range(len(inputs) + len(outputs)) if i not in drop]
            maps = list(generic.attributes["indexing_maps"])
            new = generic_like(generic, [generic.operands[i] for i in keep], len(inputs) - len(drop),
                               [maps[i] for i in keep])
        block.append_to(new.regions[0])
        for i in reversed(drop):
            block.erase_argument(i)
        for old, r in zip(generic.results, new.results):
            old.replace_all_uses_with(r)
        generic.erase()
        done += 1
    return done
