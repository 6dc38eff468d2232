"""The library ops' blocked forms on linalg: a lowering below the raised IR.

The linalg raise means one loop at every size (synth.grammar.linalg_library): the row
loop of a triangular solve, the column loop of a left-looking Cholesky, the elimination
steps of an LU, each an `scf.for` marked `synth.library`. That text is what validation
tests and proves. mlir-cpu and IREE run this lowering of it, on a static instance (a
generic raise made static first): where n has a panel width (families.lu_panel), the
marked loop becomes the blocked form, the same values in exact arithmetic, the panels
first and the unblocked loop from where they end:

- forward substitution (a lower, not transposed; 50 rows at n = 2000): the panel's
  right-hand side less the linalg.matvec of a[K:K+b, :K] with the rows solved before it,
  then its rows by the row loop over its own columns (trisolv LARGE on mlir-cpu, one
  thread: 1.70-1.91 -> 1.01-1.04 ms);
- Cholesky (40 columns at n = 2000): each panel less the columns left of it at once, a
  linalg.matmul of L[K:, :K] with -L[K:K+b, :K]^T accumulating into it, then its columns
  by the column loop over the panel's own columns;
- LU (250 columns, factored by sub-panels of 25, at n = 2000): the steps on the panel
  and on the row panel right of it, then a linalg.matmul of the negated multipliers with
  the row panel accumulating into the trailing block (in order of k: the unblocked
  steps' operations, bitwise; LARGE on mlir-cpu about 0.21 -> 0.145 s).

`lower(text)` replaces each marked loop by a call to a private function holding its
blocked form and inlines it; (module text, how many it replaced).
tests/test_library_lowering.py runs it at sizes panel widths divide and sizes none does.
"""

from __future__ import annotations

import re

from synth.grammar.families import lu_panel, lu_subpanel
from synth.grammar.linalg_library import Lu, Body, dynamic, elementwise
from synth.grammar.op import op_by_name, private_function
from synth.grammar.types import TensorType

LU = op_by_name("linalg", "linalg.lu")
CHOLESKY = op_by_name("linalg", "linalg.cholesky")
SOLVE = op_by_name("linalg", "linalg.triangular_solve")


def _panel_loop(em, value: str, t: str, n: int, b: int, name: str, state_name: str):
    """The head of a blocked loop over the full panels of b columns of an n x n matrix
    (type t) from `value`, up to (n / b) * b computed in the text from n. (the loop's
    result, its panel start, its state, where the panels end, the body to fill and close)."""
    c0, cn, cb = (em.scalar_constant(v, "index") for v in (0, n, b))
    panels, full = em.fresh("panels"), em.fresh("full")
    em.line(f"{panels} = arith.divui {cn}, {cb} : index")
    em.line(f"{full} = arith.muli {panels}, {cb} : index")
    r, kk, state = em.fresh(name), em.fresh("kk"), em.fresh(state_name)
    em.line(f"{r} = scf.for {kk} = {c0} to {full} step {cb} iter_args({state} = {value}) -> ({t}) {{")
    return r, kk, state, full, Body(em)


