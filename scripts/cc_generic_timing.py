#!/usr/bin/env python3
"""synth cc's shape-generic drop-ins against its static ones and the C compiler alone, on
the harnessed PolyBench C twins (benchmarks/polybench-c/), timed back to back.

    python scripts/cc_generic_timing.py                         # all 30, MEDIUM, 5 rounds
    python scripts/cc_generic_timing.py gemm atax lu@LARGE --rounds 7 --core none
    python scripts/cc_generic_timing.py --flags "-O3 -march=native --target linalg" gemm
    python scripts/cc_generic_timing.py --name NAME ...         # benchmarks/results/NAME.{json,md}

Each kernel is built three times as a Makefile would (scripts/cc_polybench.py's `build`:
the kernel, the harness and the main program, a timing and a dumping executable):
- cc: `cc -O3 -march=native` (`--cc`);
- static: `synth cc --shapes static FLAGS` (each raise made at the arrays' static extents;
  at other run-time sizes the wrapper calls the C original);
- generic: `synth cc --shapes generic FLAGS` (raises over tensor<?x...>, the sizes read at
  run time: what `auto` gives C with `int` sizes);
FLAGS `-O3 -march=native` by default (`--flags`): both targets raised, checked and timed,
the faster used, the function as written where neither is faster, as synth cc does by
default. A kernel's dataset is `--dataset`, or its own with `NAME@DATASET`.

The dumping executables of static and generic must agree with cc's (cc_polybench's
comparison: ints exactly, floats within 1e-9 of each array's largest magnitude). Then
`--rounds` rounds, each running the three timing executables once, one after the other, the
order rotated each round (so each comes first, second and third equally often); each run's
own kernel timer (HARNESS_TIME) is read. Per kernel: each side's median, min, max and
spread ((max - min) / median), the generic / static ratio of the medians, and the median
(min-max) of the per-round ratios (the two runs of a round are seconds apart, so load from
other jobs hits both alike), cc / static and cc / generic, what synth cc did with the
function on each side (raised to which target, or kept and why), and the load average
before and after. Over the kernels: geomeans of the ratios. The JSON is rewritten after
every kernel.

On a shared machine each time is noisy; the paired ratios are the number to read. Exit
status 0 when every kernel built with cc and no kernel's arrays disagree, else 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
SIDES = ("cc", "static", "generic")


def _cc_polybench():
    if "cc_polybench" in sys.modules:
        return sys.modules["cc_polybench"]
    spec = importlib.util.spec_from_file_location("cc_polybench", ROOT / "scripts" / "cc_polybench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["cc_polybench"] = mod
    spec.loader.exec_module(mod)
    return mod


ccp = _cc_polybench()


def commands(args) -> dict[str, str]:
    """The compiler command of each side."""
    synth = args.synth or f"{shlex.quote(sys.executable)} -m synth.cli cc"
    return {"cc": args.cc,
            "static": args.cc_static or f"{synth} --shapes static {args.flags}",
            "generic": args.cc_generic or f"{synth} --shapes generic {args.flags}"}


def _ratio(a, b):
    return a / b if a and b else None


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def time_kernel(kernel: str, dataset: str, args, work: Path) -> dict:
    """Build, check and time one kernel on the three sides."""
    res: dict = {"kernel": kernel, "dataset": dataset, "status": "ok"}
    builds = {}
    for side, cmd in commands(args).items():
        b = ccp.build(kernel, cmd, dataset, work / f"{kernel}-{dataset}" / side, timeout=args.build_timeout)
        builds[side] = b
        res[f"build_{side}"] = {"ok": b.ok, "kernel_compile_s": round(b.kernel_compile_s, 2), "error": b.error}
        says = ccp.raise_summary({"kernel": kernel, "report_b": b.report})
        if says:
            res[f"says_{side}"] = says
    if not builds["cc"].ok:
        res["status"] = "build-cc-failed"
        return res
    failed = [s for s in SIDES if not builds[s].ok]
    if failed:
        res["status"] = f"build-{failed[0]}-failed"
        return res
    pin = ccp.pin_prefix(args.core)
    dumps = {}
    for side in SIDES:
        try:
            dumps[side] = ccp.parse_dump(ccp.run_exe(builds[side].exe_dump, pin=pin, timeout=args.run_timeout)[1])
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            res["status"], res["error"] = f"run-{side}-failed", str(e)
            return res
    for side in ("static", "generic"):
        cmp = ccp.compare_dumps(dumps["cc"], dumps[side], args.rtol)
        res[f"max_rel_err_{side}"] = cmp.max_rel_err
        if not cmp.agree:
            res["status"], res["problems"] = f"mismatch-{side}", cmp.problems
            return res
    times: dict[str, list[float]] = {s: [] for s in SIDES}
    res["load_before"] = _load()
    try:
        for r in range(args.rounds):
            for side in SIDES[r % 3:] + SIDES[:r % 3]:
                times[side].append(ccp.run_exe(builds[side].exe, pin=pin, timeout=args.run_timeout)[0])
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        res["status"], res["error"] = "timing-failed", str(e)
        return res
    res["load_after"] = _load()
    for side in SIDES:
        res[f"time_{side}"] = ccp._stats(times[side])
    med = {s: res[f"time_{s}"]["median"] for s in SIDES}
    paired = [g / s for g, s in zip(times["generic"], times["static"]) if s > 0]
    res["generic_over_static"] = _ratio(med["generic"], med["static"])
    res["paired_generic_over_static"] = ccp._stats(paired)
    res["cc_over_static"] = _ratio(med["cc"], med["static"])
    res["cc_over_generic"] = _ratio(med["cc"], med["generic"])
    res["generic_over_static_min"] = _ratio(res["time_generic"]["min"], res["time_static"]["min"])
    return res


def _min_ratio(res: dict):
    """generic / static of the fastest runs (the least disturbed by other jobs)."""
    return _ratio(res["time_generic"]["min"], res["time_static"]["min"]) if "time_static" in res else None


def _raised(res: dict, side: str) -> bool:
    return res.get(f"says_{side}", "").startswith("raised")


def summary(results: list[dict], args) -> dict:
    timed = [r for r in results if r.get("generic_over_static")]
    both = [r for r in timed if _raised(r, "static") and _raised(r, "generic")]
    return {"commands": commands(args), "rounds": args.rounds, "pin": ccp.pin_prefix(args.core),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "host": os.uname().nodename,
            "n_timed": len(timed), "n_both_raised": len(both),
            "geomean_generic_over_static": ccp.geomean([r["generic_over_static"] for r in timed]),
            "geomean_paired_generic_over_static": ccp.geomean(
                [r["paired_generic_over_static"]["median"] for r in timed]),
            "geomean_generic_over_static_both_raised": ccp.geomean([r["generic_over_static"] for r in both]),
            "geomean_generic_over_static_min": ccp.geomean([_min_ratio(r) for r in timed]),
            "geomean_cc_over_static": ccp.geomean([r["cc_over_static"] for r in timed]),
            "geomean_cc_over_generic": ccp.geomean([r["cc_over_generic"] for r in timed]),
            "results": results}


def _says(r: dict, side: str) -> str:
    text = r.get(f"says_{side}", "")
    return text.replace("raised ", "").replace("|", "\\|")[:70]


def markdown(data: dict) -> str:
    c = data["commands"]
    L = [f"# synth cc: generic vs static drop-ins vs cc ({data['date']}, host {data['host']})", "",
         f"cc = `{c['cc']}`; static = `{c['static']}`; generic = `{c['generic']}`.", "",
         f"{data['rounds']} rounds, each the three executables back to back in rotated order, pinned with "
         f"`{' '.join(data['pin']) or 'no pinning'}`; times are the harness's kernel timer (s), median "
         "(spread = (max - min) / median); generic/static: ratio of the medians, then the median "
         "(min-max) of the per-round ratios, then the ratio of the fastest runs.", "",
         "| kernel | dataset | status | cc | static | generic | generic/static | paired g/s | g/s of mins "
         "| cc/static | cc/generic | static: synth cc did | generic: synth cc did | load |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def t(r, side):
        s = r.get(f"time_{side}")
        sp = ccp.spread(s) if s else None
        return f"{s['median']:.4g} ({sp:.0%})" if s else ""

    def x(v):
        return f"{v:.2f}" if v else ""

    for r in data["results"]:
        p = r.get("paired_generic_over_static")
        paired = f"{p['median']:.2f} ({p['min']:.2f}-{p['max']:.2f})" if p else ""
        load = f"{r['load_before']:.1f}-{r['load_after']:.1f}" if "load_after" in r else ""
        L.append(f"| {r['kernel']} | {r['dataset']} | {r['status']} | {t(r, 'cc')} | {t(r, 'static')} | "
                 f"{t(r, 'generic')} | {x(r.get('generic_over_static'))} | {paired} | {x(_min_ratio(r))} | "
                 f"{x(r.get('cc_over_static'))} | {x(r.get('cc_over_generic'))} | {_says(r, 'static')} | "
                 f"{_says(r, 'generic')} | {load} |")
    L.append("")
    g = data
    if g["n_timed"]:
        L.append(f"Over {g['n_timed']} kernels timed: geomean generic/static {x(g['geomean_generic_over_static'])} "
                 f"(paired {x(g['geomean_paired_generic_over_static'])}, of the fastest runs "
                 f"{x(ccp.geomean([_min_ratio(r) for r in data['results'] if r.get('generic_over_static')]))}), "
                 "cc/static "
                 f"{x(g['geomean_cc_over_static'])}, cc/generic {x(g['geomean_cc_over_generic'])}"
                 + (f"; over the {g['n_both_raised']} raised on both sides: generic/static "
                    f"{x(g['geomean_generic_over_static_both_raised'])}" if g["n_both_raised"] else "") + ".")
    return "\n".join(L) + "\n"


def _line(r: dict) -> str:
    line = f"{r['kernel']:16s} {r['dataset']:7s} {r['status']:18s}"
    if r.get("generic_over_static"):
        line += (f" cc {r['time_cc']['median']:.4g}s  static {r['time_static']['median']:.4g}s  generic "
                 f"{r['time_generic']['median']:.4g}s  g/s {r['generic_over_static']:.2f} (paired "
                 f"{r['paired_generic_over_static']['median']:.2f})  load {r['load_before']}-{r['load_after']}")
    for side in ("static", "generic"):
        if r.get(f"says_{side}"):
            line += f"\n    {side}: {r[f'says_{side}'][:150]}"
    for msg in r.get("problems", []) + ([r["error"]] if r.get("error") else []):
        line += "\n    " + msg.replace("\n", "\n    ")[:1500]
    for side in SIDES:
        err = r.get(f"build_{side}", {}).get("error")
        if err:
            line += f"\n    build {side}: " + err.strip().replace("\n", "\n    ")[:1500]
    return line


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("kernels", nargs="*", help="NAME or NAME@DATASET (default: all 30 at --dataset)")
    ap.add_argument("--dataset", default="MEDIUM", type=str.upper, choices=ccp.DATASETS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cc", default="cc -O3 -march=native", help="the C compiler alone")
    ap.add_argument("--synth", default=None, help="the synth cc command (default: this Python's -m synth.cli cc)")
    ap.add_argument("--flags", default="-O3 -march=native", help="flags of both synth cc sides")
    ap.add_argument("--cc-static", default=None, help="the whole static side's command (overrides)")
    ap.add_argument("--cc-generic", default=None, help="the whole generic side's command (overrides)")
    ap.add_argument("--core", default="none", help="core to pin runs to with taskset ('none': no pinning)")
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--build-dir", type=Path, default=None)
    ap.add_argument("--build-timeout", type=float, default=1800.0)
    ap.add_argument("--run-timeout", type=float, default=600.0)
    ap.add_argument("--name", default=None, help="benchmarks/results/NAME.{json,md}")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--md", type=Path, default=None)
    ap.add_argument("--render", type=Path, default=None, metavar="JSON",
                    help="time nothing: print the markdown of an earlier run's JSON")
    args = ap.parse_args(argv)
    if args.render is not None:
        print(markdown(json.loads(args.render.read_text())), end="")
        return 0
    names = ccp.kernel_names()
    todo = []
    for item in args.kernels or names:
        name, _, dataset = item.partition("@")
        if name not in names or (dataset and dataset.upper() not in ccp.DATASETS):
            ap.error(f"unknown kernel or dataset {item!r}; kernels: {', '.join(names)}")
        todo.append((name, dataset.upper() or args.dataset))
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    name = args.name or f"cc_generic_timing_{args.dataset.lower()}_{time.strftime('%Y-%m-%d', time.gmtime())}"
    out_json = args.json or RESULTS / f"{name}.json"
    out_md = args.md or RESULTS / f"{name}.md"
    tmp = tempfile.TemporaryDirectory(prefix="cc_generic_timing_") if args.build_dir is None else None
    work = Path(tmp.name) if tmp else args.build_dir
    results: list[dict] = []
    try:
        for kernel, dataset in todo:
            r = time_kernel(kernel, dataset, args, work)
            results.append(r)
            print(_line(r), flush=True)
            data = summary(results, args)
            out_json.write_text(json.dumps(data, indent=1, default=str) + "\n")
            out_md.write_text(markdown(data))
    finally:
        if tmp:
            tmp.cleanup()
    data = summary(results, args)
    print(markdown(data).splitlines()[-1])
    bad = [r for r in results if r["status"] == "build-cc-failed" or r["status"].startswith("mismatch")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
