"""The PolyBench-style harness (benchmarks/polybench-c/harness), scripts/cc_polybench.py
and the example program examples/cc-program, built with the system C compiler; the tests
that need `synth cc` are skipped until the subcommand exists (`synth cc --help` fails).

Each build here runs the real compiler and the real executables: the harnessed kernels at
MINI with cc -O0 and cc -O2 must dump arrays that agree under the script's comparison,
and a build that computes something else (the kernel bounded by its constant sizes while
the harness passes smaller run-time sizes) must be caught by it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "cc-program"
CC = shutil.which("cc") or shutil.which("gcc")
MAKE = shutil.which("make")
SYNTH_CC = f"{sys.executable} -m synth.cli cc"

pytestmark = pytest.mark.skipif(CC is None, reason="no system C compiler (cc)")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


ccp = _load("cc_polybench")
gen = _load("gen_polybench_harness")


def _env() -> dict:
    """This checkout's synth first on the path of every subprocess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


@pytest.fixture
def synth_env(tmp_path, monkeypatch):
    """Subprocesses run this checkout's synth with a cache of their own (a cold start:
    nothing raised by an earlier run or test is reused)."""
    monkeypatch.setenv("PYTHONPATH", _env()["PYTHONPATH"])
    monkeypatch.setenv("SYNTH_CACHE", str(tmp_path / "synth-cache"))


def _have_synth_cc() -> bool:
    try:
        p = subprocess.run([sys.executable, "-m", "synth.cli", "cc", "--help"], capture_output=True,
                           text=True, timeout=120, env=_env())
    except subprocess.TimeoutExpired:
        return False
    return p.returncode == 0


needs_synth_cc = pytest.mark.skipif(not _have_synth_cc(), reason="`synth cc` does not exist yet")


def _dump(build) -> dict:
    _, out = ccp.run_exe(build.exe_dump, pin=[], timeout=60)
    return ccp.parse_dump(out)


# ---------------------------------------------------------------------------- harness


def test_generated_mains_are_up_to_date():
    assert gen.main(["--check"]) == 0


def test_every_kernel_has_a_main_and_its_written_arrays():
    ks = {k.name: k for k in gen.kernels()}
    assert len(ks) == 30
    for name in ks:
        assert (ccp.HARNESS_DIR / f"{name}_main.c").exists()
    # written arrays read off the kernels' bodies
    assert ks["gemm"].written == ["C"]
    assert ks["atax"].written == ["y", "tmp"]
    assert ks["ludcmp"].written == ["A", "x", "y"]
    assert ks["nussinov"].written == ["table"] and ks["nussinov"].is_int


@pytest.mark.parametrize("kernel", ["gemm", "cholesky", "deriche", "nussinov", "gramschmidt"])
def test_harnessed_kernel_O0_and_O2_agree(kernel, tmp_path):
    b0 = ccp.build(kernel, f"{CC} -O0", "MINI", tmp_path / "O0")
    b2 = ccp.build(kernel, f"{CC} -O2", "MINI", tmp_path / "O2")
    assert b0.ok, b0.error
    assert b2.ok, b2.error
    d0, d2 = _dump(b0), _dump(b2)
    k = next(k for k in gen.kernels() if k.name == kernel)
    assert sorted(d0) == sorted(k.written)
    for typ, arr in d0.values():
        assert typ == ("int" if k.is_int else "double")
        assert np.all(np.isfinite(arr)) and np.any(arr != 0)
    cmp = ccp.compare_dumps(d0, d2)
    assert cmp.agree, cmp.problems
    assert cmp.max_rel_err <= 1e-12
    seconds, _ = ccp.run_exe(b2.exe, pin=ccp.pin_prefix("0"), timeout=60)
    assert seconds > 0


def test_comparison_catches_a_different_computation(tmp_path):
    """gramschmidt runs on n = min(m, n) columns; bounded by its constant N instead
    (-DPOLYBENCH_USE_SCALAR_LB) it writes other columns: a mismatch, named."""
    a = ccp.build("gramschmidt", f"{CC} -O1", "MINI", tmp_path / "a")
    b = ccp.build("gramschmidt", f"{CC} -O1 -DPOLYBENCH_USE_SCALAR_LB", "MINI", tmp_path / "b")
    assert a.ok and b.ok, a.error + b.error
    cmp = ccp.compare_dumps(_dump(a), _dump(b))
    assert not cmp.agree
    assert any(p.startswith("Q:") for p in cmp.problems)


