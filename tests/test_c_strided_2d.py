"""Views at two run-time strides (benchmarks/c-libs/bytes.c: NumPy's matmul inner loop
`*(double *)(ip1 + m * is1_m + n * is1_n)`, a 2-d strided copy `dst + r * ds0 + c * ds1`):
neither stride divides the other, so no array shape reads the bytes; the C front end reads
each such pointer as a view [dm][dn] whose strides are the caller's (`memref<?x?xf64,
strided<[?, ?], offset: ?>>`, `synth.c_strides = ["(is1_m) / 8", "(is1_n) / 8"]`), with
what that needs in synth.assumptions and synth.c_shape_requires (strides multiples of the
element and at least 1; a written view's elements distinct), which synth cc's drop-in
checks, running the original where one fails. Raised for every size to both targets and
run against gcc at the manifest's sizes and others; a wrong raise is refuted."""

from __future__ import annotations

import pytest
from c_oracle import assert_refused_at, coverage_script, load_cases, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c

CASES = {c.function: c for c in load_cases(ROOT / "benchmarks" / "c-libs") if c.path.name == "bytes.c"}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def test_two_run_time_strides_are_a_strided_view():
    case = CASES["DOUBLE_matmul_inner"]
    text = translate_c(str(case.path), function=case.function, locations=False).text
    head = text.split("func.func @DOUBLE_matmul_inner(")[1].split("\n")[0]
    assert head.count("memref<?x?xf64, strided<[?, ?], offset: ?>>") == 3, head
    assert 'synth.c_strides = ["(is1_m) / 8", "(is1_n) / 8"]' in head
    assert '"(((os_m) / 8) >= (dp) * ((os_p) / 8)) || (((os_p) / 8) >= (dm) * ((os_m) / 8))"' in head
    assert '"(is1_n) % 8 == 0"' in head and '"((is1_n) / 8) >= 1"' in head
    assert "'op' is read as a view [dm][dp] at strides (os_m) / 8, (os_p) / 8 elements" in head
    # the written view's distinctness is not asked of the ones only read
    assert head.count("||") == 2  # once in op's requirements, once in the assumption
    # at the sizes given, the strides are constants: rows, as before
    sized = translate_c(str(case.path), function=case.function, sizes=case.sizes).text
    assert "strided<" not in sized


@pytest.mark.parametrize("name,target", [("copy2d_f32", "stablehlo"), ("DOUBLE_matmul_inner", "linalg"),
                                         pytest.param("copy2d_f32", "linalg", marks=pytest.mark.slow),
                                         pytest.param("DOUBLE_matmul_inner", "stablehlo", marks=pytest.mark.slow)])
def test_raise_for_every_size_equals_compiled_c(name, target):
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES[name]
    outcome = raise_function(translate_c(str(case.path), function=name), name, target, RaiseOptions())
    assert "?" in outcome.module.split(f"@{name}_raised(")[1].split(")")[0]
    check = coverage_script().check_raised
    for k in (0, 1, 3):  # the strides moved by whole elements: one raise for each
        at = coverage_script().resized(case, k)
        params, result = signature(at)
        check(at, outcome.module, target, params, result)


def test_a_wrong_raise_is_refuted():
    """DOUBLE_matmul_inner's raise (a dot_general of the two views) with its product
    doubled: validation refutes it, by the tests and by the proofs alone."""
    from synth.pipeline import RaiseOptions, raise_function
    from synth.validation.verify import verify_text

    case = CASES["DOUBLE_matmul_inner"]
    source = translate_c(str(case.path), function="DOUBLE_matmul_inner")
    outcome = raise_function(source, "DOUBLE_matmul_inner", "stablehlo", RaiseOptions())
    raised = outcome.module.split("func.func @DOUBLE_matmul_inner(")[0] + "}\n"
    assert "stablehlo.dot_general %arg0, %arg3" in raised, raised
    ret = raised.index("    return %0 : tensor<?x?xf64>")
    wrong = raised[:ret] + ("    %w = stablehlo.add %0, %0 : tensor<?x?xf64>\n    return %w : tensor<?x?xf64>"
                            + raised[ret + len("    return %0 : tensor<?x?xf64>"):])
    for test_first in (True, False):
        report = verify_text(source, wrong, "wrong.mlir", test_first=test_first)
        assert report.verdict == "not equivalent", report.summary()
    assert verify_text(source, raised, "ok.mlir").verdict == "equivalent"


