"""Sweeps in place that carry dependences along both loops (Gauss-Seidel), kept as a loop
over hyperplanes a*i + j whose body is one strided vector statement
(synth.synthesis.wavefront): PolyBench's seidel-2d from MLIR and from C, and kernels
written for it in tests/data/wavefront/gauss_seidel.c (SOR with a right-hand side and a
relaxation factor, a sweep over a rectangle with no time loop, a 6i + j sweep). Each raise
is compared bit for bit with the original loops at sizes other than the ones it was raised
at (the statement's operations are applied in the original's order); a true recurrence
along both loops still exits 3 naming it."""

import json
import re

import numpy as np
import pytest

from conftest import DATA, POLYBENCH, ROOT
from synth.backends.run import run_raised
from synth.cli import main
from synth.execution import DROPIN_PIPELINE, run_function
from synth.frontend.reader import COptions, load_input
from synth.semantics.raised_text import keep_functions
from synth.semantics.specialize import specialized_module
from synth.synthesis.wavefront import hyperplane

SWEEPS = DATA / "wavefront" / "gauss_seidel.c"
SEIDEL_C = ROOT / "benchmarks" / "polybench-c" / "seidel-2d.c"
LOOP = {"stablehlo": "stablehlo.while", "linalg": "scf.for"}


def _raise(tmp_path, path, target, *extra):
    out, stats = tmp_path / f"out.{target}.mlir", tmp_path / f"stats.{target}.json"
    rc = main(["raise", str(path), "--target", target, "--timeout", "120", "-o", str(out),
               "--stats-json", str(stats), *extra])
    return rc, out.read_text() if rc == 0 else "", (json.loads(stats.read_text()) if rc == 0 else {})


def test_hyperplane_from_distances():
    # seidel-2d: the 9 neighbours; the row above at j + 1 is new, so i + j does not order it
    nine = [(w0, w1) for w0 in (-1, 0, 1) for w1 in (-1, 0, 1)]
    assert hyperplane(nine) == 2
    assert hyperplane([(1, 0), (-1, 0), (0, 1), (0, -1), (0, 0)]) == 1  # 5 points: i + j
    assert hyperplane([(0, 1), (1, -5)]) == 6
    assert hyperplane([(0, 1), (1, -100)]) is None  # steeper than MAX_A


def _alone(text: str, name: str, inputs: list) -> str:
    """@NAME_raised alone (the drop-in beside it is not stablehlo), at the inputs' shapes."""
    return specialized_module(keep_functions(text, f"{name}_raised"), f"{name}_raised", [np.shape(x) for x in inputs])


def _wavefront_record(stats: dict, name: str) -> dict:
    record = stats[name]
    assert record["form"] == "loop with tensor body"
    assert record["verification"] == "z3"  # bounded sizes: the step proven, the loop by induction
    return record


def test_polybench_seidel_raises_to_linalg(tmp_path):
    """Generic: one text for every size, its time loop around the loop over hyperplanes,
    equal bit for bit to the loops at sizes it was not raised at."""
    src = POLYBENCH / "seidel-2d.mlir"
    rc, text, stats = _raise(tmp_path, src, "linalg")
    assert rc == 0
    _wavefront_record(stats, "kernel_seidel_2d")
    raised = text[text.index("@kernel_seidel_2d_raised"):text.index("func.func @kernel_seidel_2d(")]
    assert raised.count("scf.for") == 2 and "tensor<?x?xf64>" in raised
    # the nine reads, of the hyperplane's own points only (no mask)
    assert raised.count("tensor.extract_slice") == 9 and "arith.select %" not in raised.split("scf.for")[2]
    rng = np.random.default_rng(5)
    for steps, n in ((3, 9), (2, 14), (1, 4)):
        a = rng.uniform(-1, 1, (2000, 2000))
        args = [("i32", steps), ("i32", n), a]
        want = run_function(src.read_text(), "kernel_seidel_2d", [*args[:2], a.copy()]).outputs[2]
        got = run_function(text, "kernel_seidel_2d", [*args[:2], a.copy()], pipeline=DROPIN_PIPELINE).outputs[2]
        np.testing.assert_array_equal(got, want)
        assert not np.array_equal(want[:n, :n], a[:n, :n])


def test_polybench_c_seidel_raises_to_stablehlo(tmp_path):
    """From C at a small dataset: static shapes, each hyperplane column segments of a padded
    view of the array; bit for bit at other step counts."""
    rc, text, stats = _raise(tmp_path, SEIDEL_C, "stablehlo", "-D", "TSTEPS=3", "-D", "N=12",
                             "--size", "tsteps=3", "--size", "n=12")
    assert rc == 0
    _wavefront_record(stats, "kernel_seidel_2d")
    assert text.count("stablehlo.while") == 2 and "stablehlo.dynamic_update_slice" in text
    original = load_input(SEIDEL_C, function="kernel_seidel_2d",
                          c=COptions(defines=("TSTEPS=3", "N=12"), sizes=(("tsteps", 3), ("n", 12)))).text
    rng = np.random.default_rng(6)
    for steps in (3, 3):  # (static: at the step count it was raised at; two input sets)
        a = rng.uniform(0, 1, (12, 12))
        want = run_function(original, "kernel_seidel_2d", [("i32", steps), ("i32", 12), a.copy()]).outputs[2]
        inputs = [np.int32(steps), np.int32(12), a.copy()]
        (got,) = run_raised("stablehlo", _alone(text, "kernel_seidel_2d", inputs), "kernel_seidel_2d_raised", inputs)
        # within an ulp, not bitwise: XLA's algebraic simplifier computes x / 9 as x * (1 / 9)
        # (the raised text divides, as the loops do; the proof is over the text)
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
        assert "stablehlo.divide" in text


