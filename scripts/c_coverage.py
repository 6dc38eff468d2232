#!/usr/bin/env python3
"""Coverage of a C corpus (benchmarks/c-libs): per function, whether synth translates it
(and the translation equals the C compiled by gcc), and whether it raises to each target
(`synth raise --size ...`, one process at a time), the raised function run on XLA / MLIR
against the compiled C on random inputs (a raise that differs counts as wrong).

    python scripts/c_coverage.py [--corpus benchmarks/c-libs] [--targets stablehlo linalg]
        [--timeout 600] [--only FILE:FUNCTION ...] [--json OUT.json] [--markdown OUT.md]

Exit status 0 when no translation or raise is wrong."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from c_oracle import (  # noqa: E402
    assert_same,
    inputs,
    load_cases,
    mlir_signature,
    raised_outputs,
    run_c,
    run_translation,
    signature,
)

from synth.errors import InputError  # noqa: E402


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def cover(case, targets: list[str], timeout: float) -> dict:
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
            for name, value in case.sizes.items():
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
                    raised = raised_outputs(out.read_text(), case, params, args, target, sig)
                    assert_same(case, f"raised {target}", params, result, want, raised)
                    entry["status"] = "ok"
                except AssertionError as e:
                    entry["status"] = "wrong"
                    entry["message"] = str(e)[:500]
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
        summary.append(f"raised to {t}: {ok}/{n} (wrong: {wrong})")
    return "\n".join(lines) + "\n\n" + "; ".join(summary) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(ROOT / "benchmarks" / "c-libs"))
    ap.add_argument("--targets", nargs="+", default=["stablehlo", "linalg"])
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per raise")
    ap.add_argument("--only", nargs="*", help="FILE:FUNCTION (file without .c)")
    ap.add_argument("--json", help="write the rows as JSON")
    ap.add_argument("--markdown", help="write the table as Markdown")
    args = ap.parse_args(argv)
    cases = [c for c in load_cases(Path(args.corpus)) if "refused" not in c.spec]
    if args.only:
        cases = [c for c in cases if c.id in args.only]
    rows = []
    for case in cases:
        row = cover(case, args.targets, args.timeout)
        rows.append(row)
        raised = ", ".join(f"{t}: {e['status']} {e.get('message', '')[:150] if e['status'] != 'ok' else ''}"
                           for t, e in row["raise"].items())
        print(f"{case.id}: translate {row['translate']['status']}; {raised}", flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
    table = markdown(rows, args.targets)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table)
    wrong = [r for r in rows if r["translate"]["status"] == "wrong"
             or any(e.get("status") == "wrong" for e in r["raise"].values())]
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
