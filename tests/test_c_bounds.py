"""Loop bounds as library C writes them (issue 53; benchmarks/c-libs/bounds.c): through min
and max (a local `end`, a MIN macro, a `?:` in the condition, a one-line helper, blocked
and tiled loops, LAPACK's dlacpy with min(j + 1, m), a lower bound through max) as
`affine.for` min / max bounds, the same the affine MLIR front end reads; and `continue`
skipping taps outside a signal, whose condition bounds the subscripts it guards (in the
C front end's layouts and in the size analysis of the affine kernel). Raises for every
size are run against the C compiled by gcc at the manifest's sizes and at larger ones;
the translations of every function of bounds.c are checked against gcc by
tests/test_c_libs.py."""

from __future__ import annotations

import pytest
from c_oracle import raise_for_every_size_equals_compiled_c, assert_refused_at, load_cases, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.cli import main
from synth.frontend.c import translate_c

CASES = {c.function: c for c in load_cases(ROOT / "benchmarks" / "c-libs") if c.path.name == "bounds.c"}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")




def _text(name: str, **kw) -> str:
    return translate_c(str(CASES[name].path), function=name, locations=False, **kw).text


def test_min_and_max_bounds_are_affine_min_and_max():
    # a local end, a ?: in the condition, MIN in both tile ends, a helper, min(j + 1, m)
    for name in ("saxpy_blocked", "scale_tiled", "transpose_tiled", "band_scale", "dlacpy_upper",
                 "tri_rowsum", "copy_prefix", "sdot_blocked", "sscal_blocked_and", "copy_last4"):
        text = _text(name)
        assert " to min #map" in text, name
        assert "scf." not in text, name
    assert "(d0 + 4, s0)" in _text("saxpy_blocked")  # min(i + BLK, n)
    assert "= max #map" in _text("clear_from")  # from max(s, 0)
    assert "(s0, d0 + 4)" in _text("sscal_blocked_and")  # j < n && j < i + BLK
    # i = n - 1 down to max(n - 4, 0) (`n > 4 ? n - 4 : 0`): min(4, n) iterations
    assert "affine_map<()[s0] -> (4, s0)>" in _text("copy_last4")
    # constants at --size: min(k, n) is 6
    assert "affine.for %arg4 = 0 to 6 {" in _text("copy_prefix", sizes={"n": 9, "k": 6})


def test_continue_guarded_taps_are_bounded_by_their_guard():
    """`if (x < 0 || x >= w) continue;` before `in[x]`: the rest of the body under
    0 <= x < w; `in` holds w elements (the loops alone reach -1 and w), in the C front
    end's reading and in the size analysis of the affine kernel."""
    from synth.analysis.model import load_kernel
    from synth.analysis.symbols import SizeExpr

    case = CASES["conv1d_same"]
    source = translate_c(str(case.path), function=case.function)
    assert "affine.if" in source.text and 'synth.c_shape = ["w"]' in source.text
    kernel = load_kernel(source, case.function)
    w = SizeExpr.symbol(kernel.sizes.params[0])
    assert kernel.sizes.arg_dims[1] == (w,) and kernel.sizes.arg_dims[3] == (w,)
    box = translate_c(str(case.path), function="box3x3_skip").text
    assert 'synth.c_shape = ["h", "w"]' in box


@pytest.mark.parametrize("source,needle,words", [
    ("void f(int n, int m, float *x) { for (int j = 0; j < (n > m ? n : m); j++) x[j] = 0; }",
     "n > m ? n : m", ["max of two values where the bound needs their min"]),
    ("void f(int n, int s, float *x) { for (int i = (s < 0 ? s : 0); i < n; i++) x[i] = 0; }",
     "s < 0 ? s : 0", ["min of two values where the bound needs their max"]),
    ("void f(int n, float *x) { for (int i = 0; i < n; i += 4) { int e = i + 4 < n ? i + 4 : n;"
     " e = e - 1; for (int j = i; j < e; j++) x[j] = 0; } }",
     "e;", ["'e' is a variable computed at run time"]),
    ("void f(int n, float *x) { for (int j = 0; j < n && j >= 0; j++) x[j] = 0; }",
     "j < n && j >= 0", ["bounds the index 'j' from above and from below"]),
])
def test_bounds_that_stay_refused(tmp_path, source, needle, words):
    """An upper bound through max (or a lower one through min) is no convex iteration set;
    a local changed after its min is set is not followed: exit 2 at the construct."""
    assert_refused_at(tmp_path / "b.c", source, "f", needle, words)


