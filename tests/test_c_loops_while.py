"""C around its loops (benchmarks/c-libs/loops_while.c): while and do loops that count,
quick returns at the top of a function, subscripts through local index variables.

The translation of every function of the file equals gcc's in tests/test_c_libs.py (at
the manifest's sizes, with them left free, and at other sizes); here: the quick returns
taken (the scalars, or sizes, at the values that end the function early) and a do loop
that runs once, against gcc (tests/c_oracle.py); raises to both targets against gcc,
with the sizes given and left free, and with the early path taken; what stays refused,
at its file:line:col."""

from __future__ import annotations

import re

import numpy as np
import pytest
from c_oracle import (
    Case,
    assert_same,
    inputs,
    load_cases,
    mlir_signature,
    raised_outputs,
    run_c,
    run_translation,
    shapes_of,
    signature,
)
from conftest import ROOT

from synth.backends.cc import compiler
from synth.errors import InputError
from synth.frontend.c import translate_c

CORPUS = ROOT / "benchmarks" / "c-libs"
CASES = {c.function: c for c in load_cases(CORPUS) if c.path.name == "loops_while.c"}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def _variant(name: str, sizes: dict | None = None, ranges: dict | None = None) -> Case:
    base = CASES[name]
    spec = dict(base.spec)
    spec["sizes"] = {**base.sizes, **(sizes or {})}
    spec["ranges"] = {**spec.get("ranges", {}), **(ranges or {})}
    return Case(base.path, name, spec)


ZERO, ONE = [0.0, 0.0], [1.0, 1.0]
# the early paths taken: on scalars (data: the function-level select), on sizes (the
# affine.if), and a do loop whose body runs once
TAKEN = [
    ("gemv_ref", None, {"alpha": ZERO}),  # y = beta * y, then return
    ("gemv_ref", None, {"alpha": ZERO, "beta": ONE}),  # returns at once
    ("gemv_ref", {"n": 0}, None),  # a size
    ("ger_ref", None, {"alpha": ZERO}),
    ("sdot_q", {"n": 0}, None),  # returns 0.0f
    ("scaled_asum", None, {"scale": ZERO}),  # returns 0.0
    ("axpy_walk_q", None, {"a": ZERO}),  # before the pointer walk
    ("negate_do", {"n": 1}, None),  # the body once
    ("scale_copy_n", {"n": 0}, None),  # while (n--) with n = 0
]


def _c_shapes(case: Case, params) -> dict:
    """Each array's shape at the case's sizes, from the free translation's `synth.c_shape`
    (where a size of 0 leaves the sized translation's extents unknown)."""
    text = translate_c(str(case.path), function=case.function, locations=False).text
    head = re.search(rf"func\.func @{case.function}\((.*?)\)\s*(->|attributes|\{{)", text).group(1)
    shapes = {}
    arg = r"%arg\d+: [^,{]*?(?:\{synth\.c_shape = \[([^\]]*)\]\})?(?:,|$)"
    for p, m in zip(params, re.finditer(arg, head)):
        dims = [d.strip().strip('"') for d in (m.group(1) or "?").split(",")]
        if p.array and "?" not in dims:
            shapes[p.name] = tuple(
                int(eval(d.replace("/", "//"), {"__builtins__": {}}, dict(case.sizes))) for d in dims)
    return shapes


@pytest.mark.parametrize("name,sizes,ranges", TAKEN,
                         ids=[f"{n}-{s or ''}-{sorted(r) if r else ''}" for n, s, r in TAKEN])
def test_early_paths_equal_compiled_c(name, sizes, ranges):
    case = _variant(name, sizes, ranges)
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(3))
    want = run_c(case, params, result, args, "-O2")
    shapes = _c_shapes(case, params)
    sized = run_translation(case, params, args, sizes=True, shapes=shapes)
    assert_same(case, "C -O2 vs translation at --size", params, result, want, sized)
    shapes = {**shapes_of(sized[2], name, params), **shapes}
    free = run_translation(case, params, args, sizes=False, shapes=shapes)
    assert_same(case, "C -O2 vs translation", params, result, want, free)


def test_what_the_loops_become():
    """A counted while loop is an affine.for over its iterations (no memory counter); a
    quick return on data is selects, on sizes an affine.if; an unsigned do loop's count
    that needs its counter to start at 1 says so."""
    path = str(CASES["vec_mul_blk"].path)
    blk = translate_c(path, function="vec_mul_blk", locations=False).text
    assert blk.count("affine.for") == 1 and "memref.alloca" not in blk and "memref<?xf32>" in blk
    gemv = translate_c(path, function="gemv_ref", locations=False).text
    assert "affine.if" in gemv and "arith.select" in gemv and "arith.cmpf oeq" in gemv
    mat = translate_c(path, function="mat_shift_q15", locations=False).text
    assert "numCols - 1 >= 0 (where the 'do' loop at line" in mat
    fixed = translate_c(path, function="mat_shift_q15", sizes={"numRows": 5, "numCols": 9},
                        locations=False).text
    assert "wraps around" not in fixed  # decided at the sizes given
    # a stencil through `int c = j * nx + i` reads u as a 2-d array, as u[j * nx + i] would be
    heat = translate_c(path, function="heat_interior", locations=False).text
    assert 'memref<?x?xf64> {synth.c_shape = ["ny", "nx"]}' in heat


