#!/usr/bin/env python3
"""Check the Polygeist-style twins in benchmarks/polybench-polygeist/ by execution.

For each PolyBench kernel, `benchmarks/polybench/<k>.mlir` (loop bounds from the i32 size
arguments) and its twin `benchmarks/polybench-polygeist/<k>.mlir` (constant loop bounds,
legacy cgeist module header, some dynamic leading dimensions) are run on the same seeded
random inputs at the LARGE dataset with `synth.execution.run_function(..., opt_level=3)`.
Every array argument is compared afterwards: exactly for integer arrays, and for f64
arrays with `np.allclose(rtol=1e-12, atol=1e-12 * max(1, max|reference|))` (NaNs equal).
The table also says whether the two results are bitwise identical.

The twin's text goes through `synth.frontend.reader.load_source` first (this upgrades the legacy
`dlti.dl_spec` that MLIR 22 rejects, and checks that the file parses). The script also
checks that the twin's i32 size parameters have no uses (every bound is a constant).

Inputs: f64 arrays uniform in [-1, 1), i32 arrays small integers, f64 scalars uniform in
[0.5, 2); kernels that need well-posed inputs are prepared as in
tests/polybench_reference (PREPARE): cholesky (SPD), lu/ludcmp (diagonally dominant),
trisolv (well-conditioned lower triangle), durbin (sum |r| < 1), correlation and
covariance (float_n = n, one constant column for correlation), deriche (alpha = 0.25),
floyd-warshall (weights 1..99), nussinov (bases 0..3). gramschmidt keeps n = 1200 columns
(the twin's bounds are constants, so n cannot be lowered to m as the MINI-size test does);
the columns beyond the m-th are then rounding noise, which both kernels compute alike.

Time-stepped kernels (adi, fdtd-2d, heat-3d, jacobi-1d, jacobi-2d, seidel-2d) run with
their full LARGE time loops by default (the whole suite takes about 2 minutes on 2 cores).
`--tsteps N` shortens their time loop to N steps, in BOTH kernels, on temporary copies of
the texts: the first (outermost) `affine.for` of each function, which is the time loop,
gets the constant upper bound `lower + N` (the original's `0 to %0` / `1 to #map(%0)` and
the twin's `0 to 500` / `1 to 501`; the twin's old bound is asserted to be lower + tsteps).
Nothing else changes; the i32 `tsteps` argument keeps its LARGE value (adi derives
DT = 1/tsteps from it; the twin has the same DT folded into its constants).

--skip-slow skips the kernels in SLOW, whose check (both runs) takes over 20 s on the
2-core development machine: floyd-warshall (~10 s per run) and seidel-2d (~13 s per run
at 500 steps; not skipped when --tsteps is given).

The table lists, per kernel: the largest absolute difference over all array arguments,
whether all arrays are bitwise identical, the run time of each kernel (the call alone),
the total time of the check (compiling included), the number of non-finite values in the
original's outputs (0 everywhere, so the comparison is not vacuous), and the run.

Usage: python scripts/check_polygeist_twins.py [--kernels a,b] [--skip-slow]
                                              [--tsteps N] [--seed S]
Exit status 1 if any kernel does not match.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from synth.analysis import polybench  # noqa: E402
from synth.execution import run_function  # noqa: E402
from synth.frontend.reader import load_source  # noqa: E402

ORIGINALS = ROOT / "benchmarks" / "polybench"
TWINS = ROOT / "benchmarks" / "polybench-polygeist"

TIME_STEPPED = ("adi", "fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d")
SLOW = {"floyd-warshall", "seidel-2d"}  # check > 20 s at LARGE on 2 cores

_ARG = re.compile(r"%arg(\d+): ([^,)]+(?:<[^>]*>)?)")
_FOR = re.compile(r"(affine\.for %arg\d+ = )(\d+) to ([^{]+?) \{")


def signature(text: str, func: str) -> list[str]:
    """Argument types of `func` in order (`i32`, `f64`, `memref<...>`)."""
    line = next(ln for ln in text.splitlines() if f"func.func @{func}(" in ln)
    params = line.split("(", 1)[1].split(") attributes", 1)[0].rsplit(")", 1)[0]
    return [m.group(2).strip() for m in _ARG.finditer(params)]


def memref_shape(t: str) -> tuple[tuple[int | None, ...], str]:
    inner = t[len("memref<"):-1]
    *dims, elem = inner.split("x")
    return tuple(None if d == "?" else int(d) for d in dims), elem


def shorten_time_loop(text: str, steps: int, expect_upper: int | None = None) -> str:
    """Give the first affine.for of the text (the time loop) the bound `lower + steps`."""
    m = _FOR.search(text)
    assert m, "no affine.for"
    lower = int(m.group(2))
    if expect_upper is not None:
        assert m.group(3).strip() == str(expect_upper), (m.group(0), expect_upper)
    return text[:m.start()] + f"{m.group(1)}{lower} to {lower + steps} {{" + text[m.end():]


def make_args(kernel: str, types: list[str], rng: np.random.Generator) -> list:
    sizes = iter(polybench.size_arguments(kernel, "large"))  # the leading i32 arguments
    size_of = polybench.dataset_sizes(kernel, "large")
    args: list = []
    for t in types:
        if t == "i32":
            args.append(("i32", next(sizes)))
        elif t == "f64":
            args.append(("f64", float(rng.uniform(0.5, 2.0))))
        else:
            shape, elem = memref_shape(t)
            assert None not in shape, f"original {kernel} must have static shapes"
            if elem == "f64":
                args.append(rng.uniform(-1.0, 1.0, shape))
            else:
                args.append(rng.integers(0, 10, shape).astype(np.int32))
    prepare(kernel, args, size_of, rng)
    return args


def prepare(kernel: str, args: list, size: dict, rng: np.random.Generator) -> None:
    """Well-posed inputs where the kernel needs them (mirrors tests/polybench_reference)."""
    if kernel == "cholesky":
        n = size["n"]
        m = rng.random((n, n))
        args[1][...] = m @ m.T / n + n * np.eye(n)
    elif kernel in ("lu", "ludcmp"):
        n = size["n"]
        args[1][...] = rng.random((n, n)) + n * np.eye(n)
    elif kernel == "trisolv":
        n = size["n"]
        L = args[1]
        L[...] = rng.random((n, n)) / n
        L[np.arange(n), np.arange(n)] = 1.0 + rng.random(n)
    elif kernel == "durbin":
        n = size["n"]
        args[1][...] = rng.random(args[1].shape) * (0.9 / n)
    elif kernel == "gramschmidt":
        m, n = size["m"], size["n"]
        A = args[2]
        A[...] = rng.random(A.shape)
        k = min(m, n)
        A[:k, :k] += 2.0 * np.eye(k)
    elif kernel in ("correlation", "covariance"):
        args[2] = ("f64", float(size["n"]))
        if kernel == "correlation":
            args[3][:, int(rng.integers(0, size["m"]))] = 0.5
    elif kernel == "deriche":
        args[2] = ("f64", 0.25)
    elif kernel == "floyd-warshall":
        args[1][...] = rng.integers(1, 100, args[1].shape).astype(np.int32)
    elif kernel == "nussinov":
        args[1][...] = rng.integers(0, 4, args[1].shape).astype(np.int32)
        args[2][...] = rng.integers(0, 3, args[2].shape).astype(np.int32)


def unused_size_params(text: str, func: str, types: list[str]) -> list[int]:
    """Indices of i32 arguments that have uses in the twin (should be none)."""
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(text)
        for op in module.body.operations:
            if op.operation.name == "func.func" and op.attributes["sym_name"].value == func:
                block = op.regions[0].blocks[0]
                return [i for i, t in enumerate(types)
                        if t == "i32" and any(True for _ in block.arguments[i].uses)]
    raise KeyError(func)


def compare(a: np.ndarray, b: np.ndarray) -> tuple[bool, float, bool]:
    """(close, max abs difference, bitwise identical)"""
    if a.dtype.kind in "iu":
        same = bool(np.array_equal(a, b))
        diff = float(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64)))) if a.size else 0.0
        return same, diff, same
    bitwise = bool(np.array_equal(a.view(np.uint64), b.view(np.uint64)))
    finite = np.isfinite(a)
    scale = max(1.0, float(np.max(np.abs(a[finite]))) if finite.any() else 1.0)
    close = bool(np.allclose(b, a, rtol=1e-12, atol=1e-12 * scale, equal_nan=True))
    both_nan = np.isnan(a) & np.isnan(b)
    d = np.abs(a - b)
    d[both_nan] = 0.0
    diff = float(np.max(d)) if d.size else 0.0
    return close, diff, bitwise


def check(kernel: str, seed: int, steps: int | None) -> dict:
    func = "kernel_" + kernel.replace("-", "_")
    original = (ORIGINALS / f"{kernel}.mlir").read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        twin = load_source(TWINS / f"{kernel}.mlir").text
    types = signature(original, func)
    twin_types = signature(twin, func)
    assert len(types) == len(twin_types), f"{kernel}: argument count differs"
    for t, u in zip(types, twin_types):
        if t.startswith("memref"):
            (s1, e1), (s2, e2) = memref_shape(t), memref_shape(u)
            assert e1 == e2 and len(s1) == len(s2) and all(
                y is None or x == y for x, y in zip(s1, s2)), f"{kernel}: {t} vs {u}"
        else:
            assert t == u, f"{kernel}: {t} vs {u}"
    used = unused_size_params(twin, func, twin_types)
    assert not used, f"{kernel}: twin uses its size arguments {used}"

    note = "LARGE"
    if steps is not None and kernel in TIME_STEPPED:
        tsteps = polybench.size_arguments(kernel, "large")[0]
        lower = int(_FOR.search(twin).group(2))
        original = shorten_time_loop(original, steps)
        twin = shorten_time_loop(twin, steps, expect_upper=lower + tsteps)
        note = f"LARGE, {steps}/{tsteps} steps"

    rng = np.random.default_rng(seed)
    args = make_args(kernel, types, rng)
    t0 = time.perf_counter()
    r1 = run_function(original, func, args, opt_level=3)
    r2 = run_function(twin, func, args, opt_level=3)
    wall = time.perf_counter() - t0
    ok, max_diff, bitwise, nonfinite = True, 0.0, True, 0
    for a, b in zip(r1.outputs, r2.outputs):
        if a is None:
            continue
        if a.dtype.kind == "f":
            nonfinite += int(np.size(a) - np.count_nonzero(np.isfinite(a)))
        c, d, bw = compare(a, b)
        ok &= c
        bitwise &= bw
        max_diff = max(max_diff, d)
    return dict(kernel=kernel, ok=ok, diff=max_diff, bitwise=bitwise, orig_s=r1.seconds[0],
                twin_s=r2.seconds[0], wall=wall, nonfinite=nonfinite, note=note)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", help="comma-separated kernel names (default: all 30)")
    p.add_argument("--skip-slow", action="store_true", help="skip kernels listed in SLOW")
    p.add_argument("--tsteps", type=int, default=None,
                   help="shorten the time loop of the time-stepped kernels to N steps "
                        "(in both kernels; default: the full LARGE time loop)")
    p.add_argument("--seed", type=int, default=0)
    opts = p.parse_args(argv)
    kernels = opts.kernels.split(",") if opts.kernels else list(polybench.KERNELS)
    for k in kernels:
        if k not in polybench.KERNELS:
            p.error(f"unknown kernel {k}")
    steps = opts.tsteps
    slow = SLOW if steps is None else SLOW - set(TIME_STEPPED)

    print(f"{'kernel':<16} {'max|diff|':>10} {'bitwise':>8} {'orig s':>8} {'twin s':>8} "
          f"{'total s':>8} {'nonfin':>6}  {'status':<6} run")
    failures = 0
    for k in kernels:
        if opts.skip_slow and k in slow:
            print(f"{k:<16} {'-':>10} {'-':>8} {'-':>8} {'-':>8} {'-':>8} {'-':>6}  skip   (slow)")
            continue
        try:
            r = check(k, opts.seed, steps)
        except Exception as e:  # report and go on
            failures += 1
            print(f"{k:<16} ERROR {type(e).__name__}: {e}")
            continue
        failures += not r["ok"]
        print(f"{k:<16} {r['diff']:>10.3g} {('yes' if r['bitwise'] else 'no'):>8} "
              f"{r['orig_s']:>8.2f} {r['twin_s']:>8.2f} {r['wall']:>8.1f} {r['nonfinite']:>6}  "
              f"{('ok' if r['ok'] else 'FAIL'):<6} {r['note']}", flush=True)
    print(f"{len(kernels) - failures} of {len(kernels)} kernels checked without failure"
          if failures else "all checked kernels match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
