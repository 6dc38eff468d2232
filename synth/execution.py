"""Running MLIR functions on NumPy data through MLIR's ExecutionEngine, isolated.

The MLIR wheels are built with LLVM assertions on: some inputs abort the whole
process. All compiling and JIT-ing therefore happens in one worker process per
synth process (started on first use, restarted after a crash). A crash becomes an
`ExecutionError` carrying the worker's last stderr lines. The worker caches compiled
functions by the hash of (IR text, pipeline, opt level).

Two calling conventions:
- `run_function`: a function on memrefs and scalars (the affine original); arrays are
  updated in place in the worker and returned.
- `run_tensor_function`: a function on tensors (linalg); it is bufferized, its results
  become trailing out-parameters, and they are returned. Each call gets fresh copies of
  the inputs: bufferization may write into an argument's buffer (a tensor.insert_slice
  into an argument, in place), which must not leak into the next repeat.
Every engine links MLIR's C runner utils where the toolchain ships them (`runtime_libs`):
a `memref.copy` between strided layouts (what tensor.extract_slice / insert_slice become
after bufferization) lowers to a call of their `memrefCopy`.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field

import numpy as np

from synth.errors import CallTimeout, ExecutionError
from synth.pipelines import (  # noqa: F401  (the names callers import from here)
    AFFINE_PIPELINE, BOOLS_AS_BYTES, DISTINCT_BUFFERS, DROPIN_PIPELINE, FUSED_TENSOR_PIPELINE, REWRITES, STAGE,
    TENSOR_PIPELINE, PassFailed, Pipeline, Step, error_text, as_steps, run_stages, run_step)


WORKER_DEADLINE = 900.0  # seconds one compile + run may take before the worker is stopped

# MLIR element type <-> NumPy dtype
NUMPY_DTYPES = {
    "f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32,
    "i16": np.int16, "i8": np.int8, "i1": np.bool_, "index": np.int64,
}


@dataclass
class RunResult:
    outputs: list[np.ndarray | None]  # run_function: every argument, arrays updated, None for scalars
    seconds: list[float]  # one entry per repeat: the call alone
    compile_seconds: float  # 0.0 on a cache hit
    results: list[np.ndarray] = field(default_factory=list)  # run_function: the returned values (0-d for scalars)
    rewrites: dict[str, int] = field(default_factory=dict)  # per Python pass: rewrites it made (at compile)
    cpu_seconds: list[float] = field(default_factory=list)  # per repeat: the worker's CPU time in the call


# ----------------------------------------------------------------------------------------
# worker side


def _ctype_scalar(type_str: str, value):
    import ctypes

    kinds = {
        "f64": ctypes.c_double, "f32": ctypes.c_float, "i64": ctypes.c_int64,
        "i32": ctypes.c_int32, "index": ctypes.c_int64, "i16": ctypes.c_int16,
        "i8": ctypes.c_int8, "i1": ctypes.c_bool,
    }
    if type_str not in kinds:
        raise ValueError(f"unsupported scalar argument type {type_str}")
    return ctypes.pointer(kinds[type_str](value))


ENTRY_PREFIX = "__synth_entry_"


def _add_result_entry(module, func_op, ir) -> list[tuple[tuple[int, ...], str]]:
    """For a function with results: promote the `memref.alloca`s it returns to
    `memref.alloc` (a stack buffer does not outlive the call) and add
    `@__synth_entry_NAME(args..., outs...)` that calls it and copies each result into an
    out-parameter (`memref.copy` for memrefs, `memref.store` into a `memref<T>` for scalars).
    Returns the out-parameters' (shape, element type)."""
    from mlir.dialects import memref as memref_d

    name = func_op.attributes["sym_name"].value
    ftype = ir.FunctionType(ir.TypeAttr(func_op.attributes["function_type"]).value)
    block = func_op.regions[0].blocks[0]
    returns = []

    def collect(b):
        for op in b.operations:
            if op.operation.name == "func.return":
                returns.append(op.operation)
            for region in op.operation.regions:
                for inner in region.blocks:
                    collect(inner)

    collect(block)
    for ret in returns:
        for v in ret.operands:
            if isinstance(v, ir.OpResult) and v.owner.name == "memref.alloca":
                alloca = v.owner
                with ir.InsertionPoint(alloca), alloca.location:
                    new = memref_d.alloc(ir.MemRefType(v.type), list(alloca.operands), [])
                v.replace_all_uses_with(new)
                alloca.erase()
    outs, out_types = [], []
    for t in ftype.results:
        if isinstance(t, ir.MemRefType) or str(t).startswith("memref<"):
            mt = ir.MemRefType(t)
            if not mt.has_static_shape:
                raise ValueError(f"@{name} returns {t}: returned memrefs need a static shape")
            outs.append((tuple(mt.shape), str(mt.element_type)))
            out_types.append(str(mt))
        else:
            outs.append(((), str(t)))
            out_types.append(f"memref<{t}>")
    in_types = [str(t) for t in ftype.inputs]
    args = [f"%a{i}" for i in range(len(in_types))]
    o_args = [f"%o{k}" for k in range(len(outs))]
    results = [f"%r#{k}" for k in range(len(outs))] if len(outs) > 1 else ["%r"]
    lines = [f"func.func @{ENTRY_PREFIX}{name}("
             + ", ".join(f"{a}: {t}" for a, t in zip(args + o_args, in_types + out_types)) + ") {",
             f"  %r{':' + str(len(outs)) if len(outs) > 1 else ''} = func.call @{name}({', '.join(args)}) : "
             f"({', '.join(in_types)}) -> ({', '.join(str(t) for t in ftype.results)})"]
    for k, t in enumerate(ftype.results):
        if isinstance(t, ir.MemRefType) or str(t).startswith("memref<"):
            lines.append(f"  memref.copy {results[k]}, %o{k} : {t} to {out_types[k]}")
        else:
            lines.append(f"  memref.store {results[k]}, %o{k}[] : {out_types[k]}")
    lines += ["  return", "}"]
    decl = f"func.func private @{name}({', '.join(in_types)}) -> ({', '.join(str(t) for t in ftype.results)})"
    entry = ir.Module.parse(decl + "\n" + "\n".join(lines))
    module.body.append(entry.body.operations[1].operation)  # moves the op
    return outs


