#!/usr/bin/env python3
"""The README's GPU table, from the GPU runs' JSON and a CPU `synth bench` run.

    python scripts/gpu_table.py --xla benchmarks/results/gpu_h100_stablehlo_large.json \\
        --iree benchmarks/results/iree_cuda_h100_large.json --cpu BENCH_OUT/results.json

--xla: `scripts/gpu_bench.py -o` (raised stablehlo on XLA GPU); --iree (optional):
`scripts/iree_cuda_bench.py run -o` (raised stablehlo and linalg on IREE CUDA); --cpu: the
`results.json` of a `synth bench` run on the CPU (the loops' time, `baseline_seconds`, and
the raised code's time on each CPU backend). Per kernel: the loops on one CPU core, the best
raised pair on one CPU core, XLA GPU's median (min to max), IREE CUDA's medians, and the
GPU's best over each CPU time (the IREE column only with --iree). Only GPU results that agree with their CPU check count;
the others are shown with a mark. Prints Markdown.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 1:
        return f"{seconds:.3g} s"
    return f"{seconds * 1e3:.3g} ms"


def times(x: float | None) -> str:
    return "-" if x is None else (f"{x:.0f}x" if x >= 10 else f"{x:.2g}x")


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def kernel_of(function: str) -> str:
    return function.removeprefix("kernel_").replace("_", "-")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xla", required=True)
    ap.add_argument("--iree")
    ap.add_argument("--cpu", required=True)
    args = ap.parse_args(argv)

    cpu_rows = json.loads(Path(args.cpu).read_text())
    loops, best_cpu = {}, {}
    for r in cpu_rows:
        k = r["kernel"]
        if r.get("baseline_seconds"):
            loops[k] = r["baseline_seconds"]
        if r.get("status") == "ok" and r.get("seconds"):
            if k not in best_cpu or r["seconds"] < best_cpu[k][0]:
                best_cpu[k] = (r["seconds"], f"{r['target']} on {r['backend']}")
    xla = {kernel_of(r["function"]): r for r in json.loads(Path(args.xla).read_text())["results"]}
    iree = {}
    if args.iree:
        for r in json.loads(Path(args.iree).read_text())["results"]:
            kernel, _, target = r["kernel"].rpartition(".")
            iree[(kernel, target)] = r

    iree_head = "| IREE CUDA stablehlo / linalg " if args.iree else ""  # the column only with --iree
    print("| kernel | loops, 1 CPU core | best raised, 1 CPU core | XLA GPU (stablehlo), median (min to max) "
          f"{iree_head}| GPU over the loops | GPU over the best CPU raise |")
    print("|---|---|---|---|---|---|" + ("---|" if args.iree else ""))
    over_loops, over_cpu, notes = [], [], []
    for k in sorted(xla):
        x = xla[k]
        x_ok = x.get("error") is None and x.get("finite") and x.get("agrees_with_cpu")
        cells = []
        gpu_times = [x["seconds"]] if x_ok else []
        for target in ("stablehlo", "linalg"):
            r = iree.get((k, target))
            if r is None:
                cells.append("-")
            elif "error" in r:
                cells.append("fails")
            else:
                cells.append(fmt(r["seconds"]) + ("" if r["agrees"] else " (b)"))
                if r["agrees"]:
                    gpu_times.append(r["seconds"])
        samples = x.get("samples") or []
        xcell = (f"{fmt(x['seconds'])} ({fmt(min(samples))} to {fmt(max(samples))})" if samples else "-")
        if not x_ok:
            xcell += " (b)"
        if x.get("inputs", "uniform") != "uniform":
            notes.append(f"{k}: {x['inputs']}")
        gpu = min(gpu_times) if gpu_times else None
        base, cpu = loops.get(k), best_cpu.get(k, (None, ""))[0]
        s_loops = base / gpu if gpu and base else None
        s_cpu = cpu / gpu if gpu and cpu else None
        if s_loops:
            over_loops.append(s_loops)
        if s_cpu:
            over_cpu.append(s_cpu)
        iree_cell = f"| {' / '.join(cells)} " if args.iree else ""
        print(f"| {k} | {fmt(base)} | {fmt(cpu)} | {xcell} {iree_cell}| {times(s_loops)} | {times(s_cpu)} |")
    print()
    print(f"geomean over {len(over_loops)} kernels: GPU over the loops {geomean(over_loops):.0f}x, "
          f"over the best CPU raise {geomean(over_cpu):.1f}x")
    for n in notes:
        print(f"- inputs, {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
