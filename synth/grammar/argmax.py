"""argmax / argmin of both grammars: the index of the largest (smallest) element along one
dim, the first one where several are equal (BLAS's isamax: `if (fabsf(x[i]) > m) { m =
fabsf(x[i]); best = i; }`), as a 32-bit integer (C's int).

    argmax(a; dim, dtype)[..] = first k with a[.., k, ..] = max over the dim   (np.argmax)

Emitters: stablehlo.reduce of the values and an iota of their indices together, whose
body keeps the larger value (on a tie the smaller index: the reduction order does not
matter); linalg.generic with the values and the indices as two outputs, a reduction
over the dim whose body keeps the element where it is strictly larger (`arith.cmpf ogt`,
the loop's order: the first wins), the pattern TOSA's argmax lowers to. Both start from
index -1 (the init, which every element beats), not from an infinite value. The interpreter of
raised programs runs both (numbers or z3 terms). Where a value is NaN the comparisons
are false in both and NumPy's argmax takes the NaN: validation runs on numbers. Only the
sketch tactic builds it (synth.synthesis.opset leaves it out of the search).
"""

from __future__ import annotations

import numpy as np

from synth.grammar.linalg_base import LinalgOp
from synth.grammar.op import attr_dict, attrs
from synth.grammar.stablehlo_base import StablehloOp, iota_op, tensor_constant
from synth.grammar.types import FLOAT_DTYPES, NUMERIC_DTYPES, TensorType

INDEX_DTYPES = ("i32", "i64")


class ArgFamily:
    """See the module docstring. `kind`: "max" or "min". Attributes: dim, dtype (of the index)."""

    arity = 1
    attr_domain_kind = "arg_reduce"
    shape_generic = True

    def __init__(self, name: str, kind: str):
        super().__init__(name)
        self.kind = kind

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1 or arg_types[0].rank == 0 or arg_types[0].dtype not in NUMERIC_DTYPES:
            return ()
        return tuple(attrs(dim=d, dtype=dt) for d in range(arg_types[0].rank) for dt in INDEX_DTYPES)

    def result_type(self, arg_types, a):
        self.check_arity(arg_types)
        d = attr_dict(a)
        t = arg_types[0]
        if set(d) != {"dim", "dtype"} or not 0 <= d["dim"] < t.rank or d["dtype"] not in INDEX_DTYPES \
                or t.dtype not in NUMERIC_DTYPES:
            raise self.shape_error("needs a numeric tensor of rank >= 1, a dim of it and an index "
                                   f"type of {INDEX_DTYPES}", arg_types, a)
        return TensorType(tuple(n for k, n in enumerate(t.shape) if k != d["dim"]), d["dtype"])

    def apply(self, sem, args, a):
        d = attr_dict(a)
        x = np.asarray(args[0])
        index = np.argmax(x, axis=d["dim"]) if self.kind == "max" else np.argmin(x, axis=d["dim"])
        return np.asarray(index, dtype=TensorType((), d["dtype"]).numpy_dtype)

    def cost(self, arg_types, a, result_type):
        return 2 * arg_types[0].size


