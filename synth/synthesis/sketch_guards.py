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
from synth.synthesis.sketch_reader import NoSketch


@dataclass(frozen=True)
class AffineMask:
    """Every constraint `sum(coeff * index(p)) >= bound` holds, over loop positions p
    (indices relative to their boxes); `constraints`: ((((p, coeff), ...), bound), ...)."""
    constraints: tuple

    @property
    def loops(self) -> set[int]:
        return {p for terms, _ in self.constraints for p, _ in terms}

    def moved(self, keep: list[int]) -> "AffineMask":
        return AffineMask(tuple((tuple((keep.index(p), c) for p, c in terms), b) for terms, b in self.constraints))

    def over(self, dims: tuple[int, ...]) -> tuple:
        """The constraints as select_affine's attribute over a view's dims (a coefficient
        per dim)."""
        return tuple((tuple(dict(terms).get(p, 0) for p in dims), b) for terms, b in self.constraints)


def guarded_loops(op, what: str) -> tuple[list, list]:
    """The affine.for ops around `op` (outermost first) and the affine.if ops whose
    then-branch holds it, each with an empty else; NoSketch inside anything else."""
    loops, guards = [], []
    inner, parent = op, op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "affine.for":
            loops.append(parent.opview)
        elif parent.name == "affine.if":
            then, other = parent.regions[0], parent.regions[1]
            if not _in_region(inner, then):
                raise NoSketch(f"{what} in the else branch of an affine.if")
            if len(other.blocks) and len(list(other.blocks[0].operations)) > 1:
                raise NoSketch(f"{what} inside an affine.if with an else branch")
            guards.append(parent)
        else:
            raise NoSketch(f"{what} inside {parent.name}")
        inner, parent = parent, parent.parent
    return loops[::-1], guards[::-1]


def _in_region(op, region) -> bool:
    return any(o == op.operation for b in region.blocks for o in b.operations)


def guard_mask(reader, guard, at: dict, loops: list) -> AffineMask:
    """The integer set of the affine.if `guard` as an AffineMask over the loops at
    positions `at` (iv -> position; `loops`: their boxes); NoSketch for a condition on
    anything other than those loops' indices and sizes."""
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
    return AffineMask(tuple(constraints))

