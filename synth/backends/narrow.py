"""Loop steps compute only the part of a dim their counter selects (mlir-cpu backend).

A loop step that touches a prefix or a suffix of an array, whose length the loop counter
sets (durbin's `for i < k`, gramschmidt's columns right of k), is raised with a
`counter_select`: a linalg.generic over the whole dim that picks x where
`linalg.index d < k` and y elsewhere. x is computed over the whole dim too, and after
elementwise fusion the select sits inside the one generic that computes everything: each
step costs the whole dim (durbin at LARGE: 2000 elements per step where the loops do k),
masked elements included.

Two rewrites on tensors, before elementwise fusion:

- `slice_selects`: such a select becomes `tensor.insert_slice` of `tensor.extract_slice
  x [lo, hi)`, where [lo, hi) is the selected range (the counter's bound clamped into the
  dim), in two cases. (1) y is the old part of an array the select is put back into
  (`insert_range(a, select(x, extract_range(a)))`): x's part goes straight into a. (2) y
  is zeros and a linalg.dot is the select's only use: the dot then runs over x's part and
  the matching part of its other operand (`narrow_producers`). Elsewhere the select stays:
  inserting into a y that is computed (floyd-warshall's broadcast rows) would materialize
  y, where the fused select costs nothing (floyd-warshall took 108 s instead of 4.5 s).
- `narrow_producers`: a `tensor.extract_slice` that is the only use of an all-parallel
  linalg.generic becomes that generic over the slice: its operands sliced along their
  indexing maps, `linalg.index` shifted by the slice's offset. It repeats until no slice
  is left to narrow, so x's whole computation runs over [lo, hi) only.

Both keep the tensor program's values; the dot over the part adds the same products less
the zeros' (so a NaN or infinity outside the part, which the loops never read, no longer
reaches the sum). Only generics that read their operands at points (projected
permutations) are narrowed; tensors read by `tensor.extract` inside a payload (durbin's
flips) are not sliced, the shifted indices read them where the whole generic did.

PolyBench LARGE to linalg on this backend, one thread, old and new pipeline alternating
in one process (scripts/compare_pipelines.py, 3 rounds of 5 calls), Intel Xeon
(2026-11-26): durbin 9.2 -> 1.45 ms (the loops: 2.0 ms), gramschmidt 0.95 -> 0.76 s; the
other 24 raised kernels have no select of this kind and are compiled as before.
"""

from __future__ import annotations

from synth.backends.ir_toolkit import (
    SIGNED_ORDER, is_identity_map, value_in_regions, slice_mixed, mixed, is_zero_fill,
    all_parallel, defining, indexing_maps, operation, ops_named)


_PREDICATES = SIGNED_ORDER  # arith.cmpi predicate numbers


def _select_of(generic):
    """(dim, predicate, bound, x, y) of a counter-select generic: two inputs and an
    init of one type, identity maps, a payload `select(index(dim) <pred> bound, x, y)`
    with the i64 bound defined outside; None for any other op."""
    from mlir import ir
    view = generic.opview
    inputs, outputs = list(view.inputs), list(view.outputs)
    if len(inputs) != 2 or len(outputs) != 1 or not all_parallel(generic):
        return None
    if not (inputs[0].type == inputs[1].type == outputs[0].type) or not all(map(is_identity_map, indexing_maps(generic))):
        return None
    block = generic.regions[0].blocks[0]
    body = [operation(o) for o in block.operations]
    if [o.name for o in body] != ["linalg.index", "arith.index_cast", "arith.cmpi", "arith.select", "linalg.yield"]:
        return None
    index, cast, cmp, select, yield_ = body
    dim = ir.IntegerAttr(index.attributes["dim"]).value
    predicate = _PREDICATES.get(ir.IntegerAttr(cmp.attributes["predicate"]).value)
    bound = cmp.operands[1]
    args = list(block.arguments)
    if (predicate is None or cast.operands[0] != index.results[0] or cmp.operands[0] != cast.results[0]
            or select.operands[0] != cmp.results[0] or yield_.operands[0] != select.results[0]
            or str(bound.type) != "i64" or value_in_regions(bound, generic)):
        return None
    picked = [select.operands[1], select.operands[2]]
    if picked == [args[0], args[1]]:
        return dim, predicate, bound, inputs[0], inputs[1]
    if picked == [args[1], args[0]]:
        return dim, predicate, bound, inputs[1], inputs[0]
    return None


