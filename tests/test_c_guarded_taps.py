"""Statements and accumulations under an `affine.if` (issues 53 / 56): taps of a window
skipped outside the signal (`if (j < 0 || j >= n) continue; acc += x[j] * w[k]`), a
border kept or zeroed (`if (border) out = in; else out = stencil`), a 3x3 window summed
into one local. The sketches read each condition of the integer set as a mask
(synth.grammar.affine_mask: select_affine, its bound a size), a read past the array
under the guard as a padded view; raised for every size and run against the C compiled
by gcc at the manifest's sizes and larger ones (benchmarks/c-libs), and at the sizes
where the interior is empty (tests/data/c/guarded_taps.c, written as filtering
libraries write them); a mask changed by one is refuted."""

from __future__ import annotations

import importlib.util

import pytest
from c_oracle import Case, load_cases, raise_for_every_size_equals_compiled_c, signature
from conftest import ROOT

from synth.backends.cc import compiler
from synth.cli import main
from synth.frontend.c import translate_c
from synth.pipeline import RaiseOptions, raise_function

CORPUS = ROOT / "benchmarks" / "c-libs"
CASES = {c.function: c for c in load_cases(CORPUS)
         if c.function in ("conv1d_same", "box3x3_skip", "smooth_edges_kept", "box_blur3")}
TAPS = ROOT / "tests" / "data" / "c" / "guarded_taps.c"
OWN = {  # tests/data/c/guarded_taps.c: arrays, and sizes down to where the interior is empty
    "fir5_same": ({"x": "n", "h": "5", "y": "n"}, [{"n": 1}, {"n": 4}, {"n": 13}]),
    "laplace_zero_border": ({"src": "rows*cols", "dst": "rows*cols"},
                            [{"rows": 1, "cols": 5}, {"rows": 2, "cols": 2}, {"rows": 7, "cols": 6}]),
    "lower_colsum": ({"a": "n*n", "s": "n"}, [{"n": 1}, {"n": 6}]),
}

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")

DEFAULT = [("conv1d_same", "stablehlo"), ("smooth_edges_kept", "linalg"), ("box_blur3", "stablehlo")]
SLOW = [("conv1d_same", "linalg"), ("smooth_edges_kept", "stablehlo"), ("box_blur3", "linalg"),
        ("box3x3_skip", "stablehlo"), ("box3x3_skip", "linalg")]


@pytest.mark.parametrize("name,target", DEFAULT + [pytest.param(f, t, marks=pytest.mark.slow) for f, t in SLOW])
def test_raise_for_every_size_equals_compiled_c(name, target):
    raise_for_every_size_equals_compiled_c(CASES[name], target)


def _coverage():
    spec = importlib.util.spec_from_file_location("c_coverage", ROOT / "scripts" / "c_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name,target", [("fir5_same", "linalg"), ("laplace_zero_border", "stablehlo"),
                                         pytest.param("lower_colsum", "stablehlo", marks=pytest.mark.slow),
                                         pytest.param("fir5_same", "stablehlo", marks=pytest.mark.slow),
                                         pytest.param("laplace_zero_border", "linalg", marks=pytest.mark.slow),
                                         pytest.param("lower_colsum", "linalg", marks=pytest.mark.slow)])
def test_library_style_guards_raise_for_every_size(name, target):
    """One raise, run against gcc at sizes down to those where no tap or no interior
    element is inside the guard (n = 1, a 1 x 5 image), read from a select_affine."""
    arrays, sizes = OWN[name]
    outcome = raise_function(translate_c(str(TAPS), function=name), name, target, RaiseOptions())
    raised = outcome.module.split(f"@{name}_raised(")[1]
    assert "?" in raised.split(")")[0]
    assert ("linalg.index" in raised) if target == "linalg" else ("iota" in raised)
    coverage = _coverage()
    for at in sizes:
        case = Case(TAPS, name, {"sizes": at, "arrays": arrays})
        params, result = signature(case)
        coverage.check_raised(case, outcome.module, target, params, result)


def test_a_mask_moved_by_one_tap_is_refuted(tmp_path):
    """conv1d_same raised at w = 10, then its mask's lower bound moved by one (the first
    tap of the first output skipped): verify refutes it."""
    case = CASES["conv1d_same"]
    original = tmp_path / "conv.mlir"
    original.write_text(translate_c(str(case.path), function="conv1d_same", sizes=case.sizes).text)
    raised = tmp_path / "conv.stablehlo.mlir"
    assert main(["raise", str(original), "--target", "stablehlo", "-o", str(raised), "-q"]) == 0
    assert main(["verify", str(original), str(raised)]) == 0
    # the constraint i + k >= 1 (the tap at in[-1] left out): a GE against a splat of 1
    text = raised.read_text()
    assert text.count("dense<1> : tensor<10x3xi64>") == 1
    mutant = tmp_path / "mutant.mlir"
    mutant.write_text(text.replace("dense<1> : tensor<10x3xi64>", "dense<2> : tensor<10x3xi64>"))
    assert main(["verify", str(original), str(mutant)]) != 0


def test_the_masks_are_the_affine_if_s_conditions():
    """conv1d_same's `if (x < 0 || x >= w) continue` over (i, k), x = i + k - 1: two
    constraints, i + k >= 1 and -i - k >= -w, the second's bound the size w."""
    from synth.analysis.symbols import Size

    case = CASES["conv1d_same"]
    outcome = raise_function(translate_c(str(case.path), function="conv1d_same"), "conv1d_same", "stablehlo",
                             RaiseOptions())
    masks = []

    def walk(e):
        if e.op is not None and e.op.name.endswith("select_affine"):
            masks.append(dict(e.attrs)["constraints"])
        for a in e.args:
            walk(a)
    for sol in outcome.result.solutions:
        for program in sol.programs.values():
            walk(program)
    (first, second), = masks
    assert first == ((1, 1), 1)
    assert second[0] == (-1, -1) and isinstance(second[1], Size) and not second[1].expr.is_constant
