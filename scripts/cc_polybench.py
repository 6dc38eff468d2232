#!/usr/bin/env python3
"""Build the 30 harnessed PolyBench kernels with two compiler commands, check that their
dumped arrays agree, and time them on one core.

    python scripts/cc_polybench.py                                   # cc vs synth cc, LARGE
    python scripts/cc_polybench.py --dataset MINI --cc-a "cc -O0" --cc-b "cc -O3" --no-time
    python scripts/cc_polybench.py --cc-b "synth cc --target linalg -O3 -march=native" gemm atax
    python scripts/cc_polybench.py --json out.json --md out.md --runs 7

Each kernel `benchmarks/polybench-c/NAME.c` is built as a Makefile would, with each
command in turn (A: `--cc-a`, default `cc -O3 -march=native`; B: `--cc-b`, default
`synth cc -O3 -march=native`): `CMD -c` on the kernel file, on the harness library
(`harness/harness.c`) and on the kernel's main program (`harness/NAME_main.c`, twice: with
and without -DPOLYBENCH_DUMP_ARRAYS), then `CMD` links two executables (one that dumps,
one that only times) with -lm. Everything gets -I for the two directories and
-D<DATASET>_DATASET. When B is a `synth cc` command, its kernel compile also gets
`--report FILE.json` and the report is kept with the results.

Agreement: the dumping executables of A and B run once each; every dumped array must have
the same name, type and shape; `int` arrays must be equal; floating-point arrays must
satisfy |a - b| <= rtol * max(max|a|, max|b|) element by element (default rtol 1e-9),
with NaN and infinities at the same places. A tolerance relative to the array's largest
magnitude, not to each element, because a raise may reassociate sums (a dot product
summed in another order, a tree reduction) and an element that is a small difference of
large terms then carries an absolute error of the order of the large terms' rounding, not
of its own. 1e-9 leaves ~10^7 ulps of headroom for double while still catching any
wrong index or missing update.

Timing: the timing executables run `--runs` times each, A and B alternating, pinned to
one core (`taskset -c CORE`, when taskset exists); each run's own timer (the
HARNESS_TIME line: the kernel call alone, after a cache flush) is read. Per kernel: the
median, min and max of each, and the speedup median(A) / median(B); over the kernels
that agree and were timed on both, the geometric mean of the speedups.

A kernel that fails to build under B is recorded (`build-b-failed`, with the compiler's
message) and the script goes on; likewise a run that fails or times out. Exit status: 0
when every kernel built with A and no kernel's arrays disagree; 1 otherwise (with
`--strict`, a B build or run failure is also 1); 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DIR = ROOT / "benchmarks" / "polybench-c"
HARNESS_DIR = KERNEL_DIR / "harness"
DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")
DEFAULT_A = "cc -O3 -march=native"
DEFAULT_B = "synth cc -O3 -march=native"
TIME_RE = re.compile(r"^HARNESS_TIME (\S+) (\S+)$", re.M)


# ---------------------------------------------------------------------------- dumps


def parse_dump(text: str) -> dict[str, tuple[str, np.ndarray]]:
    """The arrays of a harness dump: name -> (type, array of its shape)."""
    start = text.find("==BEGIN DUMP_ARRAYS==")
    end = text.find("==END DUMP_ARRAYS==")
    if start < 0 or end < 0:
        raise ValueError("no ==BEGIN DUMP_ARRAYS== ... ==END DUMP_ARRAYS== block in the output")
    out: dict[str, tuple[str, np.ndarray]] = {}
    body = text[start:end]
    for m in re.finditer(r"^begin dump: (\S+) (\S+)((?: \d+)*)\n(.*?)^end dump: \1$", body, re.M | re.S):
        name, typ = m.group(1), m.group(2)
        shape = tuple(int(d) for d in m.group(3).split())
        dtype = np.int64 if typ == "int" else np.float64
        values = np.array(m.group(4).split(), dtype=dtype)
        if values.size != math.prod(shape):
            raise ValueError(f"array {name}: {values.size} values for shape {shape}")
        out[name] = (typ, values.reshape(shape))
    return out


@dataclass
class Comparison:
    agree: bool
    problems: list[str] = field(default_factory=list)
    max_rel_err: float = 0.0  # over the float arrays, relative to each array's max magnitude


def compare_dumps(a: dict, b: dict, rtol: float = 1e-9) -> Comparison:
    """Compare two parsed dumps: ints exactly, floats to rtol times the array's largest
    magnitude (NaN / inf at the same places)."""
    problems = []
    worst = 0.0
    if sorted(a) != sorted(b):
        problems.append(f"arrays differ: {sorted(a)} vs {sorted(b)}")
    for name in sorted(set(a) & set(b)):
        (ta, xa), (tb, xb) = a[name], b[name]
        if ta != tb or xa.shape != xb.shape:
            problems.append(f"{name}: {ta}{list(xa.shape)} vs {tb}{list(xb.shape)}")
            continue
        if ta == "int":
            bad = np.flatnonzero(xa != xb)
            if bad.size:
                i = np.unravel_index(bad[0], xa.shape)
                problems.append(f"{name}: {bad.size} of {xa.size} elements differ; first at "
                                f"{list(map(int, i))}: {xa[i]} vs {xb[i]}")
            continue
        fa, fb = np.isfinite(xa), np.isfinite(xb)
        special = ~(fa & fb)
        same_special = (np.isnan(xa) & np.isnan(xb)) | (xa == xb)
        bad_special = special & ~same_special
        scale = max(float(np.max(np.abs(xa[fa]), initial=0.0)), float(np.max(np.abs(xb[fb]), initial=0.0)))
        both = fa & fb
        diff = np.where(both, np.abs(xa - xb), 0.0)
        rel = float(diff.max(initial=0.0)) / scale if scale > 0 else float(diff.max(initial=0.0))
        worst = max(worst, rel)
        bad = np.flatnonzero((diff > rtol * scale) | bad_special)
        if bad.size:
            i = np.unravel_index(bad[0], xa.shape)
            problems.append(f"{name}: {bad.size} of {xa.size} elements differ beyond rtol {rtol:g} "
                            f"x max|.| {scale:.3g} (largest relative {rel:.3g}); first at "
                            f"{list(map(int, i))}: {float(xa[i])!r} vs {float(xb[i])!r}")
    return Comparison(not problems, problems, worst)


# ---------------------------------------------------------------------------- builds


def kernel_names() -> list[str]:
    return sorted(p.stem for p in KERNEL_DIR.glob("*.c"))


def is_synth_cc(cmd: list[str]) -> bool:
    """`synth cc ...`, `/path/synth cc ...` or `python -m synth.cli cc ...`."""
    for i, tok in enumerate(cmd[:-1]):
        if (Path(tok).name == "synth" or tok in ("synth.cli", "synth")) and cmd[i + 1] == "cc":
            return True
    return False


@dataclass
class Build:
    ok: bool
    exe: str = ""
    exe_dump: str = ""
    kernel_compile_s: float = 0.0  # the kernel's translation unit alone
    total_s: float = 0.0
    error: str = ""
    report: object = None  # synth cc's --report JSON, when it wrote one


def _run(cmd: list[str], timeout: float, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)


def build(kernel: str, compiler: str, dataset: str, out_dir: Path, *, harness_compiler: str | None = None,
          timeout: float = 1800.0, extra: tuple[str, ...] = ()) -> Build:
    """Build the timing and dumping executables of `kernel` with `compiler` (a command
    line) into out_dir; the harness TUs with harness_compiler when given."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cc = shlex.split(compiler)
    hcc = shlex.split(harness_compiler) if harness_compiler else cc
    common = [f"-I{KERNEL_DIR}", f"-I{HARNESS_DIR}", f"-D{dataset}_DATASET", *extra]
    report = out_dir / "report.json"
    kflags = ["--report", str(report)] if is_synth_cc(cc) else []
    steps = [
        ("kernel", cc + ["-c", *common, *kflags, str(KERNEL_DIR / f"{kernel}.c"), "-o", str(out_dir / "kernel.o")]),
        ("harness", hcc + ["-c", *common, str(HARNESS_DIR / "harness.c"), "-o", str(out_dir / "harness.o")]),
        ("main", hcc + ["-c", *common, str(HARNESS_DIR / f"{kernel}_main.c"), "-o", str(out_dir / "main.o")]),
        ("main-dump", hcc + ["-c", *common, "-DPOLYBENCH_DUMP_ARRAYS", str(HARNESS_DIR / f"{kernel}_main.c"),
                             "-o", str(out_dir / "main_dump.o")]),
        ("link", cc + [str(out_dir / "kernel.o"), str(out_dir / "harness.o"), str(out_dir / "main.o"),
                       "-o", str(out_dir / "bench"), "-lm"]),
        ("link-dump", cc + [str(out_dir / "kernel.o"), str(out_dir / "harness.o"), str(out_dir / "main_dump.o"),
                            "-o", str(out_dir / "bench_dump"), "-lm"]),
    ]
    b = Build(ok=False)
    t_all = time.perf_counter()
    for what, cmd in steps:
        t0 = time.perf_counter()
        try:
            # run in the build directory: a `python -m synth.cli cc` command then imports
            # the synth of PYTHONPATH / site-packages, never a checkout that happens to be cwd
            p = _run(cmd, timeout, cwd=out_dir)
        except subprocess.TimeoutExpired:
            b.error = f"{what}: timed out after {timeout:g} s: {shlex.join(cmd)}"
            return b
        except OSError as e:
            b.error = f"{what}: cannot run {cmd[0]!r}: {e}"
            return b
        if what == "kernel":
            b.kernel_compile_s = time.perf_counter() - t0
            if report.exists():
                try:
                    b.report = json.loads(report.read_text())
                except json.JSONDecodeError:
                    b.report = report.read_text()[:2000]
        if p.returncode != 0:
            b.error = f"{what}: exit {p.returncode}: {shlex.join(cmd)}\n{(p.stderr + p.stdout)[-3000:]}"
            return b
    b.total_s = time.perf_counter() - t_all
    b.ok, b.exe, b.exe_dump = True, str(out_dir / "bench"), str(out_dir / "bench_dump")
    return b


