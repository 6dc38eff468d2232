"""Reads at a sum of two loop indices raise as windows (synth.grammar.window): a FIR
filter's `x[n + k]`, a causal filter's `in[i - j + taps - 1]` (a reversed window), a
correlation's `y[i + lag]` over `i < n - lag` (a window with zeros past the array's
end), from C (against the function compiled by the system C compiler) and from affine
MLIR (against the original run by MLIR's ExecutionEngine), on both targets. A scalar
recurrence (a one-pole low-pass) exits 3 naming it, where the sketch reader once
recursed without end."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import assert_same, inputs, load_cases, mlir_signature, raised_outputs, run_c, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.errors import NoSolutionError
from synth.frontend.c import translate_c
from synth.frontend.reader import SourceModule
from synth.pipeline import RaiseOptions, raise_function
from synth.synthesis.search import SearchSettings

CASES = {c.id: c for c in load_cases(ROOT / "benchmarks" / "c-libs")}
TARGETS = ["stablehlo", "linalg"]
# the window: an indexing map at the sum (or, with zeros past the end, a read in the body)
WINDOW_TEXT = {"linalg": ("-> (d0 + d1)", "tensor.extract"), "stablehlo": ("stablehlo.gather",)}

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def raise_c(name: str, target: str):
    case = CASES[name]
    source = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    outcome = raise_function(source, case.function, target, RaiseOptions())
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(3))
    sig = mlir_signature(translate_c(str(case.path), function=case.function, locations=False,
                                     sizes=case.sizes).text, case.function)
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    assert_same(case, f"raised {target}", params, result, run_c(case, params, result, args, "-O2"), got)
    return outcome


@needs_cc
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["dsp:fir", "dsp:xcorr"])
def test_c_windows_raise(name, target):
    """fir: acc += h[k] * x[n + k]; xcorr: s += x[i] * y[i + lag] for i < n - lag."""
    outcome = raise_c(name, target)
    raised = outcome.module[outcome.module.index(f"@{CASES[name].function}_raised"):]
    assert any(t in raised for t in WINDOW_TEXT[target]) and "scf.for" not in raised


@needs_cc
def test_c_window_raise_for_every_size():
    """fir with its sizes left free: one linalg raise for every size (? dims, the window an
    indexing map), equal to gcc's at the manifest's sizes."""
    case = CASES["dsp:fir"]
    outcome = raise_function(translate_c(str(case.path), function=case.function), case.function, "linalg",
                             RaiseOptions())
    raised = outcome.module[outcome.module.index("@fir_raised"):]
    assert "tensor<?x" in raised and "-> (d0 + d1)" in raised
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(6))
    sig = mlir_signature(translate_c(str(case.path), function=case.function, locations=False,
                                     sizes=case.sizes).text, case.function)
    got = raised_outputs(outcome.module, case, params, args, "linalg", sig)
    assert_same(case, "raised linalg for every size", params, result, run_c(case, params, result, args, "-O2"), got)


@pytest.mark.slow
@needs_cc
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["dsp:fir_causal", "dsp:fir_ptr", "dsp:moving_average"])
def test_c_windows_raise_more(name, target):
    """in[i + taps - 1 - j] (reversed), pointer walks, and s / w of a size."""
    raise_c(name, target)


# a 2-D window along the rows (a column filter) and a plain 1-D one, as affine MLIR
MLIR = """
func.func @colfilter(%A: memref<12x5xf64>, %w: memref<4xf64>, %B: memref<9x5xf64>) {
  affine.for %i = 0 to 9 {
    affine.for %j = 0 to 5 {
      affine.for %k = 0 to 4 {
        %a = affine.load %A[%i + %k, %j] : memref<12x5xf64>
        %c = affine.load %w[%k] : memref<4xf64>
        %p = arith.mulf %a, %c : f64
        %b = affine.load %B[%i, %j] : memref<9x5xf64>
        %s = arith.addf %b, %p : f64
        affine.store %s, %B[%i, %j] : memref<9x5xf64>
      }
    }
  }
  return
}
"""


@pytest.mark.parametrize("target", ["linalg", pytest.param("stablehlo", marks=pytest.mark.slow)])
def test_mlir_window_raise(target):
    from synth.backends.run import run_raised
    from synth.execution import run_function
    from synth.semantics.raised import load_raised

    source = SourceModule("colfilter.mlir", MLIR)
    outcome = raise_function(source, "colfilter", target, RaiseOptions())
    raised = load_raised("<raised>", "colfilter_raised", outcome.module)
    assert ("d0 + d1" if target == "linalg" else "stablehlo.gather") in raised.text
    rng = np.random.default_rng(4)
    A, w, B = rng.standard_normal((12, 5)), rng.standard_normal(4), rng.standard_normal((9, 5))
    want = run_function(MLIR, "colfilter", [A, w, B.copy()]).outputs[2]
    got = run_raised(raised.dialect, raised.text, "colfilter_raised", [A, w, B])[0]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@needs_cc
def test_scalar_recurrence_exits_3_with_its_reason():
    """lowpass: state += alpha * (in[i] - state); out[i] = state: no tensor program,
    and the message names the recurrence."""
    case = CASES["dsp:lowpass"]
    source = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    with pytest.raises(NoSolutionError, match="scalar recurrence"):
        raise_function(source, case.function, "linalg", RaiseOptions(settings=SearchSettings(timeout=3)))
