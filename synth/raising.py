"""Raising one function: specification -> search per problem -> composition ->
re-instantiation at any sizes. Checking the result (by execution at several sizes, then
Z3) is synth.verify's, which `synth raise` runs before anything is emitted.

The raised function `@NAME_raised` takes one tensor per original argument (memref<SxT>
becomes tensor<SxT>, a scalar T becomes tensor<T>) and returns the final contents of every
array the original writes, in argument order (`synth.outputs` lists their indices). Its
body chains the solutions of the statement groups in execution order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .errors import NoSolutionError
from .execution import run_tensor_function
from .grammar.op import Emitter
from .grammar.types import TensorType
from .mlir_input import SourceModule
from .program import Expr, ProgramEmitter, instantiate
from .resize import size_values
from .search import SearchSettings, search
from .spec import Specification, build_specification, tensor_type

RTOL = 1e-9  # relative tolerance: reassociated f64 sums, nothing more


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
        return self.spec.function.outputs

    def sizes(self) -> dict[int, int]:
        return size_values(self.spec.function)


def solve(spec: Specification, settings: SearchSettings, deadline: float) -> tuple[list[GroupSolution], list[dict]]:
    solutions, stats = [], []
    for g in spec.groups:
        programs = {}
        for problem, out in zip(g.problems, g.writes):
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoSolutionError(f"time budget exhausted before {problem.name}")
            found, st = search(problem, SearchSettings(
                settings.max_size, left, settings.equivalence_pruning, settings.verifier_pruning))
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


def _size_map(spec: Specification, sizes: dict[int, int]) -> dict[int, int]:
    return {spec.standin[p]: sizes[p] for p in set(spec.function.dim_params.values())}


def raised_function_text(result: RaiseResult, sizes: dict[int, int], name: str | None = None,
                         attributes: dict[str, str] | None = None) -> str:
    """`func.func @NAME_raised` at the given size-parameter values; `attributes` are
    extra function attributes (name -> MLIR attribute text)."""
    spec = result.spec
    ks = spec.standin_function
    size_map = _size_map(spec, sizes)
    types: dict[int, TensorType] = {}
    for a in ks.arguments:
        t = tensor_type(ks, a.index)
        types[a.index] = t.with_shape(tuple(size_map.get(d, d) for d in t.shape))
    em = Emitter(indent="  ")
    env = {i: f"%a{i}" for i in types}
    state_types = dict(types)
    for sol in result.solutions:
        pe = ProgramEmitter(em, dict(env))
        new_env, new_types = {}, {}
        for out, expr in sol.programs.items():
            inst = instantiate(expr, size_map, state_types)
            new_env[out] = pe.emit(inst)
            new_types[out] = inst.type
        env.update(new_env)
        state_types.update(new_types)
    outs = result.outputs
    fname = name or f"{result.name}_raised"
    params = ", ".join(f"%a{i}: {types[i].mlir()}" for i in sorted(types))
    rtypes = ", ".join(state_types[o].mlir() for o in outs)
    body = "\n".join(em.lines)
    ret = ", ".join(env[o] for o in outs)
    attrs = [f"synth.outputs = [{', '.join(map(str, outs))}]"]
    attrs += [f"{k} = {v}" for k, v in (attributes or {}).items()]
    return (f"func.func @{fname}({params}) -> ({rtypes}) attributes {{{', '.join(attrs)}}} "
            f"{{\n{body}\n  return {ret} : {rtypes}\n}}\n")


def run_raised(dialect: str, text: str, fname: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if dialect == "stablehlo":
        from .backends.xla_cpu import run_stablehlo

        return run_stablehlo(text.replace(f"func.func @{fname}(", "func.func @main(", 1), inputs)
    return run_tensor_function(text, fname, inputs)


def compare_outputs(expected: list[np.ndarray], got: list[np.ndarray], outputs: list[int]) -> str | None:
    """None if equal within tolerance, else a description of the first difference."""
    for arr_index, want, have in zip(outputs, expected, got):
        have = np.asarray(have)
        if have.shape != want.shape:
            return f"arg{arr_index}: shape {have.shape} != {want.shape}"
        if want.dtype.kind == "f":
            scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
            bad = ~np.isclose(have, want, rtol=RTOL, atol=RTOL * scale)
        else:
            bad = have != want
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            return f"arg{arr_index}{list(idx)}: raised {have[idx]!r} != original {want[idx]!r}"
    return None


def raise_function(source: SourceModule, name: str, dialect: str,
                   settings: SearchSettings) -> RaiseResult:
    """Search a program for @name; not yet checked (see synth.verify)."""
    t0 = time.monotonic()
    deadline = t0 + settings.timeout
    spec = build_specification(source, name, dialect)
    solutions, stats = solve(spec, settings, deadline)
    result = RaiseResult(name, dialect, spec, solutions, stats)
    result.seconds = time.monotonic() - t0
    return result
