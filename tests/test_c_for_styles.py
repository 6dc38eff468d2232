"""C as libraries write it, part two (issue 53): `for` loops without an initialisation or an
increment (`int i = 0; for (; i < n; ++i)`, OpenCV's `for (; height--; src += sstep)`,
`for (int j = 0; j < n;) { ...; j++; }`), the tail of an unrolled loop counting on from the
main loop's final index (`for (i = 0; i + 4 <= n; i += 4) {...} for (; i < n; i++)`), and
C99's classification macros (`isnan`, `isinf`, `isfinite`) as float comparisons, so that
NumPy's clip with NaN passing through reads.

Each function of tests/data/c/for_styles.c is translated with its sizes given and left
free, and run against the same function compiled by the system C compiler (-O0 and -O2,
tests/c_oracle.py) on random inputs with NaN and infinities where the kernel classifies
them (and where it calls fmax / fmin: a NaN argument gives the other one, arith.maxnumf);
the ones that raise are raised to both targets and run against the compiled C."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import assert_refused_at, Case, assert_same, inputs, run_c, run_translation, shapes_of, signature
from conftest import DATA

from synth.backends.cc import compiler
from synth.errors import InputError
from synth.frontend.c import translate_c

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")

SOURCE = DATA / "c" / "for_styles.c"
SPECS = {
    "from_before": [{"sizes": {"n": 9}, "arrays": {"x": "n", "y": "n"}}],
    "scale_tail": [{"sizes": {"n": 11}, "arrays": {"x": "n", "y": "n"}},
                   {"sizes": {"n": 12}, "arrays": {"x": "n", "y": "n"}},
                   {"sizes": {"n": 2}, "arrays": {"x": "n", "y": "n"}}],
    "dot_tail": [{"sizes": {"n": 10}, "arrays": {"x": "n", "y": "n"}},
                 {"sizes": {"n": 3}, "arrays": {"x": "n", "y": "n"}}],
    "add_rows": [{"sizes": {"step1": 9, "step2": 8, "step": 10, "width": 7, "height": 4},
                  "arrays": {"src1": "height*step1", "src2": "height*step2", "dst": "height*step"}},
                 {"sizes": {"step1": 4, "step2": 5, "step": 4, "width": 4, "height": 3},
                  "arrays": {"src1": "height*step1", "src2": "height*step2", "dst": "height*step"}}],
    "sub_rows": [{"sizes": {"step1": 9, "step2": 8, "step": 10, "width": 7, "height": 4},
                  "arrays": {"src1": "height*step1", "src2": "height*step2", "dst": "height*step"}}],
    "rows_tail": [{"sizes": {"m": 4, "n": 5}, "arrays": {"a": "m*n", "b": "m*n"}}],
    "odd_tail": [{"sizes": {"n": 7}, "arrays": {"a": "n+2"}},
                 {"sizes": {"n": 8}, "arrays": {"a": "n+2"}}],
    "copy_count": [{"sizes": {"n": 6}, "arrays": {"x": "n", "y": "n"}}],
    "ones_from": [{"sizes": {"n": 8, "i": 3}, "arrays": {"a": "n"}}],
    "ones_stepped_inside": [{"sizes": {"n": 5}, "arrays": {"a": "n"}}],
    "clip_nan": [{"sizes": {"n": 16}, "arrays": {"x": "n", "y": "n"}, "ranges": {"x": [-2, 2]},
                  "special": {"x": [1, 5, 9]}}],
    "nan_to_zero": [{"sizes": {"n": 12}, "arrays": {"x": "n", "y": "n"},
                     "special": {"x": [0, 4, 7]}}],
    "scale_rows": [{"sizes": {"nr": 4, "nc": 5, "nb1": 24}, "arrays": {"src": "nr*nb1//4",
                                                                     "dst": "nr*nb1//4"}}],
    "add_planes": [{"sizes": {"ne0": 3, "ne1": 4, "ne2": 2, "nb1": 16, "nb2": 64, "nb01": 12,
                              "nb02": 48},
                    # two strides given apart: views at the caller's strides (nb2 / 4, nb1 / 4, 1)
                    "arrays": {"a": "ne2*nb02//4", "b": "ne2*nb02//4", "dst": "ne2*nb2//4"}},
                   {"sizes": {"ne0": 3, "ne1": 4, "ne2": 2, "nb1": 16, "nb2": 64, "nb01": 20,
                              "nb02": 88},
                    "arrays": {"a": "ne2*nb02//4", "b": "ne2*nb02//4", "dst": "ne2*nb2//4"}}],
    "vec_mad": [{"sizes": {"n": 21}, "arrays": {"x": "n", "y": "n"}},
                {"sizes": {"n": 16}, "arrays": {"x": "n", "y": "n"}}],
    "low_bits": [{"sizes": {"n": 11}, "arrays": {"x": "n", "y": "n"}},
                 {"sizes": {"n": 3}, "arrays": {"x": "n", "y": "n"}}],
    "relu_cap": [{"sizes": {"n": 12}, "arrays": {"x": "n", "y": "n"}, "special": {"x": [0, 3, 5]}}],
    "classes": [{"sizes": {"n": 12}, "arrays": {"x": "n", "y": "n"},
                 "special": {"x": [1, 2, 3, 6, 8, 10]}}],
}
CASES = [(name, k) for name, specs in SPECS.items() for k in range(len(specs))]
_SPECIAL = (np.nan, np.inf, -np.inf)


def _inputs(case, params, seed):
    args = inputs(case, params, np.random.default_rng(seed))
    for name, at in case.spec.get("special", {}).items():  # NaN, +inf, -inf in turn
        for j, k in enumerate(at):
            args[name][k] = _SPECIAL[j % 3]
    return args


@pytest.mark.parametrize("name,k", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_translation_equals_compiled_c(name, k):
    case = Case(SOURCE, name, dict(SPECS[name][k]))
    params, result = signature(case)
    args = _inputs(case, params, 21 + k)
    sized = run_translation(case, params, args, sizes=True)
    for opt in ("-O0", "-O2"):
        want = run_c(case, params, result, args, opt)
        assert_same(case, f"C {opt} vs translation at --size", params, result, want, sized)
    if "free_sizes_refused" in case.spec:
        with pytest.raises(InputError, match=case.spec["free_sizes_refused"]):
            run_translation(case, params, args, sizes=False)
        return
    free = run_translation(case, params, args, sizes=False, shapes=shapes_of(sized[2], name, params))
    assert_same(case, "C -O2 vs translation", params, result,
                run_c(case, params, result, args, "-O2"), free)
    if "special" in case.spec:  # infinities make assert_same's tolerance infinite: exactly
        for p in params:
            if p.array:
                np.testing.assert_array_equal(np.asarray(free[0][p.name]).reshape(-1),
                                              np.asarray(want[0][p.name]).reshape(-1), err_msg=p.name)


def _function(text: str, name: str) -> str:
    start = text.index(f"func.func @{name}(")
    end = text.find("func.func @", start + 1)
    return text[start:end if end > 0 else len(text)]


def test_what_the_loops_become():
    """The tail runs over the index's values from the main loop's final one (4 * (n / 4),
    computed once at the entry); the classification macros are comparisons."""
    text = translate_c(str(SOURCE), locations=False, skip_unsupported=True).text  # (add_planes)
    tail = _function(text, "scale_tail")
    assert "arith.divsi" in tail and "step 4" in tail and "memref.alloca" not in tail
    assert tail.count("affine.for") == 2 and "to %0 {" in tail  # the tail ends at n
    # i after the main loop, 4 * (n / 4), counts its iterations as (n - 3 + 3) / 4
    assert "n >= 0 (where 'i' is read after the loop at line 16" in tail
    assert "arith.cmpf uno" in _function(text, "clip_nan")
    rows = _function(text, "sub_rows")  # over x's values: x = 0 to width - 3 step 4, the tail
    assert "step 4" in rows and "arith.divsi" in rows
    classes = _function(text, "classes")
    assert "math.absf" in classes and "arith.cmpf olt" in classes  # isfinite: |x| < inf
    rows = _function(text, "add_rows")
    assert rows.count("affine.for") == 3 and "scf." not in rows  # height--: a loop over rows


RAISED = [  # (add_rows, odd_tail translate; their raise finds no program: exit 3)
    ("scale_tail", "unrolled by four with its tail: rerolled and fused"),
    ("sub_rows", "OpenCV's rows: height--, the steps in the header, unrolled with a tail"),
    ("clip_nan", "NaN passes through: the validation tests NaN and infinities"),
    ("copy_count", "pointers and the count stepped in the header, no initialisation"),
    ("scale_rows", "rows by their byte stride (ggml)"),
    pytest.param("add_planes", "planes and rows by byte strides, padded rows written",
                 marks=pytest.mark.slow),
    pytest.param("dot_tail", "four partial sums and a tail", marks=pytest.mark.slow),
    pytest.param("from_before", "counter set before the loop", marks=pytest.mark.slow),
    pytest.param("rows_tail", "a tail in each row", marks=pytest.mark.slow),
    pytest.param("ones_from", "from a parameter", marks=pytest.mark.slow),
    pytest.param("ones_stepped_inside", "no increment", marks=pytest.mark.slow),
    pytest.param("nan_to_zero", "isnan in an if", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name,what", RAISED,
                         ids=[r.values[0] if hasattr(r, "values") else r[0] for r in RAISED])
def test_raise_equals_compiled_c(name, what, target):
    from c_oracle import mlir_signature, raised_outputs

    from synth.pipeline import RaiseOptions, raise_function

    case = Case(SOURCE, name, dict(SPECS[name][0]))
    module = translate_c(str(SOURCE), function=name, sizes=case.sizes)
    outcome = raise_function(module, name, target, RaiseOptions())
    params, result = signature(case)
    sig = mlir_signature(translate_c(str(SOURCE), function=name, sizes=case.sizes,
                                     locations=False).text, name)
    args = _inputs(case, params, 5)
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    want = run_c(case, params, result, args, "-O2")
    assert_same(case, f"raised {target} ({what})", params, result, want, got)
    if "special" in case.spec:
        for p in params:
            if p.array:
                np.testing.assert_array_equal(np.asarray(got[0][p.name]).reshape(-1),
                                              np.asarray(want[0][p.name]).reshape(-1), err_msg=p.name)


def test_a_raise_that_forgets_nan_is_refuted(tmp_path):
    """The proofs' real arithmetic has no NaN (isnan is false there): `y = x` proves equal
    to nan_to_zero. The test level runs an original that classifies floats on NaN and
    infinities too, and refutes it."""
    from synth.validation.verify import verify

    original = tmp_path / "n2z.mlir"
    original.write_text(translate_c(str(SOURCE), function="nan_to_zero", sizes={"n": 12},
                                    locations=False).text)
    raised = tmp_path / "n2z.raised.mlir"
    raised.write_text(
        "func.func @nan_to_zero_raised(%n: tensor<i32>, %x: tensor<12xf64>, %y: tensor<12xf64>)"
        " -> tensor<12xf64> attributes {synth.outputs = [2]} {\n"
        "  return %x : tensor<12xf64>\n}\n")
    report = verify(original, raised, level="test")
    assert report.verdict == "not equivalent"
    assert "nonfinite" in str(report.counterexample)



NAN_FORMS = r"""#include <math.h>
void self_compare(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = (x[i] != x[i]) ? 0.0 : x[i];
}
void nan_to_inf(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = isnan(x[i]) ? INFINITY : x[i];
}
void relu_cap(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = fmaxf(x[i], 0.0f) + fminf(x[i], 1.0f);
}
"""


@pytest.mark.parametrize("function", ["self_compare", "nan_to_inf"])
def test_other_nan_tests_are_refuted_too(tmp_path, function):
    """`x != x` (two loads of one element compared) classifies floats as isnan does; and on
    NaN and infinities a value equals only the same non-finite one (+inf is not NaN)."""
    from synth.validation.verify import verify

    source = tmp_path / "nan_forms.c"
    source.write_text(NAN_FORMS)
    original = tmp_path / f"{function}.mlir"
    original.write_text(translate_c(str(source), function=function, sizes={"n": 12}, locations=False).text)
    raised = tmp_path / f"{function}.raised.mlir"
    raised.write_text(
        f"func.func @{function}_raised(%n: tensor<i32>, %x: tensor<12xf64>, %y: tensor<12xf64>)"
        " -> tensor<12xf64> attributes {synth.outputs = [2]} {\n"
        "  return %x : tensor<12xf64>\n}\n")
    report = verify(original, raised, level="test")
    assert report.verdict == "not equivalent" and "nonfinite" in str(report.counterexample)


def test_fmax_raised_as_maximum_says_nan_is_excluded(tmp_path):
    """C's fmaxf / fminf give the other operand where one is NaN (arith.maxnumf); the
    targets' maximum gives NaN. The real-arithmetic proof cannot tell them apart, so the
    raise says in synth.assumptions that no input is NaN."""
    from synth.pipeline import RaiseOptions, raise_function
    from synth.validation.testing import NUM_MAXMIN_NOTE

    source = tmp_path / "nan_forms.c"
    source.write_text(NAN_FORMS)
    module = translate_c(str(source), function="relu_cap", sizes={"n": 16})
    assert "arith.maxnumf" in module.text
    outcome = raise_function(module, "relu_cap", "stablehlo", RaiseOptions())
    assert NUM_MAXMIN_NOTE in outcome.module

REFUSED = r"""void forever(int n, double *a)
{
    for (int i = 0;; i++)
        a[i] = 1.0;
}
void after_data(int n, const double *x, double *a)
{
    int i = 0;
    while (x[i] > 0.0)
        i++;
    for (; i < n; i++)
        a[i] = 1.0;
}
void misaligned(int n, const float *src, float *dst)
{
    const float *x = (const float *)((const char *)src + 2);
    for (int i = 0; i < n; i++)
        dst[i] = x[i];
}
void as_double(int n, const float *src, double *dst)
{
    const double *x = (const double *)((const char *)src + 8);
    for (int i = 0; i < n; i++)
        dst[i] = x[i];
}
void bytes_of_image(int n, const unsigned char *img, float *dst)
{
    const float *x = (const float *)(img + 4);
    for (int i = 0; i < n; i++)
        dst[i] = x[i] + img[i];
}
"""


@pytest.mark.parametrize("function,needle,words", [
    ("forever", "for (int i = 0;;", ["'for' loop without a condition"]),
    ("after_data", "while (x[i] > 0.0)", ["'while' loop whose exit depends on data"]),
    ("misaligned", "(const float *)((const char *)src + 2)", ["moves 'src' by 2 bytes",
                                                                "f32 elements (4 bytes)"]),
    ("as_double", "(const double *)", ["reads the bytes of 'src' (f32) as another type"]),
    # (a byte pointer read only as floats is an array of floats: NumPy's loops, bytes.c)
    ("bytes_of_image", "img[i]", ["reads the bytes of 'img' as bytes", "one type only"]),
])
def test_refused_with_the_reason(tmp_path, function, needle, words):
    assert_refused_at(tmp_path / "refused_for.c", REFUSED, function, needle, words)
