"""Canonical forms of the terms the all-size proofs compare (synth.semantics.parametric):
polynomials with guarded monomials, sums merged and split, facts assumed."""

from __future__ import annotations

import time

import itertools
from dataclasses import dataclass
from fractions import Fraction

import z3


from synth.semantics.parametric import (
    MAX_TERMS,
    NotParametric,
    bound,
    fresh_index,
    is_sum,
    linear,
    make_sum,
    mentions,
    open_sum,
    query_ms,
    zero,
)  # noqa: E402


@dataclass(frozen=True)
class _Mono:
    coef: Fraction
    guards: tuple  # canonical Bool terms, sorted by key
    factors: tuple  # canonical atoms, sorted by key


def _key(t: z3.ExprRef) -> int:
    """Order and identity of terms: z3 hash-conses its ASTs, so equal terms have one id
    (while alive: every term keyed here is held by a monomial or a list). Kept on the
    Python object: a call into z3 per key was a third of correlation's all-size proof."""
    try:
        return t._synth_key
    except AttributeError:
        k = t._synth_key = t.get_id()
        return k


def _merge(a: tuple, b: tuple) -> tuple:
    items = {_key(t): t for t in a + b}
    return tuple(items[k] for k in sorted(items))


def _mul(p: list[_Mono], q: list[_Mono]) -> list[_Mono]:
    return [_Mono(m.coef * n.coef, _merge(m.guards, n.guards),
                  tuple(sorted(m.factors + n.factors, key=_key))) for m in p for n in q]


def _scale(p: list[_Mono], c: Fraction) -> list[_Mono]:
    return [_Mono(m.coef * c, m.guards, m.factors) for m in p if m.coef * c]


def _guarded(p: list[_Mono], g: z3.BoolRef) -> list[_Mono]:
    g = z3.simplify(g)
    if z3.is_false(g):
        return []
    if z3.is_true(g):
        return p
    parts = list(g.children()) if z3.is_and(g) else [g]
    return [_Mono(m.coef, _merge(m.guards, tuple(parts)), m.factors) for m in p]


def _collect(p: list[_Mono]) -> list[_Mono]:
    acc: dict[tuple, Fraction] = {}
    reps: dict[tuple, _Mono] = {}
    for m in p:
        key = (tuple(_key(g) for g in m.guards), tuple(_key(f) for f in m.factors))
        acc[key] = acc.get(key, Fraction(0)) + m.coef
        reps.setdefault(key, m)
    out = [_Mono(c, reps[k].guards, reps[k].factors) for k, c in sorted(acc.items()) if c]
    return _merge_complements(out)


def _merge_complements(p: list[_Mono]) -> list[_Mono]:
    """c*[G, g]*f + c*[G, not g]*f  ->  c*[G]*f, repeatedly (a merged monomial equal to
    one already there adds its coefficient to it). A worklist over a dict keyed by the
    monomials: each merge is looked up, not found by a rescan (correlation's all-size
    form has thousands of monomials)."""
    def key(m: _Mono) -> tuple:
        return tuple(_key(g) for g in m.guards), tuple(_key(f) for f in m.factors)

    items = {key(m): m for m in p}  # _collect made the keys distinct
    negations: dict[int, z3.ExprRef] = {}
    work = list(items)
    while work:
        k = work.pop()
        m = items.get(k)
        if m is None:
            continue
        for gi, g in enumerate(m.guards):
            neg = negations.get(_key(g))
            if neg is None:
                neg = negations[_key(g)] = g.arg(0) if z3.is_not(g) else z3.simplify(z3.Not(g))
            rest = m.guards[:gi] + m.guards[gi + 1:]
            twin_key = (tuple(_key(x) for x in _merge(rest, (neg,))), k[1])
            twin = items.get(twin_key)
            if twin is None or twin_key == k or twin.coef != m.coef:
                continue
            del items[k], items[twin_key]
            merged = _Mono(m.coef, rest, m.factors)
            mk = key(merged)
            if mk in items:
                merged = _Mono(items[mk].coef + m.coef, rest, m.factors)
                if not merged.coef:
                    del items[mk]
                    break
            items[mk] = merged
            work.append(mk)
            break
    return [items[k] for k in sorted(items)]


