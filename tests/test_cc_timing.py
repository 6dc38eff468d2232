"""`synth cc` times each raise against the function as the user's compiler builds it and
keeps the faster (synth.driver.timing): the report holds every candidate's time, the body
the object carries is the one the report names, the decision is cached, --keep-slower
overrides it, no --target raises to both targets, and --compile-budget bounds the native
compile. No timing is asserted: which code wins is the machine's business; that the
choice follows the measured times is the driver's."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a system C compiler")

ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}

# static extents: the timing runs at the kernel's own sizes
KERNEL = r"""
void mv(double A[96][128], double x[128], double y[96])
{
    for (int i = 0; i < 96; i++) {
        y[i] = 0.0;
        for (int j = 0; j < 128; j++)
            y[i] += A[i][j] * x[j];
    }
}
"""

MAIN = r"""
#include <stdio.h>
void mv(double A[96][128], double x[128], double y[96]);
static double A[96][128], x[128], y[96];
int main(void)
{
    for (int i = 0; i < 96; i++)
        for (int j = 0; j < 128; j++)
            A[i][j] = (double)((i * 5 + j * 3) % 17) / 17.0;
    for (int j = 0; j < 128; j++) x[j] = 1.0 + j / 128.0;
    mv(A, x, y);
    double s = 0;
    for (int i = 0; i < 96; i++) s += y[i] * (i + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


def synth_cc(*args, cwd):
    return subprocess.run([sys.executable, "-m", "synth.cli", "cc", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=ENV, timeout=900)


def entry(path) -> dict:
    (e,) = [e for e in json.loads(path.read_text())["functions"] if e["function"] == "mv"]
    return e


def raised_code_in(obj) -> bool:
    defined = subprocess.run(["nm", "--defined-only", str(obj)], capture_output=True, text=True, check=True).stdout
    return "_mlir_ciface___synth_" in defined


def ms_in(line: str) -> list[float]:
    """The times a report line gives, in ms."""
    scale = {"us": 1e-3, "ms": 1.0, "s": 1e3}
    return [float(v) * scale[unit] for v, unit in re.findall(r"([\d.e+-]+) (ms|us|s)\b", line)]


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """mv.c built without --target (both targets), again (the cache), and with --keep-slower."""
    d = tmp_path_factory.mktemp("cc_timing")
    (d / "mv.c").write_text(KERNEL)
    (d / "main.c").write_text(MAIN)
    out = {"dir": d}
    for name, extra in (("first", ()), ("again", ()), ("keep", ("--keep-slower",))):
        p = synth_cc("-O2", "-c", "mv.c", "-o", f"{name}.o", "--cache-dir", d / "cache", "--report",
                     f"{name}.json", *extra, cwd=d)
        assert p.returncode == 0, p.stderr
        out[name] = (p.stderr, entry(d / f"{name}.json"))
    return out


def test_the_report_has_every_time_and_the_object_has_the_body_it_names(builds):
    stderr, e = builds["first"]
    times = e["timing"]["ms"]
    assert set(times) == {"as written", "linalg", "stablehlo"}  # both targets raised and timed
    assert all(t > 0 for t in times.values()) and min(e["timing"]["runs"].values()) >= 1
    assert e["targets"]["linalg"]["status"] == e["targets"]["stablehlo"]["status"] == "raised"
    fastest = min(("linalg", "stablehlo"), key=times.get)
    line = next(ln for ln in stderr.splitlines() if ": mv: " in ln)
    if times[fastest] < times["as written"]:
        assert e["status"] == "raised" and e["target"] == fastest
        assert f"raised to {fastest}" in line
        assert raised_code_in(builds["dir"] / "first.o")
    else:
        assert e["status"] == "kept" and e["raised_target"] == fastest
        assert "kept as written: raised code slower" in line
        assert not raised_code_in(builds["dir"] / "first.o")
    # the line gives the three times the JSON holds
    assert sorted(ms_in(line)) == pytest.approx(sorted(times.values()), rel=5e-3)


def test_the_decision_is_cached_with_the_objects(builds):
    _, first = builds["first"]
    _, again = builds["again"]
    assert again["cached"]  # the whole unit, from the cache
    assert again["timing"]["ms"] == first["timing"]["ms"]  # not timed again
    assert (again["status"], again["target"]) == (first["status"], first["target"])
    assert (builds["dir"] / "again.o").read_bytes() == (builds["dir"] / "first.o").read_bytes()


def test_keep_slower_uses_the_fastest_raise_whatever_the_original_does(builds):
    stderr, e = builds["keep"]
    _, first = builds["first"]
    assert e["timing"]["cached"] and e["timing"]["ms"] == first["timing"]["ms"]  # the cached timing
    assert e["status"] == "raised" and e["target"] == first["timing"]["fastest_raise"]
    assert raised_code_in(builds["dir"] / "keep.o")
    d = builds["dir"]
    p = synth_cc("-O2", "main.c", "keep.o", "-o", "prog", cwd=d)  # main.c: no kernel, nothing raised
    assert p.returncode == 0, p.stderr
    subprocess.run(["cc", "-O2", "mv.c", "main.c", "-o", "prog_cc"], cwd=d, check=True)
    got = float(subprocess.run(["./prog"], cwd=d, capture_output=True, text=True, check=True).stdout)
    want = float(subprocess.run(["./prog_cc"], cwd=d, capture_output=True, text=True, check=True).stdout)
    assert got == pytest.approx(want, rel=1e-12)


def test_compile_budget_and_threads(tmp_path):
    """A compile that cannot fit its budget keeps the function, saying why; --threads is
    accepted and said to be single-threaded."""
    (tmp_path / "mv.c").write_text(KERNEL)
    p = synth_cc("-O2", "-c", "mv.c", "--target", "linalg", "--compile-budget", "0.01", "--threads", "2",
                 "--cache-dir", tmp_path / "c", "--report", "r.json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    e = entry(tmp_path / "r.json")
    assert e["status"] == "kept" and "exceeded the compile budget of 0.01 s" in e["reason"]
    assert "--threads 2: the raised code is single-threaded" in p.stderr
    assert not raised_code_in(tmp_path / "mv.o")
    for bad in (("--compile-budget", "0"), ("--threads", "x")):
        q = synth_cc("-c", "mv.c", *bad, cwd=tmp_path)
        assert q.returncode == 2 and bad[0] in q.stderr and "Traceback" not in q.stderr


def test_decide_picks_the_fastest_and_the_original_on_a_tie():
    from synth.driver.timing import ORIGINAL, decide

    d = decide({ORIGINAL: [3e-3, 2e-3], "linalg": [1.5e-3, 4e-3], "stablehlo": [1.8e-3]})
    assert d["fastest_raise"] == "linalg" and d["chosen"] == "linalg" and d["ms"]["linalg"] == 1.5
    d = decide({ORIGINAL: [1e-3], "linalg": [1e-3]})  # not faster: kept as written
    assert d["chosen"] == ORIGINAL and d["fastest_raise"] == "linalg"


def test_the_original_is_compiled_without_warnings_as_errors():
    from synth.driver.timing import timing_flags

    flags = ["-O3", "-march=native", "-Wall", "-Werror", "-pedantic-errors", "-DN=4", "-MF", "x.d", "-Wl,-z,now"]
    assert timing_flags(flags) == ["-O3", "-march=native", "-DN=4", "-Wl,-z,now"]


SIZED = r"""
void scale(int n, double x[64], double y[64])
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0 * x[i] + 1.0;
}
"""

SIZED_MAIN = r"""
#include <stdio.h>
void scale(int n, double x[64], double y[64]);
extern unsigned long __synth_cc_fallbacks __attribute__((weak));
static double x[64], y[64];
int main(void)
{
    for (int i = 0; i < 64; i++) x[i] = i / 8.0;
    scale(64, x, y);
    printf("%g %lu\n", y[63], &__synth_cc_fallbacks ? __synth_cc_fallbacks : 0UL);
    scale(10, y, x);
    printf("%g %g %lu\n", x[9], x[10], &__synth_cc_fallbacks ? __synth_cc_fallbacks : 0UL);
    return 0;
}
"""


def test_a_raise_at_fixed_sizes_called_at_others_runs_the_c_original(tmp_path):
    """The raise is made at the arrays' extents (n = 64); at n = 10 the wrapper calls the
    function as the C compiler built it, not the object's MLIR copy of the loops."""
    (tmp_path / "k.c").write_text(SIZED)
    (tmp_path / "main.c").write_text(SIZED_MAIN)
    p = synth_cc("-O2", "k.c", "main.c", "-o", "prog", "--target", "linalg", "--keep-slower", "--cache-dir",
                 tmp_path / "c", "--report", "r.json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (e,) = [e for e in json.loads((tmp_path / "r.json").read_text())["functions"] if e["function"] == "scale"]
    assert e["status"] == "raised" and e["guard"] == [["param", 0, 64]]
    out = subprocess.run(["./prog"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["16.75 0", "7.5 1.25 1"]  # n = 10: one fallback, x[10] untouched