def _index(v: int):
    from mlir import ir
    from mlir.dialects import arith
    return arith.constant(ir.IndexType.get(), v)


def _extract(source, offsets: dict, sizes: dict, keep=()):
    """tensor.extract_slice of `source` (see slice_mixed). A slice of a slice is taken
    from the first one's source, so that a narrowed generic reads the very slice (the same
    offsets, after CSE) it is written back to, which one-shot bufferization then does in
    place (gramschmidt's update of the columns right of k): except a slice of a tensor in
    `keep`, which a generic of the step also reads at other points (durbin's flip of y),
    so it cannot be updated in place, and a read of that very slice only made
    bufferization copy it first."""
    from mlir import ir
    from mlir.dialects import arith, tensor
    outer = defining(source)
    if (outer is not None and outer.name == "tensor.extract_slice" and _static_strides(outer)
            and outer.operands[0] not in keep
            and ir.RankedTensorType(outer.results[0].type).rank == ir.RankedTensorType(outer.operands[0].type).rank):
        base, base_sizes = mixed(outer, "offsets"), mixed(outer, "sizes")
        merged_offsets, merged_sizes = {}, {}
        for k, b in enumerate(base):
            o = offsets.get(k, 0)
            if isinstance(o, int) and isinstance(b, int):
                merged_offsets[k] = o + b
            elif isinstance(b, int) and b == 0:
                merged_offsets[k] = o
            elif isinstance(o, int) and o == 0:
                merged_offsets[k] = b
            else:
                merged_offsets[k] = arith.addi(o if not isinstance(o, int) else _index(o),
                                               b if not isinstance(b, int) else _index(b))
            merged_sizes[k] = sizes.get(k, base_sizes[k])
        return _extract(outer.operands[0], merged_offsets, merged_sizes, keep)
    t = ir.RankedTensorType(source.type)
    dyn_off, dyn_size, st_off, st_size, st_str = slice_mixed(t.shape, offsets, sizes)
    result = ir.RankedTensorType.get(st_size, t.element_type)
    return tensor.ExtractSliceOp(result, source, dyn_off, dyn_size, [], st_off, st_size, st_str).result


def _rewrite_select(generic) -> bool:
    """slice_selects on one generic; whether it was rewritten."""
    from mlir import ir
    from mlir.dialects import arith, tensor
    found = _select_of(generic)
    if found is None:
        return False
    dim, predicate, bound, x, y = found
    n = ir.RankedTensorType(x.type).shape[dim]
    if ir.ShapedType.is_dynamic_size(n):
        return False
    outer = _put_back(generic, y)
    if outer is None and not _summed(generic, y):
        return False  # the part not selected would be materialized: the fused select is cheaper
    with ir.InsertionPoint(generic if outer is None else outer), generic.location:
        b = arith.index_cast(ir.IndexType.get(), bound)
        if predicate in ("sle", "sgt"):  # i <= b is i < b + 1; i > b is i >= b + 1
            b = arith.addi(b, _index(1))
        b = arith.minsi(arith.maxsi(b, _index(0)), _index(n))
        lo, hi = (_index(0), b) if predicate in ("slt", "sle") else (b, _index(n))
        size = arith.subi(hi, lo)
        part = _extract(x, {dim: lo}, {dim: size})
        if outer is None:
            dest, offsets, sizes = y, {dim: lo}, {dim: size}
        else:  # straight into the array y was sliced from: the elements outside stay
            dest = outer.operands[1]
            base = mixed(outer, "offsets")  # constants (_put_back)
            shift = lo if base[dim] == 0 else arith.addi(lo, _index(base[dim]))
            offsets = {k: (shift if k == dim else o) for k, o in enumerate(base)}
            sizes = {k: (size if k == dim else s) for k, s in enumerate(mixed(outer, "sizes"))}
        dyn_off, dyn_size, st_off, st_size, st_str = slice_mixed(
            ir.RankedTensorType(dest.type).shape, offsets, sizes)
        merged = tensor.InsertSliceOp(part, dest, dyn_off, dyn_size, [], st_off, st_size, st_str).result
    (generic if outer is None else outer).results[0].replace_all_uses_with(merged)
    if outer is not None:
        outer.erase()
    generic.erase()
    return True


