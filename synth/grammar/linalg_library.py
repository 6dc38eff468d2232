"""linalg's library ops: loop forms of stablehlo.triangular_solve, stablehlo.cholesky, and LU.

linalg has no op for a triangular solve or a Cholesky factorization; their equivalent in
linalg on tensors is a loop over tensors whose body is linalg work on slices:

    triangular_solve   scf.for over the rows of x (iter_args: a, x = b): row i of op(a)
                       and the rows of x already solved (dynamic-size slices), their
                       linalg.dot, then x[i] = (b[i] - dot) / a[i, i]; backward
                       substitution counts i down
    cholesky           scf.for over the columns (iter_args: L = a, left-looking): column j
                       of L from a[j:, j] less the linalg.matvec of L[j:, :j] with
                       L[j, :j], over sqrt of its first element; zeros above the diagonal;
                       at sizes with a panel width, by panels of columns whose update
                       from the columns left of them is one linalg.matmul
    lu                 scf.for over k (iter_args: the matrix; right-looking, no pivoting):
                       the multipliers a[k+1:, k] / a[k, k], then the block a[k+1:, k+1:]
                       less their outer product with a[k, k+1:], updated in place

Signature, attribute domain, shape rule and semantics are the stablehlo ops' own
(synth.grammar.families): the same value in exact arithmetic (the sums add in another
order). The emitted MLIR uses scf.for, tensor.extract_slice / insert_slice / extract /
insert with dynamic offsets and sizes, arith index arithmetic, linalg.dot / matvec / fill
/ generic: the ops the output contract allows for loops with tensor bodies. Constants are
defined before the loop (an Emitter's memoized constants must dominate every later use).
"""

from __future__ import annotations

from synth.grammar.families import (CholeskyFamily, CounterSelectFamily, FlipFamily, LuFamily, PutFamily, TakeFamily,
                                    TriangularSolveFamily, unit_shape)
from synth.grammar.linalg_base import LinalgOp, clamped_index
from synth.grammar.linalg_generic import emit_generic
from synth.grammar.op import attr_dict
from synth.grammar.dims import is_dynamic


def index_value(em, n) -> str:
    """An `index` value of the dimension n: a memoized constant, or in a generic body the
    size's value (synth.grammar.dims)."""
    return em.size(n) if is_dynamic(n) else em.scalar_constant(int(n), "index")


def _i64(em, n) -> str:
    """An i64 value of the dimension n (a generic body: its size value, index_cast)."""
    if not is_dynamic(n):
        return em.scalar_constant(int(n), "i64")
    v = em.fresh()
    em.line(f"{v} = arith.index_cast {em.size(n)} : index to i64")
    return v


def _plus(n, k: int):
    return n.offset(k) if is_dynamic(n) else int(n) + k


def library_marker(d: dict) -> str:
    """The synth.library attribute of a triangular solve's row loop (quoted MLIR string)."""
    return (f'"triangular_solve lower={int(d["lower"])} unit={int(d["unit_diagonal"])} '
            f'transpose={int(d["transpose_a"])}"')


def dynamic(n_dims: int, dtype: str) -> str:
    """The type text of a tensor of `n_dims` dynamic dims of `dtype`."""
    return "tensor<" + "?x" * n_dims + dtype + ">"


def elementwise(em, body, values: list[str], t: str, rank: int, dt: str, init: str, payload) -> str:
    """A linalg.generic over `values` (each of type t, `rank` dims of dt) into `init`
    (type t, a tensor.empty's: the sizes may be dynamic, which linalg_generic.emit_generic's
    static empties are not), elementwise: `payload(*elements)` writes the body's lines
    (body.line(..., extra="  ")) and returns the value it yields."""
    dims = ", ".join(f"d{k}" for k in range(rank))
    ident = f"affine_map<({dims}) -> ({dims})>"
    parallel = ", ".join(['"parallel"'] * rank)
    args, o = [em.fresh("x") for _ in values], em.fresh("o")
    out = body.line(f"linalg.generic {{indexing_maps = [{', '.join([ident] * (len(values) + 1))}], "
                    f"iterator_types = [{parallel}]}} ins({', '.join(values)} : {', '.join([t] * len(values))}) "
                    f"outs({init} : {t}) {{")
    em.line(f"^bb0({', '.join(f'{a}: {dt}' for a in args)}, {o}: {dt}):")
    em.line(f"  linalg.yield {payload(*args)} : {dt}")
    em.line(f"}} -> {t}")
    return out


