"""Recurrences beside other statements in their parallel loop, inside a time loop
(synth.synthesis.distribute): the parallel loop distributed into one loop per piece of its
body, each recurrence among the pieces interchanged and kept as a counter loop, the
pieces raised one after another inside the target's time loop. PolyBench's adi, and
Thomas-algorithm sweeps written for these tests (tests/data/recurrence/sweeps.c). Each
raise is compared with the original loops run by the ExecutionEngine at sizes and step
counts other than the ones it was raised at."""

import json

import numpy as np
import pytest

from conftest import DATA, POLYBENCH, POLYGEIST, ROOT
from synth.analysis.model import load_kernel
from synth.backends.run import run_raised
from synth.cli import main
from synth.execution import DROPIN_PIPELINE, run_function
from synth.frontend.reader import load_input
from synth.semantics.specialize import specialized_module
from synth.synthesis.distribute import distributed, unwrapped
from synth.synthesis.recurrence import interchanged_recurrence, nest_parts
from synth.synthesis.steps import step_kernel

LOOP = {"stablehlo": "stablehlo.while", "linalg": "scf.for"}
SWEEPS = DATA / "recurrence" / "sweeps.c"


def _raise(tmp_path, path, target, *extra):
    out, stats = tmp_path / f"out.{target}.mlir", tmp_path / f"stats.{target}.json"
    rc = main(["raise", str(path), "--target", target, "--timeout", "300", "-o", str(out),
               "--stats-json", str(stats), *extra])
    return rc, out, stats


def test_adi_step_distributes_into_eight_nests():
    """adi's time step: two sweeps, each `for i { boundary; forward j; boundary; backward
    j }`, becomes eight nests; the four sweeps along j are interchanged, the backward ones
    counting down."""
    kernel = load_kernel(load_input(POLYBENCH / "adi.mlir", warn=False), "kernel_adi")
    step, loop = step_kernel(kernel)
    assert loop.counter is None and str(loop.trip) == "arg0"
    parts = nest_parts(distributed(unwrapped(step)))
    assert parts is not None and len(parts) == 8
    swapped = [interchanged_recurrence(p) for p in parts]
    assert [s is not None for s in swapped] == [False, True] * 4
    assert [s.descending for s in swapped if s is not None] == [False, True, False, True]


def test_polygeist_adi_parts_take_the_kernels_extents():
    """Polygeist's adi (constant sizes, its own spelling): the step distributes into the
    same eight nests, and a part that does not index a dim of an array (the boundary
    `p[i][999] = 1`, whose loop runs over dim 0 only) sizes it by the kernel's extent,
    so its index 999 is n1000 - 1 and the part has small stand-in sizes (it had none:
    999 kept literal needs n1000 >= 1000)."""
    kernel = load_kernel(load_input(POLYGEIST / "adi.mlir", warn=False), "kernel_adi")
    step, loop = step_kernel(kernel)
    parts = nest_parts(distributed(unwrapped(step)))
    assert parts is not None and len(parts) == 8
    assert [interchanged_recurrence(p) is not None for p in parts] == [False, True] * 4
    for part in parts:
        assert all(str(e) == "n1000" for dims in part.sizes.arg_dims.values() for e in dims)
        assert part.sizes.standin()["n1000"] < 10
        assert part.sizes.valid({**part.sizes.original(), "n1000": 4})


