"""`synth bench`: raise every kernel function found, verify, time each backend, report.

Phases:
1. Discovery: every function with a body in the given files / directories (or the bundled
   PolyBench suite), resized to the dataset when it is a PolyBench kernel.
2. Raising: `synth.pipeline.raise_function` (what `synth raise` calls) in a child process
   per kernel x target (synth.bench.raise_job), with a deadline; a failure is a result
   (with its reason), never the end of the batch. Jobs run in a local pool
   (`--jobs`) or on a Dask distributed cluster (`--scheduler ADDRESS`).
3. Timing: the baseline (original affine code, MLIR -O3, ExecutionEngine) once per kernel,
   then every backend of the raised target; outputs are compared with the baseline
   before anything is timed. Timing runs one kernel at a time, so runs do not compete.
4. Results: an SQLite database keyed by the hash of everything a result depends on
   (re-running skips what did not change), and results.json / results.csv / report.md /
   speedup.png in --out.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path


from synth import __version__
from synth.pipeline import RaiseOptions

VALIDATION = RaiseOptions().verify
from synth.backends.registry import BACKEND_ERRORS
from synth.bench.raise_job import run_raise_job
from synth.bench.report import write_reports, run_header
from synth.bench.timing import TimingSettings, time_kernel
from synth.errors import InputError

ROOT = Path(__file__).resolve().parents[2]  # the checkout: synth/bench/runner.py
POLYBENCH_DIR = ROOT / "benchmarks" / "polybench"


@dataclass(frozen=True)
class Job:
    kernel: str  # display name (file stem, plus @function when a file has several)
    path: str  # the (resized) module file raised
    function: str
    target: str
    timeout: float
    out_dir: str
    key: str  # hash of everything the raise depends on (timing settings add to it)
    shapes: str = "static"  # synth raise --shapes: "static" or "generic"

    @property
    def label(self) -> str:
        """The target as reports show it: a generic raise is `TARGET generic`."""
        return self.target if self.shapes == "static" else f"{self.target} {self.shapes}"

    @property
    def raised_path(self) -> str:
        suffix = "" if self.shapes == "static" else f".{self.shapes}"
        return str(Path(self.out_dir) / "raised" / f"{self.kernel}.{self.target}{suffix}.mlir")


# ---------------------------------------------------------------------------------------
# discovery


def discover(paths: list[str], suite: str | None) -> list[Path]:
    files: list[Path] = []
    if suite == "polybench":
        if not POLYBENCH_DIR.is_dir():
            raise InputError(f"the PolyBench suite is not here ({POLYBENCH_DIR}); it comes with a "
                             f"checkout of synth (pip install -e .): name the kernel files instead")
        files += sorted(POLYBENCH_DIR.glob("*.mlir"))
    elif suite:
        raise InputError(f"unknown suite {suite!r} (known: polybench)")
    for p in paths:
        path = Path(p)
        if path.is_dir():  # its own files: a subdirectory holds other things (polybench-c's
            files += sorted([*path.glob("*.mlir"), *path.glob("*.c")])  # harness: programs)
        elif path.exists():
            files.append(path)
        else:
            raise InputError("no such file or directory", p)
    if not files:
        raise InputError("no kernels given: name files or directories, or --suite polybench")
    return files


def _hash(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def _grammar_fingerprint() -> str:
    """What a raise depends on besides its input: the grammars and synth's own sources
    (an edited search must not reuse raises cached before the edit)."""
    from synth.grammar.op import DIALECTS, grammar_path

    package = Path(__file__).resolve().parents[1]
    sources = [p.read_text() for p in sorted(package.rglob("*.py"))]
    return _hash(*(grammar_path(d).read_text() for d in DIALECTS), *sources)


def prepare_jobs(files: list[Path], dataset: str | None, targets: list[str], timeout: float,
                 out_dir: Path, c=None, shapes: tuple[str, ...] = ("static",)) -> tuple[list[Job], list[dict]]:
    """Resize every function to the dataset and make its jobs; inputs that cannot be
    loaded become result rows with their reason."""
    from synth.analysis import polybench
    from synth.analysis.function import list_functions
    from synth.frontend.reader import load_input
    from synth.analysis.resize import resize_module

    jobs, failures = [], []
    (out_dir / "kernels").mkdir(parents=True, exist_ok=True)
    grammar = _grammar_fingerprint()
    for f in files:
        try:
            source = load_input(f, c=c, warn=False)  # a .c file is translated first
            names = list_functions(source)
            plan = [n for n in names if polybench.kernel_of_function(n)] if dataset else []
            text = resize_module(source, plan, dataset) if plan else source.text
        except InputError as e:
            failures += [{"kernel": f.stem, "function": "", "target": t, "backend": "",
                          "status": "unsupported", "reason": str(e)} for t in targets]
            continue
        resized = out_dir / "kernels" / f"{f.stem}.{dataset or 'as-is'}.mlir"
        resized.write_text(text)
        for n in names:
            kernel = f.stem if len(names) == 1 else f"{f.stem}@{n}"
            for t in targets:
                for shape in shapes:
                    # the validation level is part of what a raise is (a proof for every size
                    # since level "all"): a cached raise validated otherwise is raised again
                    key = _hash(__version__, grammar, text, n, t, timeout, VALIDATION,
                                *(() if shape == "static" else (shape,)))
                    jobs.append(Job(kernel, str(resized), n, t, timeout, str(out_dir), key, shape))
    return jobs, failures


# ---------------------------------------------------------------------------------------
# the results database


class ResultStore:
    """Raise outcomes (with the raised text) keyed by what the raise depends on; result rows
    keyed by that plus the timing settings, so changing how to time re-times only."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE TABLE IF NOT EXISTS raises (key TEXT PRIMARY KEY, kernel TEXT, "
                        "target TEXT, outcome TEXT, raised TEXT, created REAL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, kernel TEXT, "
                        "target TEXT, rows TEXT, created REAL)")
        self.db.commit()

    def rows(self, key: str) -> list[dict] | None:
        row = self.db.execute("SELECT rows FROM results WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put_rows(self, key: str, job: Job, rows: list[dict]) -> None:
        self.db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)",
                        (key, job.kernel, job.target, json.dumps(rows), time.time()))
        self.db.commit()

    def raise_outcome(self, job: Job) -> dict | None:
        """A stored outcome of `job`, its raised module written back to job.raised_path."""
        row = self.db.execute("SELECT outcome, raised FROM raises WHERE key = ?", (job.key,)).fetchone()
        if row is None:
            return None
        if row[1] is not None:
            Path(job.raised_path).parent.mkdir(parents=True, exist_ok=True)
            Path(job.raised_path).write_text(row[1])
        return {**json.loads(row[0]), "job": job}

    def put_raise(self, outcome: dict) -> None:
        job = outcome["job"]
        raised = Path(job.raised_path).read_text() if Path(job.raised_path).exists() else None
        data = {k: v for k, v in outcome.items() if k != "job"}
        self.db.execute("INSERT OR REPLACE INTO raises VALUES (?, ?, ?, ?, ?, ?)",
                        (job.key, job.kernel, job.target, json.dumps(data), raised, time.time()))
        self.db.commit()