class TriangularSolve(TriangularSolveFamily, LinalgOp):
    """Forward / backward substitution as an scf.for over the rows (a vector right-hand side).

    Forward substitution with a lower a (not transposed) at a size with a panel width
    (families.lu_panel(n, "linalg-solve"): 50 at n = 2000) runs by panels of b rows first:
    the panel's right-hand side less the linalg.matvec of a[K:K+b, :K] with the rows solved
    before it (the bulk of the work, a tiled matvec streaming a's rows once), then the
    panel's rows by the loop above over the panel's own columns K..i-1 (the same value in
    exact arithmetic; the sums are split at K). The panels end at (n / b) * b, computed in
    the text, and the row loop goes on from there (empty at n): resized to a smaller n
    (verify's sizes) the text is the unblocked loop. PolyBench LARGE trisolv (n = 2000)
    raised to linalg, mlir-cpu, one thread, AMD EPYC host, the row loop and the panels in
    alternating processes (3 rounds, medians of 50 calls): 1.70, 1.88, 1.91 -> 1.01, 1.04,
    1.01 ms (the loops: 2.6 ms); outputs within 2.2e-14 relative."""

    rhs_ranks = (1,)

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a_t, b_t = arg_types
        return self.rows(em, operands[0], operands[1], a_t, b_t, d, em.scalar_constant(0, "index"),
                         marker=library_marker(d))

    def rows(self, em, a: str, rhs: str, a_t, b_t, d: dict, start: str, marker: str = "") -> str:
        """The row loop from row `start` (an index value) to n: x, the right-hand side
        with those rows solved."""
        n, dt = a_t.shape[0], a_t.dtype
        t, v = a_t.mlir(), b_t.mlir()
        forward = d["lower"] != d["transpose_a"]  # the triangle of op(a) solved from the top
        c0, c1 = em.scalar_constant(0, "index"), em.scalar_constant(1, "index")
        cn = index_value(em, n)
        index_value(em, _plus(n, -1))  # defined here, before the loops whose bodies use them
        em.scalar_constant(0.0, dt)
        r, k, aa, x = em.fresh("solve"), em.fresh("k"), em.fresh("a"), em.fresh("x")
        em.line(f"{r}:2 = scf.for {k} = {start} to {cn} step {c1} iter_args({aa} = {a}, "
                f"{x} = {rhs}) -> ({t}, {v}) {{")
        body = Body(em)
        self._row(em, body, aa, x, a_t, b_t, k, c0 if forward else None, d, marker)
        return f"{r}#1"

    @staticmethod
    def _row(em, body, aa: str, x: str, a_t, b_t, k: str, lo: str | None, d: dict, marker: str = "") -> None:
        """The body of the row loop at step k: x[i] from the dot of row i of op(a) with the
        rows of x already solved (forward: from column `lo` to i - 1), closing the body."""
        n, dt = a_t.shape[0], a_t.dtype
        t, v, dyn, scalar = a_t.mlir(), b_t.mlir(), dynamic(1, dt), f"tensor<{dt}>"
        c1, last = em.scalar_constant(1, "index"), index_value(em, _plus(n, -1))
        zero = em.scalar_constant(0.0, dt)
        if lo is not None:  # forward: row i = k reads x[lo:i]
            i, length = k, (k if lo == em.scalar_constant(0, "index") else body.line(f"arith.subi {k}, {lo} : index"))
        else:  # row i = n - 1 - k reads x[i + 1:n], k elements
            i, length = body.line(f"arith.subi {last}, {k} : index"), k
            lo = body.line(f"arith.addi {i}, {c1} : index")
        if d["transpose_a"]:  # row i of a^T: column i of a
            row = body.line(f"tensor.extract_slice {aa}[{lo}, {i}] [{length}, 1] [1, 1] : {t} to {dyn}")
        else:
            row = body.line(f"tensor.extract_slice {aa}[{i}, {lo}] [1, {length}] [1, 1] : {t} to {dyn}")
        done = body.line(f"tensor.extract_slice {x}[{lo}] [{length}] [1] : {v} to {dyn}")
        filled = body.zeros(zero, dt, scalar)
        dot = body.line(f"linalg.dot ins({row}, {done} : {dyn}, {dyn}) outs({filled} : {scalar}) -> {scalar}")
        s = body.line(f"tensor.extract {dot}[] : {scalar}")
        bi = body.line(f"tensor.extract {x}[{i}] : {v}")
        xi = body.line(f"arith.subf {bi}, {s} : {dt}")
        if not d["unit_diagonal"]:
            diag = body.line(f"tensor.extract {aa}[{i}, {i}] : {t}")
            xi = body.line(f"arith.divf {xi}, {diag} : {dt}")
        new = body.line(f"tensor.insert {xi} into {x}[{i}] : {v}")
        body.close(f"scf.yield {aa}, {new} : {t}, {v}", marker)

