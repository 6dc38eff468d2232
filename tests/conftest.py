import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLYBENCH = ROOT / "benchmarks" / "polybench"
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT / "tests"))
