"""Fifth layer of the function translator: `for` loops as `affine.for` (up or down, with
affine bounds and constant steps), their trip counts, the ranges of their indices, and
the integer locals and pointers that advance in them, in the body or beside the index in
the header (`for (i = 0, ix = kx; i < n; i++, ix += incx)`; synth.frontend.c.evolution:
each gets its closed form at the start of every iteration and after the loop); the index
itself holds `lb + step * trips` after the loop (read by the tail of an unrolled loop,
`for (; i < n; i++)`). A `for` loop of another shape, or without an initialisation or an
increment, counts as a `while` loop (synth.frontend.c.counted). The body's
statements are translated by the layer above (`stmt`), without `continue`
(synth.frontend.c.jumps)."""

from __future__ import annotations

from clang.cindex import CursorKind as CK

from synth.frontend.c import evolution, jumps, layout
from synth.frontend.c.extremes import extremum
from synth.frontend.c.access import stride as _stride_of
from synth.frontend.c.expressions import ExprTranslator
from synth.frontend.c.libclang import binary_operator, unary_operator
from synth.frontend.c.model import (
    Demote,
    expr_children,
    NotAffine,
    only_child,
    Operands,
    Refuse,
    render_poly,
    strip_casts,
    c_text,
    View,
    for_parts,
)
from synth.frontend.c.poly import Poly

_MARK = Poly.var("d", "#iteration")  # a loop's index while its body is analysed
_RELATIONS = ("<", "<=", ">", ">=")


def increments(inc) -> list:
    """The parts of a `for` loop's increment: `i++, p += incx` -> [i++, p += incx]."""
    s = strip_casts(inc)
    if s.kind == CK.BINARY_OPERATOR and binary_operator(s) == ",":
        a, b = expr_children(s)
        return increments(a) + increments(b)
    return [inc]


def is_affine_for(s) -> bool:
    """A `for` loop read as an `affine.for` over its index: a comparison bounding the
    index (`i < ub`, `i >= 0` ...) and an increment that steps it, with other counters and
    pointers beside it (`i++, p += incx`). Other `for` loops (`for (c = n; c--; p += k)`,
    `for (k = n; k; k--)`, and those without an initialisation or an increment, whose
    counter starts from its value before the loop: `for (; i < n; i++)`,
    `for (; height--; src += sstep)`) count as `while` loops do
    (synth.frontend.c.counted); one without a condition is refused."""
    parts = for_parts(s)
    if parts is None or parts[1] is None:
        return True
    init, cond, inc, _ = parts
    if init is None or inc is None:
        return False
    var = _index_decl(init, inc, cond)[0]
    if var is None:
        return True
    return _bounding(strip_casts(cond)) and var.hash in evolution.modified(inc)


def _bounding(cond) -> bool:
    """A comparison, or comparisons joined by `&&` (`j < n && j < i + B`: a min)."""
    if cond.kind != CK.BINARY_OPERATOR:
        return False
    if binary_operator(cond) == "&&":
        return all(_bounding(strip_casts(k)) for k in expr_children(cond))
    return binary_operator(cond) in _RELATIONS


def _index_decl(init, inc, cond=None) -> tuple:
    """(the declaration of the index, its initial value, the other parts) of a for loop's
    initialisation (`i = lb`, `int i = lb`; beside others: `i = 0, ix = kx`, `int i = 0,
    ix = kx`, where the index is the one the increment steps and the condition reads);
    (None, None, [])."""
    if init.kind == CK.DECL_STMT:
        parts = [(d, ([k for k in d.get_children() if k.kind != CK.TYPE_REF
                       and k.kind.is_expression()] or [None])[-1])
                 for d in init.get_children() if d.kind == CK.VAR_DECL]
    else:
        parts = []
        for p in increments(init):
            e = strip_casts(p)
            lhs = strip_casts(expr_children(e)[0]) if e.kind == CK.BINARY_OPERATOR and binary_operator(e) == "=" else None
            if lhs is None or lhs.kind != CK.DECL_REF_EXPR or lhs.referenced is None:
                return None, None, []
            parts.append((lhs.referenced, expr_children(e)[1], p))
    if len(parts) > 1:
        stepped = evolution.modified(inc)
        read = {k.referenced.hash for k in cond.walk_preorder() if k.kind == CK.DECL_REF_EXPR
                and k.referenced is not None} if cond is not None else set()
        mine = [p for p in parts if p[0].hash in stepped and p[0].hash in read]
        if len(mine) != 1:
            return None, None, []
        return mine[0][0], mine[0][1], [p for p in parts if p is not mine[0]]
    return (parts[0][0], parts[0][1], []) if parts else (None, None, [])