def _raise_and_compare(case: Case, target: str, free: bool, seed: int = 5):
    from synth.pipeline import RaiseOptions, raise_function

    source = translate_c(str(case.path), function=case.function, sizes=None if free else case.sizes)
    outcome = raise_function(source, case.function, target, RaiseOptions())
    params, result = signature(case)
    sig = mlir_signature(translate_c(str(case.path), function=case.function, locations=False,
                                     sizes=case.sizes).text, case.function)
    args = inputs(case, params, np.random.default_rng(seed))
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    assert_same(case, f"raised {target}", params, result, run_c(case, params, result, args, "-O2"), got)
    return outcome, case, params, result, sig


RAISED = [
    ("vec_mul_blk", True, "blkCnt = blockSize; while (blkCnt > 0U): pointer walks, every size"),
    ("scale_copy_n", False, "while (n--) *dst++ = a * *src++"),
    ("heat_interior", True, "int c = j * nx + i; u[c - nx] ..., every size"),
    pytest.param("row_totals", False, "nested while (r-- > 0) / while (c-- > 0)",
                 marks=pytest.mark.slow),
    pytest.param("saxpy_idx", True, "while (i < n) { ...; i++; }", marks=pytest.mark.slow),
    pytest.param("dot_blk", False, "a returned sum over a while loop", marks=pytest.mark.slow),
    pytest.param("mat_shift_q15", False, "nested do { } while (--col)", marks=pytest.mark.slow),
    pytest.param("sdot_q", False, "if (n <= 0) return 0.0f;", marks=pytest.mark.slow),
    pytest.param("row_diff", True, "int row = i * m, prev = row - m: b[row + j] = a[prev + j] ...",
                 marks=pytest.mark.slow),
    pytest.param("lap3d", True, "3-d stencil through c and plane = nx * ny", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name,free,what", RAISED,
                         ids=[r.values[0] if hasattr(r, "values") else r[0] for r in RAISED])
def test_raise_equals_compiled_c(name, free, what, target):
    _raise_and_compare(CASES[name], target, free)


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_quick_return_on_data_raises_both_paths(target):
    """ger_ref's `if (m <= 0 || n <= 0 || alpha == 0.0f) return;`: one raised function
    for both paths (the update, or A unchanged), checked with alpha random and zero."""
    case = CASES["ger_ref"]
    outcome, case, params, result, sig = _raise_and_compare(case, target, False)
    zero = _variant("ger_ref", None, {"alpha": ZERO})
    args = inputs(zero, params, np.random.default_rng(6))
    got = raised_outputs(outcome.module, zero, params, args, target, sig)
    assert_same(zero, f"raised {target}, alpha = 0", params, result,
                run_c(zero, params, result, args, "-O2"), got)


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_quick_return_on_data_is_raised_as_written(target):
    """axpy_walk_q's `if (a == 0.0f) return;` stays a select in the raise (`!(a == 0)` read
    as the select with its branches swapped), not `y + 0 * x`, which real arithmetic calls
    equal but IEEE does not: with a = 0, an inf in x and a -0.0 in y, the raise leaves y
    bit for bit as the C does (y + 0 * inf would be NaN, -0.0 + 0 * x would be +0.0)."""
    outcome, case, params, result, sig = _raise_and_compare(CASES["axpy_walk_q"], target, False)
    raised = outcome.module.split("func.func @axpy_walk_q(")[0]
    assert "stablehlo.select" in raised or "arith.select" in raised
    zero = _variant("axpy_walk_q", None, {"a": ZERO})
    args = inputs(zero, params, np.random.default_rng(7))
    args["x"][0], args["y"][1] = np.inf, -0.0
    want = run_c(zero, params, result, {k: np.copy(v) for k, v in args.items()}, "-O2")[0]["y"]
    got = raised_outputs(outcome.module, zero, params, args, target, sig)[0]["y"]
    assert np.signbit(want[1]) and np.asarray(got, dtype=np.float32).tobytes() == want.tobytes()


REFUSED = """#include <math.h>
void bisect(double *x, int n)
{
    for (int i = 0; i < n; i++) {
        double lo = 0.0, hi = x[i];
        while (hi - lo > 1e-9)
            hi = 0.5 * (lo + hi);
        x[i] = hi;
    }
}
int first_negative(const float *x, int n)
{
    int i = 0;
    while (i < n) {
        if (x[i] < 0.0f)
            return i;
        i++;
    }
    return -1;
}
void packed_rows(int n, const float *ap, float *x)
{
    int i = 0;
    while (i < n) {
        int k = 0;
        while (k <= i) { x[i] += *ap++; k++; }
        i++;
    }
}
void growing_rows(int n, int m, float *p)
{
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < m) { *p++ = 0.0f; k++; }
        m++;
    }
}
void halve_steps(float *x, int n)
{
    int k = n;
    while (k > 1) {
        x[k] = 0.0f;
        k = k / 2;
    }
}
"""


@pytest.mark.parametrize("function,needle,words", [
    ("bisect", "while (hi", ["'while' loop whose exit depends on data", "hi - lo > 1e-09"]),
    ("first_negative", "return i;", ["'return' before the end"]),
    ("halve_steps", "while (k > 1)", ["'while' loop that does not count", "'k'", "same amount"]),
    # the inner loop's count changes with the enclosing loop (review: its pointer walk was
    # read with the count at the enclosing loop's entry, ap0 + t instead of ap0 + t(t+1)/2)
    ("packed_rows", "while (k <= i)", ["'ap'", "depends on 'i', which the enclosing loop changes"]),
    ("growing_rows", "while (k < m)", ["'p'", "depends on 'm', which the enclosing loop changes"]),
])
def test_refused_with_the_construct(tmp_path, function, needle, words):
    _assert_refused_at(tmp_path / "refused_loops.c", REFUSED, function, needle, words)


def _assert_refused_at(path, source: str, function: str, needle: str, words: list) -> None:
    """Translating `function` of `source` (written to `path`) exits 2 at the first line
    holding `needle`, its column, with each of `words` in the message."""
    path.write_text(source)
    with pytest.raises(InputError) as e:
        translate_c(str(path), function=function)
    assert e.value.exit_code == 2
    lines = source.splitlines()
    line = next(n for n, text in enumerate(lines, 1) if needle in text)
    assert e.value.location == f"{path}:{line}:{lines[line - 1].index(needle) + 1}", str(e.value)
    for w in words:
        assert w in e.value.message, e.value.message


EDGES = """void edges(const double *u, double *unew, int nx, int ny, double k)
{
    for (int i = 0; i < nx; i++) {
        unew[i] = u[i];
        unew[(ny - 1) * nx + i] = u[(ny - 1) * nx + i];
    }
    for (int j = 0; j < ny; j++) {
        unew[j * nx] = u[j * nx];
        unew[j * nx + nx - 1] = u[j * nx + nx - 1];
    }
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < nx - 1; i++) {
            int c = j * nx + i;
            unew[c] = u[c] + k * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0 * u[c]);
        }
}
"""


def test_last_column_at_run_time_sizes(tmp_path):
    """`u[j * nx + nx - 1]` with nx left free is u[j][nx - 1] (not [j + 1][-1]): the stencil
    and its edges read u as one 2-d array at every size, equal to gcc."""
    path = tmp_path / "edges.c"
    path.write_text(EDGES)
    case = Case(path, "edges", {"sizes": {"nx": 7, "ny": 6},
                                "arrays": {"u": "nx*ny", "unew": "nx*ny"}})
    free = translate_c(str(path), function="edges", locations=False).text
    assert free.count("memref<?x?xf64>") >= 2 and re.search(r", symbol\(%\d+\) - 1\]", free)
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(4))
    want = run_c(case, params, result, args, "-O2")
    sized = run_translation(case, params, args, sizes=True)
    assert_same(case, "C -O2 vs translation at --size", params, result, want, sized)
    got = run_translation(case, params, args, sizes=False, shapes=shapes_of(sized[2], "edges", params))
    assert_same(case, "C -O2 vs translation", params, result, want, got)