def test_a_view_at_three_strides_with_a_unit_one(tmp_path):
    """ggml's add over planes (rows nb1 bytes apart, planes nb2, elements contiguous): a
    view [ne2][ne1][ne0] at strides nb2 / 4, nb1 / 4 and 1; the written one's elements are
    distinct where its strides nest one way or the other."""
    text = translate_c(str(ROOT / "tests" / "data" / "c" / "for_styles.c"), function="add_planes",
                       locations=False).text
    head = text.split("func.func @add_planes(")[1].split("\n")[0]
    assert head.count("memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>") == 3, head
    assert 'synth.c_strides = ["(nb2) / 4", "(nb1) / 4", "1"]' in head
    assert ('"(((nb2) / 4) >= (ne1) * ((nb1) / 4) && ((nb1) / 4) >= (ne0) * (1)) || ((1) >= (ne1) * '
            '((nb1) / 4) && ((nb1) / 4) >= (ne2) * ((nb2) / 4))"') in head


def test_an_offset_at_run_time_strides_stays_refused(tmp_path):
    source = ("void f(char *d, long s0, long s1, long n)\n{\n    for (long i = 0; i < n; i++)\n"
              "        for (long j = 0; j < n; j++)\n"
              "            *(double *)(d + i * s0 + j * s1 + 8) = 1.0;\n}\n")
    assert_refused_at(tmp_path / "v.c", source, "f", "*(double *)(d +", ["in any array shape"])


DROPIN_MAIN = r"""
#include <stdio.h>
void copy2d_f32(char *dst, long ds0, long ds1, const char *src, long ss0, long ss1, long rows, long cols);
extern unsigned long __synth_cc_fallbacks __attribute__((weak));
int main(void)
{
    float a[200], b[200];
    for (int i = 0; i < 200; i++) { a[i] = 0.25f * i; b[i] = -1.0f; }
    /* a row-major 4x5 block of rows 7 floats apart into a column-major one: the raised code */
    copy2d_f32((char *)b, 4, 16, (const char *)a, 28, 4, 4, 5);
    /* a view whose elements overlap (both strides one float): the original */
    copy2d_f32((char *)(b + 100), 4, 4, (const char *)a, 28, 4, 3, 3);
    /* a stride that is no multiple of 4 bytes: the original */
    copy2d_f32((char *)(b + 150), 8, 32, (const char *)a, 28, 6, 2, 2);
    double s = 0;
    for (int i = 0; i < 200; i++) s += b[i] * (i + 1);
    printf("sum %.17g\nfallbacks %lu\n", s, &__synth_cc_fallbacks ? __synth_cc_fallbacks : 0UL);
    return 0;
}
"""


