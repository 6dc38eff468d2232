"""A shape-generic raise on mlir-cpu takes the static raise's fast path (issue #52).

The backend makes the generic text static at each call's shapes (registry.PerShape,
synth.semantics.specialize), whose canonicalize and cse leave two things a static raise
does not have: producers CSE merged (durbin's gather indices: synth-broadcasts-per-use
copies them per use, so each gather fuses into one generic, synth-payload-cse merges the
copies' repeats, and synth-hoist-flips finds the reversal of r), and loops carrying a
static tensor as a `?` one (ludcmp's LU: synth-library-loops gives it its static type
first; tests/test_library_lowering.py). Here
durbin's generic stablehlo raise, at sizes other than the one it was raised at: the passes
fire as on the static raise, and the values are the original loops'. No timing.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import POLYBENCH

from synth.backends.mlir_cpu import MlirCpuBackend
from synth.cli import main
from synth.execution import run_function


@pytest.fixture(scope="module")
def durbin(tmp_path_factory):
    """(durbin's generic stablehlo raise, {n: the kernel resized to n}) at MINI (40) and
    SMALL (120)."""
    work = tmp_path_factory.mktemp("durbin")
    sources = {}
    for dataset, n in (("mini", 40), ("small", 120)):
        path = work / f"durbin.{dataset}.mlir"
        assert main(["resize", str(POLYBENCH / "durbin.mlir"), "--dataset", dataset, "-o", str(path)]) == 0
        sources[n] = path.read_text()
    raised = work / "durbin.stablehlo.generic.mlir"
    assert main(["raise", str(work / "durbin.mini.mlir"), "--target", "stablehlo", "--shapes", "generic",
                 "-q", "-o", str(raised)]) == 0
    text = raised.read_text()
    assert "tensor<?xf64>" in text
    return text, sources


@pytest.mark.parametrize("n", [40, 120])
def test_durbin_generic_stablehlo_gathers_fused_and_hoisted(durbin, n):
    """At n (the raise's own size and another), the flip of r (an argument) is computed
    once before the loop, as in the static raise (hoist-flips: 1), the index vectors having
    been copied per use; the result is the original loops'."""
    text, sources = durbin
    rng = np.random.default_rng(n)
    r = rng.uniform(-1, 1, n) / n
    args = [("i32", n), r, np.zeros(n)]
    want = run_function(sources[n], "kernel_durbin", [a.copy() if isinstance(a, np.ndarray) else a
                                                      for a in args]).outputs
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "kernel_durbin")
    (got,) = prepared.run(args)
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    np.testing.assert_allclose(got, want[2], rtol=1e-9, atol=1e-12, err_msg=f"durbin generic at {n}")
    assert prepared.rewrites.get("synth-broadcasts-per-use", 0) > 0, prepared.rewrites
    assert prepared.rewrites.get("synth-payload-cse", 0) > 0, prepared.rewrites
    assert prepared.rewrites.get("synth-hoist-flips") == 1, prepared.rewrites
