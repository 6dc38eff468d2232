"""The stablehlo grammar's loops: the library ops (triangular_solve, cholesky, lu, as
one unblocked algorithm at every size) and the ops at a loop counter (take, flip, put,
counter_select), with the `stablehlo.while` they are built on."""

from __future__ import annotations



from synth.grammar.dims import has_dynamic, is_dynamic
from synth.grammar.op import Emitter, attr_dict
from synth.grammar.types import TensorType
from synth.grammar.families import (
    CholeskyFamily,
    CounterSelectFamily,
    LuFamily,
    PutFamily,
    TakeFamily,
    FlipFamily,
    TriangularSolveFamily,
    unit_shape,
)

from synth.grammar.stablehlo_base import (
    StablehloOp,
    broadcast_to,
    iota_op,
    plus,
    reshaped,
    splat,
    tensor_constant,
)


def emit_line(em, rhs: str) -> str:
    """`%name = rhs` on a line of its own; the name."""
    name = em.fresh()
    em.line(f"{name} = {rhs}")
    return name


def take_slice(em, x: str, x_type: str, starts: list[str], sizes: list[int], dtype: str,
          as_type: str | None = None) -> str:
    """`stablehlo.dynamic_slice` of `x` (of type x_type) at the i64 scalars `starts`,
    `sizes` elements of `dtype`; reshaped to `as_type` where given (a row, column or
    element of a matrix as a vector or scalar). The library ops' reads."""
    sliced = "tensor<" + "".join(f"{d}x" for d in sizes) + f"{dtype}>"
    out = emit_line(em, f"stablehlo.dynamic_slice {x}, {', '.join(starts)}, sizes = [{', '.join(map(str, sizes))}] : "
                    f"({x_type}, {', '.join(['tensor<i64>'] * len(starts))}) -> {sliced}")
    return out if as_type is None else emit_line(em, f"stablehlo.reshape {out} : ({sliced}) -> {as_type}")


def while_loop(em, state: list[tuple[str, str, str]], bound, body, library: str | None = None) -> str:
    """`stablehlo.while` over (name, initial value, type) with the first element an i64
    counter running while below `bound` (an int, or a dynamic Size in a generic body);
    `library`: the loop is a library op's (synth.library, which a backend lowers); body(names) emits the body and
    returns the next values. The result's name (`%r#k` is the k-th state). The library
    ops' loops and synth.codegen.raised's time loops."""
    out = em.fresh("loop")
    marker = f' attributes {{synth.library = "{library}"}}' if library else ""
    em.line(f"{out}:{len(state)} = stablehlo.while(" + ", ".join(f"{a} = {v}" for a, v, _ in state)
            + ") : " + ", ".join(t for _, _, t in state) + marker)
    em.line("cond {")
    c, p = em.fresh("c"), em.fresh("p")
    if is_dynamic(bound):  # a count known at run time (a generic body): its value, from the prologue
        c = em.size(bound)
    else:
        em.line(f"  {c} = stablehlo.constant dense<{bound}> : tensor<i64>")
    em.line(f"  {p} = stablehlo.compare LT, {state[0][0]}, {c} : (tensor<i64>, tensor<i64>) -> tensor<i1>")
    em.line(f"  stablehlo.return {p} : tensor<i1>")
    em.line("} do {")
    indent = em.indent
    em.indent = indent + "  "
    nexts = body([a for a, _, _ in state])
    em.line(f"stablehlo.return {', '.join(nexts)} : " + ", ".join(t for _, _, t in state))
    em.indent = indent
    em.line("}")
    return out