DEFAULT = [("saxpy_blocked", "stablehlo"), ("dlacpy_upper", "linalg"), ("pair_sum", "linalg")]
SLOW = [("saxpy_blocked", "linalg"), ("dlacpy_upper", "stablehlo"), ("scale_tiled", "stablehlo"),
        ("scale_tiled", "linalg"), ("transpose_tiled", "stablehlo"), ("transpose_tiled", "linalg"),
        ("band_scale", "stablehlo"), ("band_scale", "linalg"), ("sdot_blocked", "stablehlo"),
        ("sdot_blocked", "linalg"), ("xcorr_valid", "stablehlo"), ("xcorr_valid", "linalg"),
        ("sum_positive", "stablehlo"), ("sum_positive", "linalg"), ("tri_rowsum", "stablehlo"),
        ("tri_rowsum", "linalg"), ("pair_sum", "stablehlo"), ("maxpool1d", "stablehlo"),
        ("maxpool1d", "linalg")]


@pytest.mark.parametrize("name,target", DEFAULT + [pytest.param(f, t, marks=pytest.mark.slow) for f, t in SLOW])
def test_raise_for_every_size_equals_compiled_c(name, target):
    raise_for_every_size_equals_compiled_c(CASES[name], target)


FIXED = [pytest.param(n, t, marks=pytest.mark.slow) for n in (
    "tri_rowsum", "copy_prefix", "clear_from", "pair_sum", "maxpool1d", "downsample2_u8")
         for t in ("stablehlo", "linalg")]


@pytest.mark.parametrize("name,target", FIXED)
def test_raise_at_the_sizes_given_equals_compiled_c(name, target):
    """Triangles capped by min(i, m), a prefix of min(k, n), a suffix from max(s, 0), and
    quotient bounds (n / 2 pairs, pooling, 2x2 downsampling): raised at the manifest's sizes."""
    import numpy as np
    from c_oracle import assert_same, inputs, mlir_signature, raised_outputs, run_c

    from synth.pipeline import RaiseOptions, raise_function

    case = CASES[name]
    module = translate_c(str(case.path), function=name, sizes=case.sizes)
    outcome = raise_function(module, name, target, RaiseOptions())
    params, result = signature(case)
    sig = mlir_signature(translate_c(str(case.path), function=name, sizes=case.sizes, locations=False).text, name)
    args = inputs(case, params, np.random.default_rng(5))
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    assert_same(case, f"raised {target}", params, result, run_c(case, params, result, args, "-O2"), got)


TILED_MLIR = """
#ub = affine_map<(d0)[s0] -> (d0 + 4, s0)>
func.func @scale_tiled(%n: i32, %a: f64, %x: memref<?xf64>, %y: memref<?xf64>) {
  %N = arith.index_cast %n : i32 to index
  affine.for %ii = 0 to %N step 4 {
    affine.for %i = affine_map<(d0) -> (d0)>(%ii) to min #ub(%ii)[%N] {
      %v = affine.load %x[%i] : memref<?xf64>
      %w = arith.mulf %a, %v : f64
      affine.store %w, %y[%i] : memref<?xf64>
    }
  }
  return
}
"""


@pytest.mark.parametrize("target", ["stablehlo", pytest.param("linalg", marks=pytest.mark.slow)])
def test_tiled_affine_mlir_raises_as_the_untiled_loop(tmp_path, target):
    """The affine form the C front end makes of a tiled loop (a min upper bound), written
    by hand: raised for every size, and proven equal to the original."""
    path = tmp_path / "tiled.mlir"
    path.write_text(TILED_MLIR)
    out = tmp_path / f"tiled.{target}.mlir"
    assert main(["raise", str(path), "--target", target, "-o", str(out)]) == 0
    assert "?x" in out.read_text() or "tensor<?" in out.read_text()
    assert main(["verify", str(path), str(out)]) == 0


GUARDED_MLIR = """
#taps = affine_set<(d0, d1)[s0] : (d0 + d1 - 1 >= 0, s0 - d0 - d1 >= 0)>
func.func @conv_same(%w: i32, %in: memref<?xf32>, %k3: memref<3xf32>, %out: memref<?xf32>) {
  %W = arith.index_cast %w : i32 to index
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to %W {
    affine.store %zero, %out[%i] : memref<?xf32>
    affine.for %k = 0 to 3 {
      affine.if #taps(%i, %k)[%W] {
        %a = affine.load %in[%i + %k - 1] : memref<?xf32>
        %b = affine.load %k3[%k] : memref<3xf32>
        %p = arith.mulf %a, %b : f32
        %o = affine.load %out[%i] : memref<?xf32>
        %s = arith.addf %o, %p : f32
        affine.store %s, %out[%i] : memref<?xf32>
      }
    }
  }
  return
}
"""


