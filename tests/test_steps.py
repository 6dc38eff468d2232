"""Loops that stay loops (synth.synthesis.steps): a time-step loop around a kernel becomes
stablehlo.while / scf.for around the program of one step; validation checks the whole
loop against the original, and the bounded proof unrolls it."""

import json

import numpy as np
import pytest

from conftest import DATA, POLYBENCH, POLYGEIST
from synth.backends.run import run_raised
from synth.cli import main
from synth.execution import run_function
from synth.frontend.reader import load_input
from synth.analysis.model import load_kernel
from synth.errors import NoSolutionError
from synth.semantics.raised import load_raised
from synth.synthesis.steps import step_kernel

LOOP = {"stablehlo": "stablehlo.while", "linalg": "scf.for"}


def _raise(tmp_path, path, target, *extra):
    """synth raise at the kernel's own sizes (--shapes static: these tests pin the static
    loop forms; tests/test_generic.py covers shape-generic raises)."""
    out, stats = tmp_path / f"out.{target}.mlir", tmp_path / f"stats.{target}.json"
    shapes = [] if "--shapes" in extra else ["--shapes", "static"]
    rc = main(["raise", str(path), "--target", target, "--timeout", "60", "-o", str(out),
               "--stats-json", str(stats), *shapes, *extra])
    return rc, out, stats


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_jacobi_1d_is_a_loop_around_a_stencil(tmp_path, target):
    rc, out, stats = _raise(tmp_path, POLYBENCH / "jacobi-1d.mlir", target)
    assert rc == 0
    text = out.read_text()
    assert text.count(LOOP[target]) == 1
    assert ("stablehlo.slice" if target == "stablehlo" else "tensor.extract_slice") in text
    record = json.loads(stats.read_text())["kernel_jacobi_1d"]
    assert [p.get("sketch") for p in record["problems"]] == [True, True]
    assert record["verification"] == "z3" and record["validation"]["sizes_proven"]
    assert record["form"] == "loop with tensor body"
    # proven for one step on every state, for every step count by induction; tested whole
    assert any("for every step count by induction" in a for a in record["validation"]["assumptions"])
    assert "test (whole loop)" in record["validation"]["timings"]
    # the step tested at the small sizes; at the largest only inside the whole loop (the text
    # written), tested there once
    largest = max(record["validation"]["sizes_tested"], key=lambda s: s["arg1"])
    assert record["validation"]["sizes_tested"].count(largest) == 1
    assert [c["sizes"] for c in record["validation"]["largest"]] == [largest]


def test_raised_loop_matches_the_original_at_its_own_sizes(tmp_path):
    """The Polygeist twin (constant bounds: 500 steps over 2000 elements), raised, run on
    XLA against the original loops on the same inputs, outside synth's validation."""
    src = POLYGEIST / "jacobi-1d.mlir"
    rc, out, _ = _raise(tmp_path, src, "stablehlo", "--verify", "test")
    assert rc == 0
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, 2000), rng.uniform(-1, 1, 2000)
    name = "kernel_jacobi_1d"
    args = [("i32", 500), ("i32", 2000), a.copy(), b.copy()]
    want = run_function(load_input(src, warn=False).text, name, args).outputs  # legacy header upgraded
    raised = load_raised(str(out), f"{name}_raised", out.read_text())
    got = run_raised(raised.dialect, raised.text, raised.name,
                     [np.asarray(500, np.int32), np.asarray(2000, np.int32), a, b])
    assert np.allclose(got[0], want[2], rtol=1e-9) and np.allclose(got[1], want[3], rtol=1e-9)
    assert not np.allclose(want[2], a)  # the loop ran


def test_step_kernel_runs_the_time_loop_once():
    source = load_input(POLYBENCH / "heat-3d.mlir", warn=False)
    kernel = load_kernel(source, "kernel_heat_3d")
    step, loop = step_kernel(kernel)
    assert not step.sizes.time_loops and str(loop.trip) == "arg0"
    rng = np.random.default_rng(0)
    A, B = rng.uniform(-1, 1, (120, 120, 120)), rng.uniform(-1, 1, (120, 120, 120))
    # the step ignores the step count; the original runs its loop once for a count of 1
    once = run_function(step.normal.text, "kernel_heat_3d", [("i32", 7), ("i32", 120), A.copy(), B.copy()]).outputs
    want = run_function(kernel.normal.text, "kernel_heat_3d", [("i32", 1), ("i32", 120), A.copy(), B.copy()]).outputs
    assert np.array_equal(once[2], want[2]) and np.array_equal(once[3], want[3])
    assert not np.array_equal(want[3], B)