ASSUME_MS = 2000  # z3's time for one condition of `assume` at most


def assume(t: z3.ExprRef, facts: list, cache: dict | None = None, deadline: float | None = None) -> z3.ExprRef:
    """`t` with every if-then-else whose condition `facts` decide replaced by its branch
    (z3 decides, over the integers: index conditions; each query within ASSUME_MS and
    `deadline`, parametric.query_ms)."""
    cache = {} if cache is None else cache

    def decided(c) -> bool | None:
        key = c.get_id()
        if key not in cache:
            cache[("term", key)] = c  # kept alive: z3 reuses the ids of freed terms
            s = z3.Solver()
            s.set("timeout", query_ms(deadline, ASSUME_MS))
            s.add(facts)
            s.push()
            s.add(z3.Not(c))
            if s.check() == z3.unsat:
                cache[key] = True
            else:
                s.pop()
                s.add(c)
                cache[key] = False if s.check() == z3.unsat else None
        return cache[key]

    def walk(e):
        if is_sum(e):
            lo, hi, k, body = open_sum(e)
            return make_sum(walk(lo), walk(hi), k, walk(body))
        if not z3.is_app(e) or e.num_args() == 0:
            return e
        if z3.is_app_of(e, z3.Z3_OP_ITE) and e.arg(0).sort() == z3.BoolSort():
            d = decided(e.arg(0)) if not _has_data(e.arg(0)) else None
            if d is True:
                return walk(e.arg(1))
            if d is False:
                return walk(e.arg(2))
        return e.decl()(*[walk(c) for c in e.children()])
    return walk(t)


def _has_data(c: z3.ExprRef) -> bool:
    """Whether a condition compares non-integer terms (data, not indices)."""
    seen = set()

    def walk(e):
        if e.get_id() in seen:
            return False
        seen.add(e.get_id())
        if z3.is_quantifier(e):
            return False
        if z3.is_app(e) and e.sort() not in (z3.IntSort(), z3.BoolSort()):
            return True
        return z3.is_app(e) and any(walk(ch) for ch in e.children())
    return walk(c)


def _numeral(t: z3.ExprRef) -> Fraction | None:
    if z3.is_int_value(t):
        return Fraction(t.as_long())
    if z3.is_rational_value(t):
        return Fraction(t.numerator_as_long(), t.denominator_as_long())
    return None


