"""Regenerate the inputs of the passes' lit tests (tests/lit/passes/inputs) from fresh raises.

For each case (a pass, and a PolyBench kernel raised at a small dataset on which the pass
rewrites something) the kernel is resized and raised afresh (`synth resize`, `synth raise
--shapes static`), prepared as the mlir-cpu backend prepares it (library ops lowered,
stablehlo to linalg, row pairs fused), and run through the steps of mlir-cpu's tiled
pipeline before the pass (in this process); the module at that point is the pass's input.
The lit file tests/lit/passes/<pass>.mlir runs `synth opt --pass <pass>` on it. So a change
upstream (the grammar, the raise, the lowering, an earlier pass) that stops a pass firing
shows as a changed input (`--check`, tests/test_pass_inputs.py) and a failing lit test.
Two passes rewrite only synth cc's drop-in (its in-out arguments): their inputs are taken
in synth cc's lowering of the raise's output module (DROPIN_CASES).

The steps before a pass read the host (the register and cache tiles of the tile-and-vectorize
step, the wavefront's window): the inputs are made for one reference host profile, the one
synth.backends.host assumes where it cannot read the host (AVX2, not Intel, 1 MB of L2,
32 MB of L3), so they are the same on every machine. The passes themselves do not read the
host; a lit test of a pass whose own output depends on it (the wavefront) checks its form.

    python scripts/regen_pass_inputs.py            # rewrite the inputs
    python scripts/regen_pass_inputs.py --check    # exit 1 if any differs from a fresh one
    python scripts/regen_pass_inputs.py --survey mini  # rewrites per pass per kernel
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ROOT / "tests" / "lit" / "passes" / "inputs"
POLYBENCH = ROOT / "benchmarks" / "polybench"

# pass -> (kernel, target, dataset): a fresh raise on which the pass rewrites something
CASES = {  # chosen from `--survey mini` (the rewrites each pass makes on each kernel)
    "synth-slice-selects": ("durbin", "linalg", "mini"),
    "synth-narrow-producers": ("durbin", "stablehlo", "mini"),
    "synth-triangular-blocks": ("syrk", "linalg", "small"),
    "synth-hoist-flips": ("durbin", "stablehlo", "mini"),
    "synth-fuse-producers": ("gemver", "linalg", "mini"),
    "synth-pivot-blocks": ("floyd-warshall", "linalg", "mini"),
    "synth-wavefront": ("jacobi-2d", "linalg", "mini"),
    "synth-hyperplane-bands": ("seidel-2d", "linalg", "mini"),  # the sweep over hyperplanes 2i + j
    "synth-lane-slices": ("adi", "linalg", "mini"),  # from C (C_TWINS)
    "synth-lane-blocks": ("deriche", "linalg", "small"),  # from C (C_TWINS); at mini the raise crashes
    "synth-write-in-place": ("lu", "linalg", "mini"),
    "synth-shift-reuse": ("jacobi-1d", "linalg", "mini"),
    "synth-reverse-in-place": ("durbin", "linalg", "mini"),
    "synth-copies-as-loops": ("cholesky", "linalg", "mini"),
    "synth-bools-as-bytes": ("gramschmidt", "stablehlo", "mini"),  # lu's masks left with its LU loop
    "synth-library-loops": ("ludcmp", "stablehlo", "medium"),  # n = 400: panels of 200, not one
    "synth-payload-cse": ("syrk", "linalg", "mini"),  # the scale's and the update's masks, fused
    "synth-broadcasts-per-use": ("symm", "linalg", "mini"),  # alpha broadcast for two products
    "synth-solve-loops": ("lu", "stablehlo", "mini"),  # the blocked LU's diagonal blocks, 20 right-hand sides
    "synth-gather-clamps": ("nussinov", "stablehlo", "mini"),  # the diagonals' reads of the flattened table
}
# kernels raised from their C twin (benchmarks/polybench-c): deriche's affine file keeps its
# sweeps' scalars in memrefs the static raise does not interchange
C_TWINS = {"deriche": ROOT / "benchmarks" / "polybench-c" / "deriche.c",
           "adi": ROOT / "benchmarks" / "polybench-c" / "adi.c"}
# generic cases: (pass, kernel, target, dataset raised at, argument shapes). The kernel is
# raised with `--shapes generic` (one raise for every size) and made static at the shapes,
# as the mlir-cpu backend does at each call's shapes (registry.PerShape): sizes the lane
# blocks (16) do not divide, so the blocks leave remainders. The input file is named
# <pass>.<kernel>.<target>-generic.mlir.
_DERICHE_37x21 = ((), (), (), (37, 21), (37, 21), (37, 21), (37, 21))  # w, h, alpha, imgIn, imgOut, y1, y2
GENERIC_CASES = (
    ("synth-static-iter-args", "deriche", "linalg", "small", _DERICHE_37x21),  # the sweeps' state vectors
    ("synth-lane-blocks", "deriche", "stablehlo", "small", _DERICHE_37x21),  # the columns read by gathers
    ("synth-lane-blocks", "adi", "linalg", "mini", ((), (), (37, 37), (37, 37), (37, 37), (37, 37))),
    # the LU and the solves, read through the generic raise's dynamic types: panels of 32 at n = 64
    ("synth-library-loops", "ludcmp", "linalg", "mini", ((), (64, 64), (64,), (64,), (64,))),  # n, A, b, x, y
)
# synth cc's cases: (pass, kernel, target, dataset): the passes that rewrite only what synth
# cc's drop-in holds (the raise's memref function, its in-out arguments read by to_tensor and
# written back by materialize_in_destination), which synth bench's raised tensor functions
# never do. The raise's output module is lowered as synth cc's "tiled-safe" lowering does
# (synth.driver.native: results copied, calls inlined, the tiled pipeline with every pass);
# the input file is named <pass>.<kernel>.<target>-dropin.mlir.
DROPIN_CASES = (
    ("synth-one-view-per-buffer", "doitgen", "linalg", "mini"),  # A read, then computed in place
    ("synth-writable-in-out", "floyd-warshall", "linalg", "mini"),  # paths updated in place per step
)
DROPIN_LOWERING = "tiled-safe"
# synth-distinct-results and synth-distinct-result-buffers have no case: no PolyBench raise
# (either target; static or generic made static in synth bench's pipeline, static in synth
# cc's lowering) returns one value at two positions (see their lit files); their inputs are
# hand-written only.
# synth-reads-first has no case: since adi's edge statements are read off as written (each
# inserted into the edge's previous value), no fresh raise reads after it updates; its input
# is kept in inputs/frozen/ (not regenerated, not checked for staleness)
LOWERINGS = {"synth-library-loops"}  # run before the pipeline: the input is the module before them
# the IREE backend's stablehlo lowerings (passes.STABLEHLO_LOWERINGS): the input is the raised
# function as IreeBackend._compile has it just before the lowering (library ops blocked)
IREE_LOWERINGS = {"synth-solve-loops", "synth-gather-clamps"}


# the attributes of a raised function that document its validation
NOTES = ("synth.all_sizes", "synth.assumptions", "synth.proof", "synth.sizes_proven", "synth.validation")


def _drop_notes(module) -> None:
    """The raise's notes on its proof taken off `module`'s functions: no pass reads them, and
    they vary from run to run (the sizes Z3 reports)."""
    for op in module.body.operations:
        for note in NOTES:
            if note in op.attributes:
                del op.attributes[note]


def reference_host() -> None:
    """Make the pipeline's host-dependent choices those of synth.backends.host's fallback
    profile (AVX2, not Intel, its default cache sizes), for this process."""
    from synth.backends import host, wavefront

    # the tiles are host's (mlir_cpu reads host.cache_tile and host.register_tile), which
    # read host.has_avx512 and host.intel: patched there, or an AVX-512 host's tiles leak in
    host.has_avx512 = lambda: False
    host.intel = lambda: False
    host.cache_tile.cache_clear()
    host.register_tile.cache_clear()
    wavefront.cache_bytes = lambda level: host._DEFAULT_CACHE[level]


def raised(kernel: str, target: str, dataset: str, work: Path, shapes: str = "static") -> tuple[str, str]:
    """(raised module text, function name) of a fresh raise of the PolyBench kernel
    (`shapes`: synth raise's --shapes)."""
    from synth.cli import main

    import contextlib

    resized, out = f"{kernel}.{dataset}.mlir", work / f"{kernel}.{dataset}.{target}.{shapes}.mlir"
    if not out.exists():
        with contextlib.chdir(work):  # locations in the raise's notes name the file without a temporary dir
            if kernel in C_TWINS:
                source = [str(C_TWINS[kernel]), "--cflags", f"-D{dataset.upper()}_DATASET"]
            elif main(["resize", str(POLYBENCH / f"{kernel}.mlir"), "--dataset", dataset, "-o", resized]) != 0:
                raise SystemExit(f"resizing {kernel} failed")
            else:
                source = [resized]
            if main(["raise", *source, "--target", target, "--shapes", shapes, "-q", "-o", str(out)]) != 0:
                raise SystemExit(f"raising {kernel} to {target} failed")
    return out.read_text(), "kernel_" + kernel.replace("-", "_")


def prepared(text: str, function: str, target: str):
    """The mlir-cpu backend's prepared function (its text and pipeline)."""
    from synth.backends.mlir_cpu import MlirCpuBackend

    return MlirCpuBackend(target=target).prepare(text, function)


def states(text: str, pipeline) -> dict[str, tuple[str, int]]:
    """Per Python pass: (the module just before it, rewrites it made)."""
    from mlir import ir

    from synth.execution import run_step

    found = {}
    with ir.Context():
        module = ir.Module.parse(text)
        _drop_notes(module)
        for step in pipeline:
            if step.name == "lower-to-llvm":
                break
            before = str(module) if step.kind == "python" else None
            made = run_step(module, step)
            if step.kind == "python":
                found[step.name] = (before, made)
    return found


def lowering_input(text: str, function: str, target: str, name: str) -> tuple[str, int]:
    """(the module a lowering run before the pipeline sees: the raised function, stablehlo
    lowered to linalg; the rewrites it makes there)."""
    from mlir import ir

    from synth.backends.passes import get
    from synth.backends.registry import raised_function
    from synth.backends.stablehlo_linalg import to_linalg

    module_text = raised_function(text, function).module()
    if target == "stablehlo":
        module_text = to_linalg(module_text)
    with ir.Context():
        module = ir.Module.parse(module_text)
        _drop_notes(module)
        before = str(module)
        return before, get(name).apply(module)


def iree_input(text: str, function: str, name: str) -> tuple[str, int]:
    """(the stablehlo module the IREE backend's lowering `name` sees: the raised function,
    its library ops blocked, the lowerings before `name` run; the rewrites it makes there)."""
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    from synth.backends import library_stablehlo
    from synth.backends.passes import STABLEHLO_LOWERINGS, get
    from synth.backends.registry import raised_function

    module_text, _ = library_stablehlo.lower(raised_function(text, function).module())
    for earlier in STABLEHLO_LOWERINGS[:[p.name for p in STABLEHLO_LOWERINGS].index(name)]:
        module_text, _ = earlier.apply_text(module_text)  # IreeBackend._compile's order
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(module_text)
        _drop_notes(module)
        before = str(module)
    return before, get(name).apply_text(before)[1]


def regenerate(work: Path) -> dict[Path, str]:
    """The input files, by path, from fresh raises."""
    reference_host()
    files = {}
    for name, (kernel, target, dataset) in CASES.items():
        text, function = raised(kernel, target, dataset, work)
        if name in LOWERINGS:
            before, made = lowering_input(text, function, target, name)
        elif name in IREE_LOWERINGS:
            before, made = iree_input(text, function, name)
        else:
            prep = prepared(text, function, target)
            before, made = states(prep.text, prep.pipeline)[name]
        if made == 0:
            raise SystemExit(f"{name} makes no rewrite on {kernel} ({target}, {dataset}): pick another case")
        where = ("stablehlo lowered to linalg, before mlir-cpu's lowerings" if name in LOWERINGS else
                 "its library ops blocked (synth.backends.library_stablehlo), as IREE's backend has it before\n"
                 f"// {name}" if name in IREE_LOWERINGS else
                 f"prepared by mlir-cpu, after the\n// tiled pipeline's steps before {name}")
        header = (f"// {name}'s input: {kernel} ({dataset}) raised to {target}, {where}. Generated by "
                  f"scripts/regen_pass_inputs.py.\n")
        files[INPUTS / f"{name.removeprefix('synth-')}.{kernel}.{target}.mlir"] = header + before
    for name, kernel, target, dataset in DROPIN_CASES:
        before, made = dropin_input(name, kernel, target, dataset, work)
        if made == 0:
            raise SystemExit(f"{name} makes no rewrite on {kernel}'s drop-in ({target}, {dataset}): pick another case")
        header = (f"// {name}'s input: the drop-in of {kernel} ({dataset}) raised to {target}, lowered as synth cc's "
                  f"{DROPIN_LOWERING} lowering does,\n// after its steps before {name}. Generated by "
                  f"scripts/regen_pass_inputs.py.\n")
        files[INPUTS / f"{name.removeprefix('synth-')}.{kernel}.{target}-dropin.mlir"] = header + before
    for name, kernel, target, dataset, shapes in GENERIC_CASES:
        before, made = generic_input(name, kernel, target, dataset, shapes, work)
        if made == 0:
            raise SystemExit(f"{name} makes no rewrite on {kernel} ({target} generic at {shapes}): pick another case")
        sizes = "x".join(str(n) for n in next(s for s in shapes if s))
        where = (("stablehlo lowered to linalg, " if target == "stablehlo" else "") + "before mlir-cpu's\n// lowerings"
                 if name in LOWERINGS else
                 f"prepared by mlir-cpu, after the\n// tiled pipeline's steps before {name}")
        header = (f"// {name}'s input: {kernel} raised to {target} with --shapes generic, made static at "
                  f"{sizes} as mlir-cpu does per call's shapes, {where}. Generated by scripts/regen_pass_inputs.py.\n")
        files[INPUTS / f"{name.removeprefix('synth-')}.{kernel}.{target}-generic.mlir"] = header + before
    return files


def dropin_input(name: str, kernel: str, target: str, dataset: str, work: Path) -> tuple[str, int]:
    """(the module pass `name` sees in synth cc's lowering of the kernel's drop-in, the
    rewrites it makes there): synth.driver.native's worker, in this process."""
    from mlir import ir

    from synth.driver import native

    text, function = raised(kernel, target, dataset, work)
    if target == "stablehlo":
        text = native._split_stablehlo(text, function)
    text, pipeline = native._lowering(native.copy_results(text, function), DROPIN_LOWERING)
    with ir.Context():
        module = ir.Module.parse(text)
        native._rename(module, function, "__synth")  # as the worker names the drop-in's functions
        text = str(module)
    return states(text, pipeline)[name]


def generic_input(name: str, kernel: str, target: str, dataset: str, shapes: tuple, work: Path) -> tuple[str, int]:
    """(the module pass `name` sees in mlir-cpu's pipeline on the kernel's generic raise made
    static at `shapes`, the rewrites it makes there)."""
    from synth.backends.registry import generic_entry
    from synth.semantics.specialize import specialized_module

    text, function = raised(kernel, target, dataset, work, shapes="generic")
    entry = generic_entry(text, function)
    if entry is None:
        raise SystemExit(f"the generic raise of {kernel} ({target}) is not shape-generic")
    static = specialized_module(text, entry, list(shapes))
    if name in LOWERINGS:
        return lowering_input(static, function, target, name)
    prep = prepared(static, function, target)
    return states(prep.text, prep.pipeline)[name]


def survey(dataset: str, work: Path) -> None:
    """Print the rewrites each pass makes on each PolyBench kernel raised at `dataset`."""
    from synth.backends.passes import PASSES

    names = [p.name for p in PASSES]
    print("| kernel | target | " + " | ".join(n.removeprefix("synth-") for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for path in sorted(POLYBENCH.glob("*.mlir")):
        for target in ("linalg", "stablehlo"):
            try:
                text, function = raised(path.stem, target, dataset, work)
                prep = prepared(text, function, target)
                prep.run(prep_inputs(text, function))
                counts = prep.rewrites
            except (SystemExit, Exception) as e:  # a survey goes on past one kernel's failure
                print(f"| {path.stem} | {target} | {type(e).__name__}: {str(e)[:80]} |")
                continue
            print(f"| {path.stem} | {target} | " + " | ".join(str(counts.get(n, "")) for n in names) + " |")


def prep_inputs(text: str, function: str) -> list:
    """Random inputs of the raised function's signature (a survey counts rewrites only)."""
    import numpy as np

    from synth.semantics.raised import load_raised

    sig = load_raised("<raised>", f"{function}_raised", text).signature()
    rng = np.random.default_rng(0)
    from synth.execution import NUMPY_DTYPES
    return [rng.uniform(0.5, 1.0, t.shape or ()).astype(NUMPY_DTYPES[t.dtype]) if t.dtype.startswith("f")
            else np.asarray(rng.integers(1, 4, t.shape or ())).astype(NUMPY_DTYPES[t.dtype]) for t in sig.arguments]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the checked-in inputs; exit 1 if stale")
    ap.add_argument("--survey", metavar="DATASET", help="print rewrites per pass per kernel at DATASET")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.survey:
            survey(args.survey, Path(tmp))
            return 0
        files = regenerate(Path(tmp))
    if args.check:
        stale = [p for p, t in files.items() if not p.exists() or p.read_text() != t]
        extra = sorted(set(INPUTS.glob("*.mlir")) - set(files))
        for p in stale:
            print(f"stale: {p.relative_to(ROOT)}", file=sys.stderr)
        for p in extra:
            print(f"not generated: {p.relative_to(ROOT)}", file=sys.stderr)
        return 1 if stale or extra else 0
    INPUTS.mkdir(parents=True, exist_ok=True)
    for p, t in files.items():
        p.write_text(t)
        print(f"wrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