def _summed(generic, y) -> bool:
    """Whether the select's only use is a linalg.dot and y is zeros (the dot then runs over
    the selected part alone, _narrow_dot)."""
    uses = list(generic.results[0].uses)
    return len(uses) == 1 and operation(uses[0].owner).name == "linalg.dot" and is_zero_fill(y)


def _static_strides(op) -> bool:
    """Whether a slice op's strides are the constant 1."""
    from mlir import ir
    return all(s == 1 for s in ir.DenseI64ArrayAttr(op.attributes["static_strides"]))


def _static_slice(op) -> bool:
    """Whether a slice op's offsets and sizes are constants and its strides 1."""
    return len(op.operands) == (2 if op.name == "tensor.insert_slice" else 1) and _static_strides(op)


def _put_back(generic, y):
    """The tensor.insert_slice that puts the select's only use back where y was sliced
    from (insert_range(a, select(x, extract_range(a)))), else None."""
    from mlir import ir
    source = defining(y)
    uses = list(generic.results[0].uses)
    if source is None or source.name != "tensor.extract_slice" or len(uses) != 1:
        return None
    outer = operation(uses[0].owner)
    if outer.name != "tensor.insert_slice" or outer.operands[0] != generic.results[0]:
        return None
    if outer.operands[1] != source.operands[0] or not (_static_slice(outer) and _static_slice(source)):
        return None
    if any(outer.attributes[a] != source.attributes[a] for a in ("static_offsets", "static_sizes")):
        return None
    if ir.RankedTensorType(y.type).rank != ir.RankedTensorType(outer.operands[1].type).rank:
        return None  # a rank-reducing slice: its dims are not the array's
    return outer


def slice_selects(module) -> int:
    """Rewrite the counter-select generics of `module` (an ir.Module, before elementwise
    fusion) that are put back where y came from, or summed by a dot with zeros for y, as
    x's part inserted; the number rewritten."""
    return sum(_rewrite_select(g) for g in ops_named(module, ("linalg.generic",)))


def _narrow(slice_op) -> bool:
    """narrow_producers on one extract_slice; whether its producer was narrowed."""
    from mlir import ir
    from mlir.dialects import arith
    generic = defining(slice_op.operands[0])
    if generic is None or generic.name != "linalg.generic" or len(generic.results) != 1:
        return False
    if len(list(generic.results[0].uses)) != 1 or not all_parallel(generic):
        return False
    if generic.block != slice_op.block:
        return False  # (a generic outside a loop sliced inside it would be computed per step)
    source = ir.RankedTensorType(slice_op.operands[0].type)
    result = ir.RankedTensorType(slice_op.results[0].type)
    if result.rank != source.rank or not _static_strides(slice_op):
        return False  # a rank-reducing or strided slice
    maps = indexing_maps(generic)
    n_in = len(generic.opview.inputs)
    if not is_identity_map(maps[n_in]) or any(not _point_map(m) for m in maps):
        return False
    offsets, sizes = mixed(slice_op, "offsets"), mixed(slice_op, "sizes")
    if all(o == 0 for o in offsets) and list(sizes) == list(source.shape):
        return False
    gathered = _gathered(slice_op.block)
    with ir.InsertionPoint(slice_op), slice_op.location:
        operands = []
        for v, m in zip(generic.operands, maps):
            along = {k: ir.AffineDimExpr(e).position for k, e in enumerate(m.results)
                     if isinstance(e, ir.AffineDimExpr)}
            operands.append(_extract(v, {k: offsets[d] for k, d in along.items()},
                                     {k: sizes[d] for k, d in along.items()}, gathered))
        narrowed = generic.clone(ir.InsertionPoint(slice_op))
        for k, v in enumerate(operands):
            narrowed.operands[k] = v
        narrowed.results[0].set_type(result)
    for index in [operation(o) for o in narrowed.regions[0].blocks[0].operations if operation(o).name == "linalg.index"]:
        offset = offsets[ir.IntegerAttr(index.attributes["dim"]).value]
        if isinstance(offset, int) and offset == 0:
            continue
        with ir.InsertionPoint.after(index), index.location:
            shift = offset if not isinstance(offset, int) else _index(offset)
            moved = arith.addi(index.results[0], shift)
        index.results[0].replace_all_uses_except(moved, defining(moved))
    slice_op.results[0].replace_all_uses_with(narrowed.results[0])
    slice_op.erase()
    generic.erase()
    return True


