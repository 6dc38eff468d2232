"""Sixth layer of the function translator: `while` and `do` loops that count.

A loop whose condition compares an integer local (or an integer parameter the function
changes) that advances by the same constant in every iteration with a bound that stays
the same runs a number of iterations known at its entry: CMSIS-DSP's
`blkCnt = blockSize; while (blkCnt > 0U) { ...; blkCnt--; }`, `while (n--)`,
`while (i < n) { ...; i++; }`, `do { ... } while (--k)`. It becomes an `affine.for` over
its iterations t = 0 .. T - 1, and the counter, the pointers and the other locals it
moves take their closed forms (synth.frontend.c.evolution) at the start of every
iteration and after the loop, as in a `for` loop (a loop whose condition compares a
counter that only its iteration steps up by b runs over the counter's values instead:
`for (; i < n; i++)` after a main loop is `affine.for %i = start to n`). With the condition read as
`a - b * t > 0` at iteration t (b > 0), a `while` loop runs T = max(0, ceil(a / b))
iterations; a `do` loop runs its body once more than the condition holds in a row
(max(1, ceil(a / b) + 1)): where that maximum is not decided by the sizes, the two cases
are an `affine.if`. A loop whose exit depends on data (`while (fabs(g * g - x) > eps)`),
a counter that moves away from its bound, an unsigned counter that could wrap around
before its comparison fails: refused with the reason."""

from __future__ import annotations

from dataclasses import dataclass

from clang.cindex import CursorKind as CK

from synth.frontend.c import evolution, jumps
from synth.frontend.c.access import stride as _stride_of
from synth.frontend.c.libclang import binary_operator, unary_operator
from synth.frontend.c.loops import LoopTranslator
from synth.frontend.c.model import (
    Binding,
    Demote,
    expr_children,
    NotAffine,
    only_child,
    Refuse,
    strip_casts,
    c_text,
    View,
    for_parts,
)
from synth.frontend.c.poly import Poly, sign
from synth.frontend.c.scalars import SCALARS, is_int, unsigned

_CMP = ("<", "<=", ">", ">=", "==", "!=")


@dataclass
class _Count:
    """A counting loop: its parts, the variables it moves ((key, binding, [effect of each
    part in evaluation order])), and its condition at iteration t as `a - b * t > 0`."""

    do: bool
    cond: object
    body: object
    moves: list
    a: Poly
    b: int
    counter: object  # the binding of the counter
    nonneg: bool = False  # the count is known (or assumed) to be at least 0


def _combine(effs: list) -> tuple:
    state = ("inc", Poly())
    for kind, d in effs:
        if kind == "set":
            state = ("set", None)
        elif state[0] == "inc":
            state = ("inc", state[1] + d)
    return state


def _shift(v, d: Poly):
    if v is None:
        return None
    if isinstance(v, View):
        return View(v.base, v.offset + d, v.dims, v.unit, v.in_bytes)
    return v + d


def _parts(s) -> tuple:
    """(body, condition) of a while / do loop, or of a for loop that counts as a while
    loop (its body: the statement and the increment, if any)."""
    kids = [k for k in s.get_children()]
    if s.kind == CK.FOR_STMT:
        _, cond, inc, body = for_parts(s)
        return [body] + ([inc] if inc is not None else []), cond
    if len(kids) != 2:
        raise Refuse(s, f"'{_keyword(s)}' loop without a condition and a body")
    return (kids[0], kids[1]) if s.kind == CK.DO_STMT else (kids[1], kids[0])


def _keyword(s) -> str:
    return {CK.DO_STMT: "do", CK.FOR_STMT: "for"}.get(s.kind, "while")


def _order(s) -> list:
    """The parts of a loop's iteration, in the order they run."""
    body, cond = _parts(s)
    if s.kind == CK.DO_STMT:
        return [body, cond]
    return [cond, *body] if s.kind == CK.FOR_STMT else [cond, body]


