"""Raising one function: specification -> search per problem -> composition ->
re-instantiation at any sizes. Checking the result (by execution at several sizes, then
Z3) is synth.validation.verify's, which `synth raise` runs before anything is emitted.

The raised function `@NAME_raised` takes one tensor per original argument (memref<SxT>
becomes tensor<SxT>, a dynamic dim its extent; a scalar T becomes tensor<T>) and returns
the final contents of every array argument the original writes, in argument order
(`synth.outputs` lists their indices), then the original's own results in order. Its body
chains the solutions of the statement groups in execution order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from synth.analysis.carried import carried_scalars
from synth.analysis.dependences import recurrences
from synth.analysis.model import Kernel
from synth.errors import InputError, NoSolutionError
from synth.grammar.types import ShapeError
from synth.numerics import equal
from synth.synthesis.opset import is_library_op
from synth.synthesis.program import Expr, cost as program_cost, evaluate, instantiate, leaves
from synth.synthesis.search import SearchSettings, SearchStats, search
from synth.synthesis.sketch import sketches
from synth.synthesis.steps import LiftedLoop, TimeLoop, counter_loop, counter_step_kernel, lifted_loop, step_kernel
from synth.synthesis.recurrence import has_interchangeable_nest, interchanged_recurrence, nest_parts
from synth.synthesis.distribute import distributed, unwrapped
from synth.synthesis.wavefront import wavefront_solution
from synth.synthesis.spec import Specification, build_specification
from synth.synthesis.views import widen


@dataclass
class GroupSolution:
    statements: list[int]
    programs: dict[int, Expr]  # output argument -> program over the group's inputs
    # the programs over the boxes the kernel reaches, before synth.synthesis.views widened
    # them (None where nothing was widened): what a later round of the search may keep
    over_boxes: dict[int, Expr] | None = None


@dataclass
class RaiseResult:
    name: str
    dialect: str
    spec: Specification
    solutions: list[GroupSolution]
    stats: list[dict] = field(default_factory=list)  # one entry per problem
    seconds: float = 0.0
    # the time loop the programs run in (synth.synthesis.steps); the programs are its body
    time_loop: TimeLoop | None = None
    # the raise of the statements before a loop kept as a loop (steps.lifted_loop), over
    # the same arguments as the loop's step: run once, before the loop
    prologue: "RaiseResult | None" = None
    # the raise of the loop nests before this one (synth.synthesis.recurrence.nest_parts:
    # a function raised nest by nest), run first; its writes are this part's inputs
    before: "RaiseResult | None" = None
    part: Kernel | None = None  # such a part's own kernel (the one nest)
    # a time loop's step raised nest by nest (its nests distributed, the recurrences among
    # them interchanged: synth.synthesis.distribute), where the step's own programs are not
    # found as they are: the loop's body is this chain, `solutions` are empty
    step: "RaiseResult | None" = None

    def nested(self) -> list["RaiseResult"]:
        """This raise and every raise it is made of (the parts before it, the statements
        before its loop, the parts of its step), recursively."""
        return [self] + [r for p in (self.before, self.prologue, self.step) if p is not None for r in p.nested()]

    @property
    def outputs(self) -> list[int]:
        """Normal-form arguments the raised function returns (written, then results)."""
        return self.spec.kernel.outputs

    def original_sizes(self) -> dict[str, int]:
        return self.spec.kernel.sizes.original()


def _still_right(program: Expr, problem) -> bool:
    """Whether a program found before (on other examples) is right on this problem's."""
    if program.type != problem.output_type or any(
            leaf not in problem.input_types for leaf in leaves(program)):
        return False
    try:
        got = evaluate(program, problem.examples_in)
    except (KeyError, ValueError, IndexError):
        return False
    return all(equal(want, have) for want, have in zip(problem.examples_out, got))


