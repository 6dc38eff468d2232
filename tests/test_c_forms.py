"""C as libraries write it (issue 53): table lookups, the math library as C calls it, and
conditions that guard an index computation: raises of benchmarks/c-libs/lookup.c,
mathfn.c and guards.c against the functions compiled by the system C compiler
(tests/c_oracle.py), on both targets.

- `out[i] = lut[in[i]]` (a table of declared extent read at an index from data) is a
  gather in both targets (synth.grammar.gather: stablehlo.gather, a linalg.generic with a
  clamped tensor.extract); the original's read is an array select by cases in the proofs.
  An unsigned char index into 256 entries stays inside by its type; another index's range
  is recorded in synth.assumptions, which the raise carries (its examples draw the index
  arrays inside the table; the gather clamps).

- `sinf` ... `erff` (float and double forms, `pow(x, 2.0)`, `powf(theta, -2.0f * i / d)`)
  become the op of each target that computes the same function (stablehlo.sine, cosine,
  tan, tanh, chlo.erf, floor, ceil; a linalg.generic with math.sin ...); the proofs take
  each as an uninterpreted function of its exact argument (synth.grammar.unary_math), the
  tests compare with the compiled C at synth's float tolerance.
- An index set under a condition on data and read in the same branch raises as a select;
  BLAS's increments: a unit-stride branch beside the strided one raises for every size (the
  unit branch's `x[i]` is read as the strided rows' `x[i][0]` under `incx == 1`), and
  reference saxpy's negative increments (`ix = (-n + 1) * incx` under `incx < 0`), whose
  walk runs backwards from the end of the array, are refused for free sizes with the
  reason; with `--size incx=1 --size incy=1` the unit branch is what runs, and raises."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import z3
from c_oracle import (Case, assert_same, inputs, load_cases, mlir_signature, raised_outputs, run_c, run_translation,
                      signature)
from conftest import ROOT

from synth.backends.cc import compiler
from synth.errors import InputError
from synth.frontend.c import translate_c
from synth.semantics import z3sem
from synth.validation.proofs import prove_equal

sys.path.insert(0, str(ROOT / "scripts"))
from c_coverage import check_raised  # noqa: E402  (the coverage script's check of a raise for every size)

CORPUS = ROOT / "benchmarks" / "c-libs"
CASES = {c.id: c for c in load_cases(CORPUS) if c.path.name in ("mathfn.c", "guards.c", "lookup.c")}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def _raise_and_compare(case: Case, target: str, sizes: dict | None, at: list[dict]) -> dict:
    """Raise `case` (at `sizes`, or for every size), run the raise against gcc -O2 at each
    of the size assignments `at`; the raise's validation record."""
    from synth.pipeline import RaiseOptions, raise_function

    module = translate_c(str(case.path), function=case.function, sizes=sizes)
    outcome = raise_function(module, case.function, target, RaiseOptions())
    for k, values in enumerate(at):
        c = Case(case.path, case.function, {**case.spec, "sizes": values})
        params, result = signature(c)
        if sizes is None:  # a raise for every size: fed the parts the loops reach (scripts/c_coverage.py)
            check_raised(c, outcome.module, target, params, result)
            continue
        sig = mlir_signature(translate_c(str(c.path), function=c.function, sizes=values, locations=False).text,
                             c.function)
        args = inputs(c, params, np.random.default_rng(11 + k))
        got = raised_outputs(outcome.module, c, params, args, target, sig)
        assert_same(c, f"raised {target}", params, result, run_c(c, params, result, args, "-O2"), got)
    return outcome.validation


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name", ["gelu_erf", pytest.param("vcos", marks=pytest.mark.slow),
                                  pytest.param("rope_freqs", marks=pytest.mark.slow)])
def test_math_calls_raise_equal_to_compiled_c(name, target):
    case = CASES[f"mathfn:{name}"]
    size = next(iter(case.sizes))
    validation = _raise_and_compare(case, target, None, [case.sizes, {size: case.sizes[size] + 5}])
    assert "proven" in validation["summary"], validation["summary"]


@pytest.mark.slow
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name", ["vtanf", "gelu_tanh", "vsquare_pow", "polar_to_xy", "quantize_quarter"])
def test_more_math_calls_raise(name, target):
    case = CASES[f"mathfn:{name}"]
    _raise_and_compare(case, target, case.sizes, [case.sizes])


def test_each_function_is_its_target_op():
    """The raise keeps the C's function: sinf is stablehlo.sine / math.sin, erff chlo.erf /
    math.erf (no search: the sketch reads the statement as written)."""
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES["mathfn:gelu_erf"]
    module = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    hlo = raise_function(module, case.function, "stablehlo", RaiseOptions()).module
    lin = raise_function(module, case.function, "linalg", RaiseOptions()).module
    assert "chlo.erf" in hlo and "math.erf" in lin


def test_uninterpreted_functions_of_exact_arguments():
    x, y = z3.Reals("x y")
    sin, cos, erf = (z3sem.unary(n) for n in ("sin", "cos", "erf"))
    assert prove_equal([("out", sin(x + y) * 2, 2 * sin(y + x))], timeout=5.0).verdict == "proven"
    assert prove_equal([("out", sin(x), cos(x))], timeout=5.0).verdict != "proven"
    assert prove_equal([("out", erf(x), erf(x + 0))], timeout=5.0).verdict == "proven"
    # a point evaluates through the real functions
    assert abs(z3sem.concrete_value(z3.substitute(erf(x), (x, z3.RealVal(1)))) - 0.8427007929497149) < 1e-15