class _Canon:
    def __init__(self, deadline: float | None = None):
        self.deadline = deadline  # time.monotonic() after which the form is given up
        self.memo: dict[int, tuple] = {}  # id -> (term, its polynomial)
        self.depth = 0  # sums being expanded: the index of the next one is sum!depth (a name fresh_index never gives)

    def check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise NotParametric("the canonical form is not done in the level's time")

    def poly(self, t: z3.ExprRef) -> list[_Mono]:
        # keyed by z3's AST id, with the term kept alive: ids of freed terms are reused
        tid = t.get_id()
        if tid not in self.memo:
            self.check_time()
            self.memo[tid] = (t, _collect(self._poly(t)))
        return self.memo[tid][1]

    def _poly(self, t: z3.ExprRef) -> list[_Mono]:
        c = _numeral(t)
        if c is not None:
            return [_Mono(c, (), ())] if c else []
        if z3.is_add(t):
            return [m for ch in t.children() for m in self.poly(ch)]
        if z3.is_sub(t):
            first, *rest = t.children()
            return self.poly(first) + [m for ch in rest for m in _scale(self.poly(ch), Fraction(-1))]
        if z3.is_app_of(t, z3.Z3_OP_UMINUS):
            return _scale(self.poly(t.arg(0)), Fraction(-1))
        if z3.is_mul(t):
            out = [_Mono(Fraction(1), (), ())]
            for ch in t.children():
                q = self.poly(ch)
                if len(out) * len(q) > MAX_TERMS:
                    raise NotParametric(f"a product expands to more than {MAX_TERMS} terms")
                out = _collect(_mul(out, q))
                self.check_time()
            return out
        if z3.is_div(t):
            d = _numeral(z3.simplify(t.arg(1)))
            if d is not None and d != 0:
                return _scale(self.poly(t.arg(0)), 1 / d)
            inv = self.term(t.arg(1))
            return _mul(self.poly(t.arg(0)), [_Mono(Fraction(1), (), (z3.RealVal(1) / inv,))])
        if z3.is_app_of(t, z3.Z3_OP_ITE):
            g = self.guard(t.arg(0))
            if z3.is_true(g):
                return self.poly(t.arg(1))
            if z3.is_false(g):
                return self.poly(t.arg(2))
            cases = _cases(g)
            if cases is None:
                return _guarded(self.poly(t.arg(1)), g) + _guarded(self.poly(t.arg(2)), z3.Not(g))
            then, other = self.poly(t.arg(1)), self.poly(t.arg(2))
            return ([m for c in cases[0] for m in _guarded(then, z3.And(c))]
                    + [m for c in cases[1] for m in _guarded(other, z3.And(c))])
        if is_sum(t):
            return self.sum(t)
        if z3.is_app_of(t, z3.Z3_OP_TO_REAL):
            inner = z3.simplify(t.arg(0))
            p = linear(inner)
            if p is not None:  # ToReal(a*i + b) = a*ToReal(i) + b
                out = [_Mono(Fraction(p[1]), (), ())] if p[1] else []
                for atom, c in p[0].values():
                    out.append(_Mono(Fraction(c), (), (z3.ToReal(atom),)))
                return out
            return [_Mono(Fraction(1), (), (z3.ToReal(inner),))]
        return [_Mono(Fraction(1), (), (self.atom(t),))]

    def atom(self, t: z3.ExprRef) -> z3.ExprRef:
        """An opaque factor with canonical arguments (an input element, sqrt(x), ...)."""
        if z3.is_app(t) and t.num_args():
            args = [z3.simplify(a) if a.sort() == z3.IntSort() and linear(z3.simplify(a)) is not None
                    else self.term(a) if z3.is_arith(a) or z3.is_bool(a) else a for a in t.children()]
            return t.decl()(*args)
        return t

    def guard(self, g: z3.BoolRef) -> z3.BoolRef:
        """A condition with canonical data terms in its comparisons."""
        if z3.is_and(g) or z3.is_or(g) or z3.is_not(g):
            parts = [self.guard(c) for c in g.children()]
            return z3.simplify(z3.And(parts) if z3.is_and(g) else z3.Or(parts) if z3.is_or(g)
                               else z3.Not(parts[0]))
        if z3.is_app(g) and g.num_args() == 2 and z3.is_arith(g.arg(0)) and g.arg(0).sort() != z3.IntSort():
            diff = self.poly(g.arg(0) - g.arg(1))
            integral = _integer_form(diff)
            compare = _COMPARE.get(g.decl().kind())
            if integral is not None and compare is not None:  # iota as a float (a mask of f64
                return z3.simplify(compare(integral, z3.IntVal(0)))  # indices): an index condition
            lhs = to_term(diff, g.arg(0).sort())
            return z3.simplify(g.decl()(lhs, zero(lhs.sort())))
        return z3.simplify(g)

    def sum(self, t: z3.ExprRef) -> list[_Mono]:
        lo, hi, k, body = open_sum(t, z3.Int(f"sum!{self.depth}"))
        lo, hi = z3.simplify(lo), z3.simplify(hi)
        out: list[_Mono] = []
        self.depth += 1
        try:
            monos = self.poly(body)
        finally:
            self.depth -= 1
        for m in monos:
            los, his, inner, outer, point = [lo], [hi], [], [], None
            for g in m.guards:
                if not mentions(g, k):
                    outer.append(g)
                    continue
                b = bound(k, g)
                if b is None:
                    inner.append(g)
                elif b[0] == "eq" and point is None:
                    point = b[1]
                elif b[0] == "lo":
                    los.append(b[1])
                elif b[0] == "hi":
                    his.append(b[1])
                else:
                    inner.append(g)
            if point is not None:  # one term: k = point, if it lies in the range
                sub = lambda e: z3.simplify(z3.substitute(e, (k, point)))
                rng = [point >= b for b in los] + [point < b for b in his]
                g = z3.And([sub(x) for x in inner] + rng + outer)
                term = z3.RealVal(m.coef.numerator) / m.coef.denominator if body.sort() == z3.RealSort() \
                    else z3.IntVal(int(m.coef))
                for f in m.factors:
                    term = term * sub(f)
                out += _guarded(self.poly(term), g)
                continue
            dep = [f for f in m.factors if mentions(f, k)]
            indep = [f for f in m.factors if not mentions(f, k)]
            if not dep and not inner:  # sum of a constant: (hi' - lo') copies, when nonempty
                lo2, hi2 = _max(los), _min(his)
                count = z3.simplify(z3.ToReal(hi2 - lo2)) if body.sort() == z3.RealSort() else z3.simplify(hi2 - lo2)
                base = _guarded([_Mono(m.coef, (), tuple(sorted(indep, key=_key)))], z3.And(outer + [lo2 < hi2]))
                out += _mul(base, self.poly(count))
                continue
            inner_body = z3.RealVal(1) if body.sort() == z3.RealSort() else z3.IntVal(1)
            for f in dep:
                inner_body = inner_body * f
            if inner:
                inner_body = z3.If(z3.And(inner), inner_body, zero(body.sort()))
            self.depth += 1  # still inside this sum: its index is sum!(depth - 1)
            try:
                body_term = self.term(inner_body)
            finally:
                self.depth -= 1
            atom = self.fubini(make_sum(_max(los), _min(his), k, body_term))
            out += _guarded([_Mono(m.coef, (), tuple(sorted(indep + [atom], key=_key)))], z3.And(outer))
        return out

    MAX_NEST = 4  # sums of a box reordered by `fubini` (4! orders tried)

    def fubini(self, atom: z3.ExprRef) -> z3.ExprRef:
        """A nest of sums over a box (no bound mentions another sum's index of the nest),
        with its sums in one canonical order: finite sums over a box commute, so two
        programs that reduce the same box in different orders (sum_i sum_j B[j][i] and
        sum_j sum_i B[j][i]) get one term. The order is the one whose term prints first,
        with the indices named by depth as `sum` names them."""
        levels, ks, t = [], [], atom
        while is_sum(t) and len(levels) < self.MAX_NEST:
            lo, hi = t.arg(0), t.arg(1)
            if any(mentions(lo, j) or mentions(hi, j) for j in ks):
                break  # a bound that depends on an outer index: not a box from here on
            _, _, k, t = open_sum(t, fresh_index("fub"))
            levels.append((lo, hi))
            ks.append(k)
        if len(levels) < 2:
            return atom
        names = [z3.Int(f"sum!{self.depth + m}") for m in range(len(levels))]
        best = None
        for order in itertools.permutations(range(len(levels))):
            term = z3.substitute(t, *[(ks[order[m]], names[m]) for m in range(len(levels))])
            self.depth += len(levels)  # renamed, the body's products may sort otherwise
            try:
                term = self.term(term)
            finally:
                self.depth -= len(levels)
            for m in reversed(range(len(levels))):
                lo, hi = levels[order[m]]
                term = make_sum(lo, hi, names[m], term)
            text = term.sexpr()
            if best is None or text < best[0]:
                best = (text, term)
        return best[1]

    def term(self, t: z3.ExprRef) -> z3.ExprRef:
        """The canonical term of `t`."""
        if z3.is_bool(t):
            return self.guard(t)
        if not z3.is_arith(t):
            return t
        return to_term(self.poly(t), t.sort())


