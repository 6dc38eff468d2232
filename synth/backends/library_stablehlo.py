"""The library ops' blocked forms on stablehlo: a lowering below the raised IR.

The raise means one thing at every size (synth.grammar.stablehlo): `stablehlo.cholesky`,
`stablehlo.triangular_solve`, and LU as a `stablehlo.while` marked `synth.library =
"lu"`, the unblocked right-looking loop. That text is what validation tests and proves.
What XLA and IREE run is this lowering of it, applied to a static instance (a generic
raise made static first); mlir-cpu runs the linalg grammar's op of the same meaning
instead, blocked by synth.backends.library_linalg, its panels a loop
(synth.backends.stablehlo_calls.factorizations_as_calls: the panels unrolled here, 40 at
n = 2000 on static slices of different shapes, each a copy of the compiled code, took
mlir-cpu 72-81 s to compile for lu at LARGE and 221-247 s for ludcmp). Where the matrix's order n
has a panel width (families.lu_panel), each op is replaced by its blocked form, the same
values in exact arithmetic:

- LU: `lu_by_panels`, its n / b panels unrolled on static slices of what is left to
  factor, in two levels where n has a wider multiple of b (families.lu_outer_panel:
  panels of 250 factored by sub-panels of 50 at n = 2000), so that the trailing block is
  updated by products as deep as the outer panel; over MAX_UNROLLED_PANELS panels,
  `lu_blocked`: a while over the panels (lu LARGE on XLA CPU, one core: 0.60 s for the
  unblocked while, 0.20 s by panels of 50, 0.094 s two levels);
- Cholesky (a multiple of 8 columns, 40 at n = 2000): `cholesky_by_panels`, left-looking
  (XLA CPU at n = 2000, one core: 0.11-0.12 s, against 0.20 s for a right-looking form;
  XLA's own expansion of stablehlo.cholesky takes 1.5x that);
- a triangular solve of one right-hand side (not transposed): by panels of w rows,
  unrolled (`solve_unrolled`) up to MAX_UNROLLED_PANELS panels, else a while over them
  (`solve_blocked`); XLA's expansion of the op takes twice the loops' time for a vector
  (trisolv 6.7 ms against 5.3 ms by panels).

Each replacement is a private function of the module, called where the op was (XLA
inlines it; mlir-cpu's upstream passes inline it after legalizing to linalg).
`lower(text)` returns the lowered module text and how many ops it replaced; the
conformance tests (tests/test_library_lowering.py) run it at many sizes, panel widths
that divide n and sizes none divides, against the raised text and NumPy.
"""

from __future__ import annotations

from synth.grammar.families import lu_outer_panel, lu_panel
from synth.grammar.op import private_function
from synth.grammar.stablehlo_base import splat
from synth.grammar.stablehlo_loops import TriangularSolve, emit_line, take_slice, while_loop
from synth.grammar.types import TensorType

MAX_UNROLLED_PANELS = 64  # beyond this many panels, a while over them

def lu_by_panels(em, a_value: str, a, b: int, sub: int | None = None) -> str:
    """The right-looking blocked LU (no pivoting) of `a_value`, its n / b panels unrolled
    on static slices of what is left to factor (Lu emits it where n has a panel width).
    Per panel K: its column panel (rows K.., an (n - K) x b block) is factored by
    `_tall_lu` in sub-panels of `sub` columns (sub = b: one, by column steps); then the rows
    of the panel right of it become U12 by a unit lower triangular solve (by blocks of sub
    rows: each block solved by the op, the rows below it less its product), and the
    trailing block below and right of the panel is less L21 U12, one dot_general."""
    n, dt = int(a.shape[0]), a.dtype
    sub = b if sub is None else sub
    t, s = a.mlir(), "tensor<i64>"
    line = lambda rhs: emit_line(em, rhs)  # noqa: E731
    const = lambda v: line(f"stablehlo.constant dense<{v}> : {s}")  # noqa: E731
    state = a_value
    for big_k in range(0, n, b):
        m, w = n - big_k, n - big_k - b
        pt = f"tensor<{m}x{b}x{dt}>"
        p0 = line(f"stablehlo.slice {state} [{big_k}:{n}, {big_k}:{big_k + b}] : ({t}) -> {pt}")
        panel = _tall_lu(em, p0, m, b, sub, dt)
        at_k = const(big_k)
        state = line(f"stablehlo.dynamic_update_slice {state}, {panel}, {at_k}, {at_k} : ({t}, {pt}, {s}, {s}) -> {t}")
        if w <= 0:
            continue
        lt, ut = f"tensor<{w}x{b}x{dt}>", f"tensor<{b}x{w}x{dt}>"
        l21 = line(f"stablehlo.slice {panel} [{b}:{m}, 0:{b}] : ({pt}) -> {lt}")
        a12 = line(f"stablehlo.slice {state} [{big_k}:{big_k + b}, {big_k + b}:{n}] : ({t}) -> {ut}")
        u12 = _blocked_u12(em, panel, pt, a12, b, w, sub, dt)
        at_w = const(big_k + b)
        state = line(f"stablehlo.dynamic_update_slice {state}, {u12}, {at_k}, {at_w} : ({t}, {ut}, {s}, {s}) -> {t}")
        state = _less_product(em, state, t, (big_k + b, big_k + b), (w, w), (l21, lt), (u12, ut), dt, (at_w, at_w))
    return state


