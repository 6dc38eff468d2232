"""How a sketch's block goes into the array it is stored in (synth.synthesis.sketch): put
back at a loop counter's slice, selected into an edge."""

from __future__ import annotations

from synth.grammar.types import TensorType
from synth.synthesis.program import Expr
from synth.synthesis.sketch_reader import NoSketch, Reader
from synth.synthesis.sketch_views import Sketcher


def put_back(sk: "Sketcher", reader: Reader, array: Expr, at_counter: dict[int, int], value: Expr) -> Expr:
    """`array` with `value` written at the counter along the dims `at_counter` (dim ->
    offset): the slices taken down to value's (the highest dim first), then put back up."""
    dims = sorted(at_counter, reverse=True)
    chain = [array]
    for d in dims[:-1]:
        chain.append(sk.apply("take", (chain[-1], reader.counter_leaf()), (("dim", d), ("offset", at_counter[d]))))
    for d, base in zip(reversed(dims), reversed(chain)):
        value = sk.apply("put", (base, value, reader.counter_leaf()), (("dim", d), ("offset", at_counter[d])))
    return value


def edge_store(sk: Sketcher, result: Expr, output: int, output_type: TensorType, edges: dict,
                trims: tuple) -> Expr:
    """`result` (over the dims with no constant store index) at the edges `edges` (dim ->
    "first" | "last") of the output's previous value: broadcast, select_edge; into the edge's
    old value first (insert_range) where it leaves `trims` (an odd column over n - 1 rows)."""
    positions = set(edges.values())
    if len(positions) != 1:
        raise NoSketch("a store at a constant index at both ends")
    kept = tuple(d for d in range(output_type.rank) if d not in edges)
    if any(trims):
        old = sk.apply("slice_edge", (Expr(output_type, leaf=output),),
                       (("dims", tuple(sorted(edges))), ("position", next(iter(positions)))))
        if sk.dialect == "stablehlo":  # its slice_edge keeps the rank
            old = sk.apply("reshape", (old,), (("shape", tuple(output_type.shape[d] for d in kept)),))
        h = len(trims) // 2  # lo then hi
        result = sk.apply("insert_range", (old, result), (("lo", trims[:h]), ("hi", trims[h:])))
    if sk.dialect == "stablehlo":
        a = (("dims", kept), ("shape", output_type.shape))
    else:
        a = (("dims", tuple(sorted(edges))), ("shape", output_type.shape))
    whole = sk.apply("broadcast_in_dim" if sk.dialect == "stablehlo" else "broadcast", (result,), a)
    return sk.apply("select_edge", (whole, Expr(output_type, leaf=output)),
                    (("dims", tuple(sorted(edges))), ("position", positions.pop())))
