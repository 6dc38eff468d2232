"""The oracle (step 2 of the overview): `synth raise` / `synth verify` run as subprocesses
with a hard deadline (`run_proc`, `raise_cmd`, `verify_cmd`) and their refusals
classified (`first_error_line`, `bucket`); the original kernel run by MLIR's
ExecutionEngine and the raised output run outside synth's validation (XLA for
stablehlo, the bufferization pipeline for linalg) on random inputs (`signature`,
`draw_inputs`), and their results compared (`compare`, `compare_runs`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import config

RTOL = {"f64": 1e-9, "f32": 1e-4}


@dataclass
class Proc:
    rc: int | None  # None: past its deadline (killed)
    stdout: str
    stderr: str
    seconds: float

    @property
    def hang(self) -> bool:
        return self.rc is None

    @property
    def crash(self) -> bool:
        return self.rc is not None and (self.rc == 1 or self.rc < 0 or "Traceback (most recent call last)" in self.stderr)


def run_proc(cmd: list[str], deadline: float) -> Proc:
    """Run `cmd` with a hard wall-clock deadline (its whole process group is killed)."""
    t0 = time.monotonic()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(config.SYNTH_ROOT))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=str(config.SYNTH_ROOT), env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=deadline)
        return Proc(p.returncode, out, err, time.monotonic() - t0)
    except subprocess.TimeoutExpired:
        import signal

        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        return Proc(None, out, err, time.monotonic() - t0)


def first_error_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("warning:")]
    if not lines:
        return "(no message)"
    if "Traceback (most recent call last)" in stderr:
        return lines[-1].strip()
    return lines[0].strip()


BUCKETS = (  # (regex on the message, key)
    (r"time-step loop", "time-step-loop"),
    (r"reads what .* wrote|recurrence|loop-carried", "recurrence"),
    (r"time budget exhausted", "budget-exhausted"),
    (r"no program of up to", "beyond-grammar"),
    (r"failed validation", "failed-validation"),
    (r"no (equivalent )?program|not found within|budget|search", "no-program-found"),
    (r"scf\.for|not read|unsupported op|outside|operation .* not supported|does not read", "unsupported-op"),
    (r"func\.call|call", "call"),
    (r"undef", "undef"),
    (r"undefined|use of undeclared|undeclared SSA", "undefined-value"),
    (r"expected|custom op|unknown|parse|syntax", "syntax"),
    (r"never wrote|uninitiali[sz]ed|reads memory", "uninitialised-read"),
    (r"dependen|loop-carried|recurrence|distribut", "dependence"),
    (r"size|extent|bound|dynamic", "sizes"),
)


def bucket(message: str) -> str:
    """A short key for a refusal message."""
    msg = re.sub(r"^\S+:\d+:\d+: error: |^error: ", "", message)
    for pattern, key in BUCKETS:
        if re.search(pattern, msg, re.IGNORECASE):
            return key
    words = re.sub(r"@\w+|%\w+|\d+|'[^']*'|\"[^\"]*\"|`[^`]*`", "", msg.lower())
    return "-".join(re.findall(r"[a-z]+", words)[:4]) or "other"


def raise_cmd(path: Path, target: str, out: Path, stats: Path, timeout: float) -> list[str]:
    """synth raise with a search budget of `timeout` and as much per Z3 query (the
    default, 60 s a query, is not bounded by --timeout)."""
    return [sys.executable, "-m", "synth.cli", "raise", str(path), "--target", target, "-o", str(out),
            "--stats-json", str(stats), "--timeout", str(timeout), "--z3-timeout", str(timeout), "--quiet"]


def verify_cmd(original: Path, mutant: Path, z3_timeout: float) -> list[str]:
    return [sys.executable, "-m", "synth.cli", "verify", str(original), str(mutant),
            "--z3-timeout", str(z3_timeout)]


# running functions ----------------------------------------------------------------------

_RUN_LOCK = threading.Lock()
DTYPES = {"f64": np.float64, "f32": np.float32, "i32": np.int32, "i64": np.int64, "index": np.int64}


@dataclass
class ArgSpec:
    kind: str  # "memref" or "scalar"
    elem: str
    shape: tuple = ()


def signature(text: str, name: str) -> tuple[list[ArgSpec], list[ArgSpec]]:
    """Arguments and results of @name in an MLIR module (parsed by MLIR)."""
    from mlir import ir

    def spec(t) -> ArgSpec:
        s = str(t)
        if s.startswith("memref<") or s.startswith("tensor<"):
            st = ir.ShapedType(t)
            return ArgSpec("memref", str(st.element_type), tuple(st.shape))
        return ArgSpec("scalar", s)

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(text)
        for op in module.body.operations:
            if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
                ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                return [spec(t) for t in ft.inputs], [spec(t) for t in ft.results]
    raise KeyError(name)


def draw_inputs(args: list[ArgSpec], sizes: dict[int, int], rng: np.random.Generator, kind: str) -> list:
    """Arguments for run_function: arrays (random, or small integers for ties) and
    ("T", value) scalars; size arguments take their values from `sizes`."""
    out = []
    for i, a in enumerate(args):
        if i in sizes:
            out.append(("i32", int(sizes[i])))
            continue
        if a.kind == "scalar":
            v = float(rng.uniform(0.5, 2.0)) if a.elem.startswith("f") else int(rng.integers(1, 5))
            out.append((a.elem, v))
            continue
        dt = DTYPES[a.elem]
        if a.elem.startswith("i"):
            arr = rng.integers(-9, 10, a.shape).astype(dt)
        elif kind == "ties":
            arr = rng.choice(np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0]), a.shape).astype(dt)
        else:
            arr = rng.uniform(-1.0, 1.0, a.shape).astype(dt)
        out.append(np.array(arr, dtype=dt, order="C"))  # (0-d stays 0-d)
    return out


def run_original(text: str, name: str, inputs: list) -> tuple[list, list]:
    """(final array arguments, returned values) of the original on `inputs`."""
    from synth.execution import run_function

    with _RUN_LOCK:
        r = run_function(text, name, inputs)
    return list(r.outputs), [np.asarray(x) for x in r.results]


def cut_function(text: str, name: str) -> tuple[int, int] | None:
    """(start, end) of `func.func @name(` in module text, by matching braces from the
    `{` that ends its signature line."""
    m = re.search(rf"^[ \t]*func\.func\s+(?:(?:public|private)\s+)?@{re.escape(name)}\(", text, re.M)
    if not m:
        return None
    eol = text.find("\n", m.start())
    eol = len(text) if eol < 0 else eol
    brace = text.rfind("{", m.start(), eol)
    if brace < 0:
        return None
    depth, i = 0, brace
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return m.start(), i + 1
        i += 1
    return None


def raised_outputs(text: str, name: str) -> list[int]:
    m = re.search(rf"@{re.escape(name)}_raised\([^\n]*synth\.outputs = \[([0-9, ]*)\]", text)
    return [int(x) for x in m.group(1).split(",") if x.strip()] if m else []


def run_raised(text: str, name: str, target: str, inputs: list, arg_specs: list[ArgSpec]) -> tuple[list, list]:
    """(final array arguments, returned values) of a raised module on `inputs`: for
    stablehlo, @NAME_raised alone on XLA (arrays it does not return keep their inputs; a
    shape-generic one made static at the inputs' shapes first); for linalg, the drop-in
    @NAME through MLIR's drop-in pipeline (a generic raise's and a guarded static one's)."""
    if target == "linalg":
        from synth.execution import DROPIN_PIPELINE, run_function

        with _RUN_LOCK:
            r = run_function(text, name, inputs, pipeline=DROPIN_PIPELINE)
        return list(r.outputs), [np.asarray(x) for x in r.results]
    from synth.backends.xla import run_stablehlo
    from synth.semantics.specialize import specialized_module

    shapes = [() if isinstance(v, tuple) else np.shape(v) for v in inputs]
    text = specialized_module(text, f"{name}_raised", shapes)
    span = cut_function(text, f"{name}_raised")
    if span is None:
        raise RuntimeError(f"no @{name}_raised in the output")
    func = text[span[0]:span[1]]
    func = func.replace(f"@{name}_raised(", "@main(", 1)
    ins = []
    for a, v in zip(arg_specs, inputs):
        if isinstance(v, tuple):
            t, x = v
            ins.append(np.asarray(x, dtype=DTYPES[t]))
        else:
            ins.append(v)
    with _RUN_LOCK:
        results = run_stablehlo(f"module {{\n{func}\n}}\n", ins)
    return _as_run(raised_outputs(text, name), inputs, results)


def _as_run(outputs: list[int], inputs: list, results: list) -> tuple[list, list]:
    """(final array arguments, returned values) of a raised function's `results` on
    `inputs`: the arrays it returns (at `outputs`) replace those arguments, the others keep
    their inputs; scalars have no final value."""
    finals = [None if isinstance(v, tuple) else v.copy() for v in inputs]
    for pos, argi in enumerate(outputs):
        finals[argi] = np.asarray(results[pos])
    return finals, [np.asarray(r) for r in results[len(outputs):]]


def run_on_mlir_cpu(text: str, name: str, target: str, input_sets: list) -> tuple[list, dict]:
    """([(final array arguments, returned values)] per input set, rewrites per pass) of
    @NAME_raised compiled once by the mlir-cpu backend (its tiled pipeline with every
    performance pass; a stablehlo raise lowered to linalg first). A pass that fails raises
    PipelineFailed."""
    from synth.backends.mlir_cpu import MlirCpuBackend

    outputs = raised_outputs(text, name)
    runs = []
    with _RUN_LOCK:
        prepared = MlirCpuBackend(target=target).prepare(text, f"{name}_raised")
        for inputs in input_sets:
            runs.append(_as_run(outputs, inputs, prepared.run(inputs)))
    return runs, dict(prepared.rewrites)


def compare(want, have, label: str) -> str | None:
    """None if equal (f64 rtol 1e-9, f32 1e-4, atol = rtol * max(1, max|want|); integers
    exact), else where they first differ."""
    want, have = np.asarray(want), np.asarray(have)
    if want.shape != have.shape:
        return f"{label}: shape {have.shape} != {want.shape}"
    if want.dtype.kind != "f":
        bad = have != want
    else:
        rtol = RTOL["f32" if want.dtype == np.float32 else "f64"]
        w, h = want.astype(np.float64), have.astype(np.float64)
        finite = np.isfinite(w)
        scale = max(1.0, float(np.max(np.abs(w[finite]))) if finite.any() else 1.0)
        with np.errstate(all="ignore"):
            bad = ~(np.abs(h - w) <= rtol * np.abs(w) + rtol * scale)
        bad &= ~((w == h) | (np.isnan(w) & np.isnan(h)))
    if not np.any(bad):
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    return f"{label}{list(idx)}: raised {have[idx]!r}, original {want[idx]!r}"


def compare_runs(expected: tuple[list, list], got: tuple[list, list]) -> str | None:
    (ea, er), (ga, gr) = expected, got
    for i, (w, h) in enumerate(zip(ea, ga)):
        if w is None:
            continue
        if h is None:
            return f"arg{i}: missing"
        d = compare(w, h, f"arg{i}")
        if d:
            return d
    if len(er) != len(gr):
        return f"{len(gr)} returned values, expected {len(er)}"
    for j, (w, h) in enumerate(zip(er, gr)):
        d = compare(w, h, f"result #{j}")
        if d:
            return d
    return None