def test_nested_time_loops_exit_3_at_once(tmp_path, capsys):
    """Two nested time loops: one loop of the target around one step does not express
    them; exit 3 with the reason, nothing written."""
    rc, out, _ = _raise(tmp_path, DATA / "nested_time_loops.mlir", "stablehlo")
    assert rc == 3 and not out.exists()
    assert "(a time-step loop); it is one of 2 such loops" in capsys.readouterr().err


def test_in_place_sweep_still_exits_3(tmp_path, capsys):
    """The Gauss-Seidel sweep (no time loop; each element reads the one just written) is
    not a stencil of the sketch: exit 3, nothing written."""
    out = tmp_path / "gs.mlir"
    rc = main(["raise", str(DATA / "gauss_seidel_1d.mlir"), "--target", "stablehlo", "--timeout", "10",
               "-o", str(out)])
    assert rc == 3 and not out.exists()


def test_several_time_loops_are_refused():
    sweeps = """  affine.for %s = 0 to %n {
    affine.for %i = 1 to 15 {
      %0 = affine.load %a[%i - 1] : memref<16xf64>
      affine.store %0, %b[%i] : memref<16xf64>
    }
    affine.for %i = 1 to 15 {
      %0 = affine.load %b[%i + 1] : memref<16xf64>
      affine.store %0, %a[%i] : memref<16xf64>
    }
  }
"""
    text = ("func.func @two(%t: i32, %a: memref<16xf64>, %b: memref<16xf64>) {\n"
            "  %n = arith.index_cast %t : i32 to index\n" + sweeps * 2 + "  return\n}\n")
    from synth.frontend.reader import SourceModule

    kernel = load_kernel(SourceModule("two.mlir", text), "two")
    assert len(kernel.sizes.time_loops) == 2
    with pytest.raises(NoSolutionError, match="one of 2 such loops"):
        step_kernel(kernel)


def _driven_line(src, u, v, steps, n):
    """NumPy reference of tests/data/stencils/driven_line.mlir."""
    u, v = u.copy(), v.copy()
    for t in range(steps):
        u[0] = src[t]
        v[1:n - 1] = 0.5 * (u[0:n - 2] + u[2:n])
        u[1:n - 1] = v[1:n - 1]
    return u, v


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_a_step_that_reads_its_input_at_the_step_index(tmp_path, target):
    """`u[0] = src[t]` in the time loop (fdtd-2d's form): the step reads src at index 0 and
    the target's loop rotates src by one after each step; the output at its own sizes is
    the NumPy simulation's."""
    rc, out, stats = _raise(tmp_path, DATA / "stencils" / "driven_line.mlir", target)
    assert rc == 0
    text = out.read_text()
    assert text.count(LOOP[target]) == 1
    record = json.loads(stats.read_text())["driven_line"]
    assert all(p.get("sketch") for p in record["problems"])
    assert any("rotates those inputs by one after each step" in a for a in record["validation"]["assumptions"])
    rng = np.random.default_rng(9)
    src, u, v = rng.uniform(-1, 1, 40), rng.uniform(-1, 1, 64), rng.uniform(-1, 1, 64)
    raised = load_raised(str(out), "driven_line_raised", text)
    got = run_raised(raised.dialect, raised.text, raised.name,
                     [np.asarray(40, np.int32), np.asarray(64, np.int32), src, u, v])
    want_u, want_v = _driven_line(src, u, v, 40, 64)
    assert np.allclose(got[0], want_u, rtol=1e-12) and np.allclose(got[1], want_v, rtol=1e-12)
    assert want_u[0] == src[39]  # the last step's signal


def test_a_time_index_used_otherwise_is_no_time_loop():
    """A step index that is written (`u[t] = ...`) is not a read of an input at the step:
    the loop is no time loop of the model."""
    text = """func.func @w(%a: memref<8xf64>, %u: memref<8xf64>) {
  affine.for %t = 0 to 8 {
    affine.for %i = 0 to 8 {
      %x = affine.load %a[%i] : memref<8xf64>
      %y = affine.load %u[%t] : memref<8xf64>
      %z = arith.addf %x, %y : f64
      affine.store %z, %u[%t] : memref<8xf64>
    }
  }
  return
}
"""
    from synth.frontend.reader import SourceModule
    kernel = load_kernel(SourceModule("w.mlir", text), "w")
    assert kernel.sizes.time_loops == []


