"""The IREE backend's stablehlo lowerings (synth.backends.passes.STABLEHLO_LOWERINGS), each
run on IREE against XLA and NumPy.

synth-solve-loops (synth.backends.solve_loops): `stablehlo.triangular_solve` as a while of
substitution steps, the form IREE gets. Every attribute combination in one module (16 ops:
left_side, lower, unit_diagonal, transpose_a), lowered and run on IREE and XLA against
XLA's result of the op itself and NumPy's solve of the triangle the op reads, at sizes 1,
odd, prime, square and non-square right-hand sides; static, and compiled once with dynamic
extents and run at several sizes.

synth-gather-clamps (synth.backends.gather_clamps): gathers at indices out of range (below
0, past the end, one component of two) give the clamped reads XLA gives."""

import itertools

import numpy as np
import pytest

from synth.backends import gather_clamps, iree_dynamic, solve_loops
from synth.backends.iree import IreeBackend, compile_vmfb
from synth.backends.xla import run_stablehlo

COMBOS = list(itertools.product([True, False], repeat=4))  # left_side, lower, unit_diagonal, transpose_a


def _module(n, m) -> str:
    """@main(a: n x n, bl: n x m, br: m x n) -> the 16 solves (n or m '?': dynamic)."""
    at, bl, br = f"tensor<{n}x{n}xf64>", f"tensor<{n}x{m}xf64>", f"tensor<{m}x{n}xf64>"
    lines, results = [], []
    for k, (left, lower, unit, transpose) in enumerate(COMBOS):
        bt, b = (bl, "%bl") if left else (br, "%br")
        lines.append(f'  %x{k} = "stablehlo.triangular_solve"(%a, {b}) {{left_side = {str(left).lower()}, '
                     f'lower = {str(lower).lower()}, unit_diagonal = {str(unit).lower()}, transpose_a = '
                     f'#stablehlo<transpose {"TRANSPOSE" if transpose else "NO_TRANSPOSE"}>}} : ({at}, {bt}) -> {bt}')
        results.append((f"%x{k}", bt))
    return (f"func.func @main(%a: {at}, %bl: {bl}, %br: {br}) -> ({', '.join(t for _, t in results)}) {{\n"
            + "\n".join(lines) + f"\n  return {', '.join(v for v, _ in results)} : "
            + ", ".join(t for _, t in results) + "\n}\n")


def _inputs(n, m, seed=0):
    """A diagonally dominant a (every triangle read is well conditioned) and the two
    right-hand sides."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (n, n)) + (n + 1) * np.eye(n)
    return a, rng.uniform(-1, 1, (n, m)), rng.uniform(-1, 1, (m, n))


def _expected(a, bl, br) -> list[np.ndarray]:
    """NumPy's solve of the triangle each combination reads."""
    out = []
    for left, lower, unit, transpose in COMBOS:
        t = np.tril(a) if lower else np.triu(a)
        if unit:
            np.fill_diagonal(t, 1.0)
        op = t.T if transpose else t
        out.append(np.linalg.solve(op, bl) if left else np.linalg.solve(op.T, br.T).T)
    return out


def _close(got, want):
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, COMBOS[k]
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13, err_msg=str(COMBOS[k]))


def _iree_run(text: str, tmp_path, dynamic: bool):
    """A function running @main of `text` (stablehlo, lowered as IreeBackend does) on IREE's
    CPU backend."""
    import iree.runtime as rt

    backend = IreeBackend("stablehlo", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    text, _ = iree_dynamic.lower(text)
    vmfb = compile_vmfb(text, backend.flags() + (("--iree-llvmcpu-vector-pproc-strategy=peel",) if dynamic else ()),
                        backend.cache_dir)
    config = rt.Config("local-sync")
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb.read_bytes()))
    main = ctx.modules.module["main"]
    return lambda *args: [np.asarray(r) for r in main(*args)]


