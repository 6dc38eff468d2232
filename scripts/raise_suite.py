#!/usr/bin/env python3
"""Raise a set of PolyBench kernels to each target with `synth raise` (one process per
raise, as a user runs it) and report wall time, candidates enumerated and the result.

    python scripts/raise_suite.py                       # the synthesis issue's 9 kernels
    python scripts/raise_suite.py gemm atax --targets linalg --json out.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["2mm", "3mm", "atax", "bicg", "doitgen", "gemm", "gemver", "gesummv", "mvt"]


def raise_one(kernel: str, target: str, timeout: float, out_dir: Path) -> dict:
    out = out_dir / f"{kernel}.{target}.mlir"
    stats = out_dir / f"{kernel}.{target}.json"
    cmd = [sys.executable, "-m", "synth.cli", "raise", str(ROOT / "benchmarks/polybench" / f"{kernel}.mlir"),
           "--target", target, "-o", str(out), "--stats-json", str(stats), "--timeout", str(timeout)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    row = {"kernel": kernel, "target": target, "exit": proc.returncode, "wall_seconds": round(wall, 2)}
    if stats.exists():
        data = json.loads(stats.read_text())
        fn = next((v for k, v in data.items() if k != "error"), None)
        if fn:
            row.update(candidates=fn["candidates"], problems=len(fn["problems"]),
                       search_seconds=round(sum(p["seconds"] for p in fn["problems"]), 2),
                       programs=[p["program"] for p in fn["problems"]])
        if "error" in data:
            row["error"] = data["error"]["message"]
    if proc.returncode != 0 and "error" not in row:
        row["error"] = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="*", default=DEFAULT)
    ap.add_argument("--targets", default="stablehlo,linalg")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kernel in args.kernels:
            for target in args.targets.split(","):
                row = raise_one(kernel, target, args.timeout, Path(tmp))
                rows.append(row)
                print(f"{kernel:10s} {target:10s} exit={row['exit']} wall={row['wall_seconds']:7.2f}s "
                      f"candidates={row.get('candidates', '-'):>7} problems={row.get('problems', '-')}"
                      + (f"  [{row['error']}]" if row.get("error") else ""), flush=True)
    ok = sum(r["exit"] == 0 for r in rows)
    print(f"{ok}/{len(rows)} raised; max wall {max(r['wall_seconds'] for r in rows):.2f}s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
