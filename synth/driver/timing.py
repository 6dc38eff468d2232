"""A quick timing of a function's raised objects against the function as written, so that
`synth cc` never makes a kernel slower than the C compiler does (synth.driver.jobs).

The original is compiled by the user's compiler with the user's flags (its warnings-as-
errors left out) from its own translation unit, which a small shim includes and whose
function's address it exports (`static` and `inline` functions included); every other
symbol hidden and unused sections dropped, so the unit's other functions (`main`, calls
into other units) need nothing at load time. Each raised object is linked with the
runtime it needs (RUNTIME_C). A worker process (a bad object may crash) then calls each
candidate in turn, in rounds, on the same inputs, restored before every call (the copy
not timed), and keeps every call's time; the candidates' minima decide.

    python -m synth.driver.timing DIR   # the worker: DIR/request.pkl -> DIR/times.pkl
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synth.driver.check import CTYPES, run_worker
from synth.errors import ExecutionError

TIMING_TIMEOUT = 300.0  # the worker: every round of every candidate
MIN_RUNS = 3  # rounds at least (unless one round alone takes LONG_S)
MAX_RUNS = 50
TARGET_S = 0.5  # rounds go on until they have taken this long in all ...
LONG_S = 8.0  # ... but stop at 2 rounds (1 if the first took this long) for long kernels
CLEAR = 1.5  # ... and once they took TARGET_S, where the original and the raise are this far apart
ORIGINAL = "as written"
SYMBOL = "__synth_timing_entry"


def timing_flags(flags: list[str]) -> list[str]:
    """The user's compile flags without those that turn the shim's warnings into errors
    (-Werror, -pedantic-errors) or ask for warnings at all, nor dependency files."""
    out, skip = [], False
    for a in flags:
        if skip:
            skip = False
            continue
        if a in ("-MF", "-MT", "-MQ"):
            skip = True
            continue
        if (a.startswith("-W") and not a.startswith(("-Wl,", "-Wa,", "-Wp,"))) or a.startswith("-pedantic") \
                or a in ("-MD", "-MMD", "-MP", "-w"):
            continue
        out.append(a)
    return out


def compile_original(path: str, function: str, compiler: str, flags: list[str], out: Path) -> None:
    """A shared library exporting SYMBOL, a pointer to `function` of the unit `path` as the
    user's compiler builds it with `flags`. ExecutionError when it does not build."""
    src = Path(path).resolve()
    shim = out.with_suffix(".c")
    quoted = str(src).replace("\\", "\\\\").replace('"', '\\"')
    shim.write_text(f'#include "{quoted}"\n'
                    f'__attribute__((visibility("default"), used)) void *{SYMBOL} = (void *)&{function};\n')
    cflags = timing_flags(flags)
    obj = out.with_suffix(".o")
    steps = [[compiler, *cflags, "-iquote", str(src.parent), "-fPIC", "-fvisibility=hidden", "-ffunction-sections",
              "-fdata-sections", "-w", "-c", str(shim), "-o", str(obj)],
             [compiler, *cflags, "-shared", "-Wl,--gc-sections", "-o", str(out), str(obj), "-lm"]]
    for cmd in steps:
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMING_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise ExecutionError(f"the original did not build for timing: {e}") from None
        if r.returncode:
            tail = " ".join(r.stderr.strip().splitlines()[-2:])[:300]
            raise ExecutionError(f"the original did not build for timing: {tail}")


def link_object(obj: str, runtime_c: str, out: Path) -> None:
    """A raised object as a shared library (with the runtime it may call)."""
    rt = out.with_suffix(".runtime.c")
    rt.write_text(runtime_c)
    r = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(out), str(obj), str(rt), "-lm"],
                       capture_output=True, text=True)
    if r.returncode:
        raise ExecutionError(f"cannot link the object to time it: {r.stderr.strip()[-300:]}")


def time_candidates(candidates: list[dict], arguments: list[dict], results: list[str], args: list) -> dict:
    """{label: [seconds of each call]} of each candidate ({"label", "lib", "symbol",
    "convention": "memref" (a raised object's C entry point: descriptors) or "c" (the
    original, through the pointer SYMBOL holds)}), called in rounds on `args`."""
    with tempfile.TemporaryDirectory(prefix="synth-cc-time-") as tmp:
        return run_worker("synth.driver.timing", Path(tmp), {"candidates": candidates, "arguments": arguments,
                                                             "results": results, "args": args},
                          "times.pkl", TIMING_TIMEOUT, "the timing run")


