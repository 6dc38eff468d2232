"""Build the C corpus (benchmarks/c-libs) with `synth cc` and with `cc`, run both, compare.

For each file, a program is written: the file's text followed by a `main` that calls each
function of the manifest (benchmarks/c-libs/manifest.json: sizes, fixed integers, array
extents, value ranges) on seeded pseudo-random inputs and prints the return value and a
checksum (sum and index-weighted sum, in double) of every array. The program is built by
`cc -O2` and by `synth cc -O2` (same flags, `--report`), and their outputs are compared:
integers exactly, floats to a relative 1e-4 of the array's magnitude (raised sums are
reassociated). Prints one line per function (raised / kept, outputs equal or not) and a
summary; exit 1 when some output differs.

    python scripts/cc_check.py [FILES...] [--target linalg] [--timeout 30] [--jobs 2]
                               [--cache-dir DIR] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "c-libs"

_FLOAT = {"float", "double"}


def _element(t) -> str:
    """The scalar C type under pointers and arrays of a clang type."""
    from clang.cindex import TypeKind as TK

    t = t.get_canonical()
    while t.kind in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY):
        t = t.get_pointee() if t.kind == TK.POINTER else t.element_type
        t = t.get_canonical()
    return t.spelling.replace("const ", "").replace("volatile ", "").strip()


def harness(path: Path, cases: dict) -> str:
    """The file's text and a main calling each function of `cases`."""
    from clang.cindex import TypeKind as TK

    from synth.frontend.c.libclang import functions, parse_file

    tu = parse_file(str(path), "gnu11", [], [], [])
    funcs = {f.spelling: f for f in functions(tu, str(path))}
    out = [path.read_text(), "\n/* ---- cc_check harness ---- */",
           "int printf(const char *, ...); void *malloc(unsigned long); void free(void *);",
           "static unsigned long long cc_seed = 12345;",
           "static double cc_next(double lo, double hi) { cc_seed = cc_seed * 6364136223846793005ULL + 1442695040888963407ULL;"
           " return lo + (hi - lo) * (double)(cc_seed >> 11) / 9007199254740992.0; }",
           "int main(void) {"]
    for name, case in cases.items():
        f = funcs.get(name)
        if f is None or "refused" in case:
            continue
        sizes, ints = case.get("sizes", {}), case.get("ints", {})
        arrays, ranges = case.get("arrays", {}), case.get("ranges", {})
        body = [f"  {{ /* {name} */"]
        for k, v in {**sizes, **ints}.items():
            body.append(f"    long {k} = {v};")
        call, checks = [], []
        for p in f.get_arguments():
            pn, t = p.spelling, p.type.get_canonical()
            el = _element(p.type)
            if t.kind in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY):
                extent = arrays.get(pn, "1")
                lo, hi = ranges.get(pn, [-1.0, 1.0] if el in _FLOAT else [-100, 100])
                if el not in _FLOAT and ("unsigned" in el or el == "_Bool"):
                    lo = max(lo, 0)
                if el in ("unsigned char", "signed char", "char"):
                    lo, hi = (0, 255) if "unsigned" in el else (-100, 100)
                body.append(f"    long {pn}__n = (long)({extent});")
                body.append(f"    {el} *{pn} = malloc(sizeof({el}) * ({pn}__n + 1));")
                body.append(f"    for (long i = 0; i < {pn}__n; i++) {pn}[i] = ({el})"
                            f"{'cc_next' if el in _FLOAT else '(long)cc_next'}({lo}, {hi});")
                call.append(f"({p.type.spelling}){pn}" if t.kind == TK.POINTER else f"(void *){pn}")
                checks.append(pn)
            elif pn in sizes or pn in ints:
                call.append(pn)
            else:
                lo, hi = ranges.get(pn, [0.25, 0.75] if el in _FLOAT else [1, 5])
                body.append(f"    {el} {pn} = ({el}){'cc_next' if el in _FLOAT else '(long)cc_next'}({lo}, {hi});")
                call.append(pn)
        ret = f.result_type.get_canonical().spelling
        if ret == "void":
            body.append(f"    {name}({', '.join(call)});")
        else:
            body.append(f"    double ret = (double){name}({', '.join(call)});")
            body.append(f'    printf("{name} return %.17g\\n", ret);')
        for pn in checks:
            body.append(f"    {{ double cc__s = 0, cc__w = 0, cc__m = 0; for (long cc__i = 0; cc__i < {pn}__n; cc__i++) {{ double cc__v = (double){pn}[cc__i];"
                        f" cc__s += cc__v; cc__w += cc__v * (double)(cc__i % 97 + 1); cc__m += cc__v < 0 ? -cc__v : cc__v; }}")
            body.append(f'      printf("{name} {pn} %.17g %.17g %.17g\\n", cc__s, cc__w, cc__m); free({pn}); }}')
        body.append("  }")
        out += body
    out += ["  return 0;", "}", ""]
    return "\n".join(out)


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def _compare(a: str, b: str) -> list[str]:
    """Lines of `a` (cc) and `b` (synth cc) that differ beyond the tolerance."""
    bad = []
    la, lb = a.splitlines(), b.splitlines()
    if len(la) != len(lb):
        return [f"{len(la)} lines vs {len(lb)}"]
    for x, y in zip(la, lb):
        xs, ys = x.split(), y.split()
        if xs[:2] != ys[:2]:
            bad.append(f"{x} | {y}")
            continue
        vx, vy = [float(v) for v in xs[2:]], [float(v) for v in ys[2:]]
        scale = max([abs(v) for v in vx] + [1e-30])
        if any(not (p == q or (math.isnan(p) and math.isnan(q)) or abs(p - q) <= 1e-4 * scale)
               for p, q in zip(vx, vy)):
            bad.append(f"{x} | {y}")
    return bad


