"""Validating a raise (synth.pipeline.raise_function's step before any output): the raised
function tested and proven against the original (synth.validation.verify), a function raised
nest by nest part by part and whole, a loop kept as a loop through its step (by induction)
and whole. The small test instances of everything one validation tests are compiled as one
batch before its first test (synth.validation.testing.precompile_plans): only the time
changes, never what is tested or proven."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, NamedTuple

from synth.analysis.model import Kernel
from synth.codegen.raised import raised_function_text
from synth.errors import InputError
from synth.frontend.reader import SourceModule
from synth.synthesis.solve import RaiseResult

if TYPE_CHECKING:  # the package's own options class (it imports this module first)
    from synth.pipeline import RaiseOptions


def raised_texts(result: RaiseResult, generic: bool, kernel: Kernel | None = None):
    """(the raised function at the kernel's own sizes, `at(values)`: at other sizes) as
    validation runs it. Static: the program emitted at those sizes. Generic: the one
    shape-generic text, made static at each size by the compilers' own shape refinement
    (synth.semantics.specialize), so what is tested and proven is that text."""
    kernel = kernel or result.spec.kernel  # a time loop's whole kernel, not its step's
    if not generic:
        return (raised_function_text(result, kernel.sizes.original()),
                lambda values: raised_function_text(result, values))
    from synth.semantics.specialize import specialize

    text = raised_function_text(result, kernel.sizes.original(), generic=True)
    counter = result.time_loop.counter if result.time_loop is not None else None
    state = result.time_loop.state if result.time_loop is not None else ()
    arguments = [i for i in range(kernel.n_arguments) if i != counter and i not in state]

    def at(values):
        shapes = [tuple(int(n) for n in kernel.tensor_type(i, values).shape) for i in arguments]
        return specialize(text, f"{result.name}_raised", result.dialect, shapes)
    return at(kernel.sizes.original()), at


def _generic_text(result: RaiseResult, generic: bool, kernel: Kernel | None = None) -> str | None:
    """The shape-generic text of a result (None for a static raise)."""
    kernel = kernel or result.spec.kernel
    return raised_function_text(result, kernel.sizes.original(), generic=True) if generic else None


def validate(source: SourceModule, kernel: Kernel, result: RaiseResult, target: str,
             options: RaiseOptions, generic: bool = False, own_sizes: bool = True, prepared=None,
             ahead=None, also=()):
    """synth verify on @NAME_raised at the original sizes (the program re-instantiated from
    its size symbols at the others; a generic text specialized at each). Returns the
    report. The output module (with the drop-in) is emitted once, after this. `prepared`,
    `ahead` (a loop's _LoopAhead): what a caller prepared and compiled beforehand; `also`:
    what a chain compiles in its batch besides its own (the loop around it: _LoopAhead)."""
    from synth.validation.verify import verify_text

    if result.before is not None:
        return _validate_chain(source, kernel, result, target, options, generic, own_sizes, also)
    if result.time_loop is not None:
        return _validate_loop(source, kernel, result, target, options, generic, own_sizes, prepared, ahead)
    prepared = prepared or _prepare(source, kernel, result, generic, own_sizes, quiet=False)
    return verify_text(source, prepared.raised.text, f"<raised @{kernel.name}>", kernel.name, options.verify,
                       z3_timeout=options.z3_timeout, kernel=kernel, prepared=prepared)


def _early(part, generic: bool):
    """_prepare for what validating the chain part `part` verifies first: itself, or its
    loop's step (where that is no chain of its own); None for a part whose step is a chain."""
    if part.time_loop is None:
        return _prepare(part.part.source, part.part, part, generic, False)
    if part.step is None:
        k = part.spec.kernel
        return _prepare(k.source, k, replace(part, time_loop=None, prologue=None), generic, False, what="step of ")
    return None


def _prepare(source: SourceModule, kernel: Kernel, result, generic: bool, own_sizes: bool, kernel_of=None,
             quiet: bool = True, what: str = "", steps: dict | None = None, label: str | None = None):
    """verify.prepare for `result` as `validate` (a plain result: `prepared`) or _validate_chain
    (its whole: `kernel_of` its kernel) verify it; `quiet`: None where that fails (raised later).
    `steps`: as verify_text's; `label`: the text's name in messages (default: `<raised {what}@NAME>`)."""
    from synth.validation.verify import prepare

    try:
        raised, at = raised_texts(result, generic, kernel_of)
        return prepare(source, raised, label or f"<raised {what}@{kernel.name}>", kernel.name, kernel=kernel,
                       raised_at=at, generic_text=_generic_text(result, generic, kernel_of), own_sizes=own_sizes,
                       steps=steps)
    except (InputError, ValueError):
        if quiet:
            return None
        raise


class _LoopAhead(NamedTuple):
    """What validating a loop kept as a loop (_validate_loop) verifies, prepared before any of
    it is tested, so that the small test instances of all three compile in one batch
    (precompile_plans): its step (None where the step is a chain, validated as such), the
    statements before the loop (None: none), the whole loop. The whole loop's largest test
    may run fewer steps where its step is proven (plan.step_symbols): it is prepared with
    `steps` as they are for a proven step, and prepared again where the step is not."""
    step: object
    prologue: object
    whole: object
    steps: dict

    def plans(self) -> list:
        return [p for p in (self.step, self.prologue, self.whole) if p is not None]


_PROVEN = SimpleNamespace(verdict="equivalent", level="z3")  # a step proven on every input state


def _loop_ahead(source: SourceModule, kernel: Kernel, result, generic: bool, own_sizes: bool,
                step=None) -> _LoopAhead:
    """_LoopAhead of the loop `result` (`step`: its step already prepared, by a chain)."""
    from synth.validation.plan import step_symbols

    if step is None and result.step is None:
        k = result.spec.kernel
        step = _prepare(k.source, k, replace(result, time_loop=None, prologue=None), generic, False, what="step of ")
    prologue = None
    if result.prologue is not None:
        before = result.prologue
        prologue = _prepare(before.spec.kernel.source, before.spec.kernel, before, generic, own_sizes,
                            label=f"<raised statements before the loop of @{kernel.name}>")
    steps = step_symbols(kernel, result.time_loop, _PROVEN)
    whole = _prepare(source, kernel, result, generic, own_sizes, kernel, steps=steps)
    return _LoopAhead(step, prologue, whole, steps)


INDUCTION = ("the time loop: proven for one step on every input state (the arrays the step "
             "reads and writes), so for every step count by induction; the whole loop tested")

COUNTER_INDUCTION = ("the loop kept as a loop: its step proven on every input state (the arrays the "
                     "step reads and writes) at every value of its counter, so the loop by induction "
                     "on the counter; the whole loop tested")

PROLOGUE = ("the statements before the loop kept as a loop: raised and proven as a function of "
            "their own (the local scalars the loop carries made its arguments), at the same level")

ZERO_STATE = ("the recurrence interchanged (synth.synthesis.recurrence): its local scalars, one per "
              "iteration of the parallel loop, carried as vectors that start at zeros as the "
              "original's start at 0")

_LEVELS = ("test", "z3", "all")

ROTATION = ("the step reads at index 0 what the original reads at the step's index t; the loop "
            "rotates those inputs by one after each step, so step t reads element t: ")

CHAIN = ("the function raised nest by nest (synth.synthesis.recurrence.nest_parts): each nest raised "
         "and validated as a function of its own over the same arguments (what the nests before it "
         "wrote are its inputs), so the parts in order compute what the nests in order do; where a "
         "loop was first distributed into one loop per piece of its body (synth.synthesis.distribute), "
         "that no iteration touches another's elements is checked from its accesses, not proven; the "
         "whole tested")


def _validate_chain(source: SourceModule, kernel: Kernel, result, target: str, options: RaiseOptions,
                    generic: bool = False, own_sizes: bool = True, also=()):
    """A function raised nest by nest (RaiseResult.before): each part validated on its own
    at `options.verify` (a part that is a loop as such), the whole chain tested by
    execution (at its own sizes where `own_sizes`); the level reached is the parts' lowest.
    `also`: prepared tests of the caller's (the loop this chain is the step of), compiled in
    the same batch."""
    from synth.codegen.raised import chain
    from synth.validation.testing import precompile_plans
    from synth.validation.verify import verify_text

    alone = [replace(part, before=None) for part in chain(result)]
    # the parts' (a loop's: its step's, the statements before it and the whole loop's), the
    # whole's and the caller's test instances compiled as one batch, before any test
    early = [_early(a, generic) for a in alone]
    loops = [_loop_ahead(a.part.source, a.part, a, generic, False, ready) if a.time_loop is not None else None
             for a, ready in zip(alone, early)]
    whole_prepared = _prepare(source, kernel, result, generic, own_sizes, kernel)
    precompile_plans([p for p in early + [whole_prepared] if p is not None] +
                     [p for loop in loops if loop is not None for p in loop.plans()] + list(also))
    parts = []
    for part, ready, loop in zip(alone, early, loops):
        got = validate(part.part.source, part.part, part, target, options, generic, own_sizes=False,
                       prepared=ready, ahead=loop)
        if got.verdict == "not equivalent":
            return got
        parts.append(got)
    whole_prepared = whole_prepared or _prepare(source, kernel, result, generic, own_sizes, kernel, quiet=False)
    whole = verify_text(source, whole_prepared.raised.text, f"<raised @{kernel.name}>", kernel.name, "test",
                        kernel=kernel, prepared=whole_prepared)
    if whole.verdict == "not equivalent":
        return whole
    worst = min(parts, key=lambda r: (r.verdict == "equivalent", _LEVELS.index(r.level)))
    whole.verdict, whole.level, whole.message = worst.verdict, worst.level, worst.message
    whole.all_sizes = next((r.all_sizes for r in parts if r.all_sizes), "")
    whole.domain = "; ".join(dict.fromkeys(r.domain for r in parts if r.domain))
    whole.sizes_proven = [s for r in parts if r.level == "z3" for s in r.sizes_proven]
    for r in parts:
        whole.assumptions += [a for a in r.assumptions if a not in whole.assumptions]
        whole.seconds += r.seconds
    whole.assumptions.append(CHAIN)
    return whole


def _validate_loop(source: SourceModule, kernel: Kernel, result, target: str, options: RaiseOptions,
                   generic: bool = False, own_sizes: bool = True, prepared=None, ahead=None):
    """A time loop kept as a loop (synth.synthesis.steps): the raised step proven against
    the original's step at `options.verify` (every input state, so every number of steps
    by induction: both loops apply their step the same number of times to the same
    state), and the whole raised loop (the text written) tested against the original by
    execution; the step tested at the small sizes, at the largest only inside the whole.
    `ahead`: this loop's _LoopAhead, prepared and compiled by the chain it is a part of
    (None: prepared here, the step's, the statements before it and the whole's small test
    instances compiled as one batch, the step's own chain's with them)."""
    from synth.validation.plan import step_symbols
    from synth.validation.testing import precompile_plans
    from synth.validation.verify import verify_text

    step_kernel = result.spec.kernel
    also = ()
    if ahead is None:
        ahead = _loop_ahead(source, kernel, result, generic, own_sizes, prepared)
        if result.step is None:
            precompile_plans(ahead.plans())
        else:
            also = ahead.plans()
    if result.step is not None:  # the step raised nest by nest: validated as such a chain
        step = validate(step_kernel.source, step_kernel, result.step, target, options, generic, False, also=also)
    else:
        ready = prepared or ahead.step or _prepare(step_kernel.source, step_kernel, replace(result, time_loop=None, prologue=None),
                                     generic, False, quiet=False, what="step of ")
        step = verify_text(step_kernel.source, ready.raised.text, f"<raised step of @{kernel.name}>", kernel.name,
                           options.verify, z3_timeout=options.z3_timeout, kernel=step_kernel, prepared=ready)
    if step.verdict == "not equivalent":
        return step
    if result.prologue is not None:  # the statements before the loop: a kernel of their own
        before = result.prologue
        if ahead.prologue is not None:
            first = verify_text(before.spec.kernel.source, ahead.prologue.raised.text,
                                f"<raised statements before the loop of @{kernel.name}>", kernel.name,
                                options.verify, z3_timeout=options.z3_timeout, kernel=before.spec.kernel,
                                prepared=ahead.prologue)
        else:
            before_text, before_at = raised_texts(before, generic)
            first = verify_text(before.spec.kernel.source, before_text,
                                f"<raised statements before the loop of @{kernel.name}>", kernel.name,
                                options.verify, z3_timeout=options.z3_timeout, kernel=before.spec.kernel,
                                raised_at=before_at, generic_text=_generic_text(before, generic),
                                own_sizes=own_sizes)
        if first.verdict == "not equivalent":
            return first
        if step.verdict == "equivalent" and first.verdict != "equivalent":
            step.verdict, step.message = first.verdict, f"the statements before the loop: {first.message}"
        elif _LEVELS.index(first.level) < _LEVELS.index(step.level):
            step.level = first.level
        step.assumptions.append(PROLOGUE)
    elif result.time_loop.state:  # an interchanged recurrence's state, from zeros
        step.assumptions.append(ZERO_STATE)
    steps = step_symbols(kernel, result.time_loop, step)
    if ahead.whole is not None and ahead.steps == steps:  # as prepared before the step was validated
        whole = verify_text(source, ahead.whole.raised.text, f"<raised @{kernel.name}>", kernel.name, "test",
                            kernel=kernel, prepared=ahead.whole)
    else:
        whole_text, whole_at = raised_texts(result, generic, kernel)
        whole = verify_text(source, whole_text, f"<raised @{kernel.name}>", kernel.name, "test", kernel=kernel,
                            raised_at=whole_at, generic_text=_generic_text(result, generic, kernel),
                            own_sizes=own_sizes, steps=steps)
    if whole.verdict == "not equivalent":
        return whole
    step.assumptions += [a for a in whole.assumptions if a not in step.assumptions]
    step.sizes_tested = whole.sizes_tested + step.sizes_tested
    step.largest = whole.largest + step.largest
    step.input_sets += whole.input_sets
    step.timings = {**step.timings, "test (whole loop)": whole.timings.get("test", 0.0)}
    step.seconds += whole.seconds
    step.function, step.raised_function = whole.function, whole.raised_function
    if step.verdict == "equivalent" and step.level in ("z3", "all"):
        step.assumptions.append(INDUCTION if result.time_loop.counter is None else COUNTER_INDUCTION)
        if result.time_loop.rotated:
            step.assumptions.append(ROTATION + ", ".join(f"arg{a} along dim {d}" for a, d in result.time_loop.rotated))
        if step.level == "all":
            step.domain += "; every step count (by induction on the step)"
    return step
