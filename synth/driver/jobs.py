"""One function of a C file, from its translation to a native object: translate it
(synth.frontend.c), look its key up in the cache, else raise it (synth.pipeline), compile
the output module (synth.driver.native) and store the outcome. Every outcome is an entry
(a dict, JSON-ready): "raised" with the object and what the rewrite needs, or "kept" with
the reason. Jobs run in the driver's process or in a process pool (`--jobs N`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from synth.driver.timing import ORIGINAL, SYMBOL, ms
from synth.errors import SynthError

TARGETS = ("linalg", "stablehlo")

VERIFY_WORDS = {"all": "proven for every size", "z3": "proven at bounded sizes", "test": "tested"}


@dataclass(frozen=True)
class Job:
    path: str
    function: str
    defines: tuple[str, ...]
    include_dirs: tuple[str, ...]
    std: str
    flags: tuple[str, ...]  # other preprocessor flags (-U, -include, -isystem ...)
    target: str
    verify: str
    timeout: float
    march: str | None
    cache_dir: str
    work_dir: str
    pipeline: str = "tiled"
    shapes: str = "auto"  # auto: static where every array argument has a static type, else generic
    params: tuple[str, ...] = ()  # the C parameter names (for messages)
    compiler: str = "cc"  # the user's compiler and compile flags: the original, timed
    cc_flags: tuple[str, ...] = ()
    keep_slower: bool = False  # use a raise even where the original ran faster
    budget: float = 60.0  # seconds for the native compile of one raise (each lowering form)


def signature(source, name: str) -> tuple[list[dict], list[str]]:
    """Per argument of @name: {"kind": "scalar", "type"} or {"kind": "memref", "element",
    "shape" (None for ?), "c_shape" (the C extents, or None)}; and the result types."""
    from mlir import ir

    with source.context:
        for op in source.parsed().body.operations:
            if op.operation.name != "func.func" or ir.StringAttr(op.attributes["sym_name"]).value != name:
                continue
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            attrs = list(ir.ArrayAttr(op.attributes["arg_attrs"])) if "arg_attrs" in op.attributes else []
            args = []
            for i, t in enumerate(ftype.inputs):
                if isinstance(t, ir.MemRefType):
                    m = t
                    shape = [None if ir.ShapedType.is_dynamic_size(d) else d for d in m.shape]
                    c_shape, c_require, c_strides = None, [], None
                    if i < len(attrs):
                        d = ir.DictAttr(attrs[i])
                        if "synth.c_strides" in d:  # a view at run-time strides (in elements)
                            c_strides = [ir.StringAttr(x).value for x in ir.ArrayAttr(d["synth.c_strides"])]
                        if "synth.c_shape" in d:
                            c_shape = [ir.StringAttr(x).value for x in ir.ArrayAttr(d["synth.c_shape"])]
                        if "synth.c_shape_requires" in d:  # conditions the reading needs (a byte stride's)
                            c_require = [ir.StringAttr(x).value for x in ir.ArrayAttr(d["synth.c_shape_requires"])]
                    args.append({"kind": "memref", "element": str(m.element_type), "shape": shape,
                                 "c_shape": c_shape, "c_require": c_require, "c_strides": c_strides})
                else:
                    args.append({"kind": "scalar", "type": str(t)})
            return args, [str(t) for t in ftype.results]
    raise SynthError(f"internal error: no @{name} in its translation")


def run_job(job: Job) -> dict:
    """The entry of one function (never raises for the function's own faults: those are
    "kept" entries with their reason). Target "auto": both targets, the faster kept."""
    from synth.driver.rewrite import check_supported
    from synth.errors import InputError
    from synth.frontend.c import translate_c

    t0 = time.monotonic()
    base = {"file": job.path, "function": job.function, "target": job.target}

    def kept(reason: str, **more) -> dict:
        return {**base, "status": "kept", "reason": reason, **more}

    try:
        source = translate_c(job.path, function=job.function, defines=list(job.defines),
                             include_dirs=list(job.include_dirs), std=job.std, extra_flags=list(job.flags),
                             locations=False)
    except InputError as e:
        return kept(f"not read as a static-control kernel: {e.message}", cached=False,
                    seconds={"translate": _since(t0)})
    args, results = signature(source, job.function)
    why = check_supported(args, results, list(job.params) or [f"#{i}" for i in range(len(args))])
    if why is not None:
        return kept(f"no C call for its signature: {why}", cached=False, seconds={"translate": _since(t0)})
    shapes = job.shapes
    if shapes == "auto" and all(a["kind"] == "scalar" or None not in a["shape"] for a in args):
        shapes = "static"  # at the arrays' sizes; other run-time sizes take @NAME_loops
    targets = TARGETS if job.target == "auto" else (job.target,)
    try:
        per = {t: _target(job, source, t, args, results, shapes) for t in targets}
    finally:
        _ORIGINAL_RUNS.clear()  # LARGE arrays: not kept past the function
    raised = {t: e for t, e in per.items() if e["status"] == "raised"}
    others = {t: _outcome(e) for t, e in per.items()} if len(targets) > 1 else None
    if not raised:
        if len(targets) == 1:
            return per[targets[0]]
        return kept("; ".join(f"{t}: {e['reason']}" for t, e in per.items()), targets=others,
                    cached=all(e.get("cached") for e in per.values()))
    timing = _timing(job, source, raised, args, results, shapes)
    if "error" in timing:
        chosen = "linalg" if "linalg" in raised else next(iter(raised))
    else:
        chosen = timing["fastest_raise"]
    entry = {**raised[chosen], "target": chosen, "timing": timing}
    entry["cached"] = entry.get("cached") and timing.get("cached", False)
    if others:
        entry["targets"] = others
    if timing.get("chosen") == ORIGINAL and not job.keep_slower:
        t = timing["ms"]
        entry.update(status="kept", raised_target=chosen,
                     reason=f"raised code slower ({ms(t[chosen])} vs {ms(t[ORIGINAL])})")
    return entry


def _outcome(e: dict) -> dict:
    if e["status"] == "raised":
        return {"status": "raised", "verified": e.get("verified"), "pipeline": e.get("pipeline")}
    return {"status": "kept", "reason": e.get("reason")}


def _target(job: Job, source, target: str, args, results, shapes: str) -> dict:
    """The entry of the raise to one target: from the cache, else raised, compiled,
    checked and stored."""
    from synth.driver import cache

    t0 = time.monotonic()
    k = cache.key(source.text, job.function, target, job.verify, job.timeout, job.march, job.pipeline, job.shapes,
                  job.budget)
    directory = Path(job.cache_dir)
    base = {"file": job.path, "function": job.function, "target": target}
    hit = cache.load(directory, k)
    if hit is not None:
        return {**hit, **base, "key": k, "cached": True, "seconds": {"lookup": _since(t0)}}
    entry = _raise(replace(job, target=target), source, k, args, results, t0, shapes)
    obj = entry.pop("_object", None)
    return {**cache.store(directory, k, {**entry, "key": k}, obj), "cached": False}


def _timing(job: Job, source, raised: dict, args, results, shapes: str) -> dict:
    """The raised objects and the original timed on the check's inputs (made diagonally
    dominant, as PolyBench's solvers are fed), cached under the objects' keys and the
    compiler's command: decide()'s summary, or {"error": why}."""
    import tempfile

    from synth.driver import cache
    from synth.driver.check import inputs
    from synth.driver.native import RUNTIME_C
    from synth.driver.timing import compile_original, decide, link_object, time_candidates, timing_flags
    from synth.errors import ExecutionError
    from synth.pipeline import load_kernel
    from synth.synthesis.spec import diagonally_dominant

    t0 = time.monotonic()
    k = "timing-" + cache.key("timing", sorted(e["key"] for e in raised.values()), job.compiler,
                              timing_flags(list(job.cc_flags)))
    directory = Path(job.cache_dir)
    hit = cache.load(directory, k)
    if hit is not None:
        hit.pop("status", None)
        return {**hit, "cached": True}
    static = shapes == "static" or any(e.get("shapes") == "static" for e in raised.values())
    try:
        kernel = load_kernel(source, job.function)
        if not static:  # as the generic raise was made (synth.pipeline.raise_function)
            kernel.sizes.with_test_values()
            kernel.sizes.keep_runtime_repeats()
        call = diagonally_dominant(inputs(kernel, args, static))
        with tempfile.TemporaryDirectory(prefix="synth-cc-timing-") as tmp:
            tmp = Path(tmp)
            compile_original(job.path, job.function, job.compiler, list(job.cc_flags), tmp / "original.so")
            candidates = [{"label": ORIGINAL, "lib": str(tmp / "original.so"), "symbol": SYMBOL,
                           "convention": "c"}]
            for t, e in raised.items():
                link_object(e["object"], RUNTIME_C, tmp / f"{t}.so")
                candidates.append({"label": t, "lib": str(tmp / f"{t}.so"), "symbol": e["entry"],
                                   "convention": "memref"})
            times = time_candidates(candidates, args, results, call)
    except (ExecutionError, SynthError) as e:
        return {"error": f"not timed: {_short(str(e), 200)}", "cached": False}
    summary = {**decide(times), "sizes": "the kernel's own" if static else "the check's",
               "seconds": _since(t0)}
    cache.store(directory, k, {**summary, "status": "timing"})
    return {**summary, "cached": False}


def _since(t0: float) -> float:
    return round(time.monotonic() - t0, 3)


def _raise(job: Job, source, k: str, args, results, t0: float, shapes: str) -> dict:
    from synth.errors import ExecutionError, NoSolutionError
    from synth.pipeline import RaiseOptions, raise_function
    from synth.synthesis.search import SearchSettings

    base = {"file": job.path, "function": job.function, "target": job.target}
    t_raise = time.monotonic()
    try:
        outcome = raise_function(source, job.function, job.target,
                                 RaiseOptions(SearchSettings(timeout=job.timeout), job.verify, shapes=shapes))
    except NoSolutionError as e:
        return {**base, "status": "kept", "reason": f"no equivalent program found: {_short(e.message)}",
                "seconds": {"raise": _since(t_raise)}}
    except SynthError as e:
        return {**base, "status": "kept", "reason": f"not raised (exit {e.exit_code}): {_short(e.message)}",
                "seconds": {"raise": _since(t_raise)}}
    raise_s = _since(t_raise)
    t_native = time.monotonic()
    prefix = f"__synth_{k[:16]}"
    obj = Path(job.work_dir) / f"{k}.o"
    try:
        native, checked = _native(job, outcome, source, prefix, obj, args, results)
    except ExecutionError as e:
        return {**base, "status": "kept", "reason": f"raised, but its native code failed: {_short(str(e))}",
                "seconds": {"raise": raise_s, "native": _since(t_native)}}
    level = outcome.validation["level"]
    return {**base, "status": "raised", "verification": level, "verified": VERIFY_WORDS[level],
            "validation": outcome.validation["summary"], "shapes": outcome.stats.get("shapes"),
            "entry": native["entry"], "pipeline": native["pipeline"], "undefined": native["undefined"],
            "checked": checked, "guard": _guard(outcome.kernel, args) if outcome.stats.get("shapes") == "static" else [],
            "arguments": args, "results": results, "written": list(outcome.kernel.written),
            "seconds": {"raise": raise_s, "native": _since(t_native), "total": _since(t0)},
            "_object": str(obj)}


def _guard(kernel, args: list[dict]) -> list[list]:
    """What a static raise fixed of the sizes its caller passes, for the C wrapper to
    compare (synth.driver.rewrite): ["param", argument, value] per size argument that
    bounds a loop, ["dim", argument, dim, value] per extent of an array the C type leaves
    to run time. Where they differ, the wrapper calls the function as written (the
    object's drop-in would run its MLIR copy of the loops, which need not be as fast as
    the C compiler's: PolyBench's gramschmidt harness passes n = min(M, N))."""
    model = kernel.sizes
    values = model.original()
    out: list[list] = [["param", i, int(values[name])] for i, name in sorted(model.params.items())
                       if i < kernel.n_arguments]
    for a in kernel.function.arguments[:kernel.n_arguments]:
        if a.is_array and a.index < len(args) and args[a.index]["kind"] == "memref":
            for d, extent in enumerate(args[a.index]["shape"]):
                if extent is None:
                    out.append(["dim", a.index, d, int(kernel.tensor_type(a.index, values).shape[d])])
    return out


# the original's runs of a function's check (synth.driver.check.reference, .conditioned),
# shared by its targets' checks within one run_job: (translation, function, static) -> runs
_ORIGINAL_RUNS: dict[tuple, dict] = {}


def _native(job: Job, outcome, source, prefix: str, obj: Path, args, results) -> tuple[dict, str]:
    """Compile the raise (the tiled pipeline, then the plain one) and check each object
    against the original (synth.driver.check) before it is used: (compile_module's
    answer, what the check did). ExecutionError when no object agrees."""
    from synth.driver.check import conditioned, differs, reference, run_object
    from synth.driver.native import LOWERINGS, RUNTIME_C, WORKER_TIMEOUT, compile_module
    from synth.errors import ExecutionError

    static = outcome.stats.get("shapes") == "static"
    try:
        memo = _ORIGINAL_RUNS.setdefault((source.text, job.function, static), {})
        if "reference" not in memo:  # the other target's check ran it already
            memo["reference"] = reference(outcome.kernel, source, args, static)
        call, written, returned = memo["reference"]
    except SynthError as e:  # the original cannot run here: the plain pipeline, unchecked
        native = compile_module(outcome.module, job.function, prefix, job.target, obj, job.march, "loops",
                                budget=max(job.budget, WORKER_TIMEOUT))
        return native, f"not checked (the original did not run: {_short(str(e), 120)})"
    kinds = LOWERINGS[job.pipeline]
    failures, fair = [], memo.get("conditioned")
    for kind in kinds:
        try:
            native = compile_module(outcome.module, job.function, prefix, job.target, obj, job.march, kind,
                                    budget=job.budget)
        except ExecutionError as e:
            failures.append(f"{kind}: {_short(str(e), 200)}")
            if "compile budget" in str(e):  # the next form lowers the same ops: no faster
                break
            continue
        if native["pipeline"] != kind:  # compile_module fell back itself
            kinds_done = native["pipeline"]
        else:
            kinds_done = kind
        try:
            arrays, values = run_object(obj, native["entry"], args, results, call, RUNTIME_C)
        except ExecutionError as e:
            failures.append(f"{kinds_done}: {_short(str(e), 200)}")
            continue
        bad = [f"argument #{i}" for i, a in written.items() if differs(a, arrays[i])]
        bad += [f"result #{j}" for j, v in enumerate(returned) if j >= len(values) or differs(v, values[j])]
        if bad and len(values) >= len(returned):  # rounding, or a wrong program? (check.conditioned)
            try:
                fair = fair or conditioned(outcome.kernel, source, call, written, returned)
                memo["conditioned"] = fair
                arrays, values = run_object(obj, native["entry"], args, results, fair[0], RUNTIME_C)
            except (SynthError, ExecutionError) as e:
                failures.append(f"{kinds_done}: {', '.join(bad)} differ from the original's; "
                                f"on a better-conditioned draw: {_short(str(e), 120)}")
                continue
            _, written_c, returned_c, ignore, ignore_returned = fair
            bad = [f"argument #{i}" for i, a in written_c.items() if differs(a, arrays[i], ignore.get(i))]
            bad += [f"result #{j}" for j, v in enumerate(returned_c)
                    if j >= len(values) or differs(v, values[j], ignore_returned[j])]
        if not bad:
            before = f"; {'; '.join(failures)}" if failures else ""
            return native, f"outputs equal to the original's ({kinds_done} pipeline{before})"
        failures.append(f"{kinds_done}: {', '.join(bad)} differ from the original's")
    raise ExecutionError("; ".join(failures))


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
