"""A program read off the statement itself: the sketch tactic of the search.

A statement `B[i + b0, j + b1] = f(A[i + a0, j + a1], C[j + c0, i + c1], s, 0.5, ...)` in a
nest of loops `i in [li, ui)`, `j in [lj, uj)` (each loop index in the store exactly once,
every loop of the nest in the store: no reduction) is, as a tensor program, `f` applied
elementwise to views of its operands over the block the loops write:

- each load becomes a slice of its array (`slice_range`: the loop's range shifted by the
  load's offset), then a transpose / broadcast into the order of the store's dims (a load
  that misses a loop index is repeated along it);
- scalars (function arguments, constants) are broadcast to the block;
- arith / math ops become the grammar's elementwise ops;
- a block smaller than the array is written into its previous value (`insert_range`).

Ranges are read at the stand-in sizes and kept as size expressions: a loop `1 to n - 1`
over an array of `n` makes slices of extent `n - 2`, which re-instantiate at any n. The
sketch is a candidate like any other: solve.py keeps it only where it is right on the
problem's examples, and validation checks it as every program. A statement it does not
cover gets None, and the search runs as before.

Layout: sketch_reader.py reads the statement, sketch_views.py builds views and ops (windows
too), sketch_locals.py reads locals, sketch_gather.py loads at data indices; here
`_StatementSketch` reads one statement, a method per form of value (load, select, local, sum).
"""

from __future__ import annotations

import os
import sys

from mlir import ir

from synth.analysis.symbols import SizeExpr, size
from synth.grammar.shapes import shrink_dim
from synth.grammar.types import TensorType
from synth.synthesis.program import Expr
from synth.synthesis.sketch_reader import (
    DIAGONAL, MAX_TRIM, NoSketch, CounterMask, ELEMENTWISE, CASTS, Flipped, Mask, Reader, Reversed, Summed,
    top, View, compare_direction, data_index, edge, is_block_argument, local_array, local_scalar, memref_of, min_max,
    negation_of, value_dtype)
from synth.synthesis.sketch_gather import Gathers
from synth.synthesis.sketch_locals import Locals
from synth.synthesis.sketch_views import Sketcher
from synth.synthesis.sketch_guards import guarded_box, padded
from synth.synthesis.sketch_stores import edge_store, put_back


