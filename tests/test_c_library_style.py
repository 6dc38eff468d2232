"""C as libraries write it (issue 53): `continue`, NULL tests of the arrays passed in,
comma-list loop headers that step pointers and second counters (`i++, ix += incx`), `for`
loops that count like `while` loops (`for (c = n; c--; im += plane)`), quick returns
nested in branches and in inlined helpers (`if (a > MAX) return MAX; else ...`),
comparisons of unsigned numbers (`(unsigned)r < (unsigned)n`: 0 <= r < n).

Each function is translated with its sizes given and left free, and run against the same
function compiled by the system C compiler (-O0 and -O2, tests/c_oracle.py) on random
inputs, with the branches taken both ways. What stays refused (long double, a pointer or
an index moved under a condition on data, `return` inside a loop, an index set under an
affine condition and read after it) is refused at its file:line:col with the reason."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import assert_refused_at, Case, assert_same, inputs, run_c, run_translation, shapes_of, signature

from synth.backends.cc import compiler
from synth.errors import InputError
from synth.frontend.c import translate_c

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")

SOURCE = r"""#include <stddef.h>
#include <math.h>

/* continue on data: Black-Scholes' guard for degenerate inputs */
void call_put(int n, const float *S, const float *X, float *call, float *put)
{
    for (int opt = 0; opt < n; opt++) {
        const float s = S[opt], x = X[opt];
        if (s <= 0.0f || x <= 0.0f) {
            call[opt] = 0.0f;
            put[opt] = s > x ? s : x;
            continue;
        }
        float r = logf(s / x);
        call[opt] = s > x ? r : 0.0f;
        put[opt] = s > x ? 0.0f : -r;
    }
}

/* continue on data, the usual way round */
void relu_scale(int n, float alpha, const float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        if (x[i] <= 0.0f) {
            y[i] = 0.0f;
            continue;
        }
        y[i] = alpha * x[i];
    }
}

/* continue in a counting while loop: the counter steps on both paths */
void clamp_skip(int n, const float *x, float *y)
{
    int i = 0;
    while (i < n) {
        if (x[i] > 0.5f) {
            y[i] = 0.5f;
            i++;
            continue;
        }
        y[i] = x[i];
        i++;
    }
}

/* continue on sizes, and nested under a condition on data */
void tril_scale(int n, double alpha, double *a, int lda)
{
    int i, j;
    for (j = 0; j < n; j++) {
        for (i = 0; i < n; i++) {
            if (i <= j)
                continue;
            if (a[i + j * lda] == 0.0) {
                a[j + i * lda] = -1.0;
                continue;
            }
            a[i + j * lda] *= alpha;
        }
    }
}

/* optional arrays (PyTorch, ggml): NULL tests of the pointers passed in */
void affine_rows(int n, const float *x, const float *gamma, const float *beta,
                 float *y, float *total)
{
    const int has_gamma = gamma != NULL;
    if (x == NULL || y == NULL)
        return;
    float sum = 0.0f;
    for (int i = 0; i < n; i++) {
        const float g = has_gamma ? gamma[i] : 1.0f;
        const float b = !beta ? 0.0f : beta[i];
        y[i] = x[i] * g + b;
        sum += y[i];
    }
    if (total)
        total[0] = sum;
}

/* reference BLAS: strides through comma lists in the loop header */
void daxpy_inc(int n, double da, const double *dx, int incx, double *dy, int incy)
{
    int i, ix, iy;
    if (n <= 0)
        return;
    for (i = 0, ix = 0, iy = 0; i < n; i++, ix += incx, iy += incy)
        dy[iy] += da * dx[ix];
}

/* OpenCV: rows walked by pointers in the increment */
void row_prefix(const unsigned char *src, size_t srcstep, int *dst, size_t dststep,
                int width, int height)
{
    for (int y = 0; y < height; y++, src += srcstep, dst += dststep) {
        int s = 0;
        for (int x = 0; x < width; x++) {
            s += src[x];
            dst[x] = s;
        }
    }
}

/* Caffe im2col: a for loop that counts down in its condition, a pointer in its increment */
void copy_planes(int channels, int plane, const float *im, float *col)
{
    for (int c = channels; c--; im += plane)
        for (int k = plane; k; k--)
            *col++ = 2.0f * im[plane - k];
}