@pytest.mark.slow
def test_dropin_passes_the_callers_strides_and_checks_the_view(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "bytes.c").write_text((ROOT / "benchmarks" / "c-libs" / "bytes.c").read_text())
    (tmp_path / "main.c").write_text(DROPIN_MAIN)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run(["cc", "-O2", "bytes.c", "main.c", "-lm", "-o", "prog_cc"], cwd=tmp_path, check=True)
    p = subprocess.run([sys.executable, "-m", "synth.cli", "cc", "-O2", "bytes.c", "main.c", "-lm", "-o", "prog",
                        "--raise", "copy2d_f32", "--target", "linalg", "--keep-slower",
                        "--cache-dir", str(tmp_path / "cache"), "--report", "report.json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert '"raised"' in (tmp_path / "report.json").read_text()
    want = subprocess.run([str(tmp_path / "prog_cc")], capture_output=True, text=True, check=True).stdout
    got = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    assert got.splitlines()[0] == want.splitlines()[0]
    assert got.splitlines()[1] == "fallbacks 2"


STRIDES_MAIN = r"""#include <stdio.h>
typedef long npy_intp;
void copy2d_f32(char *dst, long ds0, long ds1, const char *src, long ss0, long ss1, long rows, long cols);
void DOUBLE_matmul_inner(char *ip1, npy_intp is1_m, npy_intp is1_n, char *ip2, npy_intp is2_n, npy_intp is2_p,
                         char *op, npy_intp os_m, npy_intp os_p, npy_intp dm, npy_intp dn, npy_intp dp);
extern unsigned long __synth_cc_fallbacks __attribute__((weak));
#define FB (&__synth_cc_fallbacks ? __synth_cc_fallbacks : 0UL)
static float F[4096];
static double D[4096];
static void fill(void)
{
    for (int i = 0; i < 4096; i++) { F[i] = (float)(i % 97) - 40.0f; D[i] = (double)(i % 89) * 0.25 - 7.0; }
}
static double sumf(void) { double t = 0; for (int i = 0; i < 4096; i++) t += F[i] * (double)((i % 13) + 1); return t; }
static double sumd(void) { double t = 0; for (int i = 0; i < 4096; i++) t += D[i] * (double)((i % 11) + 1); return t; }
#define C2(dst, ds0, ds1, src, ss0, ss1, r, c) do { fill(); \
    copy2d_f32((char *)(dst), ds0, ds1, (const char *)(src), ss0, ss1, r, c); \
    printf("%.9g %lu\n", sumf(), FB); } while (0)
#define MM(a, a0, a1, b, b0, b1, o, o0, o1, m, n, p) do { fill(); \
    DOUBLE_matmul_inner((char *)(a), a0, a1, (char *)(b), b0, b1, (char *)(o), o0, o1, m, n, p); \
    printf("%.9g %lu\n", sumd(), FB); } while (0)
int main(int argc, char **argv)
{
    int f = argc > 1;  /* 0: copy2d_f32, 1: DOUBLE_matmul_inner */
    if (!f) C2(F + 2000, 4 * 7, 4, F + 10, 4 * 7, 4, 5, 7);        /* contiguous */
    if (!f) C2(F + 2000, 4, 4 * 5, F + 10, 4 * 7, 4, 5, 7);        /* column-major dst */
    if (!f) C2(F + 2000, 4 * 7, 4, F + 500, 4 * 7, -4, 5, 7);      /* negative src stride */
    if (!f) C2(F + 2000, 4 * 7, 4, F + 500, 0, 4, 5, 7);           /* zero src row stride: broadcast */
    if (!f) C2(F + 2000, 4 * 7, 4, F + 500, 4 * 1234, 4, 1, 7);    /* one row, wild stride */
    if (!f) C2(F + 2000, 4 * 7, 4, F + 500, 0, 4, 1, 7);           /* one row, zero stride */
    if (!f) C2(F + 14, 4 * 7, 4, F + 10, 4 * 7, 4, 5, 7);          /* dst overlaps src */
    if (!f) C2(F + 2000, 4, 4, F + 10, 4 * 7, 4, 5, 7);            /* dst elements overlap */
    if (!f) C2(F + 2000, 4, 8, F + 10, 4 * 7, 4, 3, 4);            /* dst interleaved, overlapping */
    if (!f) C2(F + 2000, 4, 12, F + 10, 4 * 7, 4, 3, 4);           /* dst column-major exactly */
    if (!f) C2(F + 2000, 4 * 7, 6, F + 10, 4 * 7, 4, 5, 7);        /* a stride not a multiple of 4 */
    if (!f) C2(F + 2000, 4 * 7, 4, F + 10, 4 * 7, 4, 5, 0);        /* no columns */
    if (!f) C2(F + 2000, 4 * 7, 4, F + 10, 4 * 7, 4, 0, 7);        /* no rows */
    if (!f) C2(F + 2000, 4 * 7, 4, F + 10, 4 * 7, 4, 1, 1);        /* one element */
    if (!f) C2(F + 2000, 0, 4, F + 10, 4 * 7, 4, 1, 7);            /* one dst row, zero stride */
    if (!f) C2(F + 2000, 4, 0, F + 10, 4, 4 * 7, 7, 1);            /* one dst column, zero stride */
    if (!f) C2(F + 2000, -28, 4, F + 10, 4 * 7, 4, 5, 7);          /* negative dst stride */
    if (!f) C2(F + 2000, 4 * 56, 4 * 7, F + 10, 4, 4 * 3, 5, 7);  /* dst rows far apart, src rows interleaved */
    if (f) MM(D, 8 * 6, 8, D + 100, 8 * 4, 8, D + 2000, 8 * 4, 8, 5, 6, 4);      /* contiguous */
    if (f) MM(D, 8, 8 * 5, D + 100, 8, 8 * 6, D + 2000, 8, 8 * 5, 5, 6, 4);      /* all column-major */
    if (f) MM(D, 8 * 6, 8, D + 100, 8 * 4, 0, D + 2000, 8 * 4, 8, 5, 6, 4);      /* B's columns broadcast */
    if (f) MM(D, 8 * 6, 8, D + 100, 8 * 4, 8, D + 20, 8 * 4, 8, 5, 6, 4);        /* out overlaps A */
    if (f) MM(D, 8 * 6, 8, D + 100, 8 * 4, 8, D + 2000, 8, 8, 5, 6, 4);          /* out overlaps itself */
    if (f) MM(D, 8 * 6, 8, D + 100, -8 * 4, 8, D + 2000, 8 * 4, 8, 5, 6, 4);     /* B walks back */
    if (f) MM(D, 8 * 6, 8, D + 100, 8 * 4, 8, D + 2000, 8 * 4, 8, 5, 0, 4);      /* no inner terms: zeros */
    if (f) MM(D, 8, 8, D + 100, 8, 8, D + 2000, 8 * 4, 8, 5, 6, 4);              /* A overlapping (read only) */
    return 0;
}
"""

# (function, lines that must run the raised code, lines that must run the original): the
# callers' strides in STRIDES_MAIN's order
STRIDE_CASES = {
    "copy2d_f32": ({0, 1, 4, 9, 13, 17},  # contiguous, column-major, one row at a wild stride, ...
                   # the src read at overlapping rows
                   {2, 3, 6, 7, 8, 10, 14, 15, 16}),  # negative, zero, overlapping, unaligned strides
    "DOUBLE_matmul_inner": ({0, 1, 7},  # contiguous, column-major, A read through overlapping rows
                            {2, 3, 4, 5}),  # B broadcast, out over A, out over itself, B backwards
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(STRIDE_CASES))
def test_dropin_at_odd_strides_equals_cc(tmp_path, name):
    """synth cc's drop-in called at strides that are negative, zero, of a dim of extent 1,
    not a multiple of the element, overlapping the other views or the written view's own
    elements, column-major, and at extents of 0: the program prints cc's values on every
    line, the raised code running where the strides are a view's and the original where
    one of the checks fails."""
    import os
    import subprocess
    import sys

    (tmp_path / "bytes.c").write_text((ROOT / "benchmarks" / "c-libs" / "bytes.c").read_text())
    (tmp_path / "main.c").write_text(STRIDES_MAIN)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run(["cc", "-O2", "bytes.c", "main.c", "-lm", "-o", "prog_cc"], cwd=tmp_path, check=True)
    p = subprocess.run([sys.executable, "-m", "synth.cli", "cc", "-O2", "bytes.c", "main.c", "-lm", "-o", "prog",
                        "--raise", name, "--target", "linalg", "--keep-slower",
                        "--cache-dir", str(tmp_path / "cache")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    args = [] if name == "copy2d_f32" else ["matmul"]
    want = subprocess.run([str(tmp_path / "prog_cc"), *args], capture_output=True, text=True, check=True).stdout
    got = subprocess.run([str(tmp_path / "prog"), *args], capture_output=True, text=True, check=True).stdout
    want, got = [ln.split() for ln in want.splitlines()], [ln.split() for ln in got.splitlines()]
    assert [w[0] for w in want] == [g[0] for g in got]
    counts = [0] + [int(g[1]) for g in got]
    fell_back = {k for k in range(len(got)) if counts[k + 1] > counts[k]}
    raised, original = STRIDE_CASES[name]
    assert not raised & fell_back and original <= fell_back, fell_back
