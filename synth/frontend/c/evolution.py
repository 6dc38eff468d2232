"""Scalar evolution: how an integer local or a pointer changes over one iteration of a loop.

`effect` walks a loop's body in evaluation order and returns ("inc", D) when the variable
advances by the same amount D in every iteration (`j++`, `k += 2`, `p_b += Z`, `*p++ = ...`,
or a nested loop doing so a fixed number of times), or ("set", None) when the body assigns
it before anything else can have used its earlier value being different (`p = &A[i * Y]`:
it is followed within the iteration; so is a variable no iteration reads before it sets
it, whatever changes it later). The same change on both sides of an `if` is the change.
Anything else (a change under a condition that differs between the sides, an amount that
depends on the iteration, a change inside a loop whose trip count does) is a
`NoClosedForm` with the reason. The translator then knows the variable at the start of
iteration t (`V0 + t * D`) and after the loop (`V0 + T * D`) as closed forms."""

from __future__ import annotations

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c import jumps
from synth.frontend.c.libclang import binary_operator, unary_operator
from synth.frontend.c.model import expr_children, NotAffine, Refuse, strip_casts, c_text, for_parts
from synth.frontend.c.poly import Poly

_STEPS = ("post++", "post--", "pre++", "pre--")


class NoClosedForm(Exception):
    def __init__(self, cursor, reason: str):
        super().__init__(reason)
        self.cursor, self.reason = cursor, reason


def target(e):
    """The declaration an assignment / increment changes (a plain name), else None."""
    lhs = None
    if e.kind == CK.BINARY_OPERATOR and binary_operator(e) == "=" or e.kind == CK.COMPOUND_ASSIGNMENT_OPERATOR:
        lhs = expr_children(e)[0]
    elif e.kind == CK.UNARY_OPERATOR and unary_operator(e) in _STEPS:
        lhs = expr_children(e)[0]
    if lhs is None:
        return None
    lhs = strip_casts(lhs)
    if lhs.kind == CK.DECL_REF_EXPR and lhs.referenced is not None:
        return lhs.referenced.hash
    return None


def modified(c) -> set:
    """Declarations assigned or stepped anywhere under `c` (a cursor, a list of them, or a
    jumps.Branch)."""
    if isinstance(c, list):
        return set().union(*(modified(x) for x in c))
    if isinstance(c, jumps.Branch):
        return modified(c.cond) | modified(c.then) | modified(c.other)
    return {h for k in c.walk_preorder() if (h := target(k)) is not None}


def mentions(c, decls: set) -> bool:
    """Whether `c` (a cursor, a list of them, or a jumps.Branch) names one of `decls`."""
    if c is None:
        return False
    if isinstance(c, list):
        return any(mentions(x, decls) for x in c)
    if isinstance(c, jumps.Branch):
        return mentions(c.cond, decls) or mentions(c.then, decls) or mentions(c.other, decls)
    return _mentions(c, decls)


def _mentions(c, decls: set) -> bool:
    return any(k.kind == CK.DECL_REF_EXPR and k.referenced is not None
               and k.referenced.hash in decls for k in c.walk_preorder())


