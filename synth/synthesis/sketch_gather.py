"""The sketches' reading of a table lookup (synth.grammar.gather): `out[i] = lut[in[i]]`,
a load whose first index is an integer read from data, as the gather of the table's rows
at that integer over its loop. A mixin of the statement sketch (synth.synthesis.sketch)."""

from __future__ import annotations

from synth.synthesis.program import Expr
from synth.synthesis.sketch_reader import NoSketch, View, data_index


class Gathers:
    """`gathered`, for the statement sketch (its reader, loops and Sketcher)."""

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
        # the index within the table by its type (an unsigned char into 256 rows); other
        # indices may fall outside it, where the C's behaviour is undefined
        narrow = rows.op is not None and rows.op.name.endswith(".convert") and dict(rows.attrs).get("kind") == "extui"
        width = {"i8": 8, "i16": 16}.get(rows.args[0].type.dtype) if narrow else None
        if width is None or int(t.shape[0]) < 1 << width:
            raise NoSketch("a table index whose values may fall outside the table (only an unsigned char "
                           "or short index into a table of all its values is read as a gather)")
        g = self.sk.apply("gather", (Expr(t, leaf=k), rows), ())
        return self.sk.in_order(g, tuple(dims))
