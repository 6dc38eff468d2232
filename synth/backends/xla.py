"""XLA through jax: the raised stablehlo function compiled as `@main` (x64 enabled).

`run_stablehlo(text, inputs)` runs module text whose entry is `func.func @main` on XLA CPU
(executables cached by the text's hash: compiling costs 30-70 ms, a warm call
microseconds). Verdicts run stablehlo through synth.validation.reference instead (XLA's
default options). The backends of
synth bench: `xla-cpu` uses jax's CPU backend; `xla-gpu` jax's GPU backend, available only
where `jax.devices("gpu")` finds one. Before each call the inputs are copied and put on
the device, outside the timed region (synth.backends.timing: every backend's call gets
fresh inputs; reusing them left matrix-vector kernels' matrices in the cache for XLA
alone: atax 2.56 ms with reused inputs, 2.97 ms with fresh ones, gesummv 1.04 / 1.28 ms,
one core); a timed call is `execute` plus `block_until_ready` on every result.

Compile options (`compile_options`): on CPU, copy insertion uses region analysis
(`xla_cpu_copy_insertion_use_region_analysis`, off by default). Without it XLA copies a
`stablehlo.while` body's state arrays where the body reads an array it also updates in
place (dynamic_slice of a dynamic_update_slice): gramschmidt's raised step copied its
1200x1200 R three times per step. PolyBench LARGE raised to stablehlo, one thread, 3 calls,
XLA CPU: gramschmidt 4.53 -> 0.95 s (8 -> 4 copies in the optimized HLO, the 4 left outside
the loop); the other 21 kernels within noise (0.85-1.15x, the machine busy with a test run).

XLA compiles and runs in this process, so a `call_timeout` (synth bench --call-timeout)
cannot stop a compile or call: one that took longer raises CallTimeout once it returns,
and the call is not made again.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from synth.backends.registry import Backend, PerShape, Prepared, generic_entry, BackendEntry, raised_function
from synth.backends import library_stablehlo
from synth.backends.timing import Timing, check_limit, fresh_copies, measure
from synth.validation.reference import xla_platform


def _platform(platform: str):
    """(jax, xla backend, its first device) for "cpu" or "gpu"."""
    return xla_platform(platform)


_executables: dict[tuple[str, str], object] = {}

# per-compile overrides of XLA's debug options, by platform (see the module docstring)
_OPTION_OVERRIDES = {"cpu": [("xla_cpu_copy_insertion_use_region_analysis", True)]}


def compile_options(platform: str):
    """xla_client.CompileOptions for `platform`, with synth's overrides."""
    from jax._src.lib import xla_client

    options = xla_client.CompileOptions()
    options.env_option_overrides = list(_OPTION_OVERRIDES.get(platform, []))
    return options


def compile_stablehlo(module_text: str, platform: str = "cpu"):
    """The loaded XLA executable for `module_text` (cached by platform and text hash)."""
    import hashlib

    from jax._src.lib import xla_client

    key = (platform, hashlib.sha256(module_text.encode()).hexdigest())
    exe = _executables.get(key)
    if exe is None:
        _, backend, device = _platform(platform)
        exe = backend.compile_and_load(module_text, xla_client.DeviceList((device,)),
                                       compile_options(platform))
        _executables[key] = exe
    return exe


def run_stablehlo(module_text: str, inputs: list[np.ndarray], platform: str = "cpu") -> list[np.ndarray]:
    """Execute @main of `module_text` on `inputs`; one NumPy array per result."""
    exe = compile_stablehlo(module_text, platform)
    jax, _, device = _platform(platform)
    args = [jax.device_put(np.asarray(a), device) for a in inputs]
    return [np.asarray(r) for r in exe.execute(args)]


def cache_size() -> int:
    return len(_executables)


@lru_cache(maxsize=None)
def platform_available(platform: str) -> bool:
    import jax

    try:
        return bool(jax.devices(platform))
    except RuntimeError:  # "Unknown backend: 'gpu' requested, but no platforms ..."
        return False


class XlaBackend(Backend):
    target = "stablehlo"

    def __init__(self, platform: str = "cpu"):
        if platform not in ("cpu", "gpu"):
            raise ValueError(f"XLA platform must be cpu or gpu, not {platform!r}")
        self.platform = platform
        self.name = f"xla-{platform}"

    def available(self) -> bool:
        return platform_available(self.platform)

    def prepare(self, module_text: str, func: str) -> "XlaPrepared | PerShape":
        generic = generic_entry(module_text, func)
        if generic is not None:  # compiled per input shapes, made static first
            return PerShape(self, module_text, func, generic)
        from jax._src.lib import xla_client

        fn = raised_function(module_text, func)
        _, backend, device = _platform(self.platform)
        t0 = time.perf_counter()
        text, _ = library_stablehlo.lower(fn.module("main"))  # the library ops' blocked forms
        exe = backend.compile_and_load(text, xla_client.DeviceList((device,)), compile_options(self.platform))
        prepared = XlaPrepared(self.name, fn, exe, self.platform, time.perf_counter() - t0)
        check_limit(prepared.compile_seconds, self.call_timeout, f"XLA's compile of @{fn.name}")
        prepared.call_timeout = self.call_timeout
        return prepared


class XlaPrepared(Prepared):
    call_timeout: float | None = None  # XlaBackend.call_timeout

    def __init__(self, backend: str, fn: BackendEntry, exe, platform: str, compile_seconds: float):
        self.backend, self.function, self.raised = backend, fn.name, fn
        self.exe, self.platform, self.compile_seconds = exe, platform, compile_seconds

    def _device_inputs(self, inputs: list) -> list:
        jax, _, device = _platform(self.platform)
        return [jax.device_put(a, device) for a in self.raised.tensor_inputs(inputs)]

    def run(self, inputs: list) -> list[np.ndarray]:
        args = self._device_inputs(inputs)
        t0 = time.perf_counter()
        results = [np.asarray(r) for r in self.exe.execute(args)]
        check_limit(time.perf_counter() - t0, self.call_timeout, f"a call of @{self.function}")
        return results

    def time(self, inputs: list, warmup: int = 1, repeats: int = 5, min_total: float = 0.0) -> Timing:
        def fresh():  # device copies of fresh copies, transferred before the clock starts
            args = self._device_inputs(fresh_copies(inputs))
            for a in args:
                a.block_until_ready()
            return args

        def call(args):
            for r in self.exe.execute(args):
                r.block_until_ready()

        return measure(call, warmup, repeats, min_total, setup=fresh, limit=self.call_timeout)
