"""Command line: `synth resize`, `synth run`, `synth raise`, `synth verify`, `synth bench`.

Every command maps `SynthError`s to their exit codes (see synth.errors) and prints one
clear line; only an unexpected exception prints a traceback (exit 1)."""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np

from . import polybench
from .errors import InputError, SynthError


def _load(path: str):
    from .mlir_input import load_source

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        source = load_source(path)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    return source


def _functions(source, name: str | None) -> list[str]:
    from .kernel import list_functions

    names = list_functions(source)
    if name is not None:
        if name not in names:
            raise InputError(f"no function @{name} with a body in the module "
                             f"(functions: {', '.join('@' + n for n in names) or 'none'})", source.path)
        return [name]
    if not names:
        raise InputError("the module has no function with a body", source.path)
    return names


def _resized_source(source, names: list[str], dataset: str):
    from .kernel import describe
    from .mlir_input import SourceModule
    from .resize import dataset_values, resize_module

    plan = {n: dataset_values(describe(source, n), dataset) for n in names}
    return SourceModule(source.path, resize_module(source, plan), source.notes)


def cmd_resize(args) -> int:
    from .kernel import list_functions

    source = _load(args.file)
    resized = _resized_source(source, list_functions(source), args.dataset)
    if args.output:
        Path(args.output).write_text(resized.text)
    else:
        sys.stdout.write(resized.text)
    return 0


def _checksum(a: np.ndarray) -> str:
    return f"sum={float(np.sum(a, dtype=np.float64)):.12e} crc32={zlib.crc32(np.ascontiguousarray(a).tobytes()):08x}"


def cmd_run(args) -> int:
    from .execution import run_function
    from .inputs import kernel_arguments
    from .kernel import describe
    from .resize import size_values

    source = _load(args.file)
    names = _functions(source, args.function)
    if args.dataset:
        source = _resized_source(source, names, args.dataset)
    for name in names:
        kf = describe(source, name)
        sizes = size_values(kf)
        call_args = kernel_arguments(kf, sizes, np.random.default_rng(args.seed))
        t0 = time.perf_counter()
        result = run_function(source.text, name, call_args, opt_level=3)
        total = time.perf_counter() - t0
        size_text = ", ".join(f"#{p}={v}" for p, v in sorted(sizes.items()))
        print(f"@{name} ({size_text})")
        for i in kf.outputs:
            a = kf.arguments[i]
            shape = "x".join(map(str, a.shape)) or "scalar"
            print(f"  arg{i} {shape}x{a.type}: {_checksum(result.outputs[i])}")
        print(f"  run {result.seconds[0]:.6f} s, compile {result.compile_seconds:.3f} s, "
              f"total {total:.3f} s")
    return 0


def cmd_raise(args) -> int:
    import json

    from .emit import combine, output_module
    from .raising import raise_function, raised_function_text
    from .search import SearchSettings

    source = _load(args.file)
    names = _functions(source, args.function)
    settings = SearchSettings(max_size=args.max_size, timeout=args.timeout,
                              equivalence_pruning=not args.no_equivalence_pruning,
                              verifier_pruning=not args.no_verifier_pruning)
    modules, stats = [], {}
    try:
        for name in names:
            t0 = time.perf_counter()
            result = raise_function(source, name, args.target, settings)
            stats[name] = {"target": args.target, "search_seconds": round(result.seconds, 3),
                           "standin_sizes": _sizes_json(result.spec.standin),
                           "groups": [g.statements for g in result.spec.groups],
                           "problems": result.stats,
                           "candidates": sum(s["enumerated"] for s in result.stats)}
            kf = result.spec.function
            module = output_module(kf, raised_function_text(result, result.sizes()), args.target)
            validation = _validate(source, name, module, args)
            stats[name]["verification"] = validation["level"]
            stats[name]["validation"] = validation
            stats[name]["checks"] = validation["sizes_tested"]  # executed against the original
            module = output_module(kf, raised_function_text(result, result.sizes(),
                                                            attributes=validation["attributes"]),
                                   args.target)
            modules.append(module)
            stats[name]["seconds"] = round(time.perf_counter() - t0, 3)
            print(f"@{name}: raised to {args.target} in {stats[name]['seconds']:.2f} s "
                  f"({stats[name]['candidates']} candidates, {len(result.stats)} problems), "
                  f"validated: {validation['summary']}", file=sys.stderr)
    except SynthError as e:
        stats.setdefault("error", {"message": str(e), "exit_code": e.exit_code})
        raise
    finally:
        if args.stats_json:
            Path(args.stats_json).write_text(json.dumps(stats, indent=2, default=str))
    text = combine(modules) if len(modules) > 1 else modules[0]
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_bench(args) -> int:
    from .bench import run_bench

    summary = run_bench(args.paths, args.suite, args.dataset, args.targets.split(","),
                        args.backends.split(",") if args.backends else None, args.jobs,
                        args.scheduler, Path(args.out), args.timeout, args.warmup, args.repeats,
                        Path(args.db) if args.db else None, threads=args.threads)
    g = summary["geomean_best"]
    print(f"{len(summary['raised'])} kernel x target pairs raised and timed; geomean speedup "
          f"(best backend per kernel and target): {'-' if g is None else f'{g:.2f}x'}; "
          f"report: {Path(args.out) / 'report.md'}")
    return 0