/* FFmpeg: a helper that returns early, inlined in a loop */
static inline short clip16(int a)
{
    if (a > 32767)
        return 32767;
    else if (a < -32768)
        return -32768;
    return (short)a;
}

void mix_q2(int n, const short *a, const short *b, short *out)
{
    for (int i = 0; i < n; i++)
        out[i] = clip16((a[i] * 3 + b[i] * 5) >> 1);
}

/* Caffe: one test of 0 <= a < b through unsigned numbers, in a helper */
static inline int is_a_ge_zero_and_a_lt_b(int a, int b)
{
    return (unsigned)a < (unsigned)b;
}

void pad_copy(int n, int pad, const float *x, float *y)
{
    for (int i = 0; i < n + 2 * pad; i++) {
        int r = i - pad;
        if (is_a_ge_zero_and_a_lt_b(r, n))
            y[i] = x[r];
        else
            y[i] = 0.0f;
    }
}

/* an unsigned difference that wraps around below zero */
void after_first(int n, float *y)
{
    for (unsigned i = 0; i < n; i++)
        if (i - 1 < 3u)
            y[i] = 1.0f;
}

/* reference BLAS DSCAL: a quick return nested in the unit-stride branch */
void dscal_ref(int n, double da, double *dx, int incx)
{
    if (n <= 0 || incx <= 0)
        return;
    if (incx == 1) {
        int m = n % 3;
        if (m != 0) {
            for (int i = 0; i < m; i++)
                dx[i] = da * dx[i];
            if (n < 3)
                return;
        }
        for (int i = m; i < n; i += 3) {
            dx[i] = da * dx[i];
            dx[i + 1] = da * dx[i + 1];
            dx[i + 2] = da * dx[i + 2];
        }
    } else {
        for (int i = 0, ix = 0; i < n; i++, ix += incx)
            dx[ix] = da * dx[ix];
    }
}
"""

SPECS = {
    "call_put": [{"sizes": {"n": 24}, "arrays": {"S": "n", "X": "n", "call": "n", "put": "n"},
                  "ranges": {"S": [-0.5, 2.0], "X": [-0.5, 2.0]}}],
    "relu_scale": [{"sizes": {"n": 33}, "arrays": {"x": "n", "y": "n"}}],
    "clamp_skip": [{"sizes": {"n": 20}, "arrays": {"x": "n", "y": "n"}}],
    "tril_scale": [{"sizes": {"n": 6, "lda": 7}, "arrays": {"a": "lda*n"},
                    "ranges": {"a": [-2, 2]}}],
    "affine_rows": [{"sizes": {"n": 9},
                     "arrays": {"x": "n", "gamma": "n", "beta": "n", "y": "n", "total": "1"}}],
    "daxpy_inc": [{"sizes": {"n": 7, "incx": 2, "incy": 3},
                   "arrays": {"dx": "1+(n-1)*incx", "dy": "1+(n-1)*incy"}},
                  {"sizes": {"n": 1, "incx": 1, "incy": 1}, "arrays": {"dx": "1", "dy": "1"}}],
    "row_prefix": [{"sizes": {"srcstep": 9, "dststep": 8, "width": 7, "height": 5},
                    "arrays": {"src": "height*srcstep", "dst": "height*dststep"}}],
    "copy_planes": [{"sizes": {"channels": 3, "plane": 5},
                     "arrays": {"im": "channels*plane", "col": "channels*plane"}}],
    "mix_q2": [{"sizes": {"n": 40}, "arrays": {"a": "n", "b": "n", "out": "n"},
                "ranges": {"a": [-20000, 20000], "b": [-20000, 20000]}}],
    "pad_copy": [{"sizes": {"n": 6, "pad": 2}, "arrays": {"x": "n", "y": "n+2*pad"}}],
    "after_first": [{"sizes": {"n": 8}, "arrays": {"y": "n"}}],
    "dscal_ref": [{"sizes": {"n": 8, "incx": 1}, "arrays": {"dx": "n"}},
                  {"sizes": {"n": 2, "incx": 1}, "arrays": {"dx": "n"}},  # the nested return
                  {"sizes": {"n": 5, "incx": 2}, "arrays": {"dx": "1+(n-1)*incx"}}],
}
CASES = [(name, k) for name, specs in SPECS.items() for k in range(len(specs))]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    path = tmp_path_factory.mktemp("library_style") / "library_style.c"
    path.write_text(SOURCE)
    return path


@pytest.mark.parametrize("name,k", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_translation_equals_compiled_c(source, name, k):
    case = Case(source, name, dict(SPECS[name][k]))
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(11 + k))
    if name == "tril_scale":  # some zeros: the branch on data taken
        args["a"][::4] = 0.0
    sized = run_translation(case, params, args, sizes=True)
    for opt in ("-O0", "-O2"):
        want = run_c(case, params, result, args, opt)
        assert_same(case, f"C {opt} vs translation at --size", params, result, want, sized)
    free = run_translation(case, params, args, sizes=False,
                           shapes=shapes_of(sized[2], name, params))
    assert_same(case, "C -O2 vs translation", params, result,
                run_c(case, params, result, args, "-O2"), free)


def test_what_the_constructs_become(source):
    """A continue on data is selects (no scf), on sizes an affine.if; NULL tests are
    decided and said in synth.assumptions; a comma-list increment is a closed form (no
    counter in memory); the helper's early returns are selects into its result."""
    text = translate_c(str(source), locations=False).text
    call_put = _function(text, "call_put")
    assert "arith.select" in call_put and "scf." not in call_put and "affine.if" not in call_put
    assert "affine.if" in _function(text, "tril_scale")
    rows = _function(text, "affine_rows")
    for name, test in (("x", "x == NULL"), ("y", "y == NULL"), ("gamma", "gamma != NULL"),
                       ("beta", "!beta"), ("total", "total")):
        assert f"{name} is not NULL (the translation takes every pointer parameter as an " \
               f"array: '{test}' at line" in rows, name
    assert "arith.cmpf" not in rows.split("affine.for")[0]  # no run-time test of a pointer
    daxpy = _function(text, "daxpy_inc")
    assert "memref.alloca" not in daxpy and "1 <= incx (where 'dx[ix]' is read as" in daxpy
    assert "memref.alloca" not in _function(text, "copy_planes")
    # (unsigned)r < (unsigned)n is 0 <= r < n: the read of x only where r is in range
    pad = _function(text, "pad_copy")
    assert "affine.if" in pad and "arith.select" not in pad and "n >= 0 (where" in pad


