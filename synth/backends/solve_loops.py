"""`stablehlo.triangular_solve` as a `stablehlo.while` of substitution steps: a backend's
lowering below the raised IR, for IREE, whose stablehlo input has no lowering of the op
("failed to legalize operation 'stablehlo.triangular_solve' that was explicitly marked
illegal", iree-compile 3.13).

The raised text keeps the op (what validation tests and proves); XLA expands it itself;
IREE gets this form, after library_stablehlo's blocked forms (which solve their diagonal
blocks with the op) and before iree_dynamic (which takes its dynamic-shape ops). Every
attribute combination: `left_side` (true: op(a) x = b; false: x op(a) = b, solved as
op(a)^T x^T = b^T), `lower`, `unit_diagonal`, `transpose_a` (TRANSPOSE and ADJOINT the
same for real types: a transposed once, the triangle flipped); rank-2 operands of static
or dynamic extents (synth emits no batch dims; an op with them is left as it is).

The loop, n steps over the rows of x (forward from row 0 for a lower triangle, backward
from row n - 1 for an upper one), x starting as zeros: step i takes row i of a with the
entries outside the solved part selected to zero (j < i, resp. j > i: the other triangle
and the diagonal are never read, whatever they hold), its product with x (one
`dot_general`, 1 x n times n x m: the rows not yet solved are zero), b's row i less that,
divided by a[i, i] unless `unit_diagonal`, written into row i of x. Each element is b's
element less the sum of the products, then divided, as the substitution loops compute it;
only the order of that sum is the dot's (the bench compares within a tolerance,
synth.numerics.compare_outputs). Sizes: static extents slice with `dynamic_slice`;
dynamic ones with `real_dynamic_slice`, and make their zeros and masks with
`dynamic_broadcast_in_dim` / `dynamic_iota`.

Not lowered (left to the backend, whose error says so: IREE then compiles the generic raise
per input shapes, where every extent is static): a dynamic number of right-hand sides
(DYNAMIC_COUNT), which synth's raises do not emit (a vector's solve is an n x 1 column).

`lower(text)` returns the module text and how many ops it replaced; the conformance test
(tests/test_iree_lowerings.py) runs the lowered module on IREE and XLA against XLA's result of
the op and NumPy, at every attribute combination and sizes 1, odd, prime, non-square
right-hand sides, static and dynamic.
"""

from __future__ import annotations

import re

from synth.backends.ir_toolkit import ops_named

NAME = "synth-solve-loops"
# why a dynamic number of right-hand sides is left as it is: the step's 1 x n times n x ?
# product, which IREE 3.13 turns into a reshape to tensor<?xf64> that its own verifier refuses
# why a row of dynamic length is multiplied and summed, not a dot_general with x: IREE 3.13
# collapses the 1 x ? row of `dot_general` by a stablehlo.reshape to tensor<?xf64>, which its
# own verifier then refuses (for more than one right-hand side)
DYNAMIC_ROW = "'stablehlo.reshape' op result #0 must be statically shaped"
DYNAMIC_COUNT = ("'stablehlo.reshape' op result #0 must be statically shaped ..., but got 'tensor<?xf64>'"
                 " (iree-compile 3.13, of the dot_general of a 1 x ? row and an ? x ? matrix)")


def _dims(type_text: str) -> tuple[list[str], str] | None:
    """(the extents, as text: digits or '?'; the element type) of a ranked tensor type."""
    m = re.fullmatch(r"tensor<((?:(?:\d+|\?)x)*)(\w+)>", type_text)
    if m is None:
        return None
    return [d for d in m.group(1).split("x") if d], m.group(2)


def _flag(op, name: str) -> bool:
    return name in op.attributes and str(op.attributes[name]).strip() == "true"


def _tensor(dims, dt: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in dims) + f"{dt}>"


