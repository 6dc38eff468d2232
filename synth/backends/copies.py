"""Copies between strided views become loops the JIT compiles.

One-shot bufferization copies a slice where it cannot write in place (a memref.copy): in
the library loops (linalg's LU, Cholesky, triangular solves) that is a column of the
matrix (n elements 8 * n bytes apart) copied into a vector and back, each step. MLIR
lowers a memref.copy whose views are not both contiguous to a call of the runtime's
generic `memrefCopy`, which copies an element at a time through memcpy: for LU raised to
linalg at PolyBench LARGE it took 12% of the run, and libc's memmove under it another
11% (perf).

`copies_as_loops` (after bufferization, before the linalg ops are lowered to loops)
rewrites each memref.copy that MLIR would lower to that call into a linalg.copy, which
convert-linalg-to-loops turns into a loop nest compiled with the function. MLIR lowers a
copy to a memcpy only where both views have the identity layout or a static shape laid out
contiguously; any other, a column (an innermost stride other than 1) or a contiguous slice
at an offset known only at run time (`memref<?xf64, strided<[1], offset: ?>>`), goes to the
runtime, which moves even a contiguous slice one element (one memcpy call) at a time
(the lowering of gramschmidt's stablehlo raise copies n x 1 columns so, and that of LU's
its 2000 x 50 panels, whose rows lie 2000 elements apart: see mlir_cpu for the times).
"""

from __future__ import annotations


def _memcpy(memref_type) -> bool:
    """Whether MLIR's LLVM lowering copies a view of `memref_type` by memcpy (its layout is
    the identity map, or its shape is static, not empty and laid out row-major contiguously,
    at any offset)."""
    from mlir import ir

    t = ir.MemRefType(memref_type)
    layout = t.layout
    if isinstance(layout, ir.AffineMapAttr) and ir.AffineMapAttr(layout).value == ir.AffineMap.get_identity(t.rank):
        return True
    if not t.has_static_shape or any(n == 0 for n in t.shape):
        return False
    strides, _ = t.get_strides_and_offset()
    running = 1
    for n, stride in reversed(list(zip(t.shape, strides))):
        if stride != running:
            return False
        running *= n
    return True


def _byte_sized(memref_type) -> bool:
    """Whether the elements are whole bytes (memref-to-llvm asserts on a loop's stores of
    i1; the runtime's copy moves them)."""
    from mlir import ir

    element = ir.MemRefType(memref_type).element_type
    return (isinstance(element, (ir.F64Type, ir.F32Type, ir.F16Type, ir.BF16Type, ir.IndexType))
            or (isinstance(element, ir.IntegerType) and ir.IntegerType(element).width % 8 == 0))


def copies_as_loops(module) -> int:
    """Rewrite `module`'s (an ir.Module, bufferized) memref.copy ops that would lower to the
    runtime's copy (see the module) into linalg.copy; the number rewritten."""
    from mlir import ir
    from mlir.dialects import linalg

    from synth.backends.ir_toolkit import ops_named

    rewritten = 0
    for copy in ops_named(module, ("memref.copy",)):
        source, target = copy.operands[0], copy.operands[1]
        if (_memcpy(source.type) and _memcpy(target.type)) or not _byte_sized(source.type):
            continue
        with ir.InsertionPoint(copy), copy.location:
            linalg.copy(source, outs=[target])
        copy.erase()
        rewritten += 1
    return rewritten
