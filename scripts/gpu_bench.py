#!/usr/bin/env python3
"""Time raised stablehlo functions on jax's GPU backend (standalone: numpy + jax only).

For a machine that has a GPU and jax with CUDA but none of synth's other dependencies:
copy this file and the raised `.mlir` files there, run it, bring the JSON back.

Usage:
    python gpu_bench.py RAISED [RAISED ...] [--baseline BASELINE.json] [-o gpu.json]
                        [--warmup 2] [--repeats 10] [--rtol 1e-6] [--seed 0] [--platform gpu]

RAISED: `synth raise --target stablehlo` output files, or directories of them (`*.mlir`).
Every `func.func @NAME_raised` in them is cut out of its module (the `@NAME` wrapper holds
bufferization ops that jax cannot parse), renamed `@main`, compiled by XLA for the platform
and for CPU, and run on seeded random inputs of the shapes its signature declares (floats
uniform in [-1, 1), integers in [1, 10)). Checks: the platform's results are finite and
agree with XLA CPU's (max |gpu - cpu| <= rtol * max(1, max |cpu|)). Where XLA CPU's
results on the draw are not finite (a Cholesky factorisation or triangular solve of a
random matrix) or grow more than 1e4 times the inputs' magnitude (an LU without
pivoting, whose grown elements rounding decides), the draw is made diagonally dominant (n
added to the diagonal of each square float matrix) and used on both; where they are still not finite (a float scalar
that divides or goes under a square root, as correlation's float_n), float scalars are
drawn in [1, 2) as well; where the outputs on XLA CPU move more than 1000 times as much
as the float inputs when these move by 1e-12 relative (1e-6 for f32: durbin's Levinson
recursion on uniform r, where rounding decides the digits compared), the floats are
divided by the largest extent, if the computation is well-conditioned on that draw (as
synth bench picks its draw); `inputs` in the JSON says which. Timing: inputs are put
on the device once; each sample is `execute` + `block_until_ready`; the median is reported.
`--platform cpu` runs the same on CPU (to try the script where there is no GPU).

BASELINE.json (optional) gives the baseline time of each function, for speedups. Accepted
shapes, keyed by the file stem (`gemm.stablehlo`, looked up first) or the original
function name (`kernel_gemm`):
    {"kernel_gemm": 0.21}                                       seconds
    {"kernel_gemm": {"seconds": 0.21, ...}}                     a timing record
    {"kernel_gemm": {"affine-mlir-O3": {"seconds": 0.21}}}      per backend
    [{"function": "kernel_gemm", "backend": "affine-mlir-O3", "seconds": 0.21}, ...]
Output JSON: {"platform", "device", "jax", "warmup", "repeats", "rtol", "results": [{"file",
"function", "raised", "shapes", "finite", "agrees_with_cpu", "max_rel_diff",
"compile_seconds", "inputs", "seconds", "samples", "baseline_seconds", "speedup", "error"}]}.
Exit code 0 when every function compiled, was finite and agreed; 1 otherwise; 2 when jax
has no such platform.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

BASELINE_BACKEND = "affine-mlir-O3"
DTYPES = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "i64": np.int64, "i32": np.int32,
          "i16": np.int16, "i8": np.int8, "i1": np.bool_}
_TENSOR = re.compile(r"tensor<((?:\d+x)*)([A-Za-z]\w*)>")
_ALIAS = re.compile(r"^[#!][\w.$-]+\s*=.*$", re.M)
_RAISED = re.compile(r"func\.func\s+(?:public\s+|private\s+)?@([\w$.]+_raised)\(")


def _balanced(text: str, start: int, open_: str, close: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced {open_}{close}")


def raised_functions(text: str):
    """(name, argument (shape, elem) list, module text with it as @main) per @*_raised."""
    aliases = "".join(a + "\n" for a in _ALIAS.findall(text))
    for m in _RAISED.finditer(text):
        args_end = _balanced(text, m.end() - 1, "(", ")")
        args = [(tuple(int(d) for d in t.group(1).split("x")[:-1]), t.group(2))
                for t in _TENSOR.finditer(text[m.end():args_end - 1])]
        body = text.index("{", args_end)
        if re.search(r"\battributes\s*$", text[args_end:body]):
            body = text.index("{", _balanced(text, body, "{", "}"))
        end = _balanced(text, body, "{", "}")
        func = text[m.start():end].replace(f"@{m.group(1)}(", "@main(", 1)
        yield m.group(1), args, f"{aliases}module {{\n{func}\n}}\n"


def random_inputs(args, rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for shape, elem in args:
        if elem not in DTYPES:
            raise ValueError(f"unsupported element type {elem}")
        dtype = DTYPES[elem]
        if elem.startswith("f"):
            out.append(rng.uniform(-1.0, 1.0, size=shape).astype(dtype))
        else:
            out.append(rng.integers(1, 10, size=shape).astype(dtype))
    return out


def baseline_seconds(data, keys: list[str]) -> float | None:
    """The baseline time for the first of `keys` found in `data` (formats in the docstring)."""
    def seconds(v):
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, dict):
            if "seconds" in v:
                return float(v["seconds"])
            if BASELINE_BACKEND in v:
                return seconds(v[BASELINE_BACKEND])
        return None

    if isinstance(data, list):
        for key in keys:
            for rec in data:
                name = rec.get("function") or rec.get("kernel") or rec.get("name")
                if name == key and rec.get("backend", BASELINE_BACKEND) == BASELINE_BACKEND:
                    return seconds(rec)
        return None
    for key in keys:
        if key in data:
            return seconds(data[key])
    return None


class Platform:
    def __init__(self, name: str):
        import jax
        from jax.extend.backend import get_backend

        self.jax = jax
        self.backend = get_backend(name)
        self.device = self.backend.local_devices()[0]

    def compile(self, module_text: str):
        from jax._src.lib import xla_client

        if hasattr(self.backend, "compile_and_load"):  # jax >= 0.6
            return self.backend.compile_and_load(module_text, xla_client.DeviceList((self.device,)),
                                                 xla_client.CompileOptions())
        return self.backend.compile(module_text, xla_client.CompileOptions())

    def put(self, arrays):
        return [self.jax.device_put(a, self.device) for a in arrays]


def _finite(arrays) -> bool:
    return all(bool(np.all(np.isfinite(a))) for a in arrays if a.dtype.kind == "f")


GROWTH = 1e4  # synth.synthesis.spec.GROWTH


def grown(inputs: list, outputs: list) -> bool:
    """Whether the finite float outputs exceed the float inputs' largest magnitude (at
    least 1) more than GROWTH times (synth.synthesis.spec.grown: an LU without pivoting of
    a uniform random matrix, whose elements rounding then decides)."""
    def peak(arrays) -> float:
        vals = [np.max(np.abs(a[np.isfinite(a)]), initial=0.0) for a in arrays if a.dtype.kind == "f" and a.size]
        return float(max(vals, default=0.0))
    return peak([np.asarray(o) for o in outputs]) > GROWTH * max(1.0, peak([np.asarray(i) for i in inputs]))


def diagonally_dominant(inputs: list) -> list:
    """n added to the diagonal of every square float matrix, as PolyBench initialises the
    matrices of its solvers (synth searches and tests such kernels on the same draws)."""
    return [a + a.shape[0] * np.eye(a.shape[0], dtype=a.dtype)
            if a.dtype.kind == "f" and a.ndim == 2 and a.shape[0] == a.shape[1] else a for a in inputs]


def positive_scalars(inputs: list, rng: np.random.Generator) -> list:
    """Float scalars drawn in [1, 2) (PolyBench passes such scalars as sizes, e.g. float_n)."""
    return [np.asarray(rng.uniform(1.0, 2.0), dtype=a.dtype) if a.dtype.kind == "f" and a.ndim == 0 else a
            for a in inputs]


PERTURBATION = {"float64": 1e-12, "float32": 1e-6}  # synth.numerics.PERTURBATION
ILL_CONDITIONED = 1e3  # synth.validation.testing.ILL_CONDITIONED


def amplification(run, inputs: list, outputs: list, seed: int) -> float:
    """How many times the outputs move more than the float inputs when those move by
    PERTURBATION relative (synth.numerics.amplification, relative to max(1, max |out|)):
    above ILL_CONDITIONED, rounding decides the outputs on this draw (durbin's Levinson
    recursion on uniform r), so no two backends need agree on them."""
    rng = np.random.default_rng(seed + 1)
    moved = [a * (1 + PERTURBATION.get(a.dtype.name, 1e-12) * rng.uniform(-1, 1, a.shape)).astype(a.dtype)
             if a.dtype.kind == "f" else a for a in inputs]
    top = 0.0
    for w, h in zip(outputs, run(moved)):
        w, h = np.asarray(w), np.asarray(h)
        if w.dtype.kind != "f" or not w.size:
            continue
        w64, h64 = w.astype(np.float64).ravel(), h.astype(np.float64).ravel()
        ok = np.isfinite(w64) & np.isfinite(h64)
        if ok.any():
            rel = np.abs(w64[ok] - h64[ok]) / (np.abs(w64[ok]) + max(1.0, float(np.max(np.abs(w64[ok])))))
            top = max(top, float(rel.max()) / PERTURBATION.get(w.dtype.name, 1e-12))
    return top


def scaled_down(inputs: list) -> list:
    """Every float array divided by the largest extent (synth.synthesis.spec.scaled_down):
    a draw on which a recurrence that multiplies its inputs into its state stays well
    conditioned."""
    n = max([max(a.shape) for a in inputs if a.ndim] or [1])
    return [(a / n).astype(a.dtype) if a.dtype.kind == "f" else a for a in inputs]


def choose_draw(run, inputs: list, seed: int) -> tuple[list, list, str]:
    """(inputs, their outputs, what was done to the uniform draw): the draw made
    diagonally dominant where its outputs are not finite or grown, float scalars drawn in
    [1, 2) where they are still not finite, and scaled down where the computation is
    ill-conditioned on it (and not on the scaled draw)."""
    want = run(inputs)
    how = "uniform"
    if not _finite(want) or grown(inputs, want):  # a factorisation or solve on a matrix that
        # is not well-conditioned (NaN, or LU's elements grown until rounding decides them)
        inputs = diagonally_dominant(inputs)
        want = run(inputs)
        how += ", n added to the diagonal of square matrices"
    if not _finite(want):  # a scalar such as correlation's float_n divides or goes under a sqrt
        inputs = positive_scalars(inputs, np.random.default_rng(seed))
        want = run(inputs)
        how += ", float scalars in [1, 2)"
    if _finite(want) and amplification(run, inputs, want, seed) > ILL_CONDITIONED:
        calmer = scaled_down(inputs)
        calm = run(calmer)
        if _finite(calm) and amplification(run, calmer, calm, seed) <= ILL_CONDITIONED:
            inputs, want = calmer, calm
            how += ", floats divided by the largest extent (ill-conditioned otherwise)"
    return inputs, want, how


def bench_function(path: Path, name: str, args, module: str, target: Platform, cpu: Platform,
                   opts, baseline) -> dict:
    original = name[: -len("_raised")]
    base = baseline_seconds(baseline, [path.stem, original]) if baseline is not None else None
    rec = {"file": str(path), "function": original, "raised": name,
           "shapes": [f"{'x'.join(map(str, s)) or 'scalar'}:{e}" for s, e in args], "error": None,
           "baseline_seconds": base}
    inputs = random_inputs(args, np.random.default_rng(opts.seed))
    t0 = time.perf_counter()
    exe = target.compile(module)
    rec["compile_seconds"] = time.perf_counter() - t0
    cpu_exe = cpu.compile(module)
    inputs, want, rec["inputs"] = choose_draw(
        lambda xs: [np.asarray(r) for r in cpu_exe.execute(cpu.put(xs))], inputs, opts.seed)
    dev_inputs = target.put(inputs)
    got = [np.asarray(r) for r in exe.execute(dev_inputs)]
    rec["finite"] = all(bool(np.all(np.isfinite(g))) for g in got if g.dtype.kind == "f")
    diffs = [float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)), initial=0.0))
             / max(1.0, float(np.max(np.abs(w.astype(np.float64)), initial=0.0))) for g, w in zip(got, want)]
    rec["max_rel_diff"] = max(diffs, default=0.0)
    rec["agrees_with_cpu"] = len(got) == len(want) and rec["max_rel_diff"] <= opts.rtol

    def call():
        for r in exe.execute(dev_inputs):
            r.block_until_ready()

    for _ in range(opts.warmup):
        call()
    samples = []
    for _ in range(opts.repeats):
        t0 = time.perf_counter()
        call()
        samples.append(time.perf_counter() - t0)
    rec["seconds"], rec["samples"] = statistics.median(samples), samples
    b = rec["baseline_seconds"]
    rec["speedup"] = b / rec["seconds"] if b and rec["seconds"] > 0 else None
    return rec


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("raised", nargs="+", help="raised stablehlo .mlir files or directories of them")
    p.add_argument("--baseline", help="baseline timings JSON (for speedups)")
    p.add_argument("-o", "--output", default="gpu_bench.json")
    p.add_argument("--platform", default="gpu", help="jax platform to time (default gpu)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--rtol", type=float, default=1e-6, help="agreement with CPU, relative to max |cpu|")
    p.add_argument("--seed", type=int, default=0)
    opts = p.parse_args(argv)

    import jax

    jax.config.update("jax_enable_x64", True)
    try:
        target, cpu = Platform(opts.platform), Platform("cpu")
    except RuntimeError as e:  # "Unknown backend: 'gpu' requested, but no platforms ..."
        print(f"error: {e}", file=sys.stderr)
        return 2
    baseline = json.loads(Path(opts.baseline).read_text()) if opts.baseline else None
    files = []
    for item in map(Path, opts.raised):
        files += sorted(item.glob("*.mlir")) if item.is_dir() else [item]
    results = []
    for path in files:
        text = path.read_text()
        for name, args, module in raised_functions(text):
            if "stablehlo." not in module:
                print(f"{path}: @{name} is not stablehlo, skipped", file=sys.stderr)
                continue
            try:
                rec = bench_function(path, name, args, module, target, cpu, opts, baseline)
            except (RuntimeError, ValueError) as e:  # XLA compile/run errors are RuntimeErrors
                rec = {"file": str(path), "function": name[: -len("_raised")], "raised": name,
                       "error": f"{type(e).__name__}: {e}"}
            results.append(rec)
            status = rec["error"] or (f"{rec['seconds']:.6f} s, rel diff {rec['max_rel_diff']:.1e}"
                                      + ("" if rec["finite"] and rec["agrees_with_cpu"] else " MISMATCH"))
            print(f"{path.name} @{name}: {status}", file=sys.stderr)
    out = {"platform": opts.platform, "device": str(target.device), "jax": jax.__version__,
           "warmup": opts.warmup, "repeats": opts.repeats, "rtol": opts.rtol, "results": results}
    Path(opts.output).write_text(json.dumps(out, indent=2))
    ok = results and all(r["error"] is None and r["finite"] and r["agrees_with_cpu"] for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
