"""Time raised linalg modules on the MLIR CPU backend under two pass pipelines, on the same
inputs, in one process: a before/after table for a change of the backend's pipeline.

    python scripts/compare_pipelines.py BENCH_OUT_DIR --before OLD.txt [--after NEW.txt]
    python scripts/compare_pipelines.py BENCH_OUT_DIR --before-tile 8x16 --rounds 3 [--kernels gemm 2mm]

BENCH_OUT_DIR is a `synth bench --out` directory (its kernels/ and raised/ folders). A
pipeline file holds one pass-pipeline string; `--before-tile RxC` makes the "before" the
current pipeline with another register tile for contractions. Without --after the
backend's current tiled pipeline is the "after". `--rounds N` alternates the two N times
(each round compiles, runs once and times `--repeats` calls) and reports the median of the
rounds' medians: this VM's timings move between processes and minutes, so a change is
judged only side by side. The two pipelines' outputs are compared before a timing counts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    before = ap.add_mutually_exclusive_group(required=True)
    before.add_argument("--before", help="file with the old pipeline (Pipeline.to_text: one step a line)")
    before.add_argument("--before-tile", help="the current pipeline with this register tile, ROWSxCOLS (8x16)")
    ap.add_argument("--after", help="file with the new pipeline (Pipeline.to_text; default: the current one)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1, help="alternate the pipelines this many times")
    ap.add_argument("--kernels", nargs="*", help="only these kernels (stems of the raised files)")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)

    from synth.analysis.model import load_kernel
    from synth.backends.mlir_cpu import MlirCpuBackend, tiled_pipeline
    from synth.backends.registry import pinned_cpu_threads
    from synth.frontend.reader import load_source
    from synth.numerics import compare_outputs
    from synth.errors import ExecutionError
    from synth.execution import Pipeline
    from synth.synthesis.spec import diagonally_dominant, finite_outputs, random_draw

    if args.before_tile:
        rows, cols = (int(x) for x in args.before_tile.lower().split("x"))
        old = tiled_pipeline((rows, cols))
    else:
        old = Pipeline.from_text(Path(args.before).read_text())
    pipelines = {"before": old,
                 "after": Pipeline.from_text(Path(args.after).read_text()) if args.after else tiled_pipeline()}
    out = Path(args.out_dir)
    print("| kernel | before s | after s | after/before |\n|---|---|---|---|")
    with pinned_cpu_threads(args.threads):
        for raised in sorted((out / "raised").glob("*linalg*.mlir")):
            stem = raised.name.split(".")[0]
            kernels = list((out / "kernels").glob(f"{stem}.*.mlir"))
            if not kernels or (args.kernels and stem not in args.kernels):
                continue
            source = load_source(kernels[0], warn=False)
            text = raised.read_text()
            fn = next(l.split("@")[1].split("(")[0] for l in text.splitlines()
                      if "func.func @" in l and "_raised(" not in l)
            kernel = load_kernel(source, fn)
            inputs = kernel.arguments(kernel.sizes.original(), random_draw(np.random.default_rng(2024)))
            inputs = inputs[: kernel.n_arguments]
            if not finite_outputs(MlirCpuBackend(pipelines["after"]).prepare(text, fn).run(
                    [np.copy(a) if isinstance(a, np.ndarray) else a for a in inputs])):
                inputs = diagonally_dominant(inputs)  # a solver on a uniform draw (cholesky)
            rounds, outputs, failed = {name: [] for name in pipelines}, {}, {}
            for _ in range(max(1, args.rounds)):
                for name, pipe in pipelines.items():
                    if name in failed:
                        continue
                    prepared = MlirCpuBackend(pipe).prepare(text, fn)
                    try:
                        outputs[name] = prepared.run([np.copy(a) if isinstance(a, np.ndarray) else a
                                                      for a in inputs])
                        rounds[name].append(prepared.time(inputs, 1, args.repeats).seconds)
                    except ExecutionError as e:  # a pipeline that does not compile or crashes
                        failed[name] = "failed: " + str(e).splitlines()[0][:60]
            times = {name: failed.get(name) or f"{statistics.median(rounds[name]):.3g}" for name in pipelines}
            if len(outputs) == 2 and not failed:
                diff = compare_outputs(outputs["before"], outputs["after"], kernel.written)
                if diff:
                    print(f"{stem}: after differs from before: {diff}", file=sys.stderr)
            ratio = (f"{float(times['after']) / float(times['before']):.2f}" if not failed else "")
            print(f"| {stem} | {times['before']} | {times['after']} | {ratio} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