class _Walk:
    def __init__(self, tr, key, unit: Poly, loop_changes: set):
        self.tr, self.key, self.unit = tr, key, unit
        self.changes = loop_changes  # declarations the loop changes: not invariant
        self.state = ("inc", Poly())
        self.sets = {}  # integer locals assigned in the walked body so far -> expression

    def touches(self, c) -> bool:
        return self.key in modified(c)

    def invariant(self, e) -> Poly:
        if _mentions(e, self.changes):
            raise NoClosedForm(e, f"'{c_text(e)}' changes in the loop")
        try:
            p = self.tr.affine(e, pure=True)
        except (NotAffine, Refuse) as err:
            raise NoClosedForm(e, f"'{c_text(e)}' is not an affine value that stays the same in "
                                  f"every iteration ({getattr(err, 'reason', None) or err.message})") from None
        if any(d[1].startswith("#") for d in p.dims()):
            raise NoClosedForm(e, f"'{c_text(e)}' depends on the iteration")
        return p

    def add(self, d: Poly) -> None:
        if self.state[0] == "inc":
            self.state = ("inc", self.state[1] + d)

    def _record(self, s) -> None:
        """`x = e` (or `int x = e`): what a counting loop after it may count from; any
        other change of a variable forgets what it was assigned."""
        for h in modified(s):
            self.sets.pop(h, None)
        if s.kind == CK.DECL_STMT:
            for d in s.get_children():
                init = [ch for ch in d.get_children() if ch.kind.is_expression()]
                if d.kind == CK.VAR_DECL and init:
                    self.sets[d.hash] = (d, init[-1])
            return
        e = strip_casts(s) if s.kind.is_expression() else None
        if e is not None and e.kind == CK.BINARY_OPERATOR and binary_operator(e) == "=":
            h = target(e)
            if h is not None:
                self.sets[h] = (None, expr_children(e)[1])

    def stmt(self, s) -> None:
        if isinstance(s, list):
            for x in s:
                self.stmt(x)
            return
        if isinstance(s, jumps.Branch):
            for h in modified(s):
                self.sets.pop(h, None)
            if self.touches(s):
                self.branches(s.cond, s.then, s.other)
            return
        simple = s.kind == CK.DECL_STMT or s.kind.is_expression()
        if simple:
            self._record(s)
        try:
            self._stmt(s)
        finally:
            if not simple and s.kind != CK.COMPOUND_STMT:  # a loop or an if: forgets
                for h in modified(s):
                    self.sets.pop(h, None)

    def _stmt(self, s) -> None:
        k = s.kind
        if not self.touches(s) or self.state[0] == "set":  # after a set, the translator follows it
            return
        if k == CK.COMPOUND_STMT:
            for ch in s.get_children():
                self.stmt(ch)
        elif k == CK.DECL_STMT:
            for d in s.get_children():
                for ch in d.get_children():
                    if ch.kind.is_expression():
                        self.expr(ch)
        elif k == CK.FOR_STMT:
            self.loop(s)
        elif k in (CK.WHILE_STMT, CK.DO_STMT):
            self.counted(s)
        elif k == CK.IF_STMT:
            kids = [k for k in s.get_children() if not k.kind.is_declaration()]
            self.branches(kids[0], kids[1], kids[2] if len(kids) > 2 else None)
        elif k.is_expression():
            self.expr(s)
        else:
            raise NoClosedForm(s, f"it changes in a '{k.name.lower()}'")

    def branches(self, cond, then, other) -> None:
        """An `if`: each branch walked from here; the same change on both sides is the
        change (`if (c) *p++ = x; else *p++ = 0;`), any other a NoClosedForm."""
        if self.touches(cond):
            raise NoClosedForm(cond, "it changes in a condition")
        outs = []
        for branch in (then, other):
            w = _Walk(self.tr, self.key, self.unit, self.changes)
            w.sets, w.state = dict(self.sets), self.state
            if branch is not None:
                w.stmt(branch)
            outs.append(w.state)
        if outs[0] != outs[1]:
            raise NoClosedForm(cond, "it changes under a condition, not the same way on both "
                                     "sides, or before a 'continue'")
        self.state = outs[0]

    def loop(self, s) -> None:
        parts = for_parts(s)
        if parts is None:
            raise NoClosedForm(s, "it changes in a 'for' loop whose header is not read")
        init, cond, inc, body = parts
        inner = _Walk(self.tr, self.key, self.unit, self.changes)
        inner.sets = dict(self.sets)
        if not self.tr.affine_for(s):  # a for loop that counts as a while
            if init is not None:
                self.stmt(init)  # recorded: the count may start from it
            return self.counted(s)
        for ch in (init, cond):  # evaluated outside the body's walk
            if ch is not None and self.touches(ch):
                if ch is init:
                    self.stmt(ch) if not ch.kind.is_expression() else self.expr(ch)
                    continue
                raise NoClosedForm(ch, "it changes in a loop header")
        inner.stmt(jumps.loop_body(body))
        if inc is not None and self.touches(inc):  # `i++, p += incx`: after the body
            inner.expr(inc)
        if inner.state[0] == "set":
            self.state = ("set", None)
            return
        d = inner.state[1]
        if d == Poly():
            return
        if init is not None and cond is not None and cond.kind.is_expression():
            own = set(modified(init)) | {d.hash for d in init.get_children() if d.kind == CK.VAR_DECL}
            self._entry_known(s, cond, own)
        trips = self.tr.trip_count(s)
        if trips is None or any(v[1].startswith("#") for v in trips.dims()):
            raise NoClosedForm(s, "it changes in a loop whose number of iterations is not the same "
                                  "in every iteration of the enclosing one")
        self.add(trips * d)

    def _entry_known(self, s, header, own: set) -> None:
        """NoClosedForm unless the inner loop `s`'s count, read from `header` (its condition,
        the variables in it other than `own`), is the same expression at every iteration of
        the enclosing loop: a variable that loop changes counts only if assigned in this
        iteration from values it does not change (the count is read from values before the
        enclosing loop: `while (k <= i)` under an outer `i++` would be read at i's entry)."""
        for ref in header.walk_preorder():
            if ref.kind != CK.DECL_REF_EXPR or ref.referenced is None:
                continue
            h = ref.referenced.hash
            if h not in self.changes or h in own:
                continue
            if h in self.sets and not _mentions(self.sets[h][1], self.changes):
                continue
            raise NoClosedForm(s, f"it changes in a loop whose number of iterations depends on "
                                  f"'{ref.spelling}', which the enclosing loop changes")

    def counted(self, s) -> None:
        """A while / do loop inside: its condition and body per iteration, times its
        iterations (synth.frontend.c.counted), and a while loop's last, failing condition."""
        kids = list(s.get_children())
        do = s.kind == CK.DO_STMT
        inc = None
        if s.kind == CK.FOR_STMT:
            _, cond, inc, body = for_parts(s)
        else:
            body, cond = (kids[0], kids[1]) if do else (kids[-1], kids[0])
        wc = _Walk(self.tr, self.key, self.unit, self.changes)
        wc.expr(cond)
        wb = _Walk(self.tr, self.key, self.unit, self.changes)
        wb.sets = dict(self.sets)
        wb.stmt(jumps.loop_body(body))
        if inc is not None:  # a for loop's increment, after the body
            wb.expr(inc)
        if "set" in (wc.state[0], wb.state[0]):
            self.state = ("set", None)
            return
        per = wc.state[1] + wb.state[1]
        if per == Poly():
            return
        self._entry_known(s, cond, set())
        trips = self.tr.count_trips(s, self.sets)
        if trips is None or any(v[1].startswith("#") for v in trips.dims()):
            raise NoClosedForm(s, "it changes in a loop whose number of iterations is not known "
                                  "at its entry, or not the same in every iteration of the "
                                  "enclosing one")
        self.add(trips * per + (wc.state[1] if not do else Poly()))

    def expr(self, e) -> None:
        e = strip_casts(e) if e.kind in (CK.PAREN_EXPR, CK.UNEXPOSED_EXPR) else e
        if not self.touches(e) or self.state[0] == "set":
            return
        k = e.kind
        if k == CK.CONDITIONAL_OPERATOR or (k == CK.BINARY_OPERATOR and binary_operator(e) in ("&&", "||")):
            raise NoClosedForm(e, "it changes under a condition")
        hit = target(e) == self.key
        if k == CK.BINARY_OPERATOR and binary_operator(e) == "=" and hit:
            d = self._self_step(expr_children(e)[1])
            if d is not None:  # `p = p + k`, OpenCV's `src = (const float *)((const uchar *)src + step)`
                self.add(d)
                return
            self.expr(expr_children(e)[1])
            self.state = ("set", None)
            return
        if k == CK.COMPOUND_ASSIGNMENT_OPERATOR and hit:
            op = binary_operator(e)
            rhs = expr_children(e)[1]
            if op not in ("+=", "-="):
                raise NoClosedForm(e, f"'{c_text(e)}' is not an increment")
            self.expr(rhs)
            self.add(self.invariant(rhs).scale(1 if op == "+=" else -1) * self.unit)
            return
        if k == CK.UNARY_OPERATOR and unary_operator(e) in _STEPS and hit:
            self.add(self.unit.scale(1 if unary_operator(e).endswith("++") else -1))
            return
        for ch in e.get_children():
            if ch.kind.is_expression():
                self.expr(ch)


    def _self_step(self, rhs) -> Poly | None:
        """The advance of `p = p + k` (through casts: `(float *)((char *)p + step)`, a
        step in bytes) in the pointer's offset units, or None where `rhs` is not the
        pointer itself moved by an invariant amount."""
        from synth.frontend.c.bytes import ARRAYS, BYTES
        from synth.frontend.c.scalars import SCALARS

        r = _through_casts(rhs)
        if r.kind != CK.BINARY_OPERATOR or binary_operator(r) not in ("+", "-"):
            return None
        a, b = expr_children(r)
        ptr, num = (a, b) if a.type.get_canonical().kind in (TK.POINTER, *ARRAYS) else (b, a)
        p = _through_casts(ptr)
        if p.kind != CK.DECL_REF_EXPR or p.referenced is None or p.referenced.hash != self.key \
                or (ptr is b and binary_operator(r) == "-") or _mentions(num, {self.key}):
            return None
        v = self.tr.ivals.get(self.key)
        if v is None or not hasattr(v, "base"):
            return None
        d = self.invariant(num).scale(1 if binary_operator(r) == "+" else -1)
        pointee = ptr.type.get_canonical().get_pointee().get_canonical()
        if SCALARS.get(pointee.kind) not in BYTES:  # `p = p + 2`: as `p += 2`
            return d * self.unit
        if v.base.retyped or v.base.type in BYTES:  # offsets in bytes already
            return d
        return self.tr.elements(d, v.base.type, v.base, rhs)