def solve(spec: Specification, settings: SearchSettings, deadline: float,
          previous: dict | None = None, sketched: dict | None = None) -> tuple[list[GroupSolution], list[dict]]:
    """A program per problem. `previous`: problem name -> the program an earlier search
    found (on other examples); kept where it is still right on these examples.
    `sketched`: problem name -> the program read off its statement (synth.synthesis.sketch),
    taken without a search where it is right on the examples."""
    solutions, stats = [], []
    recurrent = None  # the note naming a recurrence among the kernel's statements ("": none)
    previous = previous or {}
    sketched = {} if sketched is None else sketched  # (a Sketches keeps why the others have none)
    for g in spec.groups:
        programs = {}
        for problem, out in g.solving_order():
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoSolutionError(f"time budget exhausted before {problem.name} (statements "
                                      f"{g.statements} of the original) was searched"
                                      + _recurrence_note(spec, g.statements))
            old = previous.get(problem.name)
            if old is not None and _still_right(old, problem):
                stats.append({"problem": problem.name, "group": g.index, "output": out,
                              "statements": g.statements, "ops": [o.name for o in problem.ops],
                              "program": str(old), "reused": True, **SearchStats().as_dict()})
                programs[out] = old
                continue
            sketch = sketched.get(problem.name)
            if sketch is not None and _still_right(sketch, problem):
                stats.append({"problem": problem.name, "group": g.index, "output": out,
                              "statements": g.statements, "ops": [o.name for o in problem.ops],
                              "program": str(sketch), "sketch": True,
                              **SearchStats(solution_size=sketch.size()).as_dict()})
                programs[out] = sketch
                continue
            # the programs found for the arrays the group wrote before this one: values of
            # the search's first level (ludcmp's x solves with the y and the LU found before)
            seeds = tuple(p for p in programs.values() if leaves(p) <= set(problem.input_types))
            if recurrent is None:  # once, before the first search: the kernel's recurrences
                recurrent = _recurrence_hit(spec, [s for h in spec.groups for s in h.statements])
                if recurrent:
                    deadline = min(deadline, time.monotonic() + RECURRENCE_SEARCH)
                    left = deadline - time.monotonic()
            found, st = search(problem, replace(settings, timeout=left), seeds)
            stats.append({"problem": problem.name, "group": g.index, "output": out,
                          "statements": g.statements, "ops": [o.name for o in problem.ops],
                          "program": str(found) if found else None, **st.as_dict()})
            if found is None:
                why = "time budget exhausted" if st.seconds >= left * 0.99 else \
                    f"no program of up to {st.size_reached} ops in the grammar"
                if recurrent and st.seconds >= left * 0.99:
                    why = (f"no program in the {RECURRENCE_SEARCH:g} s of search a kernel with a "
                           f"recurrence is given")
                unsketched = getattr(sketched, "why", {}).get(problem.name)
                raise NoSolutionError(
                    f"no equivalent program found for {problem.name} (statements "
                    f"{g.statements} of the original): {why}; {st.evaluated} candidates evaluated"
                    + (f" (its statement is not read off as written: {unsketched})" if unsketched else "")
                    + _recurrence_note(spec, g.statements))
            programs[out] = found
        solutions.append(GroupSolution(g.statements, programs))
    if spec.views:  # programs over the boxes the kernel reaches -> over the whole arrays
        kernel = spec.kernel
        full = {i: kernel.tensor_type(i, spec.standin) for i in range(len(kernel.function.arguments))}
        solutions = [GroupSolution(s.statements, widen(s.programs, spec.views, spec.view_inputs, full,
                                                           spec.standin, spec.dialect), s.programs)
                     for s in solutions]
    return solutions, stats


# seconds of search, all groups together, for a kernel one of whose statements is a
# recurrence (through an array, or a scalar carried other than as an accumulation): no
# tensor op computes one from the inputs alone, so a program is at best a small one found
# early, and the rest of the budget would be spent on nothing (an IIR filter, an integral
# image, Welford's moments)
RECURRENCE_SEARCH = 10.0


def _recurrence_hit(spec: Specification, statements: list[int]) -> str:
    """The note of `_recurrence_note` where one of `statements` is a recurrence; else ""."""
    note = _recurrence_note(spec, statements)
    return "" if "in another group" in note else note


def _recurrence_note(spec: Specification, statements: list[int]) -> str:
    """Why a group's search may have had nothing to find: one of its statements is a
    recurrence through an array (synth.analysis.dependences.recurrences) or reads a scalar
    a loop carries (carried_scalars). Empty where none is."""
    kernel = spec.kernel
    found = recurrences(spec.standin_source, kernel.name, kernel.sizes.param_values(spec.standin))
    hit = [s for s in statements if s in found]
    if hit:
        return (f". Statement {hit[0]} is a recurrence: it reads elements of arg{found[hit[0]]} that "
                f"earlier iterations of its own loops wrote, which no tensor op computes from the "
                f"inputs alone; {_KEPT_LOOPS}")
    carried = carried_scalars(spec.standin_source, kernel.name)
    hit = [s for s in statements if s in carried]
    if hit:
        return (f". Statement {hit[0]} stores a value computed from a scalar recurrence "
                f"({carried[hit[0]]}); the target's loops carry arrays, not scalars, and "
                f"{_KEPT_LOOPS}")
    later = sorted(s for s in found if s not in statements)  # the function cannot raise anyway
    if later:
        return (f". Statement {later[0]} of the function, in another group, is a recurrence: it "
                f"reads elements of arg{found[later[0]]} that earlier iterations of its own loops "
                f"wrote, which no tensor op computes from the inputs alone")
    return ""


