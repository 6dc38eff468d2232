import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLYBENCH = ROOT / "benchmarks" / "polybench"
POLYGEIST = ROOT / "benchmarks" / "polybench-polygeist"
LOOPS = ROOT / "benchmarks" / "loops"
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT / "tests"))
