"""An array of structures read field by field (`p[3 * i]`, `p[3 * i + 1]`, ...) is read as
one strided view per field (synth.analysis.regions: interleaved lattices of one read-only
array, each an input of its own), on C written here (not the libjpeg rgb_ycc_convert of
benchmarks/c-libs/heldout3): a stereo mix-down (stride 2, floats) and BGRA to luma
(stride 4, bytes, one field never read), in rows with a pitch (so the C front end reads
them as 2-d arrays with strided columns); the raises equal the C compiled by gcc."""

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


@pytest.mark.parametrize("name,target", [("stereo_rows", "stablehlo"), ("bgra_luma", "linalg")])
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
        if name == "bgra_luma":  # integers: exactly
            assert np.array_equal(want[0]["luma"], got[0]["luma"])