AFTER = """void after(int n, float *y)
{
    int i = 4;
    while (i < n) { y[i] = 1.0f; i++; }
    y[i] = 0.0f;
}
"""


def test_values_after_a_while_loop_that_may_not_run_are_an_assumption(tmp_path):
    """After `while (i < n)` from i = 4, i is n only where n >= 4 (at n = 2 it stays 4): the
    translation reads it as n and says so, unless the sizes show n - 4 >= 0."""
    path = tmp_path / "after.c"
    path.write_text(AFTER)
    text = translate_c(str(path), function="after").text
    assert "n - 4 >= 0 (where the values after the 'while' loop at line 4" in text
    text = translate_c(str(path), function="after", sizes={"n": 9}).text
    assert "after the 'while' loop" not in text


GUARDED = """void guarded_div(int n, const int *x, const int *y, int *z)
{
    if (x[0] == 0 || y[0] / x[0] > 2) return;
    for (int i = 0; i < n; i++) z[i] = y[i];
}
void stepped_in_condition(int n, const float *x, float *z)
{
    if (x[0] > 0 || n-- == 5) return;
    for (int i = 0; i < n; i++) z[i] = x[i];
}
"""


@pytest.mark.parametrize("function,needle,words", [
    ("guarded_div", "y[0] / x[0]", ["integer division 'y[0] / x[0]'", "guarded"]),
    ("stepped_in_condition", "n-- == 5", ["'n-- == 5' changes a variable"]),
])
def test_quick_return_conditions_not_evaluated_as_c_does_are_refused(tmp_path, function, needle, words):
    """A quick return's parts on data are all evaluated before either path (not as C's
    `||`): a part that changes a variable, or an integer division an earlier part may
    guard, is refused at its place."""
    _assert_refused_at(tmp_path / "guarded.c", GUARDED, function, needle, words)