def pin_prefix(core: str | None) -> list[str]:
    if core is None or core == "none" or shutil.which("taskset") is None:
        return []
    return ["taskset", "-c", core]


def run_exe(exe: str, *, pin: list[str], timeout: float) -> tuple[float, str]:
    """Run a harness executable; (its kernel time in seconds, its stdout)."""
    p = _run(pin + [exe], timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{exe}: exit {p.returncode}\n{p.stderr[-2000:]}")
    m = TIME_RE.search(p.stderr)
    if m is None:
        raise RuntimeError(f"{exe}: no HARNESS_TIME line on stderr")
    return float(m.group(2)), p.stdout


# ---------------------------------------------------------------------------- one kernel


def _stats(ts: list[float]) -> dict:
    return {"median": statistics.median(ts), "min": min(ts), "max": max(ts), "runs": ts} if ts else {}


def check_kernel(kernel: str, args, work: Path) -> dict:
    res: dict = {"kernel": kernel, "status": "ok"}
    builds = {}
    for side, cmd in (("a", args.cc_a), ("b", args.cc_b)):
        b = build(kernel, cmd, args.dataset, work / kernel / side, harness_compiler=args.harness_cc,
                  timeout=args.build_timeout)
        builds[side] = b
        res[f"build_{side}"] = {"ok": b.ok, "kernel_compile_s": round(b.kernel_compile_s, 3),
                                "total_s": round(b.total_s, 3), "error": b.error}
        if b.report is not None:
            res[f"report_{side}"] = b.report
    if not builds["a"].ok:
        res["status"] = "build-a-failed"
        return res
    if not builds["b"].ok:
        res["status"] = "build-b-failed"
        return res
    pin = pin_prefix(args.core)
    try:
        _, out_a = run_exe(builds["a"].exe_dump, pin=pin, timeout=args.run_timeout)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        res["status"], res["error"] = "run-a-failed", str(e)
        return res
    try:
        _, out_b = run_exe(builds["b"].exe_dump, pin=pin, timeout=args.run_timeout)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        res["status"], res["error"] = "run-b-failed", str(e)
        return res
    try:
        cmp = compare_dumps(parse_dump(out_a), parse_dump(out_b), args.rtol)
    except ValueError as e:
        res["status"], res["error"] = "bad-dump", str(e)
        return res
    res["agree"], res["max_rel_err"], res["problems"] = cmp.agree, cmp.max_rel_err, cmp.problems
    if not cmp.agree:
        res["status"] = "mismatch"
        return res
    if args.runs > 0:
        ta, tb = [], []
        try:
            for _ in range(args.runs):
                ta.append(run_exe(builds["a"].exe, pin=pin, timeout=args.run_timeout)[0])
                tb.append(run_exe(builds["b"].exe, pin=pin, timeout=args.run_timeout)[0])
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            res["status"], res["error"] = "timing-failed", str(e)
            return res
        res["time_a"], res["time_b"] = _stats(ta), _stats(tb)
        res["speedup"] = res["time_a"]["median"] / res["time_b"]["median"] if res["time_b"]["median"] > 0 else None
    return res


def spread(stats: dict) -> float | None:
    """(max - min) / median of one side's runs."""
    return (stats["max"] - stats["min"]) / stats["median"] if stats and stats.get("median") else None


def outcome(res: dict) -> str:
    """`raised` / `kept` (B is synth cc and its report names the kernel), else ''."""
    says = raise_summary(res)
    return "raised" if says.startswith("raised") else "kept" if says else ""


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def raise_summary(res: dict) -> str:
    """What synth cc's --report says of the kernel function: `raised linalg (proven for
    every size)` or `kept: REASON`."""
    rep = res.get("report_b")
    if not isinstance(rep, dict):
        return ""
    fn = "kernel_" + res["kernel"].replace("-", "_")
    for it in rep.get("functions", []):
        if isinstance(it, dict) and it.get("function") == fn:
            if it.get("status") == "raised":
                extra = ", cached" if it.get("cached") else ""
                return f"raised {it.get('target', '')} ({it.get('verified', '')}{extra})"
            reason = re.sub(r"/\S*/(benchmarks/)", r"\1", str(it.get("reason", "")))
            return f"{it.get('status', '?')}: {reason}"
    return ""


def markdown(summary: dict) -> str:
    """The markdown table of a run (the JSON summary main writes)."""
    results, gm = summary["results"], summary["geomean_speedup"]
    L = [f"# cc_polybench: A = `{summary['cc_a']}`, B = `{summary['cc_b']}`, {summary['dataset']} dataset", ""]
    L.append(f"Arrays compared with rtol {summary['rtol']:g} of each array's largest magnitude; "
             f"{summary['runs']} timed runs each (kernel timer), pinned with "
             f"`{' '.join(summary['pin']) or 'no pinning'}`; host {summary.get('host', '?')}.")
    L.append("")
    L.append("| kernel | status | max rel err | A median s (min-max) | B median s (min-max) | A/B | spread A, B "
             "| B kernel compile s | B says |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        def t(side):
            s = r.get(f"time_{side}")
            return f"{s['median']:.4g} ({s['min']:.4g}-{s['max']:.4g})" if s else ""
        err = f"{r['max_rel_err']:.2g}" if "max_rel_err" in r else ""
        sp = f"{r['speedup']:.2f}x" if r.get("speedup") else ""
        bc = r.get("build_b", {}).get("kernel_compile_s")
        bc = f"{bc:.1f}" if bc else ""
        says = raise_summary(r)[:140].replace("|", "\\|")
        sa, sb = spread(r.get("time_a")), spread(r.get("time_b"))
        sp_ab = f"{sa:.0%}, {sb:.0%}" if sa is not None and sb is not None else ""
        L.append(f"| {r['kernel']} | {r['status']} | {err} | {t('a')} | {t('b')} | {sp} | {sp_ab} | {bc} | {says} |")
    L.append("")
    L.append(f"Geomean A/B over {sum(1 for r in results if r.get('speedup'))} timed kernels: "
             + (f"{gm:.3f}x" if gm else "n/a"))
    raised = [r["speedup"] for r in results if r.get("speedup") and raise_summary(r).startswith("raised")]
    if raised:
        L[-1] += f"; over the {len(raised)} that B raised: {geomean(raised):.3f}x"
    if summary.get("geomean_kept_as_1x"):
        L[-1] += (f"; over all {summary['n_timed']} timed, a kept kernel counted 1x: "
                  f"{summary['geomean_kept_as_1x']:.3f}x")
    slower = [f"{r['kernel']} {r['speedup']:.2f}x" for r in results
              if r.get("speedup") and r["speedup"] < 1 and outcome(r) == "raised"]
    L.append("")
    L.append("Raised kernels slower than A (median): " + (", ".join(slower) if slower else "none"))
    spreads = [x for r in results for x in (spread(r.get("time_a")), spread(r.get("time_b"))) if x is not None]
    if spreads:
        L.append(f"Spread of the runs ((max - min) / median, per kernel and side): median "
                 f"{statistics.median(spreads):.0%}, largest {max(spreads):.0%}")
    return "\n".join(L) + "\n"


def report_line(r: dict) -> None:
    """One line per kernel on stdout, then its problems indented."""
    k = r["kernel"]
    line = f"{k:16s} {r['status']:15s}"
    if "max_rel_err" in r:
        line += f" err {r['max_rel_err']:.2g}"
    if r.get("speedup"):
        line += (f"  A {r['time_a']['median']:.4g}s  B {r['time_b']['median']:.4g}s"
                 f"  A/B {r['speedup']:.2f}x  spread {spread(r['time_a']):.0%}/{spread(r['time_b']):.0%}")
    if r.get("build_b", {}).get("ok"):
        line += f"  (B kernel compile {r['build_b']['kernel_compile_s']:.1f}s)"
    if raise_summary(r):
        line += "  " + raise_summary(r)[:100]
    print(line, flush=True)
    for msg in r.get("problems", []) + ([r["error"]] if r.get("error") else []):
        print("    " + msg.replace("\n", "\n    "), flush=True)
    for side in "ab":
        err = r.get(f"build_{side}", {}).get("error")
        if err:
            print(f"    build {side.upper()}: " + err.strip().replace("\n", "\n    ")[:1500], flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()),
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("kernels", nargs="*", help="kernel names (default: all 30)")
    ap.add_argument("--cc-a", default=DEFAULT_A, help=f"reference compiler command (default: {DEFAULT_A})")
    ap.add_argument("--cc-b", default=DEFAULT_B, help=f"compiler command under test (default: {DEFAULT_B})")
    ap.add_argument("--harness-cc", default=None,
                    help="compile the harness TUs (main, harness.c) with this command on both sides "
                         "(default: each side's own command)")
    ap.add_argument("--dataset", default="LARGE", type=str.upper, choices=DATASETS)
    ap.add_argument("--runs", type=int, default=5, help="timed runs per side (default 5)")
    ap.add_argument("--no-time", dest="runs", action="store_const", const=0, help="check only, no timing")
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--core", default="0", help="core to pin runs to with taskset ('none': no pinning)")
    ap.add_argument("--build-dir", type=Path, default=None, help="keep the builds here (default: a temp dir)")
    ap.add_argument("--build-timeout", type=float, default=1800.0)
    ap.add_argument("--run-timeout", type=float, default=600.0)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--md", type=Path, default=None)
    ap.add_argument("--strict", action="store_true", help="a B build or run failure fails the script too")
    ap.add_argument("--render", type=Path, default=None, metavar="JSON",
                    help="build nothing: print the markdown of an earlier run's --json file")
    args = ap.parse_args(argv)
    if args.render is not None:
        print(markdown(json.loads(args.render.read_text())), end="")
        return 0
    names = kernel_names()
    unknown = [k for k in args.kernels if k not in names]
    if unknown:
        ap.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(names)}")
    todo = args.kernels or names
    tmp = None
    if args.build_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="cc_polybench_")
        work = Path(tmp.name)
    else:
        work = args.build_dir
    results: list[dict] = []

    def summary() -> dict:
        gm = geomean([r["speedup"] for r in results if r.get("speedup")])
        raised = [r["speedup"] for r in results if r.get("speedup") and raise_summary(r).startswith("raised")]
        kept_1x = [r["speedup"] if outcome(r) != "kept" else 1.0 for r in results if r.get("speedup")]
        return {"cc_a": args.cc_a, "cc_b": args.cc_b, "dataset": args.dataset, "rtol": args.rtol,
                "runs": args.runs, "pin": pin_prefix(args.core), "geomean_speedup": gm,
                "geomean_speedup_raised": geomean(raised), "n_raised_timed": len(raised),
                "geomean_kept_as_1x": geomean(kept_1x), "n_timed": len(kept_1x),
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "host": os.uname().nodename, "results": results}

    try:
        for k in todo:
            r = check_kernel(k, args, work)
            results.append(r)
            report_line(r)
            if args.json:  # after every kernel: a long run stopped half-way keeps its results
                args.json.write_text(json.dumps(summary(), indent=1, default=str) + "\n")
    finally:
        if tmp is not None:
            tmp.cleanup()
    final = summary()
    gm = final["geomean_speedup"]
    if gm:
        print(f"geomean A/B over {sum(1 for r in results if r.get('speedup'))} kernels: {gm:.3f}x")
    if final["geomean_speedup_raised"]:
        print(f"geomean A/B over the {final['n_raised_timed']} kernels B raised: "
              f"{final['geomean_speedup_raised']:.3f}x")
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        if raise_summary(r):
            counts["B raised"] = counts.get("B raised", 0) + raise_summary(r).startswith("raised")
    print("status: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    if args.md:
        args.md.write_text(markdown(final))
    bad = {"build-a-failed", "run-a-failed", "mismatch", "bad-dump"}
    if args.strict:
        bad |= {"build-b-failed", "run-b-failed", "timing-failed"}
    return 1 if any(r["status"] in bad for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