def _through_casts(c):
    """`c` without parentheses, implicit casts and C-style casts (pointer conversions)."""
    while True:
        c = strip_casts(c)
        if c.kind != CK.CSTYLE_CAST_EXPR:
            return c
        c = expr_children(c)[-1]


def effect(tr, body, key, unit: Poly, loop_changes: set) -> tuple:
    """("inc", D) or ("set", None) of the variable declared `key` over one run of `body`
    (`unit`: what `++` adds: 1, or a pointer's stride); NoClosedForm otherwise."""
    w = _Walk(tr, key, unit, loop_changes)
    try:
        if isinstance(body, list) or not body.kind.is_expression():
            w.stmt(jumps.loop_body(body) if not isinstance(body, list) else body)
        else:
            w.expr(body)
    except NoClosedForm:
        if not _live_at_entry(body, key):  # set before any use in every iteration
            return ("set", None)
        raise
    return w.state


def _live_at_entry(body, key) -> bool:
    """Whether a run of `body` may read the variable `key` before it sets it (its value
    from the iteration before). Conservative: an assignment counts only as a whole
    statement `key = e` (or a declaration), and a loop's body may not run."""
    return _live(jumps.loop_body(body) if not isinstance(body, list) else body, key, False)[0]


def _reads(c, key) -> bool:
    return any(k.kind == CK.DECL_REF_EXPR and k.referenced is not None and k.referenced.hash == key
               for k in c.walk_preorder())


