#!/usr/bin/env python3
"""Time raised functions on a GPU through IREE's CUDA backend, compiled here, run there.

IREE's compiler and synth's MLIR bindings need not be on the GPU machine: this machine
compiles, the GPU machine only runs (numpy + the iree-base-runtime wheel).

    # here: raised modules (linalg or stablehlo) -> .vmfb for CUDA + a manifest
    python scripts/iree_cuda_bench.py compile RAISED... --sm sm_90 --out DIR
    # on the GPU machine (only numpy and iree.runtime needed)
    python scripts/iree_cuda_bench.py run DIR [--repeats 20] [-o results.json]

`compile` cuts `@NAME_raised` out of each module (linalg's named elementwise ops
generalized first, as synth's IREE backend does), compiles it for CUDA with f64 kept
(`--iree-input-demote-f64-to-f32=false`), and records the input signature and, for a
fixed seed, checksums of the outputs computed on this machine's CPU (XLA for stablehlo,
MLIR for linalg). `run` feeds the same seeded inputs on the GPU, checks the checksums
(sum and sum of squares, relative 1e-9) and times the call (inputs and results on the
device, as XLA is timed by gpu_bench.py; median of the repeats after a warm-up).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gpu_bench.py, beside this file

DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32}


def inputs_for(signature: list, seed: int, mode: int = 0) -> list[np.ndarray]:
    """Seeded inputs; mode 1 makes square float matrices diagonally dominant, mode 2 also
    draws float scalars in [1, 2) (gpu_bench.py's fallbacks, for draws whose outputs are
    not finite or grown: a factorisation, a solve, an LU, correlation's float_n); modes 3-5
    are modes 0-2 with the floats divided by the largest extent (a draw the computation is
    ill-conditioned on: gpu_bench.choose_draw)."""
    from gpu_bench import diagonally_dominant, positive_scalars, scaled_down

    if mode >= 3:
        return scaled_down(inputs_for(signature, seed, mode - 3))

    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in signature:
        if dtype.startswith("f"):
            out.append(rng.uniform(-1.0, 1.0, shape).astype(DTYPES[dtype]))
        else:
            out.append(rng.integers(1, 10, shape).astype(DTYPES[dtype]))
    if mode >= 1:
        out = diagonally_dominant(out)
    if mode >= 2:
        out = positive_scalars(out, np.random.default_rng(seed))
    return out


def checksums(arrays) -> list[tuple[float, float]]:
    return [(float(np.sum(a, dtype=np.float64)), float(np.sum(np.square(a, dtype=np.float64))))
            for a in (np.asarray(x) for x in arrays)]


def compile_all(files: list[str], sm: str, out: Path, seed: int) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from synth.backends.iree import COMMON_FLAGS, INPUT_TYPES, compile_vmfb, default_cache_dir, generalize_elementwise
    from synth.backends.registry import raised_function
    from synth.backends.run import run_raised
    from synth.errors import ExecutionError
    from gpu_bench import choose_draw
    from synth.semantics.raised import detect_dialect, load_raised, top_level_functions

    out.mkdir(parents=True, exist_ok=True)
    manifest, skipped = {}, {}
    for f in files:
        text = Path(f).read_text()
        dialect = detect_dialect(text)
        for name, _, _ in top_level_functions(text):
            if not name.endswith("_raised"):
                continue
            fn = raised_function(text, name[: -len("_raised")])
            module = fn.module()
            if dialect == "linalg":
                module = generalize_elementwise(module, default_cache_dir())
            flags = (f"--iree-input-type={INPUT_TYPES[dialect]}", "--iree-hal-target-device=cuda",
                     f"--iree-cuda-target={sm}", *COMMON_FLAGS)
            stem = f"{Path(f).stem}"
            try:
                vmfb = compile_vmfb(module, flags, default_cache_dir())
            except ExecutionError as e:  # e.g. stablehlo.cholesky: IREE has no lowering for it
                skipped[stem] = str(e).splitlines()[0][:300]
                print(f"skipped {stem}: {skipped[stem]}", flush=True)
                continue
            (out / f"{stem}.vmfb").write_bytes(vmfb.read_bytes())
            sig = load_raised(f, name, text).signature()
            signature = [[list(t.shape or ()), t.dtype] for t in sig.arguments]
            raised_text = load_raised(f, name, text).text
            _, expected, how = choose_draw(
                lambda xs: [np.asarray(e) for e in run_raised(dialect, raised_text, name, xs)],
                inputs_for(signature, seed, 0), seed)
            mode = (2 if "float scalars" in how else 1 if "diagonal" in how else 0) + (3 if "divided" in how else 0)
            manifest[stem] = {"file": f, "function": fn.name, "dialect": dialect, "inputs": signature,
                              "input_mode": mode, "inputs_drawn": how, "checksums": checksums(expected)}
            print(f"compiled {stem} ({dialect}) for {sm}", flush=True)
    (out / "manifest.json").write_text(json.dumps({"seed": seed, "sm": sm, "kernels": manifest,
                                                   "not_compiled": skipped}, indent=1))
    return 0


def run_one(directory: Path, stem: str, warmup: int, repeats: int) -> dict:
    """One kernel: check its checksums and time it (in a process of its own: a call that
    fails on the device, as cholesky's linalg loops do, leaves the CUDA device unusable)."""
    import iree.runtime as rt

    data = json.loads((directory / "manifest.json").read_text())
    k = data["kernels"][stem]
    row = {"kernel": stem, "function": k["function"], "dialect": k["dialect"]}
    config = rt.Config("cuda")
    context = rt.SystemContext(config=config)
    module = rt.VmModule.copy_buffer(context.instance, (directory / f"{stem}.vmfb").read_bytes())
    context.add_vm_module(module)
    entry = context.modules[module.name][k["function"]]
    args = [rt.asdevicearray(config.device, a) for a in inputs_for(k["inputs"], data["seed"], k.get("input_mode", 0))]
    try:
        results = entry(*args)
    except ValueError as e:  # the runtime's error for a failed call (a bad allocation, ...)
        return {**row, "error": str(e).splitlines()[0][:300]}
    results = results if isinstance(results, (tuple, list)) else [results]
    got = checksums([r.to_host() for r in results])
    agrees = all(np.isclose(g, w, rtol=1e-9, atol=1e-9).all() for g, w in zip(got, k["checksums"]))
    # how far the checksums are apart (relative to the CPU's, at least 1): a wrong result's size
    diff = max((abs(a - b) / max(1.0, abs(b)) for g, w in zip(got, k["checksums"]) for a, b in zip(g, w)),
               default=0.0)
    samples = []
    for i in range(warmup + repeats):
        t0 = time.perf_counter()
        entry(*args)  # returns when the results are ready on the device (as synth's IREE backend times it)
        if i >= warmup:
            samples.append(time.perf_counter() - t0)
    return {**row, "seconds": statistics.median(samples), "samples": samples, "agrees": bool(agrees),
            "checksums": got, "checksum_rel_diff": diff}


def run_all(directory: Path, warmup: int, repeats: int, output: str | None) -> int:
    import subprocess

    data = json.loads((directory / "manifest.json").read_text())
    rows, ok = [], True
    for stem, k in sorted(data["kernels"].items()):
        proc = subprocess.run([sys.executable, __file__, "run", str(directory), "--only", stem,
                               "--warmup", str(warmup), "--repeats", str(repeats)],
                              capture_output=True, text=True)
        last = proc.stdout.strip().splitlines()[-1:] or [""]
        try:
            row = json.loads(last[0])
        except json.JSONDecodeError:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            row = {"kernel": stem, "function": k["function"], "dialect": k["dialect"],
                   "error": f"exit code {proc.returncode}: {tail[:300]}"}
        ok &= "error" not in row and row["agrees"]
        rows.append(row)
        print(f"{stem:28s} " + (f"error: {row['error']}" if "error" in row
                                else f"{row['seconds']:.6f} s  agrees={row['agrees']} (checksums {row['checksum_rel_diff']:.1e} apart)"), flush=True)
    if output:
        Path(output).write_text(json.dumps({"driver": "cuda", "sm": data["sm"], "results": rows,
                                            "not_compiled": data.get("not_compiled", {})}, indent=1))
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("files", nargs="+")
    c.add_argument("--sm", default="sm_80", help="CUDA target (this IREE has no sm_90: sm_80 PTX, which the driver JITs for newer GPUs)")
    c.add_argument("--out", required=True)
    c.add_argument("--seed", type=int, default=0)
    r = sub.add_parser("run")
    r.add_argument("directory")
    r.add_argument("--warmup", type=int, default=3)
    r.add_argument("--repeats", type=int, default=20)
    r.add_argument("-o", "--output")
    r.add_argument("--only", help="run this one kernel here and print its record as JSON")
    args = ap.parse_args()
    if args.cmd == "compile":
        return compile_all(args.files, args.sm, Path(args.out), args.seed)
    if args.only:
        print(json.dumps(run_one(Path(args.directory), args.only, args.warmup, args.repeats)))
        return 0
    return run_all(Path(args.directory), args.warmup, args.repeats, args.output)


if __name__ == "__main__":
    sys.exit(main())
