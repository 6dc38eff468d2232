"""Recurrences along one loop, parallel along another (synth.synthesis.recurrence): the
loop-carried scalars expanded into vectors over the parallel loop, the nest interchanged,
and the recurrence kept as a counter loop of the target whose body works on whole columns
(stablehlo.while / scf.for); deriche's forward and backward sweeps, written in MLIR and in
C, and a filter whose state is the array itself. Each raise is compared with the original
loops run by the ExecutionEngine at sizes other than the ones it was raised at."""

import json

import numpy as np
import pytest

from conftest import DATA, POLYBENCH, ROOT
from synth.analysis.model import load_kernel
from synth.backends.run import run_raised
from synth.cli import main
from synth.execution import DROPIN_PIPELINE, run_function
from synth.frontend.reader import load_input
from synth.semantics.specialize import specialized_module
from synth.synthesis.recurrence import interchanged_recurrence, nest_parts

LOOP = {"stablehlo": "stablehlo.while", "linalg": "scf.for"}
ROW_FILTER = DATA / "recurrence" / "row_filter.mlir"
FILTERS = DATA / "recurrence" / "filters.c"


def _raise(tmp_path, path, target, *extra):
    out, stats = tmp_path / f"out.{target}.mlir", tmp_path / f"stats.{target}.json"
    rc = main(["raise", str(path), "--target", target, "--timeout", "120", "-o", str(out),
               "--stats-json", str(stats), *extra])
    return rc, out, stats


def _raised_at(text: str, name: str, target: str, inputs: list) -> list:
    """The generic raise made static at the inputs' shapes and run on them."""
    static = specialized_module(text, f"{name}_raised", [np.shape(x) for x in inputs])
    return run_raised(target, static, f"{name}_raised", inputs)


def test_row_filter_is_interchanged_with_its_scalars_expanded():
    kernel = load_kernel(load_input(ROW_FILTER, warn=False), "row_filter")
    swapped = interchanged_recurrence(kernel)
    # three scalars (ym1, ym2, xm1) become three vectors over the rows; they start at zero,
    # so no statements run before the loop, which runs over the columns (j, forwards)
    assert swapped is not None and swapped.state == (5, 6, 7) and swapped.prologue is None
    assert not swapped.descending
    text = swapped.loop.normal.text
    assert "memref<64xf64>" in text and text.count("affine.for") == 2


def test_a_recurrence_along_both_loops_is_not_interchanged(tmp_path):
    """y[i][j] reads y[i-1][j]: the outer loop carries a dependence too (a wavefront), so
    the interchange does not apply, and the raise still exits 3 naming the recurrence."""
    src = tmp_path / "both.mlir"
    src.write_text(ROW_FILTER.read_text().replace(
        "%y = affine.load %arg4[%i, %j]", "%y = affine.load %arg4[%i - 1, %j]").replace(
        "affine.for %i = 0 to %0", "affine.for %i = 1 to %0"))
    kernel = load_kernel(load_input(src, warn=False), "row_filter")
    assert interchanged_recurrence(kernel) is None


def test_true_recurrence_still_exits_3(tmp_path, capsys):
    src = tmp_path / "both.mlir"
    src.write_text(ROW_FILTER.read_text().replace(
        "%x = affine.load %arg3[%i, %j]", "%x = affine.load %arg4[%i - 1, %j]").replace(
        "affine.for %i = 0 to %0", "affine.for %i = 1 to %0"))
    rc = main(["raise", str(src), "--target", "stablehlo", "--timeout", "3", "-o", str(tmp_path / "o.mlir")])
    assert rc == 3
    assert "recurrence" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["stablehlo", pytest.param("linalg", marks=pytest.mark.slow)])
def test_row_filter_raises_as_a_counter_loop_over_columns(tmp_path, target):
    rc, out, stats = _raise(tmp_path, ROW_FILTER, target)
    assert rc == 0
    text = out.read_text()
    assert text.count(LOOP[target]) == 1
    record = json.loads(stats.read_text())["row_filter"]
    assert record["form"] == "loop with tensor body"
    assert record["verification"] == "all"  # the step proven for every size, the loop by induction
    rng = np.random.default_rng(3)
    for h, w in ((64, 48), (9, 5), (1, 7)):
        x, y = rng.uniform(-1, 1, (64, 48)), np.zeros((64, 48))
        want = run_function(ROW_FILTER.read_text(), "row_filter",
                            [("i32", h), ("i32", w), ("f64", 0.7), x, y.copy()]).outputs[4][:h, :w]
        if target == "stablehlo":
            (got,) = _raised_at(text, "row_filter", target,
                                [np.int32(h), np.int32(w), np.float64(0.7), x[:h, :w].copy(), y[:h, :w].copy()])
        else:  # the drop-in, the original's signature
            got = run_function(text, "row_filter", [("i32", h), ("i32", w), ("f64", 0.7), x, y.copy()],
                               pipeline=DROPIN_PIPELINE).outputs[4][:h, :w]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        assert np.abs(want).max() > 0