def runtime_libs() -> tuple[str, ...]:
    """MLIR's C runner utils library (`memrefCopy`, for copies between non-identity
    layouts), from the `mlir` package's lib folder; () when it is not there."""
    try:
        import mlir
    except ImportError:
        return ()
    from pathlib import Path

    for root in getattr(mlir, "__path__", ()):
        lib = Path(root) / "lib" / "libmlir_c_runner_utils.so"
        if lib.exists():
            return (str(lib),)
    return ()


def memref_descriptor(array: np.ndarray):
    """The MLIR memref descriptor of `array` (rank 0 included); it points into the
    array's data, so the array must outlive it. MLIR's ranked memref ABI (allocated and
    aligned pointers, offset, sizes, strides in elements), the layout mlir.runtime's
    get_ranked_memref_descriptor builds; built here because importing mlir.runtime imports
    ml_dtypes, ~1 s with ml_dtypes 0.7 (its NumPy loops registered one by one), at the
    start of every worker."""
    import ctypes

    try:
        element = np.ctypeslib.as_ctypes_type(array.dtype)
    except NotImplementedError:  # a type ctypes lacks (f16, bf16...): MLIR's own structures
        from mlir.runtime import as_ctype

        element = as_ctype(array.dtype)
    desc = _descriptor_type(array.ndim, element)()
    desc.allocated = array.ctypes.data
    desc.aligned = array.ctypes.data_as(ctypes.POINTER(element))
    desc.offset = 0
    if array.ndim:
        desc.shape = (ctypes.c_longlong * array.ndim)(*array.shape)
        desc.strides = (ctypes.c_longlong * array.ndim)(*[s // array.itemsize for s in array.strides])
    return desc


_DESCRIPTORS: dict = {}


def _descriptor_type(rank: int, element):
    """The ctypes structure of a rank-`rank` memref of `element` (mlir.runtime's layout)."""
    import ctypes

    key = (rank, element)
    if key not in _DESCRIPTORS:
        fields = [("allocated", ctypes.c_longlong), ("aligned", ctypes.POINTER(element)),
                  ("offset", ctypes.c_longlong)]
        if rank:
            fields += [("shape", ctypes.c_longlong * rank), ("strides", ctypes.c_longlong * rank)]
        _DESCRIPTORS[key] = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})
    return _DESCRIPTORS[key]


