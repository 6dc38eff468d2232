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


@pytest.mark.parametrize("sizes", [None, {"n": 6, "k": 9}])  # min(k, n) is k, then n
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_a_loop_to_the_min_of_two_sizes_raises_for_every_size(sizes, target):
    """`j < MIN(k, n)`: the normal form runs the loop to a size argument of its own, which
    the drop-in computes (affine.min of k and n); one raise serves both orders of k and n
    (against gcc at each, and 5 larger)."""
    case = CASES["copy_prefix"]
    if sizes is not None:
        case = type(case)(case.path, case.function, {**case.spec, "sizes": sizes})
    raise_for_every_size_equals_compiled_c(case, target)


def test_a_loop_from_the_max_of_sizes_raises_for_every_size_to_linalg():
    """`i = MAX(s, 0)`: the suffix x[m:n] starts at a size no array of the raised function
    has as an extent; linalg computes it from the size argument s (arith.maxsi of s and 0),
    for every size (against gcc at the manifest's sizes and 5 larger); stablehlo's shape
    refinement cannot read a shape from a value, so that raise is static, its drop-in
    comparing max(s, 0) and n with the values it was raised at. A raise that takes the min
    of s and 0 is refuted."""
    from synth.pipeline import RaiseOptions, raise_function
    from synth.validation.verify import verify_text

    case = CASES["clear_from"]
    raise_for_every_size_equals_compiled_c(case, "linalg")
    source = translate_c(str(case.path), function="clear_from")
    outcome = raise_function(source, "clear_from", "linalg", RaiseOptions())
    raised = outcome.module.split("func.func @clear_from(")[0] + "}\n"
    assert "arith.maxsi" in raised, raised
    wrong = raised.replace("arith.maxsi", "arith.minsi")
    assert verify_text(source, wrong, "wrong.mlir", test_first=False).verdict == "not equivalent"
    static = raise_function(source, "clear_from", "stablehlo", RaiseOptions())
    assert "?" not in static.module.split("@clear_from_raised(")[1].split(")")[0]
    assert "a shape stablehlo's shape refinement cannot read" in static.module
    assert "affine.max" in static.module.split("func.func @clear_from(")[1]


# (copy_prefix, clear_from: min / max of sizes, and conv1d_stride2's k + 2 * ((n - k) / 2) are
# each taken for every size since: the tests above and tests/test_c_computed_extents.py)


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


