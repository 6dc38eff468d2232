"""One raise of `synth bench`: `synth.pipeline.raise_function`, the function `synth raise`
calls, run in a child process.

The child is the process boundary of a batch: it enforces the job's deadline (it is killed
when the budget plus a margin has passed), an LLVM assertion that aborts it ends one job
rather than the batch, and it works the same on a Dask worker (whose processes may not
fork children of their own through multiprocessing, but may start programs). The parent
sends the job as JSON on stdin; the child writes the validated module to the job's
output path and its outcome as JSON on stdout:

    {"exit_code": 0, "candidates": 123, "verification": "z3"}
    {"exit_code": 2, "reason": "k.mlir:3:5: ..."}       # a SynthError: its exit code

Anything else the child raises is a bug: its traceback goes to stderr, and the job is an
"error" row with the traceback's last line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

KILL_MARGIN = 120.0  # seconds past the search budget before a job is killed
STATUS = {0: "raised", 2: "unsupported", 3: "not-raised"}  # by exit code; others: "error"


def run_raise_job(job) -> dict:
    """Raise `job` (a synth.bench.runner.Job) in a child process: the outcome row fields
    (status, exit_code, synth_seconds, candidates, verification, reason) and the job."""
    out = Path(job.raised_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    request = {"path": job.path, "function": job.function, "target": job.target,
               "timeout": job.timeout, "output": str(out), "shapes": job.shapes}
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "synth.bench.raise_job"], input=json.dumps(request),
                              capture_output=True, text=True, timeout=job.timeout + KILL_MARGIN)
        lines = proc.stdout.strip().splitlines()
        result = json.loads(lines[-1]) if proc.returncode == 0 and lines else None
        if result is None:
            err = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
            result = {"exit_code": proc.returncode or 1,
                      "reason": err[-1] if err else f"exit code {proc.returncode}"}
    except subprocess.TimeoutExpired:
        result = {"exit_code": -9, "reason": f"killed after {job.timeout + KILL_MARGIN:.0f} s"}
    code = result["exit_code"]
    return {"job": job, "status": STATUS.get(code, "error"), "exit_code": code,
            "synth_seconds": round(time.monotonic() - t0, 3), "candidates": result.get("candidates"),
            "verification": result.get("verification", "execution"), "form": result.get("form", ""),
            "search_seconds": result.get("search_seconds"), "reason": result.get("reason", "")}


def _child() -> int:
    """The child: read the request, raise, write the module, print the outcome."""
    import warnings

    from synth.errors import SynthError
    from synth.frontend.reader import load_source
    from synth.pipeline import RaiseOptions, raise_function
    from synth.synthesis.search import SearchSettings

    request = json.loads(sys.stdin.read())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # input warnings: the CLI shows them, a batch does not
            source = load_source(request["path"], warn=False)
        options = RaiseOptions(SearchSettings(timeout=request["timeout"]), shapes=request.get("shapes", "static"))
        outcome = raise_function(source, request["function"], request["target"], options)
        Path(request["output"]).write_text(outcome.module)
        result = {"exit_code": 0, "candidates": outcome.stats["candidates"],
                  "verification": outcome.validation["level"], "form": outcome.form,
                  "search_seconds": outcome.stats["search_seconds"]}
    except SynthError as e:
        result = {"exit_code": e.exit_code, "reason": str(e)}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(_child())
