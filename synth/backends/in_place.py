"""A loop step that updates its array elementwise writes the array in place.

floyd-warshall's step, raised to linalg, is `path = min(path, col_k + row_k)` over the
whole matrix (with selects where row k or column k changed earlier in the step), inside
an scf.for that carries `path`. After elementwise fusion it is one linalg.generic that
reads the loop's iter_arg at each point and writes a tensor.empty (the fusion drops a
destination its payload does not read), and it also reads row k and column k: slices of
the iter_arg it overwrites. One-shot bufferization then gives each step a new buffer for
the result (31 MB at LARGE, one per step) and leaves the old one behind.

`write_in_place` rewrites such a generic, after the fusion and before bufferization: it
writes into the iter_arg itself, and its operands that are slices of the iter_arg are
copied first (linalg.copy into new tensors: a row and a column, not the matrix). Reading
and writing one element at the same point is no conflict for one-shot bufferization
(linalg's element-wise access), so the step then updates the array in place. The tensor
program computes the same: the payload never reads its destination, and the copies hold
the values the slices had.

Only iter_args of an scf.for are taken (a function's arguments may be read-only), and
only where every other use of the iter_arg comes before the generic in its block; where
bufferization still finds a conflict it copies, as it would have. The iter_arg written is
the one the loop yields the generic's result as, where it does (durbin's scalars: the new
beta is computed from alpha and beta, and replaces beta), else one the generic reads at
each point. A 1-element tensor read at (d0) -> (0) is read at each point (the map is
rewritten to the destination's); durbin carries its scalars that way. Without the rewrite
its loop yielded a new buffer per scalar per step, and the deallocation of those (a
runtime helper on i1 memrefs) made MLIR's LLVM lowering abort: durbin ran the untiled
fallback pipeline, 14.7 ms at LARGE; tiled, 7.6 ms (one thread, medians of 20 calls).

`_copy_read_slices` (in the same stage): a linalg.matmul writing one block of an array
and reading a smaller block of it reads a copy of the smaller one (see there).
"""

from __future__ import annotations

from synth.backends.ir_toolkit import (
    operation, ops_named, indexing_maps, all_parallel, defining, in_block)

_VIEWS = ("tensor.extract_slice", "tensor.collapse_shape", "tensor.expand_shape")


def _is_identity(amap, shape) -> bool:
    """Whether `amap` reads each point of an iteration space of `shape` at that point: dim k
    at result k, or 0 where the space is 1 wide (durbin's scalars, as 1-element tensors)."""
    from mlir import ir
    return amap.n_dims == len(amap.results) == len(shape) and all(
        (isinstance(e, ir.AffineDimExpr) and ir.AffineDimExpr(e).position == k)
        or (shape[k] == 1 and isinstance(e, ir.AffineConstantExpr) and ir.AffineConstantExpr(e).value == 0)
        for k, e in enumerate(amap.results))


def _iter_arg(value) -> bool:
    """Whether `value` is an iter_arg of an scf.for (a block argument after the counter)."""
    from mlir import ir
    owner = value.owner
    if not isinstance(owner, ir.Block):
        return False
    parent = owner.owner
    return parent is not None and operation(parent).name == "scf.for" and ir.BlockArgument(value).arg_number > 0


def _uses_before(value, generic) -> bool:
    """Whether every use of `value` other than by `generic` is in `generic`'s block (or
    nested in an op of it) before `generic`."""
    block = generic.block
    order = {op: k for k, op in enumerate(operation(o) for o in block.operations)}
    here = order[generic]
    for use in value.uses:
        user = in_block(use.owner, block)
        if user is None or user not in order:
            return False
        if user != generic and order[user] >= here:
            return False
    return True


def _carried_as(generic):
    """The iter_arg whose next value `generic`'s result is (yielded at its position by the
    scf.for whose body holds the generic), else None."""
    from mlir import ir
    loop = generic.parent
    if loop is None or loop.name != "scf.for" or generic.block != loop.regions[0].blocks[0]:
        return None
    block = generic.block
    terminator = operation(list(block.operations)[-1])
    result = generic.results[0]
    for k, v in enumerate(terminator.operands):
        if v == result:
            return block.arguments[k + 1]
    return None


def _slice_of(value, base) -> bool:
    """Whether `value` is `base` seen through view ops (slices, reshapes)."""
    while value != base:
        op = defining(value)
        if op is None or op.name not in _VIEWS:
            return False
        value = op.operands[0]
    return True


