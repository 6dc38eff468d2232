"""The run (step 5 of the overview): `fuzz_program` generates, emits and checks one
program on its targets and saves a reproducer per failure; `run` does that for a
seed's programs (optionally in parallel) and writes records.json and report.json;
`summarize` and `print_report` count the outcomes; `main` is the command line of
scripts/fuzz.py."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import __doc__ as OVERVIEW
from .checker import Checker, Config
from .config import REPRO_DIR, TARGETS, use_synth_root
from .emit import emit, parses
from .generate import generate, select_programs
from .reproducer import check_reproducer, save_reproducer


def fuzz_program(cfg: Config, k: int, work: Path) -> dict:
    kernel = generate(cfg.seed, k)
    text = emit(kernel)
    (cfg.out / f"{kernel.name}.mlir").write_text(text)
    record = {"program": k, "category": kernel.category, "malformed": kernel.malformed,
              "features": sorted(kernel.features), "targets": {}, "failures": []}
    if kernel.category != "malformed":
        err = parses(text)
        if err is not None:
            record["generator_error"] = err
            return record
    targets = [cfg.targets[k % len(cfg.targets)]] if cfg.alternate else list(cfg.targets)
    checker = Checker(cfg, work)
    saved: dict[str, str] = {}
    for target in targets:
        res = checker.check(kernel, target)
        record["targets"][target] = {"status": res.status, "exit_code": res.exit_code, "reason": res.reason,
                                     "seconds": round(res.seconds, 2), "mutants": dict(res.mutants),
                                     "mutant_log": res.mutant_log,
                                     "notes": res.notes, "rewrites": dict(res.rewrites)}
        for f in res.failures:
            if cfg.repro_dir is not None:
                if f.kind in saved:  # the same failure on the other target: one reproducer
                    f.reproducer = saved[f.kind]
                else:
                    try:
                        f.reproducer = saved[f.kind] = save_reproducer(cfg, checker, kernel, f)
                    except Exception as e:  # shrinking must not end the run
                        f.reproducer = f"(not saved: {type(e).__name__}: {e})"
            record["failures"].append(vars(f))
    return record


def summarize(cfg: Config, records: list[dict], seconds: float) -> dict:
    raised, attempts = Counter(), Counter()
    refused: dict = {}
    mut = Counter()
    rewrites: dict[str, Counter] = {}  # target -> mlir-cpu pass -> rewrites
    through_cpu = Counter()
    failures = []
    categories = Counter(r["category"] for r in records)
    features = Counter(f for r in records for f in r["features"])
    malformed_refused = 0
    gen_errors = [r for r in records if "generator_error" in r]
    notes = []
    for r in records:
        for target, t in r["targets"].items():
            attempts[target] += 1
            if t["status"] == "raised":
                raised[target] += 1
            elif t["status"] == "refused":
                code = str(t["exit_code"])
                refused.setdefault(code, Counter())[t["reason"]] += 1
            elif t["status"] == "malformed-refused":
                malformed_refused += 1
            mut.update(t["mutants"])
            if t.get("rewrites") is not None and cfg.mlir_cpu and t["status"] == "raised":
                through_cpu[target] += 1
                rewrites.setdefault(target, Counter()).update(t["rewrites"])
            notes += [f"fuzz_{r['program']} {target}: {n}" for n in t["notes"] if "verify exit 2" in n or "other sizes" in n]
        failures += r["failures"]
    kinds = Counter(f["kind"] for f in failures)
    return {
        "seed": cfg.seed, "programs": len(records), "categories": dict(categories),
        "attempts": dict(attempts), "raised": dict(raised),
        "refused": {code: dict(c) for code, c in sorted(refused.items())},
        "malformed_refused": malformed_refused, "malformed_programs": categories.get("malformed", 0),
        "wrong": kinds.get("wrong", 0),
        "mutants": {"generated": mut["generated"], "rejected": mut["rejected"],
                    "undecided": mut["undecided"], "accepted": mut["accepted"],
                    "equivalent": mut["equivalent"], "verify_bad_input": mut["bad_input"],
                    "invalid_dropped": mut["invalid"]},
        "own_output": {k[4:]: v for k, v in mut.items() if k.startswith("own-")},
        "verify_own_failures": kinds.get("verify_own", 0),
        "crashes": kinds.get("crash", 0) + kinds.get("verify_crash", 0),
        "hangs": kinds.get("hang", 0) + kinds.get("verify_hang", 0),
        "malformed_not_refused": kinds.get("malformed", 0),
        "mlir_cpu": {"raises": dict(through_cpu), "wrong": kinds.get("backend_wrong", 0),
                     "errors": kinds.get("backend_error", 0),
                     "rewrites": {t: dict(sorted(c.items())) for t, c in rewrites.items()}} if cfg.mlir_cpu else None,
        "generator_errors": len(gen_errors),
        "failures": failures, "features": dict(sorted(features.items())),
        "notes": notes, "seconds": round(seconds, 1),
    }


def print_report(rep: dict) -> None:
    p = print
    p(f"fuzz: seed {rep['seed']}, {rep['programs']} programs ({', '.join(f'{k} {v}' for k, v in rep['categories'].items())}), "
      f"{rep['seconds']:.0f} s")
    p("  raised:  " + ", ".join(f"{t} {rep['raised'].get(t, 0)}/{n}" for t, n in rep["attempts"].items()))
    for code, buckets in rep["refused"].items():
        p(f"  refused exit {code}: " + ", ".join(f"{b} {n}" for b, n in sorted(buckets.items(), key=lambda kv: -kv[1])))
    p(f"  malformed: {rep['malformed_refused']} refused with exit 2, {rep['malformed_not_refused']} not")
    m = rep["mutants"]
    p(f"  mutants: {m['generated']} generated, {m['rejected']} rejected, {m['undecided']} undecided, "
      f"{m['accepted']} accepted, {m['equivalent']} equivalent (neutral), {m['verify_bad_input']} verify exit 2, "
      f"{m['invalid_dropped']} dropped (did not verify in MLIR)")
    p("  synth verify on the raised outputs: " + (", ".join(f"{k} {v}" for k, v in sorted(rep["own_output"].items())) or "-"))
    p(f"  wrong: {rep['wrong']}   accepted mutants: {m['accepted']}   crashes: {rep['crashes']}   "
      f"hangs: {rep['hangs']}   own output not verified: {rep['verify_own_failures']}   "
      f"generator errors: {rep['generator_errors']}")
    cpu = rep.get("mlir_cpu")
    if cpu:
        p(f"  mlir-cpu: {sum(cpu['raises'].values())} raises run through its passes, {cpu['wrong']} wrong, "
          f"{cpu['errors']} errors; rewrites per pass: " + "; ".join(
              f"{t}: " + ", ".join(f"{k.removeprefix('synth-')} {v}" for k, v in c.items() if v)
              for t, c in cpu["rewrites"].items()))
    for f in rep["failures"]:
        p(f"  FAILURE {f['kind']} fuzz_{f['program']} ({f['target']}): {f['description'][:300]}")
        if f.get("reproducer"):
            p(f"          reproducer: {f['reproducer']}")
    for n in rep["notes"][:20]:
        p(f"  note: {n[:300]}")


def run(cfg: Config, count: int, jobs: int = 1, features: set[str] | None = None) -> dict:
    t0 = time.monotonic()
    cfg.out.mkdir(parents=True, exist_ok=True)
    work = cfg.out / "work"
    work.mkdir(exist_ok=True)
    ks = select_programs(cfg.seed, count, features)
    if jobs <= 1:
        records = [fuzz_program(cfg, k, work) for k in ks]
    else:
        with ThreadPoolExecutor(jobs) as pool:
            records = list(pool.map(lambda k: fuzz_program(cfg, k, work), ks))
    rep = summarize(cfg, records, time.monotonic() - t0)
    (cfg.out / "records.json").write_text(json.dumps(records, indent=1, default=str))
    (cfg.out / "report.json").write_text(json.dumps(rep, indent=1, default=str))
    return rep


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=OVERVIEW.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=20, help="programs to generate")
    ap.add_argument("--out", help="working directory (default: a new temporary one)")
    ap.add_argument("--timeout", type=float, default=20.0, help="synth raise --timeout (search budget)")
    ap.add_argument("--targets", default="stablehlo,linalg")
    ap.add_argument("--alternate", action="store_true",
                    help="one target per program, alternating (default: every target)")
    ap.add_argument("--jobs", type=int, default=1, help="programs checked in parallel")
    ap.add_argument("--mutants", type=int, default=3, help="mutants per raised output (3-5)")
    ap.add_argument("--repro-dir", default=str(REPRO_DIR), help="where shrunk reproducers go")
    ap.add_argument("--no-shrink", action="store_true", help="save failures unshrunk")
    ap.add_argument("--shrink-budget", type=float, default=600.0, help="seconds of shrinking per failure")
    ap.add_argument("--no-verify-own", action="store_true",
                    help="do not run synth verify on the raised outputs themselves")
    ap.add_argument("--other-sizes", action="store_true",
                    help="also run kernels with size arguments at smaller values (informational)")
    ap.add_argument("--mlir-cpu", action="store_true",
                    help="also run each raise through mlir-cpu's pipeline (every performance pass) and "
                    "compare; the report counts the rewrites each pass made")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--synth-root", help="fuzz the synth of this checkout (default: this one)")
    ap.add_argument("--check", metavar="FILE", help="re-check a saved reproducer and exit (0: fixed)")
    ap.add_argument("--emit", type=int, metavar="K", help="print program K of --seed and exit")
    ap.add_argument("--features", help="only programs with one of these generator features "
                    "(comma-separated, e.g. stride,constant-index; see report.json's features)")
    args = ap.parse_args(argv)
    if args.synth_root:
        use_synth_root(Path(args.synth_root))
    if args.check:
        ok, what = check_reproducer(Path(args.check))
        print(f"{args.check}: {'OK' if ok else 'STILL FAILS'}: {what}")
        return 0 if ok else 1
    if args.emit is not None:
        sys.stdout.write(emit(generate(args.seed, args.emit)))
        return 0
    out = Path(args.out).resolve() if args.out else Path(tempfile.mkdtemp(prefix=f"synth-fuzz-{args.seed}-"))
    targets = tuple(t for t in args.targets.split(",") if t)
    for t in targets:
        if t not in TARGETS:
            ap.error(f"unknown target {t}")
    cfg = Config(args.seed, out, args.timeout, targets, args.alternate, args.mutants,
                 Path(args.repro_dir) if args.repro_dir else None,
                 0.0 if args.no_shrink else args.shrink_budget, args.other_sizes,
                 verify_own=not args.no_verify_own, mlir_cpu=args.mlir_cpu)
    rep = run(cfg, args.count, args.jobs, set(args.features.split(",")) if args.features else None)
    if args.json:
        print(json.dumps(rep, indent=1, default=str))
    else:
        print_report(rep)
        print(f"  (details: {out / 'report.json'}, {out / 'records.json'})")
    cpu = rep.get("mlir_cpu") or {"wrong": 0, "errors": 0}
    bad = (rep["wrong"] + cpu["wrong"] + cpu["errors"] + rep["mutants"]["accepted"] + rep["crashes"] + rep["hangs"]
           + rep["malformed_not_refused"] + rep["verify_own_failures"])
    return 1 if bad else 0
