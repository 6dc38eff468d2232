"""Run `synth bench` of two source trees side by side, in alternating rounds, and compare
the geomean speedup of the best backend per kernel and target over the pairs both raised.

    python scripts/ab_bench.py --before /path/old-tree --after /path/new-tree --out DIR \
        --rounds 2 -- --suite polybench --dataset large --threads 1 --backends mlir-cpu,xla-cpu

Everything after `--` goes to `synth bench` of both trees unchanged. Each tree gets its
own results database (DIR/before.sqlite, DIR/after.sqlite): the first round raises and
times; later rounds delete the stored timings (table `results`) and time the same raises
again. The order of the two trees alternates from round to round, so a drift of the
machine over the run falls on both. Per tree and pair, the speedup is the median over the
rounds of (the loops' time / the best backend's time) measured in the same bench run, so
each speedup is taken against a baseline timed minutes, not hours, away. The report
(DIR/ab.md and DIR/ab.json) gives each tree's geomean over the common pairs, their ratio
and the pairs that moved most.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = "import sys; from synth.cli import main; sys.exit(main(sys.argv[1:]))"


def best_per_pair(rows: list[dict]) -> dict[tuple[str, str], tuple[float, str]]:
    """(kernel, target) -> (speedup of the best backend, that backend) over rows with status ok."""
    best: dict[tuple[str, str], tuple[float, str]] = {}
    for r in rows:
        if r.get("status") != "ok" or not r.get("speedup"):
            continue
        key = (r["kernel"], r["target"])
        if key not in best or r["speedup"] > best[key][0]:
            best[key] = (float(r["speedup"]), r["backend"])
    return best


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def compare(rounds: dict[str, list[list[dict]]]) -> dict:
    """rounds: tree name ('before'/'after') -> one list of result rows per round.
    Per tree and pair: the median over rounds of the best backend's speedup (a pair missing
    from a round is left out of that round); the geomean over the pairs both trees have."""
    per_tree: dict[str, dict[tuple[str, str], float]] = {}
    for name, runs in rounds.items():
        seen: dict[tuple[str, str], list[float]] = {}
        for rows in runs:
            for key, (speedup, _backend) in best_per_pair(rows).items():
                seen.setdefault(key, []).append(speedup)
        per_tree[name] = {k: statistics.median(v) for k, v in seen.items()}
    common = sorted(set(per_tree["before"]) & set(per_tree["after"]))
    before = geomean([per_tree["before"][k] for k in common])
    after = geomean([per_tree["after"][k] for k in common])
    pairs = [{"kernel": k, "target": t, "before": per_tree["before"][(k, t)],
              "after": per_tree["after"][(k, t)],
              "ratio": per_tree["after"][(k, t)] / per_tree["before"][(k, t)]} for k, t in common]
    return {"pairs": pairs, "common": len(common), "geomean_before": before, "geomean_after": after,
            "ratio": after / before if common else float("nan"),
            "only_before": sorted(map(list, set(per_tree["before"]) - set(per_tree["after"]))),
            "only_after": sorted(map(list, set(per_tree["after"]) - set(per_tree["before"]))),
            "not_ok": {name: sorted({f"{r['kernel']}/{r['target']}/{r.get('backend')}: {r.get('status')}"
                                     for rows in runs for r in rows if r.get("status") != "ok"})
                       for name, runs in rounds.items()}}


def run_tree(tree: Path, out: Path, db: Path, bench_args: list[str], log) -> list[dict]:
    if db.exists():  # keep the raises, time them again
        with sqlite3.connect(db) as conn:
            conn.execute("DELETE FROM results")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-u", "-c", BENCH, "bench", *bench_args, "--out", str(out), "--db", str(db)]
    start = time.time()
    proc = subprocess.run(cmd, cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT)
    print(f"{tree} -> {out}: exit {proc.returncode} in {time.time() - start:.0f} s", file=log, flush=True)
    results = out / "results.json"
    return json.loads(results.read_text()) if results.exists() else []


def per_kernel(trees: dict[str, Path], files: list[Path], out: Path, bench_args: list[str],
               log) -> dict[str, list[list[dict]]]:
    """One bench per kernel file and tree, both trees back to back; each tree's rows merged
    into one round. The partial report (ab.md) is rewritten after every kernel."""
    rows: dict[str, list[dict]] = {"before": [], "after": []}
    for i, path in enumerate(files):
        order = ["before", "after"] if i % 2 == 0 else ["after", "before"]
        for name in order:
            kdir = out / name / path.stem
            rows[name] += run_tree(trees[name], kdir, kdir.with_suffix(".sqlite"),
                                   [str(path.resolve()), *bench_args], log)
        partial = compare({k: [v] for k, v in rows.items()})
        (out / "ab.md").write_text(report(partial, {
            "before": str(trees["before"]), "after": str(trees["after"]), "rounds": 1,
            "bench_args": bench_args, "started": f"(partial: {i + 1} of {len(files)} kernels)",
            "ended": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}))
    return {k: [v] for k, v in rows.items()}


def report(result: dict, meta: dict) -> str:
    lines = [f"# side by side: {meta['before']} vs {meta['after']}", "",
             f"Run {meta['started']} - {meta['ended']} UTC, {meta['rounds']} alternating round(s); "
             f"bench arguments: `{' '.join(meta['bench_args'])}`.", "",
             f"**{result['common']} pairs both raised: geomean speedup of the best backend "
             f"{result['geomean_before']:.2f}x before, {result['geomean_after']:.2f}x after, "
             f"after / before {result['ratio']:.3f}**", ""]
    if result["only_before"] or result["only_after"]:
        lines += [f"Only before: {result['only_before']}; only after: {result['only_after']}", ""]
    for name, bad in result.get("not_ok", {}).items():
        wrong = [b for b in bad if "wrong" in b]
        lines += [f"{name}: {len(wrong)} wrong output(s); rows not ok: {', '.join(bad) or 'none'}", ""]
    lines += ["| kernel | target | before | after | after / before |", "|---|---|---|---|---|"]
    for p in sorted(result["pairs"], key=lambda p: p["ratio"]):
        lines.append(f"| {p['kernel']} | {p['target']} | {p['before']:.2f}x | {p['after']:.2f}x | {p['ratio']:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    bench_args = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, type=Path, help="source tree of the old code")
    ap.add_argument("--after", required=True, type=Path, help="source tree of the new code")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--per-kernel", nargs="+", type=Path, metavar="FILE",
                    help="bench these kernel files one at a time, both trees back to back "
                         "(the order alternating from kernel to kernel), instead of whole "
                         "rounds: a drift of the machine falls on both trees within minutes, "
                         "and a run stopped early still compares the kernels it finished")
    args = ap.parse_args(own)
    args.out.mkdir(parents=True, exist_ok=True)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    rounds: dict[str, list[list[dict]]] = {"before": [], "after": []}
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    with open(args.out / "ab.log", "a") as log:
        if args.per_kernel:
            rounds = per_kernel(trees, args.per_kernel, args.out, bench_args, log)
        for r in range(0 if args.per_kernel else args.rounds):
            order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
            for name in order:
                rows = run_tree(trees[name], args.out / name / f"round{r + 1}",
                                args.out / f"{name}.sqlite", bench_args, log)
                rounds[name].append(rows)
    result = compare(rounds)
    meta = {"before": str(trees["before"]), "after": str(trees["after"]),
            "rounds": 1 if args.per_kernel else args.rounds,
            "bench_args": bench_args, "started": started,
            "ended": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
    (args.out / "ab.json").write_text(json.dumps({**meta, **result}, indent=1))
    (args.out / "ab.md").write_text(report(result, meta))
    print(report(result, meta))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