def _memref_arg(array: np.ndarray):
    import ctypes

    return ctypes.pointer(ctypes.pointer(memref_descriptor(array)))


class _Compiled:
    """A module compiled once. `entries` maps each function that can be called to its
    (entry symbol, result types, scalar argument types): the requested one (or ones: `func`
    a list), and for memref modules every other function with a body and no results (the
    parts of a split kernel share one compile)."""

    def __init__(self, text: str, func: str, pipeline: str, opt_level: int, libs: tuple[str, ...],
                 kind: str = "memref"):
        from mlir import ir
        from mlir.execution_engine import ExecutionEngine

        self.context = ir.Context()
        self.entries: dict[str, tuple[str, list, list]] = {}
        with self.context:
            module = ir.Module.parse(text)
            functions = {op.attributes["sym_name"].value: op for op in module.body.operations
                         if op.operation.name == "func.func"}
            for name in ([func] if isinstance(func, str) else func):
                if name not in functions:
                    raise KeyError(f"no function @{name} in the module")
                self.entries[name] = self._entry(module, functions[name], name, kind, ir)
            if kind == "memref":
                for name, op in functions.items():
                    ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                    if name not in self.entries and len(op.regions[0].blocks) and not len(ftype.results):
                        self.entries[name] = self._entry(module, op, name, kind, ir)
            called = {entry for entry, _, _ in self.entries.values()}
            for op in module.body.operations:
                if op.operation.name == "func.func" and op.attributes["sym_name"].value in called:
                    op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            self.rewrites = run_stages(module, pipeline)
            shared = list(libs) + [lib for lib in runtime_libs() if lib not in libs]
            self.engine = ExecutionEngine(module, opt_level=opt_level, shared_libs=shared)
            self.module = module

    @staticmethod
    def _entry(module, target, func: str, kind: str, ir) -> tuple[str, list, list]:
        ftype = ir.FunctionType(ir.TypeAttr(target.attributes["function_type"]).value)
        result_types: list[tuple[tuple[int, ...], str]] = []
        entry = func
        if kind == "memref" and len(ftype.results):
            # a function returning values: called through an entry with out-parameters
            result_types = _add_result_entry(module, target, ir)
            entry = ENTRY_PREFIX + func
        else:
            for t in ftype.results:
                st = ir.ShapedType(t)
                result_types.append((tuple(st.shape), str(st.element_type)))
        # scalar parameters (a linalg function may take f64 rather than tensor<f64>)
        scalar_inputs = [None if str(t).startswith(("tensor<", "memref<")) else str(t)
                         for t in ftype.inputs]
        return entry, result_types, scalar_inputs


class _Alias:
    """One module of a batch compiled together (`_merged`): its functions under their own
    names, called through the merged module's renamed entries."""

    def __init__(self, compiled: _Compiled, renamed: dict[str, str]):
        self.engine, self.rewrites = compiled.engine, compiled.rewrites
        self.entries = {name: compiled.entries[new] for name, new in renamed.items() if new in compiled.entries}


def _merged(items: list[tuple[str, str]], pipeline: str, opt_level: int, libs: tuple[str, ...],
            kind: str) -> list[_Alias]:
    """Compile the modules `items` ((text, function)) as one: the symbols of module k
    renamed with the suffix `__k` (declarations without a body kept once, unrenamed), so
    that one ExecutionEngine serves them all (at -O0 an engine's own cost is most of a small
    function's compile: 10 of deriche's test functions, 0.8-1.0 s apart, 0.3 s merged)."""
    from mlir import ir

    renames: list[dict[str, str]] = []
    with ir.Context(), ir.Location.unknown():
        merged = ir.Module.create()
        declared: set[str] = set()
        for k, (text, func) in enumerate(items):
            module = ir.Module.parse(text)
            names = {}
            for op in list(module.body.operations):
                if op.operation.name != "func.func" or not len(op.regions[0].blocks):
                    continue
                old = op.attributes["sym_name"].value
                names[old] = f"{old}__{k}"
                ir.SymbolTable.replace_all_symbol_uses(old, names[old], module.operation)
                op.attributes["sym_name"] = ir.StringAttr.get(names[old])
            for op in list(module.body.operations):
                if op.operation.name == "func.func" and not len(op.regions[0].blocks):
                    name = op.attributes["sym_name"].value
                    if name in declared:
                        continue
                    declared.add(name)
                merged.body.append(op.operation)
            renames.append(names)
        text = merged.operation.get_asm(enable_debug_info=False)
    entries = [names[func] for (_, func), names in zip(items, renames)]
    compiled = _Compiled(text, entries, pipeline, opt_level, libs, kind)
    return [_Alias(compiled, names) for names in renames]


