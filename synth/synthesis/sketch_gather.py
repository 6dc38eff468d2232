"""The sketches' reading of a table lookup (synth.grammar.gather): `out[i] = lut[in[i]]`,
a load whose first index is an integer read from data, as the gather of the table's rows
at that integer over its loop; the integer may be one C computes from loop indices (a
nearest-neighbour resize's `src[(y * sh / dh) * sw + x * sw / dw]`: each loop index an
iota over its loop). A mixin of the statement sketch (synth.synthesis.sketch)."""

from __future__ import annotations

from synth.synthesis.program import Expr
from synth.synthesis.sketch_reader import NoSketch, View, data_index


class Gathers:
    """`gathered`, for the statement sketch (its reader, loops and Sketcher)."""

    def loop_index_value(self, iv, dtype: str) -> View:
        """A loop index as an integer (C's `y` in an index it computes, `y * sh / dh`): the
        iota over its loop, which must be one of the stored dims (its extent a size the
        block has) and start at 0."""
        p = self.at[iv]
        n = self.sk.dim_shape.get(p)
        if n is None or self.loops[p].lo != 0:
            raise NoSketch("a loop index used as a value over a loop that is not a stored dim from 0")
        e = self.sk.apply("iota", (), (("shape", (n,)), ("dim", 0), ("dtype", dtype)))
        return View(e, (p,))

    def gathered(self, k: int, idx) -> View:
        """Argument k (a table) at a first index read from data (`lut[in[i]]`, `lut[src[y][x]]`,
        `emb[tok[i]][j]`): the gather of its rows at that value, over the index's loops, the
        table's other dims at further loop indices that cover them whole."""
        index = self.read(data_index(idx[0][0]))
        if not index.dims:
            raise NoSketch("a table read at an index over no loop")
        t = self.input_types[k]
        dims = list(index.dims)
        for d, (iv, c) in enumerate(idx[1:], start=1):
            if iv not in self.at or c or self.at[iv] in dims:
                raise NoSketch("a table read at other than distinct loop indices after its index from data")
            loop = self.loops[self.at[iv]]
            if loop.lo != 0 or loop.hi != int(t.shape[d]):
                raise NoSketch("a table read over part of its rows")
            dims.append(self.at[iv])
            self.sk.record(self.at[iv], t.shape[d])
        rows = index.expr
        if rows.type.dtype not in ("i32", "i64"):
            raise NoSketch("a table index that is not an int")
        # (an index outside the table: the C's behaviour is undefined there, the gather
        # clamps; the examples draw index arrays inside (synth.analysis.function.index_ranges),
        # and the raise states the assumption where the index's type does not keep it inside)
        g = self.sk.apply("gather", (Expr(t, leaf=k), rows), ())
        return self.sk.in_order(g, tuple(dims))
