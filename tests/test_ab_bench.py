"""scripts/ab_bench.py's comparison: best backend per pair, median over rounds, geomean over
the pairs both trees raised (the timing runs themselves are `synth bench`'s, tested there)."""

import importlib.util
from pathlib import Path

import pytest

spec = importlib.util.spec_from_file_location("ab_bench", Path(__file__).parents[1] / "scripts" / "ab_bench.py")
ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab)


def row(kernel, target, backend, speedup, status="ok"):
    return {"kernel": kernel, "target": target, "backend": backend, "speedup": speedup, "status": status}


def test_best_backend_per_pair_ignores_failed_rows():
    rows = [row("gemm", "linalg", "mlir-cpu", 2.0), row("gemm", "linalg", "xla-cpu", 9.0, "pipeline-error"),
            row("gemm", "stablehlo", "xla-cpu", 3.0), row("gemm", "stablehlo", "mlir-cpu", 4.0)]
    assert ab.best_per_pair(rows) == {("gemm", "linalg"): (2.0, "mlir-cpu"),
                                      ("gemm", "stablehlo"): (4.0, "mlir-cpu")}


def test_compare_takes_median_over_rounds_and_common_pairs_only():
    before = [[row("a", "linalg", "m", 2.0), row("b", "linalg", "m", 4.0)],
              [row("a", "linalg", "m", 4.0), row("b", "linalg", "m", 4.0)],
              [row("a", "linalg", "m", 3.0), row("b", "linalg", "m", 4.0)]]
    after = [[row("a", "linalg", "m", 6.0), row("c", "linalg", "m", 1.0)]]
    result = ab.compare({"before": before, "after": after})
    assert result["common"] == 1
    assert result["geomean_before"] == pytest.approx(3.0)
    assert result["ratio"] == pytest.approx(2.0)
    assert result["only_before"] == [["b", "linalg"]] and result["only_after"] == [["c", "linalg"]]
