#!/usr/bin/env python3
"""Raise a set of kernels to each target with `synth raise` (one process per raise, as a
user runs it) and report wall and CPU time, candidates enumerated, the search's time and
its share of the raise's (--stats-json's search_seconds over seconds) and the result, then a
summary per target: how many raised, median and maximum wall time, how many took over 30 s.

    python scripts/raise_suite.py                           # the synthesis issue's 9 PolyBench kernels
    python scripts/raise_suite.py gemm atax --targets linalg --json out.json
    python scripts/raise_suite.py benchmarks/loops          # every kernel file in a directory
    python scripts/raise_suite.py --corpus benchmarks/polybench-polygeist gemm atax
    python scripts/raise_suite.py --trees main=/work/main,new=. adi nussinov   # side by side

A name is looked up in --corpus (default benchmarks/polybench); a path to a file or a
directory is taken as it is. With --trees, each raise runs once per tree (that tree's
`synth` first on PYTHONPATH, from a scratch working directory, since `python -m` puts
the working directory first on sys.path), back to back, the order alternating from one
kernel to the next, so that a loaded host's drift falls on every tree alike; the rows get
`variant` (the tree's name) and the report ends with a table of the trees side by side:
each tree's median wall and CPU seconds over --rounds (every kernel, target and tree once
per round, the tree order alternating), and whether the trees wrote the same raised module
(byte for byte, in every round). Kernels of one name from several corpora are told apart
by their directory (`polybench-c/adi`).

    python scripts/raise_suite.py --trees main=/work/main,new=. --rounds 3 adi deriche \
        benchmarks/polybench-c/adi.c benchmarks/polybench-polygeist/adi.mlir
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["2mm", "3mm", "atax", "bicg", "doitgen", "gemm", "gemver", "gesummv", "mvt"]


def kernel_files(items: list[str], corpus: Path) -> list[Path]:
    out = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            out += sorted([*p.glob("*.mlir"), *p.glob("*.c")])
        elif p.suffix in (".mlir", ".c") and p.exists():
            out.append(p)
        else:
            found = [corpus / f"{item}{ext}" for ext in (".mlir", ".c") if (corpus / f"{item}{ext}").exists()]
            out.append(found[0] if found else corpus / f"{item}.mlir")
    return out


def raise_one(path: Path, target: str, timeout: float, out_dir: Path, extra: list[str],
              tree: Path | None = None, label: str | None = None) -> dict:
    """One `synth raise` of `path` to `target`, timed; `tree`: the source tree whose synth
    runs (None: the one Python finds); `label`: the kernel's name in the rows and the kept
    files' (default: the file's stem)."""
    label = label or path.stem
    out = out_dir / f"{label.replace('/', '-')}.{target}.mlir"
    stats = out_dir / f"{label.replace('/', '-')}.{target}.json"
    cmd = [sys.executable, "-m", "synth.cli", "raise", str(path.resolve()), "--target", target, "-o",
           str(out.resolve()), "--stats-json", str(stats.resolve()), "--timeout", str(timeout), *extra]
    env, cwd = None, None
    if tree is not None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree.resolve()), *filter(None, [
            os.environ.get("PYTHONPATH")])])}
        cwd = out_dir.resolve()  # not a tree: `python -m` looks in the working directory first
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU of the raise and of the processes it waited for (its execution worker): on a
    # shared, loaded host the wall time grows with the load, this much less
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row = {"kernel": label, "file": str(path), "target": target, "exit": proc.returncode,
           "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2)}
    if proc.returncode == 0 and out.exists():
        row["output_sha256"] = hashlib.sha256(out.read_bytes()).hexdigest()
    if stats.exists():
        data = json.loads(stats.read_text())
        fns = [v for k, v in data.items() if k != "error"]
        if fns:
            row.update(candidates=sum(f["candidates"] for f in fns),
                       problems=sum(len(f["problems"]) for f in fns),
                       # the search's own time (stats' search_seconds: examples, sketches, enumeration)
                       # and its share of the raise's (stats' seconds; validation is most of the rest)
                       search_seconds=round(sum(f.get("search_seconds", 0.0) for f in fns), 2),
                       search_share=round(sum(f.get("search_seconds", 0.0) for f in fns)
                                          / max(sum(f.get("seconds", 0.0) for f in fns), 1e-9), 3),
                       verification=",".join(f.get("verification", "?") for f in fns),
                       shapes=",".join(f.get("shapes", "?") for f in fns),
                       generic_fallback=[f["generic_fallback"] for f in fns if f.get("generic_fallback")],
                       programs=[p["program"] for f in fns for p in f["problems"]])
        if "error" in data:
            row["error"] = data["error"]["message"]
    if proc.returncode != 0 and "error" not in row:
        row["error"] = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
    return row


def summary(rows: list[dict]) -> list[str]:
    lines = []
    groups = sorted({(r.get("variant", ""), r["target"]) for r in rows})
    for variant, target in groups:
        rs = [r for r in rows if r["target"] == target and r.get("variant", "") == variant]
        if variant:
            target = f"{variant} {target}"
        ok = [r for r in rs if r["exit"] == 0]
        walls = [r["wall_seconds"] for r in rs]
        cpus = [r["cpu_seconds"] for r in rs if "cpu_seconds" in r]
        cpu = f" (CPU median {statistics.median(cpus):.2f}s, max {max(cpus):.2f}s)" if cpus else ""
        shares = [r["search_share"] for r in rs if r.get("search_share") is not None]
        cpu += f"; the search's share of a raise: median {100 * statistics.median(shares):.0f}%" if shares else ""
        lines.append(f"{target}: {len(ok)}/{len(rs)} raised ({100 * len(ok) / len(rs):.0f}%); wall median "
                     f"{statistics.median(walls):.2f}s, max {max(walls):.2f}s{cpu}, over 10 s: "
                     f"{sum(w > 10 for w in walls)}, over 30 s: "
                     f"{sum(w > 30 for w in walls)}; exit codes "
                     + ", ".join(f"{c}: {sum(r['exit'] == c for r in rs)}"
                                 for c in sorted({r['exit'] for r in rs})))
    return lines


def _raise_row(path: Path, target: str, timeout: float, out_dir: Path, extra: list[str],
               name: str | None, tree: Path | None, label: str | None = None) -> dict:
    """raise_one, its row printed; with a tree, in a directory of the tree's name."""
    where = out_dir / name if name else out_dir
    where.mkdir(exist_ok=True)
    row = raise_one(path, target, timeout, where, extra, tree, label)
    if name:
        row["variant"] = name
    print(f"{row['kernel']:22s} {target:10s} {(name or '')[:8]:8s} exit={row['exit']} wall={row['wall_seconds']:7.2f}s "
          f"cpu={row['cpu_seconds']:6.2f}s "
          f"candidates={row.get('candidates', '-'):>8} problems={row.get('problems', '-')} "
          + (f"search={row['search_seconds']:.2f}s ({100 * row['search_share']:.0f}%) " if "search_share" in row else "")
          + f"{row.get('verification', '-')} {row.get('shapes', '-')}"
          + (f" (static: {row['generic_fallback'][0][:80]})" if row.get("generic_fallback") else "")
          + (f"  [{row['error'][:150]}]" if row.get("error") else ""), flush=True)
    return row


