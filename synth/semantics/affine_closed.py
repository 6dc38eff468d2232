"""Closed forms and case splits of the original's arrays at symbolic sizes, for
synth.semantics.affine_parametric: an array after a loop as guarded cases, conjunctions
and disjunctive forms of guards, pinned indices, and a loop's carried step."""

from __future__ import annotations


import z3

from synth.analysis.collect import carried_sum
from synth.semantics.parametric import NotParametric, mentions, query_ms, solve_for





class Array:
    """A memref's contents: `read(idx)` and what it is called in messages."""

    def __init__(self, name: str, sort, rank: int, read):
        self.name, self.sort, self.rank, self.read = name, sort, rank, read

    def with_read(self, read) -> Array:
        return Array(self.name, self.sort, self.rank, read)


def closed(arr: Array, x: tuple, parts) -> Array:
    """The array whose element `xs` is (guard, value, before) of `parts` instantiated."""
    def read(xs):
        g, value, before = parts(xs)
        subst = list(zip(x, xs))
        value = z3.substitute(value, *subst) if subst else value
        if g is None:
            return before + value
        g = z3.substitute(g, *subst) if subst else g
        return z3.If(g, value, before)
    return arr.with_read(read)


def closed_cases(arr: Array, x: tuple, cases: list) -> Array:
    """The array whose element `xs` is the value of the first case whose condition holds
    (conditions and values over x), else the contents before."""
    before = arr.read

    def read(xs):
        subst = list(zip(x, xs))
        out = before(xs)
        for cond, value in reversed(cases):
            if subst:
                cond, value = z3.substitute(cond, *subst), z3.substitute(value, *subst)
            out = z3.If(cond, value, out)
        return out
    return arr.with_read(read)


def closed_guard(x: tuple, g):
    """The guard `g` over the variables `x` as a function of their values."""
    def guard(xs):
        subst = list(zip(x, xs))
        return z3.substitute(g, *subst) if subst else g
    return guard


def conjuncts(g) -> list:
    """The conjuncts of `g`, nested ands flattened."""
    if z3.is_and(g):
        return [c for ch in g.children() for c in conjuncts(ch)]
    return [g]


def pins(v, g, deadline: float | None = None) -> list:
    """The iterations that may write an element: for each disjunct of the guard's
    disjunctive normal form, the iteration its equalities pin (distinct terms only);
    [] when some disjunct pins nothing (or the form is too large). Each z3 query within
    SAME_UNDER_MS and `deadline` (parametric.query_ms)."""
    one = _pin(v, g, deadline)
    if one is not None:
        return [one]
    terms = _dnf(g)
    if terms is None:
        return []
    out = []
    for conj in terms:
        c = z3.And(conj)
        t = _pin(v, c, deadline)
        if t is None:
            return []
        if not any(_same_under(c, t, u, deadline) for u in out):
            out.append(t)
    return out


def _dnf(g, limit: int = 64) -> list | None:
    """g as a list of conjunctions (lists), or None beyond `limit` of them."""
    if z3.is_or(g):
        out = []
        for c in g.children():
            d = _dnf(c, limit)
            if d is None:
                return None
            out += d
        return out if len(out) <= limit else None
    if z3.is_and(g):
        out = [[]]
        for c in g.children():
            d = _dnf(c, limit)
            if d is None:
                return None
            out = [a + b for a in out for b in d]
            if len(out) > limit:
                return None
        return out
    return [[g]]


def _pin(v, g, deadline: float | None):
    """The iteration that writes an element, when the guard fixes it: a conjunct
    `v == t`, or every disjunct fixing the same t."""
    if z3.is_eq(g) and g.arg(0).sort() == z3.IntSort():
        t = solve_for(v, g.arg(0), g.arg(1))
        return t if t is not None and not mentions(t, v) else None
    if z3.is_and(g):
        for c in g.children():
            t = _pin(v, c, deadline)
            if t is not None:
                return t
        return None
    if z3.is_or(g):
        found = None
        for c in g.children():
            t = _pin(v, c, deadline)
            if t is None or (found is not None and not _same_under(c, t, found, deadline)):
                return None
            found = found if found is not None else t
        return found
    return None


SAME_UNDER_MS = 2000  # z3's time for one `_same_under` query at most


def _same_under(cond, a, b, deadline: float | None) -> bool:
    """Whether a == b wherever `cond` holds (z3, over the integers)."""
    if z3.eq(z3.simplify(a), z3.simplify(b)):
        return True
    s = z3.Solver()
    s.set("timeout", query_ms(deadline, SAME_UNDER_MS))
    s.add(cond, a != b)
    return s.check() == z3.unsat


def reads_in(t, by_decl, cache: dict | None = None) -> bool:
    """Whether `t` reads any of the `_in` functions named in by_decl."""
    cache = {} if cache is None else cache

    def walk(e):
        key = e.get_id()
        if key in cache:
            return cache[key][1]
        cache[key] = (e, False)  # (terms are acyclic: a placeholder while visiting)
        if z3.is_quantifier(e):
            out = walk(e.body())
        elif not z3.is_app(e):
            out = False
        elif e.decl().kind() == z3.Z3_OP_UNINTERPRETED and e.decl().name() in by_decl:
            out = True
        else:
            out = any(walk(c) for c in e.children())
        cache[key] = (e, out)  # the term kept alive: z3 reuses the ids of freed terms
        return out
    return walk(t)


def max_of(xs):
    """The maximum of the non-empty z3 terms `xs`, simplified."""
    out = xs[0]
    for x in xs[1:]:
        out = z3.If(out >= x, out, x)
    return z3.simplify(out)


def min_of(xs):
    """The minimum of the non-empty z3 terms `xs`, simplified."""
    out = xs[0]
    for x in xs[1:]:
        out = z3.If(out <= x, out, x)
    return z3.simplify(out)


def carried_step(op, body, n: int, where: str):
    """(stand-in constant for the carried value, the SSA value of the summed term, the
    init value) of a loop `iter_args(%s = init)` that yields `%s + term`; None for a loop
    that carries nothing; NotParametric for other carried values (`where`: the loop's
    FILE:LINE:COL, for the message)."""
    try:
        found = carried_sum(op)
    except ValueError as e:
        raise NotParametric(f"the loop at {where} {e}") from None
    if found is None:
        return None
    add, term, init = found
    sort = z3.RealSort() if add == "arith.addf" else z3.IntSort()
    return z3.Const(f"carried!{n}", sort), term, init