class TriangularSolve(TriangularSolveFamily, StablehloOp):
    """stablehlo.triangular_solve (left side), at every size. `b` may be a vector: it is
    reshaped to a column and back around the op (the op wants rank 2).

    This is the op the raise means and its proofs cover; how a backend runs it (XLA's own
    expansion, or panels of rows where n has a panel width) is a lowering below the
    raised IR (synth.backends.library_stablehlo)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a, b = arg_types
        return self._op(em, operands, a, b, d, result_type)

    @staticmethod
    def _call(em, a_value: str, rhs: str, a_t: str, col_t: str, d) -> str:
        x = em.fresh()
        flag = lambda v: "true" if v else "false"  # noqa: E731
        transpose = "TRANSPOSE" if d["transpose_a"] else "NO_TRANSPOSE"
        em.line(f'{x} = "stablehlo.triangular_solve"({a_value}, {rhs}) {{left_side = true, '
                f'lower = {flag(d["lower"])}, unit_diagonal = {flag(d["unit_diagonal"])}, '
                f'transpose_a = #stablehlo<transpose {transpose}>}} : ({a_t}, {col_t}) -> {col_t}')
        return x

    def _op(self, em, operands, a, b, d, result_type) -> str:
        rhs, column = operands[1], b.with_shape((b.shape[0], 1)) if b.rank == 1 else b
        if b.rank == 1:
            rhs = reshaped(em, operands[1], b, column)
        x = self._call(em, operands[0], rhs, a.mlir(), column.mlir(), d)
        if b.rank == 2:
            return x
        return reshaped(em, x, column, result_type)


class Cholesky(CholeskyFamily, StablehloOp):
    """stablehlo.cholesky, lower = true, at every size. What the op leaves above the
    diagonal is implementation-defined, so the emitter zeroes it explicitly (a select on
    an iota comparison). Panels where n has a panel width are a lowering below the raised
    IR (synth.backends.library_stablehlo)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        return self._op(em, operands, result_type)

    @staticmethod
    def _zero_upper(em, value: str, result_type) -> str:
        t, mask_t, it = result_type.mlir(), result_type.with_dtype("i1").mlir(), result_type.with_dtype("i64").mlir()
        rows, cols = iota_op(em, 0, result_type.with_dtype("i64")), iota_op(em, 1, result_type.with_dtype("i64"))
        lower, r = em.fresh(), em.fresh()
        em.line(f"{lower} = stablehlo.compare GE, {rows}, {cols} : ({it}, {it}) -> {mask_t}")
        zero = tensor_constant(em, 0.0, result_type.dtype)
        zeros = broadcast_to(em, zero, TensorType((), result_type.dtype), (), result_type)
        em.line(f"{r} = stablehlo.select {lower}, {value}, {zeros} : {mask_t}, {t}")
        return r

    def _op(self, em, operands, result_type):
        factor = em.fresh()
        em.line(f"{factor} = stablehlo.cholesky {operands[0]}, lower = true : {result_type.mlir()}")
        return self._zero_upper(em, factor, result_type)