PREFIX_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
void copy_prefix(int n, int k, const float *x, float *y);
static double run(int n, int k)
{
    /* x and y hold n elements exactly: a drop-in reaching k > n of them would leave them */
    float *x = malloc(sizeof(float) * (n ? n : 1)), *y = malloc(sizeof(float) * (n ? n : 1));
    for (int i = 0; i < n; i++) { x[i] = 0.5f * i - 1.0f; y[i] = -3.0f; }
    copy_prefix(n, k, x, y);
    double s = 0;
    for (int i = 0; i < n; i++) s += y[i] * (i + 1);
    free(x); free(y);
    return s;
}
int main(void)
{
    printf("%.9g %.9g %.9g %.9g\n", run(9, 6), run(6, 9), run(40, 40), run(7, 0));
    return 0;
}
"""


@pytest.mark.slow
def test_the_dropin_computes_the_min_of_the_sizes(tmp_path):
    """synth cc's drop-in of copy_prefix (raised for every size) computes min(k, n) from
    its arguments (k the smaller, then n, then equal; at min 0 the original runs): the
    program prints what the one built by cc prints."""
    import os
    import subprocess
    import sys

    src = tmp_path / "bounds.c"
    src.write_text((ROOT / "benchmarks" / "c-libs" / "bounds.c").read_text())
    (tmp_path / "main.c").write_text(PREFIX_MAIN)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run(["cc", "-O2", "bounds.c", "main.c", "-lm", "-o", "prog_cc"], cwd=tmp_path, check=True)
    p = subprocess.run([sys.executable, "-m", "synth.cli", "cc", "-O2", "bounds.c", "main.c", "-lm", "-o", "prog",
                        "--raise", "copy_prefix", "--target", "linalg", "--keep-slower",
                        "--cache-dir", str(tmp_path / "cache"), "--report", "report.json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "report.json").read_text()
    assert '"raised"' in text, text
    want = subprocess.run([str(tmp_path / "prog_cc")], capture_output=True, text=True, check=True).stdout
    got = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    assert got == want


UNSIGNED_FROM = r"""
#define MAX(a, b) ((a) > (b) ? (a) : (b))
void clear_from_u(unsigned n, unsigned s, float *x)
{
    for (unsigned i = MAX(s, 1u); i < n; i++)
        x[i] = 0.0f;
}
"""

UNSIGNED_MAIN = r"""
#include <stdio.h>
void clear_from_u(unsigned n, unsigned s, float *x);
static double run(unsigned n, unsigned s)
{
    float x[64];
    for (unsigned i = 0; i < n; i++) x[i] = 1.0f + i;
    clear_from_u(n, s, x);
    double t = 0;
    for (unsigned i = 0; i < n; i++) t += x[i] * (i + 1);
    return t;
}
int main(void)
{
    /* s = 3000000000u: the C's loop starts past n and runs no times */
    printf("%.9g %.9g %.9g\n", run(10, 3), run(40, 0), run(10, 3000000000u));
    return 0;
}
"""


def test_a_max_of_unsigned_sizes_is_no_size_of_its_own(tmp_path):
    """`i = MAX(s, 1u)` of an unsigned s reads s through index_castui: the drop-in (and the
    raise, the proof) would read it as signed, max(s, 1) = 1 for s >= 2**31 where the C
    starts past n; so the bound stays as written: no raise for every size (exit 2)."""
    from synth.analysis.model import load_kernel
    from synth.errors import InputError

    path = tmp_path / "u.c"
    path.write_text(UNSIGNED_FROM)
    with pytest.raises(InputError) as e:
        load_kernel(translate_c(str(path), function="clear_from_u"), "clear_from_u")
    assert e.value.exit_code == 2 and "the larger of" in e.value.message, e.value.message


@pytest.mark.slow
def test_the_dropin_of_a_max_of_unsigned_sizes_equals_cc(tmp_path):
    """synth cc on clear_from_u prints what cc's program prints, s = 3000000000u included
    (before the fix, its linalg drop-in cleared x[1:10] there: 1 where cc printed 385)."""
    import os
    import subprocess
    import sys

    (tmp_path / "u.c").write_text(UNSIGNED_FROM)
    (tmp_path / "main.c").write_text(UNSIGNED_MAIN)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run(["cc", "-O2", "u.c", "main.c", "-o", "prog_cc"], cwd=tmp_path, check=True)
    p = subprocess.run([sys.executable, "-m", "synth.cli", "cc", "-O2", "u.c", "main.c", "-o", "prog",
                        "--raise", "clear_from_u", "--target", "linalg", "--keep-slower",
                        "--cache-dir", str(tmp_path / "cache")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    want = subprocess.run([str(tmp_path / "prog_cc")], capture_output=True, text=True, check=True).stdout
    got = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    assert want.split()[2] == "385" and got == want


def test_a_multiple_of_a_quotient_is_written_in_c_as_it_reads():
    """The extent downsample2_u8 reaches, 2 * (h / 2) rows, goes into synth.c_shape (the text
    the synth cc drop-in pastes into C) with the quotient parenthesized: `2 * (h) / 2` would
    be h in C, a row more than the loops read where h is odd."""
    import re

    source = translate_c(str(CASES["downsample2_u8"].path), function="downsample2_u8")
    shape = re.search(r'synth\.c_shape = \["([^"]*)", "w"\]', source.text).group(1)
    assert shape == "2 * ((h) / 2)", shape
    for h in (6, 7):  # C's int division of non-negative values is Python's //
        assert eval(shape.replace("/", "//"), {"h": h}) == 2 * (h // 2)
