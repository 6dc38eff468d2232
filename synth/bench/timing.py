"""Timing one raised kernel x target in `synth bench`: the baseline (the original affine
function through MLIR at -O3), optionally the kernel's C twin compiled by the system C
compiler (`--baseline cc`), and every backend of the target; each backend's outputs are
compared with the baseline's before it is timed.

They are timed in rounds (`interleaved`): round k makes one timed call of each, in turn
(for a call shorter than BATCH_SECONDS, a batch of calls in a row whose median counts), so
a slow spell of the machine (this VM shares its last-level cache and memory bandwidth
with other tenants) reaches every contender of a kernel alike instead of the one that
happened to run then; the medians are over the rounds. Before, the baseline was timed
once per kernel file and each backend afterwards: PolyBench LARGE fdtd-2d to linalg
measured 1.28 s (1.06 to 1.54) against the baseline's 0.895 s (0.87 to 0.98) in one run,
while both ran 0.895 s side by side minutes later."""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

POLYBENCH_C_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "polybench-c"


@dataclass(frozen=True)
class TimingSettings:
    backends: list[str] | None  # backend names (None: every available one)
    warmup: int
    repeats: int
    threads: int | None  # cores the timed code may use (None: all)
    cc_dataset: str | None = None  # time PolyBench C twins at this dataset (None: no C baseline)
    call_timeout: float | None = None  # seconds a backend's compile or one call may take (None: no limit)


def _spread(prefix: str, timing) -> dict:
    """The samples' range, and their median CPU time where the backend tells it
    (`{prefix}_cpu`, synth.backends.timing)."""
    cpu = {} if timing.cpu_seconds is None else {f"{prefix}_cpu": timing.cpu_seconds}
    return {f"{prefix}_min": min(timing.samples), f"{prefix}_max": max(timing.samples), **cpu}


def c_twin(function: str) -> Path | None:
    """The PolyBench/C file of a PolyBench kernel function, where there is one."""
    from synth.analysis import polybench

    kernel = polybench.kernel_of_function(function)
    path = POLYBENCH_C_DIR / f"{kernel}.c" if kernel else None
    return path if path is not None and path.is_file() else None


def _cc_baseline(job, settings: TimingSettings, kernel, args, expected, labels) -> tuple[dict, object]:
    """The C twin prepared and checked on the baseline's inputs: (row fields, the prepared
    twin), or (why there is none, None)."""
    from synth.backends.cc import prepare_c
    from synth.errors import SynthError
    from synth.numerics import compare_outputs

    twin = c_twin(job.function)
    if twin is None:
        return {"cc_reason": "no C twin"}, None
    try:
        prepared = prepare_c(twin, job.function, kernel.written, [f"{settings.cc_dataset.upper()}_DATASET"])
        diff = compare_outputs(expected, prepared.run(args), labels)
    except (SynthError, OSError) as e:
        return {"cc_reason": str(e)[:300]}, None
    if diff:
        return {"cc_reason": f"the C twin computes something else: {diff}"}, None
    return {}, prepared


def _backend_error(e: BaseException) -> dict:
    """The fields of a row whose backend failed on the kernel (a result, not a crash). A
    backend whose own pipeline failed (mlir-cpu's PipelineFailed: a pass threw or left IR
    that fails verification) says which pipeline and why, and has no time; one whose
    compile or call took longer than --call-timeout (CallTimeout) is a "timeout", no time."""
    from synth.errors import CallTimeout

    if isinstance(e, CallTimeout):
        return {"status": "timeout", "reason": str(e)[:500]}
    if getattr(e, "fallback_reason", None) is not None:
        return {"status": "pipeline-error", "pipeline": getattr(e, "pipeline", None),
                "fallback_reason": str(e.fallback_reason)[:500], "reason": f"{type(e).__name__}: {e}"[:500]}
    return {"status": "backend-error", "reason": f"{type(e).__name__}: {e}"[:500]}


def _pipeline_fields(prepared) -> dict:
    """The pipeline a backend's Prepared ran (mlir-cpu: "tiled" or "custom") and the
    rewrites each of its passes made, where it says."""
    try:
        name = getattr(prepared, "pipeline_name", None)
        rewrites = getattr(prepared, "rewrites", None)
    except AttributeError:  # a PerShape before its first run
        return {}
    fields = {"pipeline": name} if isinstance(name, str) else {}
    why = getattr(prepared, "dynamic_error", None)  # IREE: a generic raise per input shapes, why
    if isinstance(why, str):
        fields["fallback_reason"] = why[:500]
    if isinstance(rewrites, dict) and rewrites:
        fields["rewrites"] = ",".join(f"{k.removeprefix('synth-')}={v}" for k, v in sorted(rewrites.items()) if v)
    return fields


