"""Flat subscripts at a constant stride and rows at independent run-time strides
(benchmarks/c-libs/strided.c), raised with their sizes left free (one raise for every
size) to both targets and run against the C compiled by gcc at the manifest's sizes and
at larger ones. A pointer read at `pSrc[2 * i]`, `pSrc[2 * i + 1]`, `pSrc[2 * i + 2]`
(2n + 1 samples: rows of 2 would reach one element past it, so the C front end reads it
flat) is two strided views, the even lattice of n + 1 elements and the odd one of n,
which end where the reads do; reads at a stride beside reads at unit stride are a view
each; a channel written inside interleaved pixels is a view of it; a per-row rms norm
reads rows of x at stride ldx and writes rows of o at stride ldo (`size <= ldx`
recorded in synth.assumptions)."""

from __future__ import annotations

import pytest
from c_oracle import raise_for_every_size_equals_compiled_c, load_cases
from conftest import ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c

CASES = {c.function: c for c in load_cases(ROOT / "benchmarks" / "c-libs") if c.path.name == "strided.c"}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")



def test_odd_count_of_samples_is_two_lattices_that_end_where_the_reads_do():
    from synth.analysis.model import load_kernel
    from synth.analysis.regions import reached_views

    case = CASES["decimate2_smooth_f32"]
    source = translate_c(str(case.path), function=case.function)
    assert "memref<?xf32>" in source.text.split("@decimate2_smooth_f32(")[1].split(",")[0]
    kernel = load_kernel(source, case.function)
    views = reached_views(kernel, kernel.sizes.standin())
    n = case.sizes["blockSize"]
    fields = views.extra[0]
    values = {name: n for name in kernel.sizes.symbols}
    got = [(b.at(values).lo[0], b.at(values).count[0], b.stride[0]) for b in fields]
    assert got == [(0, n + 1, 2), (1, n, 2)]  # elements 0, 2, ..., 2n and 1, 3, ..., 2n - 1


def test_a_written_array_reached_short_of_its_loop_size_is_that_short():
    """`y[2 * i]`, `y[2 * i + 1]` over i < n - 1: y holds n - 1 rows of 2 in the C (its
    c_shape), and the size model says so too (it said n: the drop-in passed n rows, one
    past the array); its odd column is a store at an edge over those rows."""
    from synth.analysis.model import load_kernel
    from synth.analysis.symbols import SizeExpr

    case = CASES["upsample2_linear"]
    source = translate_c(str(case.path), function=case.function)
    assert '"n - 1", "2"' in source.text
    kernel = load_kernel(source, case.function)
    n = SizeExpr.symbol(kernel.sizes.params[2])
    assert kernel.sizes.arg_dims[1] == (n - 1, SizeExpr.of(2)) and kernel.sizes.arg_dims[0] == (n,)


def test_strided_reads_beside_unit_reads_and_a_written_channel_are_views():
    from synth.analysis.model import load_kernel
    from synth.analysis.regions import reached_views

    case = CASES["octave_up_mix"]  # x[i] and x[2 * i]: a box each
    kernel = load_kernel(translate_c(str(case.path), function=case.function), case.function)
    views = reached_views(kernel, kernel.sizes.standin())
    assert sorted(b.stride for b in views.extra[0]) == [(1,), (2,)]
    case = CASES["insert_channel1_u8"]  # dst[3 * i + 1] = src[i]: the middle column of dst
    kernel = load_kernel(translate_c(str(case.path), function=case.function), case.function)
    box = reached_views(kernel, kernel.sizes.standin()).main[1]
    assert box.lo[1] == 1 and box.count[1] == 1


DEFAULT = [("decimate2_smooth_f32", "stablehlo"), ("lift53_predict", "linalg"),
           ("rmsnorm_rows", "linalg"), ("sgeam_nn", "stablehlo"), ("upsample2_linear", "stablehlo"),
           ("insert_channel1_u8", "linalg"), ("octave_up_mix", "linalg"), ("resize_nearest_half_u8", "linalg")]
SLOW = [(f, t) for f in ("decimate2_smooth_f32", "lift53_predict", "rmsnorm_rows", "sgeam_nn",
                         "extract_channel1_u8", "downsample4", "scale_rows_ld", "cmplx_mult_real_f32",
                         "upsample2_linear", "insert_channel1_u8", "octave_up_mix", "resize_nearest_half_u8",
                         "rows_decimate2_f32")
        for t in ("stablehlo", "linalg") if (f, t) not in DEFAULT]



@pytest.mark.parametrize("name,target", DEFAULT + [pytest.param(f, t, marks=pytest.mark.slow) for f, t in SLOW])
def test_strided_raise_for_every_size_equals_compiled_c(name, target):
    raise_for_every_size_equals_compiled_c(CASES[name], target)
