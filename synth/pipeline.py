"""One raise, start to end: the function `synth raise` and `synth bench` both call.

    outcome = raise_function(source, "kernel_gemm", "stablehlo", RaiseOptions())
    outcome.module      # the output module (only ever set when validated)
    outcome.stats       # what the CLI writes to --stats-json

Steps: load the kernel (normal form, size symbols), search a program at stand-in sizes,
emit it at the original sizes, validate it (synth.validation.verify, re-instantiating the program at
each size from its symbols), and only then return a module. A program that validation
refutes was right on the search's examples only: the search runs again on examples of
more kinds (negative and positive values, the kernel's own constants), keeping values
with inf / nan this time (a select may discard them), within the same budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from synth.analysis.model import Kernel, load_kernel
from synth.codegen.emit import output_module
from synth.errors import NoSolutionError
from synth.frontend.reader import SourceModule
from synth.codegen.raised import raised_function_text
from synth.synthesis.solve import RaiseResult, search_kernel
from synth.synthesis.search import SearchSettings
from synth.synthesis.spec import EXAMPLE_KINDS

ATTEMPTS = (  # (seed, example kinds, keep values with inf / nan) of each search
    (0, ("random",), False),
    (1, EXAMPLE_KINDS, True),
)


@dataclass(frozen=True)
class RaiseOptions:
    settings: SearchSettings = field(default_factory=SearchSettings)
    verify: str = "all"  # "test", "z3" (bounded proof) or "all" (every size, else bounded)
    z3_timeout: float = 60.0
    seed: int = 0  # of the search's random examples


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
    def summary(self) -> str:
        return (f"@{self.name}: raised to {self.target} in {self.seconds:.2f} s "
                f"({self.stats['candidates']} candidates, {len(self.result.stats)} problems), "
                f"validated: {self.validation['summary']}")


def _sizes_json(sizes: dict[str, int]) -> dict[str, int]:
    return dict(sorted(sizes.items()))


def _sizes_words(configs: list[dict[str, int]]) -> str:
    """`n1000=2, n1200=3 and n1000=3, n1200=2` for a list of size configurations."""
    texts = [", ".join(f"{n}={v}" for n, v in sorted(c.items())) or "(no sizes)" for c in configs]
    return " and ".join(texts) if len(texts) <= 2 else "; ".join(texts[:-1]) + " and " + texts[-1]


def validate(source: SourceModule, kernel: Kernel, result: RaiseResult, target: str,
             options: RaiseOptions):
    """synth verify on @NAME_raised at the original sizes (the program re-instantiated from
    its size symbols at the others). Returns the report. The output module (with the
    drop-in) is emitted once, after this."""
    from synth.validation.verify import verify_text

    raised = raised_function_text(result, kernel.sizes.original())
    return verify_text(source, raised, f"<raised @{kernel.name}>", kernel.name, options.verify,
                       z3_timeout=options.z3_timeout, kernel=kernel,
                       raised_at=lambda values: raised_function_text(result, values))


def arithmetic(kernel: Kernel) -> str:
    """What a proof's arithmetic is: real numbers for float outputs, integers (no
    wrap-around) for integer ones."""
    kinds = {"real" if kernel.function.arguments[o].type.startswith("f") else "integer"
             for o in kernel.outputs}
    return " and ".join(sorted(kinds)) + " arithmetic"


def _validation(report, options: RaiseOptions, kernel: Kernel) -> dict:
    level = report.level if report.verdict == "equivalent" else "test"
    exact = arithmetic(kernel)
    proven = [_sizes_json(s) for s in report.sizes_proven] if level == "z3" else []
    attributes = {"synth.validation": f'"{level}"'}
    if level == "all":
        attributes["synth.proof"] = f'"all sizes: {report.domain}; every input symbolic, {exact}"'
    elif report.all_sizes:
        attributes["synth.all_sizes"] = '"' + report.all_sizes.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if proven:
        attributes["synth.sizes_proven"] = "[" + ", ".join(
            "{" + ", ".join(f"{n} = {v}" for n, v in sorted(s.items())) + "}"
            for s in report.sizes_proven) + "]"
        attributes["synth.proof"] = f'"bounded sizes, every input symbolic, {exact}"'
    if report.assumptions:  # what the validation took for granted, in the words of its report
        attributes["synth.assumptions"] = "[" + ", ".join(
            '"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"' for a in report.assumptions) + "]"
    summary = (f"proven equivalent with Z3 for every size ({report.domain}; {exact})" if level == "all"
               else f"proven equivalent with Z3 at sizes {_sizes_words(proven)} ({exact})" if proven
               else f"tested on {report.input_sets} input sets at sizes {_sizes_words(report.sizes_tested)}"
               + (f"; Z3 undecided: {report.message}" if options.verify != "test" else ""))
    return {"level": level, "sizes_proven": proven, "seconds": round(report.seconds, 3),
            "sizes_tested": [_sizes_json(s) for s in report.sizes_tested],
            "timings": report.timings, "assumptions": list(report.assumptions),
            "proof": report.proof, "all_sizes": report.all_sizes,
            "attributes": attributes, "summary": summary}


def raise_function(source: SourceModule, name: str, target: str, options: RaiseOptions,
                   kernel: Kernel | None = None) -> RaiseOutcome:
    """Raise @name to `target` and validate it; NoSolutionError (exit 3) when no program
    is found, or none that validates, within the budget."""
    t0 = time.monotonic()
    deadline = t0 + options.settings.timeout
    kernel = kernel or load_kernel(source, name)
    refuted = []
    problems: list = []
    result = None
    for attempt, (seed, kinds, nonfinite) in enumerate(ATTEMPTS):
        if attempt and time.monotonic() >= deadline:
            break
        settings = replace(options.settings, keep_nonfinite=nonfinite)
        result = search_kernel(kernel, target, settings, deadline=deadline, seed=options.seed + seed,
                               kinds=kinds, previous=result)
        problems += result.stats
        report = validate(source, kernel, result, target, options)
        if report.verdict != "not equivalent":
            break
        refuted.append(f"{'; '.join(s['program'] for s in result.stats if s['program'])} "
                       f"(examples: {', '.join(kinds)}): {report.counterexample}")
    else:
        raise NoSolutionError(f"the program found for @{name} failed validation: "
                              + " | ".join(refuted))
    if report.verdict == "not equivalent":  # out of time after a refutation
        raise NoSolutionError(f"the program found for @{name} failed validation: " + " | ".join(refuted))
    validation = _validation(report, options, kernel)
    module = output_module(kernel, raised_function_text(result, kernel.sizes.original(),
                                                        attributes=validation["attributes"]), target)
    seconds = time.monotonic() - t0
    stats = {"target": target, "search_seconds": round(result.seconds, 3),
             "sizes": _sizes_json(kernel.sizes.original()), "standin_sizes": result.spec.standin,
             "groups": [g.statements for g in result.spec.groups], "problems": problems,
             "candidates": sum(s["enumerated"] for s in problems), "attempts": len(refuted) + 1,
             "refuted": refuted, "verification": validation["level"], "validation": validation,
             "checks": validation["sizes_tested"], "seconds": round(seconds, 3)}
    return RaiseOutcome(name, target, kernel, result, module, validation, stats, seconds)