def _rewrite(generic) -> bool:
    from mlir import ir

    view = generic.opview
    n_in = len(view.inputs)
    outs = list(view.outputs)
    if len(outs) != 1 or not all_parallel(generic):
        return False
    init = defining(outs[0])
    if init is None or init.name != "tensor.empty":
        return False
    if list(generic.regions[0].blocks[0].arguments[n_in].uses):
        return False  # the payload reads its destination
    maps = indexing_maps(generic)
    inputs = list(view.inputs)
    shape = ir.RankedTensorType(outs[0].type).shape
    if not _is_identity(maps[n_in], shape):
        return False  # (written at other points than the iteration's: not elementwise)
    carried = _carried_as(generic)
    candidates = ([carried] if carried is not None else []) + [
        v for v, m in zip(inputs, maps) if _is_identity(m, shape) and _iter_arg(v)]
    target = next((v for v in candidates if v.type == outs[0].type and _uses_before(v, generic)
                   and all(_is_identity(m, shape) for u, m in zip(inputs, maps) if u == v)), None)
    if target is None:
        return False  # (read elsewhere than at the point written: bufferization would copy it)
    copies: list[tuple] = []
    with ir.InsertionPoint(generic), generic.location:
        for k, v in enumerate(inputs):
            if v == target or not isinstance(v.type, ir.RankedTensorType) or not _slice_of(v, target):
                continue
            copy = next((c for u, c in copies if u == v), None)
            if copy is None:  # (a dynamic dim sized by tensor.dim of v: a shape-generic raise)
                copy = _copy_operand(v)
                copies.append((v, copy))
            generic.operands[k] = copy
    generic.operands[n_in] = target
    out_map = ir.ArrayAttr(generic.attributes["indexing_maps"])[n_in]
    generic.attributes["indexing_maps"] = ir.ArrayAttr.get(  # 0 on a 1-wide dim read as the dim
        [out_map if k < n_in and inputs[k] == target else a
         for k, a in enumerate(ir.ArrayAttr(generic.attributes["indexing_maps"]))])
    return True


def _extent(t) -> tuple[int, int]:
    """A shape's size for comparing slices: (its dynamic dims, the product of its static
    ones); a dynamic dim counts as larger than any static one."""
    from mlir import ir
    shape = ir.RankedTensorType(t).shape
    dynamic = sum(1 for d in shape if ir.ShapedType.is_dynamic_size(d))
    static = 1
    for d in shape:
        static *= 1 if ir.ShapedType.is_dynamic_size(d) else d
    return dynamic, static


def _copy_operand(v):
    """linalg.copy of the tensor `v` into a new tensor.empty of its type (inserted before
    the op being rewritten)."""
    from mlir import ir
    from mlir.dialects import arith, linalg, tensor
    t = ir.RankedTensorType(v.type)
    sizes = [tensor.dim(v, arith.constant(ir.IndexType.get(), k)) if ir.ShapedType.is_dynamic_size(d) else d
             for k, d in enumerate(t.shape)]
    return linalg.copy(v, outs=[tensor.EmptyOp(sizes, t.element_type).result])


def _copy_read_slices(op) -> bool:
    """A linalg.matmul that writes a slice of an array and reads a smaller slice of the
    same array (LU's trailing block and the row panel above it) reads a copy of that
    slice instead. One-shot bufferization cannot tell that the two slices are disjoint
    (the tiled matmul's loops write the one while reading the other), so it copied the
    written block into a new buffer and back: two copies of up to the whole trailing
    matrix per panel, and fresh pages for each. The copy of the read slice is the smaller
    one; where the read slice is the larger (Cholesky's columns left of its panel), the
    op is left alone."""
    from mlir import ir
    if op.name != "linalg.matmul":
        return False
    view = op.opview
    out = defining(view.outputs[0])
    if out is None or out.name != "tensor.extract_slice":
        return False
    base = out.operands[0]
    changed = False
    with ir.InsertionPoint(op), op.location:
        for k, v in enumerate(view.inputs):
            src = defining(v)
            if (src is not None and src.name == "tensor.extract_slice" and src.operands[0] == base
                    and _extent(v.type) < _extent(view.outputs[0].type)):
                op.operands[k] = _copy_operand(v)
                changed = True
    return changed


def write_in_place(module) -> int:
    """Rewrite the qualifying linalg.generics of `module` (an ir.Module, after elementwise
    fusion, before bufferization) as described above, and give matmuls that write a slice
    of the array they read a copy of the read slice (_copy_read_slices); the number of
    ops rewritten."""
    found = ops_named(module, ("linalg.generic", "linalg.matmul"))
    return sum(_rewrite(g) if g.name == "linalg.generic" else _copy_read_slices(g) for g in found)
