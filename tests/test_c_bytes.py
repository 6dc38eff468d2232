"""Byte strides as NumPy's loops and OpenCV write them (benchmarks/c-libs/bytes.c): a
`char *` parameter read only through casts to one element type (`*(double *)ip1`, walked
by `ip1 += is1` bytes) is an array of that type, each byte offset divided into elements
(`is1 / 8`, "is1 is a multiple of 8" in synth.assumptions); a reduction's output at
stride 0 accumulates; OpenCV's rows `src = (const float *)((const uchar *)src + step)` walk
by `step / 4` elements. Raised with the sizes and strides left free (one raise for every
size) to both targets and run against the C compiled by gcc at the manifest's sizes and at
larger ones (each byte stride moved by whole elements). The forms left out are refused
with the reason at their place: `char **args` (NumPy's own signature), one byte array
read as two types, a byte stride that is not a multiple of the element size, an index
computed by integer division and stored to (a scatter).

An index that C computes from loop indices and sizes by integer division (a
nearest-neighbour resize's `src[(y * sh / dh) * sw + (x * sw / dw)]`, `src[i / 2]`) is
read as a table lookup at that index, the array's extent what the index reaches (`sw *
sh`, found by bounding the index over the loop nest); the raise reads it as a gather at
iota arithmetic (fixed sizes: a gather has no shape-generic form)."""

from __future__ import annotations


import numpy as np
import pytest
from c_oracle import (
    assert_refused_at,
    assert_same,
    coverage_script,
    inputs,
    load_cases,
    mlir_signature,
    raised_outputs,
    run_c,
    run_translation,
    signature,
)
from conftest import ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c

CASES = {c.function: c for c in load_cases(ROOT / "benchmarks" / "c-libs") if c.path.name == "bytes.c"}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def test_char_pointer_read_as_doubles_is_a_strided_array_of_doubles():
    case = CASES["DOUBLE_add"]
    text = translate_c(str(case.path), function=case.function).text
    head = text.split("@DOUBLE_add(")[1].split("{\n")[0]
    assert head.count("memref<?x?xf64>") == 3 and '"(is1) / 8"' in head
    for words in ("is1 is a multiple of 8", "'ip1' points to f64 elements", "1 <= (is1) / 8"):
        assert words in head, head
    sized = translate_c(str(case.path), function=case.function, sizes=case.sizes).text
    assert "memref<17x2xf64>" in sized  # ip2: 17 doubles 16 bytes apart, the first of each pair read


def test_a_contiguous_fast_path_reads_the_rows_its_strided_loop_reads():
    """NumPy's `if (is1 == sizeof(double) && ...)` branch reads `a[i]` of `double *a =
    (double *)ip1`: under is1 == 8 the derived `(is1) / 8` is 1, so a[i] is ip1[i][0], the
    element the strided loop reads at i (not ip1[0][i], which needs n <= is1 / 8)."""
    case = CASES["DOUBLE_multiply"]
    text = translate_c(str(case.path), function=case.function, locations=False).text
    assert "affine.if" in text and "[0, %arg7]" not in text and text.count("%arg0[%arg7, 0]") == 2
    assert "n <= (is1) / 8" not in text


def test_a_byte_stride_that_is_no_multiple_of_the_element_is_refused_at_size(tmp_path):
    case = CASES["DOUBLE_add"]
    from synth.errors import InputError

    with pytest.raises(InputError) as e:
        translate_c(str(case.path), function=case.function, sizes={**case.sizes, "is2": 12})
    assert e.value.exit_code == 2 and "12 bytes" in e.value.message, str(e.value)


