#!/usr/bin/env python3
"""Raise kernels with `synth raise`, then verify each output with `synth verify --level z3`
in a separate process, and report the verification wall time and the sizes proven.

    python scripts/verify_suite.py                 # the synthesis issue's 9 kernels, both targets
    python scripts/verify_suite.py gemm --targets linalg
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["2mm", "3mm", "atax", "bicg", "doitgen", "gemm", "gemver", "gesummv", "mvt"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="*", default=DEFAULT)
    ap.add_argument("--targets", default="stablehlo,linalg")
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kernel in args.kernels:
            src = ROOT / "benchmarks" / "polybench" / f"{kernel}.mlir"
            for target in args.targets.split(","):
                out = Path(tmp) / f"{kernel}.{target}.mlir"
                r = subprocess.run([sys.executable, "-m", "synth.cli", "raise", str(src), "--target", target,
                                    "-o", str(out), "--verify", "test"], capture_output=True, text=True)
                row = {"kernel": kernel, "target": target, "raise_exit": r.returncode}
                if r.returncode == 0:
                    t0 = time.monotonic()
                    v = subprocess.run([sys.executable, "-m", "synth.cli", "verify", str(src), str(out),
                                        "--level", "z3"], capture_output=True, text=True)
                    row.update(verify_exit=v.returncode, verify_seconds=round(time.monotonic() - t0, 2))
                    proven = re.search(r"proven by Z3 \(unsat\) at sizes (.*?), every", v.stdout)
                    z3_time = re.search(r"z3 ([0-9.]+) s", v.stdout)
                    row.update(sizes_proven=proven.group(1) if proven else None,
                               z3_seconds=float(z3_time.group(1)) if z3_time else None)
                rows.append(row)
                print(f"{kernel:10s} {target:10s} raise={row['raise_exit']} verify={row.get('verify_exit', '-')} "
                      f"wall={row.get('verify_seconds', '-')}s z3={row.get('z3_seconds', '-')}s "
                      f"sizes={row.get('sizes_proven')}", flush=True)
    ok = [r for r in rows if r.get("verify_exit") == 0]
    print(f"{len(ok)}/{len(rows)} verified at level z3; max verify wall "
          f"{max((r['verify_seconds'] for r in ok), default=0):.2f}s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if len(ok) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