MAX_CASES = 32


def _cases(g: z3.BoolRef):
    """Disjoint conjunctions of literals covering where g holds and where it does not
    (Shannon expansion over its connectives), or None beyond MAX_CASES: a sum's
    `If(And(in range, k < n), v, before)` then splits into literals that become bounds."""
    if z3.is_not(g):
        out = _cases(g.arg(0))
        return None if out is None else (out[1], out[0])
    if z3.is_and(g) or z3.is_or(g):
        first, *rest = g.children()
        a = _cases(first)
        if a is None:
            return None
        if not rest:
            return a
        b = _cases(z3.And(rest) if z3.is_and(g) else z3.Or(rest))
        if b is None:
            return None
        if z3.is_and(g):
            true = [x + y for x in a[0] for y in b[0]]
            false = a[1] + [x + y for x in a[0] for y in b[1]]
        else:
            true = a[0] + [x + y for x in a[1] for y in b[0]]
            false = [x + y for x in a[1] for y in b[1]]
        if len(true) + len(false) > MAX_CASES:
            return None
        return true, false
    return [[g]], [[z3.simplify(z3.Not(g))]]


def _max(xs: list) -> z3.ExprRef:
    xs = _dedup(xs)
    out = xs[0]
    for x in xs[1:]:
        out = z3.If(out >= x, out, x)
    return z3.simplify(out)


