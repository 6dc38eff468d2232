import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLYBENCH = ROOT / "benchmarks" / "polybench"
POLYGEIST = ROOT / "benchmarks" / "polybench-polygeist"
LOOPS = ROOT / "benchmarks" / "loops"
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT / "tests"))


def mini_generic_raise(tmp_path, kernel: str, target: str) -> str:
    """The text of `synth raise --shapes generic` of PolyBench's `kernel` resized to MINI
    (both commands asserted to succeed)."""
    from synth.cli import main

    path, raised = tmp_path / f"{kernel}.mini.mlir", tmp_path / f"{kernel}.{target}.generic.mlir"
    assert main(["resize", str(POLYBENCH / f"{kernel}.mlir"), "--dataset", "mini", "-o", str(path)]) == 0
    assert main(["raise", str(path), "--target", target, "--shapes", "generic", "-q", "-o", str(raised)]) == 0
    return raised.read_text()