_KEPT_LOOPS = ("a loop is kept as a loop around tensor steps only where it is a time loop or the "
               "kernel's one top-level loop and each step's statements read off as tensor ops over "
               "whole rows or columns, and the library ops cover triangular solves and Cholesky "
               "factorizations")


def original_cost(kernel: Kernel) -> Callable[[Expr], int]:
    """A program's estimated work at the kernel's original sizes (where the choice among
    equivalent programs matters: a stand-in 3x4 matrix says little about 1900x2100)."""
    values = kernel.sizes.original()
    types = {i: kernel.tensor_type(i, values) for i in range(len(kernel.function.arguments))}

    def cost(expr: Expr) -> int:
        try:
            return program_cost(instantiate(expr, values, types))
        except (ShapeError, KeyError):  # a leaf with no original type: the search's sizes
            return program_cost(expr)
    return cost


def search_kernel(kernel: Kernel, dialect: str, settings: SearchSettings, *,
                  deadline: float | None = None, seed: int = 0,
                  kinds: tuple[str, ...] = ("random",), extra: tuple = (),
                  previous: RaiseResult | None = None) -> RaiseResult:
    """Search a program for the kernel; not yet checked (see synth.validation.verify).
    `extra`: more example states at the stand-in sizes (build_specification's).
    `previous`: an earlier (refuted) result whose programs are kept where still right."""
    t0 = time.monotonic()
    deadline = t0 + settings.timeout if deadline is None else deadline
    time_loop = None
    old = {}
    if previous is not None:
        for g, sol in zip(previous.spec.groups, previous.solutions):
            for p, out in zip(g.problems, g.writes):
                old[p.name] = (sol.over_boxes or sol.programs)[out]
    counter = counter_loop(kernel) if settings.sketches else None
    lifted = lifted_loop(kernel) if settings.sketches and counter is None else None
    # a recurrence along an inner loop, parallel along the outer: interchanged, its scalars
    # expanded (synth.synthesis.recurrence), then raised as statements and a counter loop
    swapped = interchanged_recurrence(kernel) if settings.sketches and lifted is None else None
    if previous is not None and previous.time_loop is not None and previous.time_loop.interchanged \
            and swapped is not None:
        return _swapped_raise(swapped, dialect, settings, deadline, seed, kinds, extra, old, t0)
    if previous is not None and previous.time_loop is not None and previous.time_loop.state \
            and lifted is not None:
        return _lifted_raise(lifted, dialect, settings, deadline, seed, kinds, t0)
    if previous is not None and previous.time_loop is not None and previous.time_loop.counter is not None:
        return _counter_raise(kernel, counter, dialect, settings, deadline, seed, kinds, extra, old, t0)
    if kernel.sizes.time_loops:  # a loop of the target, around the program of one step
        kernel, time_loop = step_kernel(kernel)
    spec = build_specification(kernel, dialect, seed=seed, kinds=kinds, extra=extra)
    if settings.cost is None:
        settings = replace(settings, cost=original_cost(kernel))
    sketched = sketches(spec, dialect) if settings.sketches else {}
    if settings.sketches and not _all_sketched(spec, sketched):
        # a sweep in place carrying dependences along both loops (seidel-2d): a loop over
        # hyperplanes, each a vector statement (synth.synthesis.wavefront)
        front = wavefront_solution(kernel, dialect)
        if front is not None:
            result = RaiseResult(kernel.name, dialect, spec, [front], [], time_loop=time_loop)
            result.seconds = time.monotonic() - t0
            return result
    if time_loop is not None and settings.sketches and not _all_sketched(spec, sketched):
        # a step of nests one after another, recurrences among them (adi's sweeps): each
        # step raised nest by nest, inside the time loop
        step = unwrapped(kernel)
        parts = _interchangeable_parts(step) if step is not None else None
        try:
            chain = _chain_raise(parts, dialect, settings, deadline, seed, kinds, t0) if parts else None
        except (NoSolutionError, InputError):  # a part not raised (or not sized): the step as it is
            chain = None
        if chain is not None:
            result = RaiseResult(kernel.name, dialect, spec, [], chain.stats, time_loop=time_loop, step=chain)
            result.seconds = time.monotonic() - t0
            return result
    if counter is not None and not _all_sketched(spec, sketched):
        # a library op, where the kernel licenses one, is the raise the search prefers
        # (trisolv's triangular_solve, lu's lu): a short search for it first
        if _licenses_library_op(spec):
            try:
                solutions, stats = solve(spec, replace(settings, max_candidates=LIBRARY_FIRST_CANDIDATES),
                                         min(deadline, time.monotonic() + LIBRARY_FIRST), old, sketched)
                result = RaiseResult(kernel.name, dialect, spec, solutions, stats)
                result.seconds = time.monotonic() - t0
                return result
            except NoSolutionError:
                pass
        # the statements inside one loop do not read off as tensor programs: that loop
        # kept as a loop, its body read off the statements of one step, where they all are
        try:
            return _counter_raise(kernel, counter, dialect, settings, deadline, seed, kinds, extra, old, t0)
        except (NoSolutionError, InputError):  # not a step the sketches read: search as before
            pass
    if lifted is not None and not _all_sketched(spec, sketched):
        # statements, then such a loop: each part raised, the first run before the loop
        try:
            return _lifted_raise(lifted, dialect, settings, deadline, seed, kinds, t0)
        except (NoSolutionError, InputError):
            pass
    if swapped is not None and not _all_sketched(spec, sketched):
        try:
            return _swapped_raise(swapped, dialect, settings, deadline, seed, kinds, (), {}, t0)
        except (NoSolutionError, InputError):
            pass
    if settings.sketches and time_loop is None and not _all_sketched(spec, sketched):
        # nests one after another, one of them a recurrence the interchange keeps as a loop:
        # raised nest by nest, each run on what the ones before it wrote
        parts = nest_parts(kernel)
        if parts is not None and has_interchangeable_nest(parts):
            return _chain_raise(parts, dialect, settings, deadline, seed, kinds, t0)
        parts = _interchangeable_parts(kernel, distribute_only=True)
        if parts is not None:  # ... once its parallel nests are distributed; else the search
            try:
                return _chain_raise(parts, dialect, settings, deadline, seed, kinds, t0)
            except (NoSolutionError, InputError):
                pass
    solutions, stats = solve(spec, settings, deadline, old, sketched)
    result = RaiseResult(kernel.name, dialect, spec, solutions, stats, time_loop=time_loop)
    result.seconds = time.monotonic() - t0
    return result


