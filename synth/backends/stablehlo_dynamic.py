"""The dynamic stablehlo ops of a shape-generic raise (`synth raise --shapes generic`:
tensor<?x...>) in forms jaxlib's `stablehlo-legalize-to-linalg` lowers, rewritten on the
parsed module before that pass (synth.backends.stablehlo_linalg.to_linalg):
- `stablehlo.dynamic_broadcast_in_dim`: the pass lowers it only where each dynamic operand
  dim is known not to expand (`known_nonexpanding_dimensions`); every operand dim that is
  not a static 1 is marked so. That is what a verified raise computes: synth's parametric
  semantics (synth.semantics.raised_parametric_tensor) require each such operand dim to
  equal the result dim it maps to, and the grammar (stablehlo_base.broadcast_to) broadcasts
  the other dims from a static 1;
- `stablehlo.dynamic_update_slice` with a dynamic operand or update type: a
  `tensor.insert_slice` at SSA offsets, each start clamped to [0, dim(operand) -
  dim(update)] as stablehlo defines (the pass lowers the static case only);
- `stablehlo.dynamic_reshape`: a `tensor.reshape` by its shape operand cast to index;
- `stablehlo.dynamic_gather` of one slice (a vector of start indices, no batch dims; adi's
  and deriche's rows and columns at the counter): a rank-reducing `tensor.extract_slice`,
  as stablehlo_linalg._slice_gathers_as_slices lowers a static gather; its sizes from the
  slice-sizes operand, each start clamped to [0, dim - size], a dim outside
  `start_index_map` from 0, the collapsed dims of size 1 (stablehlo requires it); any
  other dynamic_gather of constant slice sizes, the stablehlo.gather it is
  (`_constant_gathers`).
"""

from __future__ import annotations

from synth.backends.ir_toolkit import defining_named, ops_named


def _dynamic(t) -> bool:
    from jaxlib.mlir import ir

    return not ir.RankedTensorType(t).has_static_shape


def _nonexpanding_broadcasts(module) -> int:
    from jaxlib.mlir import ir

    n = 0
    for op in ops_named(module, ("stablehlo.dynamic_broadcast_in_dim",)):
        operand = ir.RankedTensorType(op.operands[0].type)
        dims = [k for k in range(operand.rank) if operand.is_dynamic_dim(k) or operand.shape[k] != 1]
        op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(dims)
        n += 1
    return n


def _create(name, operands, results, ip, **attributes):
    from jaxlib.mlir import ir

    return ir.Operation.create(name, results=results, operands=operands, attributes=attributes, ip=ip)


def _dim(ip, value, k):
    from jaxlib.mlir import ir

    index = ir.IndexType.get()
    c = _create("arith.constant", [], [index], ip, value=ir.IntegerAttr.get(index, k)).result
    return _create("tensor.dim", [value, c], [index], ip).result


def _updates_as_inserts(module) -> int:
    """Each dynamic_update_slice of a dynamic type as a tensor.insert_slice, starts clamped."""
    from jaxlib.mlir import ir

    n = 0
    for op in ops_named(module, ("stablehlo.dynamic_update_slice",)):
        operand, update, starts = op.operands[0], op.operands[1], list(op.operands)[2:]
        if not (_dynamic(operand.type) or _dynamic(update.type)):
            continue
        with op.location:
            _update_as_insert(op, operand, update, starts)
        n += 1
    return n


def _update_as_insert(op, operand, update, starts) -> None:
    from jaxlib.mlir import ir

    if True:
        ip, index = ir.InsertionPoint(op), ir.IndexType.get()
        utype = ir.RankedTensorType(update.type)
        zero = _create("arith.constant", [], [index], ip, value=ir.IntegerAttr.get(index, 0)).result
        offsets, sizes, static_sizes = [], [], []
        for k, start in enumerate(starts):
            s = _create("tensor.extract", [start], [ir.RankedTensorType(start.type).element_type], ip).result
            s = _create("arith.index_cast", [s], [index], ip).result
            size = _dim(ip, update, k)
            room = _create("arith.subi", [_dim(ip, operand, k), size], [index], ip).result
            s = _create("arith.minsi", [s, room], [index], ip).result
            offsets.append(_create("arith.maxsi", [s, zero], [index], ip).result)
            if utype.is_dynamic_dim(k):
                sizes.append(size)
                static_sizes.append(ir.ShapedType.get_dynamic_size())
            else:
                static_sizes.append(utype.shape[k])
        dyn = ir.ShapedType.get_dynamic_size()
        insert = _create("tensor.insert_slice", [update, operand, *offsets, *sizes], [operand.type], ip,
                         static_offsets=ir.DenseI64ArrayAttr.get([dyn] * len(starts)),
                         static_sizes=ir.DenseI64ArrayAttr.get(static_sizes),
                         static_strides=ir.DenseI64ArrayAttr.get([1] * len(starts)),
                         operandSegmentSizes=ir.DenseI32ArrayAttr.get([1, 1, len(offsets), len(sizes), 0]))
        op.results[0].replace_all_uses_with(insert.result)
        op.erase()


def _reshapes(module) -> int:
    """Each dynamic_reshape as a tensor.reshape by its shape operand cast to index."""
    from jaxlib.mlir import ir

    n = 0
    for op in ops_named(module, ("stablehlo.dynamic_reshape",)):
        with op.location:
            _reshape(op)
        n += 1
    return n


