"""`synth bench`: batch raising with timing, reports, incremental reruns, Dask."""

import csv
import json

import pytest

from conftest import DATA, POLYBENCH
from synth.cli import main

FIELDS = {"kernel", "target", "backend", "status", "verification", "synth_seconds", "candidates",
          "baseline_seconds", "seconds", "speedup"}


@pytest.fixture(scope="module")
def bench_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    paths = [str(POLYBENCH / "gemm.mlir"), str(DATA / "nested_time_loops.mlir"), str(DATA / "malformed.mlir")]
    rc = main(["bench", *paths, "--dataset", "mini", "--out", str(out), "--repeats", "2",
               "--backends", "xla-cpu,mlir-cpu", "--timeout", "30"])
    assert rc == 0
    return out, paths


def test_results_files(bench_out):
    out, _ = bench_out
    rows = json.loads((out / "results.json").read_text())
    timed = [r for r in rows if r["status"] == "ok"]
    assert {(r["kernel"], r["target"], r["backend"]) for r in timed} == {
        ("gemm", "stablehlo", "xla-cpu"), ("gemm", "stablehlo", "mlir-cpu"), ("gemm", "linalg", "mlir-cpu")}
    for r in timed:
        assert FIELDS <= set(r)
        assert r["verification"] == "all"  # gemm: proven for every size
        assert r["form"] == "tensor program"
        assert r["seconds"] > 0 and r["baseline_seconds"] > 0
        assert r["compile_seconds"] > 0  # prepare and, for mlir-cpu, the worker's compile
        assert r["speedup"] == pytest.approx(r["baseline_seconds"] / r["seconds"])
        # the spread of the timed calls
        assert r["seconds_min"] <= r["seconds"] <= r["seconds_max"]
        assert r["baseline_min"] <= r["baseline_seconds"] <= r["baseline_max"]
        # the CPU time of the calls beside their wall time (XLA in this process, mlir-cpu
        # and the baseline in the worker): positive, and not above the wall time by more than
        # the other threads of a process can add
        assert r["seconds_cpu"] > 0 and r["baseline_cpu"] > 0
    report = (out / "report.md").read_text()
    # when, where and how it ran; each time with its range
    assert "cores" in report and "UTC" in report and "timed calls 2" in report
    assert "| form |" in report and "2 tensor program (column form)" in report
    # the slowest compile and those over the budget, as the rows have them (no bound asserted)
    cpu = [r for r in timed if r["backend"] == "mlir-cpu"]
    slowest = max(r["compile_seconds"] for r in cpu)
    assert f"- compile time on mlir-cpu: at most {slowest:.1f} s" in report
    over = [r for r in cpu if r["compile_seconds"] > 30]
    assert ("over 30 s: none" in report) == (not over)
    assert all(f"{r['kernel']} {r['target']} (" in report for r in over)
    assert "| compile s |" in report
    # the search's share of each raise's time (issue 56 item 6), in the row and in the report
    assert "| synth s (search) |" in report
    for r in timed:
        assert 0 <= r["search_seconds"] <= r["synth_seconds"], r
        share = f"{r['synth_seconds']:.2f} ({100 * r['search_seconds'] / r['synth_seconds']:.0f}%)"
        assert any(line.startswith(f"| gemm | {r['target']} |") and f"| {r['backend']} |" in line
                   and share in line for line in report.splitlines()), share
    assert any("xla-cpu" in line and line.count(" to ") >= 2
               for line in report.splitlines() if line.startswith("| gemm"))
    with open(out / "results.csv") as f:
        assert len(list(csv.DictReader(f))) == len(rows)
    assert (out / "speedup.png").stat().st_size > 1000


def test_failures_are_results_with_reasons(bench_out):
    out, _ = bench_out
    rows = json.loads((out / "results.json").read_text())
    adi = [r for r in rows if r["kernel"] == "nested_time_loops"]
    assert {r["status"] for r in adi} == {"not-raised"} and len(adi) == 2
    assert all("time-step loop" in r["reason"] for r in adi)
    bad = [r for r in rows if r["kernel"] == "malformed"]
    assert bad and all(r["status"] == "unsupported" and "malformed.mlir:2:19" in r["reason"] for r in bad)
    report = (out / "report.md").read_text()
    assert "## Not raised or not timed" in report and "nested_time_loops" in report
    assert "geomean" in report