# a contender whose call takes less than this runs that many calls back to back per round
# (its round's sample is their median), timeit-style: a single call of a kernel of a few
# hundred microseconds right after another contender's measures the caches the other left
# behind and the worker's round trip as much as the kernel. PolyBench LARGE jacobi-1d raised
# to linalg, mlir-cpu, AMD EPYC host: one call per round 0.375-0.449 ms over three runs of 5
# rounds, 20 calls in a row 0.338-0.356 ms (the C loops' best of 20: 0.388 ms).
BATCH_SECONDS = 0.02
MAX_BATCH = 1000


def batch_size(first_call: float, batch_seconds: float = BATCH_SECONDS) -> int:
    """Calls per round for a contender whose first timed call took `first_call` seconds."""
    if batch_seconds <= 0 or first_call >= batch_seconds:
        return 1
    return max(1, min(MAX_BATCH, math.ceil(batch_seconds / max(first_call, 1e-9))))


def interleaved(contenders: dict, args: list, warmup: int, repeats: int, errors: tuple,
                batch_seconds: float = BATCH_SECONDS) -> tuple[dict, dict]:
    """Time the prepared `contenders` (name -> prepared) in `repeats` rounds, in turn, the
    first round after each one's `warmup` calls: ({name: Timing}, {name: the error of one
    that failed}; `errors`: the exception types that are a contender's failure rather than a
    crash). A round makes one timed call of each, or, for a contender whose first timed call
    took less than `batch_seconds`, `batch_size` calls in a row whose median is the round's
    sample (each Timing's samples are one per round)."""
    from synth.backends.timing import Timing

    samples: dict = {name: [] for name in contenders}
    cpu: dict = {name: [] for name in contenders}  # a round's median CPU time, where told
    batch: dict = {}
    failed: dict = {}
    for k in range(repeats):
        for name, prepared in contenders.items():
            if name in failed:
                continue
            try:
                got = prepared.time(args, warmup if k == 0 else 0, batch.get(name, 1))
            except errors as e:
                failed[name] = e
                continue
            samples[name].append(statistics.median(got.samples))
            if got.cpu_samples:
                cpu[name].append(statistics.median(got.cpu_samples))
            batch.setdefault(name, batch_size(got.samples[0], batch_seconds))
    return {n: Timing.from_samples(v, warmup, cpu[n] if len(cpu[n]) == len(v) else None)
            for n, v in samples.items() if n not in failed}, failed


def _undetermined(baselines: dict, path: str, prepared, args: list, expected: list) -> list:
    """The baseline's undetermined elements (synth.numerics.undetermined), once per kernel
    file: the prepared original run again on its inputs moved by 1e-12 relative."""
    from synth.numerics import perturbed, undetermined

    key = ("undetermined", path)
    if key not in baselines:
        baselines[key] = undetermined(expected, prepared.run(perturbed(args, np.random.default_rng(2025))))
    return baselines[key]


def _conditioned(prepared, args: list, expected: list) -> tuple[list, list]:
    """The draw, or the draw scaled down (synth.synthesis.spec.scaled_down) where the
    original amplifies rounding on it (durbin's recursion on random r: any reordering of
    its sums moves the outputs beyond the tolerance) and not on the scaled one, as
    synth.validation.testing does."""
    from synth.numerics import amplification, perturbed, undetermined
    from synth.synthesis.spec import finite_outputs, scaled_down
    from synth.validation.testing import ILL_CONDITIONED

    rng = np.random.default_rng(2026)
    if amplification(expected, prepared.run(perturbed(args, rng))) <= ILL_CONDITIONED:
        return args, expected
    calmer = scaled_down(args)
    calm = prepared.run(calmer)
    if not finite_outputs(calm):
        return args, expected
    again = prepared.run(perturbed(calmer, rng))
    if amplification(calm, again) > ILL_CONDITIONED or any(
            m is not None and m.any() for m in undetermined(calm, again)):
        return args, expected
    return calmer, calm


def compile_seconds(prepare_seconds: float, prepared, lazy: bool) -> float:
    """A backend's compile time for a raise: the wall time of its `prepare` (XLA and IREE
    compile there; mlir-cpu lowers the module there: library forms, stablehlo to linalg),
    plus, for a backend that compiles on its first call (mlir-cpu's worker: the pipeline and
    the JIT; a per-shape raise), the compile time that call reports."""
    later = getattr(prepared, "compile_seconds", None) if lazy else None
    return prepare_seconds + (later or 0.0)