def _c_kernel(name: str, h: int, w: int, rng) -> tuple[list, list]:
    """(the C function's arguments, those of its raise) at h x w."""
    coeffs = [0.6, -0.2, 0.5, -0.125][: 2 if name == "cols_forward" else 4]
    x, y = rng.uniform(-1, 1, (h, w)), rng.uniform(-1, 1, (h, w))
    if name == "rows_in_place":
        return ([("i32", h), ("i32", w), ("f64", 0.5), y, x],
                [np.int32(h), np.int32(w), np.float64(0.5), y.copy(), x.copy()])
    return ([("i32", h), ("i32", w), *[("f64", c) for c in coeffs], x, y],
            [np.int32(h), np.int32(w), *map(np.float64, coeffs), x.copy(), y.copy()])


@pytest.mark.parametrize("name,target", [
    ("rows_backward", "linalg"),
    pytest.param("rows_backward", "stablehlo", marks=pytest.mark.slow),
    pytest.param("rows_forward", "stablehlo", marks=pytest.mark.slow),
    pytest.param("cols_forward", "linalg", marks=pytest.mark.slow),
    pytest.param("rows_in_place", "stablehlo", marks=pytest.mark.slow),
])
def test_c_filters_raise(tmp_path, name, target):
    """deriche's sweeps as C writes them (local scalars reset per row, a down-counting
    loop), a column filter and a filter whose state is the array: to both targets,
    compared with the C function's loops at two sizes."""
    rc, out, stats = _raise(tmp_path, FILTERS, target, "--function", name)
    assert rc == 0
    record = json.loads(stats.read_text())[name]
    assert record["form"] == "loop with tensor body"
    assert record["verification"] in ("all", "z3")
    original = load_input(FILTERS, warn=False).text
    text = out.read_text()
    rng = np.random.default_rng(11)
    for h, w in ((6, 9), (17, 4)):
        args, inputs = _c_kernel(name, h, w, rng)
        want = run_function(original, name, [a.copy() if isinstance(a, np.ndarray) else a for a in args]).outputs
        written = len(args) - 1 if name != "rows_in_place" else 3
        if target == "stablehlo":
            got = _raised_at(text, name, target, inputs)[0]
        else:
            got = run_function(text, name, args, pipeline=DROPIN_PIPELINE).outputs[written]
        np.testing.assert_allclose(got, want[written], rtol=1e-12, atol=1e-14)


def test_deriche_splits_into_its_nests():
    kernel = load_kernel(load_input(POLYBENCH / "deriche.mlir", warn=False), "kernel_deriche")
    parts = nest_parts(kernel)
    assert parts is not None and len(parts) == 6
    swapped = [interchanged_recurrence(p) for p in parts]
    # two row sweeps, a sum, two column sweeps, a sum; the second sweep of each runs backwards
    assert [s is not None for s in swapped] == [True, True, False, True, True, False]
    assert [s.descending for s in swapped if s is not None] == [False, True, False, True]


@pytest.mark.slow
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_polybench_deriche_raises(tmp_path, target):
    rc, out, stats = _raise(tmp_path, POLYBENCH / "deriche.mlir", target, "--timeout", "400")
    assert rc == 0
    text = out.read_text()
    assert text.count(LOOP[target]) == 4
    name = "kernel_deriche"
    rng = np.random.default_rng(2)
    h, w = 12, 7
    img = rng.uniform(0, 1, (4096, 2160))
    args = [("i32", h), ("i32", w), ("f64", 0.25), img, np.zeros((4096, 2160)), np.zeros((4096, 2160)),
            np.zeros((4096, 2160))]
    want = run_function((POLYBENCH / "deriche.mlir").read_text(), name, args).outputs
    if target == "stablehlo":
        got = _raised_at(text, name, target, [np.int32(h), np.int32(w), np.float64(0.25), img[:h, :w].copy(),
                                              *(np.zeros((h, w)) for _ in range(3))])
    else:
        got = [o[:h, :w] for o in run_function(text, name, [a.copy() if isinstance(a, np.ndarray) else a
                                                          for a in args], pipeline=DROPIN_PIPELINE).outputs[4:]]
    for g, k in zip(got, (4, 5, 6)):
        np.testing.assert_allclose(g if target == "stablehlo" else g, want[k][:h, :w], rtol=1e-10, atol=1e-12)


@pytest.mark.slow
def test_polybench_c_deriche_raises(tmp_path):
    """deriche from C in PolyBench's own spelling: scalars declared once for the function,
    filter coefficients stored in locals, a down-counting loop per backward sweep."""
    rc, out, stats = _raise(tmp_path, ROOT / "benchmarks" / "polybench-c" / "deriche.c", "stablehlo",
                            "--timeout", "400")
    assert rc == 0
    record = json.loads(stats.read_text())["kernel_deriche"]
    assert record["verification"] == "all" and out.read_text().count("stablehlo.while") == 4
