"""One raise, start to end: the function `synth raise` and `synth bench` both call.

    outcome = raise_function(source, "kernel_gemm", "stablehlo", RaiseOptions())
    outcome.module      # the output module (only ever set when validated)
    outcome.stats       # what the CLI writes to --stats-json

Steps: load the kernel (normal form, size symbols), search a program at stand-in sizes,
emit it at the original sizes, validate it (synth.validation.verify, re-instantiating the program at
each size from its symbols), and only then return a module. A program that validation
refutes was right on the search's examples only: the search runs again on examples of
more kinds (negative and positive values, the kernel's own constants) and on states drawn
from the input set that refuted it, keeping values with inf / nan this time (a select may
discard them), round after round within the same budget (counterexample-guided).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from synth.analysis.model import Kernel, load_kernel
from synth.codegen.emit import output_module
from synth.errors import InputError, NoSolutionError, SynthError
from synth.grammar.dims import GenericUnsupported
from synth.frontend.reader import SourceModule, input_assumptions
from synth.codegen.raised import raised_function_text
from synth.pipeline.checks import raised_texts, validate
from synth.synthesis.diagonals import DiagonalRaise, NotDiagonal, diagonal_raise
from synth.synthesis.opset import is_library_op
from synth.synthesis.solve import RaiseResult, search_kernel
from synth.synthesis.search import SearchSettings
from synth.synthesis.spec import EXAMPLE_KINDS

ATTEMPTS = (  # (seed, example kinds, keep values with inf / nan): the first search, the others
    (0, ("random",), False),
    (1, EXAMPLE_KINDS, True),
)
CEGIS_DRAWS = 2  # example states drawn from a refuting input set, each time
MAX_STALLS = 3  # searches in a row that return the refuted program again, before giving up


@dataclass(frozen=True)
class RaiseOptions:
    settings: SearchSettings = field(default_factory=SearchSettings)
    verify: str = "all"  # "test", "z3" (bounded proof) or "all" (every size, else bounded)
    z3_timeout: float = 60.0
    seed: int = 0  # of the search's random examples
    # "static": the raise at the kernel's own sizes; "generic": shape-generic (sizes read
    # from the arguments at run time, synth.grammar.dims); "auto": generic where the
    # kernel takes a size at run time (a size argument that bounds a loop, a dynamic dim)
    shapes: str = "auto"


@dataclass
class RaiseOutcome:
    name: str
    target: str
    kernel: Kernel
    result: RaiseResult
    module: str  # @NAME_raised and the drop-in @NAME, validated
    validation: dict
    stats: dict
    seconds: float

    @property
    def form(self) -> str:
        """What the raise is: "tensor program", "loop with tensor body" (a time loop kept
        as a loop of the target) or "library op" (a program using one)."""
        if isinstance(self.result, DiagonalRaise) or self.result.time_loop is not None:
            return "loop with tensor body"
        ops = {n for sol in self.result.solutions for p in sol.programs.values() for n in p.ops()}
        return "library op" if any(is_library_op(n) for n in ops) else "tensor program"

    @property
    def summary(self) -> str:
        fallback = self.stats.get("generic_fallback")
        return (f"@{self.name}: raised to {self.target} in {self.seconds:.2f} s "
                f"({self.stats['candidates']} candidates, {len(self.result.stats)} problems), "
                f"validated: {self.validation['summary']}"
                + (f"; at the kernel's own sizes, not for every size: {fallback}" if fallback else ""))


def _sizes_json(sizes: dict[str, int]) -> dict[str, int]:
    return dict(sorted(sizes.items()))


def _sizes_words(configs: list[dict[str, int]]) -> str:
    """`n1000=2, n1200=3 and n1000=3, n1200=2` for a list of size configurations."""
    texts = [", ".join(f"{n}={v}" for n, v in sorted(c.items())) or "(no sizes)" for c in configs]
    return " and ".join(texts) if len(texts) <= 2 else "; ".join(texts[:-1]) + " and " + texts[-1]


SHAPES = ("auto", "static", "generic")


def runtime_sizes(kernel: Kernel) -> bool:
    """Whether the kernel takes a size at run time: a size argument that bounds a loop or
    indexes an array, or an array argument with a dynamic dim."""
    if kernel.sizes.params:
        return True
    return any(a.is_array and "?" in a.mlir_type for a in kernel.function.arguments[: kernel.n_arguments])


def wants_generic(kernel: Kernel, options: RaiseOptions) -> bool:
    if options.shapes not in SHAPES:
        raise ValueError(f"shapes must be one of {SHAPES}, got {options.shapes!r}")
    return options.shapes == "generic" or (options.shapes == "auto" and runtime_sizes(kernel))



def arithmetic(kernel: Kernel) -> str:
    """What a proof's arithmetic is: real numbers for float outputs, integers (no
    wrap-around) for integer ones."""
    kinds = {"real" if kernel.function.arguments[o].type.startswith("f") else "integer"
             for o in kernel.outputs}
    if not kinds:  # it writes no argument and returns nothing
        return "nothing observable: the raise is the empty program"
    return " and ".join(sorted(kinds)) + " arithmetic"


def _validation(report, options: RaiseOptions, kernel: Kernel) -> dict:
    level = report.level if report.verdict == "equivalent" else "test"
    exact = arithmetic(kernel)
    # each configuration proven, by name (a quotient a loop bound makes of the sizes,
    # `(n256) floordiv 2`, follows from them and is no attribute name: left out)
    sets = [{n: v for n, v in s.items() if n.isidentifier()} for s in report.sizes_proven]
    proven = [_sizes_json(s) for s in sets] if level == "z3" else []
    attributes = {"synth.validation": f'"{level}"'}
    if level == "all":
        attributes["synth.proof"] = f'"all sizes: {report.domain}; every input symbolic, {exact}"'
    elif report.all_sizes:
        attributes["synth.all_sizes"] = '"' + report.all_sizes.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if proven:
        attributes["synth.sizes_proven"] = "[" + ", ".join(
            "{" + ", ".join(f"{n} = {v}" for n, v in sorted(s.items())) + "}" for s in sets) + "]"
        attributes["synth.proof"] = f'"bounded sizes, every input symbolic, {exact}"'
    # what the input took for granted (the C translation's synth.assumptions) and what the
    # validation did, in the words of its report
    assumed = [*input_assumptions(kernel.source, kernel.name), *report.assumptions]
    if kernel.function.index_ranges and not any("reads data" in a for a in assumed):
        assumed += [f"the values of arg{k} are within [0, {n}) (they index a table of {n} rows: the raise "
                    f"clamps them, the original reads outside)" for k, n in sorted(kernel.function.index_ranges.items())]
    if assumed:
        attributes["synth.assumptions"] = "[" + ", ".join(
            '"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"' for a in assumed) + "]"
    summary = (f"proven equivalent with Z3 for every size ({report.domain}; {exact})" if level == "all"
               else f"proven equivalent with Z3 at sizes {_sizes_words(proven)} ({exact})" if proven
               else f"tested on {report.input_sets} input sets at sizes {_sizes_words(report.sizes_tested)}"
               + (f"; Z3 undecided: {report.message}" if options.verify != "test" else ""))
    inherited = len(assumed) - len(report.assumptions)
    if inherited:  # said where the user reads it, not only in the attribute
        summary += (f"; assuming what the input assumes ({inherited} condition(s) in "
                    f"synth.assumptions, e.g. {assumed[0]})")
    return {"level": level, "sizes_proven": proven, "seconds": round(report.seconds, 3),
            "sizes_tested": [_sizes_json(s) for s in report.sizes_tested],
            "largest": [{**c, "sizes": _sizes_json(c["sizes"])} for c in report.largest],
            "timings": report.timings, "assumptions": assumed,
            "proof": report.proof, "all_sizes": report.all_sizes,
            "attributes": attributes, "summary": summary}


def _embedded(kernel: Kernel, standin: dict, values: list, rng: np.random.Generator) -> list:
    """A random state at the stand-in sizes holding `values` (per argument: an (array,
    mask) pair, a number, or None) repeated periodically over each array: a small
    size's element (i, j) at every (i + a*m, j + b*n). Maxima, minima and elementwise
    relations of the small arrays survive the repetition."""
    from synth.validation.testing import arguments

    state = arguments(kernel, standin, "random", rng)
    for i, value in enumerate(values[: len(state)]):
        if value is None or i in kernel.sizes.params or i in kernel.sizes.unused_params:
            continue
        if isinstance(value, tuple) and isinstance(state[i], np.ndarray):
            array, mask = value
            if array.ndim != state[i].ndim or 0 in array.shape:
                continue
            where = np.ix_(*(np.arange(d) % s for d, s in zip(state[i].shape, array.shape)))
            state[i] = np.where(mask[where], array[where], state[i]).astype(state[i].dtype)
        elif isinstance(state[i], tuple) and not isinstance(value, tuple):
            state[i] = (state[i][0], value)
    return state


def counter_states(kernel: Kernel, cex, rng: np.random.Generator, n: int = CEGIS_DRAWS,
                   first: bool = True) -> list:
    """Example states at the stand-in sizes from a counterexample, which is at other sizes
    than the search's: the counterexample's values repeated over the stand-in arrays
    (`first` time only; for Z3's, only the values the differing element depends on, the
    others random), then `n` states drawn from the input set that refuted the program
    (synth.validation.testing.INPUT_SETS; random ones for Z3's)."""
    from synth.validation.testing import arguments

    standin = kernel.sizes.standin()
    if cex.kind == "z3":
        values = cex.args
    else:
        values = [(a, np.ones(a.shape, dtype=bool)) if isinstance(a, np.ndarray) else
                  a[1] if isinstance(a, tuple) else None for a in cex.args]
    states = [_embedded(kernel, standin, values, rng)] if first else []
    kind = "random" if cex.kind == "z3" else cex.kind
    states += [arguments(kernel, standin, kind, rng) if cex.kind != "z3" else
               _embedded(kernel, standin, values, rng) for _ in range(n)]
    return states


def _programs(result) -> list[str]:
    return [str(p) for sol in result.solutions for _, p in sorted(sol.programs.items())]


def raise_function(source: SourceModule, name: str, target: str, options: RaiseOptions,
                   kernel: Kernel | None = None) -> RaiseOutcome:
    """Raise @name to `target` and validate it; NoSolutionError (exit 3) when no program
    is found, or none that validates, within the budget.

    Counterexample-guided: when validation refutes the program found, the search runs
    again with more examples (every kind of EXAMPLE_KINDS, the counterexample's values
    repeated over the stand-in arrays, states drawn from the input set that refuted it:
    counter_states), keeping the programs that are still right on them, until a program
    validates or the budget ends. Where the new examples do not separate the refuted
    program (the search returns it again), more states are drawn, up to MAX_STALLS
    times. `stats["rounds"]` counts the searches."""
    t0 = time.monotonic()
    deadline = t0 + options.settings.timeout
    kernel = kernel or load_kernel(source, name)
    diagonal = _raise_diagonals(source, kernel, target, options, t0)
    if diagonal is not None:
        return diagonal
    generic = wants_generic(kernel, options)
    generic_note = None  # why a generic raise fell back to the kernel's own sizes
    if generic:  # sizes no array shows are run-time values: any valid value serves to test at
        kernel.sizes.with_test_values()
        kernel.sizes.keep_runtime_repeats()  # a repeat count known at run time: kept as a loop
    refuted: list[str] = []
    problems: list = []
    extra: list = []  # example states of the input sets that refuted a program
    rng = np.random.default_rng(options.seed)
    result, last, cex, stalls, rounds = None, None, None, 0, 0
    searched = 0.0  # seconds of search, every round's
    seed, kinds, nonfinite = ATTEMPTS[0]

    def give_up(why: str = "") -> NoSolutionError:
        return NoSolutionError(f"the program found for @{name} failed validation"
                               f" ({rounds} search rounds){why}: " + " | ".join(refuted))
    while True:
        settings = replace(options.settings, keep_nonfinite=nonfinite)
        try:
            result = search_kernel(kernel, target, settings, deadline=deadline, seed=options.seed + seed,
                                   kinds=kinds, extra=tuple(extra), previous=result)
        except NoSolutionError as e:
            if refuted:
                raise give_up(f"; then {e}") from None
            raise
        rounds += 1
        searched += result.seconds
        problems += result.stats
        if last is not None and _programs(result) == last:  # the new examples did not separate it
            stalls += 1
            if cex is None or stalls >= MAX_STALLS or time.monotonic() >= deadline:
                raise give_up()
            extra += counter_states(kernel, cex, rng, first=False)
            continue
        if generic:
            try:
                raised_texts(result, True, kernel)
            except GenericUnsupported as e:  # an op of the program has no generic form yet
                generic, generic_note = False, str(e)
        try:
            report = validate(source, kernel, result, target, options, generic)
        except InputError as e:
            if not str(e.location or "").startswith("<raised"):
                raise
            # synth's own raised text that validation cannot read: a fault of synth, not of the input
            raise SynthError(f"internal error: validating the raise of @{name}: {e}") from None
        if report.verdict != "not equivalent":
            break
        refuted.append(f"{'; '.join(s['program'] for s in result.stats if s['program'])} "
                       f"(examples: {', '.join(kinds)}{f' + {len(extra)} refuting' if extra else ''}): "
                       f"{report.counterexample}")
        if time.monotonic() >= deadline:
            raise give_up()
        last, stalls = _programs(result), 0
        seed, kinds, nonfinite = ATTEMPTS[1]
        cex = report.counterexample if report.counterexample is not None and \
            report.counterexample.args is not None else None
        if cex is not None:
            extra += counter_states(kernel, cex, rng)
    if generic_note is not None:
        report.assumptions.append(f"shapes static: {generic_note}")
    if not generic and kernel.sizes.params:
        fixed = ", ".join(f"argument #{i} = {kernel.sizes.original()[n]}" for i, n in sorted(kernel.sizes.params.items()))
        report.assumptions.append(f"raised at the sizes {fixed}: the drop-in runs the original loops "
                                  f"(@{name}_loops) for other values")
    validation = _validation(report, options, kernel)
    module = output_module(kernel, raised_function_text(result, kernel.sizes.original(),
                                                        attributes=validation["attributes"], generic=generic),
                           target, generic)
    seconds = time.monotonic() - t0
    stats = {"target": target, "search_seconds": round(searched, 3),
             "sizes": _sizes_json(kernel.sizes.original()), "standin_sizes": result.spec.standin,
             "groups": [g.statements for g in result.spec.groups], "problems": problems,
             "candidates": sum(s["enumerated"] for s in problems), "attempts": len(refuted) + 1,
             "rounds": rounds, "refuting_examples": len(extra),
             "refuted": refuted, "verification": validation["level"], "validation": validation,
             "checks": validation["sizes_tested"], "seconds": round(seconds, 3),
             "search_share": round(searched / seconds, 3) if seconds > 0 else None,
             "shapes": "generic" if generic else "static"}
    if generic_note is not None:
        stats["generic_fallback"] = generic_note
    outcome = RaiseOutcome(name, target, kernel, result, module, validation, stats, seconds)
    stats["form"] = outcome.form
    return outcome


DIAGONALS = ("the loop over the table's diagonals (synth.synthesis.diagonals): every read of the table "
             "at another cell is of a cell on an earlier diagonal (shorter; longer where they run downwards) "
             "that an earlier iteration writes, or of "
             "one no iteration writes (checked with Z3 for every size), so each diagonal computed at once "
             "from the ones before it is what the loops compute; the raise proven at bounded sizes (the "
             "plan's and up to 8) with the loop unrolled there, not by induction on the diagonal")


DIAGONAL_PROOF_SIZES = (4, 5, 6, 8)  # up to 12 proves too, in 5-8 s: not worth its time


def _raise_diagonals(source: SourceModule, kernel: Kernel, target: str, options: RaiseOptions,
                     t0: float) -> RaiseOutcome | None:
    """The kernel raised as a loop over its table's diagonals (synth.synthesis.diagonals),
    validated; None where it is not such a nest (the search runs as before). Shape-generic
    where the options want it (else, or where that text fails, static: at the
    kernel's own sizes, the drop-in running the loops at others)."""
    import os

    from synth.validation.verify import verify_text

    def say(what: str) -> None:
        if os.environ.get("SYNTH_DEBUG_SKETCH"):
            print(f"diagonals of @{kernel.name}: {what}")
    try:
        if wants_generic(kernel, options):  # sizes known only at run time: test values first
            kernel.sizes.with_test_values()
        raised = diagonal_raise(kernel, target, deadline=t0 + options.settings.timeout)
    except (NotDiagonal, InputError) as e:  # not such a nest, or its sizes not told here
        return say(str(e))
    more = []  # the loop unrolled at a few more sizes than the plan's 2 and 3
    for first in DIAGONAL_PROOF_SIZES:
        try:
            more.append(kernel.sizes.small_values(first))
        except InputError:
            break
    more = [dict(m) for m in dict.fromkeys(tuple(sorted(c.items())) for c in more)]
    for generic in ([True] if wants_generic(kernel, options) else []) + [False]:
        try:
            if generic:
                kernel.sizes.with_test_values()
            text, at, generic_text = _diagonal_texts(raised, kernel, generic)
            report = verify_text(source, text, f"<raised @{kernel.name}>", kernel.name, options.verify,
                                 z3_timeout=options.z3_timeout, kernel=kernel, raised_at=at,
                                 generic_text=generic_text, more_proofs=more)
        except (NotDiagonal, GenericUnsupported, InputError) as e:  # not such a nest at a size
            # validation takes, or a text of this module's that validation cannot read
            if isinstance(e, InputError) and not str(e.location or "").startswith("<raised"):
                raise
            say(f"{'generic: ' if generic else ''}{e}")
            continue
        if report.verdict != "not equivalent":
            break
        say(f"refuted: {report.counterexample}")  # a fault of this module: the search runs instead
    else:
        return None
    if kernel.sizes.params and not generic:
        fixed = ", ".join(f"argument #{i} = {kernel.sizes.original()[n]}" for i, n in sorted(kernel.sizes.params.items()))
        report.assumptions.append(f"raised at the sizes {fixed}: the drop-in runs the original loops "
                                  f"(@{kernel.name}_loops) for other values")
    report.assumptions.append(DIAGONALS)
    validation = _validation(report, options, kernel)
    module = output_module(kernel, _with_attributes(generic_text or text, validation["attributes"]), target, generic)
    seconds = time.monotonic() - t0
    stats = {"target": target, "search_seconds": 0.0, "sizes": _sizes_json(kernel.sizes.original()),
             "standin_sizes": {}, "groups": [], "problems": [], "candidates": 0, "attempts": 1,
             "rounds": 0, "refuting_examples": 0, "refuted": [], "verification": validation["level"],
             "validation": validation, "checks": validation["sizes_tested"], "seconds": round(seconds, 3),
             "search_share": 0.0, "shapes": "generic" if generic else "static", "form": "loop with tensor body"}
    return RaiseOutcome(kernel.name, target, kernel, raised, module, validation, stats, seconds)


def _diagonal_texts(raised: DiagonalRaise, kernel: Kernel, generic: bool):
    """(the raised text at the kernel's own sizes, the same at other sizes, the generic text
    or None), as raised_texts gives them for a program."""
    if not generic:
        return raised.text(kernel.sizes.original()), raised.text, None
    from synth.semantics.specialize import specialize

    text = raised.generic_text()

    def at(values):
        shapes = [tuple(int(n) for n in kernel.tensor_type(i, values).shape) for i in range(kernel.n_arguments)]
        return specialize(text, f"{kernel.name}_raised", raised.dialect, shapes)
    return at(kernel.sizes.original()), at, text


def _with_attributes(text: str, attributes: dict[str, str]) -> str:
    """`text` (one func.func with an attribute dictionary) with `attributes` added to it."""
    extra = "".join(f", {k} = {v}" for k, v in attributes.items())
    head, rest = text.split(" attributes {", 1)
    inside, tail = rest.split("}", 1)
    return f"{head} attributes {{{inside}{extra}}}{tail}"
