"""Reproducibility check for `synth raise`: the emitted text of one input must be
byte-identical between runs of the same code, whatever the hash seed of str/bytes
(PYTHONHASHSEED) and the garbage collector's timing (gc thresholds, which move z3's
internal term ids and so the models it returns).

Each kernel and target is raised in two fresh processes that differ in both, and the
outputs are compared; a difference is printed as a unified diff. Exit status 0 when
every pair is identical, 1 otherwise.

    python3 scripts/repro_check.py                       # the default kernels, both targets
    python3 scripts/repro_check.py benchmarks/polybench/gemm.mlir --target linalg
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = [f"benchmarks/polybench/{k}.mlir" for k in ("adi", "correlation", "gemm", "jacobi-2d", "durbin", "ludcmp")] + [
    "benchmarks/polybench-c/deriche.c"]
# (PYTHONHASHSEED, gc thresholds): two runs that differ in both
VARIANTS = [("0", None), ("4242", (100, 5, 5))]


def raise_once(path: str, target: str, hashseed: str, gc_threshold, out: str, extra: list[str], timeout: float):
    prelude = "import gc, sys\n"
    if gc_threshold is not None:
        prelude += f"gc.set_threshold{tuple(gc_threshold)}\n"
    code = prelude + "from synth.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-c", code, "raise", path, "--target", target, "-o", out, "-q", *extra]
    t = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return p.returncode, p.stderr, time.monotonic() - t


def check(path: str, target: str, extra: list[str], timeout: float, keep: str | None = None) -> bool:
    texts = []
    with tempfile.TemporaryDirectory() as d:
        d = keep or d
        for i, (seed, gcth) in enumerate(VARIANTS):
            out = os.path.join(d, f"{os.path.basename(path)}.{target}.{i}.mlir")
            rc, err, secs = raise_once(path, target, seed, gcth, out, extra, timeout)
            text = open(out).read() if os.path.exists(out) else f"<no output, rc {rc}>\n{err}"
            texts.append(text)
            print(f"  {os.path.basename(path)} {target} hashseed={seed} gc={gcth}: rc {rc}, {secs:.1f} s", flush=True)
    if texts[0] == texts[1]:
        print(f"SAME  {path} --target {target}", flush=True)
        return True
    print(f"DIFF  {path} --target {target}", flush=True)
    sys.stdout.writelines(difflib.unified_diff(texts[0].splitlines(True), texts[1].splitlines(True),
                                               "run0", "run1", n=0))
    return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", default=KERNELS)
    ap.add_argument("--target", choices=["linalg", "stablehlo"], action="append")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per raise at most")
    ap.add_argument("--keep", metavar="DIR", help="keep the raised texts in DIR")
    ap.add_argument("extra", nargs=argparse.REMAINDER, help="after --: more `synth raise` flags")
    args = ap.parse_args()
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    extra = [a for a in args.extra if a != "--"]
    ok = True
    for path in args.files:
        for target in args.target or ["linalg", "stablehlo"]:
            ok &= check(path, target, extra, args.timeout, args.keep)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