def test_comparison_tolerance_and_exact_ints():
    base = {"x": ("double", np.array([[1.0, -2.0], [1e-30, 4.0]])), "t": ("int", np.array([1, 2, 3]))}
    near = {"x": ("double", np.array([[1.0, -2.0], [1e-30 + 1e-15, 4.0]])),
            "t": base["t"]}
    assert ccp.compare_dumps(base, near, rtol=1e-9).agree  # 1e-15 absolute against max |x| = 4
    far = {"x": ("double", np.array([[1.0, -2.0], [1e-30, 4.0 + 1e-7]])), "t": base["t"]}
    assert not ccp.compare_dumps(base, far, rtol=1e-9).agree
    ints = {"x": base["x"], "t": ("int", np.array([1, 2, 4]))}
    assert not ccp.compare_dumps(base, ints).agree
    nan = {"x": ("double", np.array([[np.nan, -2.0], [1e-30, 4.0]])), "t": base["t"]}
    assert not ccp.compare_dumps(base, nan).agree
    assert ccp.compare_dumps(nan, nan).agree
    shape = {"x": ("double", np.zeros((2, 3))), "t": base["t"]}
    assert not ccp.compare_dumps(base, shape).agree


def test_script_cc_against_cc_writes_json_and_markdown(tmp_path, capsys):
    rc = ccp.main(["atax", "durbin", "--dataset", "MINI", "--cc-a", f"{CC} -O0", "--cc-b", f"{CC} -O2",
                   "--runs", "2", "--json", str(tmp_path / "r.json"), "--md", str(tmp_path / "r.md"),
                   "--build-dir", str(tmp_path / "build")])
    out = capsys.readouterr().out
    assert rc == 0, out
    data = json.loads((tmp_path / "r.json").read_text())
    assert [r["kernel"] for r in data["results"]] == ["atax", "durbin"]
    for r in data["results"]:
        assert r["status"] == "ok" and r["agree"]
        assert len(r["time_a"]["runs"]) == 2 and r["speedup"] > 0
    assert data["geomean_speedup"] > 0
    assert "| atax | ok |" in (tmp_path / "r.md").read_text()


