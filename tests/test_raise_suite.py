"""scripts/raise_suite.py --trees: each raise run once per source tree, back to back, the
order alternating per kernel, with that tree's synth (not the working directory's, not
the installed one)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import LOOPS, ROOT


def test_trees_run_each_trees_own_synth_side_by_side(tmp_path):
    stub = tmp_path / "stub"
    (stub / "synth").mkdir(parents=True)
    (stub / "synth" / "__init__.py").write_text("")
    (stub / "synth" / "cli.py").write_text("raise SystemExit(7)\n")  # a tree whose synth exits 7
    out = tmp_path / "rows.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "raise_suite.py"), "--trees", f"real={ROOT},stub={stub}",
         "--targets", "linalg", str(LOOPS / "blas_scal.mlir"), str(LOOPS / "blas_copy.mlir"),
         "--json", str(out), "--keep", str(tmp_path / "keep")],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    rows = json.loads(out.read_text())
    assert [(r["kernel"], r["variant"]) for r in rows] == [
        ("blas_scal", "real"), ("blas_scal", "stub"), ("blas_copy", "stub"), ("blas_copy", "real")]
    assert all(r["exit"] == (0 if r["variant"] == "real" else 7) for r in rows), proc.stdout + proc.stderr
    assert all(r["cpu_seconds"] > 0 for r in rows if r["variant"] == "real")
    assert proc.returncode == 1  # a row not raised
    table = proc.stdout[proc.stdout.index("| kernel | target | real wall | real CPU | stub wall | stub CPU |"):]
    assert "| blas_scal | linalg | " in table and "(exit 7)" in table
    assert (tmp_path / "keep" / "real" / "blas_scal.linalg.mlir").exists()
