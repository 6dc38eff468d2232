"""IREE compiling a shape-generic stablehlo raise as it is, with dynamic shapes
(synth.backends.iree_dynamic, the stage below the raised text that rewrites the ops IREE
3.13's stablehlo input refuses at dynamic shapes): the stage's rewrites, two small
programs with every rewritten op through it on IREE against NumPy, and generic loops over diagonals and
hyperplanes (nussinov, seidel-2d) compiled once and run at several sizes against the
original loops."""

import numpy as np
import pytest

from conftest import DATA, POLYBENCH
from synth.backends import iree_dynamic
from synth.backends.iree import IreeBackend, PerShapeAfterDynamic

HERE = DATA / "diagonals"


def _iree(tmp_path) -> IreeBackend:
    backend = IreeBackend("stablehlo", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    return backend


# a while inside a while, each carrying a dynamic tensor (IREE alone: "'tensor.dim' op
# unexpected during shape cleanup"), a dynamic_update_slice of a dynamic update at a start
# the op clamps, a gather of one index per lane (tensor<?x1xi64>) and dynamic reshapes:
# out = x doubled k times for k = 0 .. n-1, then x[idx] written at clamp(at), then out[idx]
# written at 0 (an update read from the vector it goes into, as durbin's)
PROGRAM = """func.func @f_raised(%x: tensor<?xf64>, %idx: tensor<?xi64>, %n: tensor<i64>, %at: tensor<i64>)
    -> tensor<?xf64> attributes {synth.outputs = [0]} {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%k = %c0, %acc = %x) : tensor<i64>, tensor<?xf64>
  cond {
    %g = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %g : tensor<i1>
  } do {
    %q:2 = stablehlo.while(%m = %c0, %inner = %acc) : tensor<i64>, tensor<?xf64>
    cond {
      %g2 = stablehlo.compare LT, %m, %k : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %g2 : tensor<i1>
    } do {
      %twice = stablehlo.add %inner, %inner : tensor<?xf64>
      %m2 = stablehlo.add %m, %c1 : tensor<i64>
      stablehlo.return %m2, %twice : tensor<i64>, tensor<?xf64>
    }
    %k2 = stablehlo.add %k, %c1 : tensor<i64>
    stablehlo.return %k2, %q#1 : tensor<i64>, tensor<?xf64>
  }
  %d = stablehlo.get_dimension_size %idx, dim = 0 : (tensor<?xi64>) -> tensor<i32>
  %d64 = stablehlo.convert %d : (tensor<i32>) -> tensor<i64>
  %one = stablehlo.reshape %c1 : (tensor<i64>) -> tensor<1xi64>
  %dd = stablehlo.reshape %d64 : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %dd, %one, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %column = stablehlo.dynamic_reshape %idx, %shape : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x1xi64>
  %got = "stablehlo.gather"(%x, %column) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
      start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}
      : (tensor<?xf64>, tensor<?x1xi64>) -> tensor<?xf64>
  %out = stablehlo.dynamic_update_slice %r#1, %got, %at : (tensor<?xf64>, tensor<?xf64>, tensor<i64>) -> tensor<?xf64>
  %again = "stablehlo.gather"(%out, %column) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
      start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}
      : (tensor<?xf64>, tensor<?x1xi64>) -> tensor<?xf64>
  %out2 = stablehlo.dynamic_update_slice %out, %again, %c0 : (tensor<?xf64>, tensor<?xf64>, tensor<i64>) -> tensor<?xf64>
  return %out2 : tensor<?xf64>
}
"""


def _program_reference(x, idx, n, at):
    out = x * 2.0 ** (n * (n - 1) // 2)
    start = min(max(at, 0), len(x) - len(idx))
    out[start:start + len(idx)] = x[np.clip(idx, 0, len(x) - 1)]
    out[:len(idx)] = out[np.clip(idx, 0, len(x) - 1)].copy()  # read from what it is written into
    return out


def test_the_stage_rewrites_what_iree_refuses_and_nothing_else():
    text, count = iree_dynamic.lower(PROGRAM)
    assert count == 7  # the reshape, the gathers' index, the updates, two whiles
    for gone in ("stablehlo.dynamic_reshape", "stablehlo.dynamic_update_slice", "stablehlo.while",
                 "tensor<?x1xi64>) -> tensor<?xf64>"):
        assert gone not in text
    for op in ("tensor.reshape", "tensor.collapse_shape", "tensor.insert_slice", "cf.cond_br", "arith.minsi",
               "stablehlo.select"):
        assert op in text
    static = """func.func @g(%x: tensor<8xf64>, %u: tensor<2xf64>, %at: tensor<i64>) -> tensor<8xf64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%k = %c0, %acc = %x) : tensor<i64>, tensor<8xf64>
  cond {
    %g = stablehlo.compare LT, %k, %at : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %g : tensor<i1>
  } do {
    %k2 = stablehlo.add %k, %at : tensor<i64>
    stablehlo.return %k2, %acc : tensor<i64>, tensor<8xf64>
  }
  %out = stablehlo.dynamic_update_slice %r#1, %u, %at : (tensor<8xf64>, tensor<2xf64>, tensor<i64>) -> tensor<8xf64>
  return %out : tensor<8xf64>
}
"""  # nothing dynamic: the stage leaves it as it is
    assert iree_dynamic.lower(static) == (static, 0)


def test_the_stage_on_iree_computes_what_the_ops_mean(tmp_path):
    """One .vmfb, run at several lengths, starts inside, at and beyond the ends (clamped),
    indices outside the array (clamped by the gather), nested trip counts 0 to 3."""
    prepared = _iree(tmp_path).prepare(PROGRAM, "f")
    assert not isinstance(prepared, PerShapeAfterDynamic) and prepared.pipeline_name.startswith("dynamic")
    rng = np.random.default_rng(7)
    for size, lanes, n, at in [(5, 2, 0, 1), (9, 4, 3, 7), (12, 12, 2, -3), (7, 3, 1, 100), (40, 17, 2, 5)]:
        x = rng.uniform(-1, 1, size)
        idx = rng.integers(-2, size + 2, lanes).astype(np.int64)
        got = prepared.run([x, idx, np.int64(n), np.int64(at)])[0]
        np.testing.assert_array_equal(got, _program_reference(x, idx, n, at))


# a matrix-vector and a vector-vector dot_general, a row at a counter (dynamic_gather, the
# index clamped), vectors broadcast along rows and columns, one of length n or 1 (expanding)
PRODUCTS = """func.func @h_raised(%a: tensor<?x?xf64>, %x: tensor<?xf64>, %y: tensor<?xf64>, %k: tensor<1xi64>)
    -> tensor<?x?xf64> attributes {synth.outputs = [0]} {
  %ax = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : (tensor<?x?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %xx = stablehlo.dot_general %x, %x, contracting_dims = [0] x [0] : (tensor<?xf64>, tensor<?xf64>) -> tensor<f64>
  %n32 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
  %n64 = stablehlo.convert %n32 : (tensor<i32>) -> tensor<i64>
  %n = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %sizes = stablehlo.concatenate %n, %one, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %col = "stablehlo.dynamic_gather"(%a, %k, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [0],
      collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 0>, indices_are_sorted = false}
      : (tensor<?x?xf64>, tensor<1xi64>, tensor<2xi64>) -> tensor<?xf64>
  %square = stablehlo.concatenate %n, %n, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %xxs = stablehlo.dynamic_broadcast_in_dim %xx, %n, dims = [] : (tensor<f64>, tensor<1xi64>) -> tensor<?xf64>
  %s1 = stablehlo.add %ax, %col : tensor<?xf64>
  %s2 = stablehlo.add %s1, %xxs : tensor<?xf64>
  %rows = stablehlo.dynamic_broadcast_in_dim %s2, %square, dims = [0] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  %cols = stablehlo.dynamic_broadcast_in_dim %y, %square, dims = [1] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  %out = stablehlo.add %rows, %cols : tensor<?x?xf64>
  return %out : tensor<?x?xf64>
}
"""


def test_products_rows_and_broadcasts_on_iree(tmp_path):
    text, count = iree_dynamic.lower(PRODUCTS)
    assert count == 12 and "dynamic_gather" not in text and "known_nonexpanding_dimensions" in text  # split on y
    prepared = _iree(tmp_path).prepare(PRODUCTS, "h")
    assert prepared.pipeline_name.startswith("dynamic")
    rng = np.random.default_rng(11)
    for n, k, y_length in [(4, 2, 4), (7, -3, 1), (1, 5, 1), (6, 9, 6)]:
        a, x, y = rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, n), rng.uniform(-1, 1, y_length)
        got = prepared.run([a, x, y, np.array([k], dtype=np.int64)])[0]
        row = a @ x + a[:, min(max(k, 0), n - 1)] + x @ x
        np.testing.assert_allclose(got, row[:, None] + np.broadcast_to(y, (n, n)), rtol=1e-13)


# a loop carrying a matrix, one of its columns and one of its rows (as floyd-warshall's
# kept loop): the carried vectors' lengths are the matrix's extents at every iteration
# (read from the text: iree_extents), so their broadcasts need no gather at iota, which
# IREE fuses into the 2-d consumer as indirect loads; an argument vector of length n or 1
# keeps it. Rows and columns differ in length (r x c)
CARRIED = """func.func @w_raised(%a: tensor<?x?xf64>, %y: tensor<?xf64>, %n: tensor<i64>)
    -> tensor<?x?xf64> attributes {synth.outputs = [0]} {
  %r32 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
  %r64 = stablehlo.convert %r32 : (tensor<i32>) -> tensor<i64>
  %r = stablehlo.reshape %r64 : (tensor<i64>) -> tensor<1xi64>
  %c32 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<?x?xf64>) -> tensor<i32>
  %c64 = stablehlo.convert %c32 : (tensor<i32>) -> tensor<i64>
  %c = stablehlo.reshape %c64 : (tensor<i64>) -> tensor<1xi64>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %shape = stablehlo.concatenate %r, %c, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %colsizes = stablehlo.concatenate %r, %one, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %rowsizes = stablehlo.concatenate %one, %c, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %k0 = stablehlo.constant dense<0> : tensor<i64>
  %k0v = stablehlo.reshape %k0 : (tensor<i64>) -> tensor<1xi64>
  %col0 = "stablehlo.dynamic_gather"(%a, %k0v, %colsizes) {dimension_numbers = #stablehlo.gather<offset_dims = [0],
      collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false}
      : (tensor<?x?xf64>, tensor<1xi64>, tensor<2xi64>) -> tensor<?xf64>
  %row0 = "stablehlo.dynamic_gather"(%a, %k0v, %rowsizes) {dimension_numbers = #stablehlo.gather<offset_dims = [0],
      collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false}
      : (tensor<?x?xf64>, tensor<1xi64>, tensor<2xi64>) -> tensor<?xf64>
  %w:4 = stablehlo.while(%k = %k0, %m = %a, %col = %col0, %row = %row0)
      : tensor<i64>, tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>
  cond {
    %g = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %g : tensor<i1>
  } do {
    %b1 = stablehlo.dynamic_broadcast_in_dim %col, %shape, dims = [0] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
    %b2 = stablehlo.dynamic_broadcast_in_dim %row, %shape, dims = [1] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
    %s = stablehlo.add %b1, %b2 : tensor<?x?xf64>
    %m2 = stablehlo.add %m, %s : tensor<?x?xf64>
    %c1 = stablehlo.constant dense<1> : tensor<i64>
    %k2 = stablehlo.add %k, %c1 : tensor<i64>
    %kv = stablehlo.reshape %k2 : (tensor<i64>) -> tensor<1xi64>
    %col2 = "stablehlo.dynamic_gather"(%m2, %kv, %colsizes) {dimension_numbers = #stablehlo.gather<offset_dims = [0],
        collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false}
        : (tensor<?x?xf64>, tensor<1xi64>, tensor<2xi64>) -> tensor<?xf64>
    %row2 = "stablehlo.dynamic_gather"(%m2, %kv, %rowsizes) {dimension_numbers = #stablehlo.gather<offset_dims = [0],
        collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false}
        : (tensor<?x?xf64>, tensor<1xi64>, tensor<2xi64>) -> tensor<?xf64>
    stablehlo.return %k2, %m2, %col2, %row2 : tensor<i64>, tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>
  }
  %yb = stablehlo.dynamic_broadcast_in_dim %y, %shape, dims = [1] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  %out = stablehlo.add %w#1, %yb : tensor<?x?xf64>
  return %out : tensor<?x?xf64>
}
"""


def _section(text: str, name: str) -> str:
    """The definition of function `name` in `text`."""
    start = text.index(f"@{name}(%arg0: ")
    end = text.find("func.func", start)
    return text[start:] if end < 0 else text[start:end]


def test_carried_lines_are_broadcast_without_a_gather():
    # y's length is a's column count only by the caller's precondition: the function split
    # on that test (synth.backends.iree_versions); the carried lines marked in both versions
    text, count = iree_dynamic.lower(CARRIED)
    assert count == 18
    same, other = _section(text, "w_raised__same"), _section(text, "w_raised__any")
    assert same.count("known_nonexpanding_dimensions") == 3 and same.count('"stablehlo.gather"') == 0
    assert other.count("known_nonexpanding_dimensions") == 3 and other.count('"stablehlo.gather"') == 1
    # the loop yielding the row where it carries the column: that extent is not the init's
    swapped = CARRIED.replace("return %k2, %m2, %col2, %row2", "return %k2, %m2, %row2, %col2")
    text, count = iree_dynamic.lower(swapped)
    assert _section(text, "w_raised__same").count('"stablehlo.gather"') == 2  # each line gathered, y not
    assert _section(text, "w_raised__any").count('"stablehlo.gather"') == 3


def test_carried_lines_on_iree(tmp_path):
    prepared = _iree(tmp_path).prepare(CARRIED, "w")
    assert prepared.pipeline_name.startswith("dynamic")
    rng = np.random.default_rng(5)
    for r, c, n, y_length in [(3, 5, 4, 5), (6, 2, 7, 1), (1, 1, 2, 1), (9, 7, 0, 7)]:
        a, y = rng.uniform(-1, 1, (r, c)), rng.uniform(-1, 1, y_length)
        m, col, row = a.copy(), a[:, 0], a[0, :]
        for k in range(n):
            m = m + col[:, None] + row[None, :]
            col, row = m[:, min(k + 1, c - 1)], m[min(k + 1, r - 1), :]
        got = prepared.run([a, y, np.int64(n)])[0]
        np.testing.assert_allclose(got, m + np.broadcast_to(y, (r, c)), rtol=1e-12)


def _nussinov_inputs(n: int, rng) -> list:
    return [np.int32(n), rng.integers(0, 4, n).astype(np.int8), rng.integers(-3, 6, (n, n)).astype(np.int32)]


def test_a_generic_diagonal_raise_runs_on_iree_as_it_is(tmp_path):
    """nussinov (char bases) emitted for every size (the text `--shapes generic` raises,
    without its validation: tests/test_diagonals_generic.py), compiled by IREE once, with
    dynamic shapes, and run at three sizes against the original loops, bit for bit."""
    from synth.analysis.model import load_kernel
    from synth.execution import run_function
    from synth.frontend.reader import COptions, load_input
    from synth.synthesis.diagonals import diagonal_raise

    path = HERE / "nussinov_char.c"
    kernel = load_kernel(load_input(path, c=COptions(defines=("N=9",)), warn=False), "kernel_nussinov")
    kernel.sizes.with_test_values()
    text = diagonal_raise(kernel, "stablehlo").generic_text()
    assert "stablehlo.gather" in text and "tensor<?x1xi64>" in text  # what IREE refuses alone
    prepared = _iree(tmp_path).prepare(text, "kernel_nussinov")
    assert prepared.pipeline_name.startswith("dynamic")
    rng = np.random.default_rng(29)
    for n in (3, 7, 16):
        inputs = _nussinov_inputs(n, rng)
        original = load_input(path, c=COptions(defines=(f"N={n}",)), warn=False).text
        want = run_function(original, "kernel_nussinov", [("i32", n), inputs[1], inputs[2].copy()]).outputs[-1]
        got = prepared.run(inputs)[0]
        assert got.dtype == want.dtype and np.array_equal(got, want), n


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["nussinov", "seidel-2d", "durbin"])
def test_polybench_generic_raises_run_on_iree_xla_and_mlir_cpu(tmp_path, kernel):
    """The validated generic raise (`synth raise --shapes generic`) of PolyBench's
    diagonal (nussinov) and hyperplane (seidel-2d) kernels, and durbin (a vector update
    read from the vector it goes into): IREE compiles it once, as it is; it, XLA and
    (seidel-2d, durbin) mlir-cpu, both per input shapes, give the original loops' values
    at two sizes."""
    from synth.analysis.function import list_functions
    from synth.analysis.model import load_kernel
    from synth.backends.registry import backends_for
    from synth.cli import main
    from synth.execution import run_function
    from synth.frontend.reader import load_input
    from synth.synthesis.spec import diagonally_dominant, random_draw

    out = tmp_path / "raised.mlir"
    path = POLYBENCH / f"{kernel}.mlir"
    assert main(["raise", str(path), "--target", "stablehlo", "--shapes", "generic", "-q", "-o", str(out)]) == 0
    text = out.read_text()
    source = load_input(path, warn=False)
    name = list_functions(source)[0]
    model = load_kernel(source, name)
    backends = {b.name: b for b in backends_for("stablehlo", iree_cache_dir=str(tmp_path / "iree"))}
    # mlir-cpu has no lowering for nussinov's stablehlo loop over diagonals (not a counted
    # loop: synth.backends.stablehlo_linalg), so its linalg raise is the one mlir-cpu runs
    names = ("iree-llvm-cpu", "xla-cpu") + (("mlir-cpu",) if kernel != "nussinov" else ())
    prepared = {n: backends[n].prepare(text, name) for n in names}
    assert prepared["iree-llvm-cpu"].pipeline_name.startswith("dynamic")
    rng = np.random.default_rng(31)
    sizes = {"nussinov": [{"arg0": 9}, {"arg0": 23}], "durbin": [{"arg0": 17}, {"arg0": 40}],  # durbin: n >= 10
             "seidel-2d": [{"arg0": 3, "arg1": 8}, {"arg0": 5, "arg1": 13}]}[kernel]  # (synth.backends.iree_dynamic)
    for values in sizes:
        args = diagonally_dominant(model.arguments(values, random_draw(rng)))  # durbin well-posed
        want = run_function(model.at(values).text, name, [a.copy() if isinstance(a, np.ndarray) else a for a in args],
                            opt_level=2).outputs
        inputs = [a if isinstance(a, np.ndarray) else np.asarray(a[1], dtype=model.tensor_type(i, values).numpy_dtype)
                  for i, a in enumerate(args[: model.n_arguments])]
        for backend, p in prepared.items():
            got = p.run([x.copy() for x in inputs])
            for k, o in enumerate(model.outputs):
                np.testing.assert_allclose(got[k], want[o], rtol=1e-9, atol=1e-12,
                                           err_msg=f"{backend} at {values}")  # sums reordered


