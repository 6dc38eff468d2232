#!/usr/bin/env python3
"""Coverage of a C corpus (benchmarks/c-libs): per function, whether synth translates it
(and the translation equals the C compiled by gcc), and whether it raises to each target
(`synth raise --size ...`, one process at a time), the raised function run on XLA / MLIR
against the compiled C on random inputs (a raise that differs counts as wrong).

    python scripts/c_coverage.py [--corpus benchmarks/c-libs] [--targets stablehlo linalg]
        [--timeout 600] [--only FILE:FUNCTION ...] [--json OUT.json] [--markdown OUT.md]
        [--mlir-cpu]

`--mlir-cpu` also runs each raise through the mlir-cpu backend's tiled pipeline (every
performance pass) against the compiled C and sums the rewrites each pass made (issue 55:
the passes on kernels nobody tuned them for). Exit status 0 when no translation or raise
is wrong (nor, with --mlir-cpu, any mlir-cpu run wrong or failed)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from c_oracle import (  # noqa: E402
    assert_same,
    dynamic_shape,
    inputs,
    load_cases,
    mlir_signature,
    raised_outputs,
    run_c,
    run_translation,
    signature,
    view_strides,
)

from synth.errors import ExecutionError, InputError  # noqa: E402
from synth.semantics.specialize import generic_signature  # noqa: E402


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def resized(case, k: int):
    """The case at other sizes: each size of the manifest plus 3k (k = 0: as it is), or
    plus k times its step where the manifest gives one (`size_steps`: a byte stride moves
    by whole elements)."""
    if not k:
        return case
    steps = case.spec.get("size_steps", {})
    return replace(case, spec={**case.spec, "sizes": {n: v + steps.get(n, 3) * k for n, v in case.sizes.items()}})


def check_raised(case, text: str, target: str, params, result) -> None:
    """A raise for every size against the compiled C at the case's sizes (AssertionError):
    @F_raised takes each array as the part the loops reach (the kernel's extents at these
    sizes, as the drop-in passes it: a leading dimension larger than the columns read is
    not part of it), made static at those shapes, and its results are written back."""
    from synth.analysis.model import load_kernel
    from synth.backends.run import run_raised
    from synth.frontend.c import translate_c
    from synth.frontend.size_extremes import extreme_value
    from synth.semantics.raised import load_raised
    from synth.semantics.specialize import specialize

    args = inputs(case, params, np.random.default_rng(11))
    want = run_c(case, params, result, args, "-O2")
    sized = run_translation(case, params, args, sizes=True)
    buffers = dict(zip([p.name for p in params], (shape for _, shape in mlir_signature(sized[2], case.function))))
    free = translate_c(str(case.path), function=case.function, defines=case.defines,
                       include_dirs=[str(case.path.parent)])
    kernel = load_kernel(free, case.function)
    kernel.sizes.with_test_values()
    values = kernel.sizes.original()
    for k, name in kernel.sizes.params.items():  # the size arguments' values at this call
        if k < len(params):
            values[name] = int(args[params[k].name])
        elif k in kernel.sizes.extremes:  # a loop bound min(k, n) of them, as the drop-in computes it
            e = kernel.sizes.extremes[k]
            values[name] = extreme_value(e, {j: int(args[params[j].name]) for j in e.arguments})
    free_sig = mlir_signature(free.text, case.function)
    strided = view_strides(free.text, case.function, {q.name: int(args[q.name]) for q in params if not q.array})
    feed, views = [], {}
    for i, p in enumerate(params):
        if p.array and i in strided:  # a view at run-time strides: the caller's elements at them
            logical = tuple(int(d) for d in kernel.sizes.shape(i, values))
            buf = args[p.name].copy()
            whole = np.lib.stride_tricks.as_strided(buf, logical, [s * buf.itemsize for s in strided[i]])
            views[p.name] = (buf, whole, tuple(slice(0, d) for d in logical))
            feed.append(np.ascontiguousarray(whole))
        elif p.array:
            shape = buffers[p.name]
            logical = tuple(int(d) for d in kernel.sizes.shape(i, values))
            if len(shape) != len(logical):  # a stride of 1 folded away at these sizes (`x[i * incx]`)
                shape = dynamic_shape(free.text, case, i, free_sig[i][1], None, len(args[p.name]))
            total = int(np.prod(shape))
            buf = np.zeros(max(total, len(args[p.name])), dtype=args[p.name].dtype)
            buf[:len(args[p.name])] = args[p.name]
            whole = buf[:total].reshape(shape)
            views[p.name] = (buf, whole, tuple(slice(0, d) for d in logical))
            feed.append(np.ascontiguousarray(whole[views[p.name][2]]))
        else:
            feed.append(np.asarray(np.array(args[p.name]).astype(kernel.tensor_type(i, values).numpy_dtype)))
    name = f"{case.function}_raised"
    raised = load_raised("<raised>", name, text)
    results = run_raised(raised.dialect, specialize(raised.text, name, raised.dialect, [np.shape(x) for x in feed]),
                         name, feed)
    head = text[text.index(f"@{name}("):]
    outs = [int(x) for x in head.split("synth.outputs = [", 1)[1].split("]", 1)[0].split(",") if x.strip()]
    written = {}
    for p in params:
        if p.array:
            written[p.name] = args[p.name].copy()
    for k, i in enumerate(outs):
        buf, whole, part = views[params[i].name]
        whole[part] = np.asarray(results[k]).astype(whole.dtype)
        flat = args[params[i].name].copy()
        n = min(len(flat), buf.size)
        flat[:n] = buf[:n]
        written[params[i].name] = flat
    ret = results[len(outs)] if len(results) > len(outs) else None
    assert_same(case, f"raised {target}", params, result, want, (written, ret))


class MlirCpuRun:
    """`raised_outputs`'s runner through the mlir-cpu backend (its tiled pipeline, every
    performance pass), keeping the rewrites each pass made."""

    def __init__(self):
        self.rewrites: dict[str, int] = {}

    def __call__(self, dialect: str, module: str, name: str, feed: list) -> list:
        from synth.backends.mlir_cpu import MlirCpuBackend

        prepared = MlirCpuBackend(target=dialect).prepare(module, name)
        out = prepared.run(feed)
        self.rewrites = {k: v for k, v in getattr(prepared, "rewrites", {}).items() if v}
        return out


def through_mlir_cpu(case, text: str, target: str, params, result, args, want, sig) -> dict:
    """The raise (at the manifest's sizes) through mlir-cpu against the compiled C: status
    ok / wrong / pipeline-error, and the passes' rewrites."""
    from synth.backends.mlir_cpu import PipelineFailed

    run = MlirCpuRun()
    try:
        got = raised_outputs(text, case, params, args, target, sig, run=run)
        assert_same(case, f"raised {target} on mlir-cpu", params, result, want, got)
    except PipelineFailed as e:
        return {"status": "pipeline-error", "message": str(e)[:500]}
    except AssertionError as e:
        return {"status": "wrong", "message": str(e)[:500], "rewrites": run.rewrites}
    return {"status": "ok", "rewrites": run.rewrites}


def cover(case, targets: list[str], timeout: float, free: bool = False, mlir_cpu: bool = False) -> dict:
    """One function: its translation against gcc; its raise (with the manifest's --size
    values; `free`: without, a raise for every size, checked at the manifest's sizes and
    at two others; `mlir_cpu`: the raise also run through the mlir-cpu backend, fixed
    sizes only)."""
    row = {"function": case.id, "translate": None, "raise": {}}
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(11))
    want = run_c(case, params, result, args, "-O2")
    try:
        got = run_translation(case, params, args, sizes=True)
    except InputError as e:
        row["translate"] = {"status": "refused", "reason": str(e)}
        return row
    try:
        assert_same(case, "translation", params, result, want, got)
        row["translate"] = {"status": "ok"}
    except AssertionError as e:
        row["translate"] = {"status": "wrong", "reason": str(e)[:500]}
        return row
    sig = mlir_signature(got[2], case.function)
    for target in targets:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "raised.mlir"
            cmd = [sys.executable, "-m", "synth.cli", "raise", str(case.path), "--function",
                   case.function, "--target", target, "-o", str(out)]
            for name, value in ({} if free else case.sizes).items():
                cmd += ["--size", f"{name}={value}"]
            t0 = time.monotonic()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
                rc, err = p.returncode, _last_line(p.stderr)
            except subprocess.TimeoutExpired:
                rc, err = "timeout", f"no result within {timeout:g} s"
            entry = {"rc": rc, "seconds": round(time.monotonic() - t0, 1), "message": err}
            if rc == 0:
                try:
                    if free and not generic_signature(out.read_text(), f"{case.function}_raised"):
                        # asked for every size, raised at fixed sizes: where the C takes no
                        # size at run time (TSVC's LEN) the only sizes it has ("fixed"),
                        # else not a raise for every size (an op with no shape-generic
                        # form), said so
                        entry["status"] = "fixed" if not case.sizes else "static"
                        row["raise"][target] = entry
                        continue
                    if free:  # one raise for every size: at the manifest's sizes and two others
                        entry["sizes_checked"] = 0
                        for k in range(3):
                            try:
                                check_raised(resized(case, k), out.read_text(), target, params, result)
                            except (IndexError, ValueError, InputError, ExecutionError) as e:
                                if not k:
                                    raise
                                # each size plus 3k may break the function's own preconditions
                                # (a row stride below 3 * columns): the harness cannot lay out
                                # its buffers there, or the raise is not defined there (its
                                # synth.assumptions, which the drop-in checks, exclude those
                                # sizes: InputError "cannot be made static", or a slice past
                                # an extent failing to compile); said, not counted
                                entry.setdefault("sizes_skipped", []).append(
                                    f"+{3 * k}: {type(e).__name__}: {str(e)[:120]}")
                                continue
                            entry["sizes_checked"] += 1
                    else:
                        raised = raised_outputs(out.read_text(), case, params, args, target, sig)
                        assert_same(case, f"raised {target}", params, result, want, raised)
                        if mlir_cpu:
                            entry["mlir_cpu"] = through_mlir_cpu(case, out.read_text(), target, params, result,
                                                                 args, want, sig)
                    entry["status"] = "ok"
                except AssertionError as e:
                    entry["status"] = "wrong"
                    entry["message"] = str(e)[:500]
                except (IndexError, ValueError, InputError, ExecutionError) as e:
                    # the harness could not run the raise at the manifest's sizes (a view at
                    # a step of 0 its layout does not take): not counted as raised, said
                    entry["status"] = "unchecked"
                    entry["message"] = f"{type(e).__name__}: {str(e)[:300]}"
            else:
                entry["status"] = "exit 2" if rc == 2 else "exit 3" if rc == 3 else f"failed ({rc})"
            row["raise"][target] = entry
    return row


