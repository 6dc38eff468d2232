"""Command line: `synth resize`, `synth run`, `synth raise`, `synth verify`, `synth bench`,
`synth cc` (synth.driver.cc).

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

from synth.analysis import polybench
from synth.errors import InputError, SynthError
from synth.frontend.reader import c_options_from_args as _c_options


def _join_cflags(argv: list[str]) -> list[str]:
    """`--cflags "-DX -I dir"` as `--cflags="-DX -I dir"`: argparse takes a value that
    starts with '-' for an option of its own."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--cflags" and i + 1 < len(argv):
            out.append(f"--cflags={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _load(path: str, quiet: bool = False, text: str | None = None, args=None):
    from synth.frontend.reader import is_c, load_input, load_text

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if text is not None and not is_c(path):
            source = load_text(text, "<stdin>" if path == "-" else path)
        else:
            source = load_input(path, function=getattr(args, "function", None),
                                c=_c_options(args) if args is not None else None)
    for w in caught:
        if not quiet:
            print(f"warning: {w.message}", file=sys.stderr)
    return source


def _check_positive(value: float, option: str) -> None:
    if not value > 0:
        raise InputError(f"{option} must be a positive number of seconds, got {value:g}")


class _Progress:
    """One status line on stderr while a raise searches: the sub-problem, the program
    size reached, candidates so far, elapsed time (redrawn in place on a terminal)."""

    def __init__(self, verbose: bool):
        self.t0 = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.verbose = verbose
        self.shown = False

    def __call__(self, problem: str, size: int, candidates: int) -> None:
        line = (f"searching {problem}: size {size}, {candidates} candidates, "
                f"{time.monotonic() - self.t0:.0f} s")
        if self.tty:
            sys.stderr.write("\r\033[K" + line)
            sys.stderr.flush()
            self.shown = True
        elif self.verbose:
            print(line, file=sys.stderr)

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False


def _functions(source, name: str | None) -> list[str]:
    from synth.analysis.function import list_functions

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
    from synth.frontend.reader import SourceModule
    from synth.analysis.resize import resize_module

    return SourceModule(source.path, resize_module(source, names, dataset), source.notes)


def cmd_translate(args) -> int:
    from synth.frontend.c import translate_c

    c = _c_options(args)
    source = translate_c(args.file, function=args.function, defines=list(c.defines),
                         include_dirs=list(c.include_dirs), std=c.std, extra_flags=list(c.flags),
                         locations=False, skip_unsupported=args.function is None,
                         sizes=dict(c.sizes) or None)
    for note in source.notes:
        print(f"warning: {args.file}: {note}", file=sys.stderr)
    _write_output(args.output, source.text)
    return 0


def cmd_resize(args) -> int:
    from synth.analysis.function import list_functions

    source = _load(args.file, args=args)
    resized = _resized_source(source, list_functions(source), args.dataset)
    _write_output(args.output, resized.text)
    return 0


def _write_output(path: str | None, text: str) -> None:
    if path and path != "-":
        try:
            Path(path).write_text(text)
        except OSError as e:
            raise InputError(f"cannot write the output: {e.strerror}", path) from None
    else:
        sys.stdout.write(text)


def _check_output_path(path: str | None) -> None:
    """Fail early (exit 2) when the output cannot be written, before any work."""
    if not path or path == "-":
        return
    p = Path(path)
    if p.is_dir():
        raise InputError("the output path is a directory", path)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"the output directory {parent} does not exist", path)
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InputError("the output is not writable", path)


def _checksum(a: np.ndarray) -> str:
    return f"sum={float(np.sum(a, dtype=np.float64)):.12e} crc32={zlib.crc32(np.ascontiguousarray(a).tobytes()):08x}"


RUN_REPEATS = 3  # timed calls after one warm-up call (the median is printed)