def _live(s, key, defined: bool) -> tuple:
    """(read before set, set after) of `s` run with `key` set already or not."""
    if isinstance(s, list) or s is None:
        live = False
        for x in s or []:
            r, defined = _live(x, key, defined)
            live = live or r
        return live, defined
    if isinstance(s, jumps.Branch):
        return _branches(s.cond, s.then, s.other, key, defined)
    k = s.kind
    if k == CK.COMPOUND_STMT:
        return _live(list(s.get_children()), key, defined)
    if k == CK.IF_STMT:
        kids = [x for x in s.get_children() if not x.kind.is_declaration()]
        return _branches(kids[0], kids[1], kids[2] if len(kids) > 2 else None, key, defined)
    e = strip_casts(s) if k.is_expression() else None
    if e is not None and e.kind == CK.BINARY_OPERATOR and binary_operator(e) == "=" and target(e) == key:
        return (not defined and _reads(expr_children(e)[1], key)), True
    if k in (CK.FOR_STMT, CK.WHILE_STMT, CK.DO_STMT):  # the body may run never, or again
        return (not defined and _reads(s, key)), defined
    return (not defined and _reads(s, key)), defined


def _branches(cond, then, other, key, defined: bool) -> tuple:
    if not defined and _reads(cond, key):
        return True, defined
    a = _live(list(then.get_children()) if not isinstance(then, list) and then.kind == CK.COMPOUND_STMT
              else then, key, defined)
    b = _live(other, key, defined) if other is not None else (False, defined)
    return a[0] or b[0], a[1] and b[1]