class Lu(LuFamily, StablehloOp):
    """LU without pivoting as a stablehlo.while, at every size: a while over k = 0 ..
    n-2: column k divided by the pivot, the block below and right of (k, k) less the
    outer product of those multipliers with row k; each step computes the whole matrix
    (masks select the part a step changes). Every element gets the operations of
    PolyBench's loops in their order. The while carries `synth.library = "lu"`: a backend
    lowering below the raised IR factors by panels where n has a panel width
    (synth.backends.library_stablehlo)."""

    LIBRARY = "lu"  # the while's synth.library marker

    def emit(self, em, operands, arg_types, attrs, result_type):
        return self._unblocked(em, operands[0], arg_types[0])

    def _unblocked(self, em, a_value: str, a):
        n, dt = a.shape[0], a.dtype
        vt = a.with_shape((n,))
        t, vec = a.mlir(), vt.mlir()
        it, scalar, mask = a.with_dtype("i64"), "tensor<i64>", a.with_dtype("i1").mlir()
        line = lambda rhs: emit_line(em, rhs)  # noqa: E731
        c0 = line("stablehlo.constant dense<0> : tensor<i64>")

        def take(state, k, dim):  # column (dim 1) or row (dim 0) k as a vector
            if has_dynamic(a):
                return _counter_gather(em, state, a, k, dim, vt)
            zero = line(f"stablehlo.constant dense<0> : {scalar}")
            starts = [zero, k] if dim == 1 else [k, zero]
            return take_slice(em, state, t, starts, [int(n), 1] if dim == 1 else [1, int(n)], dt, vec)

        def body(names):
            k, state = names
            one = line(f"stablehlo.constant dense<1> : {scalar}")
            col, row = take(state, k, 1), take(state, k, 0)
            piv = take_slice(em, state, t, [k, k], [1, 1], dt, f"tensor<{dt}>")
            pivs = broadcast_to(em, piv, TensorType((), dt), (), vt)
            l = line(f"stablehlo.divide {col}, {pivs} : {vec}")
            lb = broadcast_to(em, l, vt, (0,), a)
            rb = broadcast_to(em, row, vt, (1,), a)
            prod = line(f"stablehlo.multiply {lb}, {rb} : {t}")
            upd = line(f"stablehlo.subtract {state}, {prod} : {t}")
            rows, cols = iota_op(em, 0, it), iota_op(em, 1, it)
            kb = broadcast_to(em, k, TensorType((), "i64"), (), it)
            inner = line(f"stablehlo.minimum {rows}, {cols} : {it.mlir()}")
            block = line(f"stablehlo.compare GT, {inner}, {kb} : ({it.mlir()}, {it.mlir()}) -> {mask}")
            below = line(f"stablehlo.compare GT, {rows}, {kb} : ({it.mlir()}, {it.mlir()}) -> {mask}")
            at_k = line(f"stablehlo.compare EQ, {cols}, {kb} : ({it.mlir()}, {it.mlir()}) -> {mask}")
            multipliers = line(f"stablehlo.select {at_k}, {lb}, {state} : {mask}, {t}")
            kept = line(f"stablehlo.select {below}, {multipliers}, {state} : {mask}, {t}")
            new = line(f"stablehlo.select {block}, {upd}, {kept} : {mask}, {t}")
            return [line(f"stablehlo.add {k}, {one} : {scalar}"), new]
        bound = n.offset(-1) if is_dynamic(n) else int(n) - 1
        out = while_loop(em, [(em.fresh("k"), c0, "tensor<i64>"), (em.fresh("state"), a_value, t)], bound, body,
                         library=self.LIBRARY)
        return f"{out}#1"

# --- reads and writes at a loop counter ---------------------------------------------------------


def _counter_starts(em: Emitter, t: str, offset: int, dim: int, rank: int) -> list[str]:
    """Start indices (tensor<i64>): the counter plus `offset` along `dim`, 0 elsewhere."""
    at = t
    if offset:
        c = tensor_constant(em, offset, "i64")
        at = em.fresh()
        em.line(f"{at} = stablehlo.add {t}, {c} : tensor<i64>")
    zero = tensor_constant(em, 0, "i64") if rank > 1 else None
    return [at if k == dim else zero for k in range(rank)]


def _counter_gather(em: Emitter, x: str, a: TensorType, start: str, dim: int, result: TensorType) -> str:
    """The line of `x` at index `start` (a tensor<i64>, clamped into the dim) along `dim`,
    that dim dropped: Take's read in a generic body, a dynamic_gather whose slice sizes
    (1 along `dim`, the whole of the other dims) are a value (dynamic_slice's are static)."""
    index = emit_line(em, f"stablehlo.reshape {start} : (tensor<i64>) -> tensor<1xi64>")
    sizes = em.shape_value(tuple(1 if k == dim else n for k, n in enumerate(a.shape)))
    offsets = ", ".join(str(k) for k in range(a.rank - 1))
    return emit_line(em, f'"stablehlo.dynamic_gather"({x}, {index}, {sizes}) {{dimension_numbers = '
                     f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [{dim}], "
                     f"start_index_map = [{dim}], index_vector_dim = 0>, indices_are_sorted = false}} : "
                     f"({a.mlir()}, tensor<1xi64>, tensor<{a.rank}xi64>) -> {result.mlir()}")