def _interchangeable_parts(kernel: Kernel, distribute_only: bool = False) -> list | None:
    """The kernel's nests as parts (nest_parts), its parallel nests distributed first
    where that is what makes a recurrence among them interchangeable
    (synth.synthesis.distribute); None where no part is such a recurrence."""
    if not distribute_only:
        parts = nest_parts(kernel)
        if parts is not None and has_interchangeable_nest(parts):
            return parts
        if parts is None and interchanged_recurrence(kernel) is not None:  # one nest
            return [kernel]
    split = distributed(kernel)
    parts = nest_parts(split) if split is not None else None
    return parts if parts is not None and has_interchangeable_nest(parts) else None


def _chain_raise(parts: list, dialect: str, settings: SearchSettings, deadline: float, seed: int, kinds,
                 t0: float) -> RaiseResult:
    """Each part (a kernel of one loop nest, over the function's arguments) raised on its
    own, in order; the last one's result, each holding the one before it (`before`)."""
    result = None
    stats: list = []
    for part in parts:
        got = search_kernel(part, dialect, replace(settings, cost=None), deadline=deadline, seed=seed,
                            kinds=kinds)
        got.before, got.part = result, part
        stats += got.stats
        result = got
    result.stats = stats
    result.seconds = time.monotonic() - t0
    return result


LIBRARY_FIRST = 10.0  # seconds of search for a library op before a counter loop is kept
# and candidates per problem: the library raises (lu, cholesky, triangular solves, from
# benchmarks/polybench, -c and -polygeist) take at most 618; where no library op fits
# (gramschmidt, whose sqrt and division license one), 20000 of them took 2.7 s of a raise
# (all programs of up to 2 ops) that then kept its counter loop as a loop anyway. A library
# raise not found within these falls to the counter loop, or where the step is not read off
# as one, to the unbounded search after it, which finds it there
LIBRARY_FIRST_CANDIDATES = 5000


