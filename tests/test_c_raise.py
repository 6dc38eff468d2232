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
DIRECTIONS = DATA / "c" / "directions.c"
CASES["directions:down"] = Case(DIRECTIONS, "down", {"sizes": {"n": 37}, "arrays": {"a": "n", "b": "n"},
                                                     "free": True})
CASES["directions:down2d"] = Case(DIRECTIONS, "down2d", {
    "sizes": {"n": 9, "m": 13}, "arrays": {"A": "n*m", "B": "n*m"}, "free": True})
CASES["directions:shift_up"] = Case(DIRECTIONS, "shift_up", {"sizes": {"n": 29}, "arrays": {"a": "n", "b": "n"}})
for _name in ("blend_screen", "invert"):  # 8-bit, raised with the sizes left free (every size)
    _case = CASES[f"image8:{_name}"]
    CASES[f"image8:{_name}/free"] = Case(_case.path, _name, {**_case.spec, "free": True})
for _id in ("dsp:reverse", "blas2:dtrmv_lower", "blas1:isamax", "llama:rmsnorm", "dsp:fir"):
    # raised for every size (no op left without a shape-generic form), run at the manifest's sizes
    CASES[f"{_id}/free"] = Case(CASES[_id].path, CASES[_id].function, {**CASES[_id].spec, "free": True})
STRIDED = DATA / "c" / "strided.c"
CASES["strided:step2"] = Case(STRIDED, "step2", {"sizes": {"n": 33}, "arrays": {"a": "n", "b": "n"}})
CASES["strided:lda_scale"] = Case(STRIDED, "lda_scale", {
    "sizes": {"m": 7, "n": 9, "lda": 12}, "ints": {}, "arrays": {"A": "m*lda"}})
CASES["strided:odd_store"] = Case(STRIDED, "odd_store", {"sizes": {"n": 17}, "arrays": {"a": "2*n", "b": "n"}})
RAISED = [
    ("directions:down", "for (i = n - 2; i >= 0; i--) a[i + 1] = a[i] + b[i]"),
    ("directions:down2d", "A[i][j] = A[i - 1][j] + ..., i counting down"),
    ("directions:shift_up", "a[i] = a[i + 1] * b[i]"),
    ("tsvc:s271", "if (b[i] > 0) a[i] += b[i] * c[i]"),
    ("counters:scale_packed", "j++ before y[j] ="),
    ("counters:pair_sums", "x[k] + x[k + 1]; k += 2"),
    ("darknet:gemm_nn", "A[i * lda + k], register A_PART"),
    ("dsp:matmul_dsp", "p_a = &A[i * Y]; *p_c++ = acc"),
    ("blas2:sger", "A[i * lda + j] += t * y[j], j < n < lda: a box of A"),
    ("tsvc:s123", "j++; a[j] = ... over LEN / 2: half of each array"),
    ("strided:step2", "for (i = 1; i < n; i += 2) a[i] = a[i - 1] + b[i]"),
    ("strided:lda_scale", "A[i * lda + j] = alpha * A[i * lda + j], j < n < lda"),
    # dsp:decimate2 (in[2 * i], in[2 * i + 1], in[2 * i + 2]) no longer raises: rows of 2 made a
    # box [0..nout][0..1] one element past the 2 * nout + 1 the function reads (the drop-in
    # read past the array); read flat, `in[2 * i]` is a strided index the sketches do not read
    ("dsp:reverse", "out[n - 1 - i] = in[i], i counting down: reverse"),
    ("dsp:reverse/free", "the same for every size"),
    ("blas2:dtrmv_lower/free", "x and tmp both L x: two results, one buffer once bufferized"),
    pytest.param("blas1:isamax/free", "argmax for every size", marks=pytest.mark.slow),
    pytest.param("llama:rmsnorm/free", "ss /= size: a size as a value", marks=pytest.mark.slow),
    pytest.param("dsp:fir/free", "x[n + k]: a window for every size", marks=pytest.mark.slow),
    pytest.param("tsvc:s127_half", "a[i + m] = b[i] + c[i] * a[i], m = LEN / 2", marks=pytest.mark.slow),
    pytest.param("strided:odd_store", "a[2 * i + 1] = 3.0 * b[i]", marks=pytest.mark.slow),
]

