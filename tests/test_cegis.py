"""Counterexample-guided search (synth.pipeline.raise_function): a program that validation
refutes makes the search run again on examples built from the counterexample, and the
proofs' integers stay within the inputs' types."""

import json

import numpy as np

from conftest import DATA
from synth.analysis.model import load_kernel
from synth.cli import main
from synth.frontend.reader import load_input
from synth.pipeline import RaiseOptions, _embedded, counter_states, raise_function
from synth.synthesis.search import SearchSettings
from synth.validation.common import Counterexample
from synth.validation.verify import verify

CEGIS = DATA / "cegis"


def _kernel(name: str, function: str):
    source = load_input(CEGIS / name, warn=False)
    return source, load_kernel(source, function)


def test_refuted_program_is_searched_again():
    """max_reset: x = max(0, max_i alpha + A[i, :]). On the first examples alpha + max_i A
    is positive, so the first program leaves the 0 out; validation refutes it and the
    search goes on with the refuting inputs until a program validates (before: exit 3
    after the second search, "failed validation")."""
    source, kernel = _kernel("max_reset.mlir", "max_reset")
    options = RaiseOptions(settings=SearchSettings(timeout=90.0))
    outcome = raise_function(source, "max_reset", "stablehlo", options, kernel=kernel)
    assert outcome.stats["rounds"] >= 2 and outcome.stats["refuting_examples"] > 0
    assert outcome.stats["refuted"]  # the first program, with its counterexample
    assert outcome.validation["level"] in ("z3", "all")


def test_rounds_are_in_stats_json(tmp_path):
    out, stats = tmp_path / "out.mlir", tmp_path / "stats.json"
    assert main(["raise", str(CEGIS / "min_neg_i32.mlir"), "--target", "stablehlo", "--timeout", "60",
                 "-o", str(out), "--stats-json", str(stats)]) == 0
    record = json.loads(stats.read_text())["min_neg"]
    # the first program found here is refuted (by a test's input), the second proven
    assert record["rounds"] >= record["attempts"] >= 2 and record["refuting_examples"] >= 1
    # the search's time is every round's: at least its sub-problems' (each round's are listed)
    problems = record["problems"]
    assert record["search_seconds"] >= sum(p["seconds"] for p in problems) - 0.001 * len(problems)
    assert abs(record["search_share"] - record["search_seconds"] / record["seconds"]) < 0.002


def test_integer_inputs_stay_within_their_type():
    """min(y, 0 - max_i F) with the max starting from the smallest i32 is the original's
    min_i min(y, -F[i]) for every i32 input; the proof's integers once took F below the
    smallest i32 and called it not equivalent (found by the fuzzer, fuzz_27 of seed 1000)."""
    report = verify(CEGIS / "min_neg_i32.mlir", CEGIS / "min_neg_i32.raised.mlir", level="z3")
    assert report.verdict == "equivalent", report.counterexample


def test_counterexample_is_repeated_over_the_standin_arrays():
    _, kernel = _kernel("min_neg_i32.mlir", "min_neg")
    standin = kernel.sizes.standin()
    small = np.array([[-7, 3], [5, -9], [1, 2]])  # a 3 x 2 counterexample for F (64 x 32)
    mask = np.array([[True, False], [True, True], [False, True]])
    state = _embedded(kernel, standin, [(small, mask), None], np.random.default_rng(0))
    F = state[0]
    assert F.shape == (standin["n64"], standin["n32"]) and F.dtype == np.int32
    for i in range(F.shape[0]):
        for j in range(F.shape[1]):
            if mask[i % 3, j % 2]:
                assert F[i, j] == small[i % 3, j % 2]
    # a test's counterexample: every value, then draws of its input set
    y = np.arange(3, dtype=np.int32)
    cex = Counterexample("test", {"n32": 2, "n64": 3}, "arg1", (0,), "0", "1", {},
                         kind="negatives", args=[small.astype(np.int32), y])
    states = counter_states(kernel, cex, np.random.default_rng(1))
    assert len(states) == 3
    assert np.array_equal(states[0][1][:3], y) and np.array_equal(states[0][0][:3, :2], small)