def test_arithmetic_shared_across_pieces_is_recomputed(tmp_path):
    """A value the boundary statements' piece computes and the sweep uses (`-c`, hoisted
    out of the j loop, and one computed between the two sweeps) is recomputed in the
    piece that uses it; a load shared across pieces leaves the nest undistributed."""
    text = (POLYBENCH / "adi.mlir").read_text()
    hoisted = text.replace("          %20 = arith.negf %14 : f64\n          %21 = affine.load %arg4", "          %21 = affine.load %arg4", 1) \
        .replace("        affine.store %19, %arg5[%arg7, 0] : memref<1000x1000xf64>\n",
                 "        affine.store %19, %arg5[%arg7, 0] : memref<1000x1000xf64>\n        %negc = arith.negf %14 : f64\n", 1) \
        .replace("%24 = arith.divf %20, %23", "%24 = arith.divf %negc, %23", 1) \
        .replace("        affine.for %arg8 = 0 to #map2()[%1] {\n          %20 = affine.load %arg4",
                 "        %h = arith.mulf %14, %14 : f64\n        affine.for %arg8 = 0 to #map2()[%1] {\n"
                 "          %hh = arith.addf %h, %h : f64\n          %20 = affine.load %arg4", 1)
    assert "%20 = arith.negf %14" not in hoisted and "%negc, %23" in hoisted and "%hh" in hoisted
    src = tmp_path / "adi.mlir"
    src.write_text(hoisted)
    kernel = load_kernel(load_input(src, warn=False), "kernel_adi")
    step, _ = step_kernel(kernel)
    parts = nest_parts(distributed(unwrapped(step)))
    assert parts is not None and len(parts) == 8
    # recomputed inside the j loops: the sweeps are still nests the interchange reads
    assert [interchanged_recurrence(p) is not None for p in parts] == [False, True] * 4
    loaded = tmp_path / "loaded.mlir"
    loaded.write_text(text.replace("        affine.for %arg8 = 1 to #map1()[%1] {\n          %20 = arith.negf %14 : f64",
                                   "        %l = affine.load %arg2[%arg7, 0] : memref<1000x1000xf64>\n"
                                   "        affine.for %arg8 = 1 to #map1()[%1] {\n          %20 = arith.negf %l : f64", 1))
    kernel = load_kernel(load_input(loaded, warn=False), "kernel_adi")
    step, _ = step_kernel(kernel)
    split = distributed(unwrapped(step))
    # the row sweep, which reads no such load, is distributed; the column sweep is not
    assert split is not None and len(nest_parts(split)) == 5


def _dependent(tmp_path):
    """implicit_cols with the elimination reading the column before (x[i][j - 1]), which
    the back substitution writes: the column loop carries a dependence."""
    src = tmp_path / "dependent.c"
    src.write_text(SWEEPS.read_text().replace("(x[i][j] + 0.25 * d[i - 1][j])", "(x[i][j - 1] + 0.25 * d[i - 1][j])")
                   .replace("for (int j = 0; j < w; j++) {\n    c[0][j]", "for (int j = 1; j < w; j++) {\n    c[0][j]"))
    return src


def test_a_loop_carrying_a_dependence_is_not_distributed(tmp_path):
    cols = load_kernel(load_input(SWEEPS, function="implicit_cols", warn=False), "implicit_cols")
    assert distributed(cols) is not None
    kernel = load_kernel(load_input(_dependent(tmp_path), function="implicit_cols", warn=False), "implicit_cols")
    assert distributed(kernel) is None


def test_a_recurrence_along_both_loops_still_exits_3(tmp_path, capsys):
    rc = main(["raise", str(_dependent(tmp_path)), "--function", "implicit_cols", "--target", "linalg",
               "--timeout", "10", "-o", str(tmp_path / "o.mlir")])
    assert rc == 3
    assert "recurrence" in capsys.readouterr().err


def _sweep_args(name: str, steps: int, h: int, w: int, rng) -> list:
    x = rng.uniform(-1, 1, (h, w))
    sizes = [("i32", steps)] if name == "implicit_rows" else []
    return [*sizes, ("i32", h), ("i32", w), x, np.zeros((h, w)), np.zeros((h, w))]


