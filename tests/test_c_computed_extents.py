"""Extents of arrays read at indices no affine subscript gives, for every size (issue 53):
reads at an index C computes by integer division (`src[i / 2]`, `src[i * sn / dn]`, through
a local set once per row, `int s = (2 * i + 1) * sn / (2 * dn);`), a table's rows at ids
read from data (`emb[tok[i]][j]` of `float emb[V][d]`: V a size symbol of its own), and
extents that are multiples of a quotient of sizes (a 2x2 downsampling reads 2 * (h / 2)
rows: the quotient a size symbol q0 the raise computes) or products of sizes (a flat
image's sw * sh, a loop over n * k: a product symbol). Each raise for every size is run
against gcc at the manifest's sizes and at larger ones; mutants of the computed index are
refuted.
The translations of resample.c are checked against gcc by tests/test_c_libs.py."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import (Case, assert_refused_at, assert_same, inputs, load_cases, raise_for_every_size_equals_compiled_c,
                      run_c, run_translation, signature)
from conftest import ROOT

from synth.analysis.model import load_kernel
from synth.backends.cc import compiler
from synth.errors import InputError
from synth.frontend.c import translate_c

CORPUS = ROOT / "benchmarks" / "c-libs"
CASES = {f"{c.path.stem}:{c.function}": c for c in load_cases(CORPUS)
         if c.path.name in ("resample.c", "bytes.c", "lookup.c", "bounds.c", "loops_while.c")}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def _model(name: str):
    case = CASES[name]
    return load_kernel(translate_c(str(case.path), function=case.function), case.function).sizes


def _ints(shape) -> tuple:
    return tuple(int(d) for d in shape)


def test_a_computed_index_takes_the_extent_the_front_end_bounds():
    up = _model("bytes:upsample2_f32")  # src[i / 2], i < 2n: n
    n = up.params[2]
    assert [str(e) for e in up.arg_dims[0]] == [n] and [str(e) for e in up.arg_dims[1]] == [f"2*{n}"]
    exact = _model("resample:resample_exact_1d_f32")  # (2i + 1) * sn / (2dn) through a local: sn
    assert [str(e) for e in exact.arg_dims[0]] == [exact.params[1]]


def test_a_table_of_declared_rows_makes_its_row_count_a_size():
    model = _model("lookup:embed_rows")  # emb[V][d]: V bounds no loop, a symbol of its own
    v, d = model.params[1], model.params[2]
    assert [str(e) for e in model.arg_dims[4]] == [v, d]
    assert v in model.unknown()


def test_a_multiple_of_a_quotient_is_an_extent_of_a_quotient_symbol():
    model = _model("bounds:downsample2_u8")  # rows 2 * (h / 2), columns 2 * (w / 2) reached
    assert [str(e) for e in model.arg_dims[2]] == ["2*q0", "2*q1"]
    assert [str(e) for e in model.arg_dims[3]] == ["q0", "q1"]
    assert {n: str(e) for n, e in model.floordivs.items()} == {"q0": f"({model.params[1]}) floordiv 2",
                                                                "q1": f"({model.params[0]}) floordiv 2"}
    values = model.with_quotients({model.params[0]: 9, model.params[1]: 7})
    assert _ints(model.shape(2, values)) == (6, 8) and _ints(model.shape(3, values)) == (3, 4)
    conv = _model("bounds:conv1d_stride2")  # x reaches k + 2 * ((n - k) / 2)
    n, k = conv.params[0], conv.params[1]
    assert [str(e) for e in conv.arg_dims[2]] == [f"{k} + 2*q0"]
    assert _ints(conv.shape(2, {n: 15, k: 4})) == (14,)
    assert _ints(conv.shape(2, {n: 15, k: 4, "q0": 100})) == (14,)  # never a stale q0


EVERY_SIZE = ["bytes:upsample2_f32", "lookup:embed_rows", "resample:resample_nearest_1d_f32",
              "resample:repeat2_local_f64", "resample:resample_exact_1d_f32",
              "resample:resample_stereo_s16", "bounds:downsample2_u8", "bytes:repeat_each_f64",
              "bytes:resize_nearest_f32", "bytes:resize_nearest_rgb_u8", "bytes:resize_nearest_exact_f32",
              "resample:resize_nn_rows_f32", "resample:get_rows_f32", "bytes:upsample2_nearest_u8"]
DEFAULT = [("resample:resample_exact_1d_f32", "stablehlo"), ("lookup:embed_rows", "linalg"),
           ("bounds:downsample2_u8", "stablehlo"), ("resample:resize_nn_rows_f32", "linalg")]


@pytest.mark.parametrize("name,target", DEFAULT + [
    pytest.param(n, t, marks=pytest.mark.slow) for n in EVERY_SIZE for t in ("stablehlo", "linalg")
    if (n, t) not in DEFAULT])
def test_raise_for_every_size_equals_compiled_c(name, target):
    raise_for_every_size_equals_compiled_c(CASES[name], target)


@pytest.mark.parametrize("name,find,mutant", [
    # src[i / 3] for src[i / 2]
    ("bytes:upsample2_f32", "dense<2> : tensor<i32>", "dense<3> : tensor<i32>"),
    # src[i * sn / sn] = src[i] for src[i * sn / dn]
    ("resample:resample_nearest_1d_f32", "stablehlo.divide %5, %6", "stablehlo.divide %5, %4"),
    # src row y * sh / sh = y for y * sh / dh (a product extent, sw * sh)
    ("resample:resize_nn_rows_f32", "stablehlo.divide %11, %12", "stablehlo.divide %11, %10"),
    # src[2y][2x] twice for src[2y][2x] + src[2y][2x + 1] (extents 2 * q0, 2 * q1)
    ("bounds:downsample2_u8", "dense<[0, 1]> : tensor<2xi64>", "dense<[0, 0]> : tensor<2xi64>"),
])
def test_mutants_of_the_computed_index_are_refuted(tmp_path, name, find, mutant):
    from synth.pipeline import RaiseOptions, raise_function
    from synth.validation.verify import verify

    case = CASES[name]
    text = raise_function(translate_c(str(case.path), function=case.function), case.function,
                          "stablehlo", RaiseOptions()).module
    head = text[text.index(f"@{case.function}_raised("):]
    body = head[:head.index("return")]
    assert body.count(find) == 1, body
    (tmp_path / "raised.mlir").write_text(text.replace(body, body.replace(find, mutant)))
    report = verify(case.path, tmp_path / "raised.mlir", function=case.function, level="z3")
    assert report.verdict == "not equivalent", report.summary()


def test_a_product_of_sizes_is_a_product_symbol():
    """OpenCV's resizeNN over a flat image reads sw * sh elements, np.repeat's loop runs
    over n * k: each product a symbol of its own (p0, m0), its value computed from the
    sizes wherever the model evaluates extents."""
    model = _model("resample:resize_nn_rows_f32")
    sw, sh = model.params[1], model.params[2]
    assert [str(e) for e in model.arg_dims[0]] == ["p0"]
    assert model.products == {"p0": ((tuple(sorted((sw, sh))), 1),)}
    values = {n: 3 + k for k, n in enumerate(sorted(model.symbols))}
    assert _ints(model.shape(0, values)) == (values[sw] * values[sh],)
    rep = _model("bytes:repeat_each_f64")
    assert [str(e) for e in rep.arg_dims[1]] == ["m0"] and ("0", "m0") in [tuple(map(str, x)) for x in rep.nonempty]
    assert _ints(rep.shape(1, {rep.params[2]: 4, rep.params[3]: 5, "m0": 1})) == (20,)


def test_a_local_changed_after_its_division_is_no_computed_index(tmp_path):
    """`int sy = y * sh / dh;` read after `sy++`: no longer its initialiser's value, refused
    (exit 2) at the subscript, as a value computed at run time."""
    src = ("void f(const float *src, int sw, int sh, float *dst, int dw, int dh)\n"
           "{\n"
           "    for (int y = 0; y < dh; y++) {\n"
           "        int sy = y * sh / dh;\n"
           "        sy++;\n"
           "        for (int x = 0; x < dw; x++)\n"
           "            dst[y * dw + x] = src[sy * sw + x];\n"
           "    }\n"
           "}\n")
    assert_refused_at(tmp_path / "moved.c", src, "f", "src[sy * sw + x]", ["'sy'"])


def test_a_row_id_in_a_local_reads_the_ids_at_the_lookup(tmp_path):
    """ggml's get_rows: `int r = ids[i];` of `const int *ids` read by `table[r][j]` is the
    lookup at ids[i] itself (as `emb[tok[i]][j]`), so it raises as a gather; a local from
    ids the function writes (no const) stays a value in memory, and the translation equals
    gcc where ids[i] is cleared between the read and the lookup."""
    case = CASES["resample:get_rows_f32"]
    text = translate_c(str(case.path), function=case.function).text
    assert text.count("affine.load %arg3[%arg6]") == 2 and "memref.load %arg4[%" in text
    src = (
        "void rows_then_clear(int n, int d, int V, int *ids, const float table[V][d], float *out)\n"
        "{\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        int r = ids[i];\n"
        "        ids[i] = 0;\n"
        "        for (int j = 0; j < d; j++)\n"
        "            out[i * d + j] = table[r][j];\n"
        "    }\n"
        "}\n")
    c = tmp_path / "rows_then_clear.c"
    c.write_text(src)
    spec = {"sizes": {"n": 5, "d": 4, "V": 7}, "arrays": {"ids": "n", "table": "V*d", "out": "n*d"},
            "ranges": {"ids": [1, 6]}}
    clear = Case(c, "rows_then_clear", spec)
    params, result = signature(clear)
    args = inputs(clear, params, np.random.default_rng(3))
    got = run_translation(clear, params, args, sizes=True)
    assert_same(clear, "translation", params, result, run_c(clear, params, result, args, "-O2"), got[:2])


def test_the_extent_needs_the_c_names_of_the_sizes(tmp_path):
    """The C front end's extents name C parameters (`n`); where it reads an array at
    computed indices it writes each integer parameter's name (`synth.c_name`), so an MLIR
    file without locations (`synth translate`, synth cc) still relates them; without the
    names (its `%arg2` names no parameter) the extent is not taken: exit 2, never a guess."""
    from synth.frontend.reader import load_source

    case = CASES["bytes:upsample2_f32"]
    text = translate_c(str(case.path), function=case.function, locations=False).text
    assert 'synth.c_shape = ["n"]' in text and '{synth.c_name = "n"}' in text
    path = tmp_path / "up.mlir"
    path.write_text(text)
    model = load_kernel(load_source(path), case.function).sizes
    assert [str(e) for e in model.arg_dims[0]] == [model.params[2]]
    path.write_text(text.replace(' {synth.c_name = "n"}', ""))
    with pytest.raises(InputError) as e:
        load_kernel(load_source(path), case.function)
    assert e.value.exit_code == 2 and "no loop index reaches it" in e.value.message
    assert "c_name" not in translate_c(str(CASES["bounds:downsample2_u8"].path), function="downsample2_u8").text


DROPIN_MAIN = r"""
#include <stdio.h>
void resize_nn_rows_f32(const float *src, int sw, int sh, float *dst, int dw, int dh);
void downsample2_u8(int w, int h, const unsigned char *src, unsigned char *dst);
int main(void)
{
    static float src[40 * 30], dst[50 * 45];
    static unsigned char img[33 * 27], half[16 * 13];
    for (int i = 0; i < 40 * 30; i++) src[i] = (float)((i * 37) % 101) / 7.0f;
    for (int i = 0; i < 33 * 27; i++) img[i] = (unsigned char)((i * 53) % 251);
    double s = 0;
    int sizes[2][4] = {{7, 5, 11, 4}, {40, 30, 23, 45}};  /* up and down */
    for (int k = 0; k < 2; k++) {
        int sw = sizes[k][0], sh = sizes[k][1], dw = sizes[k][2], dh = sizes[k][3];
        resize_nn_rows_f32(src, sw, sh, dst, dw, dh);
        for (int i = 0; i < dw * dh; i++) s += dst[i] * (i % 13 + 1);
    }
    downsample2_u8(33, 27, img, half);  /* odd sizes: the last row and column unread */
    for (int i = 0; i < 16 * 13; i++) s += half[i] * (i % 7 + 1);
    downsample2_u8(8, 6, img, half);
    for (int i = 0; i < 4 * 3; i++) s += half[i] * (i % 5 + 1);
    printf("sum %.17g\n", s);
    return 0;
}
"""


@pytest.mark.slow
def test_dropin_serves_products_and_quotients_at_any_size(tmp_path):
    """synth cc with the raises for every size of a product extent (resizeNN's sw * sh)
    and of quotient extents (a 2x2 downsampling at odd sizes): the program prints what the
    one gcc built prints, at sizes up and down."""
    import os
    import subprocess
    import sys

    (tmp_path / "resample.c").write_text((CORPUS / "resample.c").read_text())
    (tmp_path / "bounds.c").write_text((CORPUS / "bounds.c").read_text())
    (tmp_path / "main.c").write_text(DROPIN_MAIN)
    files = ["resample.c", "bounds.c", "main.c"]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run(["cc", "-O2", *files, "-lm", "-o", "prog_cc"], cwd=tmp_path, check=True)
    p = subprocess.run([sys.executable, "-m", "synth.cli", "cc", "-O2", *files, "-lm", "-o", "prog",
                        "--raise", "resize_nn_rows_f32", "--raise", "downsample2_u8", "--target", "linalg",
                        "--keep-slower", "--cache-dir", str(tmp_path / "cache"), "--report", "report.json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "report.json").read_text().count('"raised"') >= 2
    want = subprocess.run([str(tmp_path / "prog_cc")], capture_output=True, text=True, check=True).stdout
    got = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    assert got == want


@pytest.mark.parametrize("target", ["stablehlo", pytest.param("linalg", marks=pytest.mark.slow)])
def test_uint16_sizes_raise_for_every_size(target):
    """CMSIS-DSP's `uint16_t numRows, numCols` are sizes (the loops' bounds): mat_shift_q15
    raises for every size; the raise reads them off the arrays' dims, never from a 16-bit
    argument's value (C reads a uint16_t unsigned; the drop-in's domain check sends a size
    of 32768 or more to the original loops)."""
    from synth.grammar.dims import kernel_sources

    case = CASES["loops_while:mat_shift_q15"]
    kernel = load_kernel(translate_c(str(case.path), function=case.function), case.function)
    assert sorted(kernel.sizes.params) == [2, 3]
    kernel.sizes.with_test_values()
    assert {s.kind for s in kernel_sources(kernel, range(kernel.n_arguments)).values()} == {"dim"}
    raise_for_every_size_equals_compiled_c(case, target)


def test_a_quotient_of_a_fixed_size_stays_out_of_the_proven_sizes():
    """TSVC's s127 half (`int m = LEN / 2; a[i + m] = ...`): its loop bound makes a quotient
    symbol of the array's extent, `(n256) floordiv 2`, which the size model evaluates with
    the sizes; the proven sizes written on the raise name the size symbols only (the
    quotient as an attribute name made the emitted module unparsable, exit 1)."""
    from synth.pipeline import RaiseOptions, raise_function

    source = translate_c(str(CORPUS / "tsvc.c"), function="s127_half")
    for target in ("stablehlo", "linalg"):
        outcome = raise_function(source, "s127_half", target, RaiseOptions())
        assert "synth.sizes_proven = [{n256 = 2 : i64}" in outcome.module, outcome.module[:600]
        assert "floordiv" not in outcome.module.split("synth.sizes_proven")[1].split("]")[0]
