"""gather of both grammars: rows of a table at indices read from data.

    gather(table, idx)[p.., ...] = table[clamp(idx[p..], 0, K - 1), ...]   (K: table's rows)

What C's table lookups read: a LUT of an image (`out[i] = lut[in[i]]`, an unsigned char
index into 256 entries: OpenCV's LUT), `y[i] = table[idx[i]]`, an embedding's rows
(`out[i][j] = emb[tok[i]][j]`). The index is a rank-1 tensor of i32 / i64 (C's int, or
an unsigned char promoted to it: a `convert` before), of any rank (an image's rows and
columns); the table any stored type, its other dims taken whole after the index's. An index outside [0, K) is clamped (what stablehlo.gather does),
so the raise never reads out of bounds; the C reads there only where it has undefined
behaviour, which the translation refuses to assume silently (synth.frontend.c: the
range of the index is shown by its type, or recorded in synth.assumptions).

Emitters (every extent static or a run-time size): stablehlo.gather (dynamic_gather where a slice size is a run-time size) with one
index per position (index_vector_dim: the index's rank), the first dim collapsed; a linalg.generic over the result whose body clamps the index and reads the
table with tensor.extract. The proofs read both by cases on the index (an array select:
synth.semantics.interpreter.by_cases), as the original's memref.load at a data index.
Only the sketches build it (synth.synthesis.opset leaves it out of the search)."""

from __future__ import annotations

import numpy as np

from synth.grammar.dims import is_dynamic
from synth.grammar.linalg_base import LinalgOp
from synth.grammar.stablehlo_base import StablehloOp, plus
from synth.grammar.types import STORED_DTYPES, TensorType

INDEX_DTYPES = ("i32", "i64")


class GatherFamily:
    """See the module docstring. No attributes."""

    arity = 2
    attr_domain_kind = "none"
    shape_generic = True  # the index's extent may be a run-time size (the table's is static)

    def _fits(self, arg_types) -> bool:
        if len(arg_types) != 2:
            return False
        table, idx = arg_types
        return (table.rank >= 1 and table.dtype in STORED_DTYPES and idx.rank >= 1
                and idx.dtype in INDEX_DTYPES)

    def attribute_domain(self, arg_types, ctx):
        return ((),) if self._fits(arg_types) else ()

    def result_type(self, arg_types, a):
        self.check_arity(arg_types)
        if not self._fits(arg_types) or a:
            raise self.shape_error("needs a table of rank >= 1 and an i32 / i64 index, no attributes",
                                   arg_types, a)
        table, idx = arg_types
        return TensorType((*idx.shape, *table.shape[1:]), table.dtype)

    def apply(self, sem, args, a):
        table, idx = np.asarray(args[0]), np.asarray(args[1])
        return np.ascontiguousarray(table[np.clip(idx, 0, table.shape[0] - 1)])

    def cost(self, arg_types, a, result_type):
        return result_type.size


class StablehloGather(GatherFamily, StablehloOp):
    """stablehlo.gather of one row per index."""

    def emit(self, em, operands, arg_types, a, result_type):
        table, idx = arg_types
        rest = table.shape[1:]
        r = em.fresh()
        offsets = ", ".join(str(idx.rank + k) for k in range(len(rest)))
        if any(is_dynamic(n) for n in rest):  # an embedding's width a run-time size: sizes as a value
            sizes = em.shape_value((1, *rest))
            em.line(f'{r} = "stablehlo.dynamic_gather"({operands[0]}, {operands[1]}, {sizes}) {{dimension_numbers = '
                    f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [0], "
                    f"start_index_map = [0], index_vector_dim = {idx.rank}>, indices_are_sorted = false}} : "
                    f"({table.mlir()}, {idx.mlir()}, tensor<{table.rank}xi64>) -> {result_type.mlir()}")
            return r
        sizes = ", ".join(str(int(d)) for d in [1, *rest])
        # index_vector_dim = the index's rank: one index per position (an implicit trailing
        # dim of 1), so that its extents may be dynamic
        em.line(f'{r} = "stablehlo.gather"({operands[0]}, {operands[1]}) {{dimension_numbers = '
                f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [0], "
                f"start_index_map = [0], index_vector_dim = {idx.rank}>, indices_are_sorted = false, "
                f"slice_sizes = array<i64: {sizes}>}} : ({table.mlir()}, {idx.mlir()}) -> {result_type.mlir()}")
        return r


class LinalgGather(GatherFamily, LinalgOp):
    """linalg.generic over the result: the index (an input) clamped into [0, K - 1], the
    table read there with tensor.extract (its other dims at the result's indices)."""

    def emit(self, em, operands, arg_types, a, result_type):
        table, idx = arg_types
        rank, r = result_type.rank, idx.rank
        dims = ", ".join(f"d{j}" for j in range(rank))
        parallel = ", ".join('"parallel"' for _ in range(rank))
        k, o = em.fresh("k"), em.fresh("o")
        at = [em.fresh("i") for _ in range(r, rank)]
        kx, lo, row, zero, v, out = (em.fresh() for _ in range(6))
        rows = table.shape[0]
        if is_dynamic(rows):  # the last row a value computed once from the arguments
            last, first = em.size(plus(rows, -1)), []
        else:
            last = em.fresh()
            first = [f"{last} = arith.constant {int(rows) - 1} : index"]
        body = [f"{zero} = arith.constant 0 : index", *first,
                f"{kx} = arith.index_cast {k} : {idx.dtype} to index",
                f"{lo} = arith.maxsi {kx}, {zero} : index",
                f"{row} = arith.minsi {lo}, {last} : index"]
        body += [f"{at[j - r]} = linalg.index {j} : index" for j in range(r, rank)]
        body += [f"{v} = tensor.extract {operands[0]}[{', '.join([row, *at])}] : {table.mlir()}",
                 f"linalg.yield {v} : {table.dtype}"]
        em.line(f"{out} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> "
                f"({', '.join(f'd{j}' for j in range(r))})>, "
                f"affine_map<({dims}) -> ({dims})>], iterator_types = [{parallel}]}} "
                f"ins({operands[1]} : {idx.mlir()}) outs({em.empty(result_type)} : {result_type.mlir()}) {{\n"
                f"^bb0({k}: {idx.dtype}, {o}: {table.dtype}):\n" + "\n".join(f"  {ln}" for ln in body)
                + f"\n}} -> {result_type.mlir()}")
        return out
