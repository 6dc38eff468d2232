"""`synth verify ORIGINAL RAISED`: is a raised module equivalent to the affine original?

Two levels, the second including the first:

- "test": observational testing. The original runs through MLIR's ExecutionEngine, the
  raised function through XLA CPU (stablehlo, as `@main`) or the ExecutionEngine
  (linalg on tensors), on several input sets: uniform random, zeros, negatives, small (1e-3), tiny
  (~1e-300), large (~1e+100) and mixed magnitudes, at two small size configurations and
  at the original sizes. Results agree when both are non-finite at the same place or
  |raised - original| <= RTOL * (|original| + max(1, max |original|)) with RTOL = 1e-9
  (synth.synthesis.solve's tolerance: reassociated f64 sums, nothing more). Differences far below
  1 in absolute value therefore pass, which is why the proof exists.
- "z3": a bounded proof. At small sizes (every dimension parameter >= 2, all distinct:
  2, 3, 4, ... and a second configuration with the values rotated; time-step parameters
  2 and 1), every array element and every scalar argument is a symbolic input (no scalar
  is fixed); the original is executed symbolically (synth.semantics.affine), the raised
  function interpreted (synth.semantics.raised), and Z3 checks that no input makes any
  written array element differ (the disjunction of all differences is unsat), over the
  REALS. So the proof covers exactly the sizes listed in the report, in exact real
  arithmetic: floating-point results may still differ by rounding and reassociation.

Sound by construction: "equivalent" is reported only on unsat. sqrt / exp / pow are
uninterpreted functions shared by both sides, and x/0 is z3's unspecified total
division, so an unsat proof holds for every value those could take. A sat model that
relies on such a value may be spurious: it is confirmed by evaluating both sides at the
model with the real functions (exactly where no such function or division occurs). An
unconfirmed model makes the next stage add, only as needed, (1) the true sqrt facts
(x >= 0 -> sqrt(x) >= 0 and sqrt(x)^2 = x), then (2) nonzero denominators, which is an
assumption: a proof that needed it says so in the report. Still unconfirmed, or a Z3
timeout: the verdict is "unknown" (exit 3), never "equivalent".

An array the raised function does not return (missing from `synth.outputs`) keeps its
input value; it is compared with the original's final value like any other, so a dropped
output is a difference with a counterexample, not a malformed input. A raised module
that breaks the contract (wrong argument types, result types, no `synth.outputs`) is an
InputError (exit 2).
"""

from __future__ import annotations

import sys
import time
import warnings
from typing import NamedTuple


from synth.semantics import support as support
from synth.analysis.model import Kernel, load_kernel
from synth.frontend.reader import SourceModule, read_text
from synth.semantics.raised import load_raised
from synth.semantics.specialize import generic_signature

from synth.validation.contract import Comparison, check_contract, pick_function  # noqa: F401
from synth.validation.plan import SizePlan  # noqa: F401
from synth.validation.proofs import Proof, run_proofs, prove_equal  # noqa: F401
from synth.validation.testing import INPUT_SETS, run_tests  # noqa: F401
from synth.validation.common import DEFAULT_Z3_TIMEOUT, LEVELS, Counterexample, Report  # noqa: F401


# entry points ----------------------------------------------------------------------------------


def verify(original_path, raised_path, function: str | None = None, level: str = "all", *,
           seed: int = 0, test_first: bool = True, z3_timeout: float = DEFAULT_Z3_TIMEOUT,
           c=None) -> Report:
    """Check `@NAME_raised` in `raised_path` against `@NAME` in `original_path`.

    level "test": observational testing only; "z3": testing first (a cheap refutation;
    `test_first=False` skips it), then the bounded Z3 proof. Returns a Report whose verdict
    is "equivalent", "not equivalent" (with a counterexample) or "unknown"; raises
    InputError for unreadable or unsupported input or a raised module that breaks the
    output contract."""
    from synth.frontend.reader import load_input

    source = load_input(original_path, function=function, c=c, warn=False)
    return verify_text(source, read_text(raised_path), str(raised_path), function, level,
                       seed=seed, test_first=test_first, z3_timeout=z3_timeout)


def constant_symbols(kernel: Kernel) -> frozenset:
    """The size symbols no argument of the kernel exposes (a dim of an array argument, a
    size argument): a generic raise keeps them as the constants they are in the original."""
    from synth.grammar.dims import kernel_sources

    return frozenset(kernel.sizes.symbols) - set(kernel_sources(kernel, range(kernel.n_arguments)))


class Prepared(NamedTuple):
    """What verify_text tests and proves: the function's name, the original, the raised
    function (static), the one the proof for every size reads, the outputs compared, the
    sizes."""
    name: str
    kernel: Kernel
    raised: object
    proven: object
    comparisons: list
    plan: SizePlan


def prepare(source: SourceModule, raised_text: str, raised_path: str, function: str | None = None, *,
            kernel: Kernel | None = None, raised_at=None, generic_text: str | None = None,
            own_sizes: bool = True, steps: dict | None = None) -> Prepared:
    """verify_text's reading of its arguments (the same parameters), before any test."""
    name = kernel.name if kernel is not None else pick_function(source, raised_text, function)
    if kernel is None:
        kernel = load_kernel(source, name)
    if raised_at is None and generic_signature(raised_text, f"{name}_raised"):
        generic_text = raised_text
        raised_text, raised_at = _generic_instances(kernel, raised_text)
    raised = load_raised(raised_path, f"{name}_raised", raised_text)
    # the proof for every size reads a generic raise itself, its sizes as the SSA values it computes
    proven = load_raised(raised_path, f"{name}_raised", generic_text) if generic_text is not None else raised
    sig = raised.signature()
    comparisons = check_contract(kernel, raised, sig)
    plan = SizePlan(kernel, raised, raised_at, edges=generic_text is not None, own_sizes=own_sizes,
                    pinned=constant_symbols(kernel) if generic_text is not None else frozenset(),
                    steps=steps)
    return Prepared(name, kernel, raised, proven, comparisons, plan)