# static shapes: a vector's update computed from the vector itself (durbin's y[0:k] +
# a * flip(y[0:k]) into y, here the reversed first 7 of x plus x's own, written at 1)
SELF_UPDATE = """func.func @s_raised(%x: tensor<9xf64>) -> tensor<9xf64> attributes {synth.outputs = [0]} {
  %head = stablehlo.slice %x [0:7] : (tensor<9xf64>) -> tensor<7xf64>
  %flip = stablehlo.reverse %head, dims = [0] : tensor<7xf64>
  %sum = stablehlo.add %head, %flip : tensor<7xf64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %out = stablehlo.dynamic_update_slice %x, %sum, %one : (tensor<9xf64>, tensor<7xf64>, tensor<i64>) -> tensor<9xf64>
  return %out : tensor<9xf64>
}
"""


def test_a_vector_updated_from_itself_is_a_select_on_iree(tmp_path):
    """IREE fuses such an update into its in-place insert and reads overwritten elements
    (durbin's static raise at MEDIUM: wrong output in `synth bench`); the stage writes it
    as a select, at static shapes too."""
    text, count = iree_dynamic.lower(SELF_UPDATE)
    assert count == 1 and "dynamic_update_slice" not in text and "stablehlo.select" in text
    x = np.random.default_rng(13).uniform(-1, 1, 9)
    want = x.copy()
    want[1:8] = x[:7] + x[:7][::-1]
    np.testing.assert_array_equal(_iree(tmp_path).prepare(SELF_UPDATE, "s").run([x])[0], want)


