"""The reference lowering that verdicts run raised code through.

A verdict (synth verify's tests, the validation of a raise at its original sizes) must
not depend on performance code: what runs here is the raised text lowered by upstream
compilers only, never by a backend's performance pipeline (synth.backends.mlir_cpu's
tiled schedule and its rewrites).

- linalg: MLIR's own passes, in the isolated ExecutionEngine worker (synth.execution):
  REFERENCE_PIPELINE (elementwise chains fused by the upstream
  linalg-fuse-elementwise-ops, then bufferization, loops, LLVM). Where MLIR crashes on
  the fusion or the fused IR does not bufferize, PLAIN_PIPELINE (the same without the
  fusion). A time loop's body at PolyBench LARGE runs ~5x faster fused than plain
  (heat-3d 57 -> 3 s), which is why the fused one comes first.
- stablehlo: XLA CPU through jax with XLA's default compile options (synth.backends.xla
  adds its own options for timing).

`last_pipeline()` says which pipeline ran the last linalg call (tests check it).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from synth.errors import ExecutionError
from synth.execution import FUSED_TENSOR_PIPELINE, TENSOR_PIPELINE, run_tensor_function

REFERENCE_PIPELINE = FUSED_TENSOR_PIPELINE
PLAIN_PIPELINE = TENSOR_PIPELINE
PIPELINES = (REFERENCE_PIPELINE, PLAIN_PIPELINE)  # every pipeline a verdict may run linalg through
XLA_REFERENCE = "xla-cpu (default compile options)"

_FUSION_FAILURES: set[int] = set()  # texts the fused pipeline crashed on or did not compile
_last: list[str] = []


def last_pipeline() -> str | None:
    """The pipeline (one of PIPELINES, or XLA_REFERENCE) of the last run_reference call."""
    return _last[-1] if _last else None


def run_reference(dialect: str, text: str, fname: str, inputs: list[np.ndarray],
                  opt_level: int = 2) -> list[np.ndarray]:
    """@fname of `text` (a raised module in `dialect`) on `inputs`, through the reference
    lowering (linalg: JIT-ed at LLVM's `opt_level`); one NumPy array per result."""
    _last.clear()
    if dialect == "stablehlo":
        _last.append(XLA_REFERENCE)
        return run_stablehlo_reference(text.replace(f"func.func @{fname}(", "func.func @main(", 1), inputs)
    key = hash(text)
    if key not in _FUSION_FAILURES:
        try:
            out = run_tensor_function(text, fname, inputs, pipeline=REFERENCE_PIPELINE, opt_level=opt_level)
            _last.append(REFERENCE_PIPELINE)
            return out
        except ExecutionError as e:
            if "crashed" not in str(e) and "MLIRError" not in str(e):
                raise
            _FUSION_FAILURES.add(key)
    out = run_tensor_function(text, fname, inputs, pipeline=PLAIN_PIPELINE, opt_level=opt_level)
    _last.append(PLAIN_PIPELINE)
    return out


def precompile_reference(dialect: str, items: list[tuple[str, str]], opt_level: int = 2) -> None:
    """Compile the linalg modules `items` ((text, function)) as run_reference will run them,
    in one batch (synth.execution.precompile: the time only, never a value); nothing for
    stablehlo (XLA compiles each at its call)."""
    from synth.execution import precompile

    if dialect == "linalg":
        precompile("tensor", [(t, f) for t, f in items if hash(t) not in _FUSION_FAILURES],
                   opt_level=opt_level, pipeline=REFERENCE_PIPELINE)


@lru_cache(maxsize=None)
def xla_platform(platform: str):
    """(jax, xla backend, its first device) for "cpu" or "gpu" (x64 enabled)."""
    import jax
    from jax.extend.backend import get_backend

    jax.config.update("jax_enable_x64", True)
    backend = get_backend(platform)
    return jax, backend, backend.local_devices()[0]


_executables: dict[str, object] = {}


def run_stablehlo_reference(module_text: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """@main of `module_text` on XLA CPU with default options (cached by text hash)."""
    import hashlib

    from jax._src.lib import xla_client

    jax, backend, device = xla_platform("cpu")
    key = hashlib.sha256(module_text.encode()).hexdigest()
    exe = _executables.get(key)
    if exe is None:
        exe = backend.compile_and_load(module_text, xla_client.DeviceList((device,)),
                                       xla_client.CompileOptions())
        _executables[key] = exe
    args = [jax.device_put(np.asarray(a), device) for a in inputs]
    return [np.asarray(r) for r in exe.execute(args)]