def test_rerun_is_incremental(bench_out, capsys):
    out, paths = bench_out
    before = json.loads((out / "results.json").read_text())
    rc = main(["bench", *paths, "--dataset", "mini", "--out", str(out), "--repeats", "2",
               "--backends", "xla-cpu,mlir-cpu", "--timeout", "30"])
    assert rc == 0
    assert "(4 unchanged, 0 to time, 0 to raise)" in capsys.readouterr().err
    assert json.loads((out / "results.json").read_text()) == before


def test_new_timing_settings_retime_without_raising(bench_out, capsys):
    out, paths = bench_out
    rc = main(["bench", *paths, "--dataset", "mini", "--out", str(out), "--repeats", "3",
               "--backends", "xla-cpu", "--timeout", "30", "--threads", "1"])
    assert rc == 0
    assert "(0 unchanged, 4 to time, 0 to raise)" in capsys.readouterr().err
    rows = json.loads((out / "results.json").read_text())
    assert {r["backend"] for r in rows if r["status"] == "ok"} == {"xla-cpu"}
    assert "1 core(s)" in (out / "report.md").read_text()


def test_a_compile_over_the_call_limit_is_a_timeout_row(bench_out, tmp_path, capsys):
    """--call-timeout (issue 55): the fixture's raises timed again (its database, another
    --out) with a limit no compile meets: every backend's row is `timeout` with the reason,
    no time, and report.md lists them; without the option the limit is 120 s."""
    from synth.cli import build_parser

    out, paths = bench_out
    rc = main(["bench", *paths, "--dataset", "mini", "--out", str(tmp_path), "--db", str(out / "results.sqlite"),
               "--repeats", "1", "--backends", "xla-cpu,mlir-cpu", "--timeout", "30", "--call-timeout", "0.0001"])
    assert rc == 0
    assert "0 to raise" in capsys.readouterr().err
    rows = [r for r in json.loads((tmp_path / "results.json").read_text()) if r["kernel"] == "gemm"]
    assert {(r["target"], r["backend"]) for r in rows} == {
        ("stablehlo", "xla-cpu"), ("stablehlo", "mlir-cpu"), ("linalg", "mlir-cpu")}
    for r in rows:
        assert r["status"] == "timeout" and "--call-timeout" in r["reason"], r  # stopped, or over the limit
        assert "seconds" not in r and "speedup" not in r
    report = (tmp_path / "report.md").read_text()
    assert "call limit 0.0001 s" in report
    assert ("- stopped at the call limit (--call-timeout; status timeout): gemm linalg on mlir-cpu, "
            "gemm stablehlo on mlir-cpu, gemm stablehlo on xla-cpu") in report
    assert sum("| timeout |" in line for line in report.split("## Not raised or not timed")[1].splitlines()) == 3
    assert build_parser().parse_args(["bench"]).call_timeout == 120.0
    assert main(["bench", *paths, "--out", str(tmp_path), "--call-timeout", "-1"]) == 2


def test_generic_and_static_raises_are_timed_side_by_side(tmp_path):
    """`--shapes static,generic` (issue 52 item 6): each kernel raised both ways, the generic
    raise's rows labelled `TARGET generic` and timed at the dataset's sizes beside the
    static one, and report.md gives the geomean of generic over static time per backend
    as the rows have it."""
    from synth.bench.report import geomean

    rc = main(["bench", str(POLYBENCH / "gemm.mlir"), "--dataset", "mini", "--out", str(tmp_path),
               "--repeats", "2", "--targets", "stablehlo", "--backends", "xla-cpu", "--shapes", "static,generic",
               "--timeout", "60"])
    assert rc == 0
    rows = {r["target"]: r for r in json.loads((tmp_path / "results.json").read_text())}
    assert set(rows) == {"stablehlo", "stablehlo generic"}
    assert all(r["status"] == "ok" and r["backend"] == "xla-cpu" and r["seconds"] > 0 for r in rows.values())
    ratio = geomean([rows["stablehlo generic"]["seconds"] / rows["stablehlo"]["seconds"]])
    cpu = geomean([rows["stablehlo generic"]["seconds_cpu"] / rows["stablehlo"]["seconds_cpu"]])
    report = (tmp_path / "report.md").read_text()
    assert f"- generic over static time on xla-cpu: geomean {ratio:.2f} over 1 pairs" in report
    assert f"; CPU time: {cpu:.2f} over 1 pairs" in report
    assert "shapes static,generic" in report