REFUSALS = [
    ("void f(char **args, long const *steps, long const *dims)\n{\n"
     "    for (long i = 0; i < dims[0]; i++)\n        *(double *)(args[1] + i * steps[1]) = 0.0;\n}\n",
     "args, long const", ["array of byte pointers", "char *ip1, npy_intp is1"]),
    ("void f(char *p, long n)\n{\n    for (long i = 0; i < n; i++)\n"
     "        *(float *)(p + 8 * i) = (float)*(int *)(p + 8 * i + 4);\n}\n",
     "(int *)(p", ["as i32", "as f32 elsewhere", "one type only"]),
    ("void f(char *p, long n)\n{\n    for (long i = 0; i < n; i++)\n        *(double *)(p + 12 * i) = 0.0;\n}\n",
     "*(double *)(p + 12", ["12 bytes", "not a multiple"]),
    ("void f(const float *src, float *dst, int n, int k)\n{\n    for (int i = 0; i < n; i++)\n"
     "        dst[i * k / n] = src[i];\n}\n",
     "i * k / n]", ["integer division of loop indices"]),
    ("void f(const float *src, float *dst, int n)\n{\n    for (int i = 0; i < n; i++)\n"
     "        dst[i] = src[(i * i) / 2];\n}\n",
     "i * i) / 2]", ["cannot bound", "a product of loop indices"]),
]


@pytest.mark.parametrize("source,needle,words", REFUSALS, ids=["args", "two_types", "misaligned", "scatter", "square"])
def test_forms_left_out_are_refused_at_their_place(tmp_path, source, needle, words):
    assert_refused_at(tmp_path / "k.c", source, "f", needle, words)


DEFAULT = [("DOUBLE_add", "stablehlo"), ("INT_add_reduce", "linalg"), ("cv_add32f", "linalg")]
EVERY_SIZE = ("DOUBLE_add", "DOUBLE_multiply", "FLOAT_copy_while", "DOUBLE_to_FLOAT", "typed_walk",
              "FLOAT_multiply_scalar", "FLOAT_sqrt", "LONG_negative", "INT_add_reduce",
              "DOUBLE_add_accumulate", "DOUBLE_maximum_reduce", "strided_scale_f32", "strided_axpy_f64",
              "strided_dot_f64", "cv_add32f", "cv_absdiff16s")  # the others: two strides per array, or a gather
SLOW = [(f, t) for f in EVERY_SIZE for t in ("stablehlo", "linalg") if (f, t) not in DEFAULT]


@pytest.mark.parametrize("name,target", DEFAULT + [pytest.param(f, t, marks=pytest.mark.slow) for f, t in SLOW])
def test_byte_strided_raise_for_every_size_equals_compiled_c(name, target):
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES[name]
    source = translate_c(str(case.path), function=name)  # sizes and strides free: shape-generic
    outcome = raise_function(source, name, target, RaiseOptions())
    assert "?" in outcome.module.split(f"@{name}_raised(")[1].split(")")[0]
    # what the raise assumes: the strides multiples of the element (typed_walk has none: it
    # walks contiguous data; cv_absdiff16s divides its steps itself), the bytes' type
    assert "is a multiple of" in outcome.module or name in ("cv_absdiff16s", "typed_walk")
    assert "points to" in outcome.module or name.startswith("cv_")
    check = coverage_script().check_raised
    for k in (0, 2):  # at the manifest's sizes and larger ones: one raise for both
        at = coverage_script().resized(case, k)
        params, result = signature(at)
        check(at, outcome.module, target, params, result)


def test_index_by_integer_division_reads_a_table_of_the_extent_it_reaches():
    case = CASES["resize_nearest_f32"]
    text = translate_c(str(case.path), function=case.function).text
    head = text.split("@resize_nearest_f32(")[1].split("{\n")[0]
    assert 'memref<?xf32> {synth.c_shape = ["sw * sh"]}' in head and "reads data" not in head
    assert "arith.divsi" in text and "memref.load" in text
    sized = translate_c(str(case.path), function=case.function, sizes=case.sizes).text
    assert f"memref<{case.sizes['sw'] * case.sizes['sh']}xf32>" in sized


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_index_by_integer_division_raises_to_a_gather(target):
    """src[i / 2] over i < 2n at --size: the gather of src at iota / 2, proven with Z3."""
    from synth.frontend.c.translate import translate_c as translate
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES["upsample2_f32"]
    source = translate(str(case.path), function=case.function, sizes=case.sizes)
    outcome = raise_function(source, case.function, target, RaiseOptions())
    body = outcome.module.split(f"@{case.function}_raised(")[1]
    assert ("stablehlo.gather" if target == "stablehlo" else "tensor.extract") in body
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(5))
    want = run_c(case, params, result, args, "-O2")
    sig = mlir_signature(run_translation(case, params, args, sizes=True)[2], case.function)
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    assert_same(case, f"raised {target}", params, result, want, got)


