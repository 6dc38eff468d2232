"""The C front end (synth/frontend/c.py): PolyBench-style C kernels to affine MLIR.

Each kernel in tests/data/c/ is translated, parsed by MLIR, run through the
ExecutionEngine on random inputs against a NumPy reference, and loaded by synth's own
analysis; three of them are raised. Refusals point at the construct (FILE:LINE:COL)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import DATA
from mlir import ir

from synth.errors import InputError
from synth.execution import run_function
from synth.frontend import c as cfront
from synth.frontend.c import list_c_functions, translate_c

C = DATA / "c"
RTOL = 1e-12


def _close(got, ref, rtol=RTOL):
    ref = np.asarray(ref)
    scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * scale)


def _translate(name: str, **kw):
    source = translate_c(str(C / name), **kw)
    with ir.Context():
        module = ir.Module.parse(source.text)
        funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
        assert funcs
        text = str(module)
    assert "scf." not in text and "memref.load" not in text and "memref.store" not in text
    return source


def _rand(rng, *shape, dtype=np.float64):
    return np.ascontiguousarray(rng.uniform(-1.0, 1.0, size=shape).astype(dtype))


# --- reference implementations (written from the algorithms) -----------------------------


def _gemm(rng):
    ni, nj, nk = 20, 25, 30
    alpha, beta = 1.5, 1.2
    Cm, A, B = _rand(rng, ni, nj), _rand(rng, ni, nk), _rand(rng, nk, nj)
    args = [("i32", ni), ("i32", nj), ("i32", nk), ("f64", alpha), ("f64", beta), Cm, A, B]
    return args, {5: beta * Cm + alpha * (A @ B)}


def _atax(rng):
    m, n = 38, 42
    A, x = _rand(rng, m, n), _rand(rng, n)
    y, tmp = _rand(rng, n), _rand(rng, m)
    t = A @ x
    return [("i32", m), ("i32", n), A, x, y, tmp], {4: A.T @ t, 5: t}


def _mvt(rng):
    n = 40
    x1, x2, y1, y2, A = _rand(rng, n), _rand(rng, n), _rand(rng, n), _rand(rng, n), _rand(rng, n, n)
    return [("i32", n), x1, x2, y1, y2, A], {1: x1 + A @ y1, 2: x2 + A.T @ y2}


def _syrk(rng):
    n, m = 30, 20
    alpha, beta = 0.7, -1.3
    Cm, A = _rand(rng, n, n), _rand(rng, n, m)
    low = np.tril(np.ones((n, n), dtype=bool))
    ref = np.where(low, beta * Cm + alpha * (A @ A.T), Cm)
    return [("i32", n), ("i32", m), ("f64", alpha), ("f64", beta), Cm, A], {4: ref}


def _trmm(rng):
    m, n = 24, 28
    alpha = 1.25
    A, B = _rand(rng, m, m), _rand(rng, m, n)
    ref = alpha * (B + np.tril(A, -1).T @ B)
    return [("i32", m), ("i32", n), ("f64", alpha), A, B], {4: ref}


def _covariance(rng):
    m, n = 26, 32
    float_n = float(n)
    data = _rand(rng, n, m)
    cov, mean = _rand(rng, m, m), _rand(rng, m)
    mu = data.sum(axis=0) / float_n
    centered = data - mu
    return ([("i32", m), ("i32", n), ("f64", float_n), data, cov, mean],
            {3: centered, 4: centered.T @ centered / (float_n - 1.0), 5: mu})


def _jacobi_1d(rng):
    tsteps, n = 10, 50
    A, B = _rand(rng, n), _rand(rng, n)
    a, b = A.copy(), B.copy()
    for _ in range(tsteps):
        b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
    return [("i32", tsteps), ("i32", n), A, B], {2: a, 3: b}


def _band(rng):
    n = 36
    alpha = 0.5
    A, D = _rand(rng, n, n), _rand(rng, n, n)
    a, d = A.copy(), D.copy()
    for i in range(n):
        for j in range(n):
            a[i, j] = alpha * a[i, j] if j <= i else 0.0
            if i == j:
                a[i, j] += 1.0
            if i != j and j < n - 1:
                d[i, j] = a[i, j + 1] - a[i, j]
            else:
                d[i, j] = -a[i, j]
            if i - 2 <= j <= i + 2 and i < n - 1:
                d[i, j] *= 2.0
    return [("i32", n), ("f64", alpha), A, D], {2: a, 3: d}


def _rownorm(rng):
    n, m = 30, 40
    A, y, s = _rand(rng, n, m), _rand(rng, n), _rand(rng, n)
    ref_y = np.sqrt((A * A).sum(axis=1)) / (1.0 + np.arange(n))
    return [A, y, s], {1: ref_y, 2: np.abs(A).max(axis=1)}


def _saxpy_f32(rng):
    n, size = 50, 64  # the loop runs to the parameter n < 64: the tail stays as it was
    a = np.float32(1.75)
    x, y, z = (_rand(rng, size, dtype=np.float32) for _ in range(3))
    v = a * x[:n] + y[:n]
    ry, rz = y.copy(), z.copy()
    ry[:n] = np.where(v > 0, v, np.float32(0))
    rz[:n] = np.sqrt(np.abs(x[:n])) * np.float32(2)
    return [("i32", n), ("f32", float(a)), x, y, z], {3: ry, 4: rz}


def _intops(rng):
    n, m = 48, 20
    A = np.ascontiguousarray(rng.integers(-50, 50, size=(n, m)).astype(np.int32))
    x = np.ascontiguousarray(rng.integers(-50, 50, size=m).astype(np.int32))
    y, r, q = (np.zeros(n, dtype=np.int32) for _ in range(3))
    yy = [int(v) for v in (A.astype(np.int64) @ x.astype(np.int64))]

    def c_div(a, b):  # C truncates towards zero
        return abs(a) // b * (1 if a >= 0 else -1)

    rr = [0] * n
    for i in range(n - 1, -1, -1):
        rr[n - 1 - i] = (yy[i] - c_div(yy[i], 7) * 7) - c_div(yy[i], 3)
    qq = [0] * n
    for i in range(0, n, 2):
        qq[i], qq[i + 1] = -yy[i], i
    return ([A, x, y, r, q], {2: np.array(yy), 3: np.array(rr), 4: np.array(qq)},
            [sum(yy)])


def _dot(rng):
    x, y = _rand(rng, 100), _rand(rng, 100)
    return [x, y], {}, [float(np.dot(x, y))]


def _weighted(rng):
    n, w = 77, 0.8
    x = _rand(rng, 100)
    s = 0.0
    for i in range(n):
        s = s + np.exp(x[i]) * w ** 2 - x[i] / (i + 1)
    return [("i32", n), x, ("f64", w)], {}, [0.5 * s]


def _misc(rng):
    size, n, m, alpha = 10, 8, 5, 1.5
    A, B, T = _rand(rng, size), _rand(rng, size), _rand(rng, size, size)
    C = np.ascontiguousarray(rng.integers(-9, 9, size=size).astype(np.int32))
    a, b, c, t = A.copy(), B.copy(), C.copy(), T.copy()
    alpha *= 2.0
    for i in range(size - 1, 0, -2):
        a[i] = b[i] = float(i)
    cnt = m
    tmp = np.zeros(size)
    for i in range(n):
        tmp[i] = alpha * b[i]
        c[i] = cnt if i % 3 == 0 else -cnt
        c[i] += int(b[i] * 3.0)  # C truncates towards zero, as int() does
    for i in range(n):
        for j in range(i, n):
            t[i, j] = tmp[j] + (1.0 if i != j else 0.5)
            if i != j:
                t[j, i] = t[i - 1, j] if i > 0 else -1.0
    a[0] = 42.0
    for i in range(size):
        if not i < 3 or i == 9:
            a[i] -= 1.0
    return [("i32", n), ("i64", m), ("f64", 1.5), A, B, C, T], {3: a, 4: b, 5: c, 6: t}


KERNELS = [
    ("gemm.c", "kernel_gemm", _gemm),
    ("atax.c", "kernel_atax", _atax),
    ("mvt.c", "kernel_mvt", _mvt),
    ("syrk.c", "kernel_syrk", _syrk),
    ("trmm.c", "kernel_trmm", _trmm),
    ("covariance.c", "kernel_covariance", _covariance),
    ("jacobi_1d.c", "kernel_jacobi_1d", _jacobi_1d),
    ("band.c", "kernel_band", _band),
    ("rownorm.c", "kernel_rownorm", _rownorm),
    ("saxpy_f32.c", "kernel_saxpy_f32", _saxpy_f32),
    ("intops.c", "kernel_intops", _intops),
    ("dot.c", "dot", _dot),
    ("dot.c", "weighted", _weighted),
    ("misc.c", "kernel_misc", _misc),
]


@pytest.mark.parametrize("file,name,reference", KERNELS, ids=[k[1] for k in KERNELS])
def test_kernel_runs_like_reference(file, name, reference):
    from synth.analysis.model import load_kernel

    source = _translate(file)
    assert re.search(rf"func\.func @{name}\(", source.text)
    rng = np.random.default_rng(0)
    ref = reference(rng)
    args, expected = ref[0], ref[1]
    returned = ref[2] if len(ref) > 2 else []
    result = run_function(source.text, name, args)
    for index, want in expected.items():
        got = result.outputs[index]
        if np.issubdtype(np.asarray(want).dtype, np.integer):
            np.testing.assert_array_equal(got, want)
        else:
            _close(got, want, rtol=1e-6 if got.dtype == np.float32 else RTOL)
    assert len(result.results) == len(returned)
    for got, want in zip(result.results, returned):
        if isinstance(want, int):
            assert int(got) == want
        else:
            _close(float(got), want)
    # synth's own analysis of the MLIR accepts it
    kernel = load_kernel(source, name)
    assert kernel.name == name


def test_generated_mlir_is_affine_and_located():
    text = translate_c(str(C / "syrk.c")).text
    assert "affine.for" in text and "affine.load" in text and "affine.store" in text
    assert 'loc("' in text and "syrk.c\":15:" in text  # ops carry their C line
    plain = translate_c(str(C / "syrk.c"), locations=False).text
    assert "loc(" not in plain
    # j <= i: the inner bound is an affine map of the outer index
    assert re.search(r"affine_map<\(d0\) -> \(d0 \+ 1\)>", plain)
    # macros bound the loops: constants, not size arguments
    assert "affine.for %arg6 = 0 to 30" in plain


def test_guarded_reads_are_affine_if_with_results():
    """`i > 0 ? T[i - 1][j] : -1.0` must not read T[-1][j]: affine.if yields the value."""
    text = translate_c(str(C / "misc.c"), locations=False).text
    assert re.search(r"= affine.if #set\d*\(%arg\d+\) -> f64", text)
    assert "affine.yield" in text
    # pure operands stay an arith.select
    assert "arith.select" in text


def test_param_bounds_become_symbols():
    text = translate_c(str(C / "gemm.c"), locations=False).text
    assert text.count("arith.index_cast %arg") == 3
    assert "memref<20x25xf64>" in text and "memref<30x25xf64>" in text



def test_declared_extent_that_is_no_monomial(tmp_path):
    """`int dims[n + 1]`: a C99 parameter whose declared extent is a sum of a size and a
    constant is an array of that many elements (it was an internal error, exit 1)."""
    path = tmp_path / "chain.c"
    path.write_text("void chain(int n, int dims[n + 1], long m[n][n])\n{\n"
                    "    for (int i = 0; i < n; i++)\n        m[i][i] = dims[i] * dims[i + 1];\n}\n")
    text = translate_c(str(path), locations=False).text
    assert 'memref<?xi32> {synth.c_shape = ["n + 1"]}' in text
    dims = np.arange(2, 8, dtype=np.int32)
    m = np.zeros((5, 5), dtype=np.int64)
    got = run_function(text, "chain", [("i32", 5), dims, m]).outputs[2]
    np.testing.assert_array_equal(np.diag(got), dims[:-1].astype(np.int64) * dims[1:])


def test_rows_read_from_a_pointer_stay_within_what_it_reaches(tmp_path):
    """CMSIS-style `*p++` unrolled by 4 with its tail over n = 19 elements: rows of 4 would
    make a 5 x 4 box, one element past the array (a raise reads the box: NaN there made
    the result NaN); the pointer is read flat, 19 elements. Rows whose box ends where the
    reach does (`y[i * 8 + j]`, j < nc <= 8) stay rows."""
    path = tmp_path / "dot.c"
    path.write_text("""void dot4(const float *a, const float *b, unsigned n, float *out)
{
    float s = 0.0f;
    unsigned k = n >> 2;
    while (k > 0) {
        s += (*a++) * (*b++); s += (*a++) * (*b++); s += (*a++) * (*b++); s += (*a++) * (*b++);
        k--;
    }
    k = n % 4;
    while (k > 0) {
        s += (*a++) * (*b++);
        k--;
    }
    *out = s;
}
void rows8(int nr, int nc, const float *x, float *y)
{
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nc; j++)
            y[i * 8 + j] = 2.0f * x[i * 8 + j];
}
""")
    dot = translate_c(str(path), function="dot4", sizes={"n": 19}, locations=False).text
    assert "%arg0: memref<19xf32>" in dot and "x4xf32" not in dot
    a, b = np.arange(19, dtype=np.float32) / 7, np.ones(19, dtype=np.float32)
    got = run_function(dot, "dot4", [a, b, ("i32", 19), np.zeros(1, np.float32)]).outputs[3]
    np.testing.assert_allclose(got, [a.sum()], rtol=1e-6)
    rows = translate_c(str(path), function="rows8", sizes={"nr": 3, "nc": 5}, locations=False).text
    assert "memref<3x8xf32>" in rows

def test_list_functions_and_defines(tmp_path):
    path = str(C / "includes.c")
    assert list_c_functions(path) == ["print_array", "kernel_scale"]
    src = translate_c(path, function="kernel_scale", defines=["N=16"], locations=False)
    assert "memref<16xf64>" in src.text and "print_array" not in src.text
    # the whole file: the helper calls printf, so it is refused ...
    with pytest.raises(InputError, match="unknown function 'printf'") as e:
        translate_c(path)
    assert e.value.location.startswith(f"{path}:15:")
    # ... or left out with a note
    src = translate_c(path, skip_unsupported=True)
    assert "@kernel_scale" in src.text and "@print_array" not in src.text
    assert src.notes and "print_array" in src.notes[0]
    with pytest.raises(InputError, match="no function 'nope'"):
        translate_c(path, function="nope")


def test_includes_resolve(tmp_path):
    """stdio.h, math.h, stddef.h (the libclang wheel has no resource headers)."""
    src = translate_c(str(C / "includes.c"), function="kernel_scale")
    assert "math.sqrt" in src.text and "math.absf" in src.text


def test_shipped_headers(monkeypatch):
    """Without a system compiler, the minimal headers in synth/frontend/include serve."""
    for h in cfront.FALLBACK_HEADERS:
        assert (cfront.FALLBACK_INCLUDE / h).is_file()
    assert "memref<12xf64>" in translate_c(str(C / "freestanding.c")).text  # system headers
    # patched where _clang_args looks it up (synth/frontend/c/libclang.py)
    monkeypatch.setattr(cfront.libclang, "resource_include_dir", lambda: str(cfront.FALLBACK_INCLUDE))
    freestanding = translate_c(str(C / "freestanding.c"))
    assert "memref<12xf64>" in freestanding.text
    x = np.ascontiguousarray(np.linspace(-2, 2, 12))
    out = run_function(freestanding.text, "kernel_clip", [x, ("i32", 3)]).outputs[0]
    _close(out, x * 3.0 + 1.0)  # sizeof(size_t) == 8 on this platform
    # the C library's headers still come from the system, with the shipped stddef.h etc.
    src = translate_c(str(C / "includes.c"), function="kernel_scale", locations=False)
    assert "math.sqrt" in src.text


def _location_of(path, needle: str) -> str:
    lines = path.read_text().splitlines()
    hits = [(n, line.index(needle)) for n, line in enumerate(lines, 1) if needle in line]
    assert len(hits) == 1, needle
    n, col = hits[0]
    return f"{path}:{n}:{col + 1}"


@pytest.mark.parametrize("file,needle,words", [
    ("refuse_while.c", "while (", ["'while' loop whose exit depends on data", "A[i] > 0.0"]),
    ("refuse_call.c", "mystery(A[i])", ["unknown function 'mystery'"]),
    ("refuse_indirect.c", "B[i]]", ["data-dependent", "B[i]", "C[B[i]]"]),
    ("refuse_nonaffine.c", "i * j", ["non-affine", "i * j"]),
    ("refuse_bound.c", "len[i]", ["loop bound", "len[i]", "not affine"]),
])
def test_refusals_point_at_the_construct(file, needle, words):
    path = C / file
    with pytest.raises(InputError) as e:
        translate_c(str(path))
    assert e.value.exit_code == 2
    assert e.value.location == _location_of(path, needle), str(e.value)
    for w in words:
        assert w in e.value.message, e.value.message


def test_clang_errors(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text("void f(double a[4]) {\n  a[0] = undefined_name;\n}\n")
    with pytest.raises(InputError, match="undefined_name") as e:
        translate_c(str(bad))
    assert e.value.location == f"{bad}:2:10"
    with pytest.raises(InputError, match="no such file"):
        translate_c(str(tmp_path / "missing.c"))


def test_refused_statements(tmp_path):
    cases = {
        "do { A[0] = 0.5 * A[0]; } while (A[0] > 1.0);": "'do' loop whose exit depends on data",
        "int k = 0; while (k < 4) { A[k] = 0.0; k--; }": "does not move toward",
        "int k = 0; while (k != 3) { A[k] = 0.0; k += 2; }": "can step over",
        "unsigned k = 3; while (k >= 0) { A[k] = 0.0; k--; }": "wrap around",
        "int k = 0; while (k < 4) { if (A[k] < 0.0) break; A[k] = 0.0; k++; }": "'break'",
        "int k = 0; while (k < 4) { if (A[k] < 0.0) return; k++; }": "'return' before",
        "for (int i = 0; i < 4; i++) { if (i == 2) break; A[i] = 0.0; }": "'break'",
        "for (int i = 0; i < 4; i++) A[i] = -A[i]; return; A[0] = 1.0;": "'return' before",
        "for (int i = 0; i < 4; i++) if (A[i] > 0.0) { A[i] = 0.0; break; }": "'break'",
        "double *p = A; for (int i = 0; i < 4; i++) if (A[i] > 0.0) p++;": "under a condition",
        "for (int i = 0; i < 4; i++) { i = i + 1; }": "loop index 'i' is modified",
        "goto end; end: A[0] = 1.0;": "'goto'",
    }
    for body, words in cases.items():
        p = tmp_path / "k.c"
        p.write_text(f"void k(double A[4]) {{\n  {body}\n}}\n")
        with pytest.raises(InputError) as e:
            translate_c(str(p))
        assert words in e.value.message, (body, str(e.value))
        assert e.value.location.startswith(f"{p}:2:"), (body, str(e.value))


def test_raise_translated_kernels(tmp_path):
    """gemm, atax and a returning kernel raise to stablehlo and validate."""
    from synth.pipeline import RaiseOptions, raise_function

    for file, name in [("gemm.c", "kernel_gemm"), ("atax.c", "kernel_atax"), ("dot.c", "dot")]:
        source = translate_c(str(C / file), function=name)
        outcome = raise_function(source, name, "stablehlo", RaiseOptions())
        assert f"@{name}_raised" in outcome.module
        assert outcome.validation["summary"]


# --- C as libraries write it (benchmarks/c-libs; the oracle is tests/test_c_libs.py) ------

LIBS = DATA.parent.parent / "benchmarks" / "c-libs"
GEMV_C = """#include <stddef.h>
void gemv(int M, int N, const float *A, const float *x, float *y)
{
    for (int i = 0; i < M; i++) {
        float sum = 0;
        for (int j = 0; j < N; j++)
            sum += A[i * N + j] * x[j] * SCALE;
        y[i] = sum;
    }
}
"""


def test_size_option_and_cflags_with_a_space(tmp_path, capsys):
    from synth.cli import main

    c = tmp_path / "gemv.c"
    c.write_text(GEMV_C)
    assert main(["translate", str(c), "--size", "M=8", "--size", "N=5", "--cflags", "-DSCALE=2 -I /tmp"]) == 0
    text = capsys.readouterr().out
    assert "func.func @gemv(%arg0: i32, %arg1: i32, %arg2: memref<8x5xf32> {synth.c_shape = [\"M\", " \
           "\"N\"]}, %arg3: memref<5xf32> {synth.c_shape = [\"N\"]}, %arg4: memref<8xf32> " \
           "{synth.c_shape = [\"M\"]})" in text
    assert "arith.index_cast" not in text and "affine.for %arg5 = 0 to 8 {" in text
    assert main(["translate", str(c), "--cflags", "-DSCALE=2"]) == 0  # free sizes: dynamic
    assert "memref<?x?xf32>" in capsys.readouterr().out
    assert main(["translate", str(c), "--size", "N", "--cflags=-DSCALE=2"]) == 2
    assert "expected NAME=INTEGER" in capsys.readouterr().err
    assert main(["translate", str(c), "--function", "gemv", "--size", "Q=3", "--cflags=-DSCALE=2"]) == 2
    assert "no integer parameter 'Q'" in capsys.readouterr().err


def _assumptions(text: str, function: str) -> list[str]:
    head = re.search(rf"func\.func @{function}\(.*", text).group(0)
    m = re.search(r"synth\.assumptions = \[(.*)\]\}", head)
    return re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)) if m else []


def test_leading_dimensions_are_assumed_or_checked():
    path = str(LIBS / "darknet.c")
    free = translate_c(path, function="gemm_nn", locations=False).text
    assert '%arg4: memref<?x?xf32> {synth.c_shape = ["M", "lda"]}' in free
    assert "affine.load %arg4[%arg10, %arg11]" in free
    said = _assumptions(free, "gemm_nn")
    assert "K <= lda (where 'A[i * lda + k]' is read as A[i][k])" in said
    assert any(s.startswith("C, which the function writes, does not overlap A or B") for s in said)
    # at sizes where the rows fit, nothing to assume about them; the last row is read in part
    sized = translate_c(path, function="gemm_nn", locations=False,
                        sizes={"M": 3, "N": 4, "K": 5, "lda": 7, "ldb": 4, "ldc": 4}).text
    assert "memref<3x7xf32>" in sized and not any("lda" in s for s in _assumptions(sized, "gemm_nn"))
    # where they do not (K > lda: rows overlap), the array stays flat with affine subscripts
    flat = translate_c(path, function="gemm_nn", locations=False,
                       sizes={"M": 3, "N": 4, "K": 20, "lda": 12, "ldb": 4, "ldc": 4}).text
    assert "%arg4: memref<44xf32>" in flat and "%arg10 * 12 + %arg11" in flat
    # restrict-qualified arrays may not overlap in C: nothing assumed
    assert _assumptions(translate_c(str(LIBS / "blas1.c"), function="saxpy", locations=False).text,
                        "saxpy") == []


def test_closed_forms_of_counters_and_pointer_walks():
    tsvc = str(LIBS / "tsvc.c")
    s123 = translate_c(tsvc, function="s123", locations=False).text  # j = -1; j++; a[j] = ...
    assert "affine.for %arg4 = 0 to 128 {" in s123 and "affine.store %4, %arg0[%arg4]" in s123
    s128 = translate_c(tsvc, function="s128_pack", locations=False).text  # a[k], a[k + 1]; k += 2
    assert "%arg0: memref<128x2xf32>" in s128 and "%arg0[%arg3, 1]" in s128
    dsp = translate_c(str(LIBS / "dsp.c"), function="matmul_dsp", locations=False).text
    assert "func.func @matmul_dsp(%arg0: memref<12x10xf32>, %arg1: memref<10x8xf32>, " \
           "%arg2: memref<12x8xf32>)" in dsp
    assert "affine.load %arg1[%arg5, %arg4]" in dsp  # p_b = &B[k]; ... p_b += Z
    s122 = translate_c(tsvc, function="s122", locations=False, sizes={"n1": 1, "n3": 3}).text
    assert "affine.for %arg4 = 0 to 86 {" in s122 and "%arg1[-%arg4 + 255]" in s122


def test_conditions_on_data_are_selects():
    s271 = translate_c(str(LIBS / "tsvc.c"), function="s271", locations=False).text
    assert "arith.cmpf ogt" in s271 and "arith.select" in s271 and "scf." not in s271
    clip = translate_c(str(LIBS / "dsp.c"), function="clip", locations=False).text
    assert clip.count("arith.select") == 2  # if / else if, each a select of the element
    with pytest.raises(InputError, match="data-dependent array subscript 'k\\+\\+' in 'out\\[k\\+\\+\\]': "
                                         "'k' is a variable computed at run time \\(it changes "
                                         "under a condition, not the same way on both sides"):
        translate_c(str(LIBS / "refused.c"), function="compact_positive")


def test_eight_bit_arithmetic_follows_c():
    text = translate_c(str(LIBS / "image8.c"), function="blend_multiply", locations=False).text
    assert "memref<?xi8>" in text and "arith.extui" in text and "arith.divsi" in text \
        and "arith.trunci" in text
    text = translate_c(str(LIBS / "intk.c"), function="hash_mix", locations=False).text
    assert "arith.shrui" in text and "arith.constant -1640531535 : i32" in text


def test_a_refused_subscript_is_told_in_the_c_s_terms(tmp_path):
    """A subscript refused for reading before its array names the loops the C counts
    down or in steps in C's terms (`(n - r)`, the iteration count of the loop at line
    N), not synth's counters (`%i7`), and says where the read sits under an `if` whose
    condition does not bound it (`k < 2` lets r + k - 2 be -1). Caffe's im2col guard
    `(unsigned)row < height` bounds the read (0 <= r + k - 2 < n): that one translates."""
    path = tmp_path / "pad.c"
    source = ("void pad(int n, const float *x, float *y)\n"
              "{\n"
              "    for (int k = 0; k < 3; k++)\n"
              "        for (int r = n; r > 0; r--)\n"
              "            if ((unsigned)(r + k - 2) < (unsigned)n)\n"
              "                y[3 * r - 3 + k] = x[r + k - 2];\n"
              "}\n")
    path.write_text(source)
    assert 'synth.c_shape = ["n"]' in translate_c(str(path), function="pad").text  # x: n elements
    path.write_text(source.replace("(unsigned)(r + k - 2) < (unsigned)n", "k < 2"))
    with pytest.raises(InputError) as e:
        translate_c(str(path), function="pad", sizes={"n": 8})
    assert e.value.exit_code == 2 and e.value.location == f"{path}:6:36", str(e.value)
    message = e.value.message
    assert "reads before the start" in message and "(n - r)" in message and "%i" not in message, message
    assert "under an 'if'" in message, message