def _min(xs: list) -> z3.ExprRef:
    xs = _dedup(xs)
    out = xs[0]
    for x in xs[1:]:
        out = z3.If(out <= x, out, x)
    return z3.simplify(out)


def _dedup(xs: list) -> list:
    seen, out = set(), []
    for x in xs:
        x = z3.simplify(x)
        if _key(x) not in seen:
            seen.add(_key(x))
            out.append(x)
    return out


_COMPARE = {z3.Z3_OP_LE: lambda a, b: a <= b, z3.Z3_OP_LT: lambda a, b: a < b,
            z3.Z3_OP_GE: lambda a, b: a >= b, z3.Z3_OP_GT: lambda a, b: a > b,
            z3.Z3_OP_EQ: lambda a, b: a == b}


def _integer_form(p: list[_Mono]) -> z3.ArithRef | None:
    """A real polynomial that is an integer one in disguise (integer coefficients, each
    term a constant or ToReal of an integer term), as that integer term."""
    terms = []
    for m in p:
        if m.guards or m.coef.denominator != 1:
            return None
        if not m.factors:
            terms.append(z3.IntVal(int(m.coef)))
        elif len(m.factors) == 1 and z3.is_app_of(m.factors[0], z3.Z3_OP_TO_REAL):
            terms.append(int(m.coef) * m.factors[0].arg(0))
        else:
            return None
    return z3.simplify(z3.Sum(terms) if terms else z3.IntVal(0))


def to_term(p: list[_Mono], sort: z3.SortRef) -> z3.ExprRef:
    terms = []
    for m in p:
        c = (z3.RealVal(m.coef.numerator) / m.coef.denominator) if sort == z3.RealSort() else z3.IntVal(int(m.coef))
        factors = ([] if m.coef == 1 and m.factors else [c]) + list(m.factors)
        t = factors[0]
        for f in factors[1:]:
            t = t * f
        if m.guards:
            t = z3.If(z3.And(list(m.guards)), t, zero(sort))
        terms.append(t)
    if not terms:
        return zero(sort)
    return terms[0] if len(terms) == 1 else z3.Sum(terms)


def canonical(t: z3.ExprRef, deadline: float | None = None) -> z3.ExprRef:
    """`t` in canonical form; NotParametric past `deadline` (a time.monotonic() value)."""
    return _Canon(deadline).term(t)
