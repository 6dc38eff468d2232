"""Arrays reached in part (synth.analysis.regions, synth.synthesis.views): a leading
dimension larger than the columns used, a strided read, a strided store and a loop of
step 2 that only looks sequential raise to both targets over the boxes the loops reach,
every element outside a written box kept; the raised function is
checked against the original on fresh inputs, outside synth's own validation. A true
recurrence is still refused (exit 3) with its reason."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA

from synth.analysis.model import load_kernel
from synth.analysis.regions import Box, boxes, reached_views
from synth.analysis.symbols import SizeExpr
from synth.backends.xla import run_stablehlo
from synth.errors import NoSolutionError
from synth.execution import TENSOR_PIPELINE, run_function
from synth.frontend.reader import load_source
from synth.pipeline import RaiseOptions, raise_function
from synth.synthesis.search import SearchSettings
from synth.synthesis.spec import random_draw

STRIDED = DATA / "strided.mlir"


def _kernel(name):
    return load_kernel(load_source(STRIDED, warn=False), name)


def test_boxes_of_a_leading_dimension_and_a_stride():
    k = _kernel("lead_dim")
    assert boxes(k.at(k.sizes.original()), "lead_dim", {}).main[0] == Box((0, 0), (12, 15), (1, 1))
    views = reached_views(k, k.sizes.standin())
    assert list(views.main) == [0] and not views.extra  # x and y are reached whole
    assert views.main[0].count == (SizeExpr.symbol("n12"), SizeExpr.symbol("n15"))
    k = _kernel("strided_read")
    assert boxes(k.at(k.sizes.original()), "strided_read", {}).main[0] == Box((1,), (20,), (2,))
    assert reached_views(k, k.sizes.standin()).main[0].stride == (2,)


def _check(name, target):
    source = load_source(STRIDED, warn=False)
    outcome = raise_function(source, name, target, RaiseOptions())
    text = outcome.module
    assert f"@{name}_raised" in text
    boxes_ops = ("tensor.extract_slice", "tensor.insert_slice") if target == "linalg" else \
        ("stablehlo.slice", "stablehlo.pad", "stablehlo.dynamic_update_slice")
    assert any(op in text for op in boxes_ops)
    k = load_kernel(source, name)
    args = k.arguments(k.sizes.original(), random_draw(np.random.default_rng(3)))[: k.n_arguments]
    want = run_function(source.text, name, [np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    expected = [want.outputs[i] for i in k.written]
    if target == "stablehlo":
        raised_only = text.split(f"  func.func @{name}(")[0] + "}\n"
        got = run_stablehlo(raised_only.replace(f"@{name}_raised(", "@main(", 1), args)
    else:  # the drop-in @NAME, with the original calling convention
        dropin = run_function(text, name, [np.copy(a) for a in args], pipeline=TENSOR_PIPELINE)
        got = [dropin.outputs[i] for i in k.written]
    for g, w in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-12)
    return outcome


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_leading_dimension_raises(target):
    outcome = _check("lead_dim", target)
    assert "proven" in outcome.validation["summary"]


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_strided_read_raises(target):
    _check("strided_read", target)


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_step_2_loop_raises(target):
    """`a[i] = a[i - 1] + b[i]` for odd i reads the even elements, which it never writes:
    a strided view of them, the odd ones written back by insert_view."""
    outcome = _check("step2", target)
    assert ("stablehlo.pad" if target == "stablehlo" else "tensor.insert_slice") in outcome.module


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_strided_store_raises(target):
    """`a[2 * i + 1] = 3 * b[i]`: the odd elements written, the even ones kept."""
    _check("strided_store", target)


def test_step_2_boxes():
    k = _kernel("step2")
    views = reached_views(k, k.sizes.standin())
    assert views.main[0].stride == views.extra[0][0].stride == (2,)
    assert (views.main[0].lo, views.extra[0][0].lo) == ((1,), (0,))


@pytest.mark.slow
def test_a_recurrence_is_still_refused():
    with pytest.raises(NoSolutionError, match="recurrence"):
        raise_function(load_source(STRIDED, warn=False), "recurrence", "linalg",
                       RaiseOptions(settings=SearchSettings(timeout=5)))