def _sizes_json(sizes: dict[int, int]) -> dict[str, int]:
    return {f"#{p}": v for p, v in sorted(sizes.items())}


def _validate(source, name: str, module: str, args) -> dict:
    """Validate the raised module with `synth verify` (level --verify). The Z3 level falls
    back to the testing level when the proof is undecided within its budget; a module found
    not equivalent is never emitted."""
    from .errors import NoSolutionError
    from .verify import verify_text

    report = verify_text(source.path, module, f"<raised @{name}>", name, args.verify,
                         z3_timeout=args.z3_timeout)
    if report.verdict == "not equivalent":
        raise NoSolutionError(f"the program found for @{name} failed validation at level "
                              f"{report.level}: {report.counterexample}")
    level = report.level if report.verdict == "equivalent" else "test"
    proven = [_sizes_json(s) for s in report.sizes_proven] if level == "z3" else []
    attributes = {"synth.validation": f'"{level}"'}
    if proven:
        attributes["synth.sizes_proven"] = "[" + ", ".join(
            "{" + ", ".join(f"arg{p} = {v}" for p, v in sorted(s.items())) + "}"
            for s in report.sizes_proven) + "]"
        attributes["synth.proof"] = '"bounded sizes, every input symbolic, real arithmetic"'
    summary = (f"proven equivalent with Z3 at sizes {proven} (real arithmetic)" if proven
               else f"tested ({report.input_sets} input sets, {len(report.sizes_tested)} size configurations)"
               + (f"; Z3 undecided: {report.message}" if args.verify == "z3" else ""))
    return {"level": level, "sizes_proven": proven, "seconds": round(report.seconds, 3),
            "sizes_tested": [_sizes_json(s) for s in report.sizes_tested],
            "timings": report.timings, "attributes": attributes, "summary": summary}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="synth",
        description="Raise affine MLIR loop kernels to linalg / stablehlo by program synthesis.",
        epilog="exit codes: 0 success, 1 internal error, 2 bad or unsupported input, "
               "3 no equivalent program found, 4 not equivalent",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("resize", help="rewrite a PolyBench kernel to another dataset size")
    p.add_argument("file")
    p.add_argument("--dataset", required=True, choices=polybench.DATASET_NAMES)
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    p.set_defaults(run=cmd_resize)

    p = sub.add_parser("run", help="run a kernel on seeded random inputs; print checksums and time")
    p.add_argument("file")
    p.add_argument("--function", help="function name (default: every function)")
    p.add_argument("--dataset", choices=polybench.DATASET_NAMES, help="resize first")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=cmd_run)

    p = sub.add_parser("raise", help="raise affine functions to stablehlo or linalg")
    p.add_argument("file")
    p.add_argument("--target", required=True, choices=("stablehlo", "linalg"))
    p.add_argument("--function", help="function name (default: every function)")
    p.add_argument("-o", "--output", help="output file (default: stdout); written only on success")
    p.add_argument("--timeout", type=float, default=60.0, help="search budget per function, seconds")
    p.add_argument("--max-size", type=int, default=6, help="largest program size (ops) searched")
    p.add_argument("--stats-json", help="write search statistics per sub-problem to this file")
    p.add_argument("--verify", choices=("test", "z3"), default="z3",
                   help="validation level before emitting: observational testing, or testing then "
                        "a bounded Z3 proof (default; falls back to test when Z3 is undecided)")
    p.add_argument("--z3-timeout", type=float, default=60.0, help="seconds per Z3 query")
    p.add_argument("--no-equivalence-pruning", action="store_true",
                   help="ablation: keep observationally equivalent candidates")
    p.add_argument("--no-verifier-pruning", action="store_true",
                   help="ablation: do not run the dialect verifier on candidate ops")
    p.set_defaults(run=cmd_raise)

    p = sub.add_parser("bench", help="raise, verify and time many kernels; write a report")
    p.add_argument("paths", nargs="*", help="kernel files or directories")
    p.add_argument("--suite", choices=("polybench",), help="the bundled PolyBench kernels")
    p.add_argument("--dataset", choices=polybench.DATASET_NAMES, default="large",
                   help="resize PolyBench kernels to this dataset (default large)")
    p.add_argument("--targets", default="stablehlo,linalg")
    p.add_argument("--backends", help="comma-separated backend names (default: all available)")
    p.add_argument("--jobs", type=int, default=2, help="raise jobs in parallel (local pool)")
    p.add_argument("--scheduler", help="address of a Dask distributed scheduler to run jobs on")
    p.add_argument("--out", default="results", help="output directory (default ./results)")
    p.add_argument("--db", help="results database (default OUT/results.sqlite)")
    p.add_argument("--timeout", type=float, default=30.0, help="synthesis budget per kernel, seconds")
    p.add_argument("--threads", type=int, help="cores for timing (all backends are confined to them); "
                   "the baseline is single-threaded, so --threads 1 compares like for like "
                   "(default: all cores)")
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    p.set_defaults(run=cmd_bench)

    from .verify import register as register_verify

    register_verify(sub)
    return parser




def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # XLA's C++ info lines on stderr
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except SynthError as e:
        print(f"error: {e}" if not e.location else f"{e.location}: error: {e.message}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
