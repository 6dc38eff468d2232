"""The golden tests under tests/lit (lit + FileCheck), run as part of the test suite."""

import subprocess
import sys
from pathlib import Path

LIT = Path(__file__).resolve().parent / "lit"


def test_lit_suite():
    p = subprocess.run([sys.executable, "-c", "from lit.main import main; main()", "-q", str(LIT)],
                       capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
