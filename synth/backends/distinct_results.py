"""synth-distinct-results: a function that returns one tensor value at two positions (two
outputs CSE made one: y^T A and A^T y) returns a copy of it at the later ones
(bufferization.alloc_tensor copy(...)), before bufferization.

MLIR 22's buffer-results-to-out-params{hoist-static-allocs=1} crashes the process
(SIGSEGV) on a memref returned twice: the tiled pipeline failed on such a function (it had
fallen back, silently, to plain loops before failures were recorded)."""

from __future__ import annotations

from synth.backends.ir_toolkit import ops_named


def distinct_results(module) -> int:
    """Give every repeated tensor operand of a func.return in `module` its own copy; the
    number of copies made."""
    from mlir import ir

    count = 0
    for ret in ops_named(module, ("func.return",)):
        seen = set()
        for k, value in enumerate(list(ret.operands)):
            if not str(value.type).startswith("tensor<"):
                continue
            if value not in seen:
                seen.add(value)
                continue
            t = ir.RankedTensorType(value.type)
            dynamic = [] if t.has_static_shape else None
            if dynamic is None:
                continue  # a dynamic shape: left as it is
            with ir.InsertionPoint(ret), ret.location:
                copy = ir.Operation.create("bufferization.alloc_tensor", results=[t], operands=[value],
                                           attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 1, 0])})
            ret.operands[k] = copy.results[0]
            count += 1
    return count


def distinct_result_buffers(module) -> int:
    """synth-distinct-result-buffers, between bufferization and buffer-results-to-out-params:
    a function that returns one memref at two positions returns a copy of it (memref.alloc
    + memref.copy) at the later ones; the number of copies made.

    Distinct tensor results may share a buffer once bufferized: dtrmv_lower's generic
    linalg raise returns x and tmp, equal, the second as `linalg.copy ins(%v) outs(%e)`;
    made static, canonicalize + CSE fold its `tensor.empty` %e into the one %v was
    computed in, and one-shot bufferization writes the copy in place (it copies a buffer
    onto itself), so both results are one memref, on which MLIR 22's
    buffer-results-to-out-params{hoist-static-allocs=1} crashes the process (SIGSEGV)."""
    from mlir import ir
    from mlir.dialects import arith, memref

    count = 0
    for ret in ops_named(module, ("func.return",)):
        seen = set()
        for k, value in enumerate(list(ret.operands)):
            if not str(value.type).startswith("memref<"):
                continue
            if value not in seen:
                seen.add(value)
                continue
            t = ir.MemRefType(value.type)
            with ir.InsertionPoint(ret), ret.location:
                sizes = [memref.dim(value, arith.constant(ir.IndexType.get(), d))
                         for d in range(t.rank) if t.is_dynamic_dim(d)]
                layout_free = ir.MemRefType.get(t.shape, t.element_type, memory_space=t.memory_space)
                fresh = memref.alloc(layout_free, sizes, [])
                memref.copy(value, fresh)
                if layout_free != t:
                    fresh = memref.cast(t, fresh)
            ret.operands[k] = fresh
            count += 1
    return count
