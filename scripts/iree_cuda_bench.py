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

DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32}


def inputs_for(signature: list, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in signature:
        if dtype.startswith("f"):
            out.append(rng.uniform(-1.0, 1.0, shape).astype(DTYPES[dtype]))
        else:
            out.append(rng.integers(1, 10, shape).astype(DTYPES[dtype]))
    return out


def checksums(arrays) -> list[tuple[float, float]]:
    return [(float(np.sum(a, dtype=np.float64)), float(np.sum(np.square(a, dtype=np.float64))))
            for a in (np.asarray(x) for x in arrays)]


def compile_all(files: list[str], sm: str, out: Path, seed: int) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from synth.backends.iree import COMMON_FLAGS, INPUT_TYPES, compile_vmfb, default_cache_dir, generalize_elementwise
    from synth.backends.registry import raised_function
    from synth.backends.run import run_raised
    from synth.semantics.raised import detect_dialect, load_raised, top_level_functions

    out.mkdir(parents=True, exist_ok=True)
    manifest = {}
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
            vmfb = compile_vmfb(module, flags, default_cache_dir())
            stem = f"{Path(f).stem}"
            (out / f"{stem}.vmfb").write_bytes(vmfb.read_bytes())
            sig = load_raised(f, name, text).signature()
            signature = [[list(t.shape or ()), t.dtype] for t in sig.arguments]
            expected = run_raised(dialect, load_raised(f, name, text).text, name, inputs_for(signature, seed))
            manifest[stem] = {"file": f, "function": fn.name, "dialect": dialect, "inputs": signature,
                              "checksums": checksums(expected)}
            print(f"compiled {stem} ({dialect}) for {sm}", flush=True)
    (out / "manifest.json").write_text(json.dumps({"seed": seed, "sm": sm, "kernels": manifest}, indent=1))
    return 0


def run_all(directory: Path, warmup: int, repeats: int, output: str | None) -> int:
    import iree.runtime as rt

    data = json.loads((directory / "manifest.json").read_text())
    config = rt.Config("cuda")
    rows, ok = [], True
    for stem, k in sorted(data["kernels"].items()):
        context = rt.SystemContext(config=config)
        module = rt.VmModule.copy_buffer(context.instance, (directory / f"{stem}.vmfb").read_bytes())
        context.add_vm_module(module)
        entry = context.modules[module.name][k["function"]]
        args = [rt.asdevicearray(config.device, a) for a in inputs_for(k["inputs"], data["seed"])]
        results = entry(*args)
        results = results if isinstance(results, (tuple, list)) else [results]
        got = checksums([r.to_host() for r in results])
        agrees = all(np.isclose(g, w, rtol=1e-9, atol=1e-9).all() for g, w in zip(got, k["checksums"]))
        ok &= agrees
        samples = []
        for i in range(warmup + repeats):
            t0 = time.perf_counter()
            entry(*args)  # returns when the results are ready on the device (as synth's IREE backend times it)
            if i >= warmup:
                samples.append(time.perf_counter() - t0)
        rows.append({"kernel": stem, "function": k["function"], "dialect": k["dialect"],
                     "seconds": statistics.median(samples), "samples": samples, "agrees": agrees})
        print(f"{stem:28s} {statistics.median(samples):.6f} s  agrees={agrees}", flush=True)
    if output:
        Path(output).write_text(json.dumps({"driver": "cuda", "sm": data["sm"], "results": rows}, indent=1))
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
    args = ap.parse_args()
    if args.cmd == "compile":
        return compile_all(args.files, args.sm, Path(args.out), args.seed)
    return run_all(Path(args.directory), args.warmup, args.repeats, args.output)


if __name__ == "__main__":
    sys.exit(main())
