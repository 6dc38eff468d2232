"""Loops unrolled by hand read as the loops they were unrolled from (synth.frontend.reroll),
on C written here in spellings other than the BLAS daxpy of benchmarks/c-libs/heldout3:
an unroll by 5 with its clean-up loop after it, an inner loop unrolled by 3 with its
clean-up loop first, a loop body of copies over constant subscripts (`px[i][0]`, `px[i][1]`,
`px[i][2]`), and a step-2 loop whose two statements are not copies of one body
(left as it is). The raises are compared with the C compiled by gcc bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import Case, assert_same, inputs, mlir_signature, raised_outputs, run_c, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c
from synth.frontend.normalize import normalize

PATH = ROOT / "tests" / "data" / "unrolled.c"
CASES = {
    "saxpy_unroll5": {"sizes": {"n": 23}, "arrays": {"x": "n", "y": "n"}},
    "rows_scale_unroll3": {"sizes": {"rows": 4}, "arrays": {"b": "rows*11", "c": "rows*11"}},
    "channel_gain": {"sizes": {"n": 7}, "arrays": {"gain": "3", "px": "n*3"}},
    "index_pairs": {"sizes": {"n": 8}, "arrays": {"y": "n"}},
    "pairs_not_copies": {"sizes": {"n": 8}, "arrays": {"x": "n", "y": "n"}},
    "running_sum_unroll2": {"sizes": {"n": 9}, "arrays": {"x": "n", "y": "n"}},
}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def _normal(name: str):
    source = translate_c(str(PATH), function=name, sizes=CASES[name]["sizes"])
    return normalize(source, name)


def test_unrolled_loops_become_one_loop():
    nf = _normal("saxpy_unroll5")
    text = nf.source.text
    assert text.count("affine.for") == 1 and "step" not in text and " = 0 to 23 {" in text
    assert any("unrolled by hand" in n and "fused 1" in n for n in nf.interface.notes)
    nest = _normal("rows_scale_unroll3").source.text
    assert nest.count("affine.for") == 2 and "step" not in nest and " = 0 to 11 {" in nest
    # copies over constant subscripts (px[i][0], px[i][1], px[i][2]; gain[0] ...): a loop over them
    gain = _normal("channel_gain").source.text
    assert gain.count("affine.for") == 2 and "%arg1[%arg4]" in gain and "%arg2[%arg3, %arg4]" in gain
    # the copies differ (x[i] + x[i+1], then x[i] - x[i+1]): kept as written
    pairs = _normal("pairs_not_copies")
    assert "step 2" in pairs.source.text and not pairs.interface.notes
    # the index read as a value (y[i + 1] = i): not shifted copies, so the step stays (the
    # two stores of the same value are copies over a constant subscript: a loop over them)
    index = _normal("index_pairs").source.text
    assert "step 2" in index and index.count("affine.for") == 2 and "[%arg2 + %arg3]" in index


# bit for bit through the MLIR CPU pipeline (linalg); XLA's CPU backend contracts a * x + y
# into an fma, so the stablehlo raise equals the C to rounding
@pytest.mark.parametrize("name,target", [("saxpy_unroll5", "linalg"), ("rows_scale_unroll3", "linalg"),
                                         ("channel_gain", "linalg"),
                                         pytest.param("saxpy_unroll5", "stablehlo", marks=pytest.mark.slow)])
def test_rerolled_raise_equals_compiled_c_bitwise(name, target):
    from synth.pipeline import RaiseOptions, raise_function

    case = Case(PATH, name, CASES[name])
    source = translate_c(str(PATH), function=name, sizes=case.sizes)
    outcome = raise_function(source, name, target, RaiseOptions())
    params, result = signature(case)
    sig = mlir_signature(translate_c(str(PATH), function=name, locations=False, sizes=case.sizes).text, name)
    for seed in (1, 2):
        args = inputs(case, params, np.random.default_rng(seed))
        want, _ = run_c(case, params, result, args, "-O0")
        got, ret = raised_outputs(outcome.module, case, params, args, target, sig)
        assert_same(case, f"raised {target}", params, result, (want, None), (got, ret))
        for p in params:
            if p.array and target == "linalg":
                assert np.array_equal(want[p.name], got[p.name]), (name, p.name, want[p.name], got[p.name])


def test_a_copy_reading_the_copy_before_it_runs_in_the_same_order():
    """y[i] = y[i-1] + x[i]; y[i+1] = y[i] + x[i+1] (step 2): the second copy reads what
    the first wrote. Rerolled to one unit-step loop, the statements run in the same order
    on the same elements, so the normal form equals the C bit for bit (the raise itself is
    a recurrence, exit 3, so the normal form is run)."""
    from synth.execution import run_function

    name = "running_sum_unroll2"
    nf = _normal(name)
    text = nf.source.text
    assert text.count("affine.for") == 1 and "step" not in text and " = 1 to 9 {" in text, text
    assert any("unrolled by hand" in n for n in nf.interface.notes)
    case = Case(PATH, name, CASES[name])
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(3))
    want, _ = run_c(case, params, result, {k: np.copy(v) if isinstance(v, np.ndarray) else v
                                           for k, v in args.items()}, "-O0")
    got = run_function(text, name, [("i32", 9), args["x"].copy(), args["y"].copy()]).outputs[2]
    assert np.asarray(got).tobytes() == want["y"].tobytes()