def cmd_run(args) -> int:
    from synth.analysis.model import load_kernel
    from synth.execution import run_function
    from synth.synthesis.spec import random_draw

    from synth.frontend.reader import SourceModule, read_text

    text = "" if args.file.endswith(".c") else read_text(args.file)
    if _is_raised_module(text):  # synth's output: parsed in the dialect's own context
        return _run_raised_module(SourceModule("<stdin>" if args.file == "-" else args.file, text), args)
    source = _load(args.file, text=None if args.file.endswith(".c") else text, args=args)
    names = _functions(source, args.function)
    if args.dataset:
        source = _resized_source(source, names, args.dataset)
    for name in names:
        kernel = load_kernel(source, name)
        sizes = kernel.sizes.original()
        call_args = kernel.arguments(sizes, random_draw(np.random.default_rng(args.seed)))
        text = kernel.at(sizes).text if kernel.sizes.arg_dims else kernel.normal.text
        result = run_function(text, name, call_args, opt_level=3, repeat=1 + RUN_REPEATS)
        print(f"@{name} ({kernel.sizes.describe()})")
        for i in kernel.written:
            a = kernel.function.arguments[i]
            shape = "x".join(str(d) for d in result.outputs[i].shape) or "scalar"
            print(f"  arg{i} {shape}x{a.type}: {_checksum(result.outputs[i])}")
        for j, r in enumerate(kernel.interface.results):
            out = result.outputs[r.argument]
            shape = "x".join(str(d) for d in out.shape) or "scalar"
            print(f"  result #{j} {shape} {r.type}: {_checksum(out)}")
        _print_times(result.seconds[1:], result.compile_seconds)
    return 0


def _print_times(seconds: list[float], compile_seconds: float) -> None:
    import statistics

    print(f"  run {statistics.median(seconds):.6f} s (median of {len(seconds)} after a warm-up), "
          f"compile {compile_seconds:.3f} s")


def _is_raised_module(text: str) -> bool:
    import re

    return bool(re.search(r"func\.func\s+(?:public\s+|private\s+)?@[\w$.]+_raised\(", text))


def _run_raised_module(source, args) -> int:
    """`synth run` on synth's output (or any module with @NAME_raised): the raised function
    on seeded random inputs of its signature, through XLA (stablehlo) or MLIR (linalg)."""
    import statistics

    from synth.execution import NUMPY_DTYPES
    from synth.semantics.raised import load_raised, top_level_functions
    from synth.backends.run import run_raised

    names = [n for n, _, _ in top_level_functions(source.text) if n.endswith("_raised")]
    if args.function:
        names = [n for n in names if n in (args.function, f"{args.function}_raised")]
    if not names:
        raise InputError("no @NAME_raised function to run", source.path)
    rng = np.random.default_rng(args.seed)
    for name in names:
        raised = load_raised(source.path, name, source.text)
        sig = raised.signature()
        inputs = []
        for t in sig.arguments:
            shape = t.shape or ()
            if t.dtype.startswith("f"):
                inputs.append(rng.uniform(-1.0, 1.0, shape).astype(NUMPY_DTYPES[t.dtype]))
            else:
                inputs.append(rng.integers(1, 10, shape).astype(NUMPY_DTYPES[t.dtype]))
        times = []
        outputs = None
        for k in range(1 + RUN_REPEATS):
            t0 = time.perf_counter()
            outputs = run_raised(raised.dialect, raised.text, name, inputs)
            times.append(time.perf_counter() - t0)
        print(f"@{name} ({raised.dialect}, {'XLA CPU' if raised.dialect == 'stablehlo' else 'MLIR CPU'})")
        for k, out in enumerate(outputs):
            out = np.asarray(out)
            shape = "x".join(str(d) for d in out.shape) or "scalar"
            print(f"  result #{k} {shape}: {_checksum(out)}")
        print(f"  run {statistics.median(times[1:]):.6f} s (median of {RUN_REPEATS} after a warm-up "
              f"that compiled it in {times[0]:.3f} s)")
    return 0


def cmd_opt(args) -> int:
    """`synth opt --pass NAME FILE`: the module after the passes, on standard output; the
    rewrites each made on standard error."""
    from synth.backends.passes import run_on_text

    path = "<stdin>" if args.file == "-" else args.file
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", path) from None
    out, counts = run_on_text(text, args.passes, path)
    sys.stdout.write(out)
    for name, n in counts.items():
        print(f"{name}: {n} rewrite{'s' if n != 1 else ''}", file=sys.stderr)
    return 0