KEPT_LOOP_2D = """
func.func @w(%steps: tensor<i32>, %a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> (tensor<?x?xf64>, tensor<?x?xf64>) attributes {synth.outputs = [1, 2]} {
  %e = tensor.extract %steps[] : tensor<i32>
  %n = arith.index_cast %e : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm2 = arith.constant -2 : index
  %d = tensor.dim %a, %c0 : tensor<?x?xf64>
  %m = arith.addi %d, %cm2 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (tensor<?x?xf64>, tensor<?x?xf64>) {
    %s0 = tensor.extract_slice %x[1, 1] [%m, %m] [1, 1] : tensor<?x?xf64> to tensor<?x?xf64>
    %s1 = tensor.extract_slice %x[1, 0] [%m, %m] [1, 1] : tensor<?x?xf64> to tensor<?x?xf64>
    %e1 = tensor.empty(%m, %m) : tensor<?x?xf64>
    %sum = linalg.add ins(%s0, %s1 : tensor<?x?xf64>, tensor<?x?xf64>) outs(%e1 : tensor<?x?xf64>) -> tensor<?x?xf64>
    %y2 = tensor.insert_slice %sum into %y[1, 1] [%m, %m] [1, 1] : tensor<?x?xf64> into tensor<?x?xf64>
    %t0 = tensor.extract_slice %y2[1, 1] [%m, %m] [1, 1] : tensor<?x?xf64> to tensor<?x?xf64>
    %t1 = tensor.extract_slice %y2[0, 1] [%m, %m] [1, 1] : tensor<?x?xf64> to tensor<?x?xf64>
    %e2 = tensor.empty(%m, %m) : tensor<?x?xf64>
    %p = linalg.mul ins(%t0, %t1 : tensor<?x?xf64>, tensor<?x?xf64>) outs(%e2 : tensor<?x?xf64>) -> tensor<?x?xf64>
    %x2 = tensor.insert_slice %p into %x[1, 1] [%m, %m] [1, 1] : tensor<?x?xf64> into tensor<?x?xf64>
    scf.yield %x2, %y2 : tensor<?x?xf64>, tensor<?x?xf64>
  }
  return %r#0, %r#1 : tensor<?x?xf64>, tensor<?x?xf64>
}
"""