def _send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)))
    stream.write(data)
    stream.flush()


def _recv(stream):
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError
    (size,) = struct.unpack("<Q", header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def _key(kind: str, request: dict, text: str) -> str:
    """The worker's cache key of a module: its kind, pipeline, opt level and text."""
    return hashlib.sha256(f"{kind}|{request['pipeline']}|{request['opt_level']}|".encode() + text.encode()).hexdigest()


def _serve() -> None:  # pragma: no cover - runs in the worker process
    import time

    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed must not corrupt the reply stream
    # the bindings every request needs, imported before the first request arrives: a worker
    # started ahead (prestart_worker) does this while its caller reads and analyses its input
    try:
        from mlir import execution_engine, ir, passmanager  # noqa: F401
    except ImportError:  # reported with the first request that needs them
        pass
    cache: dict[str, _Compiled] = {}
    while True:
        try:
            request = _recv(requests)
        except EOFError:
            return
        try:
            kind, func = request["kind"], request["func"]
            if "batch" in request:  # compile only: the modules of later calls, as one
                t0 = time.perf_counter()
                fresh = [(t, f) for t, f in request["batch"] if _key(kind, request, t) not in cache]
                if fresh:
                    for (t, f), alias in zip(fresh, _merged(fresh, request["pipeline"], request["opt_level"],
                                                            tuple(request.get("libs", ())), kind)):
                        cache.setdefault(_key(kind, request, t), alias)
                _send(replies, ("ok", ([], [], time.perf_counter() - t0, [], {})))
                continue
            module_key = _key(kind, request, request["text"])
            key = f"{module_key}|{func}"
            compile_seconds = 0.0
            compiled = cache.get(key)
            if compiled is None and func in getattr(cache.get(module_key), "entries", ()):
                compiled = cache[module_key]  # another function of a module compiled before
            if compiled is None:
                t0 = time.perf_counter()
                compiled = _Compiled(request["text"], func, request["pipeline"],
                                     request["opt_level"], tuple(request.get("libs", ())), kind)
                compile_seconds = time.perf_counter() - t0
                cache[key] = compiled
                cache.setdefault(module_key, compiled)
            entry, result_types, scalar_inputs = compiled.entries[func]
            seconds, cpu = [], []
            results: list[np.ndarray] = []
            if kind == "memref":
                originals = request["args"]
                guarded = request["repeat"] == 1 and sum(
                    a.size for a in originals if isinstance(a, np.ndarray)) <= GUARD_LIMIT
                for _ in range(request["repeat"]):
                    args = [(_guarded(a) if guarded else a.copy()) if isinstance(a, np.ndarray) else a
                            for a in originals]
                    results = [np.zeros(shape, dtype=NUMPY_DTYPES[dt]) for shape, dt in result_types]
                    cargs = [_memref_arg(a) if isinstance(a, np.ndarray) else _ctype_scalar(*a)
                             for a in args] + [_memref_arg(r) for r in results]
                    t0, c0 = time.perf_counter(), time.process_time()
                    compiled.engine.invoke(entry, *cargs)
                    seconds.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0)
                outside = [k for k, a in enumerate(args) if guarded and isinstance(a, np.ndarray)
                           and not _intact(a)]
                if outside:
                    _send(replies, ("outside", outside))
                    continue
                outputs = [a if isinstance(a, np.ndarray) else None for a in args]
            else:  # tensor function: results are trailing out-params
                for _ in range(request["repeat"]):
                    ins = [np.array(a, order="C", copy=True) for a in request["args"]]
                    outs = [np.zeros(shape, dtype=NUMPY_DTYPES[dt]) for shape, dt in result_types]
                    cargs = [_memref_arg(a) if scalar is None else _ctype_scalar(scalar, a.item())
                             for a, scalar in zip(ins, scalar_inputs)]
                    cargs += [_memref_arg(a) for a in outs]
                    t0, c0 = time.perf_counter(), time.process_time()
                    compiled.engine.invoke(entry, *cargs)
                    seconds.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0)
                outputs = outs
            _send(replies, ("ok", (outputs, seconds, compile_seconds, results, compiled.rewrites, cpu)))
        except Exception as e:  # reported to the caller as an ExecutionError
            _send(replies, ("error", error_text(e)))