def decide(times: dict[str, list[float]]) -> dict:
    """The timing's summary: each candidate's minimum in ms, the runs, and the fastest
    ("chosen": a target, or ORIGINAL where no raise is faster than the function as written)."""
    best = {label: min(ts) for label, ts in times.items() if ts}
    raised = {label: t for label, t in best.items() if label != ORIGINAL}
    fastest = min(raised, key=raised.get) if raised else None
    chosen = fastest
    if fastest is None or (ORIGINAL in best and best[ORIGINAL] <= raised[fastest]):
        chosen = ORIGINAL
    return {"ms": {label: float(f"{t * 1e3:.4g}") for label, t in best.items()},
            "runs": {label: len(ts) for label, ts in times.items()}, "fastest_raise": fastest, "chosen": chosen}


def _clear(times: dict[str, list[float]]) -> bool:
    """Whether the original and the fastest raise are CLEAR apart (more rounds would not
    change the choice: floyd-warshall's original takes 21 s at LARGE, its raise 1.8 s)."""
    raised = [min(ts) for label, ts in times.items() if label != ORIGINAL and ts]
    if not raised or not times.get(ORIGINAL):
        return False
    a, b = min(raised), min(times[ORIGINAL])
    return max(a, b) >= CLEAR * min(a, b)


def ms(t: float) -> str:
    """A time given in ms, in words: 27.2 s, 144 ms, 0.7 us."""
    if t >= 1000:
        return f"{t / 1e3:.3g} s"
    return f"{t:.3g} ms" if t >= 0.01 else f"{t * 1e3:.3g} us"


def _worker(directory: str) -> int:  # pragma: no cover - runs in the worker process
    import ctypes

    import numpy as np

    from synth.execution import memref_descriptor

    d = Path(directory)
    with open(d / "request.pkl", "rb") as f:
        req = pickle.load(f)
    restype = getattr(ctypes, CTYPES[req["results"][0]]) if req["results"] else None
    pristine = [a if meta["kind"] == "scalar" else np.array(a, copy=True, order="C")
                for meta, a in zip(req["arguments"], req["args"])]
    calls = []
    for c in req["candidates"]:
        lib = ctypes.CDLL(c["lib"])
        arrays, call, keep, argtypes = [], [], [], []
        for meta, a in zip(req["arguments"], pristine):
            if meta["kind"] == "scalar":
                t = getattr(ctypes, CTYPES[meta["type"]])
                call.append(t(a[1] if isinstance(a, tuple) else a))
                argtypes.append(t)
                continue
            array = np.array(a, copy=True, order="C")
            arrays.append((array, a))
            if c["convention"] == "c":
                call.append(ctypes.c_void_p(array.ctypes.data))
                argtypes.append(ctypes.c_void_p)
                continue
            desc = memref_descriptor(array)
            keep.append(desc)
            call.append(ctypes.pointer(desc))
            argtypes.append(ctypes.c_void_p)
        if c["convention"] == "c":
            address = ctypes.c_void_p.in_dll(lib, c["symbol"]).value
            fn = ctypes.CFUNCTYPE(restype, *argtypes)(address)
        else:
            fn = getattr(lib, c["symbol"])
            fn.restype = restype
        calls.append((c["label"], fn, call, arrays, keep))
    times: dict[str, list[float]] = {label: [] for label, *_ in calls}
    start, rounds = time.perf_counter(), 0
    while True:
        for label, fn, call, arrays, _ in calls:
            for array, original in arrays:
                np.copyto(array, original)
            t0 = time.perf_counter()
            fn(*call)
            times[label].append(time.perf_counter() - t0)
        rounds += 1
        spent = time.perf_counter() - start
        if rounds >= MAX_RUNS or (rounds >= MIN_RUNS and spent >= TARGET_S) or spent >= LONG_S \
                or (rounds >= 2 and spent >= LONG_S / 2) or (spent >= TARGET_S and _clear(times)):
            break
    with open(d / "times.pkl", "wb") as f:
        pickle.dump(times, f)
    return 0


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1]))
