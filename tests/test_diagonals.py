"""Interval dynamic programs raised as a loop over their table's diagonals
(synth.synthesis.diagonals): nussinov (PolyBench's own spelling, char bases) and a
matrix-chain ordering written the textbook way (chains by length, a min over split points),
each raised, validated and then run against the original loops, bit for bit, on random
inputs; a recurrence along a diagonal is refused by the dependence check and still exits 3."""

import json
import time

import numpy as np
import pytest

from conftest import DATA, POLYBENCH, ROOT
from synth.analysis.model import load_kernel
from synth.backends.run import run_raised
from synth.cli import main
from synth.execution import DROPIN_PIPELINE, run_function
from synth.frontend.reader import COptions, load_input
from synth.semantics.specialize import specialized_module
from synth.synthesis.diagonals import READ_TIMEOUT_MS, NotDiagonal, diagonal_raise, read_timeout_ms

HERE = DATA / "diagonals"
LOOP = {"stablehlo": "stablehlo.while", "linalg": "scf.for"}


def _raise(tmp_path, path, target, *extra):
    out, stats = tmp_path / f"out.{target}.mlir", tmp_path / f"stats.{target}.json"
    rc = main(["raise", str(path), "--target", target, "--timeout", "60", "-o", str(out),
               "--stats-json", str(stats), *extra])
    if rc != 0:
        return rc, None, None
    record = next(iter(json.loads(stats.read_text()).values()))
    return rc, out.read_text(), record


def _against_loops(path, name: str, defines: list[str], target: str, text: str, inputs: list) -> None:
    """@NAME_raised of `text` and the original loops (C translated with `defines`) on the
    same inputs: the final table bitwise equal."""
    original = load_input(path, c=COptions(defines=tuple(defines)), warn=False).text
    call = [("i32", int(x)) if isinstance(x, np.int32) else x for x in inputs]
    want = run_function(original, name, call).outputs[-1]
    raised_only = text.split(f"  func.func @{name}(")[0] + "}\n"  # without the drop-in
    if "?" in raised_only.split("\n", 2)[1]:  # a generic raise: made static at the inputs' shapes
        raised_only = specialized_module(raised_only, f"{name}_raised", [np.shape(x) for x in inputs])
    got = run_raised(target, raised_only, f"{name}_raised", inputs)
    got = got[0] if isinstance(got, list) else got
    assert want.dtype == got.dtype and np.array_equal(want, got)


def _nussinov_inputs(n: int, rng) -> list:
    seq = rng.integers(0, 4, n).astype(np.int8)
    table = rng.integers(-3, 6, (n, n)).astype(np.int32)
    return [np.int32(n), seq, table]


@pytest.mark.parametrize("target", ["linalg", "stablehlo"])
def test_nussinov_with_char_bases_raises_as_a_loop_over_diagonals(tmp_path, target):
    rc, text, record = _raise(tmp_path, HERE / "nussinov_char.c", target, "-D", "N=9")
    assert rc == 0
    assert record["form"] == "loop with tensor body" and record["candidates"] == 0
    assert record["verification"] == "z3"  # proven at bounded sizes, the loop unrolled there
    assert {"arg0": 8} in record["validation"]["sizes_proven"]
    assert text.count(LOOP[target]) >= 1 and "memref<9xi8>" in text
    rng = np.random.default_rng(5)
    for _ in range(3):
        _against_loops(HERE / "nussinov_char.c", "kernel_nussinov", ["N=9"], target, text,
                       _nussinov_inputs(9, rng))
    assert record["shapes"] == "generic"  # n is an argument (tests/test_diagonals_generic.py: other N)
    if target == "linalg":  # the drop-in raises every n, 9 x 9 arrays
        original = load_input(HERE / "nussinov_char.c", c=COptions(defines=("N=9",)), warn=False).text
        for n in (1, 2, 5, 9):
            _, seq, table = _nussinov_inputs(9, rng)
            call = [("i32", n), seq, table]
            want = run_function(original, "kernel_nussinov", call).outputs[2]
            got = run_function(text, "kernel_nussinov", call, pipeline=DROPIN_PIPELINE).outputs[2]
            assert np.array_equal(want, got), n


@pytest.mark.parametrize("name,target", [
    ("matrix_chain", "linalg"), ("matrix_chain", "stablehlo"), ("chain_lower", "linalg"),
    pytest.param("chain_lower", "stablehlo", marks=pytest.mark.slow)])
def test_matrix_chain_raises_as_a_loop_over_diagonals(tmp_path, target, name):
    """By chain length, as the textbook writes it; chain_lower keeps its table below the
    main diagonal (cost[j][i]), so its diagonals run downwards."""
    rc, text, record = _raise(tmp_path, HERE / f"{name}.c", target, "-D", "N=7")
    assert rc == 0 and record["form"] == "loop with tensor body"
    rng = np.random.default_rng(7)
    dims = rng.integers(1, 30, 8).astype(np.int32)
    cost = rng.integers(0, 100, (7, 7)).astype(np.int32)
    _against_loops(HERE / f"{name}.c", name, ["N=7"], target, text, [dims, cost])


@pytest.mark.parametrize("target", ["linalg", pytest.param("stablehlo", marks=pytest.mark.slow)])
def test_triangulation_reading_its_loop_indices_raises(tmp_path, target):
    """Rows bottom-up as nussinov's, a min over split points, the weights (i+1)(k+1)(j+1)
    computed from the loop indices (affine.apply, index_cast in the body)."""
    rc, text, record = _raise(tmp_path, HERE / "triangulation.c", target, "-D", "N=9")
    assert rc == 0 and record["form"] == "loop with tensor body"
    rng = np.random.default_rng(11)
    score = rng.integers(-50, 50, (9, 9)).astype(np.int32)
    _against_loops(HERE / "triangulation.c", "triangulation", ["N=9"], target, text, [np.int32(9), score])