class _Body:
    """The lines of one function's body, with fresh SSA names."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0

    def __call__(self, rhs: str) -> str:
        self.count += 1
        name = f"%v{self.count}"
        self.lines.append(f"  {name} = {rhs}")
        return name


def solve_function(name: str, a_type: str, b_type: str, left_side: bool, lower: bool,
                   unit_diagonal: bool, transpose_a: bool) -> str | None:
    """`func.func private @name(a, b) -> x` computing the op's x by substitution, None for
    types this lowering does not take (not rank 2)."""
    a, b = _dims(a_type), _dims(b_type)
    if a is None or b is None or len(a[0]) != 2 or len(b[0]) != 2:
        return None
    if b[0][1 if left_side else 0] == "?":  # right-hand sides of a dynamic count: see DYNAMIC_COUNT
        return None
    dt = a[1]
    body = _Body()
    s = "tensor<i64>"
    a_val, b_val = "%a", "%b"
    (bm, bn) = b[0]
    if not left_side:  # x op(a) = b  <=>  op(a)^T x^T = b^T
        transpose_a = not transpose_a
        b_val = body(f"stablehlo.transpose %b, dims = [1, 0] : ({b_type}) -> {_tensor([bn, bm], dt)}")
        bm, bn = bn, bm
    if transpose_a:  # the transpose of one triangle is the other one
        a_val = body(f"stablehlo.transpose %a, dims = [1, 0] : ({a_type}) -> {_tensor(a[0][::-1], dt)}")
        lower = not lower
    n_dim, m_dim = a[0][0] if a[0][0] != "?" else (a[0][1] if a[0][1] != "?" else bm), bn
    if n_dim == "?" and bm != "?":
        n_dim = bm
    a_t = _tensor(a[0] if not transpose_a else a[0][::-1], dt)
    x_t, row_t, brow_t = _tensor([bm, bn], dt), _tensor(["1", n_dim], dt), _tensor(["1", m_dim], dt)
    mask_t, imask_t = _tensor(["1", n_dim], "i1"), _tensor(["1", n_dim], "i64")

    def size(value: str, dim: int, static: str) -> str:
        if static != "?":
            return body(f"stablehlo.constant dense<{static}> : {s}")
        d = body(f"stablehlo.get_dimension_size {value}, dim = {dim} : ({_tensor_of(value)}) -> tensor<i32>")
        return body(f"stablehlo.convert {d} : (tensor<i32>) -> {s}")

    types = {a_val: a_t, b_val: _tensor([bm, bn], dt), "%a": a_type, "%b": b_type}
    _tensor_of = types.__getitem__
    n = size(b_val, 0, bm if bm != "?" else n_dim)
    m = size(b_val, 1, m_dim)
    zero = body(f"stablehlo.constant dense<0.000000e+00> : tensor<{dt}>")
    c0 = body(f"stablehlo.constant dense<0> : {s}")
    c1 = body(f"stablehlo.constant dense<1> : {s}")

    def shape2(first: str, second: str) -> str:
        parts = [body(f"stablehlo.reshape {v} : ({s}) -> tensor<1xi64>") for v in (first, second)]
        return body(f"stablehlo.concatenate {parts[0]}, {parts[1]}, dim = 0 : "
                    f"(tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>")

    def splat(value: str, vt: str, dims: list[str], rt: str, shape=None) -> str:
        if "?" not in dims:
            return body(f"stablehlo.broadcast_in_dim {value}, dims = [] : ({vt}) -> {rt}")
        return body(f"stablehlo.dynamic_broadcast_in_dim {value}, {shape()}, dims = [] : "
                    f"({vt}, tensor<2xi64>) -> {rt}")

    x0 = splat(zero, f"tensor<{dt}>", [bm, bn], x_t, lambda: shape2(n, m))
    head = list(body.lines)
    body.lines = []
    # the loop's body: step %i, x %x
    row_at = "%i" if lower else body(f"stablehlo.subtract {body(f'stablehlo.subtract {n}, %i : {s}')}, {c1} : {s}")

    def row_of(value: str, vt: str, width: str, rt: str, width_value: str) -> str:
        if width != "?":
            return body(f"stablehlo.dynamic_slice {value}, {row_at}, {c0}, sizes = [1, {width}] : "
                        f"({vt}, {s}, {s}) -> {rt}")
        start = shape2(row_at, c0)
        limit = shape2(body(f"stablehlo.add {row_at}, {c1} : {s}"), width_value)
        strides = shape2(c1, c1)
        return body(f"stablehlo.real_dynamic_slice {value}, {start}, {limit}, {strides} : "
                    f"({vt}, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> {rt}")

    row = row_of(a_val, a_t, n_dim, row_t, n)
    if n_dim != "?":
        cols = body(f"stablehlo.iota dim = 1 : {imask_t}")
    else:
        cols = body(f"stablehlo.dynamic_iota {shape2(c1, n)}, dim = 1 : (tensor<2xi64>) -> {imask_t}")
    at = splat(row_at, s, ["1", n_dim], imask_t, lambda: shape2(c1, n))
    solved = body(f"stablehlo.compare {'LT' if lower else 'GT'}, {cols}, {at} : ({imask_t}, {imask_t}) -> {mask_t}")
    zeros = splat(zero, f"tensor<{dt}>", ["1", n_dim], row_t, lambda: shape2(c1, n))
    part = body(f"stablehlo.select {solved}, {row}, {zeros} : {mask_t}, {row_t}")
    if n_dim != "?":
        dot = body(f"stablehlo.dot_general {part}, %x, contracting_dims = [1] x [0] : ({row_t}, {x_t}) -> {brow_t}")
    else:  # see DYNAMIC_ROW: the row as a column, times x, summed over the rows
        col_t = _tensor([n_dim, "1"], dt)
        col = body(f"stablehlo.transpose {part}, dims = [1, 0] : ({row_t}) -> {col_t}")
        if m_dim != "1":
            col = body(f'"stablehlo.dynamic_broadcast_in_dim"({col}, {shape2(n, m)}) <{{broadcast_dimensions = '
                       f'array<i64: 0, 1>, known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = '
                       f'array<i64: 0>}}> : ({col_t}, tensor<2xi64>) -> {x_t}')
        terms = body(f"stablehlo.multiply {col}, %x : {x_t}")
        sums = body(f"stablehlo.reduce({terms} init: {zero}) applies stablehlo.add across dimensions = [0] : "
                    f"({x_t}, tensor<{dt}>) -> {_tensor([m_dim], dt)}")
        dot = body(f"stablehlo.reshape {sums} : ({_tensor([m_dim], dt)}) -> {brow_t}")
    rhs = row_of(b_val, types[b_val], m_dim, brow_t, m)
    value = body(f"stablehlo.subtract {rhs}, {dot} : {brow_t}")
    if not unit_diagonal:
        diag = body(f"stablehlo.dynamic_slice {a_val}, {row_at}, {row_at}, sizes = [1, 1] : "
                    f"({a_t}, {s}, {s}) -> {_tensor(['1', '1'], dt)}")
        if m_dim != "?":
            d = body(f"stablehlo.broadcast_in_dim {diag}, dims = [0, 1] : ({_tensor(['1', '1'], dt)}) -> {brow_t}")
        else:
            d = body(f"stablehlo.dynamic_broadcast_in_dim {diag}, {shape2(c1, m)}, dims = [0, 1] : "
                     f"({_tensor(['1', '1'], dt)}, tensor<2xi64>) -> {brow_t}")
        value = body(f"stablehlo.divide {value}, {d} : {brow_t}")
    x1 = body(f"stablehlo.dynamic_update_slice %x, {value}, {row_at}, {c0} : ({x_t}, {brow_t}, {s}, {s}) -> {x_t}")
    i1 = body(f"stablehlo.add %i, {c1} : {s}")
    step = body.lines
    out = _tensor([bm, bn], dt)
    lines = [f"func.func private @{name}(%a: {a_type}, %b: {b_type}) -> {b_type} {{", *head,
             f"  %w:2 = stablehlo.while(%i = {c0}, %x = {x0}) : {s}, {x_t}",
             "  cond {",
             f"    %p = stablehlo.compare LT, %i, {n} : ({s}, {s}) -> tensor<i1>",
             "    stablehlo.return %p : tensor<i1>",
             "  } do {", *("  " + ln for ln in step),
             f"    stablehlo.return {i1}, {x1} : {s}, {x_t}",
             "  }"]
    result = "%w#1"
    if not left_side:
        lines.append(f"  %xt = stablehlo.transpose %w#1, dims = [1, 0] : ({out}) -> {b_type}")
        result = "%xt"
    lines += [f"  return {result} : {b_type}", "}"]
    return "\n".join(lines) + "\n"


def lower(text: str) -> tuple[str, int]:
    """`text` (a stablehlo module) with each rank-2 `stablehlo.triangular_solve` replaced by
    a call of its substitution loop; (the module text, how many were replaced)."""
    if "triangular_solve" not in text:
        return text, 0
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func as func_d

    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        found = ops_named(module, {"stablehlo.triangular_solve"})
        taken = {str(f.attributes["sym_name"]).strip('"') for f in module.body.operations
                 if "sym_name" in f.attributes}
        count, helpers = 0, []
        for op in found:
            transpose = str(op.attributes["transpose_a"])
            name = f"__synth_solve_loop_{count}"
            while name in taken:
                name += "_"
            fn = solve_function(name, str(op.operands[0].type), str(op.operands[1].type),
                                _flag(op, "left_side"), _flag(op, "lower"), _flag(op, "unit_diagonal"),
                                "NO_TRANSPOSE" not in transpose)
            if fn is None:
                continue
            helper = ir.Module.parse(fn)
            helpers.append(helper)  # alive until the functions moved out of it are printed
            for f in list(helper.body.operations):
                module.body.append(f)  # moves the function into the module
            with ir.InsertionPoint(op), op.location:
                call = func_d.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(name), list(op.operands))
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
            taken.add(name)
            count += 1
        if not count:
            return text, 0
        module.operation.verify()
        return str(module), count
