"""Raising one function: specification -> search per problem -> composition ->
re-instantiation at any sizes. Checking the result (by execution at several sizes, then
Z3) is synth.verify's, which `synth raise` runs before anything is emitted.

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

from .analysis.model import Kernel
from .errors import NoSolutionError, SynthError
from .execution import run_tensor_function
from .grammar.op import Emitter
from .grammar.types import ShapeError
from .numerics import first_difference
from .program import Expr, ProgramEmitter, instantiate
from .search import SearchSettings, search
from .spec import Specification, build_specification


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


def raised_function_text(result: RaiseResult, values: Mapping[str, int], name: str | None = None,
                         attributes: dict[str, str] | None = None) -> str:
    """`func.func @NAME_raised` at the given values of the size symbols; `attributes` are
    extra function attributes (name -> MLIR attribute text)."""
    kernel = result.spec.kernel
    n_args = len(kernel.function.arguments)
    types = {i: kernel.tensor_type(i, values) for i in range(n_args)}
    em = Emitter(indent="  ")
    env = {i: f"%a{i}" for i in range(kernel.n_arguments)}
    state_types = dict(types)
    for sol in result.solutions:
        pe = ProgramEmitter(em, dict(env))
        new_env, new_types = {}, {}
        for out, expr in sol.programs.items():
            try:
                inst = instantiate(expr, values, state_types)
            except ShapeError as e:  # a bug: programs are typed over the symbols
                raise SynthError(f"the program for arg{out} does not fit sizes {dict(values)}: {e}") from None
            new_env[out] = pe.emit(inst)
            new_types[out] = inst.type
        env.update(new_env)
        state_types.update(new_types)
    outs = result.outputs
    fname = name or f"{result.name}_raised"
    params = ", ".join(f"%a{i}: {types[i].mlir()}" for i in range(kernel.n_arguments))
    rtypes = ", ".join(state_types[o].mlir() for o in outs)
    body = "\n".join(em.lines)
    ret = ", ".join(env[o] for o in outs)
    written = kernel.written
    attrs = [f"synth.outputs = [{', '.join(map(str, written))}]"]
    attrs += [f"{k} = {v}" for k, v in (attributes or {}).items()]
    return (f"func.func @{fname}({params}) -> ({rtypes}) attributes {{{', '.join(attrs)}}} "
            f"{{\n{body}\n  return {ret} : {rtypes}\n}}\n")


def run_raised(dialect: str, text: str, fname: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if dialect == "stablehlo":
        from .backends.xla_cpu import run_stablehlo

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
    """Search a program for the kernel; not yet checked (see synth.verify)."""
    t0 = time.monotonic()
    deadline = t0 + settings.timeout if deadline is None else deadline
    spec = build_specification(kernel, dialect, seed=seed, kinds=kinds)
    name = kernel.name
    solutions, stats = solve(spec, settings, deadline)
    result = RaiseResult(name, dialect, spec, solutions, stats)
    result.seconds = time.monotonic() - t0
    return result