def test_a_guarded_tap_in_affine_mlir_stays_within_its_array(tmp_path):
    """The affine form of a 'same' convolution (an affine.if keeps in[i + k - 1] within
    0 .. w - 1): `in` holds w elements, and the sizes are valid at every w >= 1 (the
    loops alone reach -1 and w, which no size keeps within the array)."""
    from synth.analysis.model import load_kernel
    from synth.analysis.symbols import SizeExpr
    from synth.frontend.reader import load_source

    path = tmp_path / "conv_same.mlir"
    path.write_text(GUARDED_MLIR)
    kernel = load_kernel(load_source(path), "conv_same")
    w = SizeExpr.symbol(kernel.sizes.params[0])
    assert kernel.sizes.arg_dims[1] == (w,) and kernel.sizes.arg_dims[3] == (w,)
    assert kernel.sizes.valid({kernel.sizes.params[0]: 1, **{n: 3 for n in kernel.sizes.symbols
                                                              if n != kernel.sizes.params[0]}})


def test_a_triangle_capped_by_a_size_is_tested_where_the_cap_applies():
    """`j < min(i, m)`, i < n: the test sizes put m below n (else min(i, m) is i at every
    test and a raise that ignores m passes them)."""
    from synth.analysis.model import load_kernel

    case = CASES["tri_rowsum"]
    kernel = load_kernel(translate_c(str(case.path), function="tri_rowsum"), "tri_rowsum")
    n, m = kernel.sizes.params[0], kernel.sizes.params[1]
    assert kernel.sizes.caps == [(m, n)]
    kernel.sizes.with_test_values()
    values = kernel.sizes.original()
    assert values[m] < values[n]


@pytest.mark.parametrize("name,words", [
    ("copy_prefix", "the loop runs to the smaller of k and n"),
    ("clear_from", "the loop runs to the larger of s and 0"),
])
def test_bounds_that_no_raise_for_every_size_takes(name, words):
    """min(k, n) and max(s, 0) of sizes alone have no one expression of the sizes as their
    extent: exit 2 for every size (each raises at the sizes given: scripts/c_coverage.py).
    (The input a strided convolution reaches, k + 2 * ((n - k) / 2), is an extent for every
    size since: tests/test_c_computed_extents.py.)"""
    from synth.analysis.model import load_kernel
    from synth.errors import InputError

    case = CASES[name]
    with pytest.raises(InputError) as e:
        load_kernel(translate_c(str(case.path), function=name), name)
    assert e.value.exit_code == 2 and words in e.value.message, e.value.message
    assert e.value.location.startswith(str(case.path))


PAIRS_MLIR = """
func.func @pairs(%n: i32, %x: memref<?x2xf64>, %y: memref<?xf64>) {
  %N = arith.index_cast %n : i32 to index
  %c2 = arith.constant 2 : index
  %half = arith.divsi %N, %c2 : index
  affine.for %i = 0 to %half {
    %a = affine.load %x[%i, 0] : memref<?x2xf64>
    %b = affine.load %x[%i, 1] : memref<?x2xf64>
    %s = arith.addf %a, %b : f64
    affine.store %s, %y[%i] : memref<?xf64>
  }
  return
}
"""


def test_a_quotient_bound_in_affine_mlir_is_a_floordiv_size(tmp_path):
    """A loop to n / 2 of a run-time n (the affine form C's `i < n / 2` translates to): y
    holds n floordiv 2 elements at every n, the raise takes it for every size."""
    from synth.analysis.model import load_kernel
    from synth.analysis.symbols import SizeExpr
    from synth.frontend.reader import load_source

    path = tmp_path / "pairs.mlir"
    path.write_text(PAIRS_MLIR)
    kernel = load_kernel(load_source(path), "pairs")
    n = SizeExpr.symbol(kernel.sizes.params[0])
    assert kernel.sizes.arg_dims[2] == (n.floordiv(2),)
    out = tmp_path / "pairs.stablehlo.mlir"
    assert main(["raise", str(path), "--target", "stablehlo", "-o", str(out)]) == 0
    assert "tensor<?xf64>" in out.read_text()
    assert main(["verify", str(path), str(out)]) == 0