def test_dask_scheduler(tmp_path):
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        rc = main(["bench", str(POLYBENCH / "mvt.mlir"), "--dataset", "mini", "--out", str(tmp_path),
                   "--scheduler", cluster.scheduler_address, "--backends", "xla-cpu", "--repeats", "2",
                   "--targets", "stablehlo"])
    assert rc == 0
    rows = json.loads((tmp_path / "results.json").read_text())
    assert [(r["kernel"], r["status"]) for r in rows] == [("mvt", "ok")]


def test_plot_data_and_png(bench_out):
    """speedup.png: one bar per kernel x target from the 1x line, labelled with the
    speedup and the winning backend, colored by target; a slowdown hangs below 1x."""
    from PIL import Image

    from synth.bench.report import TARGET_COLORS, plot_bars, _plot

    out, _ = bench_out
    rows = json.loads((out / "results.json").read_text())
    best = {}
    for r in rows:
        if r["status"] == "ok" and (best.get((r["kernel"], r["target"])) or {}).get("speedup", 0) < r["speedup"]:
            best[(r["kernel"], r["target"])] = r
    bars = plot_bars(best)
    assert [(b["kernel"], b["target"]) for b in bars] == sorted(best)
    for b in bars:
        assert b["text"] == f"{b['speedup']:.1f}x\n{b['backend']}" and b["color"] == TARGET_COLORS[b["target"]]
    with Image.open(out / "speedup.png") as img:
        assert img.size[0] >= 700 and img.size[1] >= 500
    slow = {("k", "linalg"): {"speedup": 0.5, "backend": "mlir-cpu"},
            ("k", "stablehlo"): {"speedup": 4.0, "backend": "xla-cpu"}}
    _plot(slow, out / "slow.png", {"geomean_best": 1.41})
    assert plot_bars(slow)[0]["speedup"] < 1 and (out / "slow.png").stat().st_size > 1000


def test_bench_names_the_files_it_skips(bench_out, capsys):
    out, paths = bench_out
    assert main(["bench", *paths, "--dataset", "mini", "--out", str(out), "--repeats", "2",
                 "--backends", "xla-cpu,mlir-cpu", "--timeout", "30"]) == 0
    assert "skipped malformed: " in capsys.readouterr().err


def test_the_polybench_suite_is_found_from_anywhere(tmp_path, monkeypatch):
    """`--suite polybench` finds the 30 bundled kernels whatever the working directory."""
    from synth.bench.runner import discover

    monkeypatch.chdir(tmp_path)
    files = discover([], "polybench")
    assert len(files) == 30 and files == sorted(POLYBENCH.glob("*.mlir"))


def test_a_directory_is_its_own_kernel_files():
    """`synth bench DIR` takes DIR's .mlir and .c files, not its subdirectories' (PolyBench/C's
    harness/ holds whole programs, which are not kernels)."""
    from synth.bench.runner import discover

    files = discover([str(POLYBENCH.parent / "polybench-c")], None)
    assert len(files) == 30 and all(f.parent.name == "polybench-c" for f in files)


def test_c_baseline(tmp_path):
    """--baseline cc: the kernel's C twin, compiled by the system C compiler, is checked
    against the MLIR baseline's outputs and timed; rows carry its time and the speedup
    over it."""
    from synth.backends.cc import compiler

    if compiler() is None:
        pytest.skip("no C compiler on PATH")
    rc = main(["bench", str(POLYBENCH / "gemm.mlir"), "--dataset", "mini", "--targets", "stablehlo",
               "--backends", "xla-cpu", "--baseline", "cc", "--repeats", "2", "--out", str(tmp_path)])
    assert rc == 0
    [row] = [r for r in json.loads((tmp_path / "results.json").read_text()) if r["status"] == "ok"]
    assert row["cc_min"] <= row["cc_seconds"] <= row["cc_max"] and row["cc_seconds"] > 0
    assert row["speedup_cc"] == pytest.approx(row["cc_seconds"] / row["seconds"])
    report = (tmp_path / "report.md").read_text()
    assert "over the C twins" in report and "cc -O3 -march=native" in report


def test_c_twins_of_kernels():
    from synth.bench.timing import c_twin

    assert c_twin("kernel_gemm").name == "gemm.c" and c_twin("kernel_jacobi_2d").name == "jacobi-2d.c"
    assert c_twin("blas_ger") is None