@pytest.mark.parametrize("name,target", [
    ("implicit_rows", "linalg"),
    pytest.param("implicit_rows", "stablehlo", marks=pytest.mark.slow),
    pytest.param("implicit_cols", "linalg", marks=pytest.mark.slow),
    pytest.param("implicit_cols", "stablehlo", marks=pytest.mark.slow),
])
def test_sweeps_raise(tmp_path, name, target):
    """The sweeps raise to loops of the target (the time loop, and one counter loop per
    sweep along the row), for every size and step count: compared with the C function's
    loops at sizes and step counts it was not raised at."""
    rc, out, stats = _raise(tmp_path, SWEEPS, target, "--function", name)
    assert rc == 0
    text = out.read_text()
    assert text.count(LOOP[target]) == (3 if name == "implicit_rows" else 2)
    record = json.loads(stats.read_text())[name]
    assert record["form"] == "loop with tensor body" and record["shapes"] == "generic"
    assert record["verification"] in ("z3", "all")
    original = load_input(SWEEPS, function=name, warn=False).text
    rng = np.random.default_rng(4)
    for steps, h, w in ((3, 6, 9), (1, 11, 4), (5, 2, 3)):
        args = _sweep_args(name, steps, h, w, rng)
        want = run_function(original, name, [a.copy() if isinstance(a, np.ndarray) else a for a in args]).outputs
        if target == "stablehlo":
            inputs = [np.int32(a[1]) if isinstance(a, tuple) else a.copy() for a in args]
            static = specialized_module(text, f"{name}_raised", [np.shape(x) for x in inputs])
            got = run_raised(target, static, f"{name}_raised", inputs)
        else:  # the drop-in, the original's signature: the step count at run time
            got = run_function(text, name, args, pipeline=DROPIN_PIPELINE).outputs[-3:]
        for g, k in zip(got, range(len(args) - 3, len(args))):
            np.testing.assert_allclose(g, want[k], rtol=1e-12, atol=1e-13)
        assert np.abs(want[-3]).max() > 0


@pytest.mark.slow
@pytest.mark.parametrize("target", ["linalg", "stablehlo"])
@pytest.mark.parametrize("path", [POLYBENCH / "adi.mlir", ROOT / "benchmarks" / "polybench-c" / "adi.c"],
                         ids=["mlir", "c"])
def test_polybench_adi_raises(tmp_path, target, path):
    """adi raises generic: the drop-in takes the step count and n at run time."""
    rc, out, stats = _raise(tmp_path, path, target)
    assert rc == 0
    text = out.read_text()
    assert text.count(LOOP[target]) == 5  # the time loop, four sweeps
    record = json.loads(stats.read_text())["kernel_adi"]
    assert record["shapes"] == "generic" and record["verification"] in ("z3", "all")
    original = load_input(path, warn=False)
    rng = np.random.default_rng(6)
    for steps, n in ((3, 12), (6, 7)):
        arrays = [rng.uniform(-1, 1, (1000, 1000)) for _ in range(4)]
        args = [("i32", steps), ("i32", n), *arrays]
        want = run_function(original.text, "kernel_adi", [a.copy() if isinstance(a, np.ndarray) else a
                                                            for a in args]).outputs
        inputs = [np.int32(steps), np.int32(n), *(a[:n, :n].copy() for a in arrays)]
        if target == "stablehlo":
            static = specialized_module(text, "kernel_adi_raised", [np.shape(x) for x in inputs])
            got = run_raised(target, static, "kernel_adi_raised", inputs)
        else:
            got = [g[:n, :n] for g in run_function(text, "kernel_adi", [a.copy() if isinstance(a, np.ndarray)
                                                                          else a for a in args],
                                                   pipeline=DROPIN_PIPELINE).outputs[2:]]
        for g, w in zip(got, want[2:]):
            np.testing.assert_allclose(g, w[:n, :n], rtol=1e-10, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["linalg", "stablehlo"])
def test_polygeist_adi_raises(tmp_path, target):
    """Polygeist's adi (constant sizes, constants hoisted and folded, its own order of
    loads) raises as the polybench form does: a time loop around eight nests, the four
    sweeps counter loops; static, each part proven with Z3 at small sizes, the whole
    tested at its own 1000 x 1000 with fewer of its 500 steps (every step count covered by
    induction on the proven step: synth.validation.plan.SizePlan.largest_tested)."""
    rc, out, stats = _raise(tmp_path, POLYGEIST / "adi.mlir", target)
    assert rc == 0
    assert out.read_text().count(LOOP[target]) == 5
    record = json.loads(stats.read_text())["kernel_adi"]
    assert record["shapes"] == "static" and record["verification"] in ("z3", "all")
    assert any(s.get("n1000") == 1000 and 3 <= s.get("n501", 0) < 501 for s in record["validation"]["sizes_tested"])
    assert any("time steps (n501): every step count by induction on the step" in a for a in record["validation"]["assumptions"])
    assert record["validation"]["sizes_proven"]
