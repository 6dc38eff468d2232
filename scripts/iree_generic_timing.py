#!/usr/bin/env python3
"""Time a shape-generic stablehlo raise on IREE (llvm-cpu) compiled as it is (dynamic
shapes, synth.backends.iree_dynamic, local-sync driver) side by side with the same text
compiled per input shapes and with a static raise of the kernel, at one size, in one
process, rounds interleaved; each checked against the original loops first.

    python scripts/iree_generic_timing.py benchmarks/polybench-c/nussinov.c GENERIC.mlir STATIC.mlir \\
        -D MEDIUM_DATASET [--rounds 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", type=Path)
    ap.add_argument("generic", type=Path)
    ap.add_argument("static", type=Path)
    ap.add_argument("-D", dest="defines", action="append", default=[])
    ap.add_argument("--target", default="stablehlo", choices=("stablehlo", "linalg"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--driver", default="local-task",
                    help="IREE driver of the per-shape and static contenders (the dynamic one runs on local-sync)")
    ap.add_argument("--dynamic-driver", default="local-sync",
                    help="IREE driver of the dynamic contender (the backend's: local-sync)")
    args = ap.parse_args()
    import synth.backends.iree as iree_backend

    ap_dynamic = args.dynamic_driver
    iree_backend.DRIVERS["llvm-cpu"] = args.driver
    iree_backend.SYNC_DRIVERS["llvm-cpu"] = ap_dynamic
    from synth.analysis.function import list_functions
    from synth.analysis.model import load_kernel
    from synth.backends.iree import IreeBackend
    from synth.backends.registry import pinned_cpu_threads
    from synth.execution import run_function
    from synth.frontend.reader import COptions, load_input
    from synth.synthesis.spec import random_draw

    source = load_input(args.source, c=COptions(defines=tuple(args.defines)), warn=False)
    name = list_functions(source)[0]
    kernel = load_kernel(source, name)
    values = kernel.sizes.original()
    call = kernel.arguments(values, random_draw(np.random.default_rng(3)))
    inputs = [a if isinstance(a, np.ndarray) else np.asarray(a[1], dtype=kernel.tensor_type(i, values).numpy_dtype)
              for i, a in enumerate(call[: kernel.n_arguments])]
    print("running the loops", flush=True)
    want = run_function(kernel.at(values).text, name, [a.copy() if isinstance(a, np.ndarray) else a for a in call],
                        opt_level=2).outputs
    one = IreeBackend(args.target, threads=1)
    per = IreeBackend(args.target, threads=1, per_shape=True)
    import time
    contenders = {}
    for label, backend, path in [("generic, as it is (dynamic)", one, args.generic),
                                 ("generic, per input shapes", per, args.generic), ("static raise", one, args.static)]:
        t0 = time.monotonic()
        contenders[label] = backend.prepare(path.read_text(), name)
        print(f"  {label}: prepared in {time.monotonic() - t0:.1f} s", flush=True)
    print(f"{args.source.name} at {values}; one core; dynamic on {args.dynamic_driver}, per-shape and static on {args.driver}", flush=True)
    for label, p in contenders.items():
        got = p.run([x.copy() for x in inputs])
        for k, o in enumerate(kernel.outputs):
            np.testing.assert_allclose(got[k], want[o], rtol=1e-9, atol=1e-12, err_msg=label)  # (fdtd-2d: 3e-15 off near 0)
        print(f"  {label}: {getattr(p, 'pipeline_name', None) or 'static'}, compile {p.compile_seconds:.2f} s, "
              "values equal to the loops'", flush=True)
    samples = {label: [] for label in contenders}
    with pinned_cpu_threads(1):
        for _ in range(args.rounds):
            for label, p in contenders.items():
                samples[label].append(p.time(inputs, warmup=1, repeats=args.repeats).seconds)
    for label, s in samples.items():
        print(f"  {label:30s} median {statistics.median(s):.3g} s  (rounds: {', '.join(f'{x:.3g}' for x in s)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
