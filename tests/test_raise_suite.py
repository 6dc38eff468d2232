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


def _writing_stub(root, text: str):
    """A source tree whose `synth raise ... -o OUT` writes `text` to OUT and exits 0."""
    (root / "synth").mkdir(parents=True)
    (root / "synth" / "__init__.py").write_text("")
    (root / "synth" / "cli.py").write_text(
        "import sys\nout = sys.argv[sys.argv.index('-o') + 1]\n"
        f"open(out, 'w').write({text!r})\n")
    return root


def test_rounds_medians_same_output_and_kernels_of_one_name(tmp_path):
    """--rounds: every raise once per round, the table's cells medians over the rounds; the
    last column says whether the trees wrote the same module; two files of one stem in
    different directories are two kernels (their directory in the name)."""
    a = _writing_stub(tmp_path / "a", "module {}\n")
    b = _writing_stub(tmp_path / "b", "module {}\n")
    c = _writing_stub(tmp_path / "c", "module { }\n")
    twin = tmp_path / "other" / "blas_scal.mlir"
    twin.parent.mkdir()
    twin.write_text((LOOPS / "blas_scal.mlir").read_text())
    out = tmp_path / "rows.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "raise_suite.py"), "--trees", f"a={a},b={b}", "--rounds", "2",
         "--targets", "linalg", str(LOOPS / "blas_scal.mlir"), str(twin), "--json", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    rows = json.loads(out.read_text())
    assert len(rows) == 8 and {r["round"] for r in rows} == {0, 1}
    assert {r["kernel"] for r in rows} == {"loops/blas_scal", "other/blas_scal"}
    # the tree order alternates per kernel and per round
    assert [r["variant"] for r in rows] == ["a", "b", "b", "a", "b", "a", "a", "b"]
    assert "(medians over 2 rounds)" in proc.stdout
    assert "| loops/blas_scal | linalg | " in proc.stdout and proc.stdout.count(" | yes |") == 2
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "raise_suite.py"), "--trees", f"a={a},c={c}",
         "--targets", "linalg", str(LOOPS / "blas_scal.mlir")],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.stdout.rstrip().endswith(" | no |"), proc.stdout
