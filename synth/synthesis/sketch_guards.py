"""`affine.if` conditions read by the sketch tactic (synth.synthesis.sketch): a statement
or an accumulation guarded by an integer set on loop indices and sizes (a zero-padded
tap, `j = i + k - r; if (j < 0 || j >= n) continue; acc += x[j] * w[k]`) is the same
statement where every constraint holds: the term masked (select_affine against 0) before
it is summed, the stored value selected against the previous one.

Each constraint `sum(a * iv) + sum(b * size) + c >= 0` (an equality: two of them) is read
over the loops' positions, each index relative to its loop's box (iv = lo + p):
`sum(a * p) >= -(c + sum(a * lo)) - sum(b * size)`, the bound a Size where sizes appear
(the program re-instantiates at other sizes, and a shape-generic body computes it)."""

from __future__ import annotations

from dataclasses import dataclass

from synth.analysis.affine_expr import integer_set
from synth.analysis.symbols import Size, SizeExpr
from synth.frontend.reader import affine_linear
from synth.grammar.shapes import shrink_dim
from synth.synthesis.program import Expr
from synth.synthesis.sketch_reader import NoSketch


@dataclass(frozen=True)
class AffineMask:
    """Every constraint `sum(coeff * index(p)) >= bound` holds (`negated`: not every one
    does: an affine.if's else branch), over loop positions p (indices relative to their
    boxes); `constraints`: ((((p, coeff), ...), bound), ...)."""
    constraints: tuple
    negated: bool = False

    @property
    def loops(self) -> set[int]:
        return {p for terms, _ in self.constraints for p, _ in terms}

    def moved(self, keep: list[int]) -> "AffineMask":
        return AffineMask(tuple((tuple((keep.index(p), c) for p, c in terms), b) for terms, b in self.constraints),
                          self.negated)

    def over(self, dims: tuple[int, ...]) -> tuple:
        """The constraints as select_affine's attribute over a view's dims (a coefficient
        per dim)."""
        return tuple((tuple(dict(terms).get(p, 0) for p in dims), b) for terms, b in self.constraints)


def guard_mask(reader, guard, at: dict, loops: list) -> AffineMask:
    """The integer set of `guard` (an affine.if, and whether it is its else branch that
    holds the statement) as an AffineMask over the loops at positions `at` (iv ->
    position; `loops`: their boxes); NoSketch for a condition on anything other than
    those loops' indices and sizes."""
    guard, negated = guard
    try:
        amap, eqs = integer_set(guard.attributes["condition"])
    except ValueError as e:
        raise NoSketch(str(e)) from None
    operands = list(guard.operands)
    n_dims = amap.n_dims
    constraints = []
    for e, is_eq in zip(amap.results, eqs):
        form = affine_linear(e, dim=lambda p: ({p: 1}, 0), symbol=lambda p: ({n_dims + p: 1}, 0))
        if form is None:
            raise NoSketch(f"a condition {e} that is not linear")
        coeffs, c = form
        terms: dict[int, int] = {}
        bound = SizeExpr.constant(-c)
        dynamic: frozenset = frozenset()
        value = -c
        for k, a in coeffs.items():
            v = operands[k]
            if v in at:
                p = at[v]
                terms[p] = terms.get(p, 0) + a
                bound = bound - a * loops[p].lo
                value -= a * loops[p].lo
                continue
            if reader.is_counter(v):
                raise NoSketch("an affine.if on a loop counter")
            s = reader.size_value(v)  # NoSketch where it is neither a loop index nor a size
            bound = bound - SizeExpr.of(s) * a
            value -= a * int(s)
            dynamic |= getattr(s, "dynamic", frozenset())
        b = value if bound.is_constant else Size(value, bound, dynamic)
        form_terms = tuple(sorted((p, a) for p, a in terms.items() if a))
        if not form_terms:
            raise NoSketch("a condition on sizes only")
        constraints.append((form_terms, b))
        if is_eq:  # sum == b: also -sum >= -b
            negated = -b if not isinstance(b, Size) else Size(-int(b), -b.expr, b.dynamic)
            constraints.append((tuple((p, -a) for p, a in form_terms), negated))
    return AffineMask(tuple(constraints), negated)



def guarded_box(reader, loops: list, masks: list) -> tuple[list, list]:
    """The masks of a store with the conditions of the affine.if ops around it
    (reader.guards) added: each one's integer set an AffineMask (negated for an else
    branch). The statement is read over the loops' whole boxes: a read there past an
    array's end (`in[y - 1]` at y = 0) is a padded view (`padded`), which the mask
    leaves out."""
    at = {l.iv: p for p, l in enumerate(loops)}
    return loops, masks + [guard_mask(reader, g, at, loops) for g in reader.guards]


def padded(sk, leaf: Expr, lo: tuple, hi: tuple) -> Expr:
    """`leaf` read from `lo` to its end less `hi` along each dim, where a negative lo / hi
    reaches past the array (|lo|, |hi| <= MAX_TRIM): the part inside it sliced, then
    inserted into zeros of the view's extents (0 past the array). What a guarded
    statement reads over its loops' whole boxes; its mask leaves the zeros out."""
    inside = tuple(max(v, 0) for v in lo), tuple(max(v, 0) for v in hi)
    part = leaf if not any(inside[0] + inside[1]) else sk.apply(
        "slice_range" if sk.dialect == "stablehlo" else "extract_range", (leaf,), (("lo", inside[0]), ("hi", inside[1])))
    shape = tuple(shrink_dim(n, a + b) for n, a, b in zip(leaf.type.shape, lo, hi))
    if None in shape:
        raise NoSketch("an array extent that is a floordiv of sizes")
    dtype = leaf.type.dtype
    if sk.dialect == "stablehlo":
        zero = sk.apply("constant", (), (("dtype", dtype), ("value", 0.0)))
        zeros = sk.apply("broadcast_in_dim", (zero,), (("dims", ()), ("shape", shape)))
    else:
        zeros = sk.apply("fill", (), (("dtype", dtype), ("shape", shape), ("value", 0.0)))
    return sk.apply("insert_range", (zeros, part), (("lo", tuple(max(-v, 0) for v in lo)),
                                                    ("hi", tuple(max(-v, 0) for v in hi))))