def time_kernel(job, outcome: dict, settings: TimingSettings, baselines: dict) -> list[dict]:
    """Rows for one raised kernel x target (a synth.bench.runner.Job): one per backend.
    `baselines` caches the baselines of each kernel file across its targets."""
    from synth.analysis.model import load_kernel
    from synth.backends.registry import BACKEND_ERRORS, baseline_backend, backends_for
    from synth.backends.timing import check_limit
    from synth.frontend.reader import load_source
    from synth.numerics import compare_outputs
    from synth.synthesis.spec import diagonally_dominant, finite_outputs, grown, random_draw

    source = load_source(job.path, warn=False)
    kernel = load_kernel(source, job.function)
    labels = kernel.written + [f"result #{j}" for j in range(len(kernel.interface.results))]
    base = {k: outcome.get(k) for k in ("synth_seconds", "search_seconds", "candidates", "verification", "form")}
    common = {"kernel": job.kernel, "function": job.function, "target": job.label, **base}
    if job.path not in baselines:  # inputs and baselines once per kernel file, for every target
        args = kernel.arguments(kernel.sizes.original(), random_draw(np.random.default_rng(2024)))
        args = args[: kernel.n_arguments]  # the function as written (no out-parameters)
        prepared = baseline_backend().prepare(source.text, job.function, kernel.written)
        expected = prepared.run(args)
        if not finite_outputs(expected) or grown(args, expected):  # a substitution overflows on
            # random data (trisolv), an elimination without pivoting grows its elements (lu)
            args = diagonally_dominant(args)
            expected = prepared.run(args)
        args, expected = _conditioned(prepared, args, expected)
        cc = (_cc_baseline(job, settings, kernel, args, expected, labels)
              if settings.cc_dataset and not kernel.interface.results else ({}, None))
        baselines[job.path] = (args, expected, cc, prepared)
    args, expected, (cc_fields, cc_prepared), base = baselines[job.path]
    raised_text = Path(job.raised_path).read_text()
    # a shape-generic raise goes to each backend as it is: XLA and mlir-cpu make it static
    # at the inputs' shapes (registry.PerShape, as XLA specializes a generic jax function
    # at its first call for each shape), IREE compiles it with dynamic shapes (its rows'
    # pipeline "dynamic (local-sync)", or "per-shape" where IREE refuses the text)
    outcomes: list = []  # per backend: (row, error row or None)
    contenders = {"baseline": base, **({"cc": cc_prepared} if cc_prepared is not None else {})}
    for backend in backends_for(job.target, threads=settings.threads, call_timeout=settings.call_timeout):
        if settings.backends and backend.name not in settings.backends:
            continue
        row = {**common, "backend": backend.name}
        try:
            t0 = time.perf_counter()
            prepared = backend.prepare(raised_text, job.function)
            lazy = getattr(prepared, "compile_seconds", None) is None  # compiles on its first call
            prepare_seconds = time.perf_counter() - t0
            got = prepared.run(args)
            row["compile_seconds"] = compile_seconds(prepare_seconds, prepared, lazy)
            check_limit(row["compile_seconds"], settings.call_timeout, f"{backend.name}'s compile")
            diff = compare_outputs(expected, got, labels)
            if diff:  # the elements the original itself does not determine are not compared
                ignore = _undetermined(baselines, job.path, base, args, expected)
                diff = compare_outputs(expected, got, labels, ignore)
                if diff is None:
                    row["not_compared"] = int(sum(int(np.sum(m)) for m in ignore if m is not None))
            if diff:
                outcomes.append((row, {"status": "wrong-output", "reason": diff}))
                continue
        except BACKEND_ERRORS as e:  # a backend failing on one kernel is a result, not a crash
            outcomes.append((row, _backend_error(e)))
            continue
        contenders[("backend", backend.name)] = prepared
        outcomes.append((row, None))
    timings, failed = interleaved(contenders, args, settings.warmup, settings.repeats, BACKEND_ERRORS)
    if "baseline" in failed:  # the baseline itself failed: the caller reports it
        raise failed["baseline"]
    base_timing = timings["baseline"]
    cc = dict(cc_fields)
    if "cc" in timings:
        cc.update({"cc_seconds": timings["cc"].seconds, **_spread("cc", timings["cc"])})
    elif "cc" in failed:
        cc["cc_reason"] = str(failed["cc"])[:300]
    rows = []
    for row, error in outcomes:
        row = {**row, "baseline_seconds": base_timing.seconds, **_spread("baseline", base_timing), **cc}
        name = ("backend", row["backend"])
        if error is None and name in failed:
            error = _backend_error(failed[name])
        if error is not None:
            rows.append({**row, **error})
            continue
        timing = timings[name]
        speedup = (lambda ref: ref / timing.seconds if timing.seconds > 0 else None)
        rows.append({**row, "status": "ok", **_pipeline_fields(contenders[name]),
                     "seconds": timing.seconds, **_spread("seconds", timing),
                     "speedup": speedup(base_timing.seconds),
                     **({"speedup_cc": speedup(cc["cc_seconds"])} if "cc_seconds" in cc else {})})
    return rows
