"""Reading other people's kernels: sizes as symbols (constant bounds, unused size
arguments, dynamic leading dims, derived extents), the Polygeist idioms (llvm.mlir.undef,
local buffers, memref.load/store with affine indices, affine.parallel, old op names,
argument attributes), returned values, and element types other than f64. One test per
idiom; each refusal is exit 2 with FILE:LINE:COL and the reason."""

import json
import re

import numpy as np
import pytest

from conftest import LOOPS, POLYGEIST
from synth.analysis.model import load_kernel
from synth.cli import main
from synth.errors import InputError
from synth.execution import TENSOR_PIPELINE, run_function
from synth.frontend.normalize import normalize
from synth.frontend.reader import load_source
from synth.synthesis.spec import random_draw


def _write(tmp_path, text, name="k.mlir"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _raise(tmp_path, path, target, *extra):
    out = tmp_path / f"{path.stem}.{target}.mlir"
    stats = tmp_path / f"{path.stem}.{target}.json"
    rc = main(["raise", str(path), "--target", target, "-o", str(out), "--stats-json", str(stats), *extra])
    return rc, out, (json.loads(stats.read_text()) if stats.exists() else {})


def _check_dropin(path, out, name):
    """The drop-in @NAME of a linalg output computes what the original computes, on the
    original's calling convention (returned values included)."""
    source = load_source(path, warn=False)
    k = load_kernel(source, name)
    args = k.arguments(k.sizes.original(), random_draw(np.random.default_rng(3)))[: k.n_arguments]
    want = run_function(source.text, name, args)
    got = run_function(out.read_text(), name, args, pipeline=TENSOR_PIPELINE)
    for i in k.written:
        np.testing.assert_allclose(got.outputs[i], want.outputs[i], rtol=1e-5)
    assert len(got.results) == len(want.results) == len(k.interface.results)
    for g, w in zip(got.results, want.results):
        np.testing.assert_allclose(g, w, rtol=1e-5)


# --- sizes are symbols -------------------------------------------------------------------------


def test_polygeist_sizes_are_constants_and_the_size_arguments_unused():
    k = load_kernel(load_source(POLYGEIST / "correlation.mlir", warn=False), "kernel_correlation")
    assert k.sizes.params == {} and k.sizes.unused_params == [0, 1]
    assert k.sizes.original() == {"n1200": 1200, "n1400": 1400}
    # corr[M-1][M-1] = 1: the constant index 1199 is the size minus one
    assert "n1200 - 1" in {str(e) for e in k.sizes.sites.values()}
    small = k.at({"n1200": 5, "n1400": 6}).text
    assert "[4, 4]" in small and "1199" not in small and "memref<6x5xf64>" in small


def test_stand_in_sizes_are_small_for_constant_kernels():
    """A kernel with fixed 1000x1000 shapes is searched, tested and proven small."""
    k = load_kernel(load_source(LOOPS / "blas_ger.mlir", warn=False), "blas_ger")
    assert k.sizes.original() == {"n1000": 1000}
    assert k.sizes.standin() == {"n1000": 5}


def test_dynamic_leading_dim_takes_the_extent_its_loops_reach():
    k = load_kernel(load_source(POLYGEIST / "atax.mlir", warn=False), "kernel_atax")
    assert k.interface.argument_types[2] == "memref<?x2100xf64>"
    assert k.tensor_type(2, k.sizes.original()).mlir() == "tensor<1900x2100xf64>"


def test_derived_extent_of_a_longer_input():
    """y[i] = sum_k h[k] * x[i + k]: x has n + k - 1 elements, not a size of its own."""
    k = load_kernel(load_source(LOOPS / "dsp_fir.mlir", warn=False), "dsp_fir")
    assert [str(e) for e in k.sizes.arg_dims[0]] == ["n1000 + n32 - 1"]
    assert set(k.sizes.symbols) == {"n1000", "n32"}


def test_an_extent_no_loop_runs_over_moves_with_the_size_it_equals(tmp_path):
    """`x[i] = A[0, i]` with A 24x24: A's first extent is the size 24 too (as the raised
    module's sizes are read), so `synth verify` of the raise's own output runs at small
    sizes (found by the fuzzer: tests/data/fuzz/verify_own_10_81.mlir)."""
    path = _write(tmp_path, """
func.func @first_row(%x: memref<24xf64>, %A: memref<24x24xf64>, %c: memref<3x24xf64>) {
  affine.for %i = 0 to 24 {
    %0 = affine.load %A[0, %i] : memref<24x24xf64>
    %1 = affine.load %c[2, %i] : memref<3x24xf64>
    %2 = arith.addf %0, %1 : f64
    affine.store %2, %x[%i] : memref<24xf64>
  }
  return
}
""")
    k = load_kernel(load_source(path), "first_row")
    assert [str(e) for e in k.sizes.arg_dims[1]] == ["n24", "n24"]
    assert [str(e) for e in k.sizes.arg_dims[2]] == ["3", "n24"]  # small extents stay literal
    rc, out, _ = _raise(tmp_path, path, "linalg")
    assert rc == 0
    assert main(["verify", str(path), str(out)]) == 0


def test_a_size_inside_a_min_bound_is_a_size(tmp_path):
    """`0 to min(i + 1, m)`: m bounds A's columns, it is no time-step count."""
    path = _write(tmp_path, """
#ub = affine_map<(d0)[s0] -> (d0 + 1, s0)>
func.func @rowsum(%n: i32, %m: i32, %A: memref<60x50xf64>, %s: memref<60xf64>) {
  %N = arith.index_cast %n : i32 to index
  %M = arith.index_cast %m : i32 to index
  affine.for %i = 0 to %N {
    affine.for %j = 0 to min #ub(%i)[%M] {
      %a = affine.load %A[%i, %j] : memref<60x50xf64>
      %v = affine.load %s[%i] : memref<60xf64>
      %w = arith.addf %v, %a : f64
      affine.store %w, %s[%i] : memref<60xf64>
    }
  }
  return
}
""")
    k = load_kernel(load_source(path), "rowsum")
    assert k.sizes.original() == {"arg0": 60, "arg1": 50} and not k.sizes.time_loops


def test_a_repeated_update_is_a_size_not_a_time_step(tmp_path):
    """`y[i] += c`, repeated m times: a broadcast over m, then a reduction."""
    path = _write(tmp_path, """
func.func @repeat_add(%y: memref<1000xf64>, %c: f64) {
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 100 {
      %v = affine.load %y[%i] : memref<1000xf64>
      %w = arith.addf %v, %c : f64
      affine.store %w, %y[%i] : memref<1000xf64>
    }
  }
  return
}
""")
    k = load_kernel(load_source(path), "repeat_add")
    assert k.sizes.original() == {"n100": 100, "n1000": 1000}
    assert k.sizes.repeat_loops and not k.sizes.time_loops
    rc, out, _ = _raise(tmp_path, path, "stablehlo")
    assert rc == 0 and "tensor<1000x100xf64>" in out.read_text()


def test_polygeist_twin_raises(tmp_path):
    rc, out, stats = _raise(tmp_path, POLYGEIST / "gemm.mlir", "stablehlo")
    assert rc == 0
    text = out.read_text()
    assert "stablehlo.dot_general" in text and "tensor<1000x1100xf64>" in text
    assert 'synth.proof = "all sizes: n1000, n1100, n1200 >= 1' in text
    assert stats["kernel_gemm"]["standin_sizes"] == {"n1000": 5, "n1100": 6, "n1200": 7}


# --- Polygeist idioms ----------------------------------------------------------------------------

UNDEF = """
func.func @k(%a: memref<100xf64>, %out: memref<100xf64>) {
  %u = llvm.mlir.undef : f64
  %acc = memref.alloca() : memref<f64>
  affine.store %u, %acc[] : memref<f64>
  affine.for %i = 0 to 100 {
    %x = affine.load %a[%i] : memref<100xf64>
    affine.store %x, %acc[] : memref<f64>
    %y = affine.load %acc[] : memref<f64>
    %z = arith.mulf %y, %y : f64
    affine.store %z, %out[%i] : memref<100xf64>
  }
  return
}
"""


def test_undef_stored_into_a_local_is_dropped(tmp_path):
    path = _write(tmp_path, UNDEF)
    nf = normalize(load_source(path), "k")
    assert "llvm.mlir.undef" not in nf.source.text
    rc, out, _ = _raise(tmp_path, path, "linalg")
    assert rc == 0 and "linalg.mul" in out.read_text()


def test_undef_used_as_a_value_is_refused_at_its_location(tmp_path, capsys):
    path = _write(tmp_path, UNDEF.replace("%z = arith.mulf %y, %y", "%z = arith.mulf %y, %u"))
    rc, out, _ = _raise(tmp_path, path, "linalg")
    assert rc == 2 and not out.exists()
    err = capsys.readouterr().err
    assert f"{path}:3:8: error: an uninitialised value (llvm.mlir.undef) is used by 'arith.mulf'" in err


def test_reading_an_uninitialised_local_is_refused(tmp_path, capsys):
    path = _write(tmp_path, UNDEF.replace("affine.store %x, %acc[] : memref<f64>", ""))
    rc, _, _ = _raise(tmp_path, path, "stablehlo", "--timeout", "20")
    assert rc in (2, 3)  # refused as bad input, or no program reproduces garbage
    if rc == 2:
        assert "reads memory it never wrote" in capsys.readouterr().err


def test_memref_load_store_with_affine_indices_become_affine(tmp_path):
    path = _write(tmp_path, """
func.func @shift(%a: memref<100xf64>, %b: memref<100xf64>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c99 = arith.constant 99 : index
  scf.for %i = %c0 to %c99 step %c1 {
    %x = memref.load %a[%i] : memref<100xf64>
    memref.store %x, %b[%i] : memref<100xf64>
  }
  return
}
""", "shift.mlir")
    with pytest.raises(InputError, match=r"shift.mlir:6:3: unsupported operation 'scf.for'"):
        load_kernel(load_source(path), "shift")  # scf loops are outside what synth reads
    path = _write(tmp_path, """
func.func @scale(%a: memref<100x50xf64>, %b: memref<100x50xf64>) {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 2.0 : f64
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 50 {
      %x = memref.load %a[%i, %j] : memref<100x50xf64>
      %y = arith.mulf %x, %cst : f64
      memref.store %y, %b[%i, %j] : memref<100x50xf64>
    }
  }
  return
}
""", "scale.mlir")
    nf = normalize(load_source(path), "scale")
    assert "memref.load" not in nf.source.text and "affine.load" in nf.source.text
    rc, out, _ = _raise(tmp_path, path, "stablehlo")
    assert rc == 0 and "stablehlo.multiply" in out.read_text()


def test_affine_parallel_becomes_loops(tmp_path):
    path = _write(tmp_path, """
func.func @add(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %c: memref<64x32xf32>) {
  affine.parallel (%i, %j) = (0, 0) to (64, 32) {
    %x = affine.load %a[%i, %j] : memref<64x32xf32>
    %y = affine.load %b[%i, %j] : memref<64x32xf32>
    %z = arith.addf %x, %y : f32
    affine.store %z, %c[%i, %j] : memref<64x32xf32>
  }
  return
}
""")
    rc, out, _ = _raise(tmp_path, path, "linalg")
    assert rc == 0 and "linalg.add" in out.read_text() and "tensor<64x32xf32>" in out.read_text()


# Polygeist's locals: a sum kept in a one-element buffer (row dots into %acc, with undef first),
# and a product kept in one whose loop reads it twice (left as it is)
ACCUMULATES = """
func.func @rowdot(%a: memref<40x30xf64>, %x: memref<30xf64>, %y: memref<40xf64>, %z: memref<40xf64>) {
  %cst = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %u = llvm.mlir.undef : f64
  %acc = memref.alloca() : memref<f64>
  %prod = memref.alloca() : memref<1xf64>
  affine.store %u, %acc[] : memref<f64>
  affine.for %i = 0 to 40 {
    affine.store %cst, %acc[] : memref<f64>
    affine.for %j = 0 to 30 {
      %v = affine.load %a[%i, %j] : memref<40x30xf64>
      %w = affine.load %x[%j] : memref<30xf64>
      %p = arith.mulf %v, %w : f64
      %s = affine.load %acc[] : memref<f64>
      %t = arith.addf %s, %p : f64
      affine.store %t, %acc[] : memref<f64>
    }
    %r = affine.load %acc[] : memref<f64>
    affine.store %r, %y[%i] : memref<40xf64>
  }
  affine.store %one, %prod[0] : memref<1xf64>
  affine.for %i = 0 to 40 {
    %v = affine.load %y[%i] : memref<40xf64>
    %s = affine.load %prod[0] : memref<1xf64>
    %t = arith.mulf %s, %v : f64
    affine.store %t, %prod[0] : memref<1xf64>
    %again = affine.load %prod[0] : memref<1xf64>
    affine.store %again, %z[%i] : memref<40xf64>
  }
  return
}
"""


def test_a_sum_kept_in_a_local_buffer_becomes_an_iter_arg(tmp_path):
    path = _write(tmp_path, ACCUMULATES)
    nf = normalize(load_source(path), "rowdot")
    text = nf.source.text
    assert "rewrote 1 loop(s) accumulating into a one-element local buffer with an iter_arg" in nf.interface.notes
    assert "memref<f64>" not in text and "iter_args" in text  # the sum's buffer is gone
    assert text.count("memref.alloca() : memref<1xf64>") == 1  # read twice per step: kept
    rng = np.random.default_rng(5)
    args = [rng.standard_normal((40, 30)), rng.standard_normal(30), np.zeros(40), np.zeros(40)]
    want, got = run_function(ACCUMULATES, "rowdot", args), run_function(text, "rowdot", args)
    for w, g in zip(want.outputs, got.outputs):
        np.testing.assert_array_equal(g, w)
    assert np.abs(want.outputs[3]).sum() > 0


def test_polygeist_symm_raises_with_its_sum_as_an_iter_arg(tmp_path):
    # the sum temp2 sits in memref.alloca() : memref<f64>; before the rewrite, no program
    # was found within the default budget (group 1, the update below the diagonal)
    rc, out, _ = _raise(tmp_path, POLYGEIST / "symm.mlir", "linalg")
    assert rc == 0 and "linalg.matmul" in out.read_text()


def test_a_unit_lower_substitution_alone_is_a_triangular_solve(tmp_path):
    # ludcmp's y = L^-1 b (L unit lower) as a kernel of its own: it divides by nothing, and
    # the solve is licensed by a triangular loop that multiplies and subtracts
    path = _write(tmp_path, """
#map = affine_map<(d0) -> (d0)>
func.func @fsub(%a: memref<60x60xf64>, %b: memref<60xf64>, %y: memref<60xf64>) {
  affine.for %i = 0 to 60 {
    %bi = affine.load %b[%i] : memref<60xf64>
    %w = affine.for %j = 0 to #map(%i) iter_args(%acc = %bi) -> (f64) {
      %l = affine.load %a[%i, %j] : memref<60x60xf64>
      %yj = affine.load %y[%j] : memref<60xf64>
      %p = arith.mulf %l, %yj : f64
      %d = arith.subf %acc, %p : f64
      affine.yield %d : f64
    }
    affine.store %w, %y[%i] : memref<60xf64>
  }
  return
}
""")
    for target in ("linalg", "stablehlo"):
        rc, out, stats = _raise(tmp_path, path, target)
        assert rc == 0
        assert "unit_diagonal=True" in _program(stats, "fsub") and "lower=True" in _program(stats, "fsub")


def test_old_op_names_and_argument_attributes(tmp_path, capsys):
    path = _write(tmp_path, """
func.func @relu(%a: memref<128xf64> {irsynth.symmetric}, %b: memref<128xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to 128 {
    %x = affine.load %a[%i] : memref<128xf64>
    %y = arith.maxf %x, %zero : f64
    affine.store %y, %b[%i] : memref<128xf64>
  }
  return
}
""")
    rc, out, _ = _raise(tmp_path, path, "stablehlo")
    assert rc == 0 and "stablehlo.maximum" in out.read_text()
    assert "renamed old op names `arith.maxf` to `arith.maximumf`" in capsys.readouterr().err


def test_index_casts_and_sitofp_in_data(tmp_path):
    """out[i] = x[i] * float(i): an iota in both dialects."""
    path = _write(tmp_path, """
func.func @ramp(%x: memref<200xf32>, %out: memref<200xf32>) {
  affine.for %i = 0 to 200 {
    %k = arith.index_cast %i : index to i32
    %f = arith.sitofp %k : i32 to f32
    %v = affine.load %x[%i] : memref<200xf32>
    %w = arith.mulf %v, %f : f32
    affine.store %w, %out[%i] : memref<200xf32>
  }
  return
}
""")
    for target, op in (("stablehlo", "stablehlo.iota"), ("linalg", "linalg.index")):
        rc, out, _ = _raise(tmp_path, path, target)
        assert rc == 0 and op in out.read_text()


# --- returned values ------------------------------------------------------------------------------

RETURNS = """
func.func @stats(%x: memref<300xf64>, %y: memref<300xf64>) -> (memref<f64>, f64, memref<300xf64>) {
  %zero = arith.constant 0.0 : f64
  %acc = memref.alloca() : memref<f64>
  affine.store %zero, %acc[] : memref<f64>
  %m = affine.for %i = 0 to 300 iter_args(%s = %zero) -> (f64) {
    %v = affine.load %x[%i] : memref<300xf64>
    %old = affine.load %acc[] : memref<f64>
    %sq = arith.mulf %v, %v : f64
    %new = arith.addf %old, %sq : f64
    affine.store %new, %acc[] : memref<f64>
    %t = arith.addf %s, %v : f64
    %d = arith.addf %v, %v : f64
    affine.store %d, %y[%i] : memref<300xf64>
    affine.yield %t : f64
  }
  return %acc, %m, %y : memref<f64>, f64, memref<300xf64>
}
"""


def test_returned_values_become_results_of_the_raised_function(tmp_path):
    path = _write(tmp_path, RETURNS)
    nf = normalize(load_source(path), "stats")
    assert [(r.kind, r.argument) for r in nf.interface.results] == [("array", 2), ("scalar", 3), ("alias", 1)]
    for target in ("stablehlo", "linalg"):
        rc, out, stats = _raise(tmp_path, path, target, "--timeout", "40")
        assert rc == 0, stats
        text = out.read_text()
        head = re.search(r"func\.func @stats_raised\((.*?)\) -> \((.*?)\) attributes \{(.*?)\}", text)
        assert head.group(1).count("%arg") == 2  # no out-parameters in the contract
        # written y, then the three results: sum of squares, sum, y again
        assert head.group(2) == "tensor<300xf64>, tensor<f64>, tensor<f64>, tensor<300xf64>"
        assert "synth.outputs = [1]" in head.group(3)
        assert "func.func @stats(%arg0: memref<300xf64>, %arg1: memref<300xf64>) -> (memref<f64>, f64, memref<300xf64>)" in text
    _check_dropin(path, out, "stats")


def test_function_returning_a_local_array(tmp_path):
    rc, out, _ = _raise(tmp_path, LOOPS / "blas_waxpby.mlir", "linalg")
    assert rc == 0
    _check_dropin(LOOPS / "blas_waxpby.mlir", out, "blas_waxpby")


# --- element types --------------------------------------------------------------------------------


def _program(stats, name):
    return [p["program"] for p in stats[name]["problems"] if p["program"]][-1]


def test_an_f32_kernel_finds_the_program_of_its_f64_twin(tmp_path):
    text = (LOOPS / "blas_gemv.mlir").read_text()
    f32 = _write(tmp_path, text.replace("f64", "f32").replace("@blas_gemv", "@blas_gemv32"), "gemv32.mlir")
    rc64, _, s64 = _raise(tmp_path, LOOPS / "blas_gemv.mlir", "stablehlo")
    rc32, _, s32 = _raise(tmp_path, f32, "stablehlo")
    assert rc64 == rc32 == 0
    assert _program(s64, "blas_gemv").replace("f64", "f32") == _program(s32, "blas_gemv32")


@pytest.mark.parametrize("kernel", ["mks_sum_i32", "blend_multiply"])
def test_integer_kernels_raise_and_prove_in_integer_arithmetic(tmp_path, kernel):
    for target in ("stablehlo", "linalg"):
        rc, out, stats = _raise(tmp_path, LOOPS / f"{kernel}.mlir", target)
        assert rc == 0
        assert "integer arithmetic" in out.read_text()


def test_a_diagonal_access_licenses_index_masks(tmp_path):
    """A[i][i] reads a diagonal: the mask i == j is in the search, as for triangles."""
    path = _write(tmp_path, """
func.func @diag(%A: memref<64x64xf64>, %d: memref<64xf64>) {
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i, %i] : memref<64x64xf64>
    affine.store %a, %d[%i] : memref<64xf64>
  }
  return
}
""")
    assert load_kernel(load_source(path), "diag").function.non_rectangular
    for target in ("stablehlo", "linalg"):
        rc, out, _ = _raise(tmp_path, path, target)
        assert rc == 0, target


@pytest.mark.parametrize("kernel", ["correlation", "deriche", "ludcmp", "nussinov"])
def test_constant_indices_near_a_size_move_with_it(kernel):
    """corr[1199][1199], A[i][2159 - j], table[2499 - i][j]: the stand-in kernel keeps
    every access inside its (small) arrays."""
    k = load_kernel(load_source(POLYGEIST / f"{kernel}.mlir", warn=False), f"kernel_{kernel}")
    standin = k.sizes.standin()
    assert max(standin.values()) < 8 and k.sizes.valid(standin)


def test_stand_in_sizes_keep_offsets_past_a_halved_bound_in_bounds():
    """B[i + 9, ...] with i < 12 = n24 / 2 (fuzz program 907): the bound is a floordiv of
    the size, which the access checks carry as a symbol of its own; stand-in sizes where
    i + 9 would run past the array (the MLIR worker crashed on such an instance) are
    skipped."""
    from conftest import DATA

    source = load_source(DATA / "fuzz" / "crash_1000_907.mlir", warn=False)
    sizes = load_kernel(source, "fuzz_907").sizes
    n = sizes.standin()["n24"]
    assert n // 2 - 1 + 9 < n and not sizes.violations(sizes.standin())
    assert sizes.violations({"n24": 6})  # 6 // 2 - 1 + 9 = 11 is past the end
