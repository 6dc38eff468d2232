"""The backends `synth bench` runs: their common interface, and the raised function they run.

A `Backend` compiles once (`prepare`) and gives a `Prepared` function that runs on NumPy
inputs (`run`) and times the call alone (`time`). Every backend takes the original
argument list — NumPy arrays for memrefs, `(mlir_type, value)` pairs for scalars, as
`synth.execution.run_function` does — so one input list serves them all:

| name | target | runs |
|---|---|---|
| affine-mlir-O3 | None | the original affine function, MLIR -> LLVM at -O3 (the baseline) |
| xla-cpu, xla-gpu | stablehlo | `@NAME_raised` as `@main` through jax's XLA backend |
| iree-llvm-cpu, iree-cuda | linalg and stablehlo | `@NAME_raised` compiled by iree-compile |
| mlir-cpu | linalg and stablehlo | `@NAME_raised` through MLIR's own CPU pipeline (synth.backends.mlir_cpu; stablehlo lowered to linalg first) |

Raised backends return the results of `@NAME_raised` (the arrays listed by its
`synth.outputs`); the baseline returns those same arrays after the original ran.
`backends_for(target)` lists the available ones (GPU backends only where a GPU works);
`baseline_backend()` is the baseline.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
import re
import tempfile
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synth.errors import SynthError
from synth.execution import NUMPY_DTYPES
from synth.backends.timing import Timing
from synth.semantics.raised_values import is_dynamic_dim

BACKEND_NAMES = ("affine-mlir-O3", "xla-cpu", "xla-gpu", "iree-llvm-cpu", "iree-cuda", "mlir-cpu")
TARGETS = (None, "stablehlo", "linalg")


class Prepared(ABC):
    """A function compiled by one backend."""

    backend: str
    function: str
    compile_seconds: float | None = None  # None until known (worker backends compile on first call)

    @abstractmethod
    def run(self, inputs: list) -> list[np.ndarray]:
        """The output arrays, in `synth.outputs` order."""

    @abstractmethod
    def time(self, inputs: list, warmup: int = 1, repeats: int = 5, min_total: float = 0.0) -> Timing:
        """Times the call alone: not compiling, not copying inputs in."""


class Backend(ABC):
    name: str
    target: str | None  # the dialect it runs; None for the baseline
    # seconds its compile, and each call of what it compiled, may take (None: no limit);
    # longer raises CallTimeout (synth bench --call-timeout; synth.backends.timing)
    call_timeout: float | None = None

    def available(self) -> bool:
        return True

    @abstractmethod
    def prepare(self, module_text: str, func: str) -> Prepared:
        """Compile `func` of `module_text` (raised backends: `@func_raised`, or `@func`
        when that is already the raised function)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} target={self.target}>"


def cache_root() -> Path:
    """Where backends keep compiled artifacts: `$SYNTH_CACHE_DIR`, else `~/.cache/synth`."""
    root = os.environ.get("SYNTH_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "synth"


def write_atomic(path: Path, data: bytes) -> None:
    """Write `path` whole or not at all (concurrent writers of the same content are fine)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def all_backends(*, iree_cache_dir: str | None = None, threads: int | None = None,
                 call_timeout: float | None = None) -> list[Backend]:
    """Every backend, available here or not; `threads`: the CPU cores IREE's task system
    sizes itself for (None: all; see pinned_cpu_threads); `call_timeout`: each one's
    `Backend.call_timeout`."""
    from synth.backends.baseline import AffineBaseline
    from synth.backends.iree import IreeBackend
    from synth.backends.mlir_cpu import MlirCpuBackend
    from synth.backends.xla import XlaBackend

    backends = [
        AffineBaseline(),
        XlaBackend("cpu"), XlaBackend("gpu"),
        IreeBackend("linalg", "llvm-cpu", cache_dir=iree_cache_dir, threads=threads),
        IreeBackend("stablehlo", "llvm-cpu", cache_dir=iree_cache_dir, threads=threads),
        IreeBackend("linalg", "cuda", cache_dir=iree_cache_dir),
        IreeBackend("stablehlo", "cuda", cache_dir=iree_cache_dir),
        MlirCpuBackend(), MlirCpuBackend(target="stablehlo"),
    ]
    for b in backends:
        b.call_timeout = call_timeout
    return backends


def backends_for(target: str | None, *, iree_cache_dir: str | None = None,
                 threads: int | None = None, call_timeout: float | None = None) -> list[Backend]:
    """The available backends running `target` (None: the baseline)."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (one of {TARGETS})")
    return [b for b in all_backends(iree_cache_dir=iree_cache_dir, threads=threads, call_timeout=call_timeout)
            if b.target == target and b.available()]


def baseline_backend() -> Backend:
    """The baseline (`affine-mlir-O3`); its `prepare` also takes `outputs`."""
    from synth.backends.baseline import AffineBaseline

    return AffineBaseline()


# ----------------------------------------------------------------------------------------
# the raised function, read from `synth raise` output (synth.semantics.raised reads it)