# 8- and 16-bit arithmetic: char / short arrays read through C's promotions (extui /
# extsi), computed on as int, stored back through a cast (trunci: the low bits); the
# oracle's inputs cover every value of the type
EIGHT_BIT = [
    ("image8:blend_screen", "255 - ((255 - a[i]) * (255 - b[i])) / 255, unsigned char"),
    ("intk:mix_q15", "int16_t, (a * gain + b * (32767 - gain)) >> 15, int16_t gain"),
    ("image8:blend_average", "(a[i] + b[i]) >> 1"),
]
EIGHT_BIT_SLOW = [
    ("image8:blend_multiply", "(unsigned char)((a[i] * b[i]) / 255)"),
    ("image8:blend_add", "int s = a[i] + b[i]; s > 255 ? 255 : s"),
    ("image8:blend_subtract", "d < 0 ? 0 : d"),
    ("image8:blend_darken", "a[i] < b[i] ? a[i] : b[i]"),
    ("image8:blend_difference", "d < 0 ? -d : d"),
    ("image8:blend_alpha", "uint8_t alpha, in place"),
    ("image8:invert", "img[y * width + x] = 255 - ..."),
    ("image8:threshold", "in[i] > t ? 255 : 0, unsigned char t"),
    ("image8:brighten", "clamped on both ends by two ifs"),
    ("intk:qgemv", "int8_t matrix-vector product"),
    ("intk:requantize", "(in * mult) >> shift clamped, to int8_t"),
    ("intk:sad_u8", "sum of |a - b| over uint8_t"),
    ("intk:colsum_s16", "short column sums into int"),
    ("intk:divmod", "a[i] / 7 and a[i] % b[i]: remainders, random divisors never 0"),
    ("intk:hash_mix", "uint32_t h ^= h >> 16: a logical shift"),
    ("image8:invert/free", "img[y * width + x] = 255 - ..., every size"),
    ("image8:blend_screen/free", "unsigned char, every size"),
    ("intk:xor_bytes", "dst[i] ^= src[i], uint8_t"),
    ("intk:dot_i8", "int8_t dot product into int32_t"),
    ("image8:rgb_to_gray", "rgb[3 * i + 1]: a view of the middle column of a char array"),
]

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


_ALL = RAISED + EIGHT_BIT + [pytest.param(n, w, marks=pytest.mark.slow) for n, w in EIGHT_BIT_SLOW]


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name,what", _ALL, ids=[r.values[0] if hasattr(r, "values") else r[0] for r in _ALL])
def test_raise_equals_compiled_c(name, what, target):
    case = CASES[name]
    # "free": raised with its sizes left free (a raise for every size), run at the sizes
    fixed = None if case.spec.get("free") else case.sizes or None
    source = translate_c(str(case.path), function=case.function, sizes=fixed)
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


@pytest.mark.parametrize("target", ["linalg"])
def test_a_down_counting_recurrence_is_refused(target):
    """`a[i] = a[i + 1] + b[i]` counting down reads what the previous iteration wrote: a
    true recurrence, which no tensor program of the grammar computes (exit 3), while the
    same loop counting up (shift_up) and `a[i + 1] = a[i] + ...` counting down raise."""
    from synth.errors import NoSolutionError
    from synth.synthesis.search import SearchSettings

    source = translate_c(str(DIRECTIONS), function="rec_down")
    with pytest.raises(NoSolutionError, match="no equivalent program found"):
        raise_function(source, "rec_down", target, RaiseOptions(settings=SearchSettings(timeout=5)))


def test_a_stride_2_recurrence_is_refused():
    """`a[i] = a[i - 2] + b[i]` at step 2 reads what the previous iteration wrote (the same
    lattice of a): a true recurrence, exit 3 with that reason, where `a[i] = a[i - 1] +
    b[i]` at step 2 (step2: it reads the other lattice) raises."""
    from synth.errors import NoSolutionError
    from synth.synthesis.search import SearchSettings

    source = translate_c(str(STRIDED), function="rec_step2", sizes={"n": 33})
    with pytest.raises(NoSolutionError, match="is a recurrence"):
        raise_function(source, "rec_step2", "linalg", RaiseOptions(settings=SearchSettings(timeout=3)))


# raised for every size once, run against gcc at the manifest's sizes and at two others
# (scripts/c_coverage.py --free-sizes): a window, argmax, a size as a value, a reversal,
# extents an access reaches past its loop's bound (att[t], t <= pos), views
EVERY_SIZE = ["dsp:fir", "blas1:isamax", "llama:rmsnorm", "dsp:reverse", "llama:attention_scores",
              "llama:attention_mix", "blas2:dtrmv_lower", "dsp:moving_average",
              "dsp:fir_causal"]


@pytest.mark.slow
def test_raises_for_every_size_equal_compiled_c_at_three_sizes(tmp_path):
    import json
    import subprocess
    import sys

    out = tmp_path / "rows.json"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "c_coverage.py"), "--free-sizes",
                           "--only", *EVERY_SIZE, "--json", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert sorted(r["function"] for r in rows) == sorted(EVERY_SIZE)
    bad = {(r["function"], t): e["status"] for r in rows for t, e in r["raise"].items() if e["status"] != "ok"}
    assert not bad, bad
    assert all(e.get("sizes_checked") == 3 for r in rows for e in r["raise"].values())
