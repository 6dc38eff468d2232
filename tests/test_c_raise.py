"""C as libraries write it, raised: a condition on data (if-conversion), an induction
variable, flattened subscripts with leading dimensions and pointer walks raise to both
targets with `--size`, and the raised function equals the C compiled by gcc on random
inputs; the C translation's assumptions reach the raised function."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import (
    assert_same,
    inputs,
    load_cases,
    mlir_signature,
    raised_outputs,
    run_c,
    signature,
)
from c_oracle import Case
from conftest import DATA, ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c
from synth.pipeline import RaiseOptions, raise_function

CASES = {c.id: c for c in load_cases(ROOT / "benchmarks" / "c-libs")}
COUNTERS = DATA / "c" / "counters.c"
CASES["counters:scale_packed"] = Case(COUNTERS, "scale_packed", {
    "sizes": {"n": 33}, "arrays": {"x": "n", "y": "n"}})
CASES["counters:pair_sums"] = Case(COUNTERS, "pair_sums", {
    "sizes": {"n": 21}, "arrays": {"x": "2*n", "y": "n"}})
RAISED = [
    ("tsvc:s271", "if (b[i] > 0) a[i] += b[i] * c[i]"),
    ("counters:scale_packed", "j++ before y[j] ="),
    ("counters:pair_sums", "x[k] + x[k + 1]; k += 2"),
    ("darknet:gemm_nn", "A[i * lda + k], register A_PART"),
    ("dsp:matmul_dsp", "p_a = &A[i * Y]; *p_c++ = acc"),
]

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name,what", RAISED, ids=[n for n, _ in RAISED])
def test_raise_equals_compiled_c(name, what, target):
    case = CASES[name]
    source = translate_c(str(case.path), function=case.function, sizes=case.sizes or None)
    outcome = raise_function(source, case.function, target, RaiseOptions())
    assert f"@{case.function}_raised" in outcome.module
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(5))
    sig = mlir_signature(translate_c(str(case.path), function=case.function, locations=False,
                                     sizes=case.sizes or None).text, case.function)
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    assert_same(case, f"raised {target} ({what})", params, result,
                run_c(case, params, result, args, "-O2"), got)


def test_raise_carries_the_c_assumptions():
    case = CASES["darknet:gemm_nn"]
    source = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    outcome = raise_function(source, case.function, "stablehlo", RaiseOptions())
    head = outcome.module[outcome.module.index(f"@{case.function}_raised"):].split("{", 1)[1]
    assert "synth.assumptions" in head and "C, which the function writes, does not overlap A or B" in head
    assert "assuming what the input assumes" in outcome.validation["summary"]