class _StatementSketch(Locals, Gathers):
    """The sketch of one statement (see statement_sketch): the reading state, and one
    method per form of value it reads."""

    def __init__(self, func, dialect: str, params: dict[int, int], input_types: dict[int, TensorType],
                     output: int, output_type: TensorType, counter: int | None = None,
                     counter_range: tuple[int, int] | None = None, size_values: dict | None = None) -> None:
        self.func = func
        self.dialect = dialect
        self.params = params
        self.input_types = input_types
        self.output = output
        self.output_type = output_type
        self.counter = counter
        self.counter_range = counter_range
        self.reader = Reader(func, self.dialect, params, self.input_types, counter, counter_range)
        self.reader.size_values = dict(size_values or {})
        self.store, self.loops, self.masks = self.reader.statement()
        self.loops, self.masks = guarded_box(self.reader, self.loops, self.masks)  # an affine.if around the store
        # a loop that runs once and whose index nothing uses (a time loop's one step) is no dim
        dropped = [p for p, l in enumerate(self.loops) if l.hi - l.lo == 1 and not any(True for _ in l.iv.uses)]
        if dropped:
            keep = [p for p in range(len(self.loops)) if p not in dropped]
            if any(m.loops & set(dropped) for m in self.masks):
                raise NoSketch("a triangular bound on a loop that runs once")
            self.masks = [m.moved(keep) for m in self.masks]
            self.loops = [self.loops[p] for p in keep]
        self.at = {l.iv: p for p, l in enumerate(self.loops)}
        memref, full_index = self.reader.access(self.store.operation)
        if self.reader.arg_index(memref) != self.output:
            raise NoSketch("the store writes a local")
        # an index at the counter: the block is written into that slice of the array (put)
        self.store_counter = {d: c for d, (iv, c) in enumerate(full_index) if iv is not None and self.reader.is_counter(iv)}
        self.store_index = list(full_index)
        if self.store_counter:
            output_type = output_type.with_shape(tuple(n for d, n in enumerate(output_type.shape)
                                                       if d not in self.store_counter))
            full_index = [x for d, x in enumerate(full_index) if d not in self.store_counter]
        # a constant index (ey[0][j] = ...) writes the array's first or last element along
        # that dim: the block over the other dims, then select_edge into the previous value
        self.store_edges = {d: edge(c, output_type.shape[d]) for d, (iv, c) in enumerate(full_index) if iv is None}
        if self.store_edges and self.store_counter:
            raise NoSketch("a store at a constant index and at the counter")
        index = [x for d, x in enumerate(full_index) if d not in self.store_edges]
        self.stored: list[int] = []  # loop position of each store dim
        for iv, c in index:
            if iv not in self.at or self.at[iv] in self.stored:
                raise NoSketch("a store index that is not a distinct loop index")
            self.stored.append(self.at[iv])
        if self.stored != sorted(self.stored):
            # the loops renumbered so that the store's dims come first, in the store's order:
            # the views are built in that order, and the block needs no transpose at the end
            # (gramschmidt's A[i][j] -= ... in a j, i nest: a transposed copy per step otherwise)
            order = self.stored + [p for p in range(len(self.loops)) if p not in self.stored]
            self.loops = [self.loops[p] for p in order]
            self.masks = [m.moved(order) for m in self.masks]
            self.at = {l.iv: p for p, l in enumerate(self.loops)}
            self.stored = list(range(len(self.stored)))
        self.reduced = frozenset(range(len(self.loops))) - set(self.stored)
        if any(l.hi <= l.lo for l in self.loops):
            raise NoSketch("an empty loop")
        shape = tuple(n for d, n in enumerate(output_type.shape) if d not in self.store_edges)
        self.block_lo = tuple(self.loops[p].lo + c for p, (_, c) in zip(self.stored, index))
        self.block_hi = tuple(int(shape[d]) - self.block_lo[d] - (self.loops[p].hi - self.loops[p].lo) for d, p in enumerate(self.stored))
        if any(not 0 <= v <= MAX_TRIM for v in self.block_lo + self.block_hi):
            raise NoSketch("the block written is not the array less at most 2 elements at each end")
        block = tuple(shrink_dim(shape[d], self.block_lo[d] + self.block_hi[d]) for d in range(len(shape)))
        if None in block:
            raise NoSketch("an array extent that is a floordiv of sizes")
        self.dtype = output_type.dtype
        self.sk = Sketcher(self.reader, self.loops, self.dtype)
        for d, p in enumerate(self.stored):
            self.sk.record(p, block[d])
        self.memo: dict = {}

        self.views: dict = {}  # (array, access) -> its view: an element read twice is one node
        self.fixed: set = set()  # loop indices at the counter: the statement on the counter's line
        self.locals_read: set = set()  # local scalars whose value is being read (a recurrence guard)
        self.stored_value = self.store.operands[0] if self.store.operation.name == "memref.store" else self.store.value

    def at_counter(self, iv) -> bool:
        return self.reader.is_counter(iv) or (isinstance(iv, ir.Value) and iv in self.fixed)

    def load(self, op) -> View:
        array, idx = self.reader.access(op)
        if local_scalar(array) is not None:
            return self.local_value(array, op)
        if local_array(array) is not None:
            return self.local_array_value(array, op)
        k = self.reader.arg_index(array)
        if k is not None and k == self.output and self.reader.defined:
            define = self.defining_store(op)
            if define is not None:  # the element an earlier nest of the group stored
                return self.defined_value(define, op)
        if k is None or k not in self.input_types:
            raise NoSketch("a load from a local or an array the group does not read")
        if op.name == "memref.load" and idx and data_index(idx[0][0]) is not None:
            return self.gathered(k, idx)
        if (k, tuple(idx)) not in self.views:
            line = self.written_before(k, idx)
            self.views[(k, tuple(idx))] = self.view_of(k, idx) if line is None else line
        return self.views[(k, tuple(idx))]

    def defining_store(self, use):
        """The last earlier store of the group (reader.defined) in a top-level op before
        the one holding `use`; None where the read comes before them all."""
        ops = [o.operation for o in self.reader.entry.operations]
        place = lambda op: next(k for k, o in enumerate(ops) if o == top(op))  # noqa: E731
        before = [st for st in self.reader.defined if place(st) < place(use)]
        return before[-1] if before else None

    def written_before(self, k: int, idx) -> View | None:
        """A read of the written array on the counter's line through the current element
        (floyd-warshall's A[i][k] in step k: the element (i, k), which this step writes
        when its j loop is at k): the value the statement stores there where that
        iteration comes before the current one (index(q) > counter), the previous value
        elsewhere. None where the read is not of that form."""
        if k != self.output or self.store_counter or self.masks:
            return None
        lines = [d for d, (iv, c) in enumerate(idx) if self.reader.is_counter(iv) and c == 0]
        if len(lines) != 1 or len(idx) != len(self.store_index):
            return None
        d = lines[0]
        if any(idx[e] != self.store_index[e] for e in range(len(idx)) if e != d):
            return None
        iv_q, c = self.store_index[d]
        if c != 0 or iv_q not in self.at or iv_q in self.fixed:
            return None
        q = self.at[iv_q]
        saved = dict(self.memo), dict(self.views)
        self.memo.clear()
        self.views.clear()
        self.fixed.add(iv_q)
        try:
            new = self.read(self.stored_value)  # the statement with loop q at the counter
        finally:
            self.fixed.discard(iv_q)
            self.memo.clear()
            self.memo.update(saved[0])
            self.views.clear()
            self.views.update(saved[1])
        old = self.view_of(k, idx)
        dims = tuple(sorted(set(new.dims) | set(old.dims) | {q}))
        mask = CounterMask(q, "GT", -self.loops[q].lo)
        return self.sk.select(mask, self.sk.broadcast(new, dims), self.sk.broadcast(old, dims))

    def taken(self, k: int, idx) -> tuple[Expr, list]:
        """Argument k with its dims indexed at the counter taken (the highest first, so the
        others keep their positions), and the indices of the dims left."""
        expr, rest = Expr(self.input_types[k], leaf=k), list(idx)
        for d, (iv, c) in enumerate(idx):
            if isinstance(iv, Flipped):
                if self.reader.is_counter(iv.minus):
                    raise NoSketch("an index that is a loop counter subtracted")
                if not self.reader.is_counter(iv.plus):
                    continue  # a difference of loop indices: a reversed window (view_of)
                expr = self.sk.apply("flip", (expr, self.reader.counter_leaf()), (("dim", d), ("offset", c)))
                rest[d] = (iv.minus, 0)
            elif isinstance(iv, Reversed):  # a[c - i] = reverse(a)[i + N - 1 - c]
                n = int(expr.type.shape[d])
                expr = self.sk.apply("reverse", (expr,), (("dim", d),))
                rest[d] = (iv.iv, n - 1 - c)
        for d in sorted((d for d, (iv, _) in enumerate(rest) if iv is not None and self.at_counter(iv)), reverse=True):
            expr = self.sk.apply("take", (expr, self.reader.counter_leaf()), (("dim", d), ("offset", rest[d][1])))
            del rest[d]
        return expr, rest

    def view_of(self, k: int, idx) -> View:
        """Argument k read at `idx` ((loop index, offset) per dim) over the loops."""
        # a read of the written array at another element is taken as a read of its previous
        # value (right where the original reads elements it has not written yet, as trmm's
        # k > i; a recurrence's sketch is wrong on the examples, and not taken)
        if len(idx) != self.input_types[k].rank:
            raise NoSketch("an access of another rank")
        leaf, idx = self.taken(k, idx)
        t = leaf.type
        if leaf.op is not None and any(iv is None for iv, _ in idx):
            raise NoSketch("a load at a constant index and at the counter")
        base = Expr(t, leaf=k)
        # a constant index inside a dim of constant extent (P[i][1] of points (n, 3)): the
        # slice at it, then read as that slice's first element
        middle = {d: c for d, (iv, c) in enumerate(idx) if iv is None and 0 < c < int(t.shape[d]) - 1
                  and SizeExpr.of(t.shape[d]).is_constant}
        if middle and leaf.op is None:
            base = self.sk.apply("slice_range" if self.dialect == "stablehlo" else "extract_range", (base,),
                                 (("hi", tuple(int(n) - 1 - middle[d] if d in middle else 0 for d, n in enumerate(t.shape))),
                                  ("lo", tuple(middle.get(d, 0) for d in range(t.rank)))))
            t = base.type
            idx = [(None, 0) if d in middle else x for d, x in enumerate(idx)]
        edges = {}  # dim -> "first" | "last": a constant index (fict[0], A[n - 1][j])
        for d, (iv, c) in enumerate(idx):
            if iv is None:
                edges[d] = edge(c, t.shape[d])
        if edges:
            return self.edge_view(k, t, idx, edges, base)
        dims, lo, hi = [], [], []
        diagonal = None  # (loop position, its stand-in second position) of an A[i, i]
        windows = {d: (iv, c) for d, (iv, c) in enumerate(idx) if isinstance(iv, (Summed, Flipped))}
        for d, (iv, c) in enumerate(idx):
            if d in windows:  # read whole here; a window of its two loops (below)
                lo.append(0)
                hi.append(0)
                dims.append(None)
                continue
            if iv not in self.at:
                raise NoSketch("a load index that is not a loop index")
            p = self.at[iv]
            if p in dims:
                if diagonal is not None or idx[dims.index(p)][1] != c:
                    raise NoSketch("a load index that is not a distinct loop index")
                diagonal = (p, DIAGONAL + p)
                p = DIAGONAL + p
            loop = self.loops[self.at[iv]]
            lo.append(loop.lo + c)
            hi.append(int(t.shape[d]) - lo[-1] - (loop.hi - loop.lo))
            dims.append(p)
        if any(not 0 <= v <= MAX_TRIM for v in lo + hi) and not (  # past the array under a guard: padded
                self.reader.guards and leaf.op is None and all(abs(v) <= MAX_TRIM for v in lo + hi)):
            raise NoSketch("a load view that is not the array less at most 2 elements at each end")
        view = leaf if not any(lo + hi) else padded(self.sk, leaf, tuple(lo), tuple(hi)) if min(lo + hi) < 0 \
            else self.sk.apply("slice_range" if self.dialect == "stablehlo" else "extract_range", (leaf,),
                               (("lo", tuple(lo)), ("hi", tuple(hi))))
        for d, p in enumerate(dims):
            if p is not None:
                self.sk.record(p, view.type.shape[d])
        if windows:
            if diagonal is not None:
                raise NoSketch("a diagonal read and a window in one access")
            return self.sk.windowed(view, dims, windows, self.at)
        v = self.sk.in_order(view, tuple(dims))
        if diagonal is None:
            return v
        # the diagonal: the elements where both indices agree, summed over the second
        return self.sk.reduce(self.sk.masked(v, [Mask(diagonal[0], diagonal[1], "EQ")]), {diagonal[1]})

    def edge_view(self, k: int, t: TensorType, idx, edges: dict, base: Expr | None = None) -> View:
        """Argument k (or `base`, a slice of it of type t) at a constant index along the
        dims `edges` (its first or last element there), over the loops of its other dims
        (which cover those dims whole, or less at most MAX_TRIM elements at each end: a
        slice_range of the edge)."""
        rest = [(iv, c) for d, (iv, c) in enumerate(idx) if d not in edges]
        positions = sorted(edges.values())
        if len(set(positions)) != 1:
            raise NoSketch("constant indices at both ends")
        a = (("dims", tuple(sorted(edges))), ("position", positions[0]))
        kept = TensorType(tuple(n for d, n in enumerate(t.shape) if d not in edges), t.dtype)
        expr = self.sk.apply("slice_edge", (base if base is not None else Expr(t, leaf=k),), a)
        if self.dialect == "stablehlo":  # its slice_edge keeps the rank
            expr = self.sk.apply("reshape", (expr,), (("shape", kept.shape),))
        dims, lo, hi = [], [], []
        for d, (iv, c) in enumerate(rest):
            if iv is None or iv not in self.at or self.at[iv] in dims:
                raise NoSketch("a load at a constant index and other than loop indices elsewhere")
            loop = self.loops[self.at[iv]]
            lo.append(loop.lo + c)  # the loops' range of the other dims, less a few elements at the ends
            hi.append(int(kept.shape[d]) - lo[-1] - (loop.hi - loop.lo))
            dims.append(self.at[iv])
        if any(not 0 <= v <= MAX_TRIM for v in lo + hi):
            raise NoSketch("a load at a constant index over part of its other dims")
        if any(lo + hi):  # decimate2's in[i][0] and in[i + 1][0] of an n + 1 x 2 view
            expr = self.sk.apply("slice_range" if self.dialect == "stablehlo" else "extract_range", (expr,),
                                 (("lo", tuple(lo)), ("hi", tuple(hi))))
        for d, p in enumerate(dims):
            self.sk.record(p, expr.type.shape[d])
        return self.sk.in_order(expr, tuple(dims))

    def read(self, value: ir.Value) -> View:
        if value not in self.memo:  # a value used twice is one node (emitted once)
            self.memo[value] = self._read(value)
        return self.memo[value]

    def _read(self, value: ir.Value) -> View:
        k = self.reader.arg_index(value)
        if k is not None:
            if k not in self.input_types and k in self.reader.size_values:  # a size in integer math
                return self.sk.constant(self.reader.size_values[k], dtype=value_dtype(value))
            if k not in self.input_types or self.input_types[k].rank != 0:
                raise NoSketch("a scalar argument the problem does not take")
            return View(Expr(self.input_types[k], leaf=k), ())
        if is_block_argument(value):
            raise NoSketch("a loop index used as a value")
        op = value.owner
        if op.name in ("affine.load", "memref.load"):
            return self.load(op)
        if op.name == "affine.for":
            return self.iterated(op.opview)
        if op.name in ("arith.sitofp", "arith.uitofp"):  # an integer constant or a size: a number
            folded = self.reader.fold(op.operands[0])
            try:
                number = float(folded) if folded is not None else self.reader.size_value(op.operands[0])
            except NoSketch:  # any other integer (sizes' products, an int array): converted as written
                pass
            else:
                return self.sk.constant(number, dtype=value_dtype(value))
        if op.name == "math.powf" and self.reader.fold(op.operands[1]) == 2.0:  # x ** 2: x * x
            x = self.read(op.operands[0])
            return self.sk.combine(ELEMENTWISE[self.dialect]["arith.mulf"], x, x)
        if op.name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, (ir.FloatAttr, ir.IntegerAttr)):
                return self.sk.constant(attr.value, dtype=value_dtype(value))
            raise NoSketch("a constant that is not a number")
        if op.name == "arith.select":  # select(a < b, a, b): min; select(a > b, a, b): max
            try:
                short = min_max(op, self.dialect)
            except NoSketch:  # any other: the comparison and the select as written
                return self.chosen(op.operands[0], self.read(op.operands[1]), self.read(op.operands[2]))
            return self.sk.combine(short, *(self.read(v) for v in op.operands[1:]))
        if op.name in ("arith.index_cast", "arith.index_castui") and op.operands[0] in self.at:
            return self.loop_index_value(op.operands[0], value_dtype(value))  # `y` in `y * sh / dh`
        if op.name in CASTS:  # C's promotions and conversions, as written
            kind = op.name.split(".")[1]
            return self.sk.combine("convert", self.read(op.operands[0]),
                                   attrs=(("dtype", value_dtype(value)), ("kind", kind)))
        short = ELEMENTWISE[self.dialect].get(op.name)
        if short is None:
            raise NoSketch(f"{op.name} has no elementwise op in the grammar")
        return self.sk.combine(short, *(self.read(v) for v in op.operands))

    def chosen(self, cond: ir.Value, x: View, y: View) -> View:
        """`select(cmp(a, b), x, y)` as written: stablehlo compare + select, linalg's fused
        select_cmp (the four operands broadcast to the union of their loops). A condition
        that combines comparisons (C's `||`, `&&`, `!`) is a tree of selects, exactly:
        select(a | b, x, y) = select(a, x, select(b, x, y)),
        select(a & b, x, y) = select(a, select(b, x, y), y), select(!c, x, y) = select(c, y, x)."""
        while negation_of(cond) is not None:
            cond, x, y = negation_of(cond), y, x
        if is_block_argument(cond):
            raise NoSketch("a select on something other than a comparison")
        name = cond.owner.name
        if name in ("arith.ori", "arith.andi") and str(cond.type) == "i1":
            a, b = cond.owner.operands
            if name == "arith.ori":
                return self.chosen(a, x, self.chosen(b, x, y))
            return self.chosen(a, self.chosen(b, x, y), y)
        if name not in ("arith.cmpf", "arith.cmpi"):
            raise NoSketch("a select on something other than a comparison")
        direction = compare_direction(cond.owner)
        views = [self.read(v) for v in cond.owner.operands] + [x, y]
        dims = tuple(sorted(set().union(*(v.dims for v in views))))
        a, b, xe, ye = (self.sk.broadcast(v, dims).expr for v in views)
        if self.dialect == "linalg":
            return View(self.sk.apply("select_cmp", (a, b, xe, ye), (("direction", direction),)), dims)
        pred = self.sk.apply("compare", (a, b), (("direction", direction),))
        return View(self.sk.apply("select", (pred, xe, ye)), dims)

    def summed(self, value: ir.Value, inner: list[Mask], over: frozenset | None = None) -> View:
        """The sum of `value` over the loops `over` (the reduced loops by default), masked
        by `inner` (the triangular bounds that involve one of them), as a view over the
        others."""
        over = self.reduced if over is None else over
        v = self.read(value)
        if not set(v.dims) & over:
            raise NoSketch("a term constant along a reduced loop (a sum of copies)")
        op = None if is_block_argument(value) else value.owner
        name = op.name if op is not None else ""
        if name in ("arith.addf", "arith.subf", "arith.addi", "arith.subi"):
            a, b = op.operands
            parts = [self.summed(x, inner, over) if set(self.read(x).dims) & over else None for x in (a, b)]
            if None in parts:
                raise NoSketch("a term constant along a reduced loop (a sum of copies)")
            return self.sk.combine(ELEMENTWISE[self.dialect][name], *parts)
        if name == "arith.negf":
            return self.sk.combine(ELEMENTWISE[self.dialect][name], self.summed(op.operands[0], inner, over))
        if name in ("arith.mulf", "arith.muli"):
            # the factors constant along the reduced loops are taken out of the sum; the
            # others, as written (their products in the original's order and grouping),
            # are one summed term, or the two sides of a contraction
            outside, tree = self.split_product(value, name, over)
            if not isinstance(tree, tuple) and not is_block_argument(tree) and tree.owner.name == name:
                tree = tuple(tree.owner.operands)  # a product as written: its two sides
            if not isinstance(tree, tuple):
                core = self.summed(tree, inner, over)
            else:
                left, right = (self.product_view(t, name) for t in tree)
                if name != "arith.mulf" and self.dialect == "linalg":
                    # linalg's contractions are the float grammar's: an integer product
                    # (exact, wrapping) is multiplied elementwise, then summed
                    merged = self.sk.combine(ELEMENTWISE[self.dialect][name], left, right)
                    core = self.sk.reduce(self.sk.masked(merged, inner), set(merged.dims) & over)
                else:
                    core = self.sk.contract(left, right, over, inner)
            if outside:
                scale = outside[0]
                for v in outside[1:]:
                    scale = self.sk.combine(ELEMENTWISE[self.dialect][name], scale, v)
                core = self.sk.combine(ELEMENTWISE[self.dialect][name], scale, core)
            return core
        if name == "arith.divf" and not set(self.read(op.operands[1]).dims) & over:
            return self.sk.combine(ELEMENTWISE[self.dialect][name], self.summed(op.operands[0], inner, over),
                              self.read(op.operands[1]))
        return self.sk.reduce(self.sk.masked(v, inner), set(v.dims) & over)

    def split_product(self, value: ir.Value, name: str, over: frozenset) -> tuple[list, object]:
        """A product (tree of `name` ops) split into its factors constant along `over`, left
        to right, and the rest as written: a value, or a pair of such (factors taken out)."""
        if is_block_argument(value) or value.owner.name != name:
            return ([], value) if set(self.read(value).dims) & over else ([self.read(value)], None)
        a, b = value.owner.operands
        (out_a, tree_a), (out_b, tree_b) = (self.split_product(x, name, over) for x in (a, b))
        if tree_a is None or tree_b is None:
            return out_a + out_b, tree_b if tree_a is None else tree_a
        if not out_a and not out_b:
            return [], value  # the product as written (one node, read once)
        return out_a + out_b, (tree_a, tree_b)

    def product_view(self, tree, name: str) -> View:
        """A split_product tree multiplied elementwise in its grouping."""
        if not isinstance(tree, tuple):
            return self.read(tree)
        return self.sk.combine(ELEMENTWISE[self.dialect][name], *(self.product_view(t, name) for t in tree))

    def build(self) -> Expr:
        """The sketch: the stored value, over the block the store writes."""

        value = self.store.operands[0] if self.store.operation.name == "memref.store" else self.store.value
        outer = [m for m in self.masks if not m.loops & self.reduced]
        inner = [m for m in self.masks if m not in outer]
        if self.reduced:
            # an accumulation: C[I] = C[I] + term (or - term), the term summed over the others
            op = None if is_block_argument(value) else value.owner
            if op is None or op.name not in ("arith.addf", "arith.addi", "arith.subf", "arith.subi"):
                raise NoSketch("a loop the store does not index, not an accumulation")
            a, b = op.operands
            own = [x for x in (a, b) if not is_block_argument(x) and x.owner.name in ("affine.load", "memref.load")
                   and self.reader.arg_index(memref_of(x.owner)) == self.output]
            if len(own) != 1 or (op.name in ("arith.subf", "arith.subi") and own[0] != a):
                raise NoSketch("a loop the store does not index, not an accumulation")
            term = b if own[0] == a else a
            body = self.sk.combine(ELEMENTWISE[self.dialect][op.name], self.read(own[0]), self.summed(term, inner))
        else:
            body = self.read(value)
        if body.expr.type.dtype != self.dtype:
            raise NoSketch("the stored value's type differs from the array's")
        store_dims = tuple(sorted(self.stored))
        body = self.sk.broadcast(body, store_dims)
        if outer:  # a triangular block: the previous values outside it
            if self.output not in self.input_types:
                raise NoSketch("a triangular block of an array whose previous value is not an input")
            previous = self.load(self.store.operation)  # the array's previous value over the block
            for m in outer:
                body = self.sk.select(m, body, previous)
        result = body.expr
        order = [store_dims.index(p) for p in self.stored]  # nest order -> the store's order
        if order != list(range(len(order))):
            result = self.sk.apply("transpose", (result,), (("permutation", tuple(order)),))
        if self.store_edges:
            if self.output not in self.input_types:
                raise NoSketch("an edge of an array whose previous value is not an input")
            return edge_store(self.sk, result, self.output, self.input_types[self.output], self.store_edges, self.block_lo + self.block_hi)
        if self.store_counter:
            if self.output not in self.input_types:
                raise NoSketch("a slice of an array whose previous value is not an input")
            if any(self.block_lo + self.block_hi):
                result = self.sk.apply("insert_range", (self.taken(self.output, self.store_index)[0], result),
                                  (("lo", self.block_lo), ("hi", self.block_hi)))
            return put_back(self.sk, self.reader, Expr(self.input_types[self.output], leaf=self.output), self.store_counter, result)
        if not any(self.block_lo + self.block_hi):
            return result
        if self.output not in self.input_types:
            raise NoSketch("a block of an array whose previous value is not an input")
        return self.sk.apply("insert_range", (Expr(self.input_types[self.output], leaf=self.output), result),
                        (("lo", self.block_lo), ("hi", self.block_hi)))


