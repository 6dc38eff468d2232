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
from dataclasses import dataclass, field, replace

import numpy as np

from typing import Mapping

from synth.analysis.model import Kernel
from synth.errors import NoSolutionError, SynthError
from synth.execution import run_tensor_function
from synth.grammar.op import Emitter
from synth.grammar.types import ShapeError
from synth.numerics import first_difference
from synth.synthesis.program import Expr, ProgramEmitter, instantiate
from synth.synthesis.search import SearchSettings, search
from synth.synthesis.spec import Specification, build_specification


@dataclass
class GroupSolution:
    statements: list[int]
    programs: dict[int, Expr]  # output argument -> program over the group's inputs


@dataclass
class RaiseResult:
    name: str
    dialect: str
    spec: Specification
    solutions: list[GroupSolution]
    stats: list[dict] = field(default_factory=list)  # one entry per problem
    seconds: float = 0.0

    @property
    def outputs(self) -> list[int]:
        """Normal-form arguments the raised function returns (written, then results)."""
        return self.spec.kernel.outputs

    def original_sizes(self) -> dict[str, int]:
        return self.spec.kernel.sizes.original()


def solve(spec: Specification, settings: SearchSettings, deadline: float) -> tuple[list[GroupSolution], list[dict]]:
    solutions, stats = [], []
    for g in spec.groups:
        programs = {}
        for problem, out in zip(g.problems, g.writes):
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoSolutionError(f"time budget exhausted before {problem.name}")
            found, st = search(problem, replace(settings, timeout=left))
            stats.append({"problem": problem.name, "group": g.index, "output": out,
                          "statements": g.statements, "ops": [o.name for o in problem.ops],
                          "program": str(found) if found else None, **st.as_dict()})
            if found is None:
                why = "time budget exhausted" if st.seconds >= left * 0.99 else \
                    f"no program of up to {st.size_reached} ops in the grammar"
                raise NoSolutionError(
                    f"no equivalent program found for {problem.name} (statements "
                    f"{g.statements} of the original): {why}; {st.evaluated} candidates evaluated")
            programs[out] = found
        solutions.append(GroupSolution(g.statements, programs))
    return solutions, stats


def compose(solutions: list[GroupSolution]) -> dict[int, Expr]:
    """The final program of every array a group writes, over the function's inputs: each
    group's leaves are the programs of the groups before it. A value a later group
    overwrites without reading it (an accumulator's initial 0) disappears."""
    state: dict[int, Expr] = {}

    def substitute(expr: Expr, memo: dict) -> Expr:
        if id(expr) in memo:
            return memo[id(expr)]
        if expr.op is None:
            out = state.get(expr.leaf, expr)
        else:
            out = Expr(expr.type, expr.op, expr.attrs, tuple(substitute(a, memo) for a in expr.args))
        memo[id(expr)] = out
        return out

    for sol in solutions:
        memo: dict = {}
        state.update({out: substitute(expr, memo) for out, expr in sol.programs.items()})
    return state


def raised_function_text(result: RaiseResult, values: Mapping[str, int], name: str | None = None,
                         attributes: dict[str, str] | None = None) -> str:
    """`func.func @NAME_raised` at the given values of the size symbols; `attributes` are
    extra function attributes (name -> MLIR attribute text). Each output is emitted once
    (common subexpressions shared); an output returned twice (a returned argument that
    the kernel also writes) is copied in linalg, whose buffer-results-to-out-params
    cannot give one buffer to two results."""
    kernel = result.spec.kernel
    types = {i: kernel.tensor_type(i, values) for i in range(len(kernel.function.arguments))}
    final = compose(result.solutions)
    em = Emitter(indent="  ")
    pe = ProgramEmitter(em, {i: f"%a{i}" for i in range(kernel.n_arguments)})
    memo: dict = {}
    names, rtypes = [], []
    for o in result.outputs:
        expr = final.get(o, Expr(types[o], leaf=o))
        try:
            inst = instantiate(expr, values, types, memo)
        except ShapeError as e:  # a bug: programs are typed over the symbols
            raise SynthError(f"the program for arg{o} does not fit sizes {dict(values)}: {e}") from None
        if inst.op is None and inst.leaf >= kernel.n_arguments:
            raise SynthError(f"no program computes out-parameter arg{o}")
        value = pe.emit(inst)
        if value in names and result.dialect == "linalg":
            copy = em.fresh("copy")
            em.line(f"{copy} = linalg.copy ins({value} : {inst.type.mlir()}) "
                    f"outs({em.empty(inst.type)} : {inst.type.mlir()}) -> {inst.type.mlir()}")
            value = copy
        names.append(value)
        rtypes.append(inst.type.mlir())
    fname = name or f"{result.name}_raised"
    params = ", ".join(f"%a{i}: {types[i].mlir()}" for i in range(kernel.n_arguments))
    body = "\n".join(em.lines)
    attrs = [f"synth.outputs = [{', '.join(map(str, kernel.written))}]"]
    attrs += [f"{k} = {v}" for k, v in (attributes or {}).items()]
    rt = ", ".join(rtypes)
    return (f"func.func @{fname}({params}) -> ({rt}) attributes {{{', '.join(attrs)}}} "
            f"{{\n{body}\n  return {', '.join(names)} : {rt}\n}}\n")


def run_raised(dialect: str, text: str, fname: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if dialect == "stablehlo":
        from synth.backends.xla_cpu import run_stablehlo

        return run_stablehlo(text.replace(f"func.func @{fname}(", "func.func @main(", 1), inputs)
    return run_tensor_function(text, fname, inputs)


def compare_outputs(expected: list[np.ndarray], got: list[np.ndarray], outputs: list) -> str | None:
    """None if equal within tolerance, else a description of the first difference.
    `outputs` names them: argument indices (arg5) or labels (result #0)."""
    if len(got) != len(expected):
        return f"{len(got)} outputs, expected {len(expected)}"
    for label, want, have in zip(outputs, expected, got):
        label = f"arg{label}" if isinstance(label, int) else label
        want, have = np.asarray(want), np.asarray(have)
        if have.shape != want.shape:
            return f"{label}: shape {have.shape} != {want.shape}"
        diff = first_difference(want, have)
        if diff is not None:
            idx, w, h = diff
            return f"{label}{list(idx)}: raised {h!r} != original {w!r}"
    return None


def search_kernel(kernel: Kernel, dialect: str, settings: SearchSettings, *,
                  deadline: float | None = None, seed: int = 0,
                  kinds: tuple[str, ...] = ("random",)) -> RaiseResult:
    """Search a program for the kernel; not yet checked (see synth.validation.verify)."""
    t0 = time.monotonic()
    deadline = t0 + settings.timeout if deadline is None else deadline
    spec = build_specification(kernel, dialect, seed=seed, kinds=kinds)
    name = kernel.name
    solutions, stats = solve(spec, settings, deadline)
    result = RaiseResult(name, dialect, spec, solutions, stats)
    result.seconds = time.monotonic() - t0
    return result