def test_inputs_of_a_solver_are_made_diagonally_dominant():
    """trisolv overflows on uniform random data long before its last row; the bench then
    times it on the same draw with n added to the diagonal (as PolyBench initialises it),
    on which the original's outputs are finite."""
    import numpy as np

    from synth.analysis.model import load_kernel
    from synth.synthesis.spec import diagonally_dominant, finite_outputs
    from synth.execution import run_function
    from synth.frontend.reader import load_source
    from synth.synthesis.spec import random_draw

    source = load_source(POLYBENCH / "trisolv.mlir", warn=False)
    kernel = load_kernel(source, "kernel_trisolv")
    args = kernel.arguments(kernel.sizes.original(), random_draw(np.random.default_rng(2024)))
    args = args[: kernel.n_arguments]
    assert not finite_outputs(run_function(source.text, "kernel_trisolv", args).outputs)
    fixed = diagonally_dominant(args)
    assert finite_outputs(run_function(source.text, "kernel_trisolv", fixed).outputs)
    assert [np.shape(a) for a in fixed] == [np.shape(a) for a in args]


def test_undetermined_elements_are_left_out_of_the_output_check():
    """An element the original computes as rounding noise (it moves under a 1e-12 relative
    change of the inputs) is not compared; a stable element that differs still fails."""
    import numpy as np

    from synth.numerics import compare_outputs, perturbed, undetermined

    x = np.array([1.0, 2.0, 3.0])
    noisy = lambda a: np.array([a[0] * 2, (a[1] - 2.0) * 1e13, a[2]])  # noqa: E731 (0/0-like middle)
    expected = [noisy(x)]
    again = [noisy(perturbed([x], np.random.default_rng(0))[0])]
    ignore = undetermined(expected, again)
    assert ignore[0].tolist() == [False, True, False]
    got = [expected[0] + np.array([0.0, 5.0, 0.0])]
    assert compare_outputs(expected, got, [0]) is not None
    assert compare_outputs(expected, got, [0], ignore) is None
    assert compare_outputs(expected, [expected[0] + np.array([1.0, 0, 0])], [0], ignore) is not None


def test_float_scalars_move_in_the_conditioning_check():
    """A sine's frequency is a float scalar ((type, value), as Kernel.arguments passes it):
    moved like float arrays, so sin(omega * i) at omega ~ 1e14 in f32 (which the f32
    rounding of omega alone decides) is left out of the output check; integers, sizes
    and arrays of integers stay as they are."""
    import numpy as np

    from synth.numerics import perturbed, undetermined

    args = [("i32", 4), ("f32", 6.4e14), np.arange(3, dtype=np.int32), ("f64", 0.5)]
    moved = perturbed(args, np.random.default_rng(0))
    assert moved[0] == ("i32", 4) and moved[2] is args[2]
    assert moved[1][0] == "f32" and moved[1][1] != 6.4e14 and abs(moved[1][1] / 6.4e14 - 1) <= 1e-6
    assert moved[3][1] != 0.5 and abs(moved[3][1] / 0.5 - 1) <= 1e-12
    wave = lambda omega: np.sin(np.float32(omega) * np.arange(4, dtype=np.float32))  # noqa: E731
    ignore = undetermined([wave(args[1][1])], [wave(moved[1][1])])
    assert ignore[0][1:].all() and not ignore[0][0]


def test_contenders_are_timed_in_interleaved_rounds():
    """synth bench times a kernel's baseline, C twin and backends in rounds, one timed call
    of each per round in turn (the warm-up calls in the first round only), so the
    machine's slow spells reach them alike; one that fails is dropped, not the rest."""
    from synth.backends.timing import measure
    from synth.bench.timing import interleaved

    calls = []

    class Contender:
        def __init__(self, name, fail_at=None):
            self.name, self.fail_at = name, fail_at

        def time(self, args, warmup, repeats):
            if self.fail_at is not None and len(calls) >= self.fail_at:
                raise RuntimeError(f"{self.name} stopped")
            return measure(lambda: calls.append(self.name), warmup, repeats)

    timings, failed = interleaved({"base": Contender("base"), "x": Contender("x"), "y": Contender("y", 5)},
                                  [], warmup=1, repeats=3, errors=(RuntimeError,), batch_seconds=0.0)
    assert calls == ["base", "base", "x", "x", "y", "y", "base", "x"] + ["base", "x"]
    assert sorted(timings) == ["base", "x"] and [t.repeats for t in timings.values()] == [3, 3]
    assert list(failed) == ["y"] and "y stopped" in str(failed["y"])