def test_script_records_a_b_build_failure_and_goes_on(tmp_path, capsys):
    rc = ccp.main(["gemm", "atax", "--dataset", "MINI", "--cc-a", f"{CC} -O0",
                   "--cc-b", f"{CC} -O2 -DNO_SUCH_FLAG --no-such-option", "--no-time",
                   "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert rc == 0  # a B build failure alone is recorded, not fatal (without --strict)
    data = json.loads((tmp_path / "r.json").read_text())
    assert [r["status"] for r in data["results"]] == ["build-b-failed", "build-b-failed"]
    assert "--no-such-option" in data["results"][0]["build_b"]["error"]
    assert "status: 2 build-b-failed" in out
    assert ccp.main(["gemm", "--dataset", "MINI", "--cc-b", f"{CC} --no-such-option", "--no-time",
                     "--strict"]) == 1


def test_generic_timing_script_times_three_builds_back_to_back(tmp_path, capsys):
    """scripts/cc_generic_timing.py with three plain cc commands (synth cc's sides stood in
    for): each kernel at its own dataset, every executable run once a round in rotated
    order, the arrays compared, the ratios and the JSON and markdown written."""
    timing = _load("cc_generic_timing")
    rc = timing.main(["atax", "durbin@SMALL", "--dataset", "MINI", "--cc", f"{CC} -O0", "--cc-static", f"{CC} -O1",
                      "--cc-generic", f"{CC} -O2", "--rounds", "3", "--json", str(tmp_path / "t.json"),
                      "--md", str(tmp_path / "t.md"), "--build-dir", str(tmp_path / "build")])
    assert rc == 0, capsys.readouterr().out
    data = json.loads((tmp_path / "t.json").read_text())
    assert [(r["kernel"], r["dataset"], r["status"]) for r in data["results"]] == [
        ("atax", "MINI", "ok"), ("durbin", "SMALL", "ok")]
    for r in data["results"]:
        assert all(len(r[f"time_{side}"]["runs"]) == 3 for side in ("cc", "static", "generic"))
        assert r["generic_over_static"] == r["time_generic"]["median"] / r["time_static"]["median"]
        assert r["generic_over_static_min"] == r["time_generic"]["min"] / r["time_static"]["min"]
        assert r["max_rel_err_generic"] <= 1e-12
    assert data["n_timed"] == 2 and data["n_both_raised"] == 0
    assert "| durbin | SMALL | ok |" in (tmp_path / "t.md").read_text()
    # gramschmidt bounded by its constant N on the generic side writes other columns: named, exit 1
    bad = timing.main(["gramschmidt", "--dataset", "MINI", "--cc", f"{CC} -O1", "--cc-static", f"{CC} -O1",
                       "--cc-generic", f"{CC} -O1 -DPOLYBENCH_USE_SCALAR_LB", "--rounds", "1",
                       "--json", str(tmp_path / "g.json"), "--md", str(tmp_path / "g.md")])
    assert bad == 1
    (r,) = json.loads((tmp_path / "g.json").read_text())["results"]
    assert r["status"] == "mismatch-generic" and any(p.startswith("Q:") for p in r["problems"])
    assert "time_cc" not in r


# ---------------------------------------------------------------------------- example


def _make(workdir: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([MAKE, "-C", str(workdir), *args], capture_output=True, text=True,
                          timeout=timeout, env=_env())


def _example_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "cc-program"
    shutil.copytree(EXAMPLE, dst, ignore=shutil.ignore_patterns("prog", "*.o", ".build-cmd"))
    return dst


@pytest.mark.skipif(MAKE is None, reason="no make")
def test_example_builds_with_cc_and_prints_the_expected_output(tmp_path):
    d = _example_copy(tmp_path)
    p = _make(d, f"CC={CC}")
    assert p.returncode == 0, p.stderr
    run = subprocess.run([str(d / "prog")], capture_output=True, text=True, timeout=60)
    assert run.stdout == (EXAMPLE / "expected_output.txt").read_text()
    assert run.stderr == ""  # no synth cc fallback counter in a cc build
    # a second make compiles nothing; a change of flags rebuilds both objects
    again = _make(d, f"CC={CC}")
    assert again.returncode == 0 and " -c " not in again.stdout
    flags = _make(d, f"CC={CC}", "CFLAGS=-O0")
    assert flags.stdout.count(" -c ") == 2


@needs_synth_cc
@pytest.mark.skipif(MAKE is None, reason="no make")
def test_example_with_synth_cc_prints_the_cc_output(tmp_path, synth_env):
    """Raised kernels give the same exact checksums; the two calls with overlapping
    arguments must have run the original bodies; a second make does nothing."""
    d = _example_copy(tmp_path)
    p = _make(d, f"CC={SYNTH_CC} --target linalg --keep-slower", timeout=1200)  # the raised path, timing aside
    assert p.returncode == 0, p.stdout + p.stderr
    assert "kernels.c: dgemv: raised" in p.stderr and "kernels.c: daxpy: raised" in p.stderr
    run = subprocess.run([str(d / "prog")], capture_output=True, text=True, timeout=60)
    assert run.stdout == (EXAMPLE / "expected_output.txt").read_text()
    # the two calls with overlapping arguments, and only they, ran the original bodies
    assert run.stderr == "synth cc: 2 call(s) took the original code\n"
    again = _make(d, f"CC={SYNTH_CC} --target linalg --keep-slower")  # nothing rebuilt: make runs no compile
    assert again.returncode == 0 and " -c " not in again.stdout


@pytest.mark.slow
@needs_synth_cc
@pytest.mark.skipif(MAKE is None, reason="no make")
def test_example_rebuild_after_touch_uses_the_cache(tmp_path, synth_env):
    """Touching kernels.c recompiles it; the raised objects come from the cache, so the
    rebuild costs about what cc costs (no timing asserted: the report says cached)."""
    d = _example_copy(tmp_path)
    assert _make(d, f"CC={SYNTH_CC}", timeout=1200).returncode == 0
    (d / "kernels.c").touch()
    p = _make(d, f"CC={SYNTH_CC}")
    assert p.returncode == 0 and "kernels.c" in p.stdout
    out = subprocess.run([str(d / "prog")], capture_output=True, text=True, timeout=60).stdout
    assert out == (EXAMPLE / "expected_output.txt").read_text()


@needs_synth_cc
@pytest.mark.parametrize("kernel", ["gemm", pytest.param("atax", marks=pytest.mark.slow),
                                    pytest.param("jacobi-1d", marks=pytest.mark.slow)])
def test_harnessed_kernel_cc_and_synth_cc_agree(kernel, tmp_path, synth_env):
    a = ccp.build(kernel, f"{CC} -O2", "MINI", tmp_path / "a")
    b = ccp.build(kernel, f"{SYNTH_CC} -O2", "MINI", tmp_path / "b")
    assert a.ok, a.error
    assert b.ok, b.error
    cmp = ccp.compare_dumps(_dump(a), _dump(b))
    assert cmp.agree, cmp.problems


@pytest.mark.slow
@needs_synth_cc
def test_nussinov_generic_stablehlo_drop_in_agrees_with_cc(tmp_path, synth_env):
    """nussinov's shape-generic stablehlo raise (its diagonal loop a while `k <= n - 1`,
    synth.backends.stablehlo_whiles) compiled into the program by synth cc, used even
    though slower: the harness's table is cc's."""
    a = ccp.build("nussinov", f"{CC} -O2", "MINI", tmp_path / "a")
    b = ccp.build("nussinov", f"{SYNTH_CC} --shapes generic --target stablehlo --keep-slower -O2", "MINI",
                  tmp_path / "b")
    assert a.ok, a.error
    assert b.ok, b.error
    says = ccp.raise_summary({"kernel": "nussinov", "report_b": b.report})
    assert says.startswith("raised stablehlo"), says
    cmp = ccp.compare_dumps(_dump(a), _dump(b))
    assert cmp.agree, cmp.problems


@pytest.mark.slow
@needs_synth_cc
@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_all_harnessed_kernels_cc_and_synth_cc_agree(dataset, tmp_path, synth_env, capsys):
    rc = ccp.main(["--dataset", dataset, "--cc-a", f"{CC} -O3 -march=native",
                   "--cc-b", f"{SYNTH_CC} -O3 -march=native", "--no-time", "--strict",
                   "--build-dir", str(tmp_path)])
    assert rc == 0, capsys.readouterr().out
