"""C's arithmetic conversions raised (issue #53 item 6): a statement computed in double
and stored as float, int and unsigned to float, float to int, a product of sizes
converted. The sketches read each conversion as the grammar's convert op, as written, so
the raised function is the same operations in the same order as the C: its results equal
the C compiled by gcc bit for bit (an elementwise statement) on random inputs; the
sizes are left free (a raise for every size), run at the cases' sizes."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import Case, _as, assert_same, inputs, load_cases, mlir_signature, raised_outputs, run_c, signature
from conftest import DATA, ROOT

from synth.backends.cc import compiler
from synth.frontend.c import translate_c
from synth.pipeline import RaiseOptions, raise_function

CONVERSIONS = DATA / "c" / "conversions.c"
CASES = {f"conversions:{name}": Case(CONVERSIONS, name, spec) for name, spec in {
    "half": {"sizes": {"n": 37}, "arrays": {"x": "n", "y": "n"}},
    "narrow": {"sizes": {"n": 23}, "arrays": {"x": "n", "y": "n"}, "ranges": {"x": (-1e3, 1e3)}},
    "by_n": {"sizes": {"n": 29}, "arrays": {"x": "n", "y": "n"}},
    # past 2**24: float rounds the int
    "to_float": {"sizes": {"n": 31}, "arrays": {"k": "n", "y": "n"}, "ranges": {"k": (-2 ** 30, 2 ** 30)}},
    "u_to_double": {"sizes": {"n": 17}, "arrays": {"k": "n", "y": "n"}},
    "to_int": {"sizes": {"n": 41}, "arrays": {"x": "n", "y": "n"}, "ranges": {"x": (-1e3, 1e3)}},
    "scale_sizes": {"sizes": {"n": 5, "m": 7}, "arrays": {"x": "n*m", "y": "n*m"}},
    "dsdot": {"sizes": {"n": 50}, "arrays": {"x": "n", "y": "n", "r": "1"}},
    "quant": {"sizes": {"n": 19}, "arrays": {"x": "n", "q": "n"}, "ranges": {"x": (-1e3, 1e3)}},
}.items()}
DARKNET = {c.id: c for c in load_cases(ROOT / "benchmarks" / "c-libs")}
CASES["darknet:mean_cpu"] = DARKNET["darknet:mean_cpu"]
CASES["darknet:variance_cpu"] = DARKNET["darknet:variance_cpu"]

EXACT = [  # elementwise: equal to gcc's bit for bit
    ("conversions:half", "y[i] = 0.1 * x[i], float x, y: extf, mulf in double, truncf"),
    ("conversions:to_float", "(float)k[i] * 0.5f, int k: sitofp, rounded"),
    ("conversions:to_int", "(int)(x[i] * 100.0f): fptosi, truncated toward zero"),
    pytest.param("conversions:narrow", "x[i] * x[i] + 1.0 / 3.0, double x, float y", marks=pytest.mark.slow),
    pytest.param("conversions:by_n", "x[i] / n, int n: a size converted", marks=pytest.mark.slow),
    pytest.param("conversions:u_to_double", "k[i] + 0.25, unsigned k: uitofp", marks=pytest.mark.slow),
    pytest.param("conversions:scale_sizes", "float s = 1. / (n * m): the sizes' product, converted",
                 marks=pytest.mark.slow),
    pytest.param("conversions:quant", "(int)(x[i] * scale + 0.5f), float scale", marks=pytest.mark.slow),
]
# XLA divides by a constant (the size, once the program is made static) as a multiply by
# its reciprocal: equal to rounding only
XLA_ROUNDS = {("conversions:by_n", "stablehlo")}
REDUCTIONS = [  # summed in another order: equal to rounding
    pytest.param("conversions:dsdot", "double s += (double)x[i] * y[i]; *r = (float)s", marks=pytest.mark.slow),
    ("darknet:mean_cpu", "float scale = 1. / (batch * spatial), every size"),
    pytest.param("darknet:variance_cpu", "1. / (batch * spatial - 1), powf(x - mean, 2)", marks=pytest.mark.slow),
]

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def _raised_and_c(name: str, target: str):
    """The raise of a case with its sizes left free, run at the case's sizes, and the C."""
    case = CASES[name]
    outcome = raise_function(translate_c(str(case.path), function=case.function), case.function, target,
                             RaiseOptions())
    assert f"@{case.function}_raised" in outcome.module
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(7))
    sig = mlir_signature(translate_c(str(case.path), function=case.function, locations=False,
                                     sizes=case.sizes).text, case.function)
    got = raised_outputs(outcome.module, case, params, args, target, sig)
    return case, params, result, got, run_c(case, params, result, args, "-O2")


def _ids(rows):
    return [r.values[0] if hasattr(r, "values") else r[0] for r in rows]


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name,what", EXACT, ids=_ids(EXACT))
def test_conversion_raises_bit_exact(name, what, target):
    case, params, result, got, want = _raised_and_c(name, target)
    if (name, target) in XLA_ROUNDS:
        assert_same(case, f"raised {target} ({what})", params, result, want, got)
        return
    for p in params:
        if p.array:
            w = np.asarray(want[0][p.name])
            np.testing.assert_array_equal(_as(np.asarray(got[0][p.name]), w.dtype), w,
                                          err_msg=f"{case.id} raised {target} ({what}): '{p.name}'")


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name,what", REDUCTIONS, ids=_ids(REDUCTIONS))
def test_conversion_reductions_raise_for_every_size(name, what, target):
    case, params, result, got, want = _raised_and_c(name, target)
    assert_same(case, f"raised {target} ({what})", params, result, want, got)


def _raised_body(name: str) -> str:
    case = CASES[name]
    outcome = raise_function(translate_c(str(case.path), function=case.function), case.function, "stablehlo",
                             RaiseOptions())
    return outcome.module[outcome.module.index(f"@{case.function}_raised"):].split("return", 1)[0]


def test_the_double_constant_is_not_read_in_float():
    """`0.1 * x[i]` on floats: the raised program multiplies in double (0.1 is not
    0.1f: the two differ in the last bits of y), the conversions as written."""
    body = _raised_body("conversions:half")
    assert "stablehlo.multiply" in body and "tensor<?xf64>" in body
    assert "(tensor<?xf32>) -> tensor<?xf64>" in body and "(tensor<?xf64>) -> tensor<?xf32>" in body


def test_a_double_accumulator_stays_double():
    """dsdot sums float products in double: the raised contraction is in f64 (a float
    one passes a tolerance test at small sizes but is not the C's precision)."""
    body = _raised_body("conversions:dsdot")
    assert "-> tensor<f64>" in body and "stablehlo.dot_general" in body
    assert "(tensor<f64>) -> tensor<f32>" in body


def test_unsigned_conversions_of_floats_to_32_and_64_bits_are_not_modelled():
    """C's `(unsigned) f` for f in [2**31, 2**32) is defined and is not fptosi's value: the
    proofs have no model for it (a signed conversion must not be proven equal to it)."""
    from synth.semantics import scalar

    for width in (32, 64):
        with pytest.raises(scalar.Unsupported):
            scalar.int_cast("arith.fptoui", 32, width)
    assert scalar.int_cast("arith.fptoui", 32, 8)(300.5) == 44  # through i32, the low bits


def test_stablehlo_convert_of_a_float_to_i1_is_nonzero():
    import z3

    from synth.semantics.raised_values import convert

    x = z3.Real("x")
    s = z3.Solver()
    s.add(convert("f32", "i1")(x) != (x != 0))
    assert s.check() == z3.unsat