def test_polygeist_fdtd_2d_reads_its_signal_at_the_step(tmp_path):
    """Polygeist's fdtd-2d (constant sizes: the signal's extent 500 is the step count, a
    constant the step no longer indexes) raises with the rotated signal, validated."""
    rc, out, stats = _raise(tmp_path, POLYGEIST / "fdtd-2d.mlir", "stablehlo")
    assert rc == 0
    assert out.read_text().count("stablehlo.while") == 1
    record = json.loads(stats.read_text())["kernel_fdtd_2d"]
    assert any("rotates those inputs" in a for a in record["validation"]["assumptions"])


# --- counter loops: a loop kept as a loop whose body indexes by its counter -------------------


@pytest.mark.parametrize("target", ["stablehlo", pytest.param("linalg", marks=pytest.mark.slow)])
def test_gramschmidt_is_a_counter_loop_around_sketched_statements(tmp_path, target):
    """gramschmidt's k loop carries the whole computation (column k is normalised, then
    the columns after it are projected out): it stays a loop, and its body is read off
    the statements of one step, with the counter k as an input (take: column k, put: row
    k of R, counter_select: the columns j > k). The step is proven at every counter value
    at bounded sizes; the whole loop is tested (at M < N the columns beyond the rank are
    rounding noise in the original: not compared, and the raise says so)."""
    rc, out, stats = _raise(tmp_path, POLYBENCH / "gramschmidt.mlir", target)
    assert rc == 0
    record = json.loads(stats.read_text())["kernel_gramschmidt"]
    # linalg's step is read by the parametric proof (every size); stablehlo's counter_select
    # is not yet, so its proof is at bounded sizes
    expected = "all" if target == "linalg" else "z3"
    assert record["form"] == "loop with tensor body" and record["verification"] == expected
    assert all(p.get("sketch") for p in record["problems"])
    programs = " ".join(p["program"] for p in record["problems"])
    assert "take(" in programs and "put(" in programs and "counter_select(" in programs
    if expected == "z3":  # the step proven at each counter value of the bounded sizes
        assert {c.get("counter") for c in record["validation"]["sizes_proven"]} >= {0, 1}
    else:  # the step proven for every size and counter, the loop by induction
        assert "induction" in record["validation"]["attributes"]["synth.proof"]
    text = out.read_text()
    assert text.count(LOOP[target]) == 1
    # the conditioning note, written where a test left rank-deficient columns out (the
    # tests run at M < N: 250 x 300 since static texts are tested like their family)
    assert "rounding noise" in text or target == "linalg"


def test_counter_loop_matches_the_original_where_well_conditioned():
    """The raised gramschmidt loop, instantiated at M >= N (full column rank), against the
    original on the same inputs: every element, no exclusions."""
    from synth.codegen.raised import raised_function_text
    from synth.frontend.reader import load_source
    from synth.synthesis.search import SearchSettings
    from synth.synthesis.solve import search_kernel

    kernel = load_kernel(load_source(POLYBENCH / "gramschmidt.mlir", warn=False), "kernel_gramschmidt")
    result = search_kernel(kernel, "stablehlo", SearchSettings(timeout=60))
    assert result.time_loop is not None and result.time_loop.counter is not None
    m, n = 12, 9
    values = {"arg0": m, "arg1": n}
    rng = np.random.default_rng(3)
    a, r, q = rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (m, n))
    want = run_function(kernel.at(values).text, "kernel_gramschmidt",
                        [("i32", m), ("i32", n), a.copy(), r.copy(), q.copy()]).outputs[2:5]
    got = run_raised("stablehlo", raised_function_text(result, values), "kernel_gramschmidt_raised",
                     [np.int32(m), np.int32(n), a, r, q])
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_counter_step_kernel_takes_the_counter_as_an_argument():
    from synth.frontend.reader import load_source
    from synth.synthesis.steps import counter_loop, counter_step_kernel

    kernel = load_kernel(load_source(POLYBENCH / "gramschmidt.mlir", warn=False), "kernel_gramschmidt")
    location = counter_loop(kernel)
    assert location is not None and location.endswith(":8:5")
    step, loop = counter_step_kernel(kernel, location)
    assert step.sizes.counter == 5 and loop.counter == 5 and str(loop.trip) == "arg1"
    assert "arg5: index {synth.counter}" in step.normal.text and "affine.for %arg5" not in step.normal.text
    assert step.sizes.counter_values(step.sizes.standin()) == list(range(step.sizes.standin()["arg1"]))
    # a loop that reads only the elements each statement writes carries nothing: gemm's i
    gemm = load_kernel(load_source(POLYBENCH / "gemm.mlir", warn=False), "kernel_gemm")
    assert counter_loop(gemm) is None


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_right_looking_lu_is_the_lu_library_op(tmp_path, target):
    """A textbook LU (k, i, j order, constant sizes; tests/data/counter) was not shaped
    around: step k writes the multipliers of column k, then updates the trailing block.
    Its k loop could stay a loop (both statements read off at the counter), but the kernel
    licenses a library op, which the search looks for first: lu(arg0). The raise matches
    the original on a diagonally dominant matrix, and the factors multiply back to it."""
    rc, out, stats = _raise(tmp_path, DATA / "counter" / "lu_right_looking.mlir", target)
    assert rc == 0
    record = json.loads(stats.read_text())["lu_kij"]
    assert record["form"] == "library op" and record["verification"] == "z3"
    assert record["problems"][0]["program"] == "lu(arg0)"
    text = out.read_text()
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (24, 24)) + 24 * np.eye(24)
    from synth.frontend.reader import load_source
    (want,) = run_function(load_source(DATA / "counter" / "lu_right_looking.mlir", warn=False).text,
                           "lu_kij", [a.copy()]).outputs
    (got,) = run_raised(target, text.split("  func.func @lu_kij(")[0] + "}\n", "lu_kij_raised", [a])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    lower, upper = np.tril(got, -1) + np.eye(24), np.triu(got)
    np.testing.assert_allclose(lower @ upper, a, rtol=1e-10, atol=1e-10)


