"""C front end: static-control C kernels (PolyBench style) to affine MLIR.

`translate_c` parses a C file with libclang (the `libclang` wheel, no Polygeist) and
emits one `func.func` per function with a body, in the form synth reads (see
`benchmarks/polybench/*.mlir`): every loop an `affine.for`, every array access an
`affine.load` / `affine.store`, `affine.if` for affine conditions, scalar locals as
`memref.alloca() : memref<T>`, scalar arithmetic in `arith` / `math`.

What is translated (anything else is refused with an `InputError` at FILE:LINE:COL,
naming the construct):

- parameters: `double` / `float` / `int` / `long` scalars (f64 / f32 / i32 / i64), and
  arrays with constant extents (`double A[N][M]`, `DATA_TYPE POLYBENCH_2D(A,NI,NJ,ni,nj)`
  after macro expansion) as static memrefs `memref<NxMxf64>`, in the C order. Arrays whose
  extent is a run-time value (C99 VLAs `double A[n][m]`) and pointers are refused.
- `for (i = lb; i < ub; i++)` (also `<=`, `>`, `>=`, `++i`, `i += c`, `i = i + c`, and
  decreasing loops `i--` / `i -= c`) with affine bounds: constants, integer parameters
  (an `arith.index_cast` of the argument, used as a symbol), enclosing loop indices,
  `+ - *` by constants.
- `if` / `else` whose condition is a conjunction (`&&`) of affine comparisons
  (`<`, `<=`, `>`, `>=`, `==`; `!=` and `!` swap the branches) -> `affine.if`.
- array subscripts that are affine in loop indices and integer parameters.
- scalar locals (initialised or not) and local arrays of constant extent ->
  `memref.alloca` (hoisted to the function entry), read and written with affine ops;
  scalar parameters that the function assigns get such a local copy.
- `=`, `+=`, `-=`, `*=`, `/=` (and `%=`, bitwise), `++` / `--` on scalars and elements;
  `+ - * /` (`%`, bitwise and shifts on integers), unary minus, comparisons, `&&`, `||`,
  `!`, `c ? a : b` (`arith.select`: both operands are evaluated), casts between the
  scalar types (loop indices through `arith.index_cast`), integer and float literals
  (constant expressions are folded), calls to `sqrt exp log pow fabs fmax fmin tanh sin
  cos floor ceil` (and the `f` variants).
- `return expr;` as the function's last statement -> `func.return` with a result.

Refused: `while`, `do`, `goto`, `break`, `continue`, `switch`, `return` before the end,
pointer parameters, pointer arithmetic and dereference, `&`, struct access, calls to other
functions, data-dependent loop bounds, conditions and subscripts (`A[B[i]]`), non-affine
subscripts (`A[i*j]`), global variables, unsigned/char/short/long double types.

The package follows the data flow: `libclang` parses the file (libclang, diagnostics,
the compiler's resource headers); `model` holds the translator's vocabulary (MLIR scalar
types, refusals, affine expressions, bindings, cursor helpers); one function is translated
by `_FunctionTranslator`, built in layers: `emitter` (SSA values, ops, constants, types
and conversions, the scope of declarations), `affine` (affine expressions, bounds and
conditions), `expressions` (values, accesses, assignments, calls), `statements` (the
function, its statements, `affine.for` / `affine.if`); `translate` assembles the module and
reprints it through MLIR.
"""

# _FALLBACK_HEADERS and _FALLBACK_INCLUDE: the shipped headers, which tests check
from synth.frontend.c.libclang import _FALLBACK_HEADERS as _FALLBACK_HEADERS
from synth.frontend.c.libclang import _FALLBACK_INCLUDE as _FALLBACK_INCLUDE
from synth.frontend.c.libclang import resource_include_dir
from synth.frontend.c.translate import list_c_functions, translate_c

__all__ = ["list_c_functions", "resource_include_dir", "translate_c"]
