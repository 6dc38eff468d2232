"""The start indices of each `stablehlo.gather` clamped explicitly, as the op's semantics
clamp them (into [0, operand dim - slice size] along each dim of `start_index_map`): a
stage of the IREE backend below the raised text (synth.backends.iree), before iree_dynamic.

IREE 3.13's CPU code for a gather whose index vector is explicit, of extent 1
(`tensor<Nx1xi64>`, `index_vector_dim` its last dim; an implicit one is clamped), reads at the
index as it is: a raise whose gathers read
out of range on lanes a select then discards (nussinov's diagonals over its flattened,
padded table: the lanes outside the triangle, index -1 and beyond the end) reads outside
the buffer. Small arrays read neighbouring memory and the select hides it; at PolyBench
LARGE (a 6.25M-element table) the read leaves the mapping and the call dies with SIGSEGV
(`IREE worker died during call ... (exit code -11)`). XLA clamps as the spec says, and so
does this stage, so both compute the op's meaning; an index in range is unchanged.

Gathers whose clamped dims are all of static extent are rewritten (a dynamic one is left
as it is); one `stablehlo.clamp` of the index tensor per gather, its bounds scalars where
one dim is indexed, else a vector broadcast along `index_vector_dim`.
"""

from __future__ import annotations

import re

from synth.backends.ir_toolkit import ops_named

NAME = "synth-gather-clamps"


def _numbers(op) -> tuple[list[int], int | None]:
    """(start_index_map, index_vector_dim or None where the attribute omits it) of a gather."""
    text = str(op.attributes["dimension_numbers"])
    start = re.search(r"start_index_map = \[([\d, ]*)\]", text)
    vector = re.search(r"index_vector_dim = (\d+)", text)
    return ([int(x) for x in start.group(1).split(",") if x.strip()] if start else [],
            int(vector.group(1)) if vector else None)


def _clamp(ir, op) -> int:
    operand_t, index_t = ir.RankedTensorType(op.operands[0].type), ir.RankedTensorType(op.operands[1].type)
    start_map, vector_dim = _numbers(op)
    if vector_dim is None:
        vector_dim = 0
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
    if not start_map or any(operand_t.is_dynamic_dim(d) for d in start_map):
        return 0
    elem = index_t.element_type
    highs = [operand_t.shape[d] - sizes[d] for d in start_map]
    components = 1 if vector_dim == index_t.rank else index_t.shape[vector_dim]
    if components != len(highs) or any(h < 0 for h in highs):
        return 0
    scalar = ir.RankedTensorType.get([], elem)

    def constant(t, values):
        if len(set(values)) == 1:
            attr = ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(elem, values[0]))
        else:
            import numpy as np

            width = ir.IntegerType(elem).width
            attr = ir.DenseElementsAttr.get(np.asarray(values, dtype=f"int{width}"), type=t)
        return ir.Operation.create("stablehlo.constant", results=[t], attributes={"value": attr}).results[0]

    with ir.InsertionPoint(op), op.location:
        if len(set(highs)) == 1:  # one bound for every component: scalars
            lo, hi = constant(scalar, [0]), constant(scalar, [highs[0]])
        else:
            if not index_t.has_static_shape:
                return 0
            vec = ir.RankedTensorType.get([len(highs)], elem)
            lo = constant(index_t, [0])
            hi = ir.Operation.create("stablehlo.broadcast_in_dim", results=[index_t],
                                     operands=[constant(vec, highs)],
                                     attributes={"broadcast_dimensions": ir.DenseI64ArrayAttr.get([vector_dim])}
                                     ).results[0]
        clamped = ir.Operation.create("stablehlo.clamp", results=[index_t], operands=[lo, op.operands[1], hi])
    op.operands[1] = clamped.results[0]
    return 1


def lower(text: str) -> tuple[str, int]:
    """`text` (a stablehlo module) with each gather's start indices clamped; (the module
    text, how many gathers were rewritten)."""
    if "stablehlo.gather" not in text:
        return text, 0
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    with jax_mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        count = sum(_clamp(ir, op) for op in ops_named(module, {"stablehlo.gather"}))
        if not count:
            return text, 0
        module.operation.verify()
        return str(module), count