def _gathered(block) -> list:
    """The tensors that a linalg.generic in `block` reads by tensor.extract in its payload
    (at other points than its own): before fusion, the generic that gathers may be another
    than the one that reads the slice, and fusion then makes them one."""
    found = []
    for op in block.operations:
        op = operation(op)
        if op.name == "linalg.generic":
            found.extend(o.operands[0] for o in ops_named(op, ("tensor.extract",)))
    return found


def _point_map(amap) -> bool:
    """Whether `amap` reads at a point of the iteration space: each result a dim (each
    dim at most once) or a constant."""
    from mlir import ir
    dims = [ir.AffineDimExpr(e).position for e in amap.results if isinstance(e, ir.AffineDimExpr)]
    return len(dims) == len(set(dims)) and all(
        isinstance(e, (ir.AffineDimExpr, ir.AffineConstantExpr)) for e in amap.results)


def _narrow_dot(dot) -> bool:
    """A linalg.dot with an operand that is a slice inserted into zeros (a masked part:
    durbin's `sum over i < k`) runs over that slice: the zeros add nothing."""
    from mlir import ir
    a, b = list(dot.opview.inputs)
    for k, (padded, other) in enumerate(((a, b), (b, a))):
        insert = defining(padded)
        if insert is None or insert.name != "tensor.insert_slice" or not is_zero_fill(insert.operands[1]):
            continue
        if ir.RankedTensorType(insert.operands[0].type).rank != 1:
            continue
        if not _static_strides(insert):
            continue
        offsets, sizes = mixed(insert, "offsets"), mixed(insert, "sizes")
        with ir.InsertionPoint(dot), dot.location:
            part = _extract(other, {0: offsets[0]}, {0: sizes[0]}, _gathered(dot.block))
        dot.operands[k] = insert.operands[0]
        dot.operands[1 - k] = part
        return True
    return False


_PURE = ("tensor.extract_slice", "tensor.insert_slice", "tensor.empty", "linalg.fill", "linalg.generic")


def _erase_dead(module) -> None:
    """Erase the tensor ops whose results nothing uses (the slices and fills the rewrites
    leave behind), so that they do not count as uses of a generic to narrow."""
    from mlir import ir
    while True:
        dead = [op for op in ops_named(module, _PURE)
                if op.results and all(not list(r.uses) for r in op.results)
                and all(isinstance(r.type, ir.RankedTensorType) for r in op.results)]
        if not dead:
            return
        for op in reversed(dead):
            op.erase()


def narrow_producers(module) -> int:
    """Narrow the dots over zero-padded operands to the unpadded part (_narrow_dot), then
    the generics whose only use is an extract_slice to the slice, until none is left (a
    narrowed generic's operands may be slices of generics in turn); the number of ops
    narrowed."""
    total = sum(_narrow_dot(d) for d in ops_named(module, ("linalg.dot",)))
    while True:
        _erase_dead(module)
        done = sum(_narrow(s) for s in ops_named(module, ("tensor.extract_slice",)))
        if not done:
            return total
        total += done
