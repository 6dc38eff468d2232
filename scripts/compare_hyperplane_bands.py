"""Time a raised sweep over hyperplanes on mlir-cpu banded (as raised: its loop marked
`synth.hyperplane`) and unbanded (the mark removed: synth-hyperplane-bands leaves it), and
the original loops, alternating in one process on the same input; the outputs are compared
bitwise first (benchmarks/results/seidel_bands_large_1core_2026-12-07.md).

    python scripts/compare_hyperplane_bands.py BENCH_OUT/raised/seidel-2d.linalg.mlir \\
        BENCH_OUT/kernels/seidel-2d.large.mlir --steps 500 --n 2000 --rounds 3 [--rows 8 32]

RAISED and KERNEL come from a `synth bench --out` directory (a static linalg raise of
PolyBench's seidel-2d and the kernel it was raised from: arguments steps, n, A[n][n]).
`--rows`: bands of these many rows too (the pass run with them before the pipeline).
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raised")
    ap.add_argument("kernel")
    ap.add_argument("--function", default="kernel_seidel_2d")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows", type=int, nargs="*", default=[])
    args = ap.parse_args(argv)

    from mlir import ir

    from synth.backends.baseline import AffineBaseline
    from synth.backends.hyperplane_bands import hyperplane_bands
    from synth.backends.mlir_cpu import MlirCpuBackend
    from synth.backends.registry import pinned_cpu_threads
    from synth.semantics.raised_text import keep_functions

    name = f"{args.function}_raised"
    text = keep_functions(Path(args.raised).read_text(), name)
    texts = {"unbanded": re.sub(r" \{synth\.hyperplane = \d+ : i64\}", "", text), "banded": text}
    for rows in args.rows:
        with ir.Context():
            module = ir.Module.parse(text)
            hyperplane_bands(module, rows)
            texts[f"{rows} rows"] = str(module)
    prepared = {"loops": AffineBaseline().prepare(Path(args.kernel).read_text(), args.function, [2])}
    prepared.update({k: MlirCpuBackend().prepare(t, name) for k, t in texts.items()})
    a = np.random.default_rng(1).uniform(0, 1, (args.n, args.n))

    def inputs(kind: str) -> list:
        if kind == "loops":
            return [("i32", args.steps), ("i32", args.n), a.copy()]
        return [np.array(args.steps, np.int32), np.array(args.n, np.int32), a.copy()]

    times: dict[str, list[float]] = {k: [] for k in prepared}
    with pinned_cpu_threads(1):
        want = prepared["loops"].run(inputs("loops"))[0]
        for kind, p in prepared.items():
            got = p.run(inputs(kind))[0]
            print(f"{kind}: bitwise equal to the loops: {np.array_equal(got, want)}", flush=True)
        for _ in range(args.rounds):
            for kind, p in prepared.items():
                times[kind].append(p.time(inputs(kind), warmup=0, repeats=1).seconds)
    print("| variant | median s | samples |\n|---|---|---|")
    for kind, samples in times.items():
        print(f"| {kind} | {statistics.median(samples):.3f} | {' '.join(f'{x:.3f}' for x in samples)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
