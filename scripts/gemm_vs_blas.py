"""gemm raised to linalg, on the mlir-cpu backend, against OpenBLAS (NumPy's matmul) on the
same inputs, one thread each, side by side: the issue's "gemm as linalg within 1.5x of
OpenBLAS's time on one thread".

    python scripts/gemm_vs_blas.py BENCH_OUT_DIR [--rounds 5] [--repeats 5]

BENCH_OUT_DIR is a `synth bench --out` directory holding gemm's kernel and its linalg raise
(kernels/gemm.*.mlir, raised/gemm.linalg.mlir). Each round compiles the raise, then times
`--repeats` calls of it and of NumPy's `C = alpha * (A @ B) + beta * C` (the kernel's
arithmetic: one dgemm and two passes over C) and of `A @ B` alone (dgemm only, a lower
bound for the library), each after one untimed call; the table gives each round's medians
and the ratio raise / library. This VM's timings move by tens of percent between minutes,
so only the ratios of one round compare. The raise's output is checked against NumPy's
before any timing counts. NumPy's BLAS must be OpenBLAS (the script says which it is).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before NumPy loads its BLAS

import numpy as np  # noqa: E402


def _blas_name() -> str:
    try:
        return np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except Exception:  # older NumPy: no dict form
        return "unknown"


def _median_seconds(call, repeats: int) -> float:
    call()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)

    from synth.analysis.model import load_kernel
    from synth.backends.mlir_cpu import MlirCpuBackend
    from synth.backends.registry import pinned_cpu_threads
    from synth.frontend.reader import load_source
    from synth.synthesis.spec import random_draw

    out = Path(args.out_dir)
    raised, kernels = out / "raised" / "gemm.linalg.mlir", sorted((out / "kernels").glob("gemm.*.mlir"))
    if not raised.exists() or not kernels:
        print(f"{out}: no raised/gemm.linalg.mlir or kernels/gemm.*.mlir (a `synth bench --out` directory)",
              file=sys.stderr)
        return 2
    kernel = load_kernel(load_source(kernels[0], warn=False), "kernel_gemm")
    inputs = kernel.arguments(kernel.sizes.original(), random_draw(np.random.default_rng(2024)))
    inputs = inputs[: kernel.n_arguments]
    arrays = [a for a in inputs if isinstance(a, np.ndarray) and a.ndim == 2]
    scalars = [value for kind, value in (x for x in inputs if isinstance(x, tuple)) if kind.startswith("f")]
    c, a, b = arrays  # PolyBench's order: C, A, B
    alpha, beta = scalars  # (scalars are (type, value) pairs; the sizes are i32)
    want = alpha * (a @ b) + beta * c

    print(f"gemm {c.shape[0]} x {c.shape[1]} x {a.shape[1]}, f64, one thread; NumPy {np.__version__}, "
          f"BLAS: {_blas_name()}")
    print("| round | raise (mlir-cpu) s | alpha*A@B+beta*C s | A@B s | raise / library | raise / A@B |")
    print("|---|---|---|---|---|---|")
    ratios, bounds = [], []
    with pinned_cpu_threads(1):
        for r in range(args.rounds):
            prepared = MlirCpuBackend().prepare(raised.read_text(), "kernel_gemm_raised")
            got = prepared.run([np.copy(x) if isinstance(x, np.ndarray) else x for x in inputs])
            written = [g for g in got if isinstance(g, np.ndarray) and g.shape == c.shape]
            if not written or not np.allclose(written[0], want, rtol=1e-9, atol=1e-9):
                print("the raise's output differs from NumPy's", file=sys.stderr)
                return 1
            mine = prepared.time(inputs, 1, args.repeats).seconds
            library = _median_seconds(lambda: alpha * (a @ b) + beta * c, args.repeats)
            product = _median_seconds(lambda: a @ b, args.repeats)
            ratios.append(mine / library)
            bounds.append(mine / product)
            print(f"| {r + 1} | {mine:.4f} | {library:.4f} | {product:.4f} | {ratios[-1]:.2f} | {bounds[-1]:.2f} |",
                  flush=True)
    print(f"median over rounds: raise / library {statistics.median(ratios):.2f} "
          f"(range {min(ratios):.2f} to {max(ratios):.2f}), raise / A@B {statistics.median(bounds):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