class Take(TakeFamily, StablehloOp):
    """dynamic_slice of extent 1 along `dim` at the counter, reshaped to drop that dim."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        unit = a.with_shape(unit_shape(a.shape, d["dim"]))
        starts = _counter_starts(em, operands[1], d["offset"], d["dim"], a.rank)
        if has_dynamic(a):  # dynamic_slice's sizes are static: a gather with its sizes as a value
            return _counter_gather(em, operands[0], a, starts[d["dim"]], d["dim"], result_type)
        s, r = em.fresh(), em.fresh()
        em.line(f"{s} = stablehlo.dynamic_slice {operands[0]}, {', '.join(starts)}, "
                f"sizes = [{', '.join(str(int(n)) for n in unit.shape)}] : "
                f"({a.mlir()}, {', '.join(['tensor<i64>'] * a.rank)}) -> {unit.mlir()}")
        em.line(f"{r} = stablehlo.reshape {s} : ({unit.mlir()}) -> {result_type.mlir()}")
        return r


class Flip(FlipFamily, StablehloOp):
    """A gather along `dim` at index t + offset - p (an iota subtracted from the counter,
    clamped into the dim), selected against 0 where that index lies outside the dim: n
    reads, no padded copy. In a generic body the dim's extent is a value and the gather's
    slice sizes too (dynamic_gather)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        if has_dynamic(a):
            return self._generic(em, operands, a, d)
        k, n, rank = d["dim"], int(a.shape[d["dim"]]), a.rank
        line = TensorType((n,), "i64").mlir()
        iota, shift, spread, index, ge, lt, inside, clamped, column, gathered, mask, out = (
            em.fresh() for _ in range(12))
        em.line(f"{iota} = stablehlo.iota dim = 0 : {line}")
        em.line(f"{shift} = stablehlo.add {operands[1]}, {tensor_constant(em, d['offset'], 'i64')} : tensor<i64>")
        em.line(f"{spread} = stablehlo.broadcast_in_dim {shift}, dims = [] : (tensor<i64>) -> {line}")
        em.line(f"{index} = stablehlo.subtract {spread}, {iota} : {line}")
        zero, last, extent = (splat(em, v, TensorType((n,), "i64")) for v in (0, n - 1, n))
        em.line(f"{ge} = stablehlo.compare GE, {index}, {zero} : ({line}, {line}) -> tensor<{n}xi1>")
        em.line(f"{lt} = stablehlo.compare LT, {index}, {extent} : ({line}, {line}) -> tensor<{n}xi1>")
        em.line(f"{inside} = stablehlo.and {ge}, {lt} : tensor<{n}xi1>")
        em.line(f"{clamped} = stablehlo.clamp {zero}, {index}, {last} : {line}")
        em.line(f"{column} = stablehlo.reshape {clamped} : ({line}) -> tensor<{n}x1xi64>")
        offsets = ", ".join(str(m) for m in range(rank) if m != k)
        sizes = ", ".join("1" if m == k else str(int(w)) for m, w in enumerate(a.shape))
        em.line(f'{gathered} = "stablehlo.gather"({operands[0]}, {column}) {{dimension_numbers = '
                f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [{k}], "
                f"start_index_map = [{k}], index_vector_dim = 1>, indices_are_sorted = false, "
                f"slice_sizes = array<i64: {sizes}>}} : ({a.mlir()}, tensor<{n}x1xi64>) -> {a.mlir()}")
        predicate = a.with_dtype("i1")
        em.line(f"{mask} = stablehlo.broadcast_in_dim {inside}, dims = [{k}] : (tensor<{n}xi1>) -> {predicate.mlir()}")
        zeros = splat(em, 0, a)
        em.line(f"{out} = stablehlo.select {mask}, {gathered}, {zeros} : {predicate.mlir()}, {a.mlir()}")
        return out

    @staticmethod
    def _generic(em, operands, a: TensorType, d) -> str:
        k, rank = d["dim"], a.rank
        n = a.shape[k]
        vt, st = TensorType((n,), "i64"), TensorType((), "i64")
        line, mask_t = vt.mlir(), vt.with_dtype("i1").mlir()
        iota = iota_op(em, 0, vt)
        shift = emit_line(em, f"stablehlo.add {operands[1]}, {tensor_constant(em, d['offset'], 'i64')} : tensor<i64>")
        index = emit_line(em, f"stablehlo.subtract {broadcast_to(em, shift, st, (), vt)}, {iota} : {line}")
        zero = splat(em, 0, vt)
        last = broadcast_to(em, em.size(plus(n, -1)), st, (), vt)
        extent = broadcast_to(em, em.size(n), st, (), vt)
        ge = emit_line(em, f"stablehlo.compare GE, {index}, {zero} : ({line}, {line}) -> {mask_t}")
        lt = emit_line(em, f"stablehlo.compare LT, {index}, {extent} : ({line}, {line}) -> {mask_t}")
        inside = emit_line(em, f"stablehlo.and {ge}, {lt} : {mask_t}")
        clamped = emit_line(em, f"stablehlo.clamp {zero}, {index}, {last} : {line}")
        column_t = TensorType((n, 1), "i64")
        column = reshaped(em, clamped, vt, column_t)
        offsets = ", ".join(str(m) for m in range(rank) if m != k)
        sizes = em.shape_value(tuple(1 if m == k else w for m, w in enumerate(a.shape)))
        gathered = emit_line(em, f'"stablehlo.dynamic_gather"({operands[0]}, {column}, {sizes}) {{dimension_numbers = '
                             f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [{k}], "
                             f"start_index_map = [{k}], index_vector_dim = 1>, indices_are_sorted = false}} : "
                             f"({a.mlir()}, {column_t.mlir()}, tensor<{rank}xi64>) -> {a.mlir()}")
        predicate = a.with_dtype("i1")
        mask = broadcast_to(em, inside, vt.with_dtype("i1"), (k,), predicate)
        zeros = splat(em, 0, a)
        return emit_line(em, f"stablehlo.select {mask}, {gathered}, {zeros} : {predicate.mlir()}, {a.mlir()}")


