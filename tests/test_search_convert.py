"""The bottom-up search offers the conversion ops (extf, truncf, sitofp ...) where the
kernel converts, with only the kinds between the problem's element types (the types
prune the attribute domain): kernels whose statements need a float conversion raise with
the sketches off (before, the search's op set had only the integer casts)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from synth.backends.cc import compiler
from synth.frontend.c import translate_c
from synth.grammar.op import ops_for
from synth.synthesis.opset import select_ops

C = """
void widen_add(int n, const float *x, const double *z, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = (double)x[i] + z[i];
}
void int_to_float(int n, const int *k, const float *z, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = z[i] - (float)k[i];
}
"""


def test_convert_licensed_by_float_conversions_only():
    names = lambda ops: {op.name for op in ops}  # noqa: E731
    for dialect in ("stablehlo", "linalg"):
        convert = f"{dialect}.convert"
        assert convert in names(ops_for(dialect))
        for op in ("arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi"):
            assert convert in names(select_ops(dialect, Counter({op: 1, "arith.addf": 1})))
        assert convert not in names(select_ops(dialect, Counter({"arith.addf": 1, "arith.mulf": 1})))


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
@pytest.mark.parametrize("name,target", [("widen_add", "stablehlo"), ("int_to_float", "linalg")])
def test_search_finds_a_float_conversion(tmp_path, name, target):
    from synth.pipeline import RaiseOptions, raise_function
    from synth.backends.run import run_raised
    from synth.synthesis.search import SearchSettings

    path = tmp_path / "conv.c"
    path.write_text(C)
    source = translate_c(str(path), function=name, sizes={"n": 9})
    options = RaiseOptions(settings=SearchSettings(sketches=False, timeout=60))
    outcome = raise_function(source, name, target, options)
    assert outcome.validation["level"] in ("z3", "all")
    program = " ".join(s["program"] for s in outcome.stats["problems"] if s["program"])
    assert "convert" in program, program
    rng = np.random.default_rng(0)
    if name == "widen_add":
        x, z = rng.uniform(-1, 1, 9).astype(np.float32), rng.uniform(-1, 1, 9)
        args, want = [np.asarray(9, np.int32), x, z, np.zeros(9)], x.astype(np.float64) + z
    else:
        k, z = rng.integers(-50, 50, 9).astype(np.int32), rng.uniform(-1, 1, 9).astype(np.float32)
        args, want = [np.asarray(9, np.int32), k, z, np.zeros(9, np.float32)], z - k.astype(np.float32)
    from synth.semantics.raised import load_raised
    raised = load_raised("<raised>", f"{name}_raised", outcome.module)
    got = run_raised(raised.dialect, raised.text, f"{name}_raised", args)
    assert np.array_equal(np.asarray(got[0]), want)