def cmd_raise(args) -> int:
    import json

    from synth.codegen.emit import combine
    from synth.pipeline import RaiseOptions, raise_function
    from synth.synthesis.search import SearchSettings

    _check_output_path(args.output)
    _check_positive(args.timeout, "--timeout")
    from synth.execution import prestart_worker

    prestart_worker()  # its start-up overlaps reading and analysing the input
    source = _load(args.file, quiet=args.quiet, args=args)
    names = _functions(source, args.function)
    progress = _Progress(args.verbose) if (sys.stderr.isatty() or args.verbose) and not args.quiet else None
    options = RaiseOptions(SearchSettings(max_size=args.max_size, timeout=args.timeout,
                                          equivalence_pruning=not args.no_equivalence_pruning,
                                          verifier_pruning=not args.no_verifier_pruning,
                                          inverse_targets=not args.no_inverse_targets,
                                          sketches=not args.no_sketches,
                                          progress=progress),
                           args.verify, args.z3_timeout, args.seed, args.shapes)
    modules, stats = [], {}
    try:
        for name in names:
            outcome = raise_function(source, name, args.target, options)
            stats[name] = outcome.stats
            modules.append(outcome.module)
            if progress is not None:
                progress.done()
            if args.verbose:
                for p in outcome.stats["problems"]:
                    choice = (f" (cheapest of {p['solutions_compared']} equivalent, estimated work "
                              f"{p['solution_cost']:.3g})" if p.get("solutions_compared", 0) > 1 else "")
                    print(f"  {p['problem']}: {p['program'] or '(none)'}{choice}", file=sys.stderr)
            if not args.quiet:
                print(outcome.summary, file=sys.stderr)
    except SynthError as e:
        stats.setdefault("error", {"message": str(e), "exit_code": e.exit_code})
        raise
    finally:
        if args.stats_json:
            Path(args.stats_json).write_text(json.dumps(stats, indent=2, default=str))
    text = combine(modules) if len(modules) > 1 else modules[0]
    _write_output(args.output, text)
    return 0


def cmd_bench(args) -> int:
    from synth.bench.runner import run_bench

    _check_positive(args.timeout, "--timeout")
    if args.call_timeout < 0:
        raise InputError(f"--call-timeout must be 0 (no limit) or a number of seconds, not {args.call_timeout:g}")
    unknown = [x for x in args.shapes.split(",") if x not in ("static", "generic")]
    if unknown:
        raise InputError(f"--shapes takes static and/or generic, not {', '.join(unknown)}")
    summary = run_bench(args.paths, args.suite, args.dataset, args.targets.split(","),
                        args.backends.split(",") if args.backends else None, args.jobs,
                        args.scheduler, Path(args.out), args.timeout, args.warmup, args.repeats,
                        Path(args.db) if args.db else None, threads=args.threads, c=_c_options(args),
                        baseline_cc=args.baseline == "cc", shapes=tuple(args.shapes.split(",")),
                        call_timeout=args.call_timeout or None)
    g = summary["geomean_best"]
    print(f"{len(summary['raised'])} kernel x target pairs raised and timed; geomean speedup "
          f"(best backend per kernel and target): {'-' if g is None else f'{g:.2f}x'}; "
          f"report: {Path(args.out) / 'report.md'}")
    return 0