def _reshape(op) -> None:
    from jaxlib.mlir import ir

    if True:
        ip = ir.InsertionPoint(op)
        shape = ir.RankedTensorType(op.operands[1].type)
        itype = ir.RankedTensorType.get(shape.shape, ir.IndexType.get())
        cast = _create("arith.index_cast", [op.operands[1]], [itype], ip).result
        reshape = _create("tensor.reshape", [op.operands[0], cast], [op.results[0].type], ip)
        op.results[0].replace_all_uses_with(reshape.result)
        op.erase()


def _index_at(ip, vector, k):
    """Element k of the 1-d integer tensor `vector`, as an index."""
    from jaxlib.mlir import ir

    index = ir.IndexType.get()
    c = _create("arith.constant", [], [index], ip, value=ir.IntegerAttr.get(index, k)).result
    x = _create("tensor.extract", [vector, c], [ir.RankedTensorType(vector.type).element_type], ip).result
    return _create("arith.index_cast", [x], [index], ip).result


def _gathers_as_slices(module) -> int:
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    n = 0
    for op in ops_named(module, ("stablehlo.dynamic_gather",)):
        dims = stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
        a_type, i_type = (ir.RankedTensorType(v.type) for v in list(op.operands)[:2])
        r_type = ir.RankedTensorType(op.results[0].type)
        kept = [d for d in range(a_type.rank) if d not in dims.collapsed_slice_dims]
        if i_type.rank != 1 or dims.index_vector_dim != 0 or list(dims.operand_batching_dims) or \
                list(dims.start_indices_batching_dims) or not i_type.has_static_shape or \
                i_type.shape[0] != len(dims.start_index_map) or \
                list(dims.offset_dims) != list(range(len(kept))) or r_type.rank != len(kept):
            continue
        with op.location:
            ip, index = ir.InsertionPoint(op), ir.IndexType.get()
            zero = _create("arith.constant", [], [index], ip, value=ir.IntegerAttr.get(index, 0)).result
            dyn = ir.ShapedType.get_dynamic_size()
            offsets, sizes, static_sizes = [], [], []
            for d in range(a_type.rank):
                size = None
                if d in dims.collapsed_slice_dims:
                    static_sizes.append(1)
                elif not r_type.is_dynamic_dim(kept.index(d)):
                    static_sizes.append(r_type.shape[kept.index(d)])
                else:
                    size = _index_at(ip, op.operands[2], d)
                    sizes.append(size)
                    static_sizes.append(dyn)
                if d not in dims.start_index_map:
                    offsets.append(zero)
                    continue
                if size is None:
                    size = _create("arith.constant", [], [index], ip,
                                   value=ir.IntegerAttr.get(index, static_sizes[-1])).result
                s = _index_at(ip, op.operands[1], list(dims.start_index_map).index(d))
                room = _create("arith.subi", [_dim(ip, op.operands[0], d), size], [index], ip).result
                s = _create("arith.minsi", [s, room], [index], ip).result
                offsets.append(_create("arith.maxsi", [s, zero], [index], ip).result)
            piece = _create("tensor.extract_slice", [op.operands[0], *offsets, *sizes], [r_type], ip,
                            static_offsets=ir.DenseI64ArrayAttr.get([dyn] * a_type.rank),
                            static_sizes=ir.DenseI64ArrayAttr.get(static_sizes),
                            static_strides=ir.DenseI64ArrayAttr.get([1] * a_type.rank),
                            operandSegmentSizes=ir.DenseI32ArrayAttr.get([1, len(offsets), len(sizes), 0]))
        op.results[0].replace_all_uses_with(piece.result)
        op.erase()
        n += 1
    return n


def _constant_gathers(module) -> int:
    """Each other dynamic_gather whose slice sizes are a constant (durbin's flips: the
    elements of a vector at a ?x1 of indices) as the stablehlo.gather of those sizes,
    which legalization lowers at dynamic shapes (a generic reading by tensor.extract)."""
    from jaxlib.mlir import ir

    n = 0
    for op in ops_named(module, ("stablehlo.dynamic_gather",)):
        sizes = defining_named(op.operands[2], "stablehlo.constant")
        if sizes is None:
            continue
        values = [int(v) for v in ir.DenseIntElementsAttr(sizes.attributes["value"])]
        with op.location:
            gather = ir.Operation.create(
                "stablehlo.gather", results=[op.results[0].type], operands=list(op.operands)[:2],
                attributes={"dimension_numbers": op.attributes["dimension_numbers"],
                            "indices_are_sorted": op.attributes["indices_are_sorted"],
                            "slice_sizes": ir.DenseI64ArrayAttr.get(values)}, ip=ir.InsertionPoint(op))
        op.results[0].replace_all_uses_with(gather.result)
        op.erase()
        n += 1
    return n


def dynamic_ops_lowerable(module) -> int:
    """The module's dynamic broadcasts marked, its dynamic updates, reshapes and gathers rewritten
    (above); how many ops were."""
    return (_nonexpanding_broadcasts(module) + _updates_as_inserts(module) + _reshapes(module)
            + _gathers_as_slices(module) + _constant_gathers(module))