def statement_sketch(func, dialect: str, params: dict[int, int], input_types: dict[int, TensorType],
                     output: int, output_type: TensorType, counter: int | None = None,
                     counter_range: tuple[int, int] | None = None, size_values: dict | None = None) -> Expr:
    """The sketch of the one statement of `func` (a part function at the stand-in sizes)
    writing argument `output`; NoSketch where the statement is outside the tactic.
    `counter`: the argument holding the counter of a loop kept as a loop (one step of it is
    `func`), whose values are `counter_range` at the stand-in sizes: an index at the
    counter is a `take` of that dim (a `put` for the store), a loop bounded by it a
    `counter_select` mask."""
    sketch = _StatementSketch(func, dialect, params, input_types, output, output_type, counter, counter_range,
                              size_values)
    return sketch.build()


class Sketches(dict):
    """Problem name -> its sketch; `why`: problem name -> why its statement has none."""

    def __init__(self):
        super().__init__()
        self.why: dict[str, str] = {}


def sketches(spec, dialect: str) -> Sketches:
    """Problem name -> its sketch, for the problems of one-statement groups the tactic
    covers (synth.synthesis.spec.Specification at the stand-in sizes)."""
    from synth.frontend.reader import SourceModule

    out = Sketches()
    # one problem; several statements only where all but one define local scalars
    groups = [g for g in spec.groups if len(g.problems) == 1]
    if not groups:
        return out
    params = spec.kernel.sizes.param_values(spec.standin)
    # a size argument used as a value (`s / w`): the Size, so the program re-instantiates
    size_values = {k: size(SizeExpr.symbol(name), spec.standin) for k, name in spec.kernel.sizes.params.items()
                   if name in spec.standin}
    counter = spec.kernel.sizes.counter
    values = spec.kernel.sizes.counter_values(spec.standin)
    counter_range = (values[0], values[-1] + 1) if values else None
    source = SourceModule(spec.standin_source.path, spec.split_text)
    with source.context:
        module = source.parsed()
        funcs = {op.attributes["sym_name"].value: op for op in module.body.operations
                 if op.operation.name == "func.func"}
        for g in groups:
            problem = g.problems[0]
            try:
                out[problem.name] = statement_sketch(funcs[g.part], dialect, params, problem.input_types,
                                                     g.writes[0], problem.output_type, counter, counter_range,
                                                     size_values)
            except NoSketch as e:
                out.why[problem.name] = str(e)
                if os.environ.get("SYNTH_DEBUG_SKETCH"):
                    print(f"sketch of {problem.name}: {e}", file=sys.stderr)
    return out

