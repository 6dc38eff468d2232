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
| mlir-cpu | linalg | `@NAME_raised` through MLIR's own CPU pipeline (synth.backends.mlir_cpu) |

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

from synth.execution import NUMPY_DTYPES
from synth.backends.timing import Timing

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


def all_backends(*, iree_cache_dir: str | None = None) -> list[Backend]:
    """Every backend, available here or not."""
    from synth.backends.baseline import AffineBaseline
    from synth.backends.iree import IreeBackend
    from synth.backends.mlir_cpu import MlirCpuBackend
    from synth.backends.xla import XlaBackend

    return [
        AffineBaseline(),
        XlaBackend("cpu"), XlaBackend("gpu"),
        IreeBackend("linalg", "llvm-cpu", cache_dir=iree_cache_dir),
        IreeBackend("stablehlo", "llvm-cpu", cache_dir=iree_cache_dir),
        IreeBackend("linalg", "cuda", cache_dir=iree_cache_dir),
        IreeBackend("stablehlo", "cuda", cache_dir=iree_cache_dir),
        MlirCpuBackend(),
    ]


def backends_for(target: str | None, *, iree_cache_dir: str | None = None) -> list[Backend]:
    """The available backends running `target` (None: the baseline)."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (one of {TARGETS})")
    return [b for b in all_backends(iree_cache_dir=iree_cache_dir)
            if b.target == target and b.available()]


def baseline_backend() -> Backend:
    """The baseline (`affine-mlir-O3`); its `prepare` also takes `outputs`."""
    from synth.backends.baseline import AffineBaseline

    return AffineBaseline()


# ----------------------------------------------------------------------------------------
# the raised function, cut out of `synth raise` output

_TENSOR = re.compile(r"tensor<((?:\d+x)*)([A-Za-z]\w*)>")
_ALIAS = re.compile(r"^[#!][\w.$-]+\s*=.*$", re.M)
_OUTPUTS = re.compile(r"synth\.outputs\s*=\s*\[([\d,\s]*)\]")


@dataclass(frozen=True)
class TensorSig:
    shape: tuple[int, ...]
    elem: str  # MLIR element type, e.g. "f64"

    @property
    def dtype(self) -> np.dtype:
        if self.elem not in NUMPY_DTYPES:
            raise ValueError(f"unsupported element type {self.elem}")
        return np.dtype(NUMPY_DTYPES[self.elem])

    def mlir(self) -> str:
        return f"tensor<{''.join(f'{d}x' for d in self.shape)}{self.elem}>"


def _tensor_types(text: str, what: str) -> tuple[TensorSig, ...]:
    sigs = tuple(TensorSig(tuple(int(d) for d in m.group(1).split("x")[:-1]), m.group(2))
                 for m in _TENSOR.finditer(text))
    if len(sigs) != text.count("tensor<"):
        raise ValueError(f"{what}: only statically shaped tensors are supported: {text.strip()}")
    return sigs


def _balanced(text: str, start: int, open_: str, close: str) -> int:
    """Index just past the bracket closing the one at `start` (string literals skipped)."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError(f"unbalanced {open_}{close} from offset {start}")


@dataclass(frozen=True)
class RaisedFunction:
    name: str
    arguments: tuple[TensorSig, ...]
    results: tuple[TensorSig, ...]
    outputs: tuple[int, ...]  # synth.outputs: original argument index of each result
    text: str  # the `func.func` alone
    aliases: str  # the module's top-level attribute/type alias definitions (e.g. #map)

    def module(self, name: str | None = None) -> str:
        """A module holding only this function, renamed to `name` if given."""
        text = self.text
        if name is not None:
            text = re.sub(rf"@{re.escape(self.name)}\(", f"@{name}(", text, count=1)
        return f"{self.aliases}module {{\n{text}\n}}\n"

    def tensor_inputs(self, inputs: list) -> list[np.ndarray]:
        """One array per argument, of the declared shape and dtype, from the original
        argument list (arrays; `(type, value)` pairs or numbers for scalars)."""
        if len(inputs) != len(self.arguments):
            raise ValueError(f"@{self.name} takes {len(self.arguments)} arguments, got {len(inputs)}")
        arrays = []
        for i, (sig, x) in enumerate(zip(self.arguments, inputs)):
            value = x[1] if isinstance(x, tuple) else x
            a = np.asarray(value, dtype=sig.dtype)
            if not a.flags.c_contiguous:
                a = a.copy(order="C")
            if a.shape != sig.shape:
                raise ValueError(f"@{self.name} argument {i}: shape {a.shape} != {sig.shape} ({sig.mlir()})")
            arrays.append(a)
        return arrays


def raised_function(module_text: str, func: str) -> RaisedFunction:
    """`@func_raised` (or `@func` itself if there is no `@func_raised`) of `module_text`."""
    for name in (f"{func}_raised", func):
        m = re.search(rf"func\.func\s+(?:public\s+|private\s+)?@{re.escape(name)}\(", module_text)
        if m:
            break
    else:
        raise KeyError(f"no function @{func}_raised or @{func} in the module")
    args_end = _balanced(module_text, m.end() - 1, "(", ")")
    arguments = _tensor_types(module_text[m.end():args_end - 1], f"@{name} arguments")
    body = module_text.index("{", args_end)
    attrs = ""
    head = module_text[args_end:body]
    if re.search(r"\battributes\s*$", head):  # that brace opens the attribute dictionary
        attrs_end = _balanced(module_text, body, "{", "}")
        attrs = module_text[body:attrs_end]
        body = module_text.index("{", attrs_end)
        head = module_text[args_end:body]
    results = _tensor_types(head.split("attributes")[0], f"@{name} results")
    end = _balanced(module_text, body, "{", "}")
    om = _OUTPUTS.search(attrs)
    if om is None:
        raise ValueError(f"@{name} has no synth.outputs attribute")
    outputs = tuple(int(v) for v in om.group(1).replace(",", " ").split())
    if len(outputs) != len(results):
        raise ValueError(f"@{name}: synth.outputs lists {len(outputs)} arrays for {len(results)} results")
    aliases = "".join(a + "\n" for a in _ALIAS.findall(module_text))
    return RaisedFunction(name, arguments, results, outputs, module_text[m.start():end], aliases)


THREADS_ENV = "SYNTH_CPU_THREADS"


def cpu_threads() -> int | None:
    """CPU cores the timed code may use (`synth bench --threads`); None: all of them."""
    value = os.environ.get(THREADS_ENV)
    return int(value) if value else None


@contextmanager
def pinned_cpu_threads(n: int | None):
    """Confine this process to `n` cores (None: no change) while timing. Thread pools that
    XLA and IREE start meanwhile (and an MLIR worker process started meanwhile) inherit
    the affinity, so every backend, and the single-threaded baseline, run on the same `n`
    cores; IREE also sizes its task topology from it. XLA's flags do not bound its thread
    pool, affinity does. The calling thread's affinity is restored afterwards."""
    if not n:
        yield
        return
    before = os.sched_getaffinity(0)
    previous = os.environ.get(THREADS_ENV)
    os.environ[THREADS_ENV] = str(n)
    os.sched_setaffinity(0, set(sorted(before)[:max(1, n)]))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
        if previous is None:
            os.environ.pop(THREADS_ENV, None)
        else:
            os.environ[THREADS_ENV] = previous
