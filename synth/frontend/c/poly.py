"""Integer expressions of the C translator as polynomials over loop indices (dims,
`("d", ssa)`) and integer parameters (symbols, `("s", "%argN")`): `i * lda + k` is
`{(i, lda): 1, (k,): 1}`. An expression is affine when no monomial multiplies a dim by
anything but a constant; products of symbols alone (`n * size`) are affine too (they
become one symbol value). Flattened subscripts are polynomials that `layout` reads as
multi-dimensional accesses; intervals bound a polynomial over a loop nest."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd

Var = tuple  # ("d", ssa) or ("s", "%argN")
Mono = tuple  # a sorted tuple of Vars, never empty


def _mono(*vs) -> Mono:
    return tuple(sorted(vs))


@dataclass
class Poly:
    """sum of coeff * monomial + const."""

    terms: dict = field(default_factory=dict)
    const: int = 0

    @staticmethod
    def var(kind: str, key: str) -> Poly:
        return Poly({((kind, key),): 1}, 0)

    @staticmethod
    def number(c: int) -> Poly:
        return Poly({}, int(c))

    def __add__(self, o: Poly) -> Poly:
        t = dict(self.terms)
        for k, v in o.terms.items():
            t[k] = t.get(k, 0) + v
        return Poly({k: v for k, v in t.items() if v}, self.const + o.const)

    def scale(self, c: int) -> Poly:
        if c == 0:
            return Poly()
        return Poly({k: v * c for k, v in self.terms.items()}, self.const * c)

    def __sub__(self, o: Poly) -> Poly:
        return self + o.scale(-1)

    def __mul__(self, o: Poly) -> Poly:
        out = self.scale(o.const) + o.scale(self.const).plus(-self.const * o.const)
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                out = out + Poly({_mono(*m1, *m2): c1 * c2})
        return out

    def plus(self, c: int) -> Poly:
        return Poly(dict(self.terms), self.const + c)

    def __eq__(self, o) -> bool:
        return isinstance(o, Poly) and self.terms == o.terms and self.const == o.const

    def __hash__(self) -> int:
        return hash((tuple(sorted(self.terms.items())), self.const))

    @property
    def is_const(self) -> bool:
        return not self.terms

    def dims(self) -> list:
        out = []
        for m in self.terms:
            for v in m:
                if v[0] == "d" and v not in out:
                    out.append(v)
        return out

    def symbols(self) -> set:
        return {v for m in self.terms for v in m if v[0] == "s"}

    @property
    def is_affine(self) -> bool:
        """Every monomial with a dim is a constant times that one dim."""
        return all(len(m) == 1 or all(v[0] == "s" for v in m) for m in self.terms)

    def subst(self, values: dict) -> Poly:
        """Replace variables by polynomials (or ints)."""
        out = Poly.number(self.const)
        for m, c in self.terms.items():
            term = Poly.number(c)
            for v in m:
                x = values.get(v)
                if x is None:
                    term = term * Poly.var(*v)
                else:
                    term = term * (x if isinstance(x, Poly) else Poly.number(x))
            out = out + term
        return out

    def content(self) -> int:
        """gcd of the coefficients and the constant (0 for the zero polynomial)."""
        g = abs(self.const)
        for c in self.terms.values():
            g = gcd(g, abs(c))
        return g


def split_dims(p: Poly) -> tuple[list, Poly] | None:
    """`p` as [(monomial coefficient, dim var)...] and the dim-free rest: each term that
    holds a dim is coefficient * symbols * that dim, as a monomial `Poly` over symbols.
    None when a monomial holds two dims (`i * j`)."""
    parts, rest = [], Poly.number(p.const)
    for m, c in p.terms.items():
        ds = [v for v in m if v[0] == "d"]
        if len(ds) > 1:
            return None
        if not ds:
            rest = rest + Poly({m: c})
            continue
        syms = [v for v in m if v[0] == "s"]
        coeff = Poly({_mono(*syms): c}) if syms else Poly.number(c)
        parts.append((coeff, ds[0]))
    return parts, rest


# --- intervals over a loop nest ---------------------------------------------------------


def bounds(p: Poly, ranges: dict) -> tuple[Poly, Poly] | None:
    """(lowest, highest) value of an affine `p` over a loop nest: `ranges` gives each dim
    (lo, hi, depth), its inclusive bounds as polynomials over outer dims and symbols. Dims
    are eliminated innermost first (`k - i - 1` with `i <= k - 1` is at least 0); None if
    a dim's coefficient is not a constant or a dim has no range."""
    lo, hi = _extreme(p, ranges, -1), _extreme(p, ranges, 1)
    return None if lo is None or hi is None else (lo, hi)


def _extreme(p: Poly, ranges: dict, direction: int) -> Poly | None:
    for _ in range(64):
        dims = [v for m in p.terms for v in m if v[0] == "d"]
        if not dims:
            return p
        d = max(dims, key=lambda v: ranges[v][2] if v in ranges else -1)
        if d not in ranges or (d,) not in p.terms or any(d in m and len(m) > 1 for m in p.terms):
            return None
        c = p.terms[(d,)]
        lo, hi, _ = ranges[d]
        bound = hi if (c > 0) == (direction > 0) else lo
        if bound is None:
            return None
        p = (p - Poly({(d,): c})) + bound.scale(c)
    return None


def sign(p: Poly, values: dict) -> int | None:
    """-1, 0 or 1: the sign of `p` if it is constant, or once the symbols of `values`
    (ints) are replaced; None if it depends on other symbols."""
    q = p.subst(values) if values else p
    if not q.is_const:
        return None
    return (q.const > 0) - (q.const < 0)
