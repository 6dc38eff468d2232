#!/usr/bin/env python3
"""Time and outcome of the all-size proof (synth verify --level all) per kernel and target.

Raises each PolyBench kernel with `synth raise --verify test` (or takes raised modules
already in --raised-dir, named KERNEL.TARGET.mlir), then runs only the all-size proof on
it and prints one row per raise: proven / not applicable / unknown, with the reason and
the seconds the proof took. The timings are measurements, not assertions.

    python scripts/allsizes_report.py --out benchmarks/results/allsizes.md
    python scripts/allsizes_report.py --kernels gemm,atax --targets stablehlo
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def raise_kernel(kernel: Path, target: str, out: Path, timeout: float) -> str | None:
    if out.exists():
        return None
    proc = subprocess.run([sys.executable, "-m", "synth.cli", "raise", str(kernel), "--target", target,
                           "--verify", "test", "--timeout", str(timeout), "-q", "-o", str(out)],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
    return None


def prove(kernel: Path, raised: Path, z3_timeout: float) -> tuple[str, str, float]:
    from synth.analysis.model import load_kernel
    from synth.frontend.reader import load_source, read_text
    from synth.semantics.raised import load_raised
    from synth.validation.allsizes import prove_all_sizes
    from synth.validation.contract import check_contract, pick_function

    source = load_source(kernel, warn=False)
    text = read_text(raised)
    name = pick_function(source, text, None)
    k = load_kernel(source, name)
    r = load_raised(str(raised), f"{name}_raised", text)
    comparisons = check_contract(k, r, r.signature())
    result = prove_all_sizes(k, r, comparisons, z3_timeout)
    return result.verdict, result.message, result.seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", help="comma-separated PolyBench kernels (default: all)")
    ap.add_argument("--targets", default="stablehlo,linalg")
    ap.add_argument("--raised-dir", default="/tmp/synth-allsizes", help="where raised modules are kept")
    ap.add_argument("--timeout", type=float, default=30.0, help="synth raise search budget, seconds")
    ap.add_argument("--z3-timeout", type=float, default=60.0)
    ap.add_argument("--out", help="also write the table (markdown) here")
    args = ap.parse_args()
    bench = ROOT / "benchmarks" / "polybench"
    kernels = args.kernels.split(",") if args.kernels else sorted(p.stem for p in bench.glob("*.mlir"))
    raised_dir = Path(args.raised_dir)
    raised_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for k in kernels:
        for t in args.targets.split(","):
            out = raised_dir / f"{k}.{t}.mlir"
            err = raise_kernel(bench / f"{k}.mlir", t, out, args.timeout)
            if err is not None or not out.exists():
                continue  # not raised: nothing to prove
            verdict, message, seconds = prove(bench / f"{k}.mlir", out, args.z3_timeout)
            rows.append((k, t, verdict, seconds, message))
            print(f"{k:16s} {t:10s} {verdict:15s} {seconds:6.2f} s  {message[:120]}", flush=True)
    proven = sum(r[2] == "proven" for r in rows)
    times = sorted(r[3] for r in rows if r[2] == "proven")
    lines = [f"# All-size proofs of synth's raises ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
             f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}. "
             f"Raised with `synth raise --verify test` (search budget {args.timeout:g} s), then "
             f"`prove_all_sizes` alone, z3 timeout {args.z3_timeout:g} s. Reproduce: "
             f"`python scripts/allsizes_report.py`.", "",
             f"**{proven} of {len(rows)} raises proven for every size**"
             + (f"; proof time median {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s." if times else "."),
             "", "| kernel | target | all-size proof | seconds | why not |", "|---|---|---|---|---|"]
    for k, t, verdict, seconds, message in rows:
        lines.append(f"| {k} | {t} | {verdict} | {seconds:.2f} | {message.replace('|', '/')[:200]} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