class Cholesky(CholeskyFamily, LinalgOp):
    """Left-looking Cholesky as an scf.for over the columns, the factor built in place of
    the operand (column j of the state is still a's when step j reads it).

    Unblocked (n without a panel width, families.lu_panel(n, "linalg-cholesky"), e.g. the
    small sizes of the proofs): column j of L is a[j:, j] less the linalg.matvec of
    L[j:, :j] with L[j, :j]. Blocked (panel width b dividing n): over the panels K = 0, b,
    .., n - b, the panel's columns a[K:, K:K+b] first get the columns left of them
    subtracted at once, a linalg.matmul of L[K:, :K] with -L[K:K+b, :K]^T accumulating
    into them (the bulk of the work as a cache- and register-tiled matmul), then each
    column of the panel is the unblocked step over the panel's own columns K..j-1 (the
    same value in exact arithmetic; the sums are split at K). The panels' end is computed
    in the text from n, and the unblocked loop follows from there (empty at n): resized to
    a smaller n (verify's re-instantiation) the text is the unblocked loop and stays
    right. Static panel widths: a dynamic min(b, n - K) instead ran 11% slower at
    n = 2000 (0.130 s against 0.116 s, medians of 15 calls side by side)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        return self.columns(em, operands[0], arg_types[0], em.scalar_constant(0, "index"), marker='"cholesky"')

    def columns(self, em, value: str, a_t, start: str, marker: str = "") -> str:
        """The column loop from column `start` (an index value) to n."""
        n, dt = a_t.shape[0], a_t.dtype
        t = a_t.mlir()
        c0, c1 = em.scalar_constant(0, "index"), em.scalar_constant(1, "index")
        cn = index_value(em, n)
        em.scalar_constant(0.0, dt)  # defined here, before the loops whose bodies use it
        rest, j, state = em.fresh("chol"), em.fresh("j"), em.fresh("l")  # the columns from start on
        em.line(f"{rest} = scf.for {j} = {start} to {cn} step {c1} iter_args({state} = {value}) -> ({t}) {{")
        body = Body(em)
        body.close(f"scf.yield {self._column(em, body, state, a_t, j, c0)} : {t}", marker)
        return rest

    @staticmethod
    def _column(em, body, state: str, a_t, j: str, lo: str) -> str:
        """Column j of L from the state's column j (rows j..n-1) less the matvec of the
        state's columns lo..j-1 with its row j there; zeros above the diagonal."""
        n, dt = a_t.shape[0], a_t.dtype
        t, vec, mat = a_t.mlir(), dynamic(1, dt), dynamic(2, dt)
        c0, cn = em.scalar_constant(0, "index"), index_value(em, n)
        zero = em.scalar_constant(0.0, dt)
        m = body.line(f"arith.subi {cn}, {j} : index")  # rows j..n-1
        w = body.line(f"arith.subi {j}, {lo} : index")  # columns lo..j-1
        column = body.line(f"tensor.extract_slice {state}[{j}, {j}] [{m}, 1] [1, 1] : {t} to {vec}")
        block = body.line(f"tensor.extract_slice {state}[{j}, {lo}] [{m}, {w}] [1, 1] : {t} to {mat}")
        row = body.line(f"tensor.extract_slice {state}[{j}, {lo}] [1, {w}] [1, 1] : {t} to {vec}")
        init = body.line(f"tensor.empty({m}) : {vec}")
        filled = body.zeros(zero, dt, vec, init)
        mv = body.line(f"linalg.matvec ins({block}, {row} : {mat}, {vec}) outs({filled} : {vec}) -> {vec}")
        a0 = body.line(f"tensor.extract {column}[{c0}] : {vec}")
        s0 = body.line(f"tensor.extract {mv}[{c0}] : {vec}")
        pivot = body.line(f"arith.subf {a0}, {s0} : {dt}")
        diag = body.line(f"math.sqrt {pivot} : {dt}")

        def scaled_or_diagonal(p, q):  # element 0: the diagonal; below it (a - mv) / diagonal
            idx = body.line("linalg.index 0 : index", extra="  ")
            first = body.line(f"arith.cmpi eq, {idx}, {c0} : index", extra="  ")
            diff = body.line(f"arith.subf {p}, {q} : {dt}", extra="  ")
            scaled = body.line(f"arith.divf {diff}, {diag} : {dt}", extra="  ")
            return body.line(f"arith.select {first}, {diag}, {scaled} : {dt}", extra="  ")

        new = elementwise(em, body, [column, mv], vec, 1, dt, init, scaled_or_diagonal)
        written = body.line(f"tensor.insert_slice {new} into {state}[{j}, {j}] [{m}, 1] [1, 1] : {vec} into {t}")
        # above the diagonal: zeros (rows 0..j-1 of column j)
        zeros = body.zeros(zero, dt, vec, body.line(f"tensor.empty({j}) : {vec}"))
        return body.line(f"tensor.insert_slice {zeros} into {written}[0, {j}] [{j}, 1] [1, 1] : {vec} into {t}")


