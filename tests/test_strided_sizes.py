"""Stand-in sizes respect steps: the trip count of a loop the C front end renumbered by its
step k (`for (i = 0; i < LEN; i += 3)` as i' < 86, `a[3 * i']`) is read as ceil(extent / k)
of the dim it reaches, not a size of its own; before, TSVC's s122 (a[i] at step 3, b[LEN - k]
read backwards) had no small sizes that kept both accesses within their arrays (exit 2)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from synth.analysis.model import load_kernel
from synth.backends.cc import compiler
from synth.frontend.c import translate_c

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def test_trip_count_of_a_stepped_loop_follows_the_extent():
    source = translate_c(str(ROOT / "benchmarks" / "c-libs" / "tsvc.c"), function="s122",
                         sizes={"n1": 1, "n3": 3})
    sizes = load_kernel(source, "s122").sizes
    assert list(sizes.symbols) == ["n256"]  # no symbol of its own for the 86 iterations
    for values in (sizes.standin(), {"n256": 10}, {"n256": 11}, {"n256": 12}):
        assert sizes.valid(values), values
        small = load_kernel(source, "s122").at(values).text
        assert f"to {-(-values['n256'] // 3)} {{" in small  # ceil(n / 3) iterations