GUARD_LIMIT = 1 << 22  # elements: arrays of a single run up to this size get guard zones
_CANARY = 0xA5


def _guarded(array: np.ndarray) -> np.ndarray:
    """A copy of `array` inside a buffer with a guard zone of its own size (at least 64
    elements) on each side, filled with a canary byte: a run that writes past the array
    (an original kernel run at sizes its accesses do not fit) changes the guard instead of
    the worker's heap, and _intact tells. 0-d arrays are copied as they are."""
    if not array.ndim:
        return array.copy()
    g = max(array.size, 64)
    buf = np.empty(array.size + 2 * g, dtype=array.dtype)
    buf.view(np.uint8)[:] = _CANARY
    view = buf[g:g + array.size].reshape(array.shape)
    view[...] = array
    return view


def _intact(view: np.ndarray) -> bool:
    """Whether the guard zones around a _guarded array still hold the canary."""
    buf = view.base
    while buf is not None and buf.base is not None and buf.ndim != 1:
        buf = buf.base
    if not view.ndim or buf is None or buf.ndim != 1:
        return True
    g = (buf.size - view.size) // 2
    raw = buf.view(np.uint8)
    item = buf.itemsize
    return bool((raw[:g * item] == _CANARY).all() and (raw[(g + view.size) * item:] == _CANARY).all())


# ----------------------------------------------------------------------------------------
# caller side