def test_unsigned_difference_that_may_be_negative_is_assumed_not(tmp_path):
    """`(unsigned)i < (unsigned)(n - m)`: below zero n - m wraps to a huge number and every
    i passes; read as i < n - m only with n - m >= 0 in synth.assumptions (it was read so
    with no assumption: at n = 3, m = 5 the C copies a, the translation doubled it)."""
    path = tmp_path / "u.c"
    path.write_text("void u2(int n, int m, const double *a, double *b)\n{\n"
                    "    for (int i = 0; i < n; i++)\n"
                    "        if ((unsigned)i < (unsigned)(n - m)) b[i] = a[i]; else b[i] = 2.0 * a[i];\n}\n")
    text = translate_c(str(path), locations=False).text
    assert "n - m >= 0 (where '(unsigned int) i < (unsigned int) (n - m)'" in text


def _function(text: str, name: str) -> str:
    start = text.index(f"func.func @{name}(")
    end = text.find("func.func @", start + 1)
    return text[start:end if end > 0 else len(text)]


REFUSED = r"""#include <stddef.h>
double ld_mean(int n, const double *x)
{
    long double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return (double)(s / n);
}
void widen(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = (double)((long double)x[i] * 3);
}
void pack_positive(int n, const float *x, float *out)
{
    for (int i = 0; i < n; i++)
        if (x[i] > 0.0f)
            *out++ = x[i];
}
void bucket(int n, const float *x, float *y)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.0f)
            k++;
        y[k] = x[i];
    }
}
void size_branch(int n, float *a)
{
    int k = 0;
    if (n > 5)
        k = 2;
    a[k] = 1.0f;
}
static int first_negative(const float *x, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i] < 0.0f)
            return i;
    return n;
}
void cut(int n, const float *x, float *y)
{
    y[0] = first_negative(x, n);
}
int needs_workspace(int n, float *x, float *work)
{
    if (work == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        x[i] = 2.0f * x[i];
    return 0;
}
void skip_in_switch(int n, int *a)
{
    for (int i = 0; i < n; i++) {
        switch (a[i]) { case 0: continue; default: a[i] = 1; }
    }
}
void forever(int n, double *a)
{
    for (int i = 0;; i++)
        a[i] = 1.0;
}
void from_unset(int n, double *a)
{
    int i;
    for (; i < n; i++)
        a[i] = 1.0;
}
"""


