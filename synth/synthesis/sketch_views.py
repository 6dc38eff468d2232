"""Building a sketch's program (synth.synthesis.sketch): views of tensors over the loops
of a statement's nest, and the grammar ops that broadcast, combine, mask, reduce and
contract them."""

from __future__ import annotations




from synth.analysis.symbols import Size, SizeExpr
from synth.grammar.op import attrs
from synth.grammar.types import ShapeError
from synth.synthesis.program import Expr
from synth.synthesis.sketch_reader import (
    FLIP,
    CounterMask,
    ELEMENTWISE,
    Loop,
    Reader,
    Summed,
    SumMask,
    View,
    NoSketch,
)
from synth.synthesis.sketch_guards import AffineMask


class Sketcher:
    """Builds the sketch of one statement: views over loop positions, combined
    elementwise (broadcast to the union of their dims), reduced over the loops the store
    does not index (contractions where a product has the reduced loop on both sides)."""

    def __init__(self, reader: Reader, loops: list[Loop], dtype: str):
        self.reader, self.loops, self.dtype = reader, loops, dtype
        self.dialect = reader.dialect
        self.dim_shape: dict[int, object] = {}  # loop position -> extent (a Size where known)
        self._broadcasts: dict = {}

    def apply(self, short: str, args: tuple, attrs: tuple = ()) -> Expr:
        op = self.reader.op(short)
        try:
            rt = op.result_type(tuple(a.type for a in args), attrs)
        except ShapeError as e:
            raise NoSketch(str(e)) from None
        return Expr(rt, op, attrs, args)

    def shape(self, dims) -> tuple:
        if any(p not in self.dim_shape for p in dims):
            raise NoSketch("a loop no array is indexed by")
        return tuple(self.dim_shape[p] for p in dims)

    def record(self, pos: int, extent) -> None:
        known = self.dim_shape.setdefault(pos, extent)
        if int(known) != int(extent):
            raise NoSketch("one loop over views of different extents")

    # -- views ---------------------------------------------------------------------------------
    def broadcast(self, v: View, dims: tuple[int, ...]) -> View:
        if v.dims == dims:
            return v
        key = (id(v.expr), dims)  # a value broadcast once per shape (a constant used several times)
        if key not in self._broadcasts:
            self._broadcasts[key] = (v, self._broadcast(v, dims))  # v kept alive: its id stays its own
        return self._broadcasts[key][1]

    def _broadcast(self, v: View, dims: tuple[int, ...]) -> View:
        shape = self.shape(dims)
        if self.dialect == "stablehlo":
            kept = tuple(dims.index(p) for p in v.dims)
            return View(self.apply("broadcast_in_dim", (v.expr,), (("dims", kept), ("shape", shape))), dims)
        added = tuple(k for k, p in enumerate(dims) if p not in v.dims)
        return View(self.apply("broadcast", (v.expr,), (("dims", added), ("shape", shape))), dims)

    def combine(self, short: str, *views: View, attrs: tuple = ()) -> View:
        dims = tuple(sorted(set().union(*(v.dims for v in views))))
        return View(self.apply(short, tuple(self.broadcast(v, dims).expr for v in views), attrs), dims)

    def in_order(self, expr: Expr, dims: tuple[int, ...]) -> View:
        """A tensor whose dims are the loops `dims` in that order, transposed into nest order."""
        order = sorted(range(len(dims)), key=lambda k: dims[k])
        if order == list(range(len(dims))):
            return View(expr, tuple(dims))
        t = self.apply("transpose", (expr,), (("permutation", tuple(order)),))
        return View(t, tuple(sorted(dims)), natural=(expr, tuple(dims)))

    def constant(self, value, dims: tuple[int, ...] = (), dtype: str | None = None) -> View:
        """A number (a float), or a size (a Size: the constant re-instantiates with it), of
        element type `dtype` (by default the stored array's)."""
        dtype = dtype or self.dtype
        value = value if isinstance(value, Size) else float(value)
        if self.dialect == "stablehlo":
            c = View(self.apply("constant", (), (("dtype", dtype), ("value", value))), ())
            return self.broadcast(c, dims)
        return View(self.apply("fill", (), (("dtype", dtype), ("shape", self.shape(dims)),
                                              ("value", value))), dims)

    # -- windows: an array read at a sum of two loop indices ------------------------------------
    def windowed(self, view: Expr, dims: list, windows: dict, at: dict) -> View:
        """`view` (an array read over the loops `dims`, None at the dims `windows` reads at
        two loop indices: dim -> (Summed | _Flipped, c)) with each such dim replaced by
        the window of its two loops (synth.grammar.window), as a view in nest order.
        `x[n + k]` is window(x)[n, k]; `x[i - j + c]` the reversed window (j the inner
        loop); a window reaching past the array's end is 0 there (zero_from), which is
        what a bound `i < n - lag` on a sum of the two indices (a SumMask) asks."""
        out: list[int] = []
        zero_from = None
        for d, p in enumerate(dims):
            if p is not None:
                out.append(p)
                continue
            iv, c = windows[d]
            pair = (iv.a, iv.b) if isinstance(iv, Summed) else (iv.plus, iv.minus)
            if any(x not in at for x in pair):
                raise NoSketch("a window over loops outside the statement's")
            p, q = sorted(at[x] for x in pair)
            reverse = not isinstance(iv, Summed)
            if reverse and at[iv.plus] > at[iv.minus]:
                raise NoSketch("a difference of loop indices whose inner loop's index is added")
            if p == q or {p, q} & (set(out) | {x for x in dims if x is not None}):
                raise NoSketch("a loop index in two dims of one access")
            lp, lq = self.loops[p], self.loops[q]
            m_int, w_int = lp.hi - lp.lo, lq.hi - lq.lo
            k = len(out)  # the dim's position in `view` after the windows before it
            n = view.type.shape[k]
            m, w = self.window_extents(p, q, m_int, w_int, n)
            offset = lp.lo - lq.lo + c if reverse else lp.lo + lq.lo + c
            if reverse and iv.sized and offset == int(w) - 1 and isinstance(w, Size) and not w.expr.is_constant:
                offset = w.offset(-1)  # a causal FIR's in[i + taps - 1 - j]: the width less 1 at every size
            view = self.apply("window", (view,), attrs(dim=k, shape=(m, w), offset=offset, reverse=reverse))
            self.record(p, m)
            self.record(q, w)
            if not reverse and offset >= 0 and len(windows) == 1:
                zero_from = (p, q, int(n) - offset)
            out += [p, q]
        v = self.in_order(view, tuple(out))
        v.zero_from = zero_from
        return v

    def window_extents(self, p: int, q: int, m: int, w: int, n) -> tuple:
        """The extents (Sizes where known) of the loops p, q a window of an array dim of
        extent n runs over: as other reads gave them, or one of them as n less the other
        plus a constant (the window covering the dim)."""
        known = {x: self.dim_shape[x] for x in (p, q) if x in self.dim_shape}
        if len(known) == 2:
            return known[p], known[q]
        if not known:
            raise NoSketch("a window over two loops no other read gives the extent of")
        have, value = (p, w) if p in known else (q, m)
        base = known[have]
        try:
            expr = SizeExpr.of(n) - SizeExpr.of(base) + (value - (int(n) - int(base)))
        except ValueError:
            raise NoSketch("a window over an array extent that is a floordiv of sizes") from None
        dynamic = getattr(n, "dynamic", frozenset()) | getattr(base, "dynamic", frozenset())
        derived = value if expr.is_constant else Size(value, expr, dynamic)
        return (base, derived) if p in known else (derived, base)

    def select(self, mask, x: View, y: View) -> View:
        """x where the mask holds, y elsewhere (x and y over the same dims, which hold the mask's)."""
        if isinstance(mask, SumMask):
            raise NoSketch("a bound on a sum of loop indices outside a read past an array's end")
        if isinstance(mask, AffineMask):  # an else branch's: y where every constraint holds
            pair = (y.expr, x.expr) if mask.negated else (x.expr, y.expr)
            return View(self.apply("select_affine", pair, (("constraints", mask.over(x.dims)),)), x.dims)
        if isinstance(mask, CounterMask):
            a = (("dim", x.dims.index(mask.a)), ("direction", mask.direction), ("offset", mask.offset))
            return View(self.apply("counter_select", (x.expr, y.expr, self.reader.counter_leaf()), a), x.dims)
        a, b, direction = x.dims.index(mask.a), x.dims.index(mask.b), mask.direction
        if self.dialect == "linalg":
            if a > b:
                a, b, direction = b, a, FLIP.get(direction, direction)
            return View(self.apply("select_index", (x.expr, y.expr),
                                    (("dims", (a, b)), ("direction", direction))), x.dims)
        shape = self.shape(x.dims)
        ia = self.apply("iota", (), (("dim", a), ("dtype", "i64"), ("shape", shape)))
        ib = self.apply("iota", (), (("dim", b), ("dtype", "i64"), ("shape", shape)))
        pred = self.apply("compare", (ia, ib), (("direction", direction),))
        return View(self.apply("select", (pred, x.expr, y.expr)), x.dims)

    def masked(self, v: View, masks) -> View:
        for m in masks:
            if isinstance(m, SumMask):  # only a window 0 exactly outside the mask satisfies it
                z = v.zero_from
                if z is None or {z[0], z[1]} != m.loops or z[2] != m.limit:
                    raise NoSketch("a bound on a sum of loop indices other than a window's end")
                continue
            if not m.loops <= set(v.dims):
                v = self.broadcast(v, tuple(sorted(set(v.dims) | m.loops)))
            v = self.select(m, v, self.constant(0.0, v.dims))
        return v

    # -- reductions ----------------------------------------------------------------------------
    def reduce(self, v: View, positions) -> View:
        for p in sorted(positions, reverse=True):
            k = v.dims.index(p)
            v = View(self.apply("reduce_add", (v.expr,), (("dim", k),)), v.dims[:k] + v.dims[k + 1:])
        return v

    def contract(self, x: View, y: View, reduced: frozenset, masks) -> View:
        if any(isinstance(m, AffineMask) and not (m.loops <= set(x.dims) or m.loops <= set(y.dims))
               for m in masks):  # a condition across the factors: their product masked, summed
            merged = self.combine(ELEMENTWISE[self.dialect]["arith.mulf"], x, y)
            return self.reduce(self.masked(merged, masks), set(merged.dims) & reduced)
        for m in masks:  # each mask on the operand that has both its loops
            if m.loops <= set(x.dims):
                x = self.masked(x, [m])
            elif m.loops <= set(y.dims):
                y = self.masked(y, [m])
            else:
                raise NoSketch("a triangular bound across the factors of a product")
        x, y = (View(*v.natural) if v.natural else v for v in (x, y))
        x = self.reduce(x, (set(x.dims) & reduced) - set(y.dims))
        y = self.reduce(y, (set(y.dims) & reduced) - set(x.dims))
        common = set(x.dims) & set(y.dims)
        contract = sorted(common & reduced)
        batch = sorted(common - reduced)
        free_x = [p for p in x.dims if p not in common]
        free_y = [p for p in y.dims if p not in common]
        if self.dialect == "linalg":
            named = self.named_contraction(x, y, batch, contract, free_x, free_y)
            if named is not None:
                return named
        dims = attrs(lhs_batch=tuple(x.dims.index(p) for p in batch),
                     rhs_batch=tuple(y.dims.index(p) for p in batch),
                     lhs_contract=tuple(x.dims.index(p) for p in contract),
                     rhs_contract=tuple(y.dims.index(p) for p in contract))
        expr = self.apply("dot_general", (x.expr, y.expr), dims)
        return self.in_order(expr, tuple(batch + free_x + free_y))


    def merge_one(self, views: list[View], short: str) -> list[View]:
        """Two of the factors of a product multiplied elementwise: one whose loops another
        has (w[k] into X[k, i]), else the two that share the most loops."""
        pairs = [(i, j) for i in range(len(views)) for j in range(len(views)) if i != j]
        i, j = max(pairs, key=lambda ij: (set(views[ij[0]].dims) <= set(views[ij[1]].dims),
                                          len(set(views[ij[0]].dims) & set(views[ij[1]].dims))))
        merged = self.combine(short, views[i], views[j])
        return [v for k, v in enumerate(views) if k not in (i, j)] + [merged]

    def transposed(self, v: View, dims: tuple[int, ...]) -> Expr:
        """v's tensor with its dims in the order `dims`."""
        if v.dims == dims:
            return v.expr
        perm = tuple(v.dims.index(p) for p in dims)
        return self.apply("transpose", (v.expr,), (("permutation", perm),))

    def named_contraction(self, x: View, y: View, batch, contract, free_x, free_y) -> View | None:
        """The contraction as a named linalg op (matmul, matvec, vecmat, batch_matmul, dot:
        what the backends schedule best), operands in the order with fewer transposes;
        None for other forms."""
        if len(contract) != 1 or len(batch) > 1 or len(free_x) > 1 or len(free_y) > 1:
            return None
        names = {(0, 1, 1): "matmul", (0, 1, 0): "matvec", (0, 0, 1): "vecmat",
                 (1, 1, 1): "batch_matmul", (0, 0, 0): "dot"}
        options = []
        for a, b, fa, fb in ((x, y, free_x, free_y), (y, x, free_y, free_x)):
            name = names.get((len(batch), len(fa), len(fb)))
            if name is None:
                continue
            want_a, want_b = tuple(batch + fa + contract), tuple(batch + contract + fb)
            cost = (a.dims != want_a) + (b.dims != want_b)
            options.append((cost, name, a, b, want_a, want_b, tuple(batch + fa + fb)))
        if not options:
            return None
        _, name, a, b, want_a, want_b, out = min(options, key=lambda o: o[0])
        expr = self.apply(name, (self.transposed(a, want_a), self.transposed(b, want_b)))
        return self.in_order(expr, out)

