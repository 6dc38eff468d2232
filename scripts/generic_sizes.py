#!/usr/bin/env python3
"""Raise kernels with `--shapes generic` and run each raise at three size configurations
other than the ones it was raised and validated at, against the original at those sizes
(the kernel resized, run through the ExecutionEngine): an independent check of the
emitted generic text, outside synth's own validation.

    python scripts/generic_sizes.py gemm atax                 # names in benchmarks/polybench
    python scripts/generic_sizes.py benchmarks/loops --targets linalg
    python scripts/generic_sizes.py --corpus benchmarks/polybench-polygeist 2mm --json out.json

The configurations: odd and prime values in the order of the original sizes (3, 5, 7,
...), the same rotated (non-square where sizes differ), and one with a size of 1 where
the kernel allows it. Each raise runs in this process (synth.pipeline.raise_function);
per kernel and target it prints whether the raise is generic (or why it fell back to
static), its validation level, and the largest difference at each configuration. Exit 1
when any generic raise differs from the original.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))


def configs(model, pinned=frozenset()) -> list[dict]:
    """Three size configurations; `pinned` symbols (those the raise keeps as constants: no
    argument exposes them, as Polygeist's constant step count) keep their original values."""
    original = model.original()

    def pin(c: dict) -> dict:
        return {**c, **{n: original[n] for n in pinned if n in original}}
    out = [pin(model.small_values(3, 2)), pin(model.small_values(3, 2, rotate=1))]
    base = pin(model.small_values(4, 1))
    for name in sorted(set(model.symbols) - set(pinned)):
        one = {**base, name: 1}
        if model.valid(one):
            out.append(one)
            break
    else:
        out.append(pin(model.small_values(6, 3, rotate=2)))
    out = [c for c in out if model.valid(c)]
    seen, unique = set(), []
    for c in out:
        key = tuple(sorted(c.items()))
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique


def first_wrong(outputs, original, name: str, args: list, want: list, got: list, rng) -> str | None:
    """The first output element the raise `got` wrong against the original's `want`
    ("argO[index]: original X, raised Y"), else None; elements the original itself does
    not determine (rounding decides them: gramschmidt beyond its rank, seen by a rerun on
    perturbed inputs) are not compared."""
    from synth.execution import run_function
    from synth.numerics import first_difference, perturbed, undetermined

    loose = None
    for k, o in enumerate(outputs):
        d = first_difference(want[o], got[k])
        if d is not None and loose is None:
            again = run_function(original.text, name, perturbed(args, rng), opt_level=2).outputs
            loose = undetermined(want, again)
        if d is not None and loose[o] is not None:
            d = first_difference(np.where(loose[o], 0, want[o]), np.where(loose[o], 0, got[k]))
        if d is not None:
            return f"arg{o}{list(d[0])}: original {d[1]}, raised {d[2]}"
    return None


def check(path: Path, name: str, target: str, timeout: float) -> dict:
    from synth.backends.run import run_raised
    from synth.errors import SynthError
    from synth.execution import run_function
    from synth.frontend.reader import load_input
    from synth.pipeline import RaiseOptions, raise_function
    from synth.semantics.raised_text import keep_functions
    from synth.semantics.specialize import specialize
    from synth.synthesis.search import SearchSettings
    from synth.synthesis.spec import diagonally_dominant, random_draw

    row = {"kernel": path.stem, "function": name, "target": target}
    t0 = time.monotonic()
    try:
        source = load_input(path, function=name, warn=False)
        outcome = raise_function(source, name, target, RaiseOptions(SearchSettings(timeout=timeout), shapes="generic"))
    except SynthError as e:
        row.update(status=f"exit {e.exit_code}", reason=str(e).splitlines()[0][:160])
        return row
    row.update(seconds=round(time.monotonic() - t0, 1), shapes=outcome.stats["shapes"],
               level=outcome.validation["level"], fallback=outcome.stats.get("generic_fallback"))
    kernel = outcome.kernel
    fname = f"{name}_raised"
    raised = keep_functions(outcome.module, fname)
    rng = np.random.default_rng(11)
    diffs = []
    from synth.validation.verify import constant_symbols
    pinned = constant_symbols(kernel) if outcome.stats["shapes"] == "generic" else frozenset()
    for values in configs(kernel.sizes, pinned):
        args = diagonally_dominant(kernel.arguments(values, random_draw(rng)))  # factorizations well-posed
        original = kernel.at(values)
        want = run_function(original.text, name, [a.copy() if isinstance(a, np.ndarray) else a for a in args],
                            opt_level=2).outputs
        inputs = [a if isinstance(a, np.ndarray) else np.asarray(a[1], dtype=kernel.tensor_type(i, values).numpy_dtype)
                  for i, a in enumerate(args[: kernel.n_arguments])]
        text = specialize(raised, fname, target, [np.shape(x) for x in inputs]) if outcome.stats["shapes"] == "generic" \
            else None
        if text is None:
            diffs.append((values, "static"))
            continue
        got = run_raised(target, text, fname, inputs)
        diffs.append((values, first_wrong(kernel.outputs, original, name, args, want, got, rng)))
    row["configs"] = [{"sizes": v, "difference": d} for v, d in diffs]
    row["status"] = "wrong" if any(d not in (None, "static") for _, d in diffs) else "ok"
    return row


def main() -> int:
    from raise_suite import kernel_files

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="*", default=["gemm", "atax", "jacobi-1d"])
    ap.add_argument("--corpus", default=str(ROOT / "benchmarks/polybench"))
    ap.add_argument("--targets", default="stablehlo,linalg")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args()
    from synth.analysis.function import list_functions
    from synth.frontend.reader import load_input

    rows = []
    for path in kernel_files(args.kernels, Path(args.corpus)):
        for name in list_functions(load_input(path, warn=False)):
            for target in args.targets.split(","):
                row = check(path, name, target, args.timeout)
                rows.append(row)
                sizes = "; ".join(("ok" if c["difference"] is None else c["difference"]) for c in row.get("configs", []))
                print(f"{path.stem:20s} {name:24s} {target:9s} {row['status']:8s} {row.get('shapes', '-'):8s} "
                      f"{row.get('level', '-'):4s} {row.get('seconds', '-')}s  {sizes or row.get('reason', '')}"
                      + (f"  (static: {row['fallback'][:80]})" if row.get("fallback") else ""), flush=True)
    generic = [r for r in rows if r.get("shapes") == "generic"]
    wrong = [r for r in rows if r["status"] == "wrong"]
    print(f"{len(rows)} raises: {len(generic)} generic, {sum(r.get('shapes') == 'static' for r in rows)} fell back to "
          f"static, {len(rows) - len(generic) - sum(r.get('shapes') == 'static' for r in rows)} not raised; "
          f"generic runs at other sizes: {sum(len(r['configs']) for r in generic)}, wrong: {len(wrong)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, default=str))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
