#!/usr/bin/env python3
"""`synth cc` against `cc` on the 30 harnessed PolyBench kernels, the results kept in
benchmarks/results/: scripts/cc_polybench.py (which builds, checks the dumped arrays and
times) with the settings of the speedup measurement.

    python scripts/cc_speedup.py                       # LARGE, 5 runs, every kernel
    python scripts/cc_speedup.py --dataset MEDIUM --runs 3 gemm lu
    python scripts/cc_speedup.py --name NAME ...       # benchmarks/results/NAME.{json,md}

A = `cc -O3 -march=native`, B = `synth cc -O3 -march=native` (no --target: both targets,
the faster kept, and the function as written where no raise is faster), each run pinned to
one core (taskset). Per kernel: the medians, min-max and spread of the kernel's own timer,
A/B, raised or kept (and why); the geomean over the kernels B raised and over all (a kept
kernel counted 1x). Every other option is cc_polybench's (`--help` there)."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def _cc_polybench():
    spec = importlib.util.spec_from_file_location("cc_polybench", ROOT / "scripts" / "cc_polybench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["cc_polybench"] = mod
    spec.loader.exec_module(mod)
    return mod


def arguments(argv: list[str]) -> list[str]:
    """cc_polybench's arguments: the speedup defaults where the caller gave none."""
    argv = list(argv)
    name = None
    if "--name" in argv:
        k = argv.index("--name")
        name = argv[k + 1] if k + 1 < len(argv) else None
        del argv[k:k + 2]
    dataset = "LARGE"
    for k, a in enumerate(argv):
        if a == "--dataset" and k + 1 < len(argv):
            dataset = argv[k + 1].upper()
        elif a.startswith("--dataset="):
            dataset = a.split("=", 1)[1].upper()
    defaults = {"--dataset": dataset, "--runs": "5", "--core": "0"}
    out = [x for flag, value in defaults.items() if not any(a == flag or a.startswith(flag + "=") for a in argv)
           for x in (flag, value)]
    name = name or f"cc_speedup_{dataset.lower()}_{time.strftime('%Y-%m-%d', time.gmtime())}"
    if not any(a.startswith("--json") for a in argv):
        out += ["--json", str(RESULTS / f"{name}.json")]
    if not any(a.startswith("--md") for a in argv):
        out += ["--md", str(RESULTS / f"{name}.md")]
    return out + argv


def main(argv=None) -> int:
    return _cc_polybench().main(arguments(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