class LoopTranslator(ExprTranslator):
    """Loops of one function."""

    affine_for = staticmethod(is_affine_for)

    # --- loops --------------------------------------------------------------------------

    def _loop_var(self, s, quiet: bool = False):
        """The declaration of a for loop's index, from its initialisation."""
        kids = list(s.get_children())
        if len(kids) != 4:
            if quiet:
                return None
            raise Refuse(s, f"'for' loop without {_missing_parts(s)} is not static control (a "
                             f"loop's index is read from its initialisation, condition and increment)")
        init = kids[0]
        var = _index_decl(init, kids[2], kids[1])[0]
        if var is not None:
            return var
        if quiet:
            return None
        raise Refuse(init, "'for' loop initialisation must assign one integer index "
                            "('i = lb' or 'int i = lb')")

    def header(self, s):
        """(index binding, lower bounds, step, bounds, comparison) of a for loop: each
        bound a list of polynomials, one where C writes an affine value, several where it
        writes a lower bound through max or a bound through min (synth.frontend.c.extremes:
        the loop runs from their max to their min)."""
        var = self._loop_var(s)
        init, cond, inc, _ = s.get_children()
        b = self.env.get(var.hash)
        if b is None and init.kind == CK.DECL_STMT:
            self.declare(var)
            b = self.env[var.hash]
        if b is None or b.kind != "loopvar":
            raise Refuse(init, f"'{var.spelling}' cannot be a loop index (a parameter, global or "
                                f"pointer)")
        if b.aff is not None:
            raise Refuse(init, f"loop index '{b.name}' of an enclosing loop is reassigned")
        lb_expr = _index_decl(init, inc, cond)[1]
        if lb_expr is None:
            raise Refuse(init, f"loop index '{b.name}' has no initial value")
        step = self._step(inc, var, b.name)
        if step > 0:
            try:
                lbs = extremum(self, lb_expr, "max")
            except NotAffine as e:
                raise Refuse(e.cursor, f"loop lower bound '{c_text(lb_expr)}' is not affine: "
                                        f"{e.reason} (data-dependent bounds are not static "
                                        f"control)") from None
        else:
            lbs = [self._affine_or_refuse(lb_expr, "loop lower bound")]
        bounds, cmp = self._condition(cond, b)
        return b, lbs, step, bounds, cmp

    def _single(self, lbs: list, bounds: list, step: int):
        """(lower bound, bound) of a loop where each is one value (or their operands are
        constants at --size); None where the loop runs between a max and a min."""
        if len(lbs) == 1 and len(bounds) == 1:
            return lbs[0], bounds[0]
        lo, hi = [p.subst(self.values) for p in lbs], [p.subst(self.values) for p in bounds]
        if not all(p.is_const for p in lo + hi):
            return None
        pick = min if step > 0 else max  # the bound: a min above, a max below
        return (Poly.number(max(p.const for p in lo)),
                Poly.number(pick(p.const for p in hi)))

    def trip_count(self, s) -> Poly | None:
        """The number of iterations of a loop (a polynomial), if it has that form."""
        try:
            b, lbs, step, bounds, cmp = self.header(s)
        except (Refuse, NotAffine):
            return None
        single = self._single(lbs, bounds, step)
        if single is None:
            return None
        lb, bound = single
        if step > 0:
            span = (bound.plus(1) if cmp == "<=" else bound) - lb
        else:
            span = lb - (bound.plus(1) if cmp == ">" else bound)
            step = -step
            span = span.plus(1)
            if step == 1:
                return span
        if step == 1:
            return span
        known = span.subst(self.values)
        if known.is_const:
            return Poly.number(max(0, -(-known.const // step)))
        if span.dims():
            return None
        # ceil(span / step) of sizes: an index symbol computed at the entry (C truncates,
        # which is the ceiling where span > -step, as the count is taken where span >= 0)
        return self.derived_symbol(s, span.plus(step - 1), "/", step)

    def _index_after(self, s, b, lb: Poly, step: int) -> None:
        """After the loop, its index holds lb + step * trips: read past the loop (the tail
        of an unrolled loop, `for (; i < n; i++)`) as an integer local, where known."""
        trips = self.trip_count(s)
        self.ivals[b.key] = lb + trips.scale(step) if trips is not None else None
        self.after_notes.pop(b.key, None)
        _, lbs, _, bounds, cmp = self.header(s)
        single = self._single(lbs, bounds, step)
        if single is None:
            return
        bound = single[1]
        if step > 0:  # the count taken as ceil(span / step): right where span + step - 1 >= 0
            span = (bound.plus(1) if cmp == "<=" else bound) - lb
        else:
            span = lb - (bound.plus(1) if cmp == ">" else bound)
        least = span.plus(abs(step) - 1)
        if trips is not None and not self._nonnegative_here(least):
            self.after_notes[b.key] = (
                f"{layout.render(least, self.symbol_names())} >= 0 (where '{b.name}' is read "
                f"after the loop at line {s.location.line}: its final value counts the loop's "
                f"iterations as that, not as 0 where it is negative)")

    def for_stmt(self, s) -> None:
        kids = list(s.get_children())
        for other in (_index_decl(kids[0], kids[2], kids[1])[2] if len(kids) == 4 else []):
            # `i = 0, ix = kx` / `int i = 0, ix = kx`: the parts beside the index, in order
            self.declare(other[0]) if len(other) == 2 else self.expr_stmt(other[2])
        var = self._loop_var(s)
        self.open_loops[var.hash] = s
        try:
            self._for_stmt(s, var)
        finally:
            self.open_loops.pop(var.hash, None)

    def _for_stmt(self, s, var) -> None:
        b, lbs, step, bounds, cmp = self.header(s)
        lb = lbs[0]
        body = list(s.get_children())[-1]
        moving = self._moving(s, b)
        followed = {key for key, _, _ in moving}
        if len(lbs) > 1 and any(kind == "inc" for _, _, (kind, _) in moving):
            raise Refuse(s, f"a local or pointer advances in a loop whose lower bound is a max "
                             f"('{c_text(list(s.get_children())[0])}'): its value in an "
                             f"iteration has no affine form")
        for part in increments(list(s.get_children())[2]):
            h = evolution.target(strip_casts(part))
            if var.hash not in evolution.modified(part) and h not in followed:
                raise Refuse(part, f"loop increment '{c_text(part)}' beside '{b.name}' must "
                                    f"advance an integer local or a pointer by a constant or a "
                                    f"size that the loop does not change")
        iv = self.fresh("i")
        var = list(s.get_children())[0]
        dim = Poly.var("d", iv)
        if step > 0:
            if cmp not in ("<", "<="):
                raise Refuse(s, f"condition does not bound the increasing index '{b.name}' from above")
            ubs = [x.plus(1) if cmp == "<=" else x for x in bounds]
            if any(kind == "inc" and d.content() % step for _, _, (kind, d) in moving):
                # a local advancing by less than the step: the loop counts iterations t,
                # i = lb + step * t
                head = (f"affine.for {iv} {self.loc(var)} = 0 to "
                        f"{self.bounds([(ub - lb).plus(step - 1) for ub in ubs], s, 'min', floordiv=step)}")
                b.aff, iteration = lb + dim.scale(step), (dim, 1)
                self.name_iteration(iv, f"({b.name} - {{}}) / {step}", lb)
                span = (_tightest(ubs) - lb).plus(-1).subst(self.values)
                self.set_range(("d", iv), Poly(), Poly.number(span.const // step)
                               if span.is_const else None)
            else:
                head = (f"affine.for {iv} {self.loc(var)} = {self.bounds(lbs, s, 'max')} to "
                        f"{self.bounds(ubs, s, 'min')}")
                if step != 1:
                    head += f" step {step}"
                b.aff, iteration = dim, (dim - lb, step)
                self.set_range(("d", iv), _tightest(lbs), _tightest(ubs).plus(-1))
                self.dim_names[("d", iv)] = b.name
        else:
            if cmp not in (">", ">="):
                raise Refuse(s, f"condition does not bound the decreasing index '{b.name}' from below")
            los = [x.plus(1) if cmp == ">" else x for x in bounds]
            lo = _tightest(los)
            k = -step  # i = lb - k * t for t in [0, (lb - lo) floordiv k]
            head = (f"affine.for {iv} {self.loc(var)} = 0 to "
                    f"{self.bounds([lb - x for x in los], s, 'min', floordiv=k, plus=1)}")
            b.aff, iteration = lb - dim.scale(k), (dim, 1)
            self.name_iteration(iv, f"({{}} - {b.name})" + (f" / {k}" if k != 1 else ""), lb)
            span = (lb - lo).subst(self.values)
            self.set_range(("d", iv), Poly(), lb - lo if k == 1 else (
                Poly.number(span.const // k) if span.is_const else None))
        entry = {key: self.ivals.get(key) for key, _, _ in moving}
        for key, name, (kind, d) in moving:
            self.ivals[key] = self._advance(entry[key], d, iteration, name, s) if kind == "inc" else None
        self.body.append("  " * self.indent + head + " {")
        self.indent += 1
        try:
            self.stmt(jumps.loop_body(body))
        finally:
            self.indent -= 1
            b.aff = None
            self.ranges.pop(("d", iv), None)
        self.body.append("  " * self.indent + "} " + self.loc(s))
        trips = self.trip_count(s) if moving else None
        for key, name, (kind, d) in moving:
            self.ivals[key] = (self._advance(entry[key], d, (trips, 1), name, s)
                               if kind == "inc" and trips is not None else None)
        self._index_after(s, b, lb, step)

    def bounds(self, es: list, c, kind: str, floordiv: int = 1, plus: int = 0) -> str:
        """An `affine.for` bound of one value (`bound`), or of several: `min affine_map<...
        -> (e1, e2)>(...)` (`kind` "min", an upper bound) or `max ...` (a lower bound)."""
        if len(es) == 1:
            return self.bound(es[0], c, floordiv=floordiv, plus=plus)
        lowered = [self.lower(e.plus(plus) if floordiv == 1 else e, c) for e in es]
        if floordiv == 1:
            plus = 0
        if all(e.is_const for e in lowered):
            pick = min if kind == "min" else max
            return str(pick(e.const // floordiv + plus for e in lowered))
        ops = Operands()
        for e in lowered:
            ops.add(e)
        parts = []
        for e in lowered:
            body = render_poly(e, ops.name)
            if floordiv != 1:
                body = f"({body}) floordiv {floordiv}" + (
                    (f" + {plus}" if plus > 0 else f" - {-plus}") if plus else "")
            parts.append(body)
        return f"{kind} affine_map<{ops.header()} -> ({', '.join(parts)})>{ops.uses()}"

    def _moving(self, s, b) -> list:
        """The integer locals and pointers the loop changes, with their effect per iteration."""
        changes = evolution.modified(s)
        out = []
        b.aff = _MARK
        try:
            for key in changes:
                v = next((x for x in self.env.values() if x.key == key and x.kind in ("index", "pointer")
                          or x.key == key and x.kind == "loopvar" and x.aff is None), None)
                if v is None:
                    continue
                unit = (_stride_of(self.pointer_dims(v.ctype, s)).scale(getattr(self.ivals.get(key), "unit", 1))
                        if v.kind == "pointer" else Poly.number(1))  # (into a retyped base: bytes)
                try:  # the body, then the increment's other parts (`i++, p += incx`)
                    kids = list(s.get_children())
                    eff = evolution.effect(self, kids[-1], key, unit, changes)
                    if key in evolution.modified(kids[2]):
                        step = evolution.effect(self, kids[2], key, unit, changes)
                        eff = (("inc", eff[1] + step[1]) if "set" not in (eff[0], step[0])
                               else ("set", None))
                except evolution.NoClosedForm as e:
                    if v.kind == "loopvar":  # not known here: read outside its loops, refused
                        out.append((key, v.name, ("set", None)))
                        continue
                    if v.kind == "index":
                        raise Demote(key, e.reason) from None
                    raise Refuse(e.cursor, f"pointer '{v.name}' does not walk its array by the same "
                                            f"amount in every iteration: {e.reason}") from None
                out.append((key, v.name, eff))
        finally:
            b.aff = None
        return out

    def _advance(self, start, d: Poly, iteration, name: str, s):
        """The value after `iteration` = (count, divisor) steps of `d` from `start`."""
        if start is None:
            return None
        count, div = iteration
        delta = count * d
        if div != 1:
            if delta.content() % div:
                raise Refuse(s, f"'{name}' advances by {layout.render(d, self.symbol_names())} in "
                                 f"each iteration of a loop stepping by {div}")
            delta = Poly({m: c // div for m, c in delta.terms.items()}, delta.const // div)
        if isinstance(start, View):
            return View(start.base, start.offset + delta, start.dims, start.unit, start.in_bytes)
        return start + delta

    def _step(self, inc, var, name: str) -> int:
        parts = increments(inc)
        if len(parts) > 1:
            mine = [p for p in parts if var.hash in evolution.modified(p)]
            if len(mine) == 1:
                return self._step(mine[0], var, name)
            raise Refuse(inc, f"loop increment '{c_text(inc)}' must step '{name}' once")
        k = inc.kind
        step = None
        if k == CK.UNARY_OPERATOR and self._is_var(only_child(inc), var):
            step = {"post++": 1, "pre++": 1, "post--": -1, "pre--": -1}.get(unary_operator(inc))
        elif k == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            lhs, rhs = expr_children(inc)
            op = binary_operator(inc)
            c = self.const_int(rhs)
            if self._is_var(lhs, var) and op in ("+=", "-=") and c:
                step = c if op == "+=" else -c
        elif k == CK.BINARY_OPERATOR and binary_operator(inc) == "=":
            lhs, rhs = expr_children(inc)
            r = strip_casts(rhs)
            if self._is_var(lhs, var) and r.kind == CK.BINARY_OPERATOR and binary_operator(r) in ("+", "-"):
                a, bb = expr_children(r)
                op = binary_operator(r)
                if self._is_var(a, var) and self.const_int(bb):
                    step = self.const_int(bb) * (1 if op == "+" else -1)
                elif op == "+" and self._is_var(bb, var) and self.const_int(a):
                    step = self.const_int(a)
        if not step and k == CK.COMPOUND_ASSIGNMENT_OPERATOR and self._is_var(lhs, var) and op in ("+=", "-="):
            try:
                size = self.affine(rhs, pure=True)
            except NotAffine:
                size = None
            if size is not None and not size.is_const:  # TSVC's s122: `i += n3`
                raise Refuse(inc, f"loop increment '{c_text(inc)}' steps '{name}' by a run-time size: its "
                                  f"iterations reach '{name}' at the iteration count times that size (no "
                                  f"affine subscript) and number a quotient by it (no extent of a raise "
                                  f"for every size); --size gives the step its value, and the loop raises "
                                  f"at it")
        if not step:
            raise Refuse(inc, f"loop increment '{c_text(inc)}' must step '{name}' by a nonzero "
                               f"constant ('{name}++', '{name} += c', '{name}--'; --size gives a "
                               f"size parameter its value)")
        return step

    def _is_var(self, c, var) -> bool:
        c = strip_casts(c)
        return c.kind == CK.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash == var.hash

    def _condition(self, cond, b):
        """([bound, ...], comparison) of `i < ub`, `i + w <= n`, `n > i` ...: the index
        alone on one side once the affine terms are moved; several bounds where the other
        side is a min (an upper bound) or a max (a lower bound): `i < MIN(ii + B, n)`."""
        c = strip_casts(cond)
        if c.kind == CK.BINARY_OPERATOR and binary_operator(c) == "&&":
            return self._conjunction(c, b)
        if c.kind == CK.BINARY_OPERATOR and binary_operator(c) in ("<", "<=", ">", ">="):
            x, y = expr_children(c)
            op = binary_operator(c)
            b.aff = _MARK
            try:
                diff = self.affine(x, pure=True) - self.affine(y, pure=True)  # diff op 0
            except NotAffine as e:
                try:
                    found = self._extreme_condition(x, y, op)
                except NotAffine as e2:
                    e = e2
                    found = None
                if found is None:
                    raise Refuse(e.cursor, f"loop bound '{c_text(cond)}' is not affine: {e.reason} "
                                            f"(data-dependent bounds are not static control)") from None
                return found
            finally:
                b.aff = None
            coeff = diff.terms.get((("d", "#iteration"),), 0)
            rest = diff - _MARK.scale(coeff)
            if abs(coeff) == 1 and not any(v[1] == "#iteration" for v in rest.dims()):
                if coeff == 1:  # i + rest op 0: i op -rest
                    return [rest.scale(-1)], op
                return [rest], _FLIP[op]
        raise Refuse(cond, f"loop condition '{c_text(cond)}' must compare the index '{b.name}' with "
                            f"an affine bound ('{b.name} < ub', '{b.name} <= ub')")

    def _conjunction(self, c, b):
        """([bound, ...], comparison) of `i < a && i <= b ...`: every part bounds the index
        the same way (from above: their min, as `<`; from below: their max, as `>=`)."""
        parts = [self._condition(k, b) for k in expr_children(c)]
        ups = [cmp in ("<", "<=") for _, cmp in parts]
        if any(ups) and not all(ups):
            raise Refuse(c, f"loop condition '{c_text(c)}' bounds the index '{b.name}' from above "
                            f"and from below (only bounds in one direction are joined by '&&')")
        out = []
        for bounds, cmp in parts:
            out += [x.plus(1) if cmp in ("<=", ">") else x for x in bounds]
        return out, "<" if ups[0] else ">="

    def _extreme_condition(self, x, y, op: str):
        """([bound, ...], comparison) of `i + r < MIN(a, b)` (`i < a - r`, `i < b - r`) and
        of `i + r >= MAX(a, b)`, the index on either side; None where neither side is the
        index plus an affine value (NotAffine where the other side is no min / max of the
        kind the comparison needs)."""
        for side, other, o in ((x, y, op), (y, x, _FLIP[op])):
            try:
                p = self.affine(side, pure=True)
            except NotAffine:
                continue
            if p.terms.get((("d", "#iteration"),), 0) != 1:
                continue
            rest = p - _MARK
            if any(v[1] == "#iteration" for v in rest.dims()):
                continue
            ops = extremum(self, other, "min" if o in ("<", "<=") else "max")
            if any(v[1] == "#iteration" for e in ops for v in e.dims()):
                return None
            return [e - rest for e in ops], o
        return None

    def _affine_or_refuse(self, c, what: str) -> Poly:
        try:
            return self.affine(c, pure=True)
        except NotAffine as e:
            raise Refuse(e.cursor, f"{what} '{c_text(c)}' is not affine: {e.reason} (data-dependent "
                                    f"bounds are not static control)") from None


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _tightest(bounds: list) -> Poly:
    """Of the operands of a min (max) bound, the one a subscript's range is best read from:
    the one over the fewest loop indices (a size rather than the end of a tile)."""
    return min(bounds, key=lambda p: len(p.dims()))


def _missing_parts(s) -> str:
    """Which of a for header's three parts are left empty (`for (;;)`)."""
    parts = for_parts(s)
    if parts is None:
        return "an initialisation, condition and increment it can read"
    names = ["an initialisation", "a condition", "an increment"]
    return " and ".join(n for n, p in zip(names, parts) if p is None)