def solve_panels(em, a: str, rhs: str, a_t, b_t, b: int, d: dict) -> tuple[str, str]:
    """The loop over the full panels of b rows: (the right-hand side with those rows
    solved, the index where the panels end)."""
    n, dt, t, v = int(a_t.shape[0]), a_t.dtype, a_t.mlir(), b_t.mlir()
    vec, wide, part = dynamic(1, dt), f"tensor<{b}x?x{dt}>", f"tensor<{b}x{dt}>"
    zero = em.scalar_constant(0.0, dt)
    r, kk, x, full, outer = _panel_loop(em, rhs, v, n, b, "solve", "x")
    c1, cb = em.scalar_constant(1, "index"), em.scalar_constant(b, "index")
    left = outer.line(f"tensor.extract_slice {a}[{kk}, 0] [{b}, {kk}] [1, 1] : {t} to {wide}")
    done = outer.line(f"tensor.extract_slice {x}[0] [{kk}] [1] : {v} to {vec}")
    mv = outer.line(f"linalg.matvec ins({left}, {done} : {wide}, {vec}) outs({outer.zeros(zero, dt, part)} : {part}) "
                    f"-> {part}")
    own = outer.line(f"tensor.extract_slice {x}[{kk}] [{b}] [1] : {v} to {part}")
    less = elementwise(em, outer, [own, mv], part, 1, dt, outer.line(f"tensor.empty() : {part}"),
                        lambda p, q: outer.line(f"arith.subf {p}, {q} : {dt}", extra="  "))
    x1 = outer.line(f"tensor.insert_slice {less} into {x}[{kk}] [{b}] [1] : {part} into {v}")
    end = outer.line(f"arith.addi {kk}, {cb} : index")
    rows, k, aa, xx = em.fresh("rows"), em.fresh("k"), em.fresh("a"), em.fresh("x")
    em.line(f"{rows}:2 = scf.for {k} = {kk} to {end} step {c1} iter_args({aa} = {a}, {xx} = {x1}) -> ({t}, {v}) {{")
    SOLVE._row(em, Body(em), aa, xx, a_t, b_t, k, kk, d)
    outer.close(f"scf.yield {rows}#1 : {v}")
    return r, full


def cholesky_panels(em, value: str, a_t, b: int) -> tuple[str, str]:
    """The loop over the full panels of b columns from `value`: (its result, the index
    where the panels end)."""
    n, dt, t = int(a_t.shape[0]), a_t.dtype, a_t.mlir()
    mat, tall = dynamic(2, dt), f"tensor<?x{b}x{dt}>"
    r, kk, state, full, outer = _panel_loop(em, value, t, n, b, "chol", "l")
    c1, cn, cb = (em.scalar_constant(v, "index") for v in (1, n, b))
    m = outer.line(f"arith.subi {cn}, {kk} : index")  # rows kk..n-1
    left = outer.line(f"tensor.extract_slice {state}[{kk}, 0] [{m}, {kk}] [1, 1] : {t} to {mat}")
    top = outer.line(f"tensor.extract_slice {state}[{kk}, 0] [{b}, {kk}] [1, 1] : {t} to tensor<{b}x?x{dt}>")
    x, o = em.fresh("x"), em.fresh("o")
    neg_t = outer.line(  # -top^T (kk x b): the product then adds into the panel
        f"linalg.generic {{indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], "
        f"iterator_types = [\"parallel\", \"parallel\"]}} ins({top} : tensor<{b}x?x{dt}>) "
        f"outs({outer.line(f'tensor.empty({kk}) : {tall}')} : {tall}) {{")
    em.line(f"^bb0({x}: {dt}, {o}: {dt}):")
    y = outer.line(f"arith.negf {x} : {dt}", extra="  ")
    em.line(f"  linalg.yield {y} : {dt}")
    em.line(f"}} -> {tall}")
    panel = outer.line(f"tensor.extract_slice {state}[{kk}, {kk}] [{m}, {b}] [1, 1] : {t} to {tall}")
    product = outer.line(f"linalg.matmul ins({left}, {neg_t} : {mat}, {tall}) outs({panel} : {tall}) -> {tall}")
    updated = outer.line(f"tensor.insert_slice {product} into {state}[{kk}, {kk}] [{m}, {b}] [1, 1] : "
                         f"{tall} into {t}")
    end = outer.line(f"arith.addi {kk}, {cb} : index")
    cols, j, inner_state = em.fresh("cols"), em.fresh("j"), em.fresh("l")
    em.line(f"{cols} = scf.for {j} = {kk} to {end} step {c1} iter_args({inner_state} = {updated}) -> ({t}) {{")
    inner = Body(em)
    inner.close(f"scf.yield {CHOLESKY._column(em, inner, inner_state, a_t, j, kk)} : {t}")
    outer.close(f"scf.yield {cols} : {t}")
    return r, full


