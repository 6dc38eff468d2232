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

import re
from concurrent.futures import Future
from functools import lru_cache

import numpy as np

from synth import background
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
    elif dialect == "stablehlo":
        _precompile_xla([t.replace(f"func.func @{f}(", "func.func @main(", 1) for t, f in items])


@lru_cache(maxsize=None)
def xla_platform(platform: str):
    """(jax, xla backend, its first device) for "cpu" or "gpu" (x64 enabled)."""
    import jax
    from jax.extend.backend import get_backend

    jax.config.update("jax_enable_x64", True)
    backend = get_backend(platform)
    return jax, backend, backend.local_devices()[0]


_executables: dict[str, object] = {}  # text hash -> executable, or _Part of a batch


def _key(module_text: str) -> str:
    import hashlib

    return hashlib.sha256(module_text.encode()).hexdigest()


def run_stablehlo_reference(module_text: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """@main of `module_text` on XLA CPU with default options (cached by text hash; a compile
    started ahead, compile_ahead, is waited for)."""
    jax, backend, device = xla_platform("cpu")
    key = _key(module_text)
    exe = _executables.get(key)
    if isinstance(exe, Future):
        try:
            exe = exe.result()
        except Exception:  # jaxlib's errors: compiled again here, where they are raised as at any call
            exe = None
        _executables[key] = exe
    if exe is None:
        exe = _compile(module_text)
        _executables[key] = exe
    args = [jax.device_put(np.asarray(a), device) for a in inputs]
    if isinstance(exe, _Part):
        return exe.run(args)
    return [np.asarray(r) for r in exe.execute(args)]


def _compile(module_text: str):
    """The XLA CPU executable of `module_text` (its @main), XLA's default compile options."""
    from jax._src.lib import xla_client

    jax, backend, device = xla_platform("cpu")
    return backend.compile_and_load(module_text, xla_client.DeviceList((device,)), xla_client.CompileOptions())


def compile_ahead(dialect: str, text: str, fname: str) -> None:
    """Start compiling @fname of the stablehlo module `text` as run_reference will run it,
    on a thread of its own (synth.background), so that the compile (XLA's, outside Python's
    lock) overlaps the caller's work until the call that runs it waits for it: the same
    executable as compiled at that call. Nothing for linalg (compiled in the worker at its
    call)."""
    if dialect != "stablehlo":
        return
    module_text = text.replace(f"func.func @{fname}(", "func.func @main(", 1)
    key = _key(module_text)
    if key not in _executables:
        xla_platform("cpu")  # jax set up on this thread, before the compile's
        _executables[key] = background.start(_compile, module_text)


class _Part:
    """One module of a batch XLA compiled as one (`_precompile_xla`): run with its own
    inputs, zeros for the other modules' (each computes from its own arguments only)."""

    def __init__(self, exe, fillers: list, k: int, results: list[int]):
        self.exe, self.fillers, self.k, self.results = exe, fillers, k, results

    def run(self, args: list) -> list[np.ndarray]:
        allargs = [a for j, f in enumerate(self.fillers) for a in (args if j == self.k else f)]
        out = self.exe.execute(allargs)
        start = sum(self.results[:self.k])
        return [np.asarray(r) for r in out[start:start + self.results[self.k]]]


def _precompile_xla(texts: list[str]) -> None:
    """Compile the stablehlo modules `texts` (each with its @main) as few XLA executables,
    whose @main calls each module's (renamed) with its own arguments and returns all their
    results, so that run_stablehlo_reference runs each from it: one compile instead of one
    per module (6 of deriche's test sizes: 1.8 s apart, 0.77 s as one; outputs bitwise
    equal). One executable per free core (background.free_cores: the cores this process
    may use less the host's load; at most MAX_BATCHES, at least two texts each), their
    texts grouped by size and balanced by length (_balanced), compiled at once on threads
    of their own (XLA compiles outside Python's lock): adi's 28 test texts take about half
    the time on two idle cores, for about the CPU of one executable; on a busy host they
    stay one. The same functions under XLA's default options; where a batch does not build or
    compile, each of its modules is compiled at its call, as without it."""
    fresh = list(dict.fromkeys(t for t in texts if _key(t) not in _executables))
    if len(fresh) < 2:
        return
    xla_platform("cpu")
    batches = []  # (texts, the module compiled for them, their signatures)
    for group in _balanced(fresh, min(MAX_BATCHES, background.free_cores(), len(fresh) // 2)):
        try:
            text, signatures = _batch_module(group)
        except Exception:  # jaxlib's errors (MLIRError...) and ValueError: each compiled at its call
            continue
        batches.append((group, text, signatures))
    ahead = [background.start(_compile, text) for _, text, _ in batches[1:]]
    compiled = [_compiled_or_none(lambda: _compile(batches[0][1]))] if batches else []
    compiled += [_compiled_or_none(job.result) for job in ahead]
    for (group, _, signatures), exe in zip(batches, compiled):
        if exe is not None:
            _register(exe, group, signatures)


MAX_BATCHES = 4  # executables _precompile_xla splits its texts into, at most (one per core)


def _compiled_or_none(compile_):
    """The executable `compile_()` returns, None where XLA fails on it (each module is then
    compiled at its call)."""
    try:
        return compile_()
    except Exception:  # jaxlib's errors (MLIRError, XlaRuntimeError...)
        return None


def _balanced(texts: list[str], n: int) -> list[list[str]]:
    """`texts` in at most `n` groups of about equal total length, the texts of one signature
    (their @main's argument types: the same sizes) kept in one group, for XLA merges the
    computations they share (adi's 28 texts: 2.5-2.8 s of CPU as one executable, 2.6-2.7 s
    as two groups by signature, 3.0-3.1 s as two groups of mixed sizes). Signatures go the
    longest first, each to the group shortest so far; each group in the order of `texts`; no
    empty group (fewer groups than `n` where there are fewer signatures)."""
    signatures: dict[str, list[int]] = {}
    for k, t in enumerate(texts):
        m = re.search(r"func\.func (?:public )?@main\(([^)]*)\)", t)
        signatures.setdefault(m.group(1) if m else "", []).append(k)
    groups: list[list[int]] = [[] for _ in range(max(1, n))]
    load = [0] * len(groups)
    for ks in sorted(signatures.values(), key=lambda ks: -sum(len(texts[k]) for k in ks)):
        g = load.index(min(load))
        groups[g] += ks
        load[g] += sum(len(texts[k]) for k in ks)
    return [[texts[k] for k in sorted(g)] for g in groups if g]


def _register(exe, texts: list[str], signatures) -> None:
    """Each of `texts` runs from `exe`, the batch compiled for them (`signatures`: its)."""
    from synth.execution import NUMPY_DTYPES

    jax, backend, device = xla_platform("cpu")
    fillers = [[jax.device_put(np.zeros(shape, NUMPY_DTYPES[element]), device) for shape, element in ins]
               for ins, _ in signatures]
    results = [len(outs) for _, outs in signatures]
    for k, t in enumerate(texts):
        _executables[_key(t)] = _Part(exe, fillers, k, results)


def _batch_module(texts: list[str]) -> tuple[str, list]:
    """(the module calling each text's @main, renamed @main__k with its other functions
    suffixed __k, from a public @main on all their arguments; per text: ([(shape, element
    type)] of its arguments, its result types)). ValueError where a text has what the batch
    does not carry (module attributes, an argument type NumPy has no zeros for)."""
    from jaxlib.mlir import ir

    from synth.execution import NUMPY_DTYPES
    from synth.semantics.raised import shared_context

    signatures = []
    with shared_context("jax"), ir.Location.unknown():
        merged = ir.Module.create()
        for k, text in enumerate(texts):
            module = ir.Module.parse(text)
            if len(module.operation.attributes):
                raise ValueError("module attributes")
            for op in list(module.body.operations):
                if op.operation.name != "func.func":
                    continue
                old = op.attributes["sym_name"].value
                ir.SymbolTable.replace_all_symbol_uses(old, f"{old}__{k}", module.operation)
                op.attributes["sym_name"] = ir.StringAttr.get(f"{old}__{k}")
                op.attributes["sym_visibility"] = ir.StringAttr.get("private")
                if old == "main":
                    ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                    ins = []
                    for t in ftype.inputs:
                        shaped = ir.RankedTensorType(t)
                        if str(shaped.element_type) not in NUMPY_DTYPES:
                            raise ValueError(f"an argument of type {t}")
                        ins.append((tuple(shaped.shape), str(shaped.element_type)))
                    signatures.append((ins, [str(t) for t in ftype.inputs], [str(t) for t in ftype.results]))
            for op in list(module.body.operations):
                merged.body.append(op.operation)
        args, results, calls, n = [], [], [], 0
        for k, (_, ins, outs) in enumerate(signatures):
            names = [f"%a{n + i}" for i in range(len(ins))]
            n += len(ins)
            args += [f"{a}: {t}" for a, t in zip(names, ins)]
            got = [f"%r{k}#{i}" for i in range(len(outs))] if len(outs) > 1 else [f"%r{k}"]
            lhs = f"%r{k}:{len(outs)}" if len(outs) > 1 else f"%r{k}"
            calls.append(f"  {lhs} = func.call @main__{k}({', '.join(names)}) : ({', '.join(ins)}) -> "
                         f"({', '.join(outs)})")
            results += list(zip(got, outs))
        main = (f"func.func public @main({', '.join(args)}) -> ({', '.join(t for _, t in results)}) {{\n"
                + "\n".join(calls) + f"\n  return {', '.join(r for r, _ in results)} : "
                f"{', '.join(t for _, t in results)}\n}}")
        text = str(merged).rstrip()
        text = text[:text.rindex("}")] + main + "\n}\n"
        ir.Module.parse(text).operation.verify()
        del merged
    return text, [(ins, outs) for ins, _, outs in signatures]