class Lu(LuFamily, LinalgOp):
    """LU without pivoting as scf.for loops (right-looking) on dynamic-size slices, updated
    in place (each linalg op's outs is the slice it rewrites).

    Unblocked (n without a panel width, families.lu_panel): over k = 0 .. n-2, a linalg.generic
    divides the column below the pivot, another updates the block below and right of it.
    Blocked (panel width b dividing n): over the panels K = 0, b, .., n-b, the same steps
    on the panel's columns and on the row panel right of it (rows K..K+b-1), then a
    linalg.matmul of the negated multipliers below the panel with the row panel into the
    trailing block: it accumulates in order of k, so every element gets the unblocked
    steps' operations in their order (a + (-l) * u is a - l * u). A panel is itself
    factored by sub-panels of s columns (families.lu_subpanel: 25 of 250) the same way
    (_subpanels): the column steps then sweep s columns, not b, and the rest is matmuls.
    LU of PolyBench LARGE on mlir-cpu, one thread, side by side: about 0.21 -> 0.145 s;
    sub-panels of 10, 25, 50: within 4%, 125: 0.164 s; panels of 125 to 500 with
    sub-panels: within 5%, 1000: 0.170 s. The panels end at
    (n / b) * b, computed in the text from n, and the unblocked loop goes on from there
    (empty at n): resized to a smaller n (verify's re-instantiation) the text is the
    unblocked loop and stays right."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        return self.steps_from(em, operands[0], arg_types[0], em.scalar_constant(0, "index"), marker='"lu"')

    def steps_from(self, em, value: str, a_t, start: str, marker: str = "") -> str:
        """The elimination steps from k = `start` (an index value) to n - 2."""
        n = a_t.shape[0]
        c1 = em.scalar_constant(1, "index")
        index_value(em, n)  # defined here, before the loops whose bodies use it
        t = a_t.mlir()
        rest, k, state = em.fresh("lu"), em.fresh("k"), em.fresh("state")  # the steps from start on
        last = index_value(em, _plus(n, -1))
        em.line(f"{rest} = scf.for {k} = {start} to {last} step {c1} iter_args({state} = {value}) -> ({t}) {{")
        body = Body(em)
        body.close(f"scf.yield {self._step(em, body, state, a_t, k, None)} : {t}", marker)
        return rest

    @staticmethod
    def _map(em, body, value: str, t: str, rank: int, dt: str, init: str, scalar) -> str:
        """A linalg.generic of `value` (type t, `rank` dims of dt) into `init`: each element
        x becomes the op line `scalar(x)` (a tensor.empty's init: the sizes may be dynamic,
        which linalg_generic.emit_generic's static empties are not)."""
        return elementwise(em, body, [value], t, rank, dt, init, lambda x: body.line(scalar(x), extra="  "))

    @staticmethod
    def _update(em, body, mult: str, row: str, block: str, dt: str) -> str:
        """block[i, j] - mult[i] * row[j], into the block (a linalg.generic)."""
        vec, mat = dynamic(1, dt), dynamic(2, dt)
        li, uj, aij = em.fresh("l"), em.fresh("u"), em.fresh("elt")
        updated = body.line(
            f"linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, "
            f"affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins({mult}, {row} : {vec}, {vec}) outs({block} : {mat}) {{")
        em.line(f"^bb0({li}: {dt}, {uj}: {dt}, {aij}: {dt}):")
        prod = body.line(f"arith.mulf {li}, {uj} : {dt}", extra="  ")
        diff = body.line(f"arith.subf {aij}, {prod} : {dt}", extra="  ")
        em.line(f"  linalg.yield {diff} : {dt}")
        em.line(f"}} -> {mat}")
        return updated

    def _step(self, em, body, state: str, a_t, k: str, end: str | None) -> str:
        """One elimination step at k: the multipliers below the pivot, then the block below
        and right of (k, k), or with `end` (a panel's end) its columns up to `end` and the
        row panel's rows up to `end`, right of it."""
        n, dt = a_t.shape[0], a_t.dtype
        t, vec, mat = a_t.mlir(), dynamic(1, dt), dynamic(2, dt)
        c1, cn = em.scalar_constant(1, "index"), index_value(em, n)
        k1 = body.line(f"arith.addi {k}, {c1} : index")
        m = body.line(f"arith.subi {cn}, {k1} : index")  # rows after k
        piv = body.line(f"tensor.extract {state}[{k}, {k}] : {t}")
        column = body.line(f"tensor.extract_slice {state}[{k1}, {k}] [{m}, 1] [1, 1] : {t} to {vec}")
        mult = self._map(em, body, column, vec, 1, dt, body.line(f"tensor.empty({m}) : {vec}"),
                         lambda x: f"arith.divf {x}, {piv} : {dt}")
        state = body.line(f"tensor.insert_slice {mult} into {state}[{k1}, {k}] [{m}, 1] [1, 1] : {vec} into {t}")
        w = m if end is None else body.line(f"arith.subi {end}, {k1} : index")  # columns updated
        row = body.line(f"tensor.extract_slice {state}[{k}, {k1}] [1, {w}] [1, 1] : {t} to {vec}")
        block = body.line(f"tensor.extract_slice {state}[{k1}, {k1}] [{m}, {w}] [1, 1] : {t} to {mat}")
        updated = self._update(em, body, mult, row, block, dt)
        state = body.line(f"tensor.insert_slice {updated} into {state}[{k1}, {k1}] [{m}, {w}] [1, 1] : {mat} into {t}")
        if end is None:
            return state
        e = body.line(f"arith.subi {cn}, {end} : index")  # the row panel's columns
        lr = body.line(f"tensor.extract_slice {mult}[0] [{w}] [1] : {vec} to {vec}")
        urow = body.line(f"tensor.extract_slice {state}[{k}, {end}] [1, {e}] [1, 1] : {t} to {vec}")
        rblock = body.line(f"tensor.extract_slice {state}[{k1}, {end}] [{w}, {e}] [1, 1] : {t} to {mat}")
        rupd = self._update(em, body, lr, urow, rblock, dt)
        return body.line(f"tensor.insert_slice {rupd} into {state}[{k1}, {end}] [{w}, {e}] [1, 1] : {mat} into {t}")


# --- reads and writes at a loop counter (a rank-0 i64 tensor) ------------------------------


def _counter(em, t: str, offset: int) -> str:
    """The counter plus `offset`, as an i64 scalar."""
    value = em.fresh()
    em.line(f"{value} = tensor.extract {t}[] : tensor<i64>")
    if offset:
        c, plus = em.scalar_constant(offset, "i64"), em.fresh()
        em.line(f"{plus} = arith.addi {value}, {c} : i64")
        value = plus
    return value


def _counter_offsets(em, t: str, offset: int, dim: int, shape) -> str:
    """`[0, ..., k, ..., 0]`: the counter plus `offset`, clamped into the dim, as an index
    at `dim` (stablehlo's dynamic_slice clamps the same way)."""
    value, index = _counter(em, t, offset), em.fresh()
    em.line(f"{index} = arith.index_cast {value} : i64 to index")
    lo, hi = em.fresh(), em.fresh()
    n = shape[dim]
    last = em.size(n.offset(-1)) if is_dynamic(n) else em.scalar_constant(int(n) - 1, 'index')
    em.line(f"{lo} = arith.maxsi {index}, {em.scalar_constant(0, 'index')} : index")
    em.line(f"{hi} = arith.minsi {lo}, {last} : index")
    return "[" + ", ".join(hi if k == dim else "0" for k in range(len(shape))) + "]"


def _unit_slice(em, shape, dim: int) -> str:
    """`[sizes] [strides]` of the slice of extent 1 along `dim` (a dynamic dim's size as
    its value, in a generic body)."""
    sizes = ", ".join(em.size(n) if is_dynamic(n) else str(int(n)) for n in unit_shape(shape, dim))
    return f"[{sizes}] [{', '.join('1' for _ in shape)}]"


class Take(TakeFamily, LinalgOp):
    """tensor.extract_slice of extent 1 along `dim` at the counter, rank-reduced."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        offsets = _counter_offsets(em, operands[1], d["offset"], d["dim"], a.shape)
        r = em.fresh()
        em.line(f"{r} = tensor.extract_slice {operands[0]}{offsets} {_unit_slice(em, a.shape, d['dim'])} : "
                f"{a.mlir()} to {result_type.mlir()}")
        return r


class Flip(FlipFamily, LinalgOp):
    """A linalg.generic over the result that reads a at index t + offset - p along `dim`
    (tensor.extract at that index clamped into the dim) where the index lies in the dim,
    0 where it does not: n reads per call, no padded copy."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        k, n, rank = d["dim"], a.shape[d["dim"]], a.rank
        shift = _counter(em, operands[1], d["offset"])
        zero_i, last, extent = (_i64(em, v) for v in (0, _plus(n, -1), n))
        zero = em.scalar_constant(0, a.dtype)
        dims = ", ".join(f"d{j}" for j in range(rank))
        parallel = ", ".join('"parallel"' for _ in range(rank))
        out, o = em.fresh(), em.fresh("o")
        at = [em.fresh("i") for _ in range(rank)]
        p, j, *clamp, v, r = (em.fresh() for _ in range(10))
        body = [f"{at[m]} = linalg.index {m} : index" for m in range(rank)]
        body += [f"{p} = arith.index_cast {at[k]} : index to i64",
                 f"{j} = arith.subi {shift}, {p} : i64"]
        lines, inside, index = clamped_index(j, zero_i, extent, last, clamp)
        body += lines
        source = ", ".join(index if m == k else at[m] for m in range(rank))
        body += [f"{v} = tensor.extract {operands[0]}[{source}] : {a.mlir()}",
                 f"{r} = arith.select {inside}, {v}, {zero} : {a.dtype}",
                 f"linalg.yield {r} : {a.dtype}"]
        em.line(f"{out} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], "
                f"iterator_types = [{parallel}]}} outs({em.empty(a)} : {a.mlir()}) {{\n"
                f"^bb0({o}: {a.dtype}):\n" + "\n".join(f"  {ln}" for ln in body) + f"\n}} -> {a.mlir()}")
        return out


class Put(PutFamily, LinalgOp):
    """tensor.insert_slice of the value (rank-reduced) at the counter along `dim`."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a, v = arg_types[0], arg_types[1]
        offsets = _counter_offsets(em, operands[2], d["offset"], d["dim"], a.shape)
        r = em.fresh()
        em.line(f"{r} = tensor.insert_slice {operands[1]} into {operands[0]}{offsets} "
                f"{_unit_slice(em, a.shape, d['dim'])} : {v.mlir()} into {a.mlir()}")
        return r


_CMPI = {"GT": "sgt", "GE": "sge", "LT": "slt", "LE": "sle", "EQ": "eq", "NE": "ne"}


class CounterSelect(CounterSelectFamily, LinalgOp):
    """linalg.generic: out = (linalg.index dim <direction> counter + offset) ? x : y."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        bound = _counter(em, operands[2], d["offset"])
        dims = tuple(range(result_type.rank))

        def body(em, blk):
            i, ii, p, s = em.fresh("i"), em.fresh("i"), em.fresh("p"), em.fresh("s")
            em.line(f"{i} = linalg.index {d['dim']} : index")
            em.line(f"{ii} = arith.index_cast {i} : index to i64")
            em.line(f"{p} = arith.cmpi {_CMPI[d['direction']]}, {ii}, {bound} : i64")
            em.line(f"{s} = arith.select {p}, {blk[0]}, {blk[1]} : {result_type.dtype}")
            return s
        return emit_generic(em, operands[:2], arg_types[:2], [dims, dims], result_type, body)


class Body:
    """Lines of a loop body, one level deeper than the emitter's current indent."""

    def __init__(self, em):
        self.em = em
        self.outer = em.indent
        em.indent = self.outer + "  "

    def line(self, rhs: str, extra: str = "") -> str:
        name = self.em.fresh()
        self.em.line(f"{extra}{name} = {rhs}")
        return name

    def zeros(self, zero: str, dtype: str, t: str, empty: str | None = None) -> str:
        """`linalg.fill` of the constant `zero` (of `dtype`) into `empty`, a static
        `tensor.empty` of type t where none is given (em.filled would define its memoized
        constant inside the loop, where later uses outside could not see it)."""
        empty = empty or self.line(f"tensor.empty() : {t}")
        return self.line(f"linalg.fill ins({zero} : {dtype}) outs({empty} : {t}) -> {t}")

    def close(self, terminator: str, marker: str = "") -> None:
        """End the body with `terminator`; `marker`: the loop is a library op's (its
        synth.library attribute's value, quoted: a backend lowers it, synth.backends.library_linalg)."""
        self.em.line(terminator)
        self.em.indent = self.outer
        self.em.line("}" + (f" {{synth.library = {marker}}}" if marker else ""))