def lu_panels(em, value: str, a_t, b: int) -> tuple[str, str]:
    """The loop over the full panels of b columns from `value`: (its result, the index
    where the panels end)."""
    n, dt, t = int(a_t.shape[0]), a_t.dtype, a_t.mlir()
    s = lu_subpanel(b)
    if s is not None:
        em.scalar_constant(s, "index")  # defined before the loops whose bodies use it
    r, kk, state, full, outer = _panel_loop(em, value, t, n, b, "lu", "state")
    c1, cn, cb = (em.scalar_constant(v, "index") for v in (1, n, b))
    end = outer.line(f"arith.addi {kk}, {cb} : index")
    if s is None:
        panel = _steps(em, state, a_t, kk, end, end)
    else:
        panel = _subpanels(em, state, a_t, kk, end, s)
    e = outer.line(f"arith.subi {cn}, {end} : index")  # rows and columns after the panel
    tall = f"tensor<?x{b}x{dt}>"
    l21 = outer.line(f"tensor.extract_slice {panel}[{end}, {kk}] [{e}, {b}] [1, 1] : {t} to {tall}")
    negated = Lu._map(em, outer, l21, tall, 2, dt, outer.line(f"tensor.empty({e}) : {tall}"),
                        lambda x: f"arith.negf {x} : {dt}")
    written = _less_product(outer, panel, a_t, negated, b, kk, end, end, e, e)
    outer.close(f"scf.yield {written} : {t}")
    return r, full


@staticmethod


def _less_product(body, value: str, a_t, neg: str, width: int, u_row: str, c_row: str, col0: str,
                  rows: str, cols: str) -> str:
    """`value` with its block at (c_row, col0) of rows x cols plus the linalg.matmul of
    `neg` (rows x width: negated multipliers) with the width rows from u_row over the
    same columns, accumulated into the block (in order of k)."""
    dt, t, mat = a_t.dtype, a_t.mlir(), dynamic(2, a_t.dtype)
    tall, wide = f"tensor<?x{width}x{dt}>", f"tensor<{width}x?x{dt}>"
    u = body.line(f"tensor.extract_slice {value}[{u_row}, {col0}] [{width}, {cols}] [1, 1] : {t} to {wide}")
    c = body.line(f"tensor.extract_slice {value}[{c_row}, {col0}] [{rows}, {cols}] [1, 1] : {t} to {mat}")
    product = body.line(f"linalg.matmul ins({neg}, {u} : {tall}, {wide}) outs({c} : {mat}) -> {mat}")
    return body.line(f"tensor.insert_slice {product} into {value}[{c_row}, {col0}] [{rows}, {cols}] [1, 1] : "
                     f"{mat} into {t}")


def _steps(em, state: str, a_t, start: str, stop: str, end: str) -> str:
    """The elimination steps k = start .. stop - 1 of a panel ending at `end` (_step)."""
    t, c1 = a_t.mlir(), em.scalar_constant(1, "index")
    steps, k, inner_state = em.fresh("panel"), em.fresh("k"), em.fresh("state")
    em.line(f"{steps} = scf.for {k} = {start} to {stop} step {c1} iter_args({inner_state} = {state}) -> ({t}) {{")
    inner = Body(em)
    inner.close(f"scf.yield {LU._step(em, inner, inner_state, a_t, k, end)} : {t}")
    return steps


