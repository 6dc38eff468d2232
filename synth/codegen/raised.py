"""`@NAME_raised`: the programs of the statement groups composed over the function's
inputs and emitted at any values of the size symbols (the types and attributes of the
programs carry the symbols), into the target dialect's text."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from synth.errors import SynthError
from synth.grammar.families import TakeFamily
from synth.grammar.op import Emitter, format_scalar
from synth.grammar.stablehlo_base import splat
from synth.grammar.stablehlo_loops import while_loop
from synth.grammar.types import ShapeError
from synth.analysis.symbols import GenericValues, size
from synth.grammar.dims import GenericSizes, has_dynamic, is_dynamic, kernel_sources
from synth.synthesis.program import Expr, ProgramEmitter, evaluate, instantiate, leaves
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
    simplified: dict = {}
    hoisted: dict = {}
    return {out: _bottom_up(_bottom_up(expr, simplified, _drop_zero_add), hoisted, _slice_after_dot)
            for out, expr in state.items()}


def _bottom_up(expr: Expr, memo: dict, rule) -> Expr:
    """`expr` with `rule` applied to each op node after its operands (a shared
    subexpression rewritten once)."""
    if id(expr) in memo:
        return memo[id(expr)]
    out = expr
    if expr.op is not None:
        args = tuple(_bottom_up(a, memo, rule) for a in expr.args)
        out = rule(Expr(expr.type, expr.op, expr.attrs, args) if args != expr.args else expr)
    memo[id(expr)] = out
    return out


def _drop_zero_add(expr: Expr) -> Expr:
    """`add(0, x)` and `add(x, 0)` as x (an accumulator's initial 0 that the next group
    reads: atax's `tmp = 0; tmp += A x`), where x has the sum's type. Exact in IEEE
    arithmetic but for the sign of a zero sum (-0 + 0 is +0); the composed program is what
    synth verify checks."""
    if expr.op.name.rsplit(".", 1)[-1] == "add" and len(expr.args) == 2:
        for zero, other in (expr.args, expr.args[::-1]):
            if other.type == expr.type and _constant_zero(zero):
                return other
    return expr


SLICE_AFTER_DOT_TRIM = 2  # the most elements a slice may trim off a dim to go after its dot


def _slice_after_dot(expr: Expr) -> Expr:
    """`dot_general(x, slice(A))` as `slice(dot_general(x, A))` where the slice trims only
    dims of A that the dot keeps (not contracted, not batch), by at most
    SLICE_AFTER_DOT_TRIM elements each (a constant: the dot computes a few more rows or
    columns whatever the sizes): the same elements, and XLA, which copies a sliced operand
    before a dot, reads A in place (gramschmidt's `q . A[:, k + 1:]`: a 1000 x 1199 copy
    per step). stablehlo only: a linalg slice is a view."""
    return _hoist_operand_slice(expr) if expr.op.name == "stablehlo.dot_general" else expr


def _hoist_operand_slice(dot: Expr) -> Expr:
    d = dict(dot.attrs)
    lhs_free, rhs_free = ([k for k in range(a.type.rank) if k not in d[f"{side}_batch"] + d[f"{side}_contract"]]
                          for side, a in zip(("lhs", "rhs"), dot.args))
    batch = len(d["lhs_batch"])
    for side, free, first in ((0, lhs_free, batch), (1, rhs_free, batch + len(lhs_free))):
        sliced = dot.args[side]
        if sliced.op is None or sliced.op.name != "stablehlo.slice_range":
            continue
        s = dict(sliced.attrs)
        trimmed = [k for k in range(sliced.args[0].type.rank) if s["lo"][k] or s["hi"][k]]
        if not trimmed or any(k not in free or s["lo"][k] + s["hi"][k] > SLICE_AFTER_DOT_TRIM for k in trimmed):
            continue
        args = tuple(sliced.args[0] if k == side else a for k, a in enumerate(dot.args))
        whole = _hoist_operand_slice(  # the other operand's slice, if any, first
            Expr(dot.op.result_type(tuple(a.type for a in args), dot.attrs), dot.op, dot.attrs, args))
        at = {first + free.index(k): k for k in free}  # the dot's result dim -> the operand's
        lo = tuple(s["lo"][at[r]] if r in at else 0 for r in range(whole.type.rank))
        hi = tuple(s["hi"][at[r]] if r in at else 0 for r in range(whole.type.rank))
        attrs = tuple((key, lo if key == "lo" else hi if key == "hi" else v) for key, v in sliced.attrs)
        out = Expr(sliced.op.result_type((whole.type,), attrs), sliced.op, attrs, (whole,))
        if out.type == dot.type:
            return out
    return dot


def _constant_zero(expr: Expr) -> bool:
    """Whether the program reads no input and every element of its value is +0 (it is
    evaluated: no op-specific rule)."""
    if expr.op is None or _reads_input(expr):
        return False
    try:
        value = np.asarray(evaluate(expr, [{}])[0])
    except Exception:  # a closed program the evaluator cannot run is not known to be zero
        return False
    return value.size > 0 and bool(np.all(value == 0)) and not bool(np.any(np.signbit(value)))


def _reads_input(expr: Expr) -> bool:
    return expr.op is None or any(_reads_input(a) for a in expr.args)


def generic_values(kernel, arguments: list[int]) -> GenericValues:
    """The kernel's own size values, with every symbol that the arguments expose (an
    array argument's dimension, or a size argument: synth.grammar.dims.find_sources)
    marked as known only at run time: the values a shape-generic raise is emitted at."""
    sources = kernel_sources(kernel, arguments)
    return GenericValues(kernel.sizes.original(), sources)


def raised_function_text(result: RaiseResult, values: Mapping[str, int], name: str | None = None,
                         attributes: dict[str, str] | None = None, generic: bool = False) -> str:
    """`func.func @NAME_raised` at the given values of the size symbols; `attributes` are
    extra function attributes (name -> MLIR attribute text). Each output is emitted once
    (common subexpressions shared); an output returned twice (a returned argument that
    the kernel also writes) is copied in linalg, whose buffer-results-to-out-params
    cannot give one buffer to two results.

    `generic`: shape-generic, for every value of the symbols that the arguments expose
    (`values` only decide the others, and the types' values the search's cost model
    saw): `?` dims, and sizes computed from the arguments (synth.grammar.dims). Raises
    GenericUnsupported where an op of the program has no generic emitter."""
    kernel = result.spec.kernel
    # a counter loop's step kernel takes the counter as its last argument; the loop does not
    counter = result.time_loop.counter if result.time_loop is not None else None
    # ... and the local scalars it carries are the step's arguments, not the function's
    state = result.time_loop.state if result.time_loop is not None else ()
    arguments = [i for i in range(kernel.n_arguments) if i != counter and i not in state]
    sizes = None
    if generic:
        # (a size that one part alone uses, adi's step count, too)
        sources = {n: src for part in reversed(result.nested()) for n, src in
                   kernel_sources(part.spec.kernel, arguments).items()} | kernel_sources(kernel, arguments)
        values = GenericValues(values, sources)
        sizes = GenericSizes(result.dialect, sources, {})
    types = {i: kernel.tensor_type(i, values) for i in range(len(kernel.function.arguments))}
    final = compose(result.solutions)
    em = Emitter(indent="  ", sizes=sizes)
    env = {i: f"%a{i}" for i in arguments}
    if sizes is not None:
        sizes.args = {i: (env[i], types[i]) for i in arguments}
    if result.time_loop is not None or result.before is not None:
        env = _emit_part(em, result, values, types, env)
        final = {}
    pe = ProgramEmitter(em, env)
    memo: dict = {}
    names, rtypes = [], []
    for o in [o for o in chain_outputs(result) if o not in state]:
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
    params = ", ".join(f"%a{i}: {types[i].mlir()}" for i in arguments)
    body = "\n".join(em.prologue + em.lines)
    written = sorted({o for part in chain(result) for o in part.spec.kernel.written if o not in _own(part)})
    attrs = [f"synth.outputs = [{', '.join(str(o) for o in written if o not in state)}]"]
    attrs += [f"{k} = {v}" for k, v in (attributes or {}).items()]
    rt = ", ".join(rtypes)
    ret = f"return {', '.join(names)} : {rt}" if names else "return"  # nothing observable: an empty program
    return (f"func.func @{fname}({params}) -> ({rt}) attributes {{{', '.join(attrs)}}} "
            f"{{\n{body}\n  {ret}\n}}\n")


def chain(result: RaiseResult) -> list[RaiseResult]:
    """The parts of a function raised nest by nest (RaiseResult.before), first to last."""
    out = []
    while result is not None:
        out.append(result)
        result = result.before
    return out[::-1]


def chain_outputs(result: RaiseResult) -> list[int]:
    """The outputs of a raise, of every part where the function was raised nest by nest:
    the arrays any part writes, in argument order (such a function returns nothing)."""
    if result.before is None:
        return result.outputs
    return sorted({o for part in chain(result) for o in part.outputs if o not in _own(part)})


def _own(part: RaiseResult) -> tuple[int, ...]:
    """A part's arguments that are not the function's: its loop's state and counter."""
    loop = part.time_loop
    return () if loop is None else tuple(loop.state) + ((loop.counter,) if loop.counter is not None else ())


def _emit_part(em: Emitter, result: RaiseResult, values: Mapping[str, int], types: dict,
               env: dict[int, str]) -> dict[int, str]:
    """Emit one part of the raise after the parts before it (RaiseResult.before): its
    statements before a loop, its loop or its programs; `env` with what it writes."""
    if result.before is not None:  # (what the function's arguments hold after it)
        done = _emit_part(em, result.before, values, types, env)
        env = {i: done[i] for i in env}
    kernel = result.spec.kernel  # a part's own arguments: its state, its counter
    types = {**types, **{i: kernel.tensor_type(i, values) for i in range(len(kernel.function.arguments))}}
    final = compose(result.solutions)
    if result.time_loop is not None:
        if result.prologue is not None or result.time_loop.state:
            env = _prologue(em, result, values, types, env)
        return _time_loop(em, result, values, types, final, env)
    pe = ProgramEmitter(em, dict(env))
    memo: dict = {}
    out = dict(env)
    for o, expr in final.items():
        try:
            out[o] = pe.emit(instantiate(expr, values, types, memo))
        except ShapeError as e:
            raise SynthError(f"the program for arg{o} does not fit sizes {dict(values)}: {e}") from None
    return out


def _prologue(em: Emitter, result: RaiseResult, values: Mapping[str, int], types: dict,
              env: dict[int, str]) -> dict[int, str]:
    """Emit the programs of the statements before a loop kept as a loop (RaiseResult.
    prologue); the names of what they write join `env`. The local scalars the loop carries
    start as zeros (the statements store them whole before anything reads them)."""
    env = dict(env)
    for i in result.time_loop.state:
        if result.dialect == "stablehlo":  # (a scalar broadcast where a dim is dynamic)
            env[i] = splat(em, 0, types[i])
        else:
            env[i] = em.filled(types[i], 0)
    if result.prologue is not None:
        env = _emit_part(em, result.prologue, values, types, env)
    return env


def _time_loop(em: Emitter, result: RaiseResult, values: Mapping[str, int], types: dict,
               final: dict[int, Expr], env: dict[int, str]) -> dict[int, str]:
    """Emit the time loop (synth.synthesis.steps) around the programs of one step; the
    names of the arrays after it (the loop's results) replace them in `env`. A counter
    loop in stablehlo also carries the lines its step takes from the arrays it updates at
    the counter (`_carried_lines`; in linalg, MLIR's ownership-based deallocation of such
    iter_args emits i1 memrefs whose lowering aborts the process, MLIR 22)."""
    trip = size(result.time_loop.trip, values)
    carried = [o for o in result.outputs if o in final]
    if result.step is not None:  # a step raised nest by nest: what its parts write
        carried = [o for o in chain_outputs(result.step) if o in env]
    inputs = [i for i in sorted(env) if i not in carried]
    rotated = dict(result.time_loop.rotated)  # input -> dim: read at the step's index
    if trip < 0:
        raise SynthError(f"a time loop of {trip} steps at sizes {dict(values)}")
    stablehlo = result.dialect == "stablehlo"
    counter = result.time_loop.counter
    start = size(result.time_loop.start, values) if counter is not None else 0
    down = result.time_loop.descending
    lines: dict[int, Expr] = {}
    if counter is not None and stablehlo:
        final, lines = _carried_lines(final, carried, counter, values, types)
        types = {**types, **{leaf: line.type for leaf, line in lines.items()}}
    body_env = dict(env)

    def body() -> list[str]:
        saved = dict(em._scalars)  # constants defined in the body stay in it
        em._scalars = {}
        if result.step is not None:
            done = _emit_part(em, result.step, values, types, {i: body_env[i] for i in env})
            em._scalars = saved
            return [done[o] for o in carried]
        pe = ProgramEmitter(em, body_env)
        memo: dict = {}
        got = []
        for o in carried:
            try:
                got.append(pe.emit(instantiate(final[o], values, types, memo)))
            except ShapeError as e:
                raise SynthError(f"the step program for arg{o} does not fit sizes {dict(values)}: {e}") from None
        em._scalars = saved
        return got

    def taken(arrays: dict[int, str], at: str) -> list[str]:
        """Each carried line computed from `arrays` (index -> name) at the counter `at`."""
        saved = dict(em._scalars)  # constants defined here stay in the region they are in
        em._scalars = {}
        pe = ProgramEmitter(em, {**arrays, counter: at})
        got = [pe.emit(line) for line in lines.values()]
        em._scalars = saved
        return got

    initial = {}
    if lines:  # the lines of the first step, before the loop
        first = em.fresh("c")
        if is_dynamic(start):
            first = em.size(start)
        else:
            em.line(f"{first} = stablehlo.constant dense<{start}> : tensor<i64>")
        initial = dict(zip(lines, taken(env, first)))
    body_env.update({o: em.fresh("w") for o in carried})
    if stablehlo:
        body_env.update({leaf: em.fresh("line") for leaf in lines})
        it = em.fresh("it")
        body_env.update({i: em.fresh("x") for i in inputs})
        zero = em.fresh("c")
        em.line(f"{zero} = stablehlo.constant dense<0> : tensor<i64>")
        operands = [(it, zero, "tensor<i64>")] + \
            [(body_env[o], env[o], types[o].mlir()) for o in carried] + \
            [(body_env[i], env[i], types[i].mlir()) for i in inputs] + \
            [(body_env[leaf], initial[leaf], types[leaf].mlir()) for leaf in lines]

        def from_start(at: str) -> str:
            """The counter at loop index `at` (the loop runs from 0, the counter from start,
            up or down)."""
            if not start and not down:
                return at
            c, out = em.fresh("c"), em.fresh("counter")
            if is_dynamic(start):
                c = em.size(start)
            else:
                em.line(f"{c} = stablehlo.constant dense<{start}> : tensor<i64>")
            if down:
                em.line(f"{out} = stablehlo.subtract {c}, {at} : tensor<i64>")
            else:
                em.line(f"{out} = stablehlo.add {at}, {c} : tensor<i64>")
            return out

        def step(names: list[str]) -> list[str]:
            if counter is not None:
                body_env[counter] = from_start(it)
            got = body()
            one, nxt = em.fresh("c"), em.fresh("it")
            em.line(f"{one} = stablehlo.constant dense<1> : tensor<i64>")
            em.line(f"{nxt} = stablehlo.add {it}, {one} : tensor<i64>")
            nexts = [_rotate(em, result.dialect, body_env[i], types[i], rotated[i]) if i in rotated
                     else body_env[i] for i in inputs]
            if lines:  # each line again, from the arrays the step wrote, at the next counter
                nexts += taken(dict(zip(carried, got)), from_start(nxt))
            return [nxt] + got + nexts
        out = while_loop(em, operands, trip, step)
        results = {o: f"{out}#{k + 1}" for k, o in enumerate(carried)}
    else:
        out = em.fresh("loop")
        lb, ub, st, t = em.fresh("c"), em.fresh("c"), em.fresh("c"), em.fresh("t")
        em.line(f"{lb} = arith.constant 0 : index")
        if is_dynamic(trip):
            ub = em.size(trip)
        else:
            em.line(f"{ub} = arith.constant {trip} : index")
        em.line(f"{st} = arith.constant 1 : index")
        turning = [i for i in inputs if i in rotated]  # carried too, rotated after each step
        body_env.update({i: em.fresh("x") for i in turning})
        state = [(body_env[o], env[o], types[o].mlir()) for o in carried + turning]
        many = len(state) > 1
        head = f"{out}:{len(state)}" if many else out
        em.line(f"{head} = scf.for {t} = {lb} to {ub} step {st} iter_args("
                + ", ".join(f"{a} = {v}" for a, v, _ in state) + ") -> ("
                + ", ".join(ty for _, _, ty in state) + ") {")
        indent = em.indent
        em.indent = indent + "  "

        if counter is not None:  # the step's counter as a tensor<i64>, from the loop's start
            ci, ct = em.fresh("counter"), em.fresh("counter")
            em.line(f"{ci} = arith.index_cast {t} : index to i64")
            if start or down:
                c, plus = em.fresh("c"), em.fresh("counter")
                if is_dynamic(start):
                    em.line(f"{c} = arith.index_cast {em.size(start)} : index to i64")
                else:
                    em.line(f"{c} = arith.constant {start} : i64")
                if down:  # counting down from start
                    em.line(f"{plus} = arith.subi {c}, {ci} : i64")
                else:
                    em.line(f"{plus} = arith.addi {ci}, {c} : i64")
                ci = plus
            em.line(f"{ct} = tensor.from_elements {ci} : tensor<i64>")
            body_env[counter] = ct
        got = body()
        nexts = [_rotate(em, result.dialect, body_env[i], types[i], rotated[i]) for i in turning]
        em.line(f"scf.yield {', '.join(got + nexts)} : {', '.join(ty for _, _, ty in state)}")
        em.indent = indent
        em.line("}")
        results = {o: (f"{out}#{k}" if many else out) for k, o in enumerate(carried)}
    return {**env, **results}


def _carried_lines(final: dict[int, Expr], carried: list[int], counter: int, values: Mapping[str, int],
                   types: dict) -> tuple[dict[int, Expr], dict[int, Expr]]:
    """The step programs (at `values`) with the work they do on lines taken from a carried
    array at the counter (row k of the matrix the step updates: floyd-warshall) replaced by
    leaves of their own, and those leaves: leaf -> its program over the carried arrays and
    the counter. The loop carries each such value in its state, computed from the arrays the
    step wrote at the next counter at the end of each step: the same values, but

    - the step no longer reads the array it updates in place, which made XLA copy the whole
      array per step (floyd-warshall at LARGE on XLA CPU, one core: 30.4 -> 17.0 s; on XLA
      GPU, an H100, the two slices per step cost more than the copy did: 45.6 -> 50.1 ms);
    - what the step computes from the lines alone and broadcasts over the array (the row k
      as the step itself updates it: `_line_work`) is a value of the loop's state, not a
      part of the loop over the whole array, where XLA's fusion computed it again for each
      element (floyd-warshall at LARGE on XLA CPU, one core: 15.7 -> 2.8 s)."""
    line_leaf: dict[tuple, int] = {}  # (array, take, attrs) -> its leaf
    lines: dict[int, Expr] = {}
    base = max(types) + 1
    memo: dict = {}

    def rewrite(e: Expr) -> Expr:
        if id(e) in memo:
            return memo[id(e)]
        out = e
        if e.op is not None:
            a = e.args
            if isinstance(e.op, TakeFamily) and a[0].op is None and a[0].leaf in carried \
                    and a[1].op is None and a[1].leaf == counter:
                key = (a[0].leaf, e.op.name, e.attrs)
                if key not in line_leaf:
                    line_leaf[key] = base + len(line_leaf)
                    lines[line_leaf[key]] = e
                out = Expr(e.type, leaf=line_leaf[key])
            else:
                args = tuple(rewrite(x) for x in a)
                if any(x is not y for x, y in zip(args, a)):
                    out = Expr(e.type, e.op, e.attrs, args)
        memo[id(e)] = out
        return out

    inst_memo: dict = {}
    try:
        programs = {o: rewrite(instantiate(final[o], values, types, inst_memo)) for o in carried}
    except ShapeError as e:  # a bug: programs are typed over the symbols
        raise SynthError(f"a step program does not fit sizes {dict(values)}: {e}") from None
    programs, lines = _line_work(programs, lines, counter, max(types[o].size for o in carried))
    return {**final, **programs}, lines


def _line_work(programs: dict[int, Expr], lines: dict[int, Expr], counter: int,
               whole: int) -> tuple[dict[int, Expr], dict[int, Expr]]:
    """`programs` (stablehlo) with each subprogram that a broadcast_in_dim spreads over
    more elements, reads only `lines` (at least one) and the counter, has fewer elements
    than `whole` and does some work (more than reshaping a line) replaced by a leaf of its
    own; the lines the programs still read and those new leaves, each as its program over
    the carried arrays and the counter. Work that is not spread stays in the step (carried,
    gramschmidt's norm, which only fills one element, cost it 2% on XLA CPU)."""
    if not lines:
        return programs, lines
    base = max([*lines, counter]) + 1
    known: dict[int, tuple[bool, bool]] = {}  # id -> (reads lines and counter only, reads a line)

    def reads(e: Expr) -> tuple[bool, bool]:
        if id(e) not in known:
            if e.op is None:
                known[id(e)] = (e.leaf in lines or e.leaf == counter, e.leaf in lines)
            else:
                got = [reads(a) for a in e.args]
                known[id(e)] = (all(g[0] for g in got), any(g[1] for g in got))
        return known[id(e)]

    def work(e: Expr) -> bool:
        return e.op is not None and not (e.op.name.endswith(".reshape") and e.args[0].op is None)

    hoisted: dict[int, tuple[int, Expr]] = {}  # id -> (leaf, subprogram)
    memo: dict = {}

    def hoist(e: Expr, spread: bool) -> Expr:
        """`e` with its hoisted subprograms as leaves; `spread`: a broadcast makes more
        elements of it (XLA fuses the subprogram into the broadcast's consumer)."""
        if (id(e), spread) in memo:
            return memo[id(e), spread]
        out = e
        if e.op is not None:
            only, some = reads(e)
            if spread and only and some and e.type.size < whole and work(e):
                leaf = hoisted.setdefault(id(e), (base + len(hoisted), e))[0]
                out = Expr(e.type, leaf=leaf)
            else:
                grows = e.op.name.endswith(".broadcast_in_dim")
                args = tuple(hoist(a, grows and e.type.size > a.type.size) for a in e.args)
                if any(x is not y for x, y in zip(args, e.args)):
                    out = Expr(e.type, e.op, e.attrs, args)
        memo[id(e), spread] = out
        return out

    programs = {o: hoist(p, False) for o, p in programs.items()}
    used = leaves(*programs.values())
    back: dict = {}

    def over_arrays(e: Expr) -> Expr:  # a subprogram with its lines' takes put back
        if id(e) not in back:
            if e.op is None:
                back[id(e)] = lines.get(e.leaf, e)
            else:
                back[id(e)] = Expr(e.type, e.op, e.attrs, tuple(over_arrays(a) for a in e.args))
        return back[id(e)]

    out = {leaf: line for leaf, line in lines.items() if leaf in used}
    out.update({leaf: over_arrays(e) for leaf, e in hoisted.values() if leaf in used})
    return programs, out


def _rotate(em: Emitter, dialect: str, name: str, t, dim: int) -> str:
    """`name` (of tensor type t) rotated left by one along `dim`: element k + 1 moves to k,
    element 0 to the end (so that after step t, index 0 holds what step t + 1 reads)."""
    if has_dynamic(t):
        return _rotate_generic(em, dialect, name, t, dim)
    n = int(t.shape[dim])
    if n <= 1:
        return name
    head = [f"0:{int(m)}" for m in t.shape]
    rest = list(head)
    rest[dim], head[dim] = f"1:{n}", "0:1"
    part = lambda r: "x".join(str(int(m)) if k != dim else str(r) for k, m in enumerate(t.shape))
    a, b, r = em.fresh(), em.fresh(), em.fresh()
    if dialect == "stablehlo":
        em.line(f"{a} = stablehlo.slice {name} [{', '.join(rest)}] : ({t.mlir()}) -> tensor<{part(n - 1)}x{t.dtype}>")
        em.line(f"{b} = stablehlo.slice {name} [{', '.join(head)}] : ({t.mlir()}) -> tensor<{part(1)}x{t.dtype}>")
        em.line(f"{r} = stablehlo.concatenate {a}, {b}, dim = {dim} : (tensor<{part(n - 1)}x{t.dtype}>, "
                f"tensor<{part(1)}x{t.dtype}>) -> {t.mlir()}")
        return r
    # copies of both parts first, then written back into the array itself: the loop's
    # yield stays its iter_arg's buffer (one-shot bufferization requires that)
    ones = ", ".join("1" for _ in t.shape)
    off = lambda k: ", ".join(str(k) if d == dim else "0" for d in range(t.rank))
    sizes = lambda m: ", ".join(str(m) if d == dim else str(int(s)) for d, s in enumerate(t.shape))
    parts = []
    for start, m, v in ((1, n - 1, a), (0, 1, b)):
        pt = f"tensor<{part(m)}x{t.dtype}>"
        e, c = em.fresh(), em.fresh()
        em.line(f"{v} = tensor.extract_slice {name}[{off(start)}] [{sizes(m)}] [{ones}] : {t.mlir()} to {pt}")
        em.line(f"{e} = tensor.empty() : {pt}")
        em.line(f"{c} = linalg.copy ins({v} : {pt}) outs({e} : {pt}) -> {pt}")
        parts.append((c, pt))
    c = em.fresh()
    em.line(f"{c} = tensor.insert_slice {parts[0][0]} into {name}[{off(0)}] [{sizes(n - 1)}] [{ones}] : "
            f"{parts[0][1]} into {t.mlir()}")
    em.line(f"{r} = tensor.insert_slice {parts[1][0]} into {c}[{off(n - 1)}] [{sizes(1)}] [{ones}] : "
            f"{parts[1][1]} into {t.mlir()}")
    return r


def _rotate_generic(em: Emitter, dialect: str, name: str, t, dim: int) -> str:
    """_rotate in a shape-generic body: the parts' sizes are values (synth.grammar.dims)."""
    from synth.grammar.stablehlo_base import dynamic_slice

    n = t.shape[dim]
    rest_t = t.with_shape(tuple(n.offset(-1) if k == dim and is_dynamic(n) else (int(n) - 1 if k == dim else m)
                                for k, m in enumerate(t.shape)))
    head_t = t.with_shape(tuple(1 if k == dim else m for k, m in enumerate(t.shape)))
    if dialect == "stablehlo":
        a = dynamic_slice(em, name, t, [1 if k == dim else 0 for k in range(t.rank)], list(t.shape), rest_t)
        b = dynamic_slice(em, name, t, [0] * t.rank, list(head_t.shape), head_t)
        r = em.fresh()
        em.line(f"{r} = stablehlo.concatenate {a}, {b}, dim = {dim} : ({rest_t.mlir()}, {head_t.mlir()}) -> {t.mlir()}")
        return r

    def value(v):
        return em.size(v) if is_dynamic(v) else str(int(v))
    ones = ", ".join("1" for _ in t.shape)
    off = lambda k: ", ".join(value(k) if d == dim else "0" for d in range(t.rank))  # noqa: E731
    sizes = lambda pt: ", ".join(value(m) for m in pt.shape)  # noqa: E731
    parts = []
    for start, pt in ((1, rest_t), (0, head_t)):
        v, c = em.fresh(), em.fresh()
        em.line(f"{v} = tensor.extract_slice {name}[{off(start)}] [{sizes(pt)}] [{ones}] : {t.mlir()} to {pt.mlir()}")
        em.line(f"{c} = linalg.copy ins({v} : {pt.mlir()}) outs({em.empty(pt)} : {pt.mlir()}) -> {pt.mlir()}")
        parts.append((c, pt))
    c, r = em.fresh(), em.fresh()
    last = n.offset(-1) if is_dynamic(n) else int(n) - 1
    em.line(f"{c} = tensor.insert_slice {parts[0][0]} into {name}[{off(0)}] [{sizes(rest_t)}] [{ones}] : "
            f"{rest_t.mlir()} into {t.mlir()}")
    em.line(f"{r} = tensor.insert_slice {parts[1][0]} into {c}[{off(last)}] [{sizes(head_t)}] [{ones}] : "
            f"{head_t.mlir()} into {t.mlir()}")
    return r