# ---------------------------------------------------------------------------------------
# driver


class Progress:
    """A live progress display on a terminal, a line per event otherwise."""

    def __init__(self, total: int, label: str):
        self.total, self.done, self.label = total, 0, label
        self._rich = None
        if sys.stderr.isatty():
            from rich.progress import Progress as RichProgress

            self._rich = RichProgress(transient=False)
            self._rich.start()
            self._task = self._rich.add_task(label, total=total)

    def step(self, text: str) -> None:
        self.done += 1
        if self._rich:
            self._rich.update(self._task, advance=1, description=f"{self.label}: {text}")
        else:
            print(f"[{self.done}/{self.total}] {self.label}: {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._rich:
            self._rich.stop()


def _time_outcome(job: Job, outcome: dict, settings: TimingSettings, baselines: dict,
                  store: ResultStore, timing: str) -> list[dict]:
    """Result rows for one raise outcome (timed when raised), stored under the timing key."""
    if outcome["status"] == "raised":
        try:
            rows = time_kernel(job, outcome, settings, baselines)
        except BACKEND_ERRORS as e:  # the baseline itself failed: report it, go on
            rows = [{"kernel": job.kernel, "function": job.function, "target": job.label,
                     "backend": "", "status": "error", "reason": f"{type(e).__name__}: {e}"[:500]}]
    else:
        rows = [{"kernel": job.kernel, "function": job.function, "target": job.label,
                 "backend": "", "status": outcome["status"], "reason": outcome["reason"],
                 "synth_seconds": outcome["synth_seconds"], "candidates": outcome["candidates"]}]
    store.put_rows(_hash(job.key, timing), job, rows)
    return rows


def run_bench(paths: list[str], suite: str | None, dataset: str | None, targets: list[str],
              backends: list[str] | None, jobs: int, scheduler: str | None, out_dir: Path,
              timeout: float, warmup: int, repeats: int, db_path: Path | None = None,
              threads: int | None = None, c=None, baseline_cc: bool = False,
              shapes: tuple[str, ...] = ("static",), call_timeout: float | None = None) -> dict:
    """`call_timeout`: seconds a backend's compile, or one call, may take (None: no limit);
    one longer is stopped and its rows say "timeout"."""
    files = discover(paths, suite)
    settings = TimingSettings(backends, warmup, repeats, threads,
                              cc_dataset=dataset if baseline_cc else None, call_timeout=call_timeout)
    timing = _hash(sorted(backends or []), warmup, repeats, threads, settings.cc_dataset, call_timeout)
    job_list, rows = prepare_jobs(files, dataset, targets, timeout, out_dir, c, tuple(shapes))
    skipped = {(r["kernel"], r["reason"]) for r in rows if r.get("status") == "unsupported"}
    for kernel, reason in sorted(skipped):
        print(f"synth bench: skipped {kernel}: {reason}", file=sys.stderr)
    store = ResultStore(db_path or out_dir / "results.sqlite")
    todo, outcomes = [], []
    for job in job_list:
        cached = store.rows(_hash(job.key, timing))
        if cached is not None:
            rows += cached
        elif (outcome := store.raise_outcome(job)) is not None:
            outcomes.append(outcome)  # raised before: time it only
        else:
            todo.append(job)
    unchanged = len(job_list) - len(todo) - len(outcomes)
    print(f"synth bench: {len(job_list)} jobs ({unchanged} unchanged, {len(outcomes)} to time, "
          f"{len(todo)} to raise) on {scheduler or f'{jobs} local worker(s)'}", file=sys.stderr)

    progress = Progress(len(todo), "raise")
    if todo and scheduler:
        from dask.distributed import Client, as_completed as dask_completed

        with Client(scheduler) as client:
            futures = client.map(run_raise_job, todo, pure=False)
            for fut in dask_completed(futures):
                outcome = fut.result()
                store.put_raise(outcome)
                outcomes.append(outcome)
                progress.step(f"{outcome['job'].kernel}/{outcome['job'].label} {outcome['status']}")
    elif todo:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(run_raise_job, j) for j in todo]
            for fut in as_completed(futures):
                outcome = fut.result()
                store.put_raise(outcome)
                outcomes.append(outcome)
                progress.step(f"{outcome['job'].kernel}/{outcome['job'].label} {outcome['status']}")
    progress.close()

    from synth.backends.registry import pinned_cpu_threads

    baselines: dict = {}
    progress = Progress(len(outcomes), "time")
    with pinned_cpu_threads(threads):  # timing only: the raise jobs above used every core
        for outcome in sorted(outcomes, key=lambda o: (o["job"].kernel, o["job"].target, o["job"].shapes)):
            job = outcome["job"]
            rows += _time_outcome(job, outcome, settings, baselines, store, timing)
            progress.step(f"{job.kernel}/{job.label}")
    progress.close()
    title = (f"synth bench: {suite or ', '.join(paths)} at {dataset or 'given sizes'}, raised code on "
             f"{f'{threads} core(s)' if threads else 'all cores'}, baseline single-threaded")
    header = run_header({"dataset": dataset or "as given", "targets": ",".join(targets),
                         "shapes": ",".join(shapes),
                         "synthesis budget": f"{timeout:g} s", "warm-up calls": warmup,
                         "timed calls": repeats, "cores for timing": threads or "all",
                         "call limit": f"{call_timeout:g} s" if call_timeout else "none",
                         "baselines": "MLIR -O3" + (" and C (cc -O3 -march=native)" if baseline_cc else "")})
    return write_reports(rows, out_dir, title, header)