class _Worker:
    def __init__(self):
        self._lock = threading.Lock()
        self._proc = None
        self._stderr = os.path.join(tempfile.gettempdir(), f"synth-worker-{os.getpid()}.log")

    def _start(self):
        with open(self._stderr, "wb") as log:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "synth.execution"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
            )

    def prestart(self) -> None:
        """Start the worker now, if it is not running."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()

    def call(self, request: dict, deadline: float = WORKER_DEADLINE) -> RunResult:
        """Send one request and wait at most `deadline` seconds for the reply: a worker stuck
        in a compile or a run is killed (and restarted on the next call)."""
        import select

        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            try:
                _send(self._proc.stdin, request)
                ready, _, _ = select.select([self._proc.stdout], [], [], deadline)
                if not ready:
                    self._proc.kill()
                    self._proc.wait(timeout=10)
                    self._drop()
                    raise CallTimeout(f"compiling or running @{request['func']} took longer than "
                                      f"{deadline:g} s; the MLIR worker was stopped", deadline)
                status, payload = _recv(self._proc.stdout)
            except (EOFError, BrokenPipeError, ConnectionResetError):
                code = self._proc.wait(timeout=10)
                self._drop()
                raise ExecutionError(
                    f"the MLIR worker crashed (exit code {code}) while compiling or running "
                    f"@{request['func']}: {self._stderr_tail()}"
                ) from None
        if status == "outside":  # the guard zones (_guarded) caught a write past an array
            which = ", ".join(f"#{k}" for k in payload)
            raise ExecutionError(
                f"internal error (a bug in synth): @{request['func']} wrote outside its array "
                f"argument(s) {which} when run at the sizes synth chose for it (its accesses do not "
                f"fit them): synth's choice of sizes, not the input; --size NAME=VALUE gives them")
        if status != "ok":
            raise ExecutionError(f"compiling or running @{request['func']} failed: {payload}")
        return RunResult(*payload)

    def _drop(self) -> None:
        """Forget a dead worker, closing its pipes (a ResourceWarning otherwise)."""
        for stream in (self._proc.stdin, self._proc.stdout):
            try:
                stream.close()
            except OSError:  # a pipe whose reader is gone: nothing left to flush
                pass
        self._proc = None

    def _stderr_tail(self) -> str:
        try:
            with open(self._stderr, errors="replace") as f:
                lines = [ln.strip() for ln in f.read().splitlines() if ln.strip()]
        except OSError:
            return "(no output)"
        return " | ".join(lines[-3:]) or "(no output)"

    def close(self):
        """Stop the worker. It holds nothing but compiled code and its cache (every reply
        has been read), so it is killed rather than left to tear its engines and MLIR
        contexts down (0.2-0.4 s of a raise's wall time, waited for)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=10)
        if self._proc is not None:
            self._drop()
        self._proc = None
        try:
            os.unlink(self._stderr)
        except OSError:
            pass


_worker: _Worker | None = None


def _get_worker() -> _Worker:
    global _worker
    if _worker is None:
        _worker = _Worker()
        atexit.register(_worker.close)
    return _worker


def prestart_worker() -> None:
    """Start the execution worker ahead of its first request: its start-up (a Python
    process importing the MLIR bindings, ~0.3 s) runs beside the caller's own work instead
    of before the first run. Nothing else changes: the same worker serves every request."""
    _get_worker().prestart()


def run_function(text: str, func: str, args: list, *, opt_level: int = 2, repeat: int = 1,
                 pipeline: str = AFFINE_PIPELINE) -> RunResult:
    """Run `func` (memref/scalar arguments) on `args`: NumPy arrays for memrefs (copied,
    updated in the worker, returned in `outputs`) and `(mlir_type, value)` pairs for
    scalars, e.g. `("i32", 20)`, `("f64", 1.5)`. What the function returns (memrefs of
    static shape, scalars as 0-d arrays) is in `results`."""
    for a in args:
        if isinstance(a, np.ndarray) and not a.flags.c_contiguous:
            raise ValueError("array arguments must be C-contiguous")
    return _get_worker().call(dict(kind="memref", text=text, func=func, args=list(args),
                                   pipeline=pipeline, opt_level=opt_level, repeat=repeat))


def precompile(kind: str, items: list[tuple[str, str]], *, opt_level: int = 2, pipeline: str | None = None) -> None:
    """Compile the modules `items` ((text, function); `kind` "memref" as run_function
    runs them, "tensor" as run_tensor_function does) in the worker as one module, so that
    the calls of those functions that follow find them compiled. Nothing changes but the
    time: a call finds its function under its own name in its own module's text. Where
    the merged module fails to compile, the worker is left to compile each at its call
    (as without this), and the failure is not raised here."""
    pipeline = pipeline or (AFFINE_PIPELINE if kind == "memref" else TENSOR_PIPELINE)
    items = list(dict.fromkeys(items))
    if len(items) < 2:
        return
    try:
        _get_worker().call(dict(kind=kind, func=items[0][1], batch=items, args=[], pipeline=pipeline,
                                opt_level=opt_level))
    except ExecutionError:
        pass


def run_tensor_function(text: str, func: str, inputs: list[np.ndarray], *, opt_level: int = 2,
                        repeat: int = 1, pipeline: str = TENSOR_PIPELINE) -> list[np.ndarray]:
    """Run a function on tensors (e.g. linalg) and return its results."""
    return run_tensor_function_timed(text, func, inputs, opt_level=opt_level, repeat=repeat,
                                     pipeline=pipeline).outputs


def run_tensor_function_timed(text: str, func: str, inputs: list[np.ndarray], *, opt_level: int = 2,
                              repeat: int = 1, pipeline: str = TENSOR_PIPELINE,
                              deadline: float = WORKER_DEADLINE) -> RunResult:
    """`deadline`: seconds the compile (where not cached) and the calls may take in all, past
    which the worker is stopped (CallTimeout)."""
    inputs = [np.asarray(a) for a in inputs]
    return _get_worker().call(dict(kind="tensor", text=text, func=func, args=inputs,
                                   pipeline=pipeline, opt_level=opt_level, repeat=repeat), deadline)


if __name__ == "__main__":
    _serve()
