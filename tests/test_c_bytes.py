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
computed by integer division of loop indices (a nearest-neighbour resize)."""

from __future__ import annotations

import importlib.util

import pytest
from c_oracle import Case, assert_refused_at, load_cases, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c

CASES = {c.function: c for c in load_cases(ROOT / "benchmarks" / "c-libs") if c.path.name == "bytes.c"}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def _grown(case: Case, k: int) -> Case:
    """The case with each size moved k times by its manifest step (a byte stride by whole
    elements, so that the C's reads stay aligned)."""
    steps = case.spec.get("size_steps", {})
    return Case(case.path, case.function,
                {**case.spec, "sizes": {n: v + k * steps.get(n, 3) for n, v in case.sizes.items()}})


def _check_raised():
    spec = importlib.util.spec_from_file_location("c_coverage", ROOT / "scripts" / "c_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.check_raised


def test_char_pointer_read_as_doubles_is_a_strided_array_of_doubles():
    case = CASES["DOUBLE_add"]
    text = translate_c(str(case.path), function=case.function).text
    head = text.split("@DOUBLE_add(")[1].split("{\n")[0]
    assert head.count("memref<?x?xf64>") == 3 and '"(is1) / 8"' in head
    for words in ("is1 is a multiple of 8", "'ip1' points to f64 elements", "1 <= (is1) / 8"):
        assert words in head, head
    sized = translate_c(str(case.path), function=case.function, sizes=case.sizes).text
    assert "memref<17x2xf64>" in sized  # ip2: 17 doubles 16 bytes apart, the first of each pair read


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
    ("void f(const float *src, int sw, int sh, float *dst, int dw, int dh)\n{\n"
     "    for (int y = 0; y < dh; y++)\n        for (int x = 0; x < dw; x++)\n"
     "            dst[y * dw + x] = src[(y * sh / dh) * sw + (x * sw / dw)];\n}\n",
     "(y * sh / dh) * sw", ["integer division of loop indices", "nearest-neighbour"]),
]


@pytest.mark.parametrize("source,needle,words", REFUSALS, ids=["args", "two_types", "misaligned", "nearest"])
def test_forms_left_out_are_refused_at_their_place(tmp_path, source, needle, words):
    assert_refused_at(tmp_path / "k.c", source, "f", needle, words)


DEFAULT = [("DOUBLE_add", "stablehlo"), ("INT_add_reduce", "linalg"), ("cv_add32f", "linalg")]
SLOW = [(f, t) for f in CASES if "refused" not in CASES[f].spec
        for t in ("stablehlo", "linalg") if (f, t) not in DEFAULT]


@pytest.mark.parametrize("name,target", DEFAULT + [pytest.param(f, t, marks=pytest.mark.slow) for f, t in SLOW])
def test_byte_strided_raise_for_every_size_equals_compiled_c(name, target):
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES[name]
    source = translate_c(str(case.path), function=name)  # sizes and strides free: shape-generic
    outcome = raise_function(source, name, target, RaiseOptions())
    assert "?" in outcome.module.split(f"@{name}_raised(")[1].split(")")[0]
    assert "is a multiple of" in outcome.module or name == "copy2d_f32"
    check = _check_raised()
    for k in (0, 2):  # at the manifest's sizes and larger ones: one raise for both
        at = _grown(case, k)
        params, result = signature(at)
        check(at, outcome.module, target, params, result)
