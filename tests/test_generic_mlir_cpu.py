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


# deriche's and adi's sweeps (counter loops whose step works lane by lane) in generic raises:
# made static per call, their state vectors and arrays are still carried as `?` tensors
# (synth-static-iter-args carries them static) and stablehlo's column reads are gathers
# (lowered as the slices they are), so synth-lane-blocks takes all four sweeps as in the
# static raise (before: 0 of deriche's, 2 of adi's; generic over static time at LARGE 2.3-3.2).
# At sizes the blocks of 16 lanes do not divide, below 16, and 1: the values are the
# original loops' at the same sizes.
SWEEPS = {  # kernel -> (dataset raised at, size-argument configurations)
    "deriche": ("mini", [(37, 21), (16, 33), (5, 3)]),
    "adi": ("mini", [(3, 37), (2, 18)]),  # (tsteps, n): inner lanes 35 and 16
}
# the sweeps synth-lane-blocks takes, as in the static raise (adi's stablehlo raise carries
# whole columns as its state, read at shifted lanes: no lane blocks in either raise)
TAKEN = {("deriche", "linalg"): 4, ("deriche", "stablehlo"): 4, ("adi", "linalg"): 4, ("adi", "stablehlo"): 0}


def _original_at(kernel: str, sizes: tuple) -> str:
    from synth.analysis.resize import resize_module
    from synth.frontend.reader import load_input

    return resize_module(load_input(POLYBENCH / f"{kernel}.mlir"), [f"kernel_{kernel}"], "mini", sizes)


def _generic_raise(tmp_path_factory, kernel: str, target: str) -> str:
    work = tmp_path_factory.mktemp(f"{kernel}-{target}")
    dataset = SWEEPS[kernel][0]
    path, raised = work / f"{kernel}.{dataset}.mlir", work / f"{kernel}.{target}.generic.mlir"
    assert main(["resize", str(POLYBENCH / f"{kernel}.mlir"), "--dataset", dataset, "-o", str(path)]) == 0
    assert main(["raise", str(path), "--target", target, "--shapes", "generic", "-q", "-o", str(raised)]) == 0
    text = raised.read_text()
    assert "tensor<?x?xf64>" in text
    return text


def _arguments(kernel: str, sizes: tuple, rng) -> list:
    if kernel == "deriche":
        w, h = sizes
        return [("i32", w), ("i32", h), ("f64", 0.25)] + [rng.uniform(0, 1, (w, h)) for _ in range(4)]
    tsteps, n = sizes
    return [("i32", tsteps), ("i32", n)] + [rng.uniform(0, 1, (n, n)) for _ in range(4)]


def _sweeps_as_blocks(tmp_path_factory, kernel: str, target: str) -> None:
    text = _generic_raise(tmp_path_factory, kernel, target)
    prepared = MlirCpuBackend(target=target).prepare(text, f"kernel_{kernel}")
    for sizes in SWEEPS[kernel][1]:
        rng = np.random.default_rng(sum(sizes))
        args = _arguments(kernel, sizes, rng)
        want = run_function(_original_at(kernel, sizes), f"kernel_{kernel}",
                            [a.copy() if isinstance(a, np.ndarray) else a for a in args]).outputs
        inputs = [a if isinstance(a, np.ndarray) else np.asarray(a[1], dtype=np.float64 if a[0] == "f64" else np.int32)
                  for a in args]
        got = prepared.run(inputs)
        assert prepared.pipeline_name == "tiled", prepared.fallback_reason
        outputs = range(len(args) - len(got), len(args))  # the arrays written: the last ones
        for k, o in enumerate(outputs):
            np.testing.assert_allclose(got[k], want[o], rtol=1e-10, atol=1e-12,
                                       err_msg=f"{kernel} {target} generic at {sizes}, arg{o}")
        if min(sizes[-2:]) > 1 if kernel == "deriche" else sizes[1] > 3:
            assert prepared.rewrites.get("synth-lane-blocks", 0) == TAKEN[kernel, target], (sizes, prepared.rewrites)


def test_deriche_generic_linalg_sweeps_as_lane_blocks(tmp_path_factory):
    _sweeps_as_blocks(tmp_path_factory, "deriche", "linalg")


@pytest.mark.slow
@pytest.mark.parametrize("kernel,target", [("deriche", "stablehlo"), ("adi", "linalg"), ("adi", "stablehlo")])
def test_generic_sweeps_as_lane_blocks(tmp_path_factory, kernel, target):
    _sweeps_as_blocks(tmp_path_factory, kernel, target)