@pytest.mark.parametrize("n, m", [(1, 1), (7, 1), (13, 4), (6, 6), (5, 11)])
def test_every_combination_static_on_xla_and_iree(n, m, tmp_path):
    text = "module {\n" + _module(n, m) + "}\n"
    lowered, count = solve_loops.lower(text)
    assert count == 16 and "triangular_solve" not in lowered
    args = _inputs(n, m, seed=n * 31 + m)
    want = _expected(*args)
    _close(run_stablehlo(text, list(args)), want)  # XLA's own expansion of the op
    _close(run_stablehlo(lowered, list(args)), want)  # the loops, on XLA
    _close(_iree_run(lowered, tmp_path, dynamic=False)(*args), want)


def test_every_combination_dynamic_on_iree_at_several_sizes(tmp_path):
    text = "module {\n" + _module("?", 3) + "}\n"
    lowered, count = solve_loops.lower(text)
    assert count == 16 and "real_dynamic_slice" in lowered and "dynamic_iota" in lowered
    run = _iree_run(lowered, tmp_path, dynamic=True)  # compiled once
    for n in (1, 2, 7, 13, 30):
        args = _inputs(n, 3, seed=n)
        want = _expected(*args)
        _close(run(*args), want)
        static = "module {\n" + _module(n, 3) + "}\n"
        _close(run_stablehlo(static, list(args)), want)  # XLA's op at that size agrees


def test_what_the_op_does_not_read_does_not_matter(tmp_path):
    """NaN in the triangle an op does not read (and on the diagonal where it is a unit one):
    the loops' masked rows never read it, so they still agree with XLA and NumPy."""
    n, m = 9, 2
    a, bl, br = _inputs(n, m, seed=5)
    cases = [(lower, unit) for lower in (True, False) for unit in (True, False)]
    run = None
    for lower, unit in cases:
        poisoned = a.copy()
        poisoned[np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)] = np.nan
        if unit:
            np.fill_diagonal(poisoned, np.nan)
        mine = [k for k, c in enumerate(COMBOS) if c[1] == lower and c[2] == unit]
        text = "module {\n" + _module(n, m) + "}\n"
        lowered, _ = solve_loops.lower(text)
        run = run or _iree_run(lowered, tmp_path, dynamic=False)
        want = _expected(a, bl, br)
        got_iree = run(poisoned, bl, br)
        got_xla = run_stablehlo(lowered, [poisoned, bl, br])
        for k in mine:
            np.testing.assert_allclose(got_iree[k], want[k], rtol=1e-12, atol=1e-13, err_msg=str(COMBOS[k]))
            np.testing.assert_allclose(got_xla[k], want[k], rtol=1e-12, atol=1e-13, err_msg=str(COMBOS[k]))


def test_a_dynamic_count_of_right_hand_sides_is_left_to_the_backend():
    text = "module {\n" + _module("?", "?") + "}\n"
    assert solve_loops.lower(text) == (text, 0)


def test_a_module_without_the_op_comes_back_as_it_was():
    text = "module {\n  func.func @main(%a: tensor<3xf64>) -> tensor<3xf64> {\n    return %a : tensor<3xf64>\n  }\n}\n"
    assert solve_loops.lower(text) == (text, 0)


GATHERS = """module {
func.func @main(%v: tensor<50xf64>, %i: tensor<8xi64>, %m: tensor<6x9xf64>, %ij: tensor<5x2xi32>,
                %k: tensor<8x1xi64>) -> (tensor<8xf64>, tensor<5xf64>, tensor<8x3xf64>, tensor<8xf64>) {
  %a = "stablehlo.gather"(%v, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
      start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}>
      : (tensor<50xf64>, tensor<8xi64>) -> tensor<8xf64>
  %b = "stablehlo.gather"(%m, %ij) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1],
      start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}>
      : (tensor<6x9xf64>, tensor<5x2xi32>) -> tensor<5xf64>
  %c = "stablehlo.gather"(%v, %k) <{dimension_numbers = #stablehlo.gather<offset_dims = [1],
      start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 3>}>
      : (tensor<50xf64>, tensor<8x1xi64>) -> tensor<8x3xf64>
  %d = "stablehlo.gather"(%v, %k) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
      start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}>
      : (tensor<50xf64>, tensor<8x1xi64>) -> tensor<8xf64>
  return %a, %b, %c, %d : tensor<8xf64>, tensor<5xf64>, tensor<8x3xf64>, tensor<8xf64>
}
}
"""