@dataclass(frozen=True)
class BackendEntry:
    """`@NAME_raised` as the backends need it: its signature and a module holding it alone
    (a view of synth.semantics.raised.RaisedFunction, which reads and checks it)."""

    name: str
    arguments: tuple  # the type of each argument: TensorType or ScalarType
    results: tuple
    outputs: tuple[int, ...]  # synth.outputs
    text: str  # the module with this function and its callees only (others blanked)

    def module(self, name: str | None = None) -> str:
        """The module holding only this function, renamed to `name` if given."""
        if name is None:
            return self.text
        return re.sub(rf"@{re.escape(self.name)}\(", f"@{name}(", self.text, count=1)

    def tensor_inputs(self, inputs: list) -> list[np.ndarray]:
        """One array per argument, of the declared shape and dtype, from the original
        argument list (arrays; `(type, value)` pairs or numbers for scalars)."""
        if len(inputs) != len(self.arguments):
            raise ValueError(f"@{self.name} takes {len(self.arguments)} arguments, got {len(inputs)}")
        arrays = []
        for i, (t, x) in enumerate(zip(self.arguments, inputs)):
            value = x[1] if isinstance(x, tuple) else x
            a = np.asarray(value, dtype=np.dtype(NUMPY_DTYPES[t.dtype]))
            if not a.flags.c_contiguous:
                a = a.copy(order="C")
            want = t.shape or ()
            if len(a.shape) != len(want) or any(
                    n != m for n, m in zip(a.shape, want) if not is_dynamic_dim(m)):  # `?`: any extent
                raise ValueError(f"@{self.name} argument {i}: shape {a.shape} != {t.shape} ({t.mlir()})")
            arrays.append(a)
        return arrays


# How a backend says it cannot compile or run one kernel: synth's own errors (a tool that
# failed, ExecutionError), jax's JaxRuntimeError and IREE's runtime errors (RuntimeError),
# a module or arguments it refuses (ValueError), a file or tool it cannot reach (OSError).
# synth bench records these as a "backend-error" row; anything else is a bug and is raised.
BACKEND_ERRORS: tuple[type[BaseException], ...] = (SynthError, RuntimeError, ValueError, OSError)


def raised_function(module_text: str, func: str, dynamic: bool = False) -> BackendEntry:
    """`@func_raised` (or `@func` itself if there is no `@func_raised`) of `module_text`,
    read and verified by MLIR (synth.semantics.raised); `dynamic`: `?` dims allowed (a
    shape-generic raise, compiled as it is)."""
    from synth.errors import InputError
    from synth.semantics.raised import load_raised, top_level_functions

    names = {n for n, _, _ in top_level_functions(module_text)}
    name = next((n for n in (f"{func}_raised", func) if n in names), None)
    if name is None:
        raise ValueError(f"no function @{func}_raised or @{func} in the module")
    rf = load_raised("<raised>", name, module_text)
    try:
        sig = rf.signature(dynamic)
    except InputError as e:
        raise ValueError(str(e)) from None
    if sig.outputs is None:
        raise ValueError(f"@{name} has no synth.outputs attribute")
    return BackendEntry(name, tuple(sig.arguments), tuple(sig.results), tuple(sig.outputs), rf.text)


def generic_entry(module_text: str, func: str) -> str | None:
    """The name of `@func_raised` (or `@func`) where that function is shape-generic (`?`
    in its signature: `synth raise --shapes generic`), else None."""
    from synth.semantics.raised_text import top_level_functions
    from synth.semantics.specialize import generic_signature

    names = {n for n, _, _ in top_level_functions(module_text)}
    name = next((n for n in (f"{func}_raised", func) if n in names), None)
    return name if name is not None and generic_signature(module_text, name) else None


class PerShape(Prepared):
    """A shape-generic raised function on one backend: made static at the shapes of each
    call's inputs (synth.semantics.specialize, the compilers' shape refinement) and
    compiled there once per distinct shapes, as XLA specializes a generic jax function at
    its first call for each shape. `compile_seconds` is the first specialization's."""

    def __init__(self, backend: "Backend", module_text: str, func: str, name: str):
        self.backend, self.function = backend.name, func
        self._backend, self._text, self._name = backend, module_text, name
        self._prepared: dict[tuple, Prepared] = {}
        self._last: Prepared | None = None

    def __getattr__(self, attr: str):
        """What a backend's own Prepared says (mlir-cpu's `pipeline_name`...), of the shapes
        run last."""
        last = self.__dict__.get("_last")
        if last is None:
            raise AttributeError(f"{attr}: not known before the first run")
        return getattr(last, attr)

    def _for(self, inputs: list) -> Prepared:
        from synth.semantics.specialize import specialized_module

        shapes = tuple(np.shape(x[1] if isinstance(x, tuple) else x) for x in inputs)
        if shapes not in self._prepared:
            static = specialized_module(self._text, self._name, list(shapes))
            prepared = self._backend.prepare(static, self.function)
            if self.compile_seconds is None:
                self.compile_seconds = prepared.compile_seconds
            self._prepared[shapes] = prepared
        self._last = self._prepared[shapes]
        return self._last

    def run(self, inputs: list) -> list[np.ndarray]:
        return self._for(inputs).run(inputs)

    def time(self, inputs: list, warmup: int = 1, repeats: int = 5, min_total: float = 0.0) -> Timing:
        prepared = self._for(inputs)
        timing = prepared.time(inputs, warmup, repeats, min_total)
        self.compile_seconds = prepared.compile_seconds if self.compile_seconds is None else self.compile_seconds
        return timing


@contextmanager
def pinned_cpu_threads(n: int | None):
    """Confine this process to `n` cores (None: no change) while timing. Thread pools that
    XLA and IREE start meanwhile (and an MLIR worker process started meanwhile) inherit
    the affinity, so every backend, and the single-threaded baseline, run on the same `n`
    cores; IREE sizes its task topology from the `threads` its backend is given. XLA's
    flags do not bound its thread pool, affinity does. The calling thread's affinity is
    restored afterwards."""
    if not n:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(sorted(before)[:max(1, n)]))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