class Put(PutFamily, StablehloOp):
    """The value reshaped to a unit dim at `dim`, then dynamic_update_slice at the counter."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a, v = arg_types[0], arg_types[1]
        unit = a.with_shape(unit_shape(a.shape, d["dim"]))
        u = reshaped(em, operands[1], v, unit)
        starts = _counter_starts(em, operands[2], d["offset"], d["dim"], a.rank)
        r = em.fresh()
        em.line(f"{r} = stablehlo.dynamic_update_slice {operands[0]}, {u}, {', '.join(starts)} : "
                f"({a.mlir()}, {unit.mlir()}, {', '.join(['tensor<i64>'] * a.rank)}) -> {a.mlir()}")
        return r


class CounterSelect(CounterSelectFamily, StablehloOp):
    """select(iota along `dim` <direction> broadcast(counter + offset), x, y)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        x = arg_types[0]
        it = x.with_dtype("i64").mlir()
        at = _counter_starts(em, operands[2], d["offset"], 0, 1)[0]
        if has_dynamic(x):
            io, b = iota_op(em, d["dim"], x.with_dtype("i64")), broadcast_to(
                em, at, TensorType((), "i64"), (), x.with_dtype("i64"))
            p, r = em.fresh(), em.fresh()
        else:
            io, b, p, r = em.fresh(), em.fresh(), em.fresh(), em.fresh()
            em.line(f"{io} = stablehlo.iota dim = {d['dim']} : {it}")
            em.line(f"{b} = stablehlo.broadcast_in_dim {at}, dims = [] : (tensor<i64>) -> {it}")
        em.line(f"{p} = stablehlo.compare {d['direction']}, {io}, {b} : ({it}, {it}) -> {x.with_dtype('i1').mlir()}")
        em.line(f"{r} = stablehlo.select {p}, {operands[0]}, {operands[1]} : {x.with_dtype('i1').mlir()}, {x.mlir()}")
        return r


# --- values from nothing ---------------------------------------------------------------------
