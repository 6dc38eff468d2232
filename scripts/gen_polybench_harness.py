#!/usr/bin/env python3
"""Write the main programs of the PolyBench-style harness: one
`benchmarks/polybench-c/harness/NAME_main.c` per kernel file `benchmarks/polybench-c/NAME.c`.

    python scripts/gen_polybench_harness.py            # (re)write the 30 main programs
    python scripts/gen_polybench_harness.py --check    # exit 1 if one differs from its file

Each main program is read off its kernel file: the dataset block (`#if !defined(N) ...`)
is copied so that both translation units agree on the extents, the kernel's signature is
copied as its prototype, and the kernel's parameters give the allocation (`int` sizes,
`DATA_TYPE` scalars, `POLYBENCH_nD` arrays). The arrays the kernel writes (an array name
subscripted on the left of an assignment in its body) are the ones dumped under
-DPOLYBENCH_DUMP_ARRAYS. The kernel function itself stays in its own file, untouched.

Initialisation: every array is filled with deterministic pseudo-random values (uniform in
[0, 1), integer arithmetic only, so that every compiler sees the same inputs); the kernels
whose numerics need more get a short preparation (`PREP` below), the conditions of
`tests/polybench_reference`: a symmetric diagonally dominant matrix for cholesky,
diagonally dominant ones for lu / ludcmp / trisolv, a stable recursion for durbin,
`n = min(m, n)` columns for gramschmidt (with m < n, the columns beyond the m-th are
linearly dependent and their values are rounding noise), integer paths and bases for
floyd-warshall and nussinov.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DIR = ROOT / "benchmarks" / "polybench-c"
HARNESS_DIR = KERNEL_DIR / "harness"

# scalar parameters (C expressions, evaluated after the sizes are set)
SCALARS = {
    "alpha": "SCALAR_VAL(1.5)",
    "beta": "SCALAR_VAL(1.2)",
    "float_n": "(DATA_TYPE)n",
}
SCALARS_BY_KERNEL = {"deriche": {"alpha": "SCALAR_VAL(0.25)"}}

# run-time sizes other than the dataset's (C expressions of the dataset macros)
SIZE_OVERRIDES = {"gramschmidt": {"n": "(M < N ? M : N)"}}

# preparation after the pseudo-random fill (C statements; i, j are declared ints)
PREP = {
    "cholesky": """\
  /* symmetric, strictly diagonally dominant with a positive diagonal: positive definite */
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++)
      A[j][i] = A[i][j];
    A[i][i] += (DATA_TYPE)n;
  }""",
    "lu": """\
  for (i = 0; i < n; i++)
    A[i][i] += (DATA_TYPE)n;""",
    "ludcmp": """\
  for (i = 0; i < n; i++)
    A[i][i] += (DATA_TYPE)n;""",
    "trisolv": """\
  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      L[i][j] /= (DATA_TYPE)n;
    L[i][i] += SCALAR_VAL(1.0);
  }""",
    "durbin": """\
  /* sum |r| < 1: |alpha| < 1 at every step */
  for (i = 0; i < n; i++)
    r[i] *= SCALAR_VAL(0.9) / (DATA_TYPE)n;""",
    "gramschmidt": """\
  for (i = 0; i < n; i++)
    A[i][i] += SCALAR_VAL(2.0);""",
    "floyd-warshall": """\
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      path[i][j] = harness_rand_int(1, 99);""",
    "nussinov": """\
  for (i = 0; i < n; i++)
    seq[i] = harness_rand_int(0, 3);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = harness_rand_int(0, 2);""",
}


@dataclass
class Param:
    kind: str  # "size", "scalar" or "array"
    name: str
    dims: tuple[str, ...] = ()


@dataclass
class Kernel:
    name: str  # file stem: fdtd-2d
    func: str  # kernel_fdtd_2d
    is_int: bool
    sizes_block: str
    signature: str
    params: list[Param]
    written: list[str]


def _split_params(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_kernel(path: Path) -> Kernel:
    src = path.read_text()
    name = path.stem
    func = "kernel_" + name.replace("-", "_")
    sig = re.search(r"^void\s+" + func + r"\s*\((.*?)\)\s*\{", src, re.S | re.M)
    if sig is None:
        raise SystemExit(f"{path}: no `void {func}(...)` definition")
    block = re.search(r"^#if !defined\(.*?^#endif\s*$\n(?=\s*(?:/\*|#define|void))", src, re.S | re.M)
    if block is None:
        raise SystemExit(f"{path}: no dataset block (`#if !defined(...)` ... `#endif`)")
    params = []
    for p in _split_params(sig.group(1)):
        m = re.fullmatch(r"DATA_TYPE\s+POLYBENCH_(\d)D\((.*)\)", p, re.S)
        if m:
            args = [a.strip() for a in m.group(2).split(",")]
            nd = int(m.group(1))
            params.append(Param("array", args[0], tuple(args[1:1 + nd])))
        elif p.startswith("int "):
            params.append(Param("size", p.split()[1]))
        elif p.startswith("DATA_TYPE "):
            params.append(Param("scalar", p.split()[1]))
        else:
            raise SystemExit(f"{path}: parameter `{p}` not understood")
    body = src[sig.end():]
    arrays = [p.name for p in params if p.kind == "array"]
    written = []
    for a in arrays:
        if re.search(r"\b" + re.escape(a) + r"\s*(\[[^\]]*\]\s*)+([-+*/]?=)(?!=)", body):
            written.append(a)
    return Kernel(name, func, "#define DATA_TYPE_IS_INT" in src, block.group(0).rstrip(),
                  src[sig.start():sig.end() - 1].rstrip(), params, written)


def _decl(p: Param) -> str:
    rest = "".join(f"[{d}]" for d in p.dims[1:])
    if rest:
        return f"DATA_TYPE (*{p.name}){rest}"
    return f"DATA_TYPE *{p.name}"


def render(k: Kernel) -> str:
    sizes = [p for p in k.params if p.kind == "size"]
    scalars = [p for p in k.params if p.kind == "scalar"]
    arrays = [p for p in k.params if p.kind == "array"]
    overrides = SIZE_OVERRIDES.get(k.name, {})
    scalar_vals = {**SCALARS, **SCALARS_BY_KERNEL.get(k.name, {})}
    L = []
    L.append(f"/* {k.name}_main.c: the harness of {k.func} (benchmarks/polybench-c/{k.name}.c).")
    L.append(" * Generated by scripts/gen_polybench_harness.py; edit the generator, not this file.")
    L.append(" * Build: cc -O3 -I benchmarks/polybench-c -I benchmarks/polybench-c/harness \\")
    L.append(f" *   -DMINI_DATASET benchmarks/polybench-c/{k.name}.c \\")
    L.append(f" *   benchmarks/polybench-c/harness/{k.name}_main.c \\")
    L.append(" *   benchmarks/polybench-c/harness/harness.c -lm")
    L.append(" * (-DPOLYBENCH_DUMP_ARRAYS on this file prints the arrays the kernel writes). */")
    L.append("")
    if k.is_int:
        L.append("#define DATA_TYPE_IS_INT")
        L.append("")
    L.append("#include <stdlib.h>")
    L.append("")
    L.append('#include "polybench.h"')
    L.append('#include "harness.h"')
    L.append("")
    L.append("/* the kernel file's dataset block, copied */")
    L.append(k.sizes_block)
    L.append("")
    L.append("#if defined(DATA_TYPE_IS_INT)")
    L.append("#  define HARNESS_FILL(a, count) harness_fill_int((int *)(a), (count), 0, 99)")
    L.append("#  define HARNESS_DUMP(name, a, nd, dims) harness_dump_int((name), (const int *)(a), (nd), (dims))")
    L.append("#elif defined(DATA_TYPE_IS_FLOAT)")
    L.append("#  define HARNESS_FILL(a, count) harness_fill_float((float *)(a), (count))")
    L.append("#  define HARNESS_DUMP(name, a, nd, dims) harness_dump_float((name), (const float *)(a), (nd), (dims))")
    L.append("#else")
    L.append("#  define HARNESS_FILL(a, count) harness_fill_double((double *)(a), (count))")
    L.append("#  define HARNESS_DUMP(name, a, nd, dims) harness_dump_double((name), (const double *)(a), (nd), (dims))")
    L.append("#endif")
    L.append("")
    L.append("/* the kernel, defined in its own translation unit */")
    L.append(k.signature + ";")
    L.append("")
    # init
    init_params = [f"int {p.name}" for p in sizes] + [f"DATA_TYPE *{p.name}" for p in scalars]
    init_params += [_decl(p) for p in arrays]
    L.append("static void init_array(" + ", ".join(init_params) + ")")
    L.append("{")
    L.append("  int i, j;")
    L.append("  (void)i; (void)j;")
    for p in sizes:
        L.append(f"  (void){p.name};")
    for p in scalars:
        L.append(f"  *{p.name} = {scalar_vals[p.name]};")
    L.append("  harness_seed(42);")
    for p in arrays:
        count = " * ".join(f"(size_t){d}" for d in p.dims)
        L.append(f"  HARNESS_FILL({p.name}, {count});")
    if k.name in PREP:
        L.append(PREP[k.name])
    L.append("}")
    L.append("")
    # main
    L.append("int main(void)")
    L.append("{")
    for p in sizes:
        L.append(f"  int {p.name} = {overrides.get(p.name, p.name.upper())};")
    for p in scalars:
        L.append(f"  DATA_TYPE {p.name};")
    for p in arrays:
        size = "".join(f"[{d}]" for d in p.dims)
        L.append(f"  {_decl(p)} = harness_alloc(sizeof(DATA_TYPE{size}));")
    L.append("")
    args = [p.name for p in sizes] + ["&" + p.name for p in scalars] + [p.name for p in arrays]
    L.append(f"  init_array({', '.join(args)});")
    L.append("  harness_flush_cache();")
    L.append("")
    L.append("  harness_timer_start();")
    L.append(f"  {k.func}({', '.join(p.name for p in k.params)});")
    L.append(f'  harness_timer_stop("{k.func}");')
    L.append("")
    L.append("#ifdef POLYBENCH_DUMP_ARRAYS")
    L.append("  harness_dump_begin();")
    for a in k.written:
        p = next(q for q in arrays if q.name == a)
        dims = ", ".join(p.dims)
        L.append("  {")
        L.append(f"    static const int dims[{len(p.dims)}] = {{{dims}}};")
        L.append(f'    HARNESS_DUMP("{a}", {a}, {len(p.dims)}, dims);')
        L.append("  }")
    L.append("  harness_dump_end();")
    L.append("#endif")
    L.append("")
    for p in arrays:
        L.append(f"  free({p.name});")
    L.append("  return 0;")
    L.append("}")
    return "\n".join(L) + "\n"


def kernels() -> list[Kernel]:
    return [parse_kernel(p) for p in sorted(KERNEL_DIR.glob("*.c"))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when a main program differs from what would be written")
    args = ap.parse_args(argv)
    stale = []
    for k in kernels():
        out = HARNESS_DIR / f"{k.name}_main.c"
        text = render(k)
        if args.check:
            if not out.exists() or out.read_text() != text:
                stale.append(out)
        else:
            out.write_text(text)
            print(f"{out.relative_to(ROOT)}: dumps {', '.join(k.written)}")
    if stale:
        for s in stale:
            print(f"{s.relative_to(ROOT)}: out of date (run scripts/gen_polybench_harness.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
