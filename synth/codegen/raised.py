"""`@NAME_raised`: the programs of the statement groups composed over the function's
inputs and emitted at any values of the size symbols (the types and attributes of the
programs carry the symbols), into the target dialect's text."""

from __future__ import annotations

from typing import Mapping

from synth.errors import SynthError
from synth.grammar.op import Emitter
from synth.grammar.types import ShapeError
from synth.synthesis.program import Expr, ProgramEmitter, instantiate
from synth.synthesis.solve import GroupSolution, RaiseResult


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
