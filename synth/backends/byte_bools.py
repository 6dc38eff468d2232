"""Buffers of booleans (memref<...xi1>) become buffers of bytes (memref<...xi8>).

The ownership-based deallocation (buffer-deallocation-pipeline) keeps, where a loop yields
buffers it may have allocated (gramschmidt's columns, floyd-warshall's matrix raised to
stablehlo), one ownership flag per buffer, in memref<?xi1> arrays passed to a helper
function it generates (@dealloc_helper). MLIR 22's memref-to-LLVM conversion asserts on
a store into a memref of i1 (`integralElementType.getWidth() >= 8`), so such a function
aborted the worker and the backend could not run it.

`bools_as_bytes` (after the deallocation pipeline, before the conversion to LLVM) gives
every memref of i1 the element type i8, stores the flags zero-extended and truncates
them back when loaded. LLVM lays out an i1 array one byte per element, as an i8 array,
so the layout in memory is the same. A module where a memref of i1 is used by any op
other than those (vector reads and writes of flags, for one) is left as it is.
"""

from __future__ import annotations

# the ops a memref of i1 may meet for the rewrite to hold: they carry the memref (its
# type follows the rewritten one) or load and store its elements
_CARRIERS = {"memref.alloc", "memref.alloca", "memref.cast", "memref.dealloc", "memref.dim",
             "memref.subview", "memref.reinterpret_cast", "memref.extract_strided_metadata",
             "memref.extract_aligned_pointer_as_index", "memref.copy", "func.call", "func.return",
             "scf.for", "scf.if", "scf.yield", "scf.while", "scf.condition", "cf.br", "cf.cond_br"}
_ACCESSES = {"memref.load", "memref.store"}


def _cast(kind, t):
    """`t` as an ir type class `kind` (ir.MemRefType, ir.IntegerType), else None."""
    try:
        return kind(t)
    except ValueError:
        return None


def _flag(t) -> bool:
    """Whether `t` is i1."""
    from mlir import ir

    integer = _cast(ir.IntegerType, t)
    return integer is not None and integer.width == 1


def _widened(t):
    """memref<...xi8> for a memref<...xi1> type, else None."""
    from mlir import ir

    m = _cast(ir.MemRefType, t)
    if m is None or not _flag(m.element_type):
        return None
    return ir.MemRefType.get(m.shape, ir.IntegerType.get_signless(8), m.layout, m.memory_space,
                             loc=ir.Location.unknown())


def bools_as_bytes(module) -> int:
    """Rewrite `module` (an ir.Module, bufferized) so no memref has i1 elements; the number
    of values whose type changed (0: none, or a use the rewrite does not cover)."""
    from mlir import ir
    from mlir.dialects import arith

    from synth.backends.ir_toolkit import nested_ops

    ops = nested_ops(module)
    values = []  # (value, its new type)
    for op in ops:
        for result in op.results:
            if (t := _widened(result.type)) is not None:
                values.append((result, t))
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    if (t := _widened(arg.type)) is not None:
                        values.append((arg, t))
    if not values:
        return 0
    for value, _ in values:
        for use in value.uses:
            if use.owner.name not in _CARRIERS | _ACCESSES:
                return 0
    i8 = ir.IntegerType.get_signless(8)
    for value, t in values:
        value.set_type(t)
    for op in ops:
        if op.name == "memref.global" and (t := _widened(ir.TypeAttr(op.attributes["type"]).value)) is not None:
            _widen_global(op, t)  # a constant mask of flags (memref.get_global's results were widened)
        elif op.name == "func.func":
            signature = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            inputs = [_widened(t) or t for t in signature.inputs]
            results = [_widened(t) or t for t in signature.results]
            op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
        elif op.name == "memref.store" and _flag(op.operands[0].type):
            with ir.InsertionPoint(op), op.location:
                op.operands[0] = arith.extui(i8, op.operands[0])
        elif op.name == "memref.load" and _flag(op.results[0].type):
            flag = op.results[0]
            flag.set_type(i8)
            with ir.InsertionPoint.after(op), op.location:
                narrowed = arith.trunci(ir.IntegerType.get_signless(1), flag)
            flag.replace_all_uses_except(narrowed, narrowed.owner.operation)
    return len(values)


def _widen_global(op, t) -> None:
    """A memref.global of i1 as one of i8 (type `t`): its initial value's flags as 0 / 1 bytes."""
    import numpy as np
    from mlir import ir

    op.attributes["type"] = ir.TypeAttr.get(t)
    if "initial_value" not in op.attributes:
        return
    try:
        dense = ir.DenseIntElementsAttr(op.attributes["initial_value"])
    except ValueError:  # `uninitialized`: no value to convert
        return
    shape = ir.MemRefType(t).shape
    flags = np.array([int(bool(dense[k])) for k in range(len(dense))], dtype=np.int8)
    if dense.is_splat and flags.size != int(np.prod(shape)):
        flags = np.full(shape, flags[0], dtype=np.int8)
    op.attributes["initial_value"] = ir.DenseElementsAttr.get(flags.reshape(shape), type=t.element_type)
