"""C front end: C kernels, as libraries and applications write them, to affine MLIR.

`translate_c` parses a C file with libclang (the `libclang` wheel, no Polygeist) and
emits one `func.func` per function with a body, in the form synth reads (see
`benchmarks/polybench/*.mlir`): every loop an `affine.for`, every array access an
`affine.load` / `affine.store`, `affine.if` for affine conditions, scalar locals as
`memref.alloca() : memref<T>`, scalar arithmetic in `arith` / `math` with C's types and
conversions. What it reads and what it refuses is in the README ("What synth reads", C):
pointers and arrays of run-time extent, flattened subscripts read as multi-dimensional
ones, integer locals and pointer walks replaced by their closed forms, `if` on data as
selects, the file's own functions inlined. Refusals are `InputError`s at FILE:LINE:COL,
naming the construct. `sizes` (`--size NAME=VALUE`) gives integer parameters values.

A function is translated in two passes: the first follows it to record every array
access (with the ranges of the loop indices there) and the integer locals that turn out
to be data; `layout` then reads each array's accesses as a shape; the second pass emits.

The package follows the data flow: `libclang` parses the file (libclang, diagnostics,
the compiler's resource headers); `model` holds the translator's vocabulary (refusals,
bindings, pointer views, affine operands, cursor helpers), `scalars` C's scalar types and
rules, `poly` integer expressions as polynomials, `layout` the delinearization,
`evolution` how a variable changes over a loop's iteration, `jumps` loop bodies with
`continue` as the statements that run; one function is translated
by `_FunctionTranslator`, built in layers: `emitter` (SSA values, ops, constants, types
and conversions, the scope of declarations), `affine` (polynomials of integer
expressions, symbols, bounds and conditions), `access` (arrays, pointers, element
accesses), `expressions` (values, assignments, calls, inlining), `loops` (`affine.for`
and the variables advancing in it), `counted` (`while` / `do` loops that count, as
`affine.for` over their iterations), `returns` (quick returns: the branch and the rest
of the function, selected by `affine.if` on sizes or by selects on data), `statements`
(the function, its statements,
declarations, `affine.if` and if-conversion); `translate` runs the passes, assembles the
module and reprints it through MLIR.
"""

# FALLBACK_HEADERS and FALLBACK_INCLUDE: the shipped headers, which tests check
from synth.frontend.c.libclang import FALLBACK_HEADERS as FALLBACK_HEADERS
from synth.frontend.c.libclang import FALLBACK_INCLUDE as FALLBACK_INCLUDE
from synth.frontend.c.libclang import resource_include_dir
from synth.frontend.c.translate import list_c_functions, translate_c

__all__ = ["list_c_functions", "resource_include_dir", "translate_c"]