def check_file(path: Path, cases: dict, work: Path, args) -> dict:
    prog = work / f"{path.stem}_main.c"
    prog.write_text(harness(path, cases))
    flags = ["-O2", "-lm"]
    t0 = time.monotonic()
    r = _run(["cc", str(prog), *flags, "-o", str(work / f"{path.stem}_cc")])
    cc_s = time.monotonic() - t0
    if r.returncode:
        return {"file": path.name, "error": "cc: " + r.stderr[-500:]}
    report = work / f"{path.stem}.json"
    synth = [sys.executable, "-c", "import sys; from synth.cli import main; sys.exit(main())", "cc"]
    t0 = time.monotonic()
    r = _run([*synth, str(prog), *flags, "-o", str(work / f"{path.stem}_synth"), "--report", str(report),
              "--target", args.target, "--timeout", str(args.timeout), "--jobs", str(args.jobs),
              *(["--cache-dir", args.cache_dir] if args.cache_dir else [])])
    synth_s = time.monotonic() - t0
    sys.stderr.write(r.stderr)
    if r.returncode:
        return {"file": path.name, "error": f"synth cc exit {r.returncode}: " + r.stderr[-800:]}
    out_cc = _run([str(work / f"{path.stem}_cc")], timeout=120).stdout
    out_synth = _run([str(work / f"{path.stem}_synth")], timeout=120).stdout
    entries = json.loads(report.read_text())["functions"]
    raised = [e["function"] for e in entries if e["status"] == "raised"]
    return {"file": path.name, "functions": len(entries), "raised": raised,
            "kept": {e["function"]: e["reason"][:120] for e in entries if e["status"] != "raised"},
            "differ": _compare(out_cc, out_synth), "lines": len(out_cc.splitlines()),
            "cc_seconds": round(cc_s, 2), "synth_cc_seconds": round(synth_s, 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="files of benchmarks/c-libs (none: all in the manifest)")
    ap.add_argument("--target", default="linalg")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache-dir")
    ap.add_argument("--keep", help="write the programs and binaries here")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    names = args.files or [k for k in manifest if not k.startswith("_") and k != "refused.c"]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cc-check-"))
    work.mkdir(parents=True, exist_ok=True)
    results, failed = [], False
    for name in names:
        res = check_file(CORPUS / Path(name).name, manifest[Path(name).name], work, args)
        results.append(res)
        if "error" in res:
            print(f"{res['file']}: ERROR {res['error']}")
            failed = True
            continue
        status = "outputs equal" if not res["differ"] else f"{len(res['differ'])} outputs DIFFER"
        print(f"{res['file']}: {len(res['raised'])}/{res['functions']} raised, {status} ({res['lines']} lines); "
              f"cc {res['cc_seconds']} s, synth cc {res['synth_cc_seconds']} s")
        for d in res["differ"]:
            print(f"    {d}")
        failed |= bool(res["differ"])
    total = sum(len(r.get("raised", ())) for r in results)
    print(f"{total} functions raised in {len(results)} files; {'some outputs differ' if failed else 'every output equal'}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