def test_f32_right_looking_lu_validates_on_a_well_conditioned_draw(tmp_path):
    """The right-looking LU in f32: on a uniform random draw rounding grows through the
    pivots past f32's tolerance (the original amplifies a 1e-6 move of its inputs
    thousands of times), so that draw is tested again made diagonally dominant, where the
    original is well-conditioned; the raise validates and says so (it exited 3 before)."""
    text = (DATA / "counter" / "lu_right_looking.mlir").read_text().replace("f64", "f32")
    path = tmp_path / "lu_f32.mlir"
    path.write_text(text)
    rc, out, _ = _raise(tmp_path, path, "stablehlo")
    assert rc == 0
    assert "(n times its largest magnitude, if above 1), where the original is well-conditioned" \
        in out.read_text()


def test_refuted_counter_loop_searches_again_with_the_refuting_states():
    """A round after a refuted counter loop: the refuting states (the kernel's own
    arguments) get a counter value before they become the step's examples (they crashed
    the worker for want of one)."""
    from synth.frontend.reader import load_source
    from synth.synthesis.search import SearchSettings
    from synth.synthesis.solve import search_kernel
    from synth.synthesis.spec import random_draw

    kernel = load_kernel(load_source(DATA / "counter" / "shortest_paths.mlir", warn=False), "shortest_paths")
    first = search_kernel(kernel, "stablehlo", SearchSettings(timeout=60))
    assert first.time_loop is not None and first.time_loop.counter is not None
    state = tuple(kernel.arguments(kernel.sizes.standin(), random_draw(np.random.default_rng(7))))
    again = search_kernel(kernel, "stablehlo", SearchSettings(timeout=60), extra=(state,), previous=first)
    assert again.time_loop is not None and again.time_loop.counter is not None
    assert len(again.spec.groups[0].problems[0].examples_in) > len(first.spec.groups[0].problems[0].examples_in)


