"""`synth cc`: C programs built with their kernels raised, against the same programs built
by the system C compiler (outputs, the cache, the run-time overlap check, kept functions,
separate compilation and linking, bad input)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

SYNTH = [sys.executable, "-m", "synth.cli", "cc"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a system C compiler")

KERNELS = r"""
/* kernels.c: one function that raises, one that synth cannot read (a while loop) */
void gemv(int M, int N, const double *A, const double *x, double *y)
{
    for (int i = 0; i < M; i++) {
        double sum = 0;
        for (int j = 0; j < N; j++)
            sum += A[i * N + j] * x[j];
        y[i] = sum;
    }
}

/* returns its inputs swapped: the write-back must not read what it overwrote */
void swap(int n, double *a, double *b)
{
    for (int i = 0; i < n; i++) {
        double t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

/* a NULL bias is no bias: the raise reads b as an array, the drop-in checks at run time */
void add_bias(int n, double *y, const double *b)
{
    if (!b)
        return;
    for (int i = 0; i < n; i++)
        y[i] += b[i];
}

void halve_until_small(double *x, int n)
{
    for (int i = 0; i < n; i++)
        while (x[i] > 1.0)
            x[i] = x[i] / 2.0;
}
"""

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>

void gemv(int M, int N, const double *A, const double *x, double *y);
void halve_until_small(double *x, int n);
void swap(int n, double *a, double *b);
void add_bias(int n, double *y, const double *b);

static void saxpy(int n, float alpha, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] += alpha * x[i];
}

extern unsigned long __synth_cc_fallbacks __attribute__((weak));

int main(void)
{
    int m = 37, n = 53;
    double *A = malloc(sizeof(double) * m * n), *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * m);
    float *u = malloc(sizeof(float) * 64), *v = malloc(sizeof(float) * 64);
    for (int i = 0; i < m * n; i++) A[i] = (double)((i * 7) % 13) / 13.0;
    for (int i = 0; i < n; i++) x[i] = (double)((i * 3) % 5) / 5.0 + 1.0;
    for (int i = 0; i < 64; i++) { u[i] = (float)(i % 9) / 8.0f; v[i] = 0.25f * (float)(i % 4); }
    gemv(m, n, A, x, y);
    halve_until_small(y, m);
    double s = 0;
    for (int i = 0; i < m; i++) s += y[i] * (i + 1);
    printf("gemv %.17g\n", s);
    swap(m, x, y);
    s = 0;
    for (int i = 0; i < m; i++) s += y[i] * (i + 1) + x[i] * (i + 2);
    printf("swap %.17g\n", s);
    add_bias(m, y, x);                  /* the raised code */
    add_bias(m, y, NULL);               /* NULL: the original, which returns */
    s = 0;
    for (int i = 0; i < m; i++) s += y[i] * (i + 1);
    printf("bias %.17g\n", s);
    saxpy(40, 0.5f, u, v);              /* disjoint: the raised code */
    saxpy(40, 0.5f, v, v + 1);          /* overlapping: the original */
    double t = 0;
    for (int i = 0; i < 64; i++) t += (double)v[i] * (i + 1);
    printf("saxpy %.9g\n", t);
    printf("fallbacks %lu\n", &__synth_cc_fallbacks ? __synth_cc_fallbacks : 0UL);
    return 0;
}
"""


# these tests are about the raised path (the wrapper, the cache, the overlap check): one
# target, and the raise used even where the quick timing finds the original faster (their
# functions run for a microsecond: the timing is a coin toss); tests/test_cc_timing.py
# tests the choice
RAISE = ("--target", "linalg", "--keep-slower")


def synth_cc(*args, cwd, timeout=600):
    return subprocess.run([*SYNTH, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=ENV,
                          timeout=timeout)


def values(output: str) -> dict:
    return {line.split()[0]: float(line.split()[1]) for line in output.splitlines()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The program built by cc and by synth cc (kernels.c compiled alone with -c, then
    main.c compiled and linked with that object), and again by synth cc (the cache)."""
    d = tmp_path_factory.mktemp("cc")
    (d / "kernels.c").write_text(KERNELS)
    (d / "main.c").write_text(MAIN)
    cache = d / "cache"
    subprocess.run(["cc", "-O2", "kernels.c", "main.c", "-o", "prog_cc"], cwd=d, check=True)
    out = {"dir": d, "steps": []}
    for build in ("first", "again"):
        k = synth_cc("-O2", "-c", "kernels.c", "-o", f"kernels_{build}.o", "--cache-dir", cache,
                     "--report", f"kernels_{build}.json", *RAISE, cwd=d)
        m = synth_cc("-O2", "main.c", f"kernels_{build}.o", "-o", f"prog_{build}", "--cache-dir", cache,
                     "--report", f"main_{build}.json", "--jobs", "1", *RAISE, cwd=d)
        out["steps"].append((k, m))
        assert k.returncode == 0 and m.returncode == 0, k.stderr + m.stderr
    out["cc"] = subprocess.run([str(d / "prog_cc")], capture_output=True, text=True, check=True).stdout
    out["synth"] = subprocess.run([str(d / "prog_first")], capture_output=True, text=True, check=True).stdout
    return out


def _report(built, name):
    return {e["function"]: e for e in json.loads((built["dir"] / name).read_text())["functions"]}


def test_outputs_agree_with_cc(built):
    cc, synth = values(built["cc"]), values(built["synth"])
    assert synth["gemv"] == pytest.approx(cc["gemv"], rel=1e-12)
    assert synth["saxpy"] == cc["saxpy"]  # the raise is exact here; the fallback is the original
    assert synth["swap"] == pytest.approx(cc["swap"], rel=1e-12)
    assert synth["bias"] == pytest.approx(cc["bias"], rel=1e-12)


def test_each_function_is_reported(built):
    kernels, main = _report(built, "kernels_first.json"), _report(built, "main_first.json")
    assert kernels["gemv"]["status"] == "raised" and kernels["gemv"]["verification"] == "all"
    assert kernels["gemv"]["checked"].startswith("outputs equal to the original's")
    assert kernels["halve_until_small"]["status"] == "kept"
    assert kernels["swap"]["status"] == "raised"
    assert kernels["add_bias"]["status"] == "raised"
    assert "'while'" in kernels["halve_until_small"]["reason"]
    assert main["saxpy"]["status"] == "raised"  # a static function
    assert set(main["saxpy"]["timing"]["ms"]) == {"as written", "linalg"}  # timed against the original too
    assert "main" not in main
    k, m = built["steps"][0]
    assert "gemv: raised to linalg, proven for every size" in k.stderr
    assert "halve_until_small: kept as written" in k.stderr
    assert "saxpy: raised to linalg" in m.stderr


def test_overlapping_or_null_arguments_take_the_original(built):
    assert values(built["synth"])["fallbacks"] == 2  # saxpy's overlap, add_bias's NULL
    assert values(built["cc"])["fallbacks"] == 0  # cc's program has no counter


def test_rebuild_hits_the_cache(built):
    again = {**_report(built, "kernels_again.json"), **_report(built, "main_again.json")}
    assert again["gemv"]["cached"] and again["saxpy"]["cached"]
    first = {**_report(built, "kernels_first.json"), **_report(built, "main_first.json")}
    assert not first["gemv"]["cached"] and not first["saxpy"]["cached"]
    out = subprocess.run([str(built["dir"] / "prog_again")], capture_output=True, text=True).stdout
    assert out == built["synth"]


def test_a_changed_unit_reuses_its_unchanged_functions(built):
    d = built["dir"]
    (d / "kernels_changed.c").write_text(KERNELS + "\nint unrelated(int a)\n{\n    return a + 1;\n}\n")
    p = synth_cc("-O2", "-c", "kernels_changed.c", "--cache-dir", d / "cache", "--report", "changed.json", *RAISE,
                 cwd=d)
    assert p.returncode == 0, p.stderr
    report = _report(built, "changed.json")
    assert report["gemv"]["cached"] and report["gemv"]["status"] == "raised"
    assert not report["unrelated"]["cached"]


def test_objects_need_no_mlir_runtime(built):
    d = built["dir"]
    nm = subprocess.run(["nm", "-u", str(d / "kernels_first.o")], capture_output=True, text=True).stdout
    undefined = {line.split()[-1] for line in nm.splitlines() if line.strip()}
    assert undefined <= {"malloc", "free", "memcpy", "memset"}  # memrefCopy, where used, is compiled in
    defined = subprocess.run(["nm", "--defined-only", str(d / "kernels_first.o")], capture_output=True,
                             text=True).stdout
    assert " T gemv\n" in defined and "_mlir_ciface___synth_" in defined
    ldd = subprocess.run(["ldd", str(d / "prog_first")], capture_output=True, text=True).stdout
    assert "mlir" not in ldd and "python" not in ldd


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cc_cache")


@pytest.mark.parametrize("std", ["c89", "gnu11"])
def test_rewritten_units_are_warning_clean(tmp_path, std, shared_cache):
    flags = [f"-std={std}", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2"]
    src = ROOT / "tests" / "data" / "cc_warnings.c"
    subprocess.run(["cc", *flags, str(src), "-o", "cc_prog"], cwd=tmp_path, check=True)
    p = synth_cc(*flags, src, "-o", "synth_prog", "--cache-dir", shared_cache, *RAISE, cwd=tmp_path)
    assert p.returncode == 0 and "did not compile" not in p.stderr, p.stderr
    assert p.stderr.count("raised to linalg") == 2, p.stderr
    cc = subprocess.run(["./cc_prog"], capture_output=True, text=True, cwd=tmp_path).stdout
    synth = subprocess.run(["./synth_prog"], capture_output=True, text=True, cwd=tmp_path).stdout
    assert synth == cc


def test_bad_input_is_refused_with_exit_2(tmp_path):
    (tmp_path / "k.c").write_text(KERNELS)
    p = synth_cc("--target", "tosa", "k.c", cwd=tmp_path)
    assert p.returncode == 2 and "--target takes linalg or stablehlo" in p.stderr and "Traceback" not in p.stderr
    p = synth_cc("-c", "missing.c", cwd=tmp_path)
    assert p.returncode == 2 and "missing.c: error: no such file" in p.stderr
    p = synth_cc("-c", "k.c", "--raise", "nosuch", "--cache-dir", tmp_path / "c", cwd=tmp_path)
    assert p.returncode == 2 and "nosuch" in p.stderr


def test_compiler_errors_keep_the_compilers_exit_code(tmp_path):
    (tmp_path / "bad.c").write_text("void f(int n, double *x) {\n  for (int i = 0; i < n; i++) x[i] = y;\n}\n")
    p = synth_cc("-c", "bad.c", "--cache-dir", tmp_path / "c", cwd=tmp_path)
    q = subprocess.run(["cc", "-c", "bad.c"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == q.returncode != 0
    assert "bad.c:2:" in p.stderr and "Traceback" not in p.stderr


def test_no_raise_keeps_a_function(tmp_path):
    (tmp_path / "k.c").write_text(KERNELS)
    p = synth_cc("-c", "k.c", "--no-raise", "gemv", "--raise", "gemv,halve_until_small", "--cache-dir",
                 tmp_path / "c", "--report", "r.json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    functions = [e["function"] for e in json.loads((tmp_path / "r.json").read_text())["functions"]]
    assert functions == ["halve_until_small"]
    defined = subprocess.run(["nm", "--defined-only", "k.o"], capture_output=True, text=True, cwd=tmp_path).stdout
    assert "synth" not in defined  # nothing raised: the unit as cc builds it


POLYBENCH_MAIN = r"""
#include <stdio.h>
#include "polybench.h"
#define N 40
#define M 30
void kernel_atax(int m, int n, DATA_TYPE POLYBENCH_2D(A, M, N, m, n), DATA_TYPE POLYBENCH_1D(x, N, n),
                 DATA_TYPE POLYBENCH_1D(y, N, n), DATA_TYPE POLYBENCH_1D(tmp, M, m));
static double A[M][N], x[N], y[N], tmp[M];
int main(void)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = (double)((i + j) % N) / (5.0 * M);
    for (int j = 0; j < N; j++) x[j] = 1.0 + j / (double)N;
    kernel_atax(M, N, A, x, y, tmp);
    double s = 0;
    for (int j = 0; j < N; j++) s += y[j] * (j + 1);
    printf("atax %.17g\n", s);
    return 0;
}
"""


def test_polybench_kernel_builds_and_agrees(tmp_path):
    pb = ROOT / "benchmarks" / "polybench-c"
    (tmp_path / "main.c").write_text(POLYBENCH_MAIN)
    flags = ["-O2", "-I", str(pb), "-DMINI_DATASET", "-DN=40", "-DM=30"]
    subprocess.run(["cc", *flags, str(pb / "atax.c"), "main.c", "-o", "cc_prog"], cwd=tmp_path, check=True)
    p = synth_cc(*flags, str(pb / "atax.c"), "main.c", "-o", "synth_prog", "--cache-dir", tmp_path / "c",
                 "--report", "r.json", *RAISE, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    report = {e["function"]: e for e in json.loads((tmp_path / "r.json").read_text())["functions"]}
    assert report["kernel_atax"]["status"] == "raised", report["kernel_atax"]
    cc = values(subprocess.run(["./cc_prog"], capture_output=True, text=True, cwd=tmp_path).stdout)
    synth = values(subprocess.run(["./synth_prog"], capture_output=True, text=True, cwd=tmp_path).stdout)
    assert synth["atax"] == pytest.approx(cc["atax"], rel=1e-12)