def test_short_calls_are_timed_in_batches():
    """A contender whose first timed call is shorter than the batch time makes
    batch_seconds / call calls in a row in each later round, their median the round's
    sample; a long one keeps one call per round."""
    from synth.backends.timing import Timing
    from synth.bench.timing import MAX_BATCH, batch_size, interleaved

    asked = {"short": [], "long": []}

    class Contender:
        def __init__(self, name, seconds):
            self.name, self.seconds = name, seconds

        def time(self, args, warmup, repeats):
            asked[self.name].append((warmup, repeats))
            # calls slow down along a batch: the median, not the first or the mean, counts
            return Timing.from_samples([self.seconds * (1 + i) for i in range(repeats)], warmup)

    timings, _ = interleaved({"short": Contender("short", 0.001), "long": Contender("long", 0.5)}, [],
                             warmup=1, repeats=3, errors=(RuntimeError,), batch_seconds=0.02)
    assert asked["short"] == [(1, 1), (0, 20), (0, 20)] and asked["long"] == [(1, 1), (0, 1), (0, 1)]
    assert timings["short"].samples == pytest.approx([0.001, 0.0105, 0.0105]) and timings["short"].repeats == 3
    assert timings["long"].samples == [0.5, 0.5, 0.5]
    assert batch_size(0.5) == 1 and batch_size(0.0) == MAX_BATCH and batch_size(0.001, 0.0) == 1


@pytest.mark.slow
def test_loops_corpus_through_mlir_cpu(tmp_path):
    """Issue 55: the passes meet kernels nobody tuned them for. synth bench over
    benchmarks/loops/ (64 kernels in the styles of other suites) on mlir-cpu, both
    targets, every output compared with the original's: none differs and no pass fails;
    each row records the rewrites each pass made (summed and printed here)."""
    from conftest import LOOPS

    rc = main(["bench", str(LOOPS), "--out", str(tmp_path), "--repeats", "1", "--warmup", "0",
               "--backends", "mlir-cpu", "--timeout", "30", "--jobs", "2"])
    assert rc == 0
    rows = json.loads((tmp_path / "results.json").read_text())
    bad = [(r["kernel"], r["target"], r["status"], r.get("reason", "")[:200]) for r in rows
           if r["status"] in ("wrong-output", "pipeline-error", "backend-error")]
    assert not bad, bad
    timed = [r for r in rows if r["status"] == "ok" and r["backend"] == "mlir-cpu"]
    assert len(timed) >= 120  # 64 kernels x 2 targets: 126 of the 128 pairs raise (2026-12-07)
    made: dict[str, int] = {}  # the rewrites each pass made over the corpus ("name=n,...")
    for r in timed:
        for item in filter(None, r.get("rewrites", "").split(",")):
            name, n = item.split("=")
            made[name] = made.get(name, 0) + int(n)
    print("mlir-cpu rewrites over benchmarks/loops:", made)


def test_an_iree_memory_blowup_is_a_result_row_and_the_bench_goes_on(tmp_path, monkeypatch):
    """An IREE worker above its memory ceiling (here a ceiling of 20 MB, which the worker's
    runtime alone exceeds) is killed: its rows say backend-error naming memory, the other
    backend's rows are timed, and the bench finishes."""
    from synth.backends.iree import IreeBackend

    if not IreeBackend("linalg").available():
        pytest.skip("IREE not installed")
    monkeypatch.setenv("SYNTH_IREE_MEMORY_GB", "0.02")
    rc = main(["bench", str(POLYBENCH / "gemm.mlir"), "--dataset", "mini", "--out", str(tmp_path),
               "--repeats", "1", "--targets", "linalg", "--backends", "iree-llvm-cpu,mlir-cpu",
               "--timeout", "30"])
    assert rc == 0
    rows = json.loads((tmp_path / "results.json").read_text())
    iree = [r for r in rows if r["backend"] == "iree-llvm-cpu"]
    assert iree and all(r["status"] == "backend-error" and "memory ceiling" in r["reason"] for r in iree)
    assert [r["status"] for r in rows if r["backend"] == "mlir-cpu"] == ["ok"]