def side_by_side(rows: list[dict]) -> list[str]:
    """A table of each kernel and target's wall and CPU seconds per tree (rows with
    `variant`; the median over the rounds, their count where more than one), and whether
    every tree wrote the same raised module in every round; nothing without variants."""
    names = list(dict.fromkeys(r["variant"] for r in rows if "variant" in r))
    if not names:
        return []
    cells: dict = {}
    for r in rows:
        if "variant" in r:
            cells.setdefault((r["kernel"], r["target"], r["variant"]), []).append(r)
    rounds = max(len(v) for v in cells.values())
    lines = ["", "| kernel | target | " + " | ".join(f"{n} wall | {n} CPU" for n in names) + " | same output |",
             "|---|---|" + "---|---|" * len(names) + "---|"]
    if rounds > 1:
        lines.insert(1, f"(medians over {rounds} rounds)")
    for kernel, target in dict.fromkeys((r["kernel"], r["target"]) for r in rows if "variant" in r):
        got = [cells.get((kernel, target, n), []) for n in names]
        shas = {r.get("output_sha256") for rs in got for r in rs}
        same = "yes" if len(shas) == 1 and None not in shas and all(got) else "no"
        lines.append(f"| {kernel} | {target} | " + " | ".join(
            f"{statistics.median(r['wall_seconds'] for r in rs):.2f} | "
            f"{statistics.median(r['cpu_seconds'] for r in rs):.2f}"
            + "".join(f" (exit {c})" for c in sorted({r['exit'] for r in rs} - {0}))
            if rs else "- | -" for rs in got) + f" | {same} |")
    return lines


def labels(files: list[Path]) -> list[str]:
    """Each file's name in the report: its stem, with its directory where stems repeat."""
    stems = [f.stem for f in files]
    return [f"{f.parent.name}/{f.stem}" if stems.count(f.stem) > 1 else f.stem for f in files]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="*", default=DEFAULT, help="names, files or directories")
    ap.add_argument("--corpus", default=str(ROOT / "benchmarks/polybench"), help="where names are looked up")
    ap.add_argument("--targets", default="stablehlo,linalg")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", help="write the rows to this file")
    ap.add_argument("--keep", help="keep the raised modules and stats in this directory")
    ap.add_argument("--trees", help="NAME=PATH,NAME=PATH: raise with each source tree's synth, side by side")
    ap.add_argument("--rounds", type=int, default=1, help="raise everything this many times (the table: medians)")
    args, extra = ap.parse_known_args()
    rows = []
    files = kernel_files(args.kernels, Path(args.corpus))
    trees = [(None, None)]
    if args.trees:
        trees = [(name, Path(path)) for name, path in (t.split("=", 1) for t in args.trees.split(","))]
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(args.keep or tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        for round_ in range(args.rounds):
            for k, (path, label) in enumerate(zip(files, labels(files))):
                for target in args.targets.split(","):
                    for name, tree in (trees if (k + round_) % 2 == 0 else trees[::-1]):
                        row = _raise_row(path, target, args.timeout, out_dir, extra, name, tree, label)
                        if args.rounds > 1:
                            row["round"] = round_
                        rows.append(row)
    for line in summary(rows) + side_by_side(rows):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
