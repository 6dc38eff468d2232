"""Terms for proofs at every size: one output element, at a symbolic index, of a program
whose sizes are symbols.

Both sides of an all-size proof (synth.semantics.affine_parametric for the original,
synth.semantics.raised_parametric for the raised text) describe an output as a z3 term
in the size symbols, the index variables of the element and the inputs, where an input
array is an uninterpreted function of its indices (`arg5(i, j)`) and a reduction is

    SUM(lo, hi, Lambda([k], body))      the sum of body over lo <= k < hi

with SUM an uninterpreted function. Scalar operations are those of
synth.semantics.scalar (real arithmetic for floats, mathematical integers).

`canonical(term)` rewrites a term so that sums that are equal for a reason the proof
knows become the same z3 term: polynomials are expanded, factors that do not depend on
the summation index and constant coefficients are moved out of sums, sums of sums are
split, guards that bound the summation index affinely (a mask `k > i`, a triangular
loop) become the sum's bounds, a sum pinned to one point by an equality guard becomes
that point, and a nest of sums over a box (bounds free of the nest's indices) takes one
canonical order of its sums (`fubini`). What is left to z3 is then the equality of two terms in which each SUM is an
uninterpreted function (equal arguments, equal sums: congruence), plus the fact that an
empty sum is zero. The rewrite is sound (each step is an identity of finite sums); it is
not complete, and the proof reports "unknown" where it falls short.
"""

from __future__ import annotations


import itertools

import z3

from synth.budget import ms_left


class NotParametric(Exception):
    """A program (or a part of it) outside what the all-size proof models; the message
    says what."""


def query_ms(deadline: float | None, cap_ms: int | None = None) -> int:
    """Z3's time for one more query of the all-size level, in ms: `cap_ms`, or what is
    left before `deadline` (a time.monotonic() value, the level's) where that is less (one
    of the two given); NotParametric when nothing is left (the level gives up, the bounded
    proof decides)."""
    ms = ms_left(deadline, cap_ms)
    if ms is None:
        raise NotParametric("the proof is not done in the level's time")
    return ms


# sums ---------------------------------------------------------------------------------------

_SUMS: dict[str, z3.FuncDeclRef] = {}


def sum_decl(sort: z3.SortRef) -> z3.FuncDeclRef:
    key = str(sort)
    if key not in _SUMS:
        _SUMS[key] = z3.Function(f"SUM_{key}", z3.IntSort(), z3.IntSort(),
                                 z3.ArraySort(z3.IntSort(), sort), sort)
    return _SUMS[key]


def is_sum(e: z3.ExprRef) -> bool:
    return z3.is_app(e) and e.num_args() == 3 and any(e.decl().eq(d) for d in _SUMS.values())


_FRESH = itertools.count()


def fresh_index(prefix: str = "k") -> z3.ArithRef:
    return z3.Int(f"{prefix}!{next(_FRESH)}")


def make_sum(lo, hi, k: z3.ArithRef, body: z3.ExprRef) -> z3.ExprRef:
    """sum of `body` (a term in the index constant `k`) over lo <= k < hi."""
    return sum_decl(body.sort())(lo, hi, z3.Lambda([k], body))


def open_sum(e: z3.ExprRef, k: z3.ArithRef | None = None):
    """(lo, hi, k, body) of a SUM term, its index instantiated with `k` (fresh if None)."""
    k = fresh_index() if k is None else k
    lam = e.arg(2)
    return e.arg(0), e.arg(1), k, z3.substitute_vars(lam.body(), k)


def zero(sort: z3.SortRef) -> z3.ExprRef:
    return z3.RealVal(0) if sort == z3.RealSort() else z3.IntVal(0)


def sums_in(e: z3.ExprRef) -> list[z3.ExprRef]:
    """Every SUM application in `e`, sums inside sum bodies included (their indices
    instantiated with fresh constants)."""
    out, seen, alive = [], set(), []

    def walk(t):
        if t.get_id() in seen:
            return
        seen.add(t.get_id())
        alive.append(t)  # z3 reuses the ids of freed terms (opened bodies are new terms)
        if is_sum(t):
            out.append(t)
            lo, hi, _, body = open_sum(t)
            walk(lo), walk(hi), walk(body)
            return
        if z3.is_app(t):
            for c in t.children():
                walk(c)
    walk(e)
    return out


def empty_sum_facts(terms: list[z3.ExprRef]) -> list[z3.BoolRef]:
    """An empty sum is zero (the only fact about SUM beyond congruence)."""
    facts, seen = [], set()
    for t in terms:
        for s in sums_in(t):
            if s.get_id() not in seen:
                seen.add(s.get_id())
                facts.append(z3.Implies(s.arg(1) <= s.arg(0), s == zero(s.sort())))
    return facts


# linear integer terms -----------------------------------------------------------------------