def _subpanels(em, state: str, a_t, kk: str, end: str, s: int) -> str:
    """A panel [kk, end) factored by sub-panels of s columns [S, E): the steps of
    columns S .. E-1 (_step up to E: the sub-panel's columns, and its rows right of it
    up to n), then two linalg.matmuls of the sub-panel's negated multipliers with its
    rows: into the rest of the panel (rows E.., columns E..end) and into the rows E..end
    of the row panel (columns end..). Every element still gets the steps' operations in
    order of k, so the result is the one-level panel's, bitwise; the rank-1 steps now
    sweep s columns instead of the panel's width."""
    n, dt, t = int(a_t.shape[0]), a_t.dtype, a_t.mlir()
    cn, cs = em.scalar_constant(n, "index"), em.scalar_constant(s, "index")
    r, start, sub = em.fresh("sub"), em.fresh("s"), em.fresh("state")
    em.line(f"{r} = scf.for {start} = {kk} to {end} step {cs} iter_args({sub} = {state}) -> ({t}) {{")
    body = Body(em)
    stop = body.line(f"arith.addi {start}, {cs} : index")
    value = _steps(em, sub, a_t, start, stop, stop)
    below = body.line(f"arith.subi {cn}, {stop} : index")  # rows after the sub-panel
    rest = body.line(f"arith.subi {end}, {stop} : index")  # the panel's columns after it
    right = body.line(f"arith.subi {cn}, {end} : index")  # the row panel's columns
    tall = f"tensor<?x{s}x{dt}>"
    l = body.line(f"tensor.extract_slice {value}[{stop}, {start}] [{below}, {s}] [1, 1] : {t} to {tall}")
    neg = Lu._map(em, body, l, tall, 2, dt, body.line(f"tensor.empty({below}) : {tall}"),
                    lambda x: f"arith.negf {x} : {dt}")
    value = _less_product(body, value, a_t, neg, s, start, stop, stop, below, rest)
    top = body.line(f"tensor.extract_slice {neg}[0, 0] [{rest}, {s}] [1, 1] : {tall} to {tall}")
    value = _less_product(body, value, a_t, top, s, start, stop, end, rest, right)
    body.close(f"scf.yield {value} : {t}")
    return r


# --- the lowering ------------------------------------------------------------------------------


def _tensor(text: str) -> TensorType | None:
    m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", text.strip())
    if m is None:
        return None
    try:
        return TensorType(tuple(int(d) for d in m.group(1).split("x") if d), m.group(2))
    except ValueError:
        return None


def _solve_params(marker: str) -> dict | None:
    m = re.fullmatch(r"triangular_solve lower=(\d) unit=(\d) transpose=(\d)", marker)
    if m is None:
        return None
    return {"lower": m.group(1) == "1", "unit_diagonal": m.group(2) == "1", "transpose_a": m.group(3) == "1"}


def _constants(em, a: TensorType) -> None:
    """The constants the loops use, defined first (em.scalar_constant memoizes a constant
    where it is first defined: inside a panel's loop, the unblocked loop after it could
    not see it)."""
    n = int(a.shape[0])
    for v in (0, 1, n, n - 1):
        em.scalar_constant(v, "index")
    em.scalar_constant(0.0, a.dtype)


def _replacement(marker: str, init_types: list[str], name: str):
    """(private function text, the loop's iter_args it takes, the result it replaces) for
    a marked loop with a blocked form at its size; None where it stays as it is."""
    if not init_types:
        return None
    if marker == "lu":
        a = _tensor(init_types[0])
        b = lu_panel(int(a.shape[0]), "linalg") if a is not None else None
        if b is None:
            return None

        def build(em, args):
            _constants(em, a)
            value, start = lu_panels(em, args[0], a, b)
            return LU.steps_from(em, value, a, start)
        return private_function(name, [a], a, build), [0], 0
    if marker == "cholesky":
        a = _tensor(init_types[0])
        b = lu_panel(int(a.shape[0]), "linalg-cholesky") if a is not None else None
        if b is None:
            return None

        def build(em, args):
            _constants(em, a)
            value, start = cholesky_panels(em, args[0], a, b)
            return CHOLESKY.columns(em, value, a, start)
        return private_function(name, [a], a, build), [0], 0
    d = _solve_params(marker)
    if d is not None and not d["transpose_a"] and d["lower"]:
        if len(init_types) < 2:  # not the solve's loop as the grammar emits it (A and b carried)
            return None
        a, v = _tensor(init_types[0]), _tensor(init_types[1])
        b = lu_panel(int(a.shape[0]), "linalg-solve") if a is not None and v is not None else None
        if b is None:
            return None

        def build(em, args):
            _constants(em, a)
            rhs, start = solve_panels(em, args[0], args[1], a, v, b, d)
            return SOLVE.rows(em, args[0], rhs, a, v, d, start)
        return private_function(name, [a, v], v, build), [0, 1], 1
    return None