def test_gathers_out_of_range_read_clamped_on_iree(tmp_path):
    lowered, count = gather_clamps.lower(GATHERS)
    assert count == 4 and lowered.count("stablehlo.clamp") == 4
    rng = np.random.default_rng(3)
    v, m = rng.uniform(-1, 1, 50), rng.uniform(-1, 1, (6, 9))
    i = np.array([-7, -1, 0, 13, 49, 50, 51, 10 ** 6], dtype=np.int64)
    ij = np.array([[-1, 4], [2, 9], [6, -3], [5, 8], [3, 100]], dtype=np.int32)
    # IREE 3.13 alone: %d (an explicit index vector of extent 1, nussinov's form) reads at
    # 10 ** 7 as it is, and the process dies (SIGSEGV)
    k = np.array([[-2], [0], [46], [47], [48], [49], [50], [10 ** 7]], dtype=np.int64)
    want = [v[np.clip(i, 0, 49)], m[np.clip(ij[:, 0], 0, 5), np.clip(ij[:, 1], 0, 8)],
            np.stack([v[s:s + 3] for s in np.clip(k[:, 0], 0, 47)]), v[np.clip(k[:, 0], 0, 49)]]
    args = [v, i, m, ij, k]
    for got in (run_stablehlo(GATHERS, args), run_stablehlo(lowered, args),  # the op's own clamp, XLA
                _iree_run(lowered, tmp_path, dynamic=False)(*args)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_a_gather_of_a_dynamic_dim_is_left_as_it_is():
    text = GATHERS.replace("tensor<50xf64>", "tensor<?xf64>")
    lowered, count = gather_clamps.lower(text)
    assert count == 1 and lowered.count("stablehlo.clamp") == 1  # the matrix's only


@pytest.mark.slow
def test_trisolv_generic_stablehlo_raise_runs_on_iree_as_it_is(tmp_path):
    """trisolv raised generic to stablehlo (a triangular_solve of ?x? by ?x1) compiles on IREE
    as it is, with dynamic shapes (was: the op refused, compiled per shapes, refused again),
    and gives the original loops' values at sizes 1, odd and prime, one compile for all."""
    from conftest import POLYBENCH, mini_generic_raise
    from synth.analysis.resize import resize_module
    from synth.execution import run_function
    from synth.frontend.reader import load_input

    backend = IreeBackend("stablehlo", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    text = mini_generic_raise(tmp_path, "trisolv", "stablehlo")
    assert "stablehlo.triangular_solve" in text  # the raise keeps the op; the backend lowers it
    prepared = backend.prepare(text, "kernel_trisolv")
    assert prepared.pipeline_name == "dynamic (local-sync)"
    for n in (1, 13, 37):
        rng = np.random.default_rng(n)
        a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n)
        b = rng.uniform(-1, 1, n)
        original = resize_module(load_input(POLYBENCH / "trisolv.mlir"), ["kernel_trisolv"], "mini", (n,))
        want = run_function(original, "kernel_trisolv", [("i32", n), a.copy(), np.zeros(n), b.copy()]).outputs[2]
        (got,) = prepared.run([np.asarray(n, dtype=np.int32), a, np.zeros(n), b])
        assert prepared.pipeline_name == "dynamic (local-sync)"
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13, err_msg=f"n = {n}")