class CountedTranslator(LoopTranslator):
    """`while` and `do` loops of one function."""

    def counted_stmt(self, s) -> None:
        if s.kind == CK.FOR_STMT:  # `for (init; cond; inc) body`: init, then a while loop
            init = for_parts(s)[0]
            if init is not None:  # else the counter counts from its value before the loop
                self.stmt(init)
        body, cond = _parts(s)
        if self._foldable(cond) and self.const_int(cond) == 0:
            if s.kind == CK.DO_STMT:  # `do { ... } while (0)`: the body once
                self.stmt(body)
            return
        cnt = self._count(s)
        entry = {key: self.ivals.get(key) for key, _, _ in cnt.moves}
        a, b = cnt.a, cnt.b
        m = self._ceil(a, b, s)  # ceil(a / b) as a polynomial, or None
        start = self._counts_up(cnt, entry)
        if start is not None:  # `for (; i < n; i += b)`: the loop runs over i's values
            hi = start + a.plus(-1) if b > 1 else start + m.plus(-1)
            self._emit(s, cnt, entry, self.bound(start + a, s), hi, start)
            trips = m
        elif not cnt.do:
            bound = self.bound(a.plus(b - 1), s, floordiv=b) if b > 1 else self.bound(a, s)
            self._emit(s, cnt, entry, bound, m.plus(-1) if m is not None else None)
            trips = m
        elif cnt.nonneg or self._nonnegative(a.plus(b - 1)):
            bound = (self.bound(a.plus(b - 1), s, floordiv=b, plus=1) if b > 1
                     else self.bound(a.plus(1), s))
            self._emit(s, cnt, entry, bound, m)
            trips = m.plus(1) if m is not None else None
        else:  # the body runs ceil(a / b) + 1 times where that is at least 1, else once
            ops, cs = self.constraints([(a.plus(b - 1), False)], s)
            self.body.append("  " * self.indent + f"affine.if affine_set<{ops.header()} : ({cs})>"
                             f"{ops.uses()} {{")
            self.indent += 1
            bound = (self.bound(a.plus(b - 1), s, floordiv=b, plus=1) if b > 1
                     else self.bound(a.plus(1), s))
            self._emit(s, cnt, entry, bound, m)
            self.indent -= 1
            self.body.append("  " * self.indent + "} else {")
            self.indent += 1
            self._emit(s, cnt, entry, "1", Poly())
            self.indent -= 1
            self.body.append("  " * self.indent + "} " + self.loc(s))
            trips = None
        for key, v, effs in cnt.moves:
            total = _combine(effs)
            after = None
            if total[0] == "inc" and trips is not None:
                after = self._advance(entry[key], total[1], (trips, 1), v.name, s)
                if not cnt.do:  # the condition runs once more, and fails
                    after = _shift(after, effs[0][1]) if effs[0][0] == "inc" else None
                if v is cnt.counter and unsigned(v.type) and total[1].const < 0:
                    after = None  # it may wrap around below zero in that last evaluation
            self.ivals[key] = after
            if after is not None and not cnt.do and not cnt.nonneg and not self._nonnegative(a):
                from synth.frontend.c.layout import render

                self.assume(f"{render(a, self.symbol_names())} >= 0 (where the values after the "
                            f"'while' loop at line {s.location.line} are read: they count its "
                            f"iterations as that, not as 0 where it is negative)")

    def _counts_up(self, cnt: _Count, entry: dict) -> Poly | None:
        """The counter's value at the entry of a `while` loop whose condition compares it
        (unchanged) and whose iteration adds 1 to it (`for (; i < n; i++)` after a main
        loop): the loop then runs over the counter's values (`affine.for %i = start to
        n`, as a `for` loop from `start` would) rather than over 0 .. count - 1."""
        if cnt.do or cnt.counter is None:
            return None
        if any(_combine(effs)[0] == "inc" and _combine(effs)[1].content() % cnt.b
               for _, _, effs in cnt.moves):
            return None  # something advances by less than the step (as a `for` loop: counted)
        for key, v, effs in cnt.moves:
            if v is cnt.counter and isinstance(entry.get(key), Poly) and effs[0] == ("inc", Poly()) \
                    and _combine(effs) == ("inc", Poly.number(cnt.b)):
                return entry[key]
        return None

    def _emit(self, s, cnt: _Count, entry: dict, bound: str, hi, start: Poly | None = None) -> None:
        """One `affine.for` over the iterations (or over the counter's values from
        `start`), the body with the moved variables at their values at the start of the
        body."""
        iv = self.fresh("i")
        dim = Poly.var("d", iv)
        t = (dim, 1) if start is None else (dim - start, cnt.b)
        for key, v, effs in cnt.moves:
            self.ivals[key] = self._at(entry[key], effs, t, v.name, s, not cnt.do)
        self.set_range(("d", iv), Poly() if start is None else start, hi)
        if start is None:
            self.dim_names[("d", iv)] = f"(the iteration count of the loop at line {s.location.line})"
        head = "0" if start is None else self.bound(start, s)
        step = f" step {cnt.b}" if start is not None and cnt.b > 1 else ""
        self.body.append("  " * self.indent + f"affine.for {iv} {self.loc(s)} = {head} to {bound}{step} {{")
        self.indent += 1
        body = cnt.body  # a for loop's: [statement, increment]
        try:
            self.stmt([jumps.loop_body(body[0]), *body[1:]] if isinstance(body, list)
                      else jumps.loop_body(body))
        finally:
            self.indent -= 1
            self.ranges.pop(("d", iv), None)
        self.body.append("  " * self.indent + "} " + self.loc(s))

    def _at(self, start, effs: list, iteration, name: str, s, after_first: bool):
        """A moved variable's value in iteration t, at its start or, `after_first`, after
        the first part (the condition of a while loop, the body of a do loop)."""
        total = _combine(effs)
        if total[0] != "inc" or start is None:
            return None
        v = self._advance(start, total[1], iteration, name, s)
        if not after_first:
            return v
        return _shift(v, effs[0][1]) if effs[0][0] == "inc" else None

    # --- the count ----------------------------------------------------------------------

    def _count(self, s) -> _Count:
        """The loop's variables and its condition as `a - b * t > 0`; Refuse otherwise."""
        kw = _keyword(s)
        body, cond = _parts(s)
        moves = self._moves(s, _order(s))
        read = {k.referenced.hash for k in cond.walk_preorder()
                if k.kind == CK.DECL_REF_EXPR and k.referenced is not None}
        for key, v, effs in moves:
            if key in read and _combine(effs)[0] != "inc":
                raise Refuse(s, f"'{kw}' loop that does not count: '{v.name}', which its condition "
                                 f"'{c_text(cond)}' reads, does not advance by the same amount in "
                                 f"every iteration (only loops that count are static control)")
        iv = self.fresh("t")
        dim = Poly.var("d", iv)
        saved = dict(self.ivals)
        try:
            for key, v, effs in moves:
                self.ivals[key] = self._at(saved.get(key), effs, (dim, 1), v.name, s,
                                           s.kind == CK.DO_STMT)
            diff, op, sides = self._comparison(s, cond, kw)
        finally:
            self.ivals.clear()
            self.ivals.update(saved)
        k = diff.terms.get((("d", iv),), 0)
        e0 = diff - Poly.var("d", iv).scale(k)
        if any(("d", iv) in mono for mono in e0.terms):
            raise Refuse(cond, f"'{kw}' loop condition '{c_text(cond)}' multiplies the iteration "
                                f"by a size: not a counting loop")
        if k == 0:
            raise Refuse(cond, f"'{kw}' loop condition '{c_text(cond)}' does not change from one "
                                f"iteration to the next: no counter that advances by a constant "
                                f"(a loop that counts is static control; one that waits for data "
                                f"is not)")
        if op == ">" and k < 0:
            a, b = e0, -k
        elif op == ">=" and k < 0:
            a, b = e0.plus(1), -k
        elif op == "<" and k > 0:
            a, b = e0.scale(-1), k
        elif op == "<=" and k > 0:
            a, b = e0.scale(-1).plus(1), k
        elif op == "!=" and abs(k) == 1:
            a, b = (e0 if k < 0 else e0.scale(-1)), 1
        elif op == "!=":
            raise Refuse(cond, f"'{kw}' loop condition '{c_text(cond)}': the counter steps by "
                                f"{abs(k)} and can step over the value that ends the loop")
        else:
            raise Refuse(cond, f"'{kw}' loop condition '{c_text(cond)}': the counter does not "
                                f"move toward the value that ends the loop (the loop runs "
                                f"never or forever)")
        counter = self._counter(moves, cond)
        down = self._no_wrap(cond, kw, sides, op, iv, counter)
        do = s.kind == CK.DO_STMT
        # `!=` stops only where the counter meets its bound, and an unsigned counter that a
        # do loop's body counts down first wraps around below zero: the count holds where
        # the first comparison is on the right side of the bound
        start = a.plus(b - 1) if do else a
        nonneg = op == "!=" or (do and down is not None)
        if nonneg and not self._nonnegative(start) and not (op == "!=" and down is None and not do):
            from synth.frontend.c.layout import render

            self.assume(f"{render(start, self.symbol_names())} >= 0 (where the '{kw}' loop at "
                        f"line {s.location.line} counts its iterations: otherwise the counter "
                        f"{'never meets its bound' if down is None else 'wraps around'})")
        return _Count(do, cond, body, moves, a, b, counter, nonneg)

    def _moves(self, s, parts: list) -> list:
        """The integer locals and pointers the loop changes, with the effect of each part
        (in evaluation order) on them."""
        changes = evolution.modified(s)
        out = []
        for key in changes:
            v = next((x for x in self.env.values() if x.key == key and x.kind in ("index", "pointer")
                      or x.key == key and x.kind == "loopvar" and x.aff is None), None)
            if v is None:
                continue
            unit = (_stride_of(self.pointer_dims(v.ctype, s)).scale(getattr(self.ivals.get(key), "unit", 1))
                    if v.kind == "pointer" else Poly.number(1))  # (into a retyped base: bytes)
            try:
                effs = [evolution.effect(self, p, key, unit, changes) for p in parts]
            except evolution.NoClosedForm as e:
                if v.kind == "loopvar":  # not known here: read outside its loops, refused
                    out.append((key, v, [("set", None)] * len(parts)))
                    continue
                if v.kind == "index":
                    raise Demote(key, e.reason) from None
                raise Refuse(e.cursor, f"pointer '{v.name}' does not walk its array by the same "
                                        f"amount in every iteration: {e.reason}") from None
            out.append((key, v, effs))
        return out

    def _comparison(self, loop, cond, kw: str) -> tuple:
        """(x - y, op, (x, y, x's cursor)) of the condition `x op y` (`n` alone: n != 0),
        evaluated at the iteration (with its side effects: `n--`)."""
        c = strip_casts(cond)
        try:
            if c.kind == CK.BINARY_OPERATOR and binary_operator(c) in _CMP:
                l, r = expr_children(c)
                x = self.affine(l)
                y = self.affine(r)
                return x - y, binary_operator(c), (x, y, l)
            if c.kind == CK.UNARY_OPERATOR and unary_operator(c) == "!":
                x = self.affine(only_child(c))
                return x, "==", (x, Poly(), only_child(c))
            x = self.affine(c)
            return x, "!=", (x, Poly(), c)
        except NotAffine as e:
            raise Refuse(loop, f"'{kw}' loop whose exit depends on data: its condition "
                                f"'{c_text(cond)}' is not a comparison of a counter with an affine "
                                f"bound ({e.reason}); only loops that count are static "
                                f"control") from None

    def _no_wrap(self, cond, kw: str, sides: tuple, op: str, iv: str, counter):
        """An unsigned counter (or comparison) counting down stays >= 0 only when it steps
        by one and stops at the bound (`>`, `!=`). Returns True for one counting down,
        False counting up, None where neither the counter nor the comparison is unsigned."""
        x, y, left = sides
        t = SCALARS.get(left.type.get_canonical().kind)
        if not (t is not None and unsigned(t) or counter is not None and unsigned(counter.type)):
            return None
        kx = x.terms.get((("d", iv),), 0)
        ky = y.terms.get((("d", iv),), 0)
        down = (kx < 0 and op in (">", "!=")) or (ky < 0 and op in ("<", "!="))
        if (kx < 0 or ky < 0) and not (down and abs(kx or ky) == 1):
            raise Refuse(cond, f"'{kw}' loop condition '{c_text(cond)}': an unsigned counter "
                                f"counting down can wrap around past zero before the "
                                f"comparison fails")
        return down

    @staticmethod
    def _counter(moves: list, cond):
        """The integer local the condition reads that the loop advances."""
        read = {k.referenced.hash for k in cond.walk_preorder()
                if k.kind == CK.DECL_REF_EXPR and k.referenced is not None}
        for key, v, effs in moves:
            if v.kind in ("index", "loopvar") and key in read and _combine(effs)[0] == "inc":
                return v
        return None

    def _ceil(self, a: Poly, b: int, c) -> Poly | None:
        """ceil(a / b) as a polynomial (0 where a is known to be negative); None where b > 1
        and `a` depends on loop indices."""
        s = sign(a, self.values)
        if s is not None and s < 0:
            return Poly()
        if b == 1:
            return a
        known = a.subst(self.values) if self.values else a
        if known.is_const:
            return Poly.number(-(-known.const // b))
        if a.dims():
            return None
        return self.derived_symbol(c, a.plus(b - 1), "/", b)

    def _nonnegative(self, a: Poly) -> bool:
        """`a` >= 0: at the --size values, by the affine conditions around, or as a sum of
        unsigned parameters (and their quotients by constants)."""
        s = sign(a, self.values)
        if s is not None:
            return s >= 0
        if any(not eq and (a - e).is_const and (a - e).const >= 0 for e, eq in self.facts):
            return True
        return a.const >= 0 and all(c > 0 and all(self._unsigned_symbol(v) for v in m)
                                    for m, c in a.terms.items())

    def _unsigned_symbol(self, v) -> bool:
        if v[0] != "s":
            return False
        if v[1] in self.derived:
            x, op, _, _ = self.derived[v[1]]
            return op in ("/", "%") and self._nonnegative(x)
        b = self.params.get(v[1])
        return b is not None and unsigned(b.type)

    def count_trips(self, s, sets: dict) -> Poly | None:
        """For scalar evolution over an enclosing loop: the iterations of the counting loop
        `s`, with the integer locals assigned before it in the enclosing body (`sets`:
        decl hash -> the assigned expression) at those values; None if not known."""
        saved = dict(self.ivals)
        added = []
        try:
            for h, (decl, rhs) in sets.items():
                if h not in self.env and decl is not None:  # declared in the enclosing body
                    t = SCALARS.get(decl.type.get_canonical().kind)
                    if t is None or not is_int(t) or h in self.plan.demoted:
                        continue
                    self.env[h] = Binding("index", None, t, name=decl.spelling, key=h)
                    added.append(h)
                try:
                    self.ivals[h] = self.affine(rhs, pure=True)
                except (NotAffine, Refuse):
                    self.ivals[h] = None
            cnt = self._count(s)
        except (Refuse, NotAffine):
            return None
        finally:
            self.ivals.clear()
            self.ivals.update(saved)
            for h in added:
                del self.env[h]
        m = self._ceil(cnt.a, cnt.b, s) if not cnt.a.dims() or cnt.b == 1 else None
        if m is None:
            return None
        if cnt.do:
            return m.plus(1) if cnt.nonneg or self._nonnegative(cnt.a.plus(cnt.b - 1)) else None
        return m
