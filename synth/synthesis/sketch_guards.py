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
from synth.synthesis.sketch_reader import Loop, NoSketch


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
    """The loops around a store and their masks with the conditions of the affine.if ops
    around it (reader.guards): a condition on one index (`x >= 1`, `x <= w - 2`) narrows
    that loop's box, the others are AffineMasks."""
    if not reader.guards:
        return loops, masks
    at = {l.iv: p for p, l in enumerate(loops)}
    box = {p: (l.lo, l.hi) for p, l in enumerate(loops)}
    for g in reader.guards:
        if g[1]:
            continue  # an else branch: a mask (the negation of a conjunction)
        for terms, b in guard_mask(reader, g, at, loops).constraints:
            if len(terms) == 1 and abs(terms[0][1]) == 1:
                p, c = terms[0]
                lo, hi = box[p]
                if c == 1:  # index >= b: the box from lo + b
                    box[p] = (max(lo, loops[p].lo + int(b)), hi)
                else:  # index <= -b
                    box[p] = (lo, min(hi, loops[p].lo - int(b) + 1))
    narrowed = {p for p, (lo, hi) in box.items() if (lo, hi) != (loops[p].lo, loops[p].hi)}
    if any(m.loops & narrowed for m in masks):
        raise NoSketch("an affine.if narrowing a triangular loop")
    loops = [Loop(l.iv, *box[p]) for p, l in enumerate(loops)]
    if any(l.hi <= l.lo for l in loops):
        raise NoSketch("an affine.if whose conditions leave no iteration")
    kept = []
    for g in reader.guards:  # the other conditions, over the narrowed boxes
        mask = guard_mask(reader, g, at, loops)
        if mask.negated:
            kept.append(mask)
            continue
        rest = []
        for terms, b in mask.constraints:
            if len(terms) == 1 and abs(terms[0][1]) == 1:
                p, c = terms[0]
                if (c == 1 and int(b) <= 0) or (c == -1 and -int(b) >= loops[p].hi - loops[p].lo - 1):
                    continue  # the box holds it
            rest.append((terms, b))
        kept += [AffineMask(tuple(rest))] if rest else []
    return loops, masks + kept
