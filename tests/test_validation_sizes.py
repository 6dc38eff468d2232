"""The sizes validation runs a raise at.

- synth.analysis.work bounds the statement instances of a kernel at its own sizes (a
  triangular nest counted as its bounding box).
- A raise for every size whose original would run more than OWN_SIZE_WORK statement
  instances at its own sizes is run at those sizes scaled down by a power of 2 (its text
  is the same at every size), and the output says so; under the bound it is run at its
  own sizes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from synth.analysis.work import statement_instances
from synth.frontend.reader import load_text
from synth.validation.plan import OWN_SIZE_WORK

ROOT = Path(__file__).resolve().parents[1]

_NESTS = """
func.func @k(%n: index, %a: memref<40x50xf64>, %b: memref<40xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 50 {
      affine.store %z, %a[%i, %j] : memref<40x50xf64>
    }
    affine.for %j = 0 to #map(%i) {
      %v = affine.load %a[%i, %j] : memref<40x50xf64>
      affine.store %v, %b[%i] : memref<40xf64>
    }
  }
  affine.for %t = 0 to %n {
    affine.store %z, %b[0] : memref<40xf64>
  }
  return
}
"""


def test_statement_instances_bound_a_nest():
    text = "#map = affine_map<(d0) -> (d0 + 1)>\n" + _NESTS
    source = load_text(text, "nests.mlir", warn=False)
    # 40 x 50 stores, the triangle as its box (40 x 40), then n = 7 single stores
    assert statement_instances(source, "k", {0: 7}) == 40 * 50 + 40 * 40 + 7
    assert statement_instances(source, "k", {0: 0}) == 40 * 50 + 40 * 40


def _raise(tmp_path, kernel: str, target: str) -> str:
    from synth.cli import main

    out = tmp_path / f"{kernel}.{target}.mlir"
    src = ROOT / "benchmarks" / "polybench" / f"{kernel}.mlir"
    assert main(["raise", str(src), "--target", target, "-o", str(out), "-q",
                 "--shapes", "generic", "--verify", "test"]) == 0
    return out.read_text()


def test_a_generic_raise_too_large_at_its_own_sizes_runs_scaled_down(tmp_path):
    """gemm at PolyBench LARGE (1000 x 1100 x 1200: 1.3e9 multiply-adds) is run at a
    quarter of each size, and its output records it."""
    assert 250 * 275 * 300 <= OWN_SIZE_WORK < 500 * 550 * 600
    text = _raise(tmp_path, "gemm", "linalg")
    assumptions = re.search(r"synth\.assumptions = \[(.*?)\]", text).group(1)
    assert "not run at its own sizes (arg0=1000, arg1=1100, arg2=1200" in assumptions
    assert "run at arg0=250, arg1=275, arg2=300 instead" in assumptions


def test_a_generic_raise_within_the_bound_runs_at_its_own_sizes(tmp_path):
    text = _raise(tmp_path, "atax", "stablehlo")  # 2 x 1900 x 2100 = 8e6 statement instances
    assert "not run at its own sizes" not in text
