"""Copies between strided views become loops the JIT compiles.

One-shot bufferization copies a slice where it cannot write in place (a memref.copy): in
the library loops (linalg's LU, Cholesky, triangular solves) that is a column of the
matrix (n elements 8 * n bytes apart) copied into a vector and back, each step. MLIR
lowers a memref.copy whose views are not both contiguous to a call of the runtime's
generic `memrefCopy`, which copies an element at a time through memcpy: for LU raised to
linalg at PolyBench LARGE it took 12% of the run, and libc's memmove under it another
11% (perf).

`copies_as_loops` (after bufferization, before the linalg ops are lowered to loops)
rewrites each memref.copy whose source or target has an innermost stride other than 1
(a column; a dynamic stride) into a linalg.copy, which convert-linalg-to-loops turns into
a loop nest compiled with the function. Copies whose innermost dimension is contiguous
(rows, whole arrays) stay memref.copy: they lower to memcpy (contiguous arrays) or to the
runtime's copy, which moves each row with one memmove.
"""

from __future__ import annotations


def _strided(memref_type) -> bool:
    """Whether the innermost dimension of `memref_type` is not contiguous (its stride
    is not 1 or not known)."""
    from mlir import ir

    t = ir.MemRefType(memref_type)
    if t.rank == 0:
        return False
    strides, _ = t.get_strides_and_offset()
    return strides[-1] != 1


def _byte_sized(memref_type) -> bool:
    """Whether the elements are whole bytes (memref-to-llvm asserts on a loop's stores of
    i1; the runtime's copy moves them)."""
    from mlir import ir

    element = ir.MemRefType(memref_type).element_type
    return (isinstance(element, (ir.F64Type, ir.F32Type, ir.F16Type, ir.BF16Type, ir.IndexType))
            or (isinstance(element, ir.IntegerType) and ir.IntegerType(element).width % 8 == 0))


def copies_as_loops(module) -> int:
    """Rewrite `module`'s (an ir.Module, bufferized) memref.copy ops between views with a
    strided innermost dimension into linalg.copy; the number rewritten."""
    from mlir import ir
    from mlir.dialects import linalg

    from synth.backends.in_place import ops_named

    rewritten = 0
    for copy in ops_named(module, ("memref.copy",)):
        source, target = copy.operands[0], copy.operands[1]
        if not (_strided(source.type) or _strided(target.type)) or not _byte_sized(source.type):
            continue
        with ir.InsertionPoint(copy), copy.location:
            linalg.copy(source, outs=[target])
        copy.erase()
        rewritten += 1
    return rewritten