class StablehloArg(ArgFamily, StablehloOp):
    """stablehlo.reduce of (values, iota) with init (0, -1): index -1 marks the init, which
    every element beats (no infinity is needed as the init, which the proofs cannot take)."""

    def emit(self, em, operands, arg_types, a, result_type):
        d = attr_dict(a)
        t, it = arg_types[0], d["dtype"]
        dt = t.dtype
        index = iota_op(em, d["dim"], t.with_dtype(it))
        zero = tensor_constant(em, 0, dt)
        none = tensor_constant(em, -1, it)
        s, i = f"tensor<{dt}>", f"tensor<{it}>"
        better = "GT" if self.kind == "max" else "LT"
        r, a_, ia, b_, ib = em.fresh("r"), em.fresh("a"), em.fresh("ia"), em.fresh("b"), em.fresh("ib")
        wins, tie, first, ties, beats, b_init, a_real, real_beats, pick, v, k = (em.fresh() for _ in range(11))
        b1 = "tensor<i1>"
        em.line(f'{r}:2 = "stablehlo.reduce"({operands[0]}, {index}, {zero}, {none}) ({{\n'
                f"^bb0({a_}: {s}, {ia}: {i}, {b_}: {s}, {ib}: {i}):\n"
                f"  {wins} = stablehlo.compare {better}, {a_}, {b_} : ({s}, {s}) -> {b1}\n"
                f"  {tie} = stablehlo.compare EQ, {a_}, {b_} : ({s}, {s}) -> {b1}\n"
                f"  {first} = stablehlo.compare LT, {ia}, {ib} : ({i}, {i}) -> {b1}\n"
                f"  {ties} = stablehlo.and {tie}, {first} : {b1}\n"
                f"  {beats} = stablehlo.or {wins}, {ties} : {b1}\n"
                f"  {b_init} = stablehlo.compare EQ, {ib}, {none} : ({i}, {i}) -> {b1}\n"
                f"  {a_real} = stablehlo.compare NE, {ia}, {none} : ({i}, {i}) -> {b1}\n"
                f"  {real_beats} = stablehlo.and {a_real}, {beats} : {b1}\n"
                f"  {pick} = stablehlo.or {b_init}, {real_beats} : {b1}\n"
                f"  {v} = stablehlo.select {pick}, {a_}, {b_} : {b1}, {s}\n"
                f"  {k} = stablehlo.select {pick}, {ia}, {ib} : {b1}, {i}\n"
                f"  stablehlo.return {v}, {k} : {s}, {i}\n"
                f"}}) {{dimensions = array<i64: {d['dim']}>}} : ({t.mlir()}, {t.with_dtype(it).mlir()}, {s}, {i}) "
                f"-> ({result_type.with_dtype(dt).mlir()}, {result_type.mlir()})")
        return f"{r}#1"


class LinalgArg(ArgFamily, LinalgOp):
    """linalg.generic: outs (the best value so far, its index; index -1 before the first
    element), a reduction over the dim keeping the element where it is the first or
    strictly better (the first of equal ones)."""

    def emit(self, em, operands, arg_types, a, result_type):
        d = attr_dict(a)
        t, it = arg_types[0], d["dtype"]
        dt, k, rank = t.dtype, d["dim"], t.rank
        values = em.filled(result_type.with_dtype(dt), 0)
        indices = em.filled(result_type, -1)
        none = em.scalar_constant(-1, it)
        dims = ", ".join(f"d{j}" for j in range(rank))
        kept = ", ".join(f"d{j}" for j in range(rank) if j != k)
        iters = ", ".join('"reduction"' if j == k else '"parallel"' for j in range(rank))
        if dt in FLOAT_DTYPES:
            cmp = f"arith.cmpf {'ogt' if self.kind == 'max' else 'olt'}"
        else:
            cmp = f"arith.cmpi {'sgt' if self.kind == 'max' else 'slt'}"
        r, b, v, i = em.fresh("r"), em.fresh("b"), em.fresh("v"), em.fresh("i")
        at, ai, beats, empty, wins, nv, ni = (em.fresh() for _ in range(7))
        em.line(f"{r}:2 = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, "
                f"affine_map<({dims}) -> ({kept})>, affine_map<({dims}) -> ({kept})>], "
                f"iterator_types = [{iters}]}} ins({operands[0]} : {t.mlir()}) "
                f"outs({values}, {indices} : {result_type.with_dtype(dt).mlir()}, {result_type.mlir()}) {{\n"
                f"^bb0({b}: {dt}, {v}: {dt}, {i}: {it}):\n"
                f"  {at} = linalg.index {k} : index\n"
                f"  {ai} = arith.index_cast {at} : index to {it}\n"
                f"  {beats} = {cmp}, {b}, {v} : {dt}\n"
                f"  {empty} = arith.cmpi eq, {i}, {none} : {it}\n"
                f"  {wins} = arith.ori {empty}, {beats} : i1\n"
                f"  {nv} = arith.select {wins}, {b}, {v} : {dt}\n"
                f"  {ni} = arith.select {wins}, {ai}, {i} : {it}\n"
                f"  linalg.yield {nv}, {ni} : {dt}, {it}\n"
                f"}} -> ({result_type.with_dtype(dt).mlir()}, {result_type.mlir()})")
        return f"{r}#1"