@pytest.mark.slow
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_index_set_under_a_data_condition(target):
    case = CASES["guards:guard_idx"]
    validation = _raise_and_compare(case, target, None, [case.sizes, {"n": 7}])
    assert "proven" in validation["summary"], validation["summary"]


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_unit_and_strided_branches_raise_for_every_size(target):
    case = CASES["guards:sscal_inc"]
    n = case.sizes["n"]
    _raise_and_compare(case, target, None, [{"n": n, "incx": 1}, {"n": n, "incx": 3}, {"n": 5, "incx": 2}])


def test_unit_branch_reads_the_strided_rows():
    case = CASES["guards:sscal_inc"]
    text = translate_c(str(case.path), function=case.function, locations=False).text
    assert 'synth.c_shape = ["n", "incx"]' in text
    assert "n <= incx" not in text  # not x[0][i] (one row of incx), which needs n <= incx


def test_negative_increments_refused_for_free_sizes_raise_at_unit_sizes():
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES["guards:saxpy_ref"]
    free = translate_c(str(case.path), function=case.function)
    assert free.text.count("affine.if") >= 4  # ix, iy per sign of incx, incy: each path its own
    with pytest.raises(InputError, match="no small sizes keep every access of the kernel within its array"):
        raise_function(free, case.function, "linalg", RaiseOptions())
    _raise_and_compare(case, "linalg", case.sizes, [case.sizes])


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name", ["lut_u8", pytest.param("expand_samples", marks=pytest.mark.slow)])
def test_table_lookup_is_a_gather(name, target):
    case = CASES[f"lookup:{name}"]
    validation = _raise_and_compare(case, target, None, [case.sizes, {"n": 5}])
    assert "proven" in validation["summary"], validation["summary"]


def test_lookup_reads_are_array_selects_and_stores_stay_refused(tmp_path):
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES["lookup:lut_threshold"]
    module = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    assert "memref.load" in module.text and "arith.extui" in module.text
    out = raise_function(module, case.function, "stablehlo", RaiseOptions()).module
    assert "stablehlo.gather" in out
    src = tmp_path / "hist.c"
    src.write_text("void hist(int n, const unsigned char *p, int h[256])\n"
                   "{ for (int i = 0; i < n; i++) h[p[i]]++; }\n")
    with pytest.raises(InputError, match="data-dependent array subscript"):
        translate_c(str(src), function="hist")


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_int_index_range_recorded_and_the_raise_assumes_it(target):
    """`y[i] = table[idx[i]]`: the index's range is the caller's; the translation records
    it, the examples draw the index array inside the table (synth.analysis.function's
    index_ranges), the raise's gather clamps (the C reads outside only with undefined
    behaviour) and carries the assumption."""
    from synth.pipeline import RaiseOptions, raise_function

    case = CASES["lookup:take_idx"]
    module = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    assert "0 <= idx[i] < 64 (the subscript of 'table[idx[i]]' reads data" in module.text
    _raise_and_compare(case, target, case.sizes, [case.sizes])
    out = raise_function(module, case.function, target, RaiseOptions()).module
    assert "0 <= idx[i] < 64" in out.split("_raised(", 1)[1].split("{", 1)[1][:2000]


def test_index_changed_under_a_size_condition_translates(tmp_path):
    """`if (n > 5) k = 2; a[k] = 1.0f;`: the store runs in each branch (refused before)."""
    src = tmp_path / "size_branch.c"
    src.write_text("void size_branch(int n, float *a)\n{ int k = 0; if (n > 5) k = 2; a[k] = 1.0f; }\n")
    case = Case(src, "size_branch", {"sizes": {"n": 3}, "arrays": {"a": "4"}})
    params, result = signature(case)
    for n in (3, 8):
        case = Case(src, "size_branch", {"sizes": {"n": n}, "arrays": {"a": "4"}})
        args = inputs(case, params, np.random.default_rng(n))
        got = run_translation(case, params, args, sizes=False, shapes={"a": (4,)})
        assert_same(case, "translation", params, result, run_c(case, params, result, args, "-O2"), got[:2])


@pytest.mark.slow
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_embedding_rows_at_token_ids(target):
    """`out[i * d + j] = emb[tok[i]][j]`: a gather of rows (the table's width a size); the
    vocabulary V no loop reaches is given (--size), n and d are left free."""
    case = CASES["lookup:embed_rows"]
    _raise_and_compare(case, target, {"V": case.sizes["V"]}, [])
    module = translate_c(str(case.path), function=case.function, sizes=case.sizes)
    assert "0 <= tok[i] < V" in module.text or "0 <= tok[i] < 23" in module.text
    _raise_and_compare(case, target, case.sizes, [case.sizes])


def test_signed_char_index_into_a_table_draws_what_the_type_holds(tmp_path):
    """`out[i] = lut[in[i]]` with `signed char` indices into 256 rows: the examples draw the
    indices in [0, 128) (what the type holds of the table's range); a draw reduced modulo
    256 in int8 was an OverflowError, an internal error (exit 1)."""
    src = tmp_path / "lut_s8.c"
    src.write_text("void lut_s8(int n, const signed char *in, const float lut[256], float *out)\n"
                   "{ for (int i = 0; i < n; i++) out[i] = lut[in[i]]; }\n")
    case = Case(src, "lut_s8", {"sizes": {"n": 9}, "arrays": {"in": "n", "lut": "256", "out": "n"},
                                "ranges": {"in": [0, 127]}})
    validation = _raise_and_compare(case, "linalg", case.sizes, [case.sizes])
    assert "proven" in validation["summary"], validation["summary"]
