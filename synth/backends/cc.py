"""A baseline users know: the kernel's C source compiled by the system C compiler at
`-O3 -march=native` into a shared library, called through ctypes on the same inputs as
every other backend.

`synth bench --baseline cc` uses it for kernels with a C twin (the PolyBench kernels, from
`benchmarks/polybench-c/`, compiled with `-D<DATASET>_DATASET`). The C function takes
the same arguments in the same order as the MLIR kernel (`int` sizes, `double` scalars,
arrays as pointers to their first element); the inputs are copied afresh before every
call and the call alone is timed, as the MLIR baseline does. Libraries are cached by the
hash of the source, the headers next to it and the flags.
"""

from __future__ import annotations

import ctypes
import hashlib
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np

from synth.backends.registry import cache_root, write_atomic
from synth.backends.timing import Timing
from synth.errors import ExecutionError

FLAGS = ("-O3", "-march=native", "-fPIC", "-shared")
NAME = "cc-O3-native"
_SCALARS = {"i32": ctypes.c_int32, "i64": ctypes.c_int64, "f64": ctypes.c_double,
            "f32": ctypes.c_float, "index": ctypes.c_int64}


def compiler() -> str | None:
    """The system C compiler (cc, gcc or clang), None when there is none."""
    return next((shutil.which(c) for c in ("cc", "gcc", "clang") if shutil.which(c)), None)


def compile_library(source: Path, defines: list[str], include_dirs: list[Path],
                    flags: tuple[str, ...] = FLAGS) -> Path:
    """`source` as a shared library (cached), compiled with `flags` (they must make a
    shared library: `-fPIC -shared`)."""
    cc = compiler()
    if cc is None:
        raise ExecutionError("no C compiler (cc, gcc or clang) on PATH")
    headers = sorted(p for d in include_dirs for p in Path(d).glob("*.h"))
    flags = [*flags, *(f"-D{d}" for d in defines), *(f"-I{d}" for d in include_dirs)]
    digest = hashlib.sha256("\0".join([cc, *flags, source.read_text(),
                                       *(h.read_text() for h in headers)]).encode()).hexdigest()[:24]
    lib = cache_root() / "cc" / f"{source.stem}-{digest}.so"
    if not lib.exists():
        tmp = lib.with_suffix(".build.so")
        lib.parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run([cc, *flags, str(source), "-o", str(tmp), "-lm"],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise ExecutionError(f"{cc} failed on {source}: {proc.stderr.strip()[-2000:]}")
        write_atomic(lib, tmp.read_bytes())
        tmp.unlink()
    return lib


class CcPrepared:
    """One C function of a compiled library, called on synth's argument lists (arrays;
    `(type, value)` pairs for scalars)."""

    backend = NAME

    def __init__(self, library: Path, func: str, outputs: list[int]):
        self.library, self.function, self.outputs = library, func, list(outputs)
        self.fn = getattr(ctypes.CDLL(str(library)), func)
        self.fn.restype = None

    def _arguments(self, inputs: list) -> tuple[list, list]:
        """Fresh copies of the arrays, and the ctypes arguments pointing at them."""
        arrays, cargs = [], []
        for x in inputs:
            if isinstance(x, np.ndarray):
                a = np.array(x, order="C", copy=True)
                arrays.append(a)
                cargs.append(a.ctypes.data_as(ctypes.c_void_p))
            else:
                kind, value = x
                if kind not in _SCALARS:
                    raise ExecutionError(f"scalar argument of type {kind} is not supported by the C baseline")
                arrays.append(None)
                cargs.append(_SCALARS[kind](value))
        return arrays, cargs

    def run(self, inputs: list) -> list[np.ndarray]:
        """The arrays the function writes (`outputs` order) after one call on copies."""
        arrays, cargs = self._arguments(inputs)
        self.fn(*cargs)
        return [arrays[i] for i in self.outputs]

    def time(self, inputs: list, warmup: int = 1, repeats: int = 5) -> Timing:
        samples, cpu = [], []
        for k in range(warmup + repeats):
            _, cargs = self._arguments(inputs)
            t0, c0 = time.perf_counter(), time.process_time()
            self.fn(*cargs)
            if k >= warmup:
                samples.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
        return Timing.from_samples(samples, warmup, cpu)


def prepare_c(source: Path, func: str, outputs: list[int], defines: list[str] = (),
              include_dirs: list[Path] | None = None) -> CcPrepared:
    """Compile `source` and take `func` from it; headers are looked up next to it."""
    dirs = list(include_dirs) if include_dirs is not None else [source.parent]
    return CcPrepared(compile_library(source, list(defines), dirs), func, outputs)