def verify_text(source: SourceModule, raised_text: str, raised_path: str, function: str | None = None,
                level: str = "all", *, seed: int = 0, test_first: bool = True,
                z3_timeout: float = DEFAULT_Z3_TIMEOUT, kernel: Kernel | None = None,
                raised_at=None, generic_text: str | None = None, own_sizes: bool = True,
                more_proofs: list | None = None, steps: dict | None = None,
                prepared: Prepared | None = None) -> Report:
    """`verify` on raised module text (`raised_path` names it in messages). `kernel` is the
    original already loaded; `raised_at(values) -> text` builds the raised function at
    other sizes (synth raise passes its program: no textual re-instantiation);
    `generic_text`: the shape-generic text that `raised_text` and `raised_at` are static
    instances of, which the proof for every size reads itself. `more_proofs`: sizes the
    bounded proof covers besides the plan's (a loop kept as a loop proven unrolled there).
    `steps`: size symbol -> its value at 2 steps, for the symbols that count the steps of a
    loop whose step is proven on every input state (so for every step count by induction):
    the largest test may run fewer steps where the raise would take too long at its own
    (SizePlan.largest_tested). `prepared`: what `prepare` made of these arguments (a
    caller that compiled its test instances beforehand, synth.validation.testing.
    precompile_plans)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    t0 = time.monotonic()
    if prepared is None:
        prepared = prepare(source, raised_text, raised_path, function, kernel=kernel, raised_at=raised_at,
                           generic_text=generic_text, own_sizes=own_sizes, steps=steps)
    name, kernel, raised, proven, comparisons, plan = prepared
    report = Report(name, raised.name, raised.dialect, "equivalent", "test")
    if level == "test" or test_first:
        t = time.monotonic()
        cex = run_tests(kernel, plan, comparisons, seed, report)
        report.timings["test"] = time.monotonic() - t
        if cex is not None:
            report.verdict, report.counterexample = "not equivalent", cex
    extra: list = []
    if report.verdict == "equivalent" and level == "all":
        from synth.validation.allsizes import domain_text, prove_all_sizes

        result = prove_all_sizes(kernel, proven, comparisons, z3_timeout)
        report.timings["all"] = result.seconds
        if result.verdict == "proven":
            report.level, report.domain = "all", domain_text(kernel)
        else:
            report.all_sizes = f"{result.verdict} ({result.message})"
            extra = result.suspect_sizes
    if report.verdict == "equivalent" and level in ("z3", "all") and report.level != "all":
        t = time.monotonic()
        run_proofs(kernel, plan, comparisons, z3_timeout, report, list(extra or []) + list(more_proofs or []))
        report.timings["z3"] = time.monotonic() - t
    report.seconds = time.monotonic() - t0
    return report


def _generic_instances(kernel: Kernel, raised_text: str):
    """(the shape-generic `@NAME_raised` made static at the kernel's own sizes, the same
    at any sizes): what is tested and proven is that text, made static by the
    compilers' shape refinement (synth.semantics.specialize). Sizes the kernel does not
    show (run-time sizes) get test values."""
    from synth.semantics.specialize import specialized_module

    kernel.sizes.with_test_values()
    name = f"{kernel.name}_raised"

    def at(values):
        shapes = [tuple(int(n) for n in kernel.tensor_type(i, values).shape) for i in range(kernel.n_arguments)]
        return specialized_module(raised_text, name, shapes)
    return at(kernel.sizes.original()), at


EXIT_CODES = {"equivalent": 0, "not equivalent": 4, "unknown": 3}


def cmd_verify(args) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from synth.frontend.reader import c_options_from_args as _c_options

        report = verify(args.original, args.raised, args.function, args.level, seed=args.seed,
                        z3_timeout=args.z3_timeout, c=_c_options(args))
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    print(report.summary())
    return EXIT_CODES[report.verdict]


def register(subparsers, parents=()) -> None:
    """Add `synth verify` to the CLI's subcommands."""
    p = subparsers.add_parser(
        "verify", parents=list(parents), help="check that a raised module is equivalent to the original kernel",
        description="Test (level test) and prove with Z3 at small sizes (level z3) that "
                    "@NAME_raised in RAISED computes what @NAME in ORIGINAL writes. Exit codes: "
                    "0 equivalent, 4 not equivalent (counterexample printed), 3 undecided, "
                    "2 bad input.")
    p.add_argument("original", help="the affine kernel (.mlir), or a C kernel (.c)")
    p.add_argument("raised", help="the raised module with @NAME_raised (.mlir)")
    p.add_argument("--function", help="function name (default: the only one, or the one raised)")
    p.add_argument("--level", choices=LEVELS, default="all",
                   help="test: testing only; z3: testing, then a proof at bounded sizes; all "
                        "(default): testing, then a proof for every size, falling back to the "
                        "bounded proof (plus the sizes where the all-size proof saw a possible "
                        "difference) where it does not apply")
    p.add_argument("--seed", type=int, default=0, help="seed of the random input sets")
    p.add_argument("--z3-timeout", type=float, default=DEFAULT_Z3_TIMEOUT,
                   help="seconds per Z3 query (a timeout gives exit 3)")
    p.set_defaults(run=cmd_verify)