@pytest.mark.parametrize("function,needle,words", [
    ("ld_mean", "s = 0;", ["type 'long double' is not supported",
                                  "no tensor element type in the targets"]),
    ("widen", "(long double)x[i]", ["'long double'", "no tensor element type"]),
    ("pack_positive", "x[i] > 0.0f)\n            *out", ["pointer 'out'",
                                                     "changes under a condition"]),
    ("bucket", "k] = x[i]", ["'k' is a variable computed at run time",
                               "changes under a condition"]),
    ("cut", "return i;", ["'return' before the end"]),
    ("needs_workspace", "work == NULL", ["tests a pointer parameter the function never "
                                         "reads or writes through"]),
    ("skip_in_switch", "switch (a[i])", ["'continue' inside a 'switch'"]),
    ("forever", "for (int i = 0;;", ["'for' loop without a condition is not"]),
    ("from_unset", "i < n; i++)\n        a[i] = 1.0;\n}\n", ["'i' is read where its value is",
                                                             "unknown"]),
])
def test_refused_with_the_reason(tmp_path, function, needle, words):
    assert_refused_at(tmp_path / "refused_library_style.c", REFUSED, function, needle, words)


RAISED = [  # (mix_q2 translates, but its raise finds no program: exit 3)
    ("relu_scale", "continue on data"),
    ("call_put", "continue on a guard of two comparisons joined by ||, logf"),
    ("affine_rows", "NULL tests decided, a quick return that disappears"),
    ("daxpy_inc", "comma-list increments"),
]


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name,what", RAISED,
                         ids=[r.values[0] if hasattr(r, "values") else r[0] for r in RAISED])
def test_raise_equals_compiled_c(source, name, what, target):
    from c_oracle import mlir_signature, raised_outputs

    from synth.pipeline import RaiseOptions, raise_function

    case = Case(source, name, dict(SPECS[name][0]))
    module = translate_c(str(source), function=name, sizes=case.sizes)
    outcome = raise_function(module, name, target, RaiseOptions())
    params, result = signature(case)
    sig = mlir_signature(translate_c(str(source), function=name, sizes=case.sizes,
                                     locations=False).text, name)
    args = inputs(case, params, np.random.default_rng(5))
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    assert_same(case, f"raised {target} ({what})", params, result,
                run_c(case, params, result, args, "-O2"), got)
    if name == "affine_rows":  # the raise says what it took for granted
        assert any(a.startswith("gamma is not NULL") for a in outcome.validation["assumptions"])
        assert "assuming what the input assumes" in outcome.validation["summary"]


def test_too_many_continues_are_refused_at_the_first_past_the_limit(tmp_path):
    """Each `continue` copies the rest of the iteration into both sides of its `if`: nine
    in one body would be 2^9 copies; refused at the ninth (exit 2), not translated for
    minutes."""
    body = "\n".join(f"        if (x[i] > {k}.0) {{ if (x[i] > {k}.5) continue; y[i] += {k}.0; }}"
                     for k in range(9))
    path = tmp_path / "many.c"
    path.write_text("void many(int n, const double *x, double *y)\n{\n    for (int i = 0; i < n; i++) {\n"
                    + body + "\n        y[i] *= 2.0;\n    }\n}\n")
    with pytest.raises(InputError) as e:
        translate_c(str(path))
    assert e.value.exit_code == 2 and e.value.location.endswith(":12:43")  # the ninth if
    assert "more than 8 'continue' statements" in e.value.message