def test_durbin_is_statements_then_a_counter_loop():
    """durbin: three statements (y[0], alpha, beta), then the k loop, which reads alpha and
    beta (local scalars) before it writes them: the statements are a kernel of their own,
    the locals arguments of both parts (carried by the loop), and step k reads r and y at
    k - i - 1 (flip)."""
    from synth.frontend.reader import load_source
    from synth.synthesis.steps import counter_loop, lifted_loop

    kernel = load_kernel(load_source(POLYBENCH / "durbin.mlir", warn=False), "kernel_durbin")
    assert counter_loop(kernel) is None
    lifted = lifted_loop(kernel)
    assert lifted is not None and lifted.state == (3, 4) and lifted.location.endswith(":18:5")
    assert "affine.for" not in lifted.prologue.normal.text
    assert lifted.prologue.sizes.arg_dims[1] == lifted.loop.sizes.arg_dims[1]  # in the kernel's arg0
    assert counter_loop(lifted.loop) is not None


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_durbin_raises_as_a_loop_with_its_statements_before(tmp_path, target):
    rc, out, stats = _raise(tmp_path, POLYBENCH / "durbin.mlir", target)
    assert rc == 0
    record = json.loads(stats.read_text())["kernel_durbin"]
    # linalg's step reads its slices at the counter with SSA offsets and sizes, which the
    # proof for every size reads as terms; stablehlo's flip is a gather it does not
    assert record["form"] == "loop with tensor body"
    assert record["verification"] == ("all" if target == "linalg" else "z3")
    assert all(p.get("sketch") for p in record["problems"])
    assert "flip(" in " ".join(p["program"] for p in record["problems"])
    text = out.read_text()
    assert text.count(LOOP[target]) == 1
    assert "raised and proven as a function of their own" in text
    raised = text.split("  func.func @kernel_durbin(")[0] + "}\n"
    assert "func.func @kernel_durbin_raised(%arg0: tensor<i32>, %arg1: tensor<2000xf64>, " \
           "%arg2: tensor<2000xf64>) -> tensor<2000xf64>" in raised  # no locals in the signature


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_hand_written_deconvolution_raises(tmp_path, target):
    """A deconvolution written by hand (tests/data/counter; an iter_args sum, a read at
    k - i - 1, the first element stored before the loop), not shaped around: it raises,
    and matches a NumPy reference on a stable filter."""
    rc, out, _ = _raise(tmp_path, DATA / "counter" / "deconvolve.mlir", target)
    assert rc == 0
    rng = np.random.default_rng(11)
    x, w = rng.uniform(-1, 1, 64), rng.uniform(-1, 1, 64) / 64
    want = np.zeros(64)
    want[0] = x[0]
    for k in range(1, 64):
        want[k] = x[k] - sum(w[k - 1 - i] * want[i] for i in range(k))
    (got,) = run_raised(target, out.read_text().split("  func.func @deconvolve(")[0] + "}\n",
                        "deconvolve_raised", [x, w, np.zeros(64)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_hand_written_shortest_paths_raise_in_place_exactly(tmp_path, target):
    """All-pairs shortest paths written by hand (tests/data/counter; minimumf, memref ops,
    constant sizes): step k reads row k and column k, which it also writes. Where an
    element of them is written earlier in the same step (column k for j > k, row k for
    i > k) the sketch reads the value stored there, so negative diagonals (path[k][k] < 0
    changes row and column k during the step) come out as in the loops: bitwise, as the
    same additions and minima run."""
    rc, out, stats = _raise(tmp_path, DATA / "counter" / "shortest_paths.mlir", target)
    assert rc == 0
    record = json.loads(stats.read_text())["shortest_paths"]
    assert record["form"] == "loop with tensor body" and record["verification"] == "z3"
    assert "counter_select(" in record["problems"][0]["program"]
    rng = np.random.default_rng(4)
    d = rng.uniform(-1, 3, (48, 48))
    d[np.diag_indices(48)] = rng.uniform(-0.01, 0.01, 48)  # some negative
    from synth.frontend.reader import load_source
    (want,) = run_function(load_source(DATA / "counter" / "shortest_paths.mlir", warn=False).text,
                           "shortest_paths", [d.copy()]).outputs
    (got,) = run_raised(target, out.read_text().split("  func.func @shortest_paths(")[0] + "}\n",
                        "shortest_paths_raised", [d])
    assert np.array_equal(got, want)
    if target == "stablehlo":
        # row k and column k ride in the while's state, not sliced from the matrix, and so do
        # the two as the step updates them before the matrix: computed at the end of the step
        # before, not inside the matrix update (where XLA's fusion computed them per element)
        text = out.read_text().splitlines()
        head = next(k for k, line in enumerate(text) if "= stablehlo.while(" in line)
        assert text[head].split(" : ")[-1].split(", ") == ["tensor<i64>", "tensor<48x48xf64>"] + 4 * ["tensor<48xf64>"]
        body = text[next(k for k in range(head, len(text)) if text[k].strip() == "} do {"):]
        minima = [k for k, line in enumerate(body) if "stablehlo.minimum" in line]
        matrix = next(k for k in minima if body[k].endswith(": tensor<48x48xf64>"))
        assert minima[0] == matrix and len(minima) > 1  # the rows' own minima: after it, for step k + 1
    # synth verify re-instantiates the output at small sizes, the loop's bound with them
    assert main(["verify", str(DATA / "counter" / "shortest_paths.mlir"), str(out), "--level", "test"]) == 0


@pytest.mark.slow
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_polybench_floyd_warshall_raises(tmp_path, target):
    """PolyBench's floyd-warshall (i32, select of a compare: min) at LARGE (20-45 s, most of
    it the test at 2800 x 2800)."""
    rc, out, stats = _raise(tmp_path, POLYBENCH / "floyd-warshall.mlir", target)
    assert rc == 0
    record = json.loads(stats.read_text())["kernel_floyd_warshall"]
    assert record["form"] == "loop with tensor body" and record["verification"] == "z3"
