"""NumPy's strided loops over TYPED pointer parameters (benchmarks/c-libs/numpy_typed.c): a
`float *` parameter cast to `char *` to move by a step in bytes and back to `float *` to
read or write one element (`*(float *)((char *)out + i * os)`, a local `char *op = (char
*)out` walked by `op += os`, one set in each iteration) is read as the `char *` parameter
case is: the byte offset divided into elements (`os / 4`, "os is a multiple of 4" in
synth.assumptions, checked by the drop-in). Raised for every size to both targets and run
against gcc at the manifest's sizes and larger ones; a raise that differs is refuted;
the bytes of a typed array read as bytes or as another type are refused at their place."""

from __future__ import annotations

import pytest
from c_oracle import assert_refused_at, coverage_script, load_cases, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c

CASES = {c.function: c for c in load_cases(ROOT / "benchmarks" / "c-libs") if c.path.name == "numpy_typed.c"}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_typed_pointer_moved_in_bytes_is_a_strided_array_of_its_type(name):
    case = CASES[name]
    text = translate_c(str(case.path), function=name).text
    head = text.split(f"@{name}(")[1].split("{\n")[0]
    size = 8 if name.startswith("DOUBLE") else 4
    assert head.count("synth.c_shape_requires") == len(case.spec["arrays"]), head
    assert f") / {size}\"" in head and f"is a multiple of {size}" in head, head


@pytest.mark.parametrize("name,target", [("DOUBLE_add_cast", "stablehlo"), ("FLOAT_square_cast", "linalg"),
                                         pytest.param("DOUBLE_add_cast", "linalg", marks=pytest.mark.slow),
                                         pytest.param("FLOAT_square_cast", "stablehlo", marks=pytest.mark.slow),
                                         pytest.param("INT_negative_cast", "stablehlo", marks=pytest.mark.slow),
                                         pytest.param("INT_negative_cast", "linalg", marks=pytest.mark.slow),
                                         pytest.param("FLOAT_scale_cast", "stablehlo", marks=pytest.mark.slow),
                                         pytest.param("FLOAT_scale_cast", "linalg", marks=pytest.mark.slow)])
def test_raise_for_every_size_equals_compiled_c(name, target):
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES[name]
    outcome = raise_function(translate_c(str(case.path), function=name), name, target, RaiseOptions())
    assert "?" in outcome.module.split(f"@{name}_raised(")[1].split(")")[0]
    check = coverage_script().check_raised
    for k in (0, 2, 5):  # the strides moved by whole elements: one raise for each
        at = coverage_script().resized(case, k)
        params, result = signature(at)
        check(at, outcome.module, target, params, result)


def test_a_raise_that_differs_is_refuted():
    """The raise of DOUBLE_add_cast with its add made a subtract: validation (the tests,
    then the proofs alone) finds the difference."""
    from synth.pipeline import RaiseOptions, raise_function
    from synth.validation.verify import verify_text

    case = CASES["DOUBLE_add_cast"]
    source = translate_c(str(case.path), function="DOUBLE_add_cast")
    outcome = raise_function(source, "DOUBLE_add_cast", "stablehlo", RaiseOptions())
    raised = outcome.module.split("func.func @DOUBLE_add_cast(")[0] + "}\n"
    assert "stablehlo.add" in raised
    wrong = raised.replace("stablehlo.add", "stablehlo.subtract")
    for test_first in (True, False):
        report = verify_text(source, wrong, "wrong.mlir", test_first=test_first)
        assert report.verdict == "not equivalent", report.summary()
    assert verify_text(source, raised, "ok.mlir").verdict == "equivalent"


@pytest.mark.parametrize("source,needle,words", [
    ("void f(const float *in1, float *out, long n)\n{\n    const char *ip = (const char *)in1;\n"
     "    for (long i = 0; i < n; i++)\n        out[i] = ip[i];\n}\n",
     "ip[i];", ["bytes of 'in1' (f32) as bytes"]),
    ("void f(const float *in1, double *out, long n, long is1)\n{\n    const char *ip = (const char *)in1;\n"
     "    for (long i = 0; i < n; i++)\n        out[i] = *(const double *)(ip + i * is1);\n}\n",
     "(const double *)(ip", ["bytes of 'in1' (f32) as another type"]),
    ("void f(const float *in1, float *out, long n)\n{\n    const char *ip = (const char *)in1;\n"
     "    for (long i = 0; i < n; i++)\n        out[i] = *(const float *)(ip + 6 * i);\n}\n",
     "(const float *)(ip + 6", ["6 bytes", "not a multiple"]),
])
def test_the_bytes_of_a_typed_array_read_otherwise_are_refused(tmp_path, source, needle, words):
    assert_refused_at(tmp_path / "t.c", source, "f", needle, words)
