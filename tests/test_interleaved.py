"""An array of structures read field by field (`p[3 * i]`, `p[3 * i + 1]`, ...) is read as
one strided view per field (synth.analysis.regions: interleaved lattices of one read-only
array, each an input of its own), on C written here (not the libjpeg rgb_ycc_convert of
benchmarks/c-libs/heldout3): a stereo mix-down (stride 2, floats) and BGRA to luma
(stride 4, bytes, one field never read), in rows with a pitch (so the C front end reads
them as 2-d arrays with strided columns); and the two halves of a row as two blocks side
by side (an int16 dot product per half: on linalg an integer product summed, as linalg's
contractions are the float grammar's). The raises equal the C compiled by gcc."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import Case, assert_same, inputs, mlir_signature, raised_outputs, run_c, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c

PATH = ROOT / "tests" / "data" / "interleaved.c"
CASES = {
    "stereo_rows": {"sizes": {"rows": 3, "n": 9, "ld": 21}, "arrays": {"lr": "rows*ld", "mono": "rows*n"}},
    "halves_dot_i16": {"sizes": {"rows": 5}, "arrays": {"w": "rows*16", "x": "rows*16", "out": "rows"}},
    "bgra_luma": {"sizes": {"rows": 4, "cols": 7, "pitch": 30}, "arrays": {"px": "rows*pitch", "luma": "rows*cols"}},
}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def test_fields_are_boxes_of_their_own():
    from synth.analysis.model import load_kernel
    from synth.analysis.regions import reached_views

    source = translate_c(str(PATH), function="bgra_luma", sizes=CASES["bgra_luma"]["sizes"])
    kernel = load_kernel(source, "bgra_luma")
    views = reached_views(kernel, kernel.sizes.standin())
    fields = views.extra[3]  # px: b, g, r at stride 4 (the alpha field is not read)
    assert [b.lo[-1] for b in fields] == [0, 1, 2] and {b.stride[-1] for b in fields} == {4}
    assert set(views.roles) >= {"extra:0", "extra:1", "extra:2"}
    source = translate_c(str(PATH), function="halves_dot_i16", sizes=CASES["halves_dot_i16"]["sizes"])
    kernel = load_kernel(source, "halves_dot_i16")
    views = reached_views(kernel, kernel.sizes.standin())
    for k in (1, 2):  # w and x: columns 0..7 and 8..15 of each row, a box each
        at = [b.at(kernel.sizes.original()) for b in views.extra[k]]
        assert [(b.lo[-1], b.count[-1]) for b in at] == [(0, 8), (8, 8)]


@pytest.mark.parametrize("name,target", [pytest.param("stereo_rows", "stablehlo", marks=pytest.mark.slow),
                                         ("bgra_luma", "linalg"), ("halves_dot_i16", "linalg"),
                                         pytest.param("halves_dot_i16", "stablehlo", marks=pytest.mark.slow)])
def test_field_reads_raise_equal_to_compiled_c(name, target):
    from synth.pipeline import RaiseOptions, raise_function

    case = Case(PATH, name, CASES[name])
    source = translate_c(str(PATH), function=name, sizes=case.sizes)
    outcome = raise_function(source, name, target, RaiseOptions())
    params, result = signature(case)
    sig = mlir_signature(translate_c(str(PATH), function=name, locations=False, sizes=case.sizes).text, name)
    for seed in (1, 2):
        args = inputs(case, params, np.random.default_rng(seed))
        want = run_c(case, params, result, args, "-O2")
        got = raised_outputs(outcome.module, case, params, args, target, sig)
        assert_same(case, f"raised {target}", params, result, want, got)
        if name != "stereo_rows":  # integers: exactly
            for p in params:
                if p.array:
                    assert np.array_equal(want[0][p.name], got[0][p.name])