def _less_product(em, x: str, x_t: str, at: tuple[int, int], shape: tuple[int, int], lhs: tuple[str, str],
                  rhs: tuple[str, str], dt: str, starts: tuple[str, str]) -> str:
    """`x` with its block of `shape` at `at` less the product of the (value, type) pairs
    `lhs` and `rhs` (a dot_general), written back (a dynamic_update_slice at `starts`, the
    i64 constants of `at`)."""
    line = lambda rhs_: emit_line(em, rhs_)  # noqa: E731
    (r0, c0), (rows, cols), s = at, shape, "tensor<i64>"
    bt = f"tensor<{rows}x{cols}x{dt}>"
    block = line(f"stablehlo.slice {x} [{r0}:{r0 + rows}, {c0}:{c0 + cols}] : ({x_t}) -> {bt}")
    prod = line(f"stablehlo.dot_general {lhs[0]}, {rhs[0]}, contracting_dims = [1] x [0] : ({lhs[1]}, {rhs[1]}) -> {bt}")
    block = line(f"stablehlo.subtract {block}, {prod} : {bt}")
    return line(f"stablehlo.dynamic_update_slice {x}, {block}, {starts[0]}, {starts[1]} : ({x_t}, {bt}, {s}, {s}) -> {x_t}")


def _column_steps(em, p0: str, m: int, b: int, dt: str) -> str:
    """A while over the b columns of the m x b panel `p0` (m >= b) eliminating below the
    diagonal: column k below the pivot divided by it, the columns right of k less the outer
    product of that column with the pivot's row (masked selects over the whole panel)."""
    s = "tensor<i64>"
    line = lambda rhs: emit_line(em, rhs)  # noqa: E731
    pt, it, mt, vm, vb = (f"tensor<{m}x{b}x{dt}>", f"tensor<{m}x{b}xi64>", f"tensor<{m}x{b}xi1>",
                          f"tensor<{m}x{dt}>", f"tensor<{b}x{dt}>")

    def step(names):
        k, p = names
        z = line(f"stablehlo.constant dense<0> : {s}")
        one = line(f"stablehlo.constant dense<1> : {s}")
        piv = take_slice(em, p, pt, [k, k], [1, 1], dt, f"tensor<{dt}>")
        col = take_slice(em, p, pt, [z, k], [m, 1], dt, vm)
        pivs = line(f"stablehlo.broadcast_in_dim {piv}, dims = [] : (tensor<{dt}>) -> {vm}")
        l = line(f"stablehlo.divide {col}, {pivs} : {vm}")
        other = take_slice(em, p, pt, [k, z], [1, b], dt, vb)
        lp = line(f"stablehlo.broadcast_in_dim {l}, dims = [0] : ({vm}) -> {pt}")
        op = line(f"stablehlo.broadcast_in_dim {other}, dims = [1] : ({vb}) -> {pt}")
        upd = line(f"stablehlo.subtract {p}, {line(f'stablehlo.multiply {lp}, {op} : {pt}')} : {pt}")
        rows, cols = line(f"stablehlo.iota dim = 0 : {it}"), line(f"stablehlo.iota dim = 1 : {it}")
        kb = line(f"stablehlo.broadcast_in_dim {k}, dims = [] : ({s}) -> {it}")
        below = line(f"stablehlo.compare GT, {rows}, {kb} : ({it}, {it}) -> {mt}")
        right = line(f"stablehlo.compare GT, {cols}, {kb} : ({it}, {it}) -> {mt}")
        at_k = line(f"stablehlo.compare EQ, {cols}, {kb} : ({it}, {it}) -> {mt}")
        p1 = line(f"stablehlo.select {right}, {upd}, {p} : {mt}, {pt}")
        p2 = line(f"stablehlo.select {at_k}, {lp}, {p1} : {mt}, {pt}")
        new = line(f"stablehlo.select {below}, {p2}, {p} : {mt}, {pt}")
        return [line(f"stablehlo.add {k}, {one} : {s}"), new]

    c0 = line(f"stablehlo.constant dense<0> : {s}")
    return f"{while_loop(em, [(em.fresh('k'), c0, s), (em.fresh('p'), p0, pt)], min(b, m - 1), step)}#1"