class _DefaultsFormatter(argparse.HelpFormatter):
    """Help lines end with the default, where there is one to say."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "%(default)" not in text \
                and action.option_strings:
            text += " (default: %(default)s)"
        return text


def build_parser() -> argparse.ArgumentParser:
    from synth import __version__

    fmt = _DefaultsFormatter
    parser = argparse.ArgumentParser(
        prog="synth",
        description="Raise affine MLIR loop kernels to linalg / stablehlo by program synthesis.",
        epilog="exit codes: 0 success, 1 internal error, 2 bad or unsupported input, "
               "3 no equivalent program found, 4 not equivalent",
    )
    parser.add_argument("--version", action="version", version=f"synth {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    c_flags = argparse.ArgumentParser(add_help=False)
    g = c_flags.add_argument_group("C input (a .c file is translated to affine MLIR first)")
    g.add_argument("-D", dest="define", action="append", metavar="NAME[=VALUE]",
                   help="define a preprocessor macro (repeatable)")
    g.add_argument("-I", dest="include", action="append", metavar="DIR",
                   help="add an include directory (repeatable)")
    g.add_argument("--std", default="c99", help="C standard")
    g.add_argument("--cflags", help="other compiler flags, one quoted argument (--cflags \"-DLARGE_DATASET -I dir\")")
    g.add_argument("--size", action="append", metavar="NAME=VALUE",
                   help="give the integer parameter NAME of the C function this value: the "
                        "translation uses it wherever NAME is read (NAME stays in the signature), "
                        "so that shapes and loop bounds are constants (repeatable)")

    p = sub.add_parser("translate", help="translate a static-control C kernel to affine MLIR",
                       formatter_class=fmt, parents=[c_flags])
    p.add_argument("file", help="the C file")
    p.add_argument("--function", help="function name (none: every static-control function)")
    p.add_argument("-o", "--output", help="output file (- or none: standard output)")
    p.set_defaults(run=cmd_translate)

    p = sub.add_parser("resize", help="rewrite a PolyBench kernel to another dataset size", formatter_class=fmt)
    p.add_argument("file", help="the kernel (.mlir; - reads standard input)")
    p.add_argument("--dataset", required=True, choices=polybench.DATASET_NAMES, help="PolyBench dataset")
    p.add_argument("-o", "--output", help="output file (- or none: standard output)")
    p.set_defaults(run=cmd_resize)

    p = sub.add_parser("run", help="run a kernel on seeded random inputs; print checksums and time",
                       formatter_class=fmt, parents=[c_flags])
    p.add_argument("file", help="the kernel (.mlir or .c; - reads standard input), or a raised module")
    p.add_argument("--function", help="function name (none: every function)")
    p.add_argument("--dataset", choices=polybench.DATASET_NAMES, help="resize to this PolyBench dataset first")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.set_defaults(run=cmd_run)

    p = sub.add_parser("raise", help="raise affine functions to stablehlo or linalg", formatter_class=fmt,
                       parents=[c_flags])
    p.add_argument("file", help="the kernel module (.mlir or .c; - reads standard input)")
    p.add_argument("--target", required=True, choices=("stablehlo", "linalg"), help="dialect to raise to")
    p.add_argument("--function", help="function name (none: every function)")
    p.add_argument("-o", "--output", help="output file (- or none: standard output); written only on success")
    p.add_argument("--timeout", type=float, default=60.0, help="search budget per function, seconds")
    p.add_argument("--max-size", type=int, default=6, help="largest program size (ops) searched")
    p.add_argument("--stats-json", help="write search statistics per sub-problem to this file")
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print progress lines and the program found for each sub-problem")
    p.add_argument("--verify", choices=("test", "z3", "all"), default="all",
                   help="validation level before emitting: observational testing; testing then a "
                        "bounded Z3 proof; or (default) testing then a Z3 proof for every size, "
                        "falling back to the bounded proof, then to testing, when undecided")
    p.add_argument("--z3-timeout", type=float, default=60.0, help="seconds per Z3 query")
    p.add_argument("--seed", type=int, default=0, help="seed of the search's random examples")
    p.add_argument("--shapes", choices=("auto", "static", "generic"), default="auto",
                   help="static: the raise at the kernel's own sizes; generic: one raise for every "
                        "size (? dims, sizes read from the arguments at run time); auto: generic where "
                        "the kernel takes a size at run time (a size argument bounding a loop, a "
                        "dynamic dim), else static")
    p.add_argument("--no-equivalence-pruning", action="store_true",
                   help="ablation: keep observationally equivalent candidates")
    p.add_argument("--no-verifier-pruning", action="store_true",
                   help="ablation: do not run the dialect verifier on candidate ops")
    p.add_argument("--no-inverse-targets", action="store_true",
                   help="ablation: do not search for the target with its last ops undone")
    p.add_argument("--no-sketches", action="store_true",
                   help="ablation: do not take a statement's own program (slices of its loads, its "
                        "arithmetic elementwise) without a search")
    p.set_defaults(run=cmd_raise)

    p = sub.add_parser("bench", help="raise, verify and time many kernels; write a report",
                       formatter_class=fmt, parents=[c_flags])
    p.add_argument("paths", nargs="*", help="kernel files or directories")
    p.add_argument("--suite", choices=("polybench",), help="the bundled PolyBench kernels")
    p.add_argument("--dataset", choices=polybench.DATASET_NAMES, default="large",
                   help="resize PolyBench kernels to this dataset")
    p.add_argument("--targets", default="stablehlo,linalg", help="comma-separated targets to raise to")
    p.add_argument("--shapes", default="static", help="comma-separated: static (the raise at the dataset's sizes), "
                                                      "generic (one raise for every size, timed at the dataset's "
                                                      "sizes; reported as target 'T generic'); both time them side by side")
    p.add_argument("--backends", help="comma-separated backend names (none: all available)")
    p.add_argument("--jobs", type=int, default=2, help="raise jobs in parallel (local pool)")
    p.add_argument("--scheduler", help="address of a Dask distributed scheduler to run jobs on")
    p.add_argument("--out", default="results", help="output directory")
    p.add_argument("--db", help="results database (none: OUT/results.sqlite)")
    p.add_argument("--timeout", type=float, default=30.0, help="synthesis budget per kernel, seconds")
    p.add_argument("--threads", type=int, help="cores for timing (all backends are confined to them); "
                   "the baseline is single-threaded, so --threads 1 compares like for like "
                   "(none: all cores)")
    p.add_argument("--warmup", type=int, default=1, help="timing: calls before the timed ones")
    p.add_argument("--repeats", type=int, default=5, help="timing: the median of this many calls")
    p.add_argument("--call-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="a backend's compile, or one call of the raised function, may take this long: one "
                        "longer is stopped (its worker killed; XLA's, in this process, not repeated) and its "
                        "rows say status timeout, with no time (0: no limit)")
    p.add_argument("--baseline", choices=("mlir", "cc"), default="mlir",
                   help="mlir: the original loops through MLIR at -O3; cc: also each PolyBench kernel's C "
                        "twin (benchmarks/polybench-c) compiled by the system C compiler at -O3 -march=native")
    p.set_defaults(run=cmd_bench)

    p = sub.add_parser("opt", help="run passes of the mlir-cpu backend on a module; print it (for lit tests)",
                       formatter_class=fmt)
    p.add_argument("file", help="the module (.mlir; - reads standard input)")
    p.add_argument("--pass", dest="passes", action="append", required=True, metavar="NAME",
                   help="a pass of synth.backends.passes (repeat to run several, in order)")
    p.set_defaults(run=cmd_opt)

    from synth.validation.verify import register as register_verify

    register_verify(sub, parents=[c_flags])

    p = sub.add_parser("cc", help="a drop-in for the C compiler: build C programs with their loop kernels "
                                  "raised (synth cc [cc flags] FILES... [--raise NAME] [--target T] "
                                  "[--verify V] [--report FILE.json] [--jobs N] [--cache-dir DIR]; "
                                  "see synth.driver.cc)", add_help=False)
    p.set_defaults(run=None)
    return parser




def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # XLA's C++ info lines on stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["cc"]:  # every other flag belongs to the C compiler: no argparse
        from synth.driver.cc import main as cc_main

        run = lambda: cc_main(argv[1:])  # noqa: E731
    else:
        args = build_parser().parse_args(_join_cflags(argv))
        run = lambda: args.run(args)  # noqa: E731
    try:
        return run()
    except SynthError as e:
        print(f"error: {e}" if not e.location else f"{e.location}: error: {e.message}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug in synth: one line saying where (exit code 1, documented)
        import traceback

        if os.environ.get("SYNTH_TRACEBACK"):
            traceback.print_exc()
        frame = traceback.extract_tb(e.__traceback__)[-1]
        where = f"{Path(frame.filename).name}:{frame.lineno}"
        print(f"error: internal error (a bug in synth) at {where}: {type(e).__name__}: {e}; "
              f"SYNTH_TRACEBACK=1 prints the traceback", file=sys.stderr)
        return 1


def entry() -> None:
    """The `synth` command: main(), then the process ends at once. Every output is
    written and closed by then and the atexit handlers (the execution worker's close) have
    run; what is left is the interpreter tearing down jax/XLA and MLIR objects, 0.3-0.8 s
    of a raise's wall time that no output depends on. main() itself returns (tests call it)."""
    code = main()
    import atexit
    import threading

    # what the interpreter's own exit does first: the threading module's exit callbacks
    # (thread pools told to stop) and a join of every non-daemon thread; then atexit
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    code = code if isinstance(code, int) else 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: output lost, as the interpreter says (120)
            code = code or 120
    os._exit(code)


if __name__ == "__main__":
    entry()