DROPIN_MAIN = r"""
#include <stdio.h>
void DOUBLE_add(char *ip1, long is1, char *ip2, long is2, char *op1, long os1, long n);
extern unsigned long __synth_cc_fallbacks __attribute__((weak));
int main(void)
{
    double a[64], b[64], c[64], one = 0.5;
    for (int i = 0; i < 64; i++) { a[i] = i * 0.25; b[i] = 1.0 / (i + 1); c[i] = 0.0; }
    DOUBLE_add((char *)a, 16, (char *)b, 8, (char *)c, 8, 30);   /* strided: the raised code */
    DOUBLE_add((char *)a, 8, (char *)&one, 0, (char *)(c + 32), 8, 30);  /* a scalar at step 0: the original */
    double s = 0;
    for (int i = 0; i < 64; i++) s += c[i] * (i + 1);
    printf("sum %.17g\nfallbacks %lu\n", s, &__synth_cc_fallbacks ? __synth_cc_fallbacks : 0UL);
    return 0;
}
"""


@pytest.mark.slow
def test_dropin_runs_the_original_where_a_byte_stride_is_zero(tmp_path):
    """The drop-in passes each byte-strided array as the rows its strides make (`n` rows of
    `is1 / 8`) and falls back to the original where that reading does not hold: a step of
    0 (NumPy's scalar broadcast: no rows), a step that is no multiple of 8 (its
    synth.c_shape_requires)."""
    import os
    import subprocess
    import sys

    src = tmp_path / "bytes.c"
    src.write_text((ROOT / "benchmarks" / "c-libs" / "bytes.c").read_text())
    (tmp_path / "main.c").write_text(DROPIN_MAIN)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run(["cc", "-O2", "bytes.c", "main.c", "-lm", "-o", "prog_cc"], cwd=tmp_path, check=True)
    p = subprocess.run([sys.executable, "-m", "synth.cli", "cc", "-O2", "bytes.c", "main.c", "-lm", "-o", "prog",
                        "--raise", "DOUBLE_add", "--target", "linalg", "--keep-slower",
                        "--cache-dir", str(tmp_path / "cache"), "--report", "report.json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "report.json").read_text()
    assert '"raised"' in text, text
    want = subprocess.run([str(tmp_path / "prog_cc")], capture_output=True, text=True, check=True).stdout
    got = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    assert got.splitlines()[0] == want.splitlines()[0]
    assert got.splitlines()[1] == "fallbacks 1"


def test_a_computed_index_outside_its_array_at_chosen_sizes_is_skipped_not_a_bug(tmp_path):
    """The proofs run the original at sizes synth chose; an index the kernel computes
    (`src[i / 2]`) may leave its array there where the sizes that tie the loop to the
    table were re-instantiated apart: C's behaviour is undefined there, those sizes prove
    nothing (OutsideAtSizes, which the proofs skip), while an affine access past its array
    stays synth's internal error."""
    from synth.analysis.function import describe
    from synth.frontend.reader import load_source
    from synth.semantics.affine import execute, OutsideAtSizes, symbolic_inputs

    path = tmp_path / "k.mlir"
    path.write_text("""func.func @k(%a: memref<2xf64>, %b: memref<6xf64>) {
  %two = arith.constant 2 : i32
  affine.for %i = 0 to 6 {
    %c = arith.index_cast %i : index to i32
    %q = arith.divsi %c, %two : i32
    %k = arith.index_cast %q : i32 to index
    %v = memref.load %a[%k] : memref<2xf64>
    affine.store %v, %b[%i] : memref<6xf64>
  }
  return
}
""")
    source = load_source(path)
    kf = describe(source, "k")
    with pytest.raises(OutsideAtSizes, match=r"the index \[2\] it computes is outside"):
        execute(source, "k", symbolic_inputs(kf))