def _tall_lu(em, p0: str, m: int, b: int, sub: int, dt: str) -> str:
    """The m x b column panel `p0` (m >= b) factored (unit lower multipliers below the
    diagonal, U on and above it) by sub-panels of `sub` columns: each by `_column_steps`
    on its rows from its diagonal down, the rows of the sub-panel right of it (up to the
    panel's last column) solved by its unit lower triangle, and the block below and right
    of it less the sub-panel's multipliers times those rows (a dot_general)."""
    s = "tensor<i64>"
    line = lambda rhs: emit_line(em, rhs)  # noqa: E731
    const = lambda v: line(f"stablehlo.constant dense<{v}> : {s}")  # noqa: E731
    pt = f"tensor<{m}x{b}x{dt}>"
    panel = p0
    for kk in range(0, b, sub):
        mm, r = m - kk, b - kk - sub  # rows from the sub-panel's diagonal down; columns right of it
        qt = f"tensor<{mm}x{sub}x{dt}>"
        q = line(f"stablehlo.slice {panel} [{kk}:{m}, {kk}:{kk + sub}] : ({pt}) -> {qt}")
        q = _column_steps(em, q, mm, sub, dt)
        at = const(kk)
        panel = line(f"stablehlo.dynamic_update_slice {panel}, {q}, {at}, {at} : ({pt}, {qt}, {s}, {s}) -> {pt}")
        if r <= 0:
            continue
        rt, lt = f"tensor<{sub}x{r}x{dt}>", f"tensor<{mm - sub}x{sub}x{dt}>"
        l11 = line(f"stablehlo.slice {q} [0:{sub}, 0:{sub}] : ({qt}) -> tensor<{sub}x{sub}x{dt}>")
        a12 = line(f"stablehlo.slice {panel} [{kk}:{kk + sub}, {kk + sub}:{b}] : ({pt}) -> {rt}")
        u12 = TriangularSolve._call(em, l11, a12, f"tensor<{sub}x{sub}x{dt}>", rt, _UNIT_LOWER)
        right = const(kk + sub)
        panel = line(f"stablehlo.dynamic_update_slice {panel}, {u12}, {at}, {right} : ({pt}, {rt}, {s}, {s}) -> {pt}")
        l21 = line(f"stablehlo.slice {q} [{sub}:{mm}, 0:{sub}] : ({qt}) -> {lt}")
        panel = _less_product(em, panel, pt, (kk + sub, kk + sub), (mm - sub, r), (l21, lt), (u12, rt), dt, (right, right))
    return panel


_UNIT_LOWER = {"lower": True, "unit_diagonal": True, "transpose_a": False}  # U12's solves


def _blocked_u12(em, panel: str, pt: str, a12: str, b: int, w: int, sub: int, dt: str) -> str:
    """U12: the b x w rows `a12` solved by the unit lower triangle of the panel's top b x b
    block, by blocks of `sub` rows: each block solved by its sub x sub diagonal block, then
    the rows below it (within the b) less their multipliers times its solution."""
    s = "tensor<i64>"
    line = lambda rhs: emit_line(em, rhs)  # noqa: E731
    ut, rt, st = f"tensor<{b}x{w}x{dt}>", f"tensor<{sub}x{w}x{dt}>", f"tensor<{sub}x{sub}x{dt}>"
    x = a12
    for kk in range(0, b, sub):
        lkk = line(f"stablehlo.slice {panel} [{kk}:{kk + sub}, {kk}:{kk + sub}] : ({pt}) -> {st}")
        rows = line(f"stablehlo.slice {x} [{kk}:{kk + sub}, 0:{w}] : ({ut}) -> {rt}")
        sol = TriangularSolve._call(em, lkk, rows, st, rt, _UNIT_LOWER)
        at, c0 = line(f"stablehlo.constant dense<{kk}> : {s}"), line(f"stablehlo.constant dense<0> : {s}")
        x = line(f"stablehlo.dynamic_update_slice {x}, {sol}, {at}, {c0} : ({ut}, {rt}, {s}, {s}) -> {ut}")
        below = b - kk - sub
        if below <= 0:
            continue
        lt = f"tensor<{below}x{sub}x{dt}>"
        lb = line(f"stablehlo.slice {panel} [{kk + sub}:{b}, {kk}:{kk + sub}] : ({pt}) -> {lt}")
        nxt = line(f"stablehlo.constant dense<{kk + sub}> : {s}")
        x = _less_product(em, x, ut, (kk + sub, 0), (below, w), (lb, lt), (sol, rt), dt, (nxt, c0))
    return x