def linear(t: z3.ExprRef) -> tuple[dict, int] | None:
    """`t` as (atom id -> (atom, coefficient), constant) when it is linear over Int atoms
    (constants and uninterpreted applications), else None."""
    if z3.is_int_value(t):
        return {}, t.as_long()
    if z3.is_add(t) or z3.is_sub(t):
        parts = [linear(c) for c in t.children()]
        if any(p is None for p in parts):
            return None
        out, const = dict(parts[0][0]), parts[0][1]
        for n, (terms, c) in enumerate(parts[1:]):
            sign = -1 if z3.is_sub(t) else 1
            const += sign * c
            for key, (atom, coef) in terms.items():
                prev = out.get(key, (atom, 0))[1]
                out[key] = (atom, prev + sign * coef)
        return {k: v for k, v in out.items() if v[1]}, const
    if z3.is_app_of(t, z3.Z3_OP_UMINUS):
        p = linear(t.arg(0))
        return None if p is None else ({k: (a, -c) for k, (a, c) in p[0].items()}, -p[1])
    if z3.is_mul(t):
        factor, rest = 1, []
        for c in t.children():
            if z3.is_int_value(c):
                factor *= c.as_long()
            else:
                rest.append(c)
        if len(rest) > 1:
            return None
        if not rest:
            return {}, factor
        p = linear(rest[0])
        return None if p is None else ({k: (a, c * factor) for k, (a, c) in p[0].items()}, p[1] * factor)
    if z3.is_const(t) or (z3.is_app(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED):
        if t.sort() == z3.IntSort():
            return {t.get_id(): (t, 1)}, 0
    return None


def mentions(t: z3.ExprRef, k: z3.ExprRef) -> bool:
    kid = k.get_id()
    seen = set()

    def walk(e):
        if e.get_id() == kid:
            return True
        if e.get_id() in seen:
            return False
        seen.add(e.get_id())
        if z3.is_quantifier(e):
            return walk(e.body())
        return z3.is_app(e) and any(walk(c) for c in e.children())
    return walk(t)


def solve_for(k: z3.ExprRef, lhs: z3.ExprRef, rhs: z3.ExprRef) -> z3.ExprRef | None:
    """The value of `k` that makes lhs == rhs, when both are linear and k's coefficient
    is +-1."""
    split = _unit_split(k, lhs, rhs)
    if split is None:
        return None
    coef, rest = split
    return z3.simplify(-rest if coef == 1 else rest)


def _unit_split(k: z3.ExprRef, lhs: z3.ExprRef, rhs: z3.ExprRef):
    """lhs - rhs as (c, rest) with lhs - rhs = c*k + rest, c = +-1 and k not in rest;
    None when the difference is not linear so (k inside an atom, such as an integer
    input read at k, counts as not)."""
    a, b = linear(lhs), linear(rhs)
    if a is None or b is None:
        return None
    terms = dict(a[0])
    for key, (atom, c) in b[0].items():
        terms[key] = (atom, terms.get(key, (atom, 0))[1] - c)
    const = a[1] - b[1]
    coef = terms.pop(k.get_id(), (k, 0))[1]
    if coef not in (1, -1):
        return None
    rest = z3.IntVal(const) + z3.Sum([atom * c for atom, c in terms.values() if c] or [z3.IntVal(0)])
    return None if mentions(rest, k) else (coef, rest)


def bound(k: z3.ExprRef, g: z3.BoolRef):
    """A guard on `k` as ("lo", t): k >= t, ("hi", t): k < t, ("eq", t), or None."""
    neg = False
    while z3.is_not(g):
        neg, g = not neg, g.arg(0)
    if not z3.is_app(g) or g.num_args() != 2 or g.arg(0).sort() != z3.IntSort():
        return None
    kind = g.decl().kind()
    if kind == z3.Z3_OP_EQ and not neg:
        t = solve_for(k, g.arg(0), g.arg(1))
        return None if t is None else ("eq", t)
    flip = {z3.Z3_OP_LE: z3.Z3_OP_GT, z3.Z3_OP_GT: z3.Z3_OP_LE, z3.Z3_OP_GE: z3.Z3_OP_LT,
            z3.Z3_OP_LT: z3.Z3_OP_GE}
    if kind not in flip:
        return None
    if neg:
        kind = flip[kind]
    split = _unit_split(k, g.arg(0), g.arg(1))  # lhs - rhs = c*k + rest  (op)  0
    if split is None:
        return None
    coef, rest = split
    # c*k + rest (op) 0; make c = 1 by negating both sides (flipping the comparison)
    if coef == -1:
        rest = -rest
        kind = {z3.Z3_OP_LE: z3.Z3_OP_GE, z3.Z3_OP_GE: z3.Z3_OP_LE,
                z3.Z3_OP_LT: z3.Z3_OP_GT, z3.Z3_OP_GT: z3.Z3_OP_LT}[kind]
    t = z3.simplify(-rest)  # k (op) t
    if kind == z3.Z3_OP_GE:
        return "lo", t
    if kind == z3.Z3_OP_GT:
        return "lo", z3.simplify(t + 1)
    if kind == z3.Z3_OP_LT:
        return "hi", t
    return "hi", z3.simplify(t + 1)  # k <= t


# canonical form -----------------------------------------------------------------------------


MAX_TERMS = 2000  # monomials of a product's expansion beyond which the form is given up


