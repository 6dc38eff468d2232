"""`synth bench`'s reports: results.json / results.csv, report.md (when, where and how it
ran; the table with each time's range; the geomean speedups; what was not raised and
why) and speedup.png."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path


from synth import __version__

PROOF_WORDS = {"all": "all sizes", "z3": "bounded sizes", "test": "tested only"}
RESULT_FIELDS = ("kernel", "function", "target", "backend", "status", "verification", "form",
                 "synth_seconds", "search_seconds", "candidates", "baseline_seconds", "baseline_min", "baseline_max",
                 "seconds", "seconds_min", "seconds_max", "seconds_cpu", "baseline_cpu", "speedup", "cc_seconds",
                 "cc_min", "cc_max", "speedup_cc", "compile_seconds", "pipeline", "rewrites", "fallback_reason", "reason")
COMPILE_BUDGET = 30.0  # seconds: what a raise may take to compile on mlir-cpu (issue 55, item 7)


def _share(row: dict) -> str:
    """ (the search's share of the raise's time), where the row has both."""
    total, search = row.get("synth_seconds"), row.get("search_seconds")
    return f" ({100 * search / total:.0f}%)" if total and search is not None else ""


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def best_speedups(rows: list[dict]) -> dict[tuple[str, str], dict]:
    best: dict[tuple[str, str], dict] = {}
    for r in rows:
        if r.get("status") == "ok" and r.get("speedup"):
            k = (r["kernel"], r["target"])
            if k not in best or r["speedup"] > best[k]["speedup"]:
                best[k] = r
    return best


def generic_over_static(rows: list[dict], field: str = "seconds") -> dict[str, list[float]]:
    """backend -> the time of each generic raise over its static twin's (same kernel,
    target and backend, both timed: `synth bench --shapes static,generic`); `field`
    "seconds_cpu": their CPU times instead, where both rows have them."""
    static = {(r["kernel"], r["target"], r.get("backend")): r for r in rows
              if r.get("status") == "ok" and r.get(field)}
    out: dict[str, list[float]] = {}
    for r in rows:
        target = r["target"]
        if r.get("status") != "ok" or not r.get(field) or not target.endswith(" generic"):
            continue
        twin = static.get((r["kernel"], target[: -len(" generic")], r.get("backend")))
        if twin is not None:
            out.setdefault(r["backend"], []).append(r[field] / twin[field])
    return out


def run_header(settings: dict) -> list[str]:
    """Report lines saying when, where and how a bench ran."""
    import datetime
    import os
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                   if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    how = ", ".join(f"{k} {v}" for k, v in settings.items())
    return [f"Run {when} on {cpu} ({os.cpu_count()} cores, {platform.system()} {platform.release()}), "
            f"synth {__version__}; {how}. Times: median of the timed calls (their range in parentheses).", ""]


def write_reports(rows: list[dict], out_dir: Path, title: str, header: list[str] = ()) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = sorted(rows, key=lambda r: (r["kernel"], r["target"], r.get("backend") or ""))
    (out_dir / "results.json").write_text(json.dumps(rows, indent=2))
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESULT_FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    best = best_speedups(rows)
    summary = {"kernels": len({r["kernel"] for r in rows}),
               "raised": sorted({f"{r['kernel']}/{r['target']}" for r in rows if r.get("status") == "ok"}),
               "geomean_best": geomean([r["speedup"] for r in best.values()])}
    for target in sorted({r["target"] for r in rows}):
        summary[f"geomean_best_{target}"] = geomean([r["speedup"] for (k, t), r in best.items() if t == target])
    over_cc = [r["speedup_cc"] for r in best.values() if r.get("speedup_cc")]
    summary["geomean_best_over_cc"] = geomean(over_cc)
    lines = [f"# {title}", "", *header,
             f"{summary['kernels']} kernels; raised and timed: {len(best)} kernel x target pairs; "
             f"geomean speedup of the best backend per kernel and target: "
             f"{_fmt(summary['geomean_best'])}x", ""]
    for target in sorted({r["target"] for r in rows}):
        lines.append(f"- {target}: geomean {_fmt(summary.get(f'geomean_best_{target}'))}x")
    if over_cc:
        lines.append(f"- over the C twins (cc -O3 -march=native), same best backends: geomean "
                     f"{_fmt(summary['geomean_best_over_cc'])}x ({len(over_cc)} pairs)")
    ratios = generic_over_static(rows)
    summary["generic_over_static"] = {b: geomean(v) for b, v in ratios.items()}
    cpu_ratios = generic_over_static(rows, "seconds_cpu")
    summary["generic_over_static_cpu"] = {b: geomean(v) for b, v in cpu_ratios.items()}
    for backend, values in sorted(ratios.items()):
        cpu = cpu_ratios.get(backend)
        lines.append(f"- generic over static time on {backend}: geomean {_fmt(geomean(values))} over "
                     f"{len(values)} pairs (range {_fmt(min(values))} to {_fmt(max(values))})"
                     + (f"; CPU time: {_fmt(geomean(cpu))} over {len(cpu)} pairs (range {_fmt(min(cpu))} "
                        f"to {_fmt(max(cpu))})" if cpu else ""))
    lines += compile_lines(rows, summary)
    stopped = [f"{r['kernel']} {r['target']} on {r['backend']}" for r in rows if r.get("status") == "timeout"]
    summary["timeouts"] = len(stopped)
    if stopped:
        lines.append(f"- stopped at the call limit (--call-timeout; status timeout): {', '.join(stopped)}")
    raises = {(r["kernel"], r["target"]): r.get("verification") for r in rows if r.get("backend")}
    if raises:
        every = sum(v == "all" for v in raises.values())
        lines.append(f"- proofs: {every} of {len(raises)} raises proven for every size, "
                     f"{sum(v == 'z3' for v in raises.values())} at bounded sizes (column proof)")
    forms = {}
    for r in best.values():
        forms[r.get("form") or "?"] = forms.get(r.get("form") or "?", 0) + 1
    if forms:
        lines.append("- forms of the raises timed: " + ", ".join(f"{n} {f}" for f, n in sorted(forms.items()))
                     + " (column form)")
    lines += ["", "| kernel | target | form | backend | pipeline | status | proof | synth s (search) | candidates "
              "| baseline s | s | speedup | C s | vs C | compile s |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("backend"):
            lines.append(f"| {r['kernel']} | {r['target']} | {r.get('form') or ''} | {r['backend']} | "
                         f"{r.get('pipeline') or ''} | {r['status']} | "
                         f"{PROOF_WORDS.get(r.get('verification'), r.get('verification') or '')} | "
                         f"{_fmt(r.get('synth_seconds'))}{_share(r)} | "
                         f"{r.get('candidates') or ''} | "
                         f"{_spread(r, 'baseline_seconds', 'baseline_min', 'baseline_max')} | "
                         f"{_spread(r, 'seconds', 'seconds_min', 'seconds_max')} | {_fmt(r.get('speedup'))} | "
                         f"{_spread(r, 'cc_seconds', 'cc_min', 'cc_max')} | {_fmt(r.get('speedup_cc'))} | "
                         f"{_fmt(r.get('compile_seconds'), 1)} |")
    failed = [r for r in rows if not r.get("backend") or r["status"] not in ("ok",)]
    if failed:
        lines += ["", "## Not raised or not timed", "",
                  "| kernel | target | backend | status | pipeline | fallback_reason | reason |",
                  "|---|---|---|---|---|---|---|"]
        for r in failed:
            reason, why = ((r.get(k) or "").replace("|", "/").replace("\n", " ") for k in ("reason", "fallback_reason"))
            lines.append(f"| {r['kernel']} | {r['target']} | {r.get('backend') or ''} | {r['status']} | "
                         f"{r.get('pipeline') or ''} | {why} | {reason} |")
    (out_dir / "report.md").write_text("\n".join(lines) + "\n")
    _plot(best, out_dir / "speedup.png", summary)
    return summary


def compile_lines(rows: list[dict], summary: dict) -> list[str]:
    """Report lines on each backend's compile times (prepare and first-call compile, per
    kernel x target): the slowest, and for mlir-cpu the raises over COMPILE_BUDGET."""
    lines = []
    for backend in sorted({r["backend"] for r in rows if r.get("compile_seconds") is not None}):
        timed = [r for r in rows if r.get("backend") == backend and r.get("compile_seconds") is not None]
        worst = max(timed, key=lambda r: r["compile_seconds"])
        over = [f"{r['kernel']} {r['target']} ({r['compile_seconds']:.0f} s)" for r in timed
                if r["compile_seconds"] > COMPILE_BUDGET]
        summary[f"compile_max_{backend}"] = worst["compile_seconds"]
        text = (f"- compile time on {backend}: at most {worst['compile_seconds']:.1f} s ({worst['kernel']} "
                f"{worst['target']}) over {len(timed)} raises")
        if backend == "mlir-cpu":
            summary["compile_over_budget"] = len(over)
            text += (f"; over {COMPILE_BUDGET:.0f} s: " + (", ".join(over) if over else "none"))
        lines.append(text + " (column compile s)")
    return lines


def _sec(v) -> str:
    return "" if v is None else f"{v:.3g}"


def _spread(r: dict, median: str, low: str, high: str) -> str:
    """`0.108 (0.105 to 0.112)`: a median and the range of its samples (where recorded)."""
    if r.get(median) is None:
        return ""
    if r.get(low) is None or r.get(high) is None:
        return _sec(r[median])
    return f"{_sec(r[median])} ({_sec(r[low])} to {_sec(r[high])})"


def _fmt(v, digits=2) -> str:
    return "" if v is None else f"{v:.{digits}f}" if isinstance(v, float) else str(v)


TARGET_COLORS = {"stablehlo": "tab:blue", "linalg": "tab:orange"}


def plot_bars(best: dict) -> list[dict]:
    """What speedup.png draws: one bar per kernel x target (best backend), in order."""
    return [{"label": f"{k}\n{t}", "kernel": k, "target": t, "speedup": r["speedup"],
             "backend": r["backend"], "color": TARGET_COLORS.get(t, "tab:gray"),
             "text": f"{r['speedup']:.1f}x\n{r['backend']}"} for (k, t), r in sorted(best.items())]


def _plot(best: dict, path: Path, summary: dict) -> None:
    """Bars from the 1x line on a log axis (slowdowns hang below it), labelled with the
    speedup and the backend that won; a legend entry per target and the geomean."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    bars = plot_bars(best)
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(bars) + 2) + 2.5, 5))
    if bars:
        xs = range(len(bars))
        values = [b["speedup"] for b in bars]
        ax.set_yscale("log")
        ax.bar(xs, [v - 1.0 for v in values], bottom=1.0, color=[b["color"] for b in bars])
        for x, b in zip(xs, bars):
            above = b["speedup"] >= 1.0
            ax.annotate(b["text"], (x, b["speedup"]), xytext=(0, 3 if above else -3),
                        textcoords="offset points", ha="center", va="bottom" if above else "top",
                        fontsize=6)
        ax.set_xticks(list(xs), [b["label"] for b in bars], rotation=60, ha="right", fontsize=7)
        low, high = min(values + [1.0]), max(values + [1.0])
        ax.set_ylim(low / 2, high * 3)
        ax.axhline(1.0, color="black", linewidth=1.0)
        handles = [Patch(color=c, label=t) for t, c in TARGET_COLORS.items()
                   if any(b["target"] == t for b in bars)]
        handles.append(plt.Line2D([], [], color="black", linewidth=1.0, label="1x (the original loops)"))
        if summary.get("geomean_best"):
            ax.axhline(summary["geomean_best"], color="green", linestyle="--")
            handles.append(plt.Line2D([], [], color="green", linestyle="--",
                                      label=f"geomean {summary['geomean_best']:.2f}x"))
        ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_ylabel("speedup over affine -O3 (best backend, log scale)")
    ax.set_title("synth: raised kernels vs original loops")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


