#!/usr/bin/env python3
"""Run shape-generic stablehlo raises on IREE (iree-llvm-cpu) compiled as they are, with
dynamic shapes (synth.backends.iree_dynamic), against the original loops at two size
configurations (scripts/generic_sizes.py's first two: small odd sizes, then rotated).

    python scripts/iree_generic.py RAISED_DIR [KERNEL ...] [--corpus benchmarks/polybench]

RAISED_DIR holds KERNEL.mlir, each `synth raise --shapes generic --target stablehlo` of
the corpus' KERNEL.mlir. Per kernel it prints whether IREE compiled the generic text, the
first line of its error if not, and the largest difference from the loops at each
configuration. Exit 1 when any compiled raise differs from the loops.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))


def check(corpus: Path, raised: Path, first: int | None = None, per_shape: bool = False) -> dict:
    from generic_sizes import configs, first_wrong
    from synth.analysis.function import list_functions
    from synth.analysis.model import load_kernel
    from synth.backends.iree import IreeBackend
    from synth.errors import ExecutionError
    from synth.execution import run_function
    from synth.frontend.reader import load_input
    from synth.semantics.specialize import generic_signature
    from synth.synthesis.spec import diagonally_dominant, random_draw
    from synth.validation.verify import constant_symbols

    source = load_input(next(corpus.glob(f"{raised.stem}.*")), warn=False)  # .mlir or .c
    name = list_functions(source)[0]
    text = raised.read_text()
    row = {"kernel": raised.stem}
    if not generic_signature(text, f"{name}_raised"):
        row["status"] = "static"
        return row
    kernel = load_kernel(source, name)
    try:
        prepared = IreeBackend("stablehlo", per_shape=per_shape).prepare(text, name)
    except (ExecutionError, ValueError) as e:
        row.update(status="no compile", reason=str(e)[:300])
        return row
    if getattr(prepared, "dynamic_error", None):
        row.update(status="per-shape", reason=prepared.dynamic_error[:300])
        return row
    rng = np.random.default_rng(11)
    row["configs"] = []
    pinned = constant_symbols(kernel)
    sizes = configs(kernel.sizes, pinned)[:2] if first is None else \
        [{**kernel.sizes.small_values(first, 4, rotate=r), **{n: kernel.sizes.original()[n] for n in pinned}}
         for r in (0, 1)]
    for values in sizes:
        args = diagonally_dominant(kernel.arguments(values, random_draw(rng)))
        original = kernel.at(values)
        want = run_function(original.text, name, [a.copy() if isinstance(a, np.ndarray) else a for a in args],
                            opt_level=2).outputs
        inputs = [a if isinstance(a, np.ndarray) else np.asarray(a[1], dtype=kernel.tensor_type(i, values).numpy_dtype)
                  for i, a in enumerate(args[: kernel.n_arguments])]
        try:
            got = prepared.run(inputs)
        except (ExecutionError, ValueError, RuntimeError, IndexError) as e:
            row["configs"].append((values, f"run failed: {str(e)[:200]}"))
            continue
        row["configs"].append((values, first_wrong(kernel.outputs, original, name, args, want, got, rng)))
    failed = any(str(d).startswith("run failed") for _, d in row["configs"])
    row["status"] = "run failed" if failed else "wrong" if any(d is not None for _, d in row["configs"]) else \
        "ok (per-shape)" if per_shape else "ok (dynamic)"
    if getattr(prepared, "dynamic_error", None):  # IREE's runtime failed it: per input shapes since
        row.update(status=row["status"].replace("dynamic", "per-shape after a failed run"),
                   reason=prepared.dynamic_error[:300])
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raised", type=Path)
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--corpus", type=Path, default=ROOT / "benchmarks/polybench")
    ap.add_argument("--first", type=int, help="sizes from this value up (small_values(FIRST, 4), then rotated) "
                    "instead of generic_sizes.py's configurations")
    ap.add_argument("--per-shape", action="store_true",
                    help="compile per input shapes instead (IREE's static path, the stage's static rewrite)")
    ap.add_argument("--without-stage", action="store_true",
                    help="compile the text as it is without synth.backends.iree_dynamic (what IREE takes alone)")
    args = ap.parse_args()
    if args.without_stage:
        from synth.backends import iree_dynamic

        iree_dynamic.lower = lambda text: (text, 0)
    files = [args.raised / f"{k}.mlir" for k in args.kernels] if args.kernels else sorted(args.raised.glob("*.mlir"))
    wrong = 0
    for f in files:
        row = check(args.corpus, f, args.first, args.per_shape)
        wrong += row["status"] == "wrong"
        detail = "; ".join(f"{v}: {'ok' if d is None else d}" for v, d in row.get("configs", []))
        detail = "  ".join(x for x in (detail, row.get("reason", "")) if x)
        print(f"{row['kernel']:16s} {row['status']:10s} {detail}", flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