def markdown(rows: list, targets: list[str]) -> str:
    n = len(rows)
    tr = sum(r["translate"]["status"] == "ok" for r in rows)
    lines = [f"| function | translate | {' | '.join(targets)} |", "|---|---|" + "---|" * len(targets)]
    for r in rows:
        cells = [r["function"], r["translate"]["status"]]
        for t in targets:
            e = r["raise"].get(t)
            cells.append("" if e is None else e["status"] if e["status"] != "ok"
                         else f"ok ({e['seconds']:g} s)")
        lines.append("| " + " | ".join(cells) + " |")
    summary = [f"translated (equal to gcc -O2): {tr}/{n}"]
    for t in targets:
        ok = sum(r["raise"].get(t, {}).get("status") == "ok" for r in rows)
        wrong = sum(r["raise"].get(t, {}).get("status") == "wrong" for r in rows)
        fixed = sum(r["raise"].get(t, {}).get("status") == "fixed" for r in rows)
        also = f", and at the only sizes the C has (no size argument): {fixed}" if fixed else ""
        summary.append(f"raised to {t}: {ok}/{n} (wrong: {wrong}{also})")
    return "\n".join(lines) + "\n\n" + "; ".join(summary) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(ROOT / "benchmarks" / "c-libs"))
    ap.add_argument("--targets", nargs="+", default=["stablehlo", "linalg"])
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per raise")
    ap.add_argument("--only", nargs="*", help="FILE:FUNCTION (file without .c)")
    ap.add_argument("--json", help="write the rows as JSON")
    ap.add_argument("--markdown", help="write the table as Markdown")
    ap.add_argument("--free-sizes", action="store_true",
                    help="raise without --size (a raise for every size), checked at the manifest's "
                         "sizes and at two others (each size plus 3, plus 6)")
    ap.add_argument("--mlir-cpu", action="store_true",
                    help="also run each raise through the mlir-cpu backend (every performance pass) "
                         "against the compiled C, and count the rewrites each pass made (fixed sizes)")
    args = ap.parse_args(argv)
    if args.mlir_cpu and args.free_sizes:
        ap.error("--mlir-cpu runs the raises at the manifest's sizes: not with --free-sizes")
    cases = [c for c in load_cases(Path(args.corpus)) if "refused" not in c.spec]
    if args.only:
        cases = [c for c in cases if c.id in args.only]
    rows = []
    for case in cases:
        row = cover(case, args.targets, args.timeout, args.free_sizes, args.mlir_cpu)
        rows.append(row)
        raised = ", ".join(f"{t}: {e['status']} {e.get('message', '')[:150] if e['status'] != 'ok' else ''}"
                           + (f" (mlir-cpu {e['mlir_cpu']['status']} {e['mlir_cpu'].get('rewrites') or ''}"
                              f"{e['mlir_cpu'].get('message', '')[:150]})" if "mlir_cpu" in e else "")
                           for t, e in row["raise"].items())
        print(f"{case.id}: translate {row['translate']['status']}; {raised}", flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
    table = markdown(rows, args.targets)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table)
    if args.mlir_cpu:
        runs = [e["mlir_cpu"] for r in rows for e in r["raise"].values() if "mlir_cpu" in e]
        totals: dict[str, int] = {}
        for m in runs:
            for k, v in (m.get("rewrites") or {}).items():
                totals[k] = totals.get(k, 0) + v
        print(f"mlir-cpu: {len(runs)} raises run, {sum(m['status'] == 'ok' for m in runs)} ok, "
              f"{sum(m['status'] == 'wrong' for m in runs)} wrong, "
              f"{sum(m['status'] == 'pipeline-error' for m in runs)} pipeline errors; rewrites per pass: "
              + (", ".join(f"{k} {v}" for k, v in sorted(totals.items())) or "none"))
    wrong = [r for r in rows if r["translate"]["status"] == "wrong"
             or any(e.get("status") == "wrong" or e.get("mlir_cpu", {}).get("status") in ("wrong", "pipeline-error")
                    for e in r["raise"].values())]
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