def test_a_generic_linalg_loop_carrying_tensors_runs_on_iree_per_input_shapes(tmp_path):
    """A 2-d stencil whose kept loop inserts each step's interior into the two carried
    arrays (jacobi-2d's shape, generic linalg): IREE 3.13 compiled at dynamic shapes returns
    wrong values (the boundary, which no step writes, changed), so such a raise is compiled
    per input shapes, and is right at every shape."""
    from synth.backends.iree import PerShapeKeptLoop

    prepared = IreeBackend("linalg", cache_dir=tmp_path / "iree").prepare(KEPT_LOOP_2D, "w")
    assert isinstance(prepared, PerShapeKeptLoop) and prepared.pipeline_name == "per-shape (kept loop)"
    rng = np.random.default_rng(2)
    for n, steps in ((9, 3), (20, 4), (3, 2)):
        a, b = rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (n, n))
        want_a, want_b = a.copy(), b.copy()
        for _ in range(steps):
            want_b[1:-1, 1:-1] = want_a[1:-1, 1:-1] + want_a[1:-1, :-2]
            want_a[1:-1, 1:-1] = want_b[1:-1, 1:-1] * want_b[:-2, 1:-1]
        got = prepared.run([np.int32(steps), a.copy(), b.copy()])
        np.testing.assert_allclose(got[0], want_a, rtol=1e-12)
        np.testing.assert_allclose(got[1], want_b, rtol=1e-12)