def _counter_mask(em, direction: str, k: str, n: int) -> str:
    """`iota(n) DIRECTION k` (k an i64 scalar): the n-vector of i1 that masks the positions
    before (LT) or at (EQ) a loop's counter."""
    it = f"tensor<{n}xi64>"
    iota = emit_line(em, f"stablehlo.iota dim = 0 : {it}")
    ks = emit_line(em, f"stablehlo.broadcast_in_dim {k}, dims = [] : (tensor<i64>) -> {it}")
    return emit_line(em, f"stablehlo.compare {direction}, {iota}, {ks} : ({it}, {it}) -> tensor<{n}xi1>")


def cholesky_by_panels(em, a_value: str, a, b: int) -> str:
    """The left-looking blocked Cholesky of `a_value` (lower), its n / b panels unrolled on
    static slices. Per panel K: the column panel a[K:, K:K+b] less L[K:, :K] L[K:K+b, :K]^T,
    one dot_general (the columns left of the panel, all of them final); then a while over
    its b columns: column k less the panel's columns left of k times row k of the panel
    there (a matrix-vector dot_general with row k masked to the columns before k), its
    diagonal element's square root the diagonal, the rest divided by it. Only the lower
    triangle is ever read: the rows above k of column k get values that the caller's
    zeroing of the upper triangle drops. Each element gets PolyBench's sum of products in
    two parts (the columns before the panel, then the panel's), as linalg's Cholesky; the
    flops are the factorization's n^3 / 3, where a right-looking update of the whole
    trailing block by each panel computes its upper half too."""
    n, dt = int(a.shape[0]), a.dtype
    t, s = a.mlir(), "tensor<i64>"
    line = lambda rhs: emit_line(em, rhs)  # noqa: E731
    state = a_value
    for big_k in range(0, n, b):
        m = n - big_k
        pt, vm, vb = f"tensor<{m}x{b}x{dt}>", f"tensor<{m}x{dt}>", f"tensor<{b}x{dt}>"
        p0 = line(f"stablehlo.slice {state} [{big_k}:{n}, {big_k}:{big_k + b}] : ({t}) -> {pt}")
        if big_k:
            left = line(f"stablehlo.slice {state} [{big_k}:{n}, 0:{big_k}] : ({t}) -> tensor<{m}x{big_k}x{dt}>")
            top = line(f"stablehlo.slice {state} [{big_k}:{big_k + b}, 0:{big_k}] : ({t}) -> tensor<{b}x{big_k}x{dt}>")
            prod = line(f"stablehlo.dot_general {left}, {top}, contracting_dims = [1] x [1] : "
                        f"(tensor<{m}x{big_k}x{dt}>, tensor<{b}x{big_k}x{dt}>) -> {pt}")
            p0 = line(f"stablehlo.subtract {p0}, {prod} : {pt}")

        def step(names, m=m, pt=pt, vm=vm, vb=vb):
            k, p = names
            z = line(f"stablehlo.constant dense<0> : {s}")
            one = line(f"stablehlo.constant dense<1> : {s}")
            row = take_slice(em, p, pt, [k, z], [1, b], dt, vb)
            before = _counter_mask(em, "LT", k, b)
            zeros = splat(em, 0.0, a.with_shape((b,)))
            masked = line(f"stablehlo.select {before}, {row}, {zeros} : tensor<{b}xi1>, {vb}")
            sums = line(f"stablehlo.dot_general {p}, {masked}, contracting_dims = [1] x [0] : ({pt}, {vb}) -> {vm}")
            col = line(f"stablehlo.subtract {take_slice(em, p, pt, [z, k], [m, 1], dt, vm)}, {sums} : {vm}")
            piv = line(f"stablehlo.sqrt {take_slice(em, col, vm, [k], [1], dt, f'tensor<{dt}>')} : tensor<{dt}>")
            pivs = line(f"stablehlo.broadcast_in_dim {piv}, dims = [] : (tensor<{dt}>) -> {vm}")
            at_k = _counter_mask(em, "EQ", k, m)
            new = line(f"stablehlo.select {at_k}, {pivs}, {line(f'stablehlo.divide {col}, {pivs} : {vm}')} : "
                       f"tensor<{m}xi1>, {vm}")
            as_col = line(f"stablehlo.reshape {new} : ({vm}) -> tensor<{m}x1x{dt}>")
            p = line(f"stablehlo.dynamic_update_slice {p}, {as_col}, {z}, {k} : "
                     f"({pt}, tensor<{m}x1x{dt}>, {s}, {s}) -> {pt}")
            return [line(f"stablehlo.add {k}, {one} : {s}"), p]

        c0 = line(f"stablehlo.constant dense<0> : {s}")
        steps = while_loop(em, [(em.fresh("k"), c0, s), (em.fresh("p"), p0, pt)], b, step)
        at_k = line(f"stablehlo.constant dense<{big_k}> : {s}")
        state = line(f"stablehlo.dynamic_update_slice {state}, {steps}#1, {at_k}, {at_k} : ({t}, {pt}, {s}, {s}) -> {t}")
    return state