def _own_shape(text: str, name: str) -> tuple[int, int]:
    """The array shape a static raise was emitted at."""
    head = text[text.index(f"@{name}_raised("):]
    m = re.search(r"tensor<(\d+)x(\d+)xf64>", head[:head.index(")")])
    return int(m.group(1)), int(m.group(2))


def _compare(text: str, target: str, name: str, original: str, make, sizes, written: int) -> None:
    """The raise against the original at `sizes` (the drop-in, linalg's generic text), or
    at the shape it was emitted at (stablehlo's static text), bit for bit. `make(size,
    shape)`: the original's arguments."""
    head = text[text.index(f"@{name}_raised("):]
    if target == "stablehlo" and "?" not in head[:head.index(")")]:
        # static: at the sizes it was raised at (its step count too)
        fixed = dict(re.findall(r"argument #(\d+) = (\d+)", text))
        own = tuple(int(fixed.get(str(k), v)) for k, v in enumerate(sizes[0][:-2]))
        sizes = [own + _own_shape(text, name)]
    for size in sizes:
        args = make(size)
        want = run_function(original, name, [a.copy() if isinstance(a, np.ndarray) else a for a in args]).outputs
        if target == "linalg":
            got = run_function(text, name, args, pipeline=DROPIN_PIPELINE).outputs[written]
        else:
            inputs = [np.asarray(v, dtype={"i32": np.int32, "f64": np.float64}[t]) if isinstance(a, tuple) else v
                      for a in args for t, v in [a if isinstance(a, tuple) else (None, a)]]
            (got,) = run_raised("stablehlo", _alone(text, name, inputs), f"{name}_raised", inputs)
        np.testing.assert_array_equal(got, want[written])
        assert not np.array_equal(want[written], args[written])


@pytest.mark.parametrize("target", ["linalg", pytest.param("stablehlo", marks=pytest.mark.slow)])
def test_sor_raises(tmp_path, target):
    """SOR: hyperplanes i + j, a second array and a scalar read beside the swept one."""
    rc, text, stats = _raise(tmp_path, SWEEPS, target, "--function", "sor_5pt")
    assert rc == 0
    _wavefront_record(stats, "sor_5pt")
    rng = np.random.default_rng(7)

    def make(size):
        steps, n, _ = size
        return [("i32", steps), ("i32", n), ("f64", 1.25), rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (n, n))]
    _compare(text, target, "sor_5pt", load_input(SWEEPS, function="sor_5pt").text, make,
             [(3, 10, 10), (2, 7, 7)], 3)


@pytest.mark.slow
@pytest.mark.parametrize("name,target", [("smooth_once", "linalg"), ("smooth_once", "stablehlo"),
                                         ("ahead", "linalg")])
def test_one_sweep_raises(tmp_path, name, target):
    """No time loop: the loop over hyperplanes is the raise's one loop; rectangles."""
    rc, text, stats = _raise(tmp_path, SWEEPS, target, "--function", name)
    assert rc == 0
    assert stats[name]["verification"] == "z3"
    rng = np.random.default_rng(8)

    def make(size):
        h, w = size
        return [("i32", h), ("i32", w), rng.uniform(-1, 1, (h, w))]
    _compare(text, target, name, load_input(SWEEPS, function=name).text, make, [(9, 13), (12, 8)], 2)


def test_true_recurrence_along_both_loops_exits_3(tmp_path, capsys):
    """a[j][i] is new above the diagonal and old below: distances that vary, no hyperplane."""
    rc = main(["raise", str(SWEEPS), "--function", "transposed", "--target", "linalg", "--timeout", "3",
               "-o", str(tmp_path / "o.mlir")])
    assert rc == 3
    assert "Statement 0 is a recurrence" in capsys.readouterr().err
    assert not (tmp_path / "o.mlir").exists()


def test_a_triangle_is_not_swept_by_hyperplanes():
    """j from i + 1: the hyperplanes' points are not rows of a rectangle; left to the search
    (which exits 3 naming the recurrence)."""
    from synth.analysis.model import load_kernel
    from synth.synthesis.wavefront import wavefront_solution

    kernel = load_kernel(load_input(SWEEPS, function="triangle"), "triangle")
    assert wavefront_solution(kernel, "linalg") is None


STEEP = """void steep(int n, double A[n][n])
{
    for (int i = 1; i < n; i++)
        for (int j = 0; j < n - 2; j++)
            A[i][j] = A[i - 1][j + 2] + A[i][j + 1];
}
"""


@pytest.mark.parametrize("target", ["linalg", pytest.param("stablehlo", marks=pytest.mark.slow)])
def test_hyperplanes_as_steep_as_the_rows_are_long(tmp_path, target):
    """3i + j at n = 3 (one column to sweep): a = N1, one point per hyperplane, at flat
    d + i*(N1 - a) = d; the stride clamped to 1 had put it at d + i (review), and the
    generic raise was refuted there instead of raised."""
    path = tmp_path / "steep.c"
    path.write_text(STEEP)
    rc, text, stats = _raise(tmp_path, path, target, "--shapes", "generic")
    assert rc == 0 and stats["steep"]["verification"] == "z3"
    rng = np.random.default_rng(9)
    _compare(text, target, "steep", load_input(path).text,
             lambda size: [("i32", size[0]), rng.uniform(-1, 1, (size[0], size[0]))], [(3,), (4,), (7,)], 1)