def _licenses_library_op(spec: Specification) -> bool:
    return any(is_library_op(op.name) for g in spec.groups for p in g.problems for op in p.ops)


def _all_sketched(spec: Specification, sketched: dict) -> bool:
    return all(p.name in sketched and _still_right(sketched[p.name], p) for g in spec.groups for p in g.problems)


def _counter_raise(kernel: Kernel, location: str | None, dialect: str, settings: SearchSettings,
                   deadline: float, seed: int, kinds, extra, old: dict, t0: float,
                   descending: bool = False) -> RaiseResult:
    """The kernel's counter loop (synth.synthesis.steps.counter_loop) kept as a loop of the
    target, its body the sketches of one step's statements; NoSolutionError where a
    statement has none that is right on the examples (no search: a step's programs index
    by the counter, which the search's ops do not)."""
    if location is None:
        raise NoSolutionError(f"@{kernel.name}: no loop to keep as a loop")
    step, time_loop = counter_step_kernel(kernel, location, descending)
    # refuting states are the kernel's arguments: the step takes the counter after them,
    # each of its values in turn
    values = step.sizes.counter_values(step.sizes.standin())
    extra = tuple(list(state) + [("index", values[k % len(values)])] for k, state in enumerate(extra))
    spec = build_specification(step, dialect, seed=seed, kinds=kinds, extra=extra)
    sketched = sketches(spec, dialect)
    for name, program in old.items():  # an earlier round's programs where still right
        sketched.setdefault(name, program)
    missing = [p.name for g in spec.groups for p in g.problems
               if p.name not in sketched or not _still_right(sketched[p.name], p)]
    if missing:
        raise NoSolutionError(f"@{kernel.name}: the loop at {location} kept as a loop: no sketch of "
                              f"{missing[0]} is right on its examples")
    if settings.cost is None:
        settings = replace(settings, cost=original_cost(step))
    solutions, stats = solve(spec, settings, deadline, {}, sketched)
    result = RaiseResult(kernel.name, dialect, spec, solutions, stats, time_loop=time_loop)
    result.seconds = time.monotonic() - t0
    return result


def _swapped_raise(swapped: LiftedLoop, dialect: str, settings: SearchSettings, deadline: float, seed: int,
                   kinds, extra, old: dict, t0: float) -> RaiseResult:
    """A recurrence interchanged (synth.synthesis.recurrence): its loop kept as a counter
    loop, after the statements that start its state where there are any."""
    if swapped.state:
        result = _lifted_raise(swapped, dialect, settings, deadline, seed, kinds, t0)
    else:  # the state in the arrays alone: nothing before the loop
        result = _counter_raise(swapped.loop, swapped.location, dialect, settings, deadline, seed, kinds,
                                extra, old, t0, swapped.descending)
    result.time_loop = replace(result.time_loop, interchanged=True)
    return result


def _lifted_raise(lifted: LiftedLoop, dialect: str, settings: SearchSettings, deadline: float, seed: int,
                  kinds, t0: float) -> RaiseResult:
    """Statements before a counter loop (synth.synthesis.steps.lifted_loop): the statements
    raised as a kernel of their own, the loop kept as a loop (_counter_raise) over the
    same arguments, the local scalars it carries among them."""
    before = None if lifted.prologue is None else search_kernel(
        lifted.prologue, dialect, replace(settings, cost=None), deadline=deadline, seed=seed, kinds=kinds)
    if before is not None and (before.time_loop is not None or before.prologue is not None):
        raise NoSolutionError(f"@{lifted.loop.name}: the statements before the loop at {lifted.location} "
                              f"are not a tensor program")
    # (an interchanged recurrence's loop carries its dependence through its state alone,
    # which counter_loop does not look for: its location is the loop's own)
    result = _counter_raise(lifted.loop, counter_loop(lifted.loop) or lifted.location, dialect, settings,
                            deadline, seed, kinds, (), {}, t0, lifted.descending)
    result.time_loop = replace(result.time_loop, state=lifted.state)
    result.prologue = before
    result.stats = (before.stats if before is not None else []) + result.stats
    result.seconds = time.monotonic() - t0
    return result