def solve_unrolled(em, operands, a, b, d, w: int) -> str:
    n, dt = int(a.shape[0]), a.dtype
    vw, colw, sq = f"tensor<{w}x{dt}>", f"tensor<{w}x1x{dt}>", f"tensor<{w}x{w}x{dt}>"
    line = lambda rhs: emit_line(em, rhs)  # noqa: E731
    # x: the right-hand side with the panels solved so far written over it (each panel's
    # solution put at constant offsets: updated in place, its solved part read as a slice)
    x = operands[1]
    for p in range(n // w):
        at = p * w if d["lower"] else n - (p + 1) * w
        rhs = line(f"stablehlo.slice {x} [{at}:{at + w}] : ({b.mlir()}) -> {vw}")
        if p:
            done = p * w  # rows solved: [0, at) below the diagonal, [at + w, n) above it
            lo, hi = (0, at) if d["lower"] else (at + w, n)
            known = line(f"stablehlo.slice {x} [{lo}:{hi}] : ({b.mlir()}) -> tensor<{done}x{dt}>")
            rows = line(f"stablehlo.slice {operands[0]} [{at}:{at + w}, {lo}:{hi}] : "
                        f"({a.mlir()}) -> tensor<{w}x{done}x{dt}>")
            prod = line(f"stablehlo.dot_general {rows}, {known}, contracting_dims = [1] x [0] : "
                        f"(tensor<{w}x{done}x{dt}>, tensor<{done}x{dt}>) -> {vw}")
            rhs = line(f"stablehlo.subtract {rhs}, {prod} : {vw}")
        diag = line(f"stablehlo.slice {operands[0]} [{at}:{at + w}, {at}:{at + w}] : ({a.mlir()}) -> {sq}")
        column = line(f"stablehlo.reshape {rhs} : ({vw}) -> {colw}")
        sol = line(f"stablehlo.reshape {TriangularSolve._call(em, diag, column, sq, colw, d)} : ({colw}) -> {vw}")
        offset = line(f"stablehlo.constant dense<{at}> : tensor<i64>")
        x = line(f"stablehlo.dynamic_update_slice {x}, {sol}, {offset} : ({b.mlir()}, {vw}, tensor<i64>) -> {b.mlir()}")
    return x


def solve_blocked(em, operands, a, b, d, w: int) -> str:
    n, dt, s = int(a.shape[0]), a.dtype, "tensor<i64>"
    t, v, vw, colw = a.mlir(), b.mlir(), f"tensor<{w}x{dt}>", f"tensor<{w}x1x{dt}>"
    iv, mv = f"tensor<{n}xi64>", f"tensor<{n}xi1>"
    line = lambda rhs: emit_line(em, rhs)  # noqa: E731
    c0 = line(f"stablehlo.constant dense<0> : {s}")

    def body(names):
        p, x, mat = names
        zero = line(f"stablehlo.constant dense<0> : {s}")
        one = line(f"stablehlo.constant dense<1> : {s}")
        width = line(f"stablehlo.constant dense<{w}> : {s}")
        at = line(f"stablehlo.multiply {p}, {width} : {s}")
        if not d["lower"]:  # panels from the bottom
            last = line(f"stablehlo.constant dense<{n - w}> : {s}")
            at = line(f"stablehlo.subtract {last}, {at} : {s}")
        diag = take_slice(em, mat, t, [at, at], [w, w], dt)
        xb = take_slice(em, x, v, [at], [w], dt, colw)
        sol = TriangularSolve._call(em, diag, xb, f"tensor<{w}x{w}x{dt}>", colw, d)
        sol = line(f"stablehlo.reshape {sol} : ({colw}) -> {vw}")
        cols = take_slice(em, mat, t, [zero, at], [n, w], dt)
        prod = line(f"stablehlo.dot_general {cols}, {sol}, contracting_dims = [1] x [0] : "
                    f"(tensor<{n}x{w}x{dt}>, {vw}) -> {v}")
        rows = line(f"stablehlo.iota dim = 0 : {iv}")
        if d["lower"]:  # the rows after the panel
            bound = line(f"stablehlo.add {at}, {width} : {s}")
            pending = line(f"stablehlo.compare GE, {rows}, "
                           f"{line(f'stablehlo.broadcast_in_dim {bound}, dims = [] : ({s}) -> {iv}')} : "
                           f"({iv}, {iv}) -> {mv}")
        else:  # the rows before it
            pending = line(f"stablehlo.compare LT, {rows}, "
                           f"{line(f'stablehlo.broadcast_in_dim {at}, dims = [] : ({s}) -> {iv}')} : "
                           f"({iv}, {iv}) -> {mv}")
        less = line(f"stablehlo.subtract {x}, {prod} : {v}")
        x1 = line(f"stablehlo.select {pending}, {less}, {x} : {mv}, {v}")
        x2 = line(f"stablehlo.dynamic_update_slice {x1}, {sol}, {at} : ({v}, {vw}, {s}) -> {v}")
        return [line(f"stablehlo.add {p}, {one} : {s}"), x2, mat]
    out = while_loop(em, [(em.fresh("p"), c0, s), (em.fresh("x"), operands[1], v),
                         (em.fresh("mat"), operands[0], t)], n // w, body)
    return f"{out}#1"


def lu_blocked(em, a_value: str, a, b: int):
    n, dt = int(a.shape[0]), a.dtype
    t, s = a.mlir(), "tensor<i64>"
    panel, rpanel = f"tensor<{n}x{b}x{dt}>", f"tensor<{b}x{n}x{dt}>"
    vn, vb = f"tensor<{n}x{dt}>", f"tensor<{b}x{dt}>"
    ip, ir, it = f"tensor<{n}x{b}xi64>", f"tensor<{b}x{n}xi64>", f"tensor<{n}x{n}xi64>"
    mp, mr, mt = f"tensor<{n}x{b}xi1>", f"tensor<{b}x{n}xi1>", f"tensor<{n}x{n}xi1>"
    line = lambda rhs: emit_line(em, rhs)  # noqa: E731
    c0 = line(f"stablehlo.constant dense<0> : {s}")

    def bcast(x, xt, dims, rt):
        return line(f"stablehlo.broadcast_in_dim {x}, dims = [{', '.join(map(str, dims))}] : ({xt}) -> {rt}")

    def outer(names):
        kk, state = names
        zero = line(f"stablehlo.constant dense<0> : {s}")
        bc = line(f"stablehlo.constant dense<{b}> : {s}")
        end = line(f"stablehlo.add {kk}, {bc} : {s}")  # K + b: the first column after the panel
        p0 = take_slice(em, state, t, [zero, kk], [n, b], dt)
        r0 = take_slice(em, state, t, [kk, zero], [b, n], dt)

        def inner(names):
            k, big_k, p, r = names
            z = line(f"stablehlo.constant dense<0> : {s}")
            one = line(f"stablehlo.constant dense<1> : {s}")
            g = line(f"stablehlo.add {big_k}, {k} : {s}")  # the global row / column of the step
            piv = take_slice(em, p, panel, [g, k], [1, 1], dt, f"tensor<{dt}>")
            col = take_slice(em, p, panel, [z, k], [n, 1], dt, vn)
            l = line(f"stablehlo.divide {col}, {bcast(piv, f'tensor<{dt}>', [], vn)} : {vn}")
            prow = take_slice(em, p, panel, [g, z], [1, b], dt, vb)
            lp = bcast(l, vn, [0], panel)
            prod = line(f"stablehlo.multiply {lp}, {bcast(prow, vb, [1], panel)} : {panel}")
            upd = line(f"stablehlo.subtract {p}, {prod} : {panel}")
            pr, pc = line(f"stablehlo.iota dim = 0 : {ip}"), line(f"stablehlo.iota dim = 1 : {ip}")
            below = line(f"stablehlo.compare GT, {pr}, {bcast(g, s, [], ip)} : ({ip}, {ip}) -> {mp}")
            kp = bcast(k, s, [], ip)
            right = line(f"stablehlo.compare GT, {pc}, {kp} : ({ip}, {ip}) -> {mp}")
            at_k = line(f"stablehlo.compare EQ, {pc}, {kp} : ({ip}, {ip}) -> {mp}")
            p1 = line(f"stablehlo.select {right}, {upd}, {p} : {mp}, {panel}")
            p2 = line(f"stablehlo.select {at_k}, {lp}, {p1} : {mp}, {panel}")
            p3 = line(f"stablehlo.select {below}, {p2}, {p} : {mp}, {panel}")
            # the row panel: rows after the step's, columns after the panel
            rrow = take_slice(em, r, rpanel, [k, z], [1, n], dt, vn)
            lr = take_slice(em, l, vn, [big_k], [b], dt)
            lrb, rrb = bcast(lr, vb, [0], rpanel), bcast(rrow, vn, [1], rpanel)
            rprod = line(f"stablehlo.multiply {lrb}, {rrb} : {rpanel}")
            rupd = line(f"stablehlo.subtract {r}, {rprod} : {rpanel}")
            rr, rc = line(f"stablehlo.iota dim = 0 : {ir}"), line(f"stablehlo.iota dim = 1 : {ir}")
            later = line(f"stablehlo.compare GT, {rr}, {bcast(k, s, [], ir)} : ({ir}, {ir}) -> {mr}")
            width = line(f"stablehlo.constant dense<{b}> : {s}")
            panel_end = bcast(line(f"stablehlo.add {big_k}, {width} : {s}"), s, [], ir)
            after = line(f"stablehlo.compare GE, {rc}, {panel_end} : ({ir}, {ir}) -> {mr}")
            r1 = line(f"stablehlo.select {after}, {rupd}, {r} : {mr}, {rpanel}")
            r2 = line(f"stablehlo.select {later}, {r1}, {r} : {mr}, {rpanel}")
            return [line(f"stablehlo.add {k}, {one} : {s}"), big_k, p3, r2]

        steps = while_loop(em, [(em.fresh("k"), line(f"stablehlo.constant dense<0> : {s}"), s),
                                 (em.fresh("kk"), kk, s), (em.fresh("p"), p0, panel),
                                 (em.fresh("r"), r0, rpanel)], b, inner)
        pf, rf = f"{steps}#2", f"{steps}#3"
        a1 = line(f"stablehlo.dynamic_update_slice {state}, {pf}, {zero}, {kk} : ({t}, {panel}, {s}, {s}) -> {t}")
        rcur = take_slice(em, a1, t, [kk, zero], [b, n], dt)
        rc = line(f"stablehlo.iota dim = 1 : {ir}")
        after = line(f"stablehlo.compare GE, {rc}, {bcast(end, s, [], ir)} : ({ir}, {ir}) -> {mr}")
        rm = line(f"stablehlo.select {after}, {rf}, {rcur} : {mr}, {rpanel}")
        a2 = line(f"stablehlo.dynamic_update_slice {a1}, {rm}, {kk}, {zero} : ({t}, {rpanel}, {s}, {s}) -> {t}")
        zc = line(f"stablehlo.constant dense<0.000000e+00> : tensor<{dt}>")
        pr = line(f"stablehlo.iota dim = 0 : {ip}")
        lower = line(f"stablehlo.compare GE, {pr}, {bcast(end, s, [], ip)} : ({ip}, {ip}) -> {mp}")
        l21 = line(f"stablehlo.select {lower}, {pf}, {bcast(zc, f'tensor<{dt}>', [], panel)} : {mp}, {panel}")
        u12 = line(f"stablehlo.select {after}, {rf}, {bcast(zc, f'tensor<{dt}>', [], rpanel)} : {mr}, {rpanel}")
        prod = line(f"stablehlo.dot_general {l21}, {u12}, contracting_dims = [1] x [0] : ({panel}, {rpanel}) -> {t}")
        upd = line(f"stablehlo.subtract {a2}, {prod} : {t}")
        rows, cols = line(f"stablehlo.iota dim = 0 : {it}"), line(f"stablehlo.iota dim = 1 : {it}")
        inner_m = line(f"stablehlo.minimum {rows}, {cols} : {it}")
        trailing = line(f"stablehlo.compare GE, {inner_m}, {bcast(end, s, [], it)} : ({it}, {it}) -> {mt}")
        a3 = line(f"stablehlo.select {trailing}, {upd}, {a2} : {mt}, {t}")
        return [end, a3]

    out = while_loop(em, [(em.fresh("kk"), c0, s), (em.fresh("state"), a_value, t)], n, outer)
    return f"{out}#1"


# --- the lowering ------------------------------------------------------------------------------


def _tensor(ir_type) -> TensorType | None:
    """A static ranked tensor type as a TensorType, None otherwise."""
    import re

    m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", str(ir_type))
    if m is None:
        return None
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    try:
        return TensorType(dims, m.group(2))
    except ValueError:
        return None


def _flag(op, name: str) -> bool:
    return str(op.attributes[name]).strip() == "true" if name in op.attributes else False


def _replacement(op, index: int):
    """(private function text, the callee's name, operand indices, result index) for an op
    this lowering replaces, None where it keeps the op."""
    name = f"__synth_library_{index}"
    if op.name == "stablehlo.cholesky":
        a = _tensor(op.operands[0].type)
        if a is None or a.rank != 2 or not _flag(op, "lower"):
            return None
        b = lu_panel(int(a.shape[0]), "stablehlo-cholesky")
        if b is None or a.shape[0] // b > MAX_UNROLLED_PANELS:
            return None
        return private_function(name, [a], a, lambda em, args: cholesky_by_panels(em, args[0], a, b)), name, [0], 0
    if op.name == "stablehlo.triangular_solve":
        a, col = _tensor(op.operands[0].type), _tensor(op.operands[1].type)
        if a is None or col is None or col.rank != 2 or col.shape[1] != 1 or not _flag(op, "left_side") \
                or "NO_TRANSPOSE" not in str(op.attributes["transpose_a"]):
            return None
        n = int(a.shape[0])
        w = lu_panel(n)
        if w is None:
            return None
        d = {"lower": _flag(op, "lower"), "unit_diagonal": _flag(op, "unit_diagonal"), "transpose_a": False}
        vec = col.with_shape((n,))

        def body(em, args):
            x = emit_line(em, f"stablehlo.reshape {args[1]} : ({col.mlir()}) -> {vec.mlir()}")
            solve = solve_unrolled if n // w <= MAX_UNROLLED_PANELS else solve_blocked
            out = solve(em, [args[0], x], a, vec, d, w)
            return emit_line(em, f"stablehlo.reshape {out} : ({vec.mlir()}) -> {col.mlir()}")
        return private_function(name, [a, col], col, body), name, [0, 1], 0
    if op.name == "stablehlo.while" and "synth.library" in op.attributes \
            and str(op.attributes["synth.library"]).strip('"') == "lu":
        a = _tensor(op.operands[1].type)
        if a is None:
            return None
        n = int(a.shape[0])
        b = lu_panel(n)
        if b is None:
            return None
        if n // b <= MAX_UNROLLED_PANELS:
            build = lambda em, args: lu_by_panels(em, args[0], a, lu_outer_panel(n, b), b)  # noqa: E731
        else:
            build = lambda em, args: lu_blocked(em, args[0], a, b)  # noqa: E731
        return private_function(name, [a], a, build), name, [1], 1
    return None



def lower(text: str) -> tuple[str, int]:
    """`text` (a stablehlo module, static shapes) with each library op that has a blocked
    form at its size replaced by a call to it; (the module text, how many were replaced)."""
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func as func_d

    if "stablehlo.cholesky" not in text and "triangular_solve" not in text and "synth.library" not in text:
        return text, 0
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        found = []

        def visit(op):
            if op.name in ("stablehlo.cholesky", "stablehlo.triangular_solve", "stablehlo.while"):
                found.append(op)
            return ir.WalkResult.ADVANCE
        module.operation.walk(visit)
        count = 0
        for op in found:
            plan = _replacement(op, count)
            if plan is None:
                continue
            body, callee, operand_ix, result_ix = plan
            helper = ir.Module.parse(body)
            for f in list(helper.body.operations):
                module.body.append(f)  # moves the function into the module
            with ir.InsertionPoint(op), op.location:
                call = func_d.CallOp([op.results[result_ix].type], ir.FlatSymbolRefAttr.get(callee),
                                     [op.operands[i] for i in operand_ix])
            op.results[result_ix].replace_all_uses_with(call.results[0])
            if all(not list(r.uses) for r in op.results):
                op.erase()
            count += 1
        if not count:
            return text, 0
        module.operation.verify()
        return str(module), count