@pytest.mark.parametrize("target", ["linalg", pytest.param("stablehlo", marks=pytest.mark.slow)])
def test_optimal_bst_in_double_raises(tmp_path, target):
    """Floating point: the cells' operations in the original's order, so the raise is
    bitwise the loops' (1e300 a literal of the body)."""
    rc, text, record = _raise(tmp_path, HERE / "obst.c", target, "-D", "N=8")
    assert rc == 0 and record["form"] == "loop with tensor body"
    rng = np.random.default_rng(13)
    w = rng.uniform(0, 1, (8, 8))
    e = rng.uniform(-1, 1, (8, 8))
    _against_loops(HERE / "obst.c", "obst", ["N=8"], target, text, [np.int32(8), w, e])


def test_a_recurrence_along_a_diagonal_is_refused_by_the_dependence_check():
    kernel = load_kernel(load_input(HERE / "diagonal_chain.c", warn=False), "diagonal_chain")
    with pytest.raises(NotDiagonal, match="shorter diagonal"):
        diagonal_raise(kernel, "linalg")


def test_a_recurrence_along_a_diagonal_still_exits_3(tmp_path, capsys):
    rc = main(["raise", str(HERE / "diagonal_chain.c"), "--target", "linalg", "--timeout", "1",
               "-o", str(tmp_path / "o.mlir")])
    assert rc == 3
    assert "recurrence" in capsys.readouterr().err


@pytest.mark.parametrize("shapes", ["generic", "auto"])
def test_a_run_time_size_is_taken_at_test_values(tmp_path, shapes):
    """`int n, double t[n][n]`: no value of n in the input; the diagonals take test values
    as the search does (was: exit 2, 'cannot tell the value of argument #0', blaming the
    input for what --shapes generic is there to do)."""
    path = tmp_path / "chain.c"
    path.write_text("void chain(int n, double t[n][n])\n{\n  for (int len = 1; len < n; len++)\n"
                    "    for (int i = 0; i < n - len; i++) {\n      int j = i + len;\n"
                    "      t[i][j] = t[i][j - 1] + t[i + 1][j];\n    }\n}\n")
    rc, text, record = _raise(tmp_path, path, "linalg", "--shapes", shapes)
    assert rc == 0 and record["form"] == "loop with tensor body" and "tensor<?x?xf64>" in text


def test_a_nest_without_dependences_is_left_to_the_sketches():
    kernel = load_kernel(load_input(ROOT / "benchmarks" / "polybench-c" / "jacobi-2d.c", warn=False),
                         "kernel_jacobi_2d")
    with pytest.raises(NotDiagonal):
        diagonal_raise(kernel, "linalg")


@pytest.mark.slow
@pytest.mark.parametrize("path", [POLYBENCH / "nussinov.mlir", ROOT / "benchmarks" / "polybench-c" / "nussinov.c",
                                  ROOT / "benchmarks" / "polybench-polygeist" / "nussinov.mlir"])
def test_polybench_nussinov_raises_at_its_own_sizes(tmp_path, path):
    rc, text, record = _raise(tmp_path, path, "linalg")
    assert rc == 0 and record["form"] == "loop with tensor body" and record["verification"] == "z3"


def test_a_recurrence_along_rows_only_is_left_to_the_interchange():
    """y[i][j] = a * y[i][j-1] + x[i][j] is a wavefront too, but its rows are independent:
    the interchange (synth.synthesis.recurrence) raises it as a loop over whole columns."""
    path = DATA / "recurrence" / "filters.c"
    kernel = load_kernel(load_input(path, function="rows_in_place", warn=False), "rows_in_place")
    with pytest.raises(NotDiagonal, match="interchange"):
        diagonal_raise(kernel, "linalg")


def test_each_reads_z3_question_is_bounded_by_the_callers_deadline():
    """The legality check's Z3 time per read: READ_TIMEOUT_MS without a deadline or far
    from it, what is left of the deadline near it, and a refusal once it has passed."""
    now = time.monotonic()
    assert read_timeout_ms(None) == READ_TIMEOUT_MS
    assert read_timeout_ms(now + 3600) == READ_TIMEOUT_MS
    assert 1 <= read_timeout_ms(now + 0.5) <= 500
    with pytest.raises(NotDiagonal, match="time budget"):
        read_timeout_ms(now - 1)


def test_a_spent_budget_refuses_the_diagonals_before_z3_runs():
    """nussinov is a diagonal nest (raised above), but with the caller's deadline passed
    its dependences are not checked, so it is not raised this way."""
    kernel = load_kernel(load_input(HERE / "nussinov_char.c", c=COptions(defines=("N=9",)), warn=False),
                         "kernel_nussinov")
    with pytest.raises(NotDiagonal, match="time budget ran out"):
        diagonal_raise(kernel, "linalg", deadline=time.monotonic() - 1)


def test_a_raise_with_a_tiny_timeout_exits_3_without_checking_the_diagonals(tmp_path, capsys, monkeypatch):
    """`--timeout` bounds the diagonals' dependence check too: a raise with (almost) no
    budget refuses the nest for its spent budget and exits 3, the search out of time."""
    monkeypatch.setenv("SYNTH_DEBUG_SKETCH", "1")
    rc = main(["raise", str(HERE / "nussinov_char.c"), "-D", "N=9", "--target", "linalg",
               "--timeout", "1e-9", "-o", str(tmp_path / "o.mlir")])
    out, err = capsys.readouterr()
    assert rc == 3
    assert "diagonals of @kernel_nussinov: the time budget ran out before the dependences were checked" in out
    assert "time budget exhausted" in err
