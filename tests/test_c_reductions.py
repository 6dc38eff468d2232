"""Reductions written with several statements, normalizations and locals raise from C on
both targets (against the function compiled by the system C compiler): a max kept in a
local (softmax's largest) and an array written by two nests one after the other (its
out[i] = e, then out[i] /= sum), a local scalar stored several times (rmsnorm's ss),
locals defined in the loop body (pdist3's dx, dy, dz) with a middle column P[i][1],
x ** 2 and a constant computed in double (variance_cpu), the index of the largest term
(isamax: an argmax). A scan (prefix sum) exits
3 naming it."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import assert_same, inputs, load_cases, mlir_signature, raised_outputs, run_c, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.errors import NoSolutionError
from synth.frontend.c import translate_c
from synth.pipeline import RaiseOptions, raise_function
from synth.synthesis.search import SearchSettings

CASES = {c.id: c for c in load_cases(ROOT / "benchmarks" / "c-libs")}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def raise_and_compare(name: str, target: str) -> None:
    case = CASES[name]
    source = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    outcome = raise_function(source, case.function, target, RaiseOptions())
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(9))
    sig = mlir_signature(translate_c(str(case.path), function=case.function, locations=False,
                                     sizes=case.sizes).text, case.function)
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    assert_same(case, f"raised {target}", params, result, run_c(case, params, result, args, "-O2"), got)


@pytest.mark.parametrize("name,target", [
    ("darknet:softmax", "linalg"), ("llama:rmsnorm", "stablehlo"),
    ("vecmath:pdist3", "linalg"), ("darknet:variance_cpu", "stablehlo"), ("blas1:isamax", "linalg")])
def test_reductions_raise(name, target):
    raise_and_compare(name, target)


@pytest.mark.slow
@pytest.mark.parametrize("name,target", [
    ("darknet:softmax", "stablehlo"), ("vecmath:pdist3", "stablehlo"), ("darknet:variance_cpu", "linalg"),
    ("blas1:smax", "stablehlo"), ("blas1:smax", "linalg"), ("blas1:isamax", "stablehlo")])
def test_reductions_raise_more(name, target):
    raise_and_compare(name, target)


@pytest.mark.parametrize("name,reason", [("vecmath:prefix_sum", "a scan"),
                                         pytest.param("dsp:biquad", "is a recurrence", marks=pytest.mark.slow)])
def test_recurrences_exit_3_naming_them(name, reason):
    case = CASES[name]
    source = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    with pytest.raises(NoSolutionError, match=reason):
        raise_function(source, case.function, "linalg", RaiseOptions(settings=SearchSettings(timeout=3)))