def _matrix_from_above(loop):
    """The one rank-2 tensor a solve's loop reads that is defined outside it (a static
    instance of a shape-generic raise: canonicalize drops the matrix the loop carried
    unchanged), else None."""
    from mlir import ir

    from synth.backends.ir_toolkit import nested_ops, value_within

    found = set()
    for inner in nested_ops(loop):
        for v in inner.operands:
            if isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).rank == 2 \
                    and not value_within(v, loop):
                found.add(v)
    return found.pop() if len(found) == 1 else None


def lower(text: str) -> tuple[str, int]:
    """`text` (a linalg module, static shapes) with each marked library loop that has a
    blocked form at its size replaced by it (inlined); (module text, how many)."""
    from mlir import ir

    if "synth.library" not in text:
        return text, 0
    with ir.Context():
        module = ir.Module.parse(text)
        count = library_loops(module)
        return (str(module), count) if count else (text, 0)


def _library_loops(module) -> list:
    """The scf.for ops marked synth.library in `module`, in order."""
    from synth.backends.ir_toolkit import ops_named

    return [op for op in ops_named(module, ("scf.for",)) if "synth.library" in op.attributes]


def library_loops(module) -> int:
    """The pass synth-library-loops (synth.backends.passes.LOWERINGS): in `module` (an
    ir.Module of the `mlir` bindings, changed in place), each scf.for marked synth.library
    (the linalg grammar's library loops: the linalg raise's own, and on mlir-cpu those that
    stablehlo's library ops become, synth.backends.stablehlo_calls) that has a blocked
    form at its size replaced by it, inlined: the panels an scf.for over SSA offsets.
    A shape-generic raise made static (synth.semantics.specialize) carries the matrix as a
    dynamic tensor cast from the static one: synth-static-iter-args gives the loops their
    static types first (the blocked form is chosen by the size). How many it replaced."""
    from mlir import ir, passmanager
    from mlir.dialects import func as func_d

    from synth.backends.static_iter_args import static_iter_args

    found = _library_loops(module)
    if found and static_iter_args(module):  # their tensors carried with static types, walked again
        found = _library_loops(module)
    count = 0
    taken_names = {ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations
                   if "sym_name" in op.attributes}
    for op in found:
        marker = ir.StringAttr(op.attributes["synth.library"]).value
        inits = list(op.operands)[3:]
        matrix = _matrix_from_above(op) if _solve_params(marker) is not None and len(inits) == 1 else None
        if matrix is not None:  # the matrix, loop-invariant, is no longer carried
            inits = [matrix] + inits
        name = next(f"__synth_library_{i}" for i in range(count, count + len(taken_names) + 1)
                    if f"__synth_library_{i}" not in taken_names)
        plan = _replacement(marker, [str(v.type) for v in inits], name)
        if plan is None:
            continue
        taken_names.add(name)
        body, taken, result_ix = plan
        result_ix -= matrix is not None
        helper = ir.Module.parse(body)
        for f in list(helper.body.operations):
            module.body.append(f)
        with ir.InsertionPoint(op), op.location:
            call = func_d.CallOp([op.results[result_ix].type], ir.FlatSymbolRefAttr.get(name),
                                 [inits[i] for i in taken])
        op.results[result_ix].replace_all_uses_with(call.results[0])
        if all(not list(r.uses) for r in op.results):
            op.erase()
        count += 1
    if count:
        passmanager.PassManager.parse("builtin.module(inline{default-pipeline=},symbol-dce)").run(module.operation)
        module.operation.verify()
    return count
