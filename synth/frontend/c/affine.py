"""Second layer of the function translator: integer C expressions as polynomials (loop
indices as dims, integer parameters as symbols, integer locals followed by their closed
form), `affine.for` bounds, index values, the ranges of loop indices, and conditions as
disjunctions of affine constraints."""

from __future__ import annotations

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c.emitter import Emitter
from synth.frontend.c.libclang import binary_operator, evaluate, unary_operator
from synth.frontend.c.model import (
    Binding,
    Demote,
    expr_children,
    NotAffine,
    only_child,
    Operands,
    Refuse,
    render_poly,
    strip_casts,
    c_text,
)
from synth.frontend.c.poly import Poly, bounds, sign
from synth.frontend.c.scalars import SCALARS, WIDTH, is_int, mlir, unsigned


def _is_pointer_type(c) -> bool:
    return c.type.get_canonical().kind in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY,
                                           TK.VARIABLEARRAY)


def _is_null(c) -> bool:
    """A null pointer constant: `NULL` (`(void *)0`), `0`, `(T *)0`."""
    while True:
        c = strip_casts(c)
        if c.kind != CK.CSTYLE_CAST_EXPR:
            break
        kids = expr_children(c)
        if not kids:
            return False
        c = kids[-1]
    return c.kind == CK.INTEGER_LITERAL and evaluate(c) == 0


def _is_int_type(c) -> bool:
    t = SCALARS.get(c.type.get_canonical().kind)
    return t is not None and is_int(t)


class AffineTranslator(Emitter):
    """Affine expressions, bounds and conditions of one function."""

    # --- integer parameters as symbols --------------------------------------------------

    def param_poly(self, b: Binding) -> Poly:
        self.params[b.ssa] = b
        return Poly.var("s", b.ssa)

    def lower(self, p: Poly, c) -> Poly:
        """`p` with the values of --size in, each product of parameters as one index symbol
        value (`arith.muli` at the entry), every monomial one variable; NotAffine where a
        loop index is multiplied by a parameter."""
        p = p.subst(self.values) if self.values else p
        out = Poly.number(p.const)
        for m, coeff in p.terms.items():
            if any(v[0] == "d" for v in m):
                if len(m) != 1:
                    raise NotAffine(c, "it multiplies a loop index by a size parameter (a "
                                        "flattened subscript that is not read as an array of "
                                        "several dimensions; --size NAME=VALUE makes it affine)")
                out = out + Poly({m: coeff})
            else:
                out = out + Poly({(("s", self._symbol(m, c)),): coeff})
        return out

    def _symbol(self, m, c) -> str:
        if m not in self.symbols:
            if len(m) == 1 and m[0][1] in self.derived:
                r = self._derived_value(m[0][1])
            elif len(m) == 1:
                b = self.params[m[0][1]]
                cast = "arith.index_castui" if unsigned(b.type) else "arith.index_cast"
                r = self.fresh("s")
                self.prologue.append(f"    {r} = {cast} {b.ssa} : {mlir(b.type)} to index {self.loc(c)}")
            else:
                a, rest = self._symbol(m[:1], c), self._symbol(m[1:], c)
                r = self.fresh("s")
                self.prologue.append(f"    {r} = arith.muli {a}, {rest} : index {self.loc(c)}")
            self.symbols[m] = r
        return self.symbols[m]

    # --- affine expressions -------------------------------------------------------------

    def const_int(self, c) -> int | None:
        """The value of a constant integer expression (macros, --size values), else None."""
        if self._foldable(c):
            v = evaluate(c)
            return v if isinstance(v, int) else None
        try:
            p = self.affine(c, pure=True)
        except (NotAffine, Refuse):
            return None
        p = p.subst(self.values)
        return p.const if p.is_const else None

    def _foldable(self, c) -> bool:
        """No references to variables and no calls: clang may evaluate it."""
        if c.kind == CK.DECL_REF_EXPR:
            d = c.referenced
            return d is not None and d.kind == CK.ENUM_CONSTANT_DECL
        if c.kind == CK.CXX_UNARY_EXPR:  # sizeof / _Alignof: its operand is not evaluated
            return True                  # (`sizeof(src1[0])`; clang folds all but a VLA's)
        if c.kind in (CK.CALL_EXPR, CK.ARRAY_SUBSCRIPT_EXPR, CK.MEMBER_REF_EXPR,
                      CK.COMPOUND_ASSIGNMENT_OPERATOR, CK.STRING_LITERAL):
            return False
        if c.kind == CK.BINARY_OPERATOR and binary_operator(c) in ("=", ","):
            return False
        if c.kind == CK.UNARY_OPERATOR and unary_operator(c) in ("post++", "post--", "pre++", "pre--", "*", "&"):
            return False
        return all(self._foldable(k) for k in c.get_children() if k.kind != CK.TYPE_REF)

    def affine(self, c, pure: bool = False) -> Poly:
        """The polynomial of an integer C expression, or NotAffine. `pure`: refuse side
        effects (`k++`) instead of performing them."""
        v = evaluate(c) if self._foldable(c) else None
        if isinstance(v, int):
            return Poly.number(v)
        s = strip_casts(c)
        known = self.null_test(s)
        if known is not None:
            return Poly.number(int(known))
        for node in (c, s):
            if not _is_int_type(node):
                raise NotAffine(node, f"'{c_text(node)}' is not an integer expression")
        if s.kind == CK.CSTYLE_CAST_EXPR:
            kids = expr_children(s)
            if kids and _is_int_type(kids[-1]):
                return self.affine(kids[-1], pure)
            raise NotAffine(s, f"cast '{c_text(s)}' is not an integer expression")
        k = s.kind
        if k == CK.DECL_REF_EXPR:
            return self._name_poly(s)
        if k == CK.BINARY_OPERATOR:
            op = binary_operator(s)
            a, b = expr_children(s)
            if op in ("+", "-"):
                x, y = self.affine(a, pure), self.affine(b, pure)
                return x + y if op == "+" else x - y
            if op == "*":
                return self.affine(a, pure) * self.affine(b, pure)
            if op in ("/", "%", ">>"):
                return self._division(s, op, a, b, pure)
            if op == "<<":
                n = self.const_int(b)
                if n is not None and 0 <= n < 31:
                    return self.affine(a, pure).scale(1 << n)
            if op == "&":
                masked = self._mask(s, a, b, pure)
                if masked is not None:
                    return masked
            raise NotAffine(s, f"operator '{op}' in '{c_text(s)}' is not affine (only + - * and "
                                f"division of sizes by a constant)")
        if k == CK.UNARY_OPERATOR:
            op = unary_operator(s)
            if op in ("+", "-"):
                x = self.affine(only_child(s), pure)
                return x if op == "+" else x.scale(-1)
            if op in ("post++", "post--", "pre++", "pre--") and not pure:
                return self._step_index(s, op)
            raise NotAffine(s, f"operator '{op}' in '{c_text(s)}' is not affine")
        if k == CK.ARRAY_SUBSCRIPT_EXPR or (k == CK.UNARY_OPERATOR and unary_operator(s) == "*"):
            raise NotAffine(s, f"it reads '{c_text(s)}' (a data-dependent value)")
        if k == CK.CALL_EXPR:
            raise NotAffine(s, f"it calls '{s.spelling}'")
        raise NotAffine(s, f"'{c_text(s)}' is not affine")

    def null_test(self, s, bare: bool = False) -> bool | None:
        """The value of `p == NULL`, `p != NULL`, `!p` or `p` (as a condition) where `p`
        names an array: a pointer parameter, a local array, or a local pointer into one.
        Arrays passed to the translated function are never NULL (a raise passes each as a
        tensor): the test is decided so, and said in synth.assumptions. None where `s` is
        no such test; Refuse for a pointer that points to an unknown place."""
        s = strip_casts(s)
        if s.kind == CK.UNARY_OPERATOR and unary_operator(s) == "!":
            inner = strip_casts(only_child(s))
            return None if not _is_pointer_type(inner) else not self._not_null(inner, s, False)
        if s.kind == CK.BINARY_OPERATOR and binary_operator(s) in ("==", "!="):
            a, b = (strip_casts(x) for x in expr_children(s))
            if _is_null(a):
                a, b = b, a
            if not (_is_pointer_type(a) and _is_null(b)):
                return None
            eq = binary_operator(s) == "=="
            return self._not_null(a, s, not eq) != eq
        if bare and _is_pointer_type(s) and s.kind == CK.DECL_REF_EXPR:
            return self._not_null(s, s, True)
        return None

    def _not_null(self, p, test, reads_as: bool) -> bool:
        """True (`p` is not NULL, recorded as an assumption where `p` is a parameter's
        array); `reads_as`: the test's value where `p` is not NULL, for the message."""
        b = self.binding(p) if p.kind == CK.DECL_REF_EXPR else None
        base = None
        if b is not None and b.kind == "array":
            base = b
        elif b is not None and b.kind == "pointer" and self.ivals.get(b.key) is not None:
            base = self.ivals[b.key].base
        if base is None:
            raise Refuse(test, f"'{c_text(test)}' tests a pointer that names no array (only "
                                f"pointer parameters, arrays and pointers into them are "
                                f"translated, and they are never NULL)")
        if base.param_index is not None and not self.collect and base.key not in self.plan.indexed:
            raise Refuse(test, f"'{c_text(test).replace('((void *) 0)', 'NULL')}' tests a pointer "
                                f"parameter the function never reads or writes through: only an "
                                f"array the kernel indexes is known not to be NULL")
        said = f"{base.name} is not NULL ("
        if base.param_index is not None and not any(a.startswith(said) for a in self.assumptions):
            text = c_text(test).replace("((void *) 0)", "NULL")
            self.assume(f"{said}the translation takes every pointer parameter as an array: "
                        f"'{text}' at line {test.location.line} reads as "
                        f"{'true' if reads_as else 'false'}, and so does every test of it "
                        f"against NULL)")
        return True

    def _name_poly(self, s) -> Poly:
        b = self.binding(s)
        if b is None:  # enum constant that did not fold
            raise NotAffine(s, f"'{s.spelling}' is not a constant")
        if b.kind == "loopvar":
            if b.aff is None and self.ivals.get(b.key) is not None:  # its value after a loop
                if b.key in self.after_notes:
                    self.assume(self.after_notes[b.key])
                return self.ivals[b.key]
            if b.aff is None:
                raise Refuse(s, f"loop index '{b.name}' is read outside its loop")
            return b.aff
        if b.kind == "arg" and is_int(b.type) and b.param_index is not None:
            return self.param_poly(b)
        if b.kind == "arg" and is_int(b.type):  # an inlined function's, given a value on data
            raise NotAffine(s, f"'{b.name}' is a value computed at run time (an argument of "
                                f"an inlined function)")
        if b.kind == "index":
            v = self.ivals.get(b.key)
            if v is None and b.key in self.merged:  # a value on data: kept in memory
                raise Demote(b.key, self.merged[b.key])
            if v is None:
                raise Refuse(s, f"'{b.name}' is read where its value is that of an earlier "
                                 f"iteration or unknown (only locals set to, or advanced by, "
                                 f"affine values in every iteration are followed)")
            return v
        if b.kind == "bound":
            raise NotAffine(s, f"'{b.name}' is a min or max of values (read by loop bounds only)")
        if b.kind == "mem":
            why = self.plan.demoted.get(s.referenced.hash)
            raise NotAffine(s, f"'{b.name}' is a variable computed at run time"
                                + (f" ({why})" if why else ""))
        if b.kind == "arg":
            raise NotAffine(s, f"'{b.name}' is a {b.type} parameter, not an integer")
        raise NotAffine(s, f"'{b.name}' is an array or pointer")

    def _division(self, s, op: str, a, b, pure: bool) -> Poly:
        """`x / c`, `x % c`, `x >> c` of sizes (no loop index) by a positive constant: the
        value at --size, or an index symbol computed at the entry (C truncates)."""
        d = self.const_int(b)
        x = self.affine(a, pure)
        picks = (" (an index computed by integer division of loop indices, as a nearest-neighbour "
                 "resize picks its source rows and columns, is not supported)")
        if d is None or d <= 0 or (op == ">>" and d >= 31):
            raise NotAffine(s, f"'{c_text(s)}' divides by something other than a positive constant"
                               + (picks if x.dims() else ""))
        if x.dims():
            if op != "%" and x.content() % (d if op == "/" else 1 << d) == 0 and x.const == 0:
                return Poly({m: c // (d if op == "/" else 1 << d) for m, c in x.terms.items()})
            raise NotAffine(s, f"'{c_text(s)}' divides a loop index" + picks)
        known = x.subst(self.values) if self.values else x
        div = d if op != ">>" else 1 << d
        if known.is_const:
            q = abs(known.const) // div * (1 if known.const >= 0 else -1)
            return Poly.number(known.const - q * div if op == "%" else q)
        return self.derived_symbol(s, x, op if op != ">>" else "/", div)

    def _mask(self, s, a, b, pure: bool) -> Poly | None:
        """`n & ~(k - 1)` (ggml's `np = n & ~(GGML_F32_STEP - 1)`: n rounded down to a
        multiple of k = 2^j) and `n & (k - 1)` (n % k) of sizes: k * (n / k) and n - k *
        (n / k) with n / k an index symbol computed at the entry (C's `&` rounds toward
        -inf, the division toward 0: n >= 0, in synth.assumptions where not known)."""
        t = SCALARS.get(s.type.get_canonical().kind)
        for x_c, m_c in ((a, b), (b, a)):
            m = self.const_int(m_c)
            if m is None or t is None:
                continue
            width = WIDTH[t]
            m = m - (1 << width) if m >= 1 << (width - 1) else m  # ~7u: -8
            low = m > 0 and m & (m + 1) == 0  # 2^j - 1: the low bits
            if not low and not (m < 0 and -m & (-m - 1) == 0):  # -2^j: the high bits
                continue
            k = m + 1 if low else -m
            x = self.affine(x_c, pure)
            known = x.subst(self.values) if self.values else x
            if known.is_const:
                return Poly.number(known.const & m)
            if x.dims():
                raise NotAffine(s, f"'{c_text(s)}' masks a loop index")
            if not self._nonnegative_here(x):
                from synth.frontend.c.layout import render

                self.assume(f"{render(x, self.symbol_names())} >= 0 (where '{c_text(s)}' at line "
                            f"{s.location.line} is read as a division by {k})")
            q = self.derived_symbol(s, x, "/", k).scale(k)
            return x - q if low else q
        return None

    def _step_index(self, s, op: str) -> Poly:
        inner = strip_casts(only_child(s))
        b = self.binding(inner) if inner.kind == CK.DECL_REF_EXPR else None
        if b is not None and b.kind == "mem":
            self._name_poly(inner)  # says why it is not affine
        if b is None or b.kind != "index" and not (b.kind == "loopvar" and b.aff is None):
            raise NotAffine(s, f"'{c_text(s)}' changes something other than an integer local")
        old = self._name_poly(inner)
        new = old.plus(1 if op.endswith("++") else -1)
        self.ivals[b.key] = new
        return old if op.startswith("post") else new

    def derived_symbol(self, c, x: Poly, op: str, d: int) -> Poly:
        """`x / d` or `x % d` (sizes only, C's truncation) as an index symbol computed at the
        function's entry."""
        key = f"%({sorted(x.terms.items())}, {x.const}){op}{d}"
        if key not in self.derived:
            self.derived[key] = (x, op, d, c)
        return Poly.var("s", key)

    def _derived_value(self, key: str) -> str:
        x, op, d, c = self.derived[key]
        body, indent = self.body, self.indent
        self.body, self.indent = [], 2
        try:
            v = self.value_of_aff(x, c)
            r = v if op == "poly" else self.op(f"arith.{'divsi' if op == '/' else 'remsi'} {v}, "
                                               f"{self.const(d, 'index', c)} : index", c, stem="s")
            self.prologue.extend(self.body)
        finally:
            self.body, self.indent = body, indent
        return r

    def value_of_aff(self, e: Poly, c) -> str:
        """An index SSA value for a polynomial (affine.apply, or arith ops for products of
        loop indices and sizes)."""
        try:
            e = self.lower(e, c)
        except NotAffine:
            return self._value_of_products(e, c)
        if e.is_const:
            return self.const(e.const, "index", c)
        if len(e.terms) == 1 and e.const == 0:
            ((key,), coeff), = e.terms.items()
            if coeff == 1:
                return key[1]
        ops = Operands()
        ops.add(e)
        m = f"affine_map<{ops.header()} -> ({render_poly(e, ops.name)})>"
        return self.op(f"affine.apply {m}{ops.uses()}", c)

    def _value_of_products(self, e: Poly, c) -> str:
        e = e.subst(self.values) if self.values else e
        total = self.const(e.const, "index", c)
        for m, coeff in e.terms.items():
            dims = [v for v in m if v[0] == "d"]
            term = self.value_of_aff(Poly({tuple(v for v in m if v[0] == "s"): coeff})
                                     if len(dims) < len(m) else Poly.number(coeff), c)
            for d in dims:
                term = self.op(f"arith.muli {term}, {d[1]} : index", c)
            total = self.op(f"arith.addi {total}, {term} : index", c)
        return total

    def bound(self, e: Poly, c, floordiv: int = 1, plus: int = 0) -> str:
        """`affine.for` bound: a constant, or an affine_map with its operands."""
        if floordiv == 1:
            e, plus = e.plus(plus), 0
        e = self.lower(e, c)
        if e.is_const:
            return str((e.const // floordiv) + plus)
        ops = Operands()
        ops.add(e)
        body = render_poly(e, ops.name)
        if floordiv != 1:
            body = f"({body}) floordiv {floordiv}"
            if plus:
                body += f" + {plus}" if plus > 0 else f" - {-plus}"
        return f"affine_map<{ops.header()} -> ({body})>{ops.uses()}"

    # --- ranges of loop indices ---------------------------------------------------------

    def set_range(self, dim, lo: Poly, hi: Poly | None) -> None:
        """The range of a loop index: its inclusive bounds (polynomials over outer indices
        and symbols; hi None: unknown), at the loop's depth."""
        depth = 1 + max((r[2] for r in self.ranges.values()), default=0)
        self.ranges[dim] = (lo, hi, depth)

    def tighten(self, conj: list) -> dict:
        """Ranges narrowed by affine constraints on one index (`i >= 1`, `j <= n - 2`,
        `j <= i`) where the new bound is known to be tighter; returns the ranges before,
        to restore."""
        saved = dict(self.ranges)
        for e, eq in conj:
            dims = e.dims()
            deepest = max(dims, key=lambda v: self.ranges[v][2] if v in self.ranges else -1,
                          default=None)
            if deepest is None or deepest not in self.ranges or (deepest,) not in e.terms:
                continue
            d = deepest
            c = e.terms[(d,)]
            if abs(c) != 1 or any(d in m and len(m) > 1 for m in e.terms):
                continue
            rest = e - Poly({(d,): c})
            lo, hi, depth = self.ranges[d]
            if c == 1:  # d + rest >= 0: d >= -rest
                new_lo = rest.scale(-1)
                if self._tighter(new_lo - lo):
                    lo = new_lo
                if eq and (hi is None or self._tighter(hi - new_lo)):
                    hi = new_lo
            elif hi is None or self._tighter(hi - rest):  # rest - d >= 0: d <= rest
                hi = rest
            self.ranges[d] = (lo, hi, depth)
        return saved

    def _tighter(self, diff: Poly) -> bool:
        """`diff` > 0 over the enclosing loops (its lowest value is positive)."""
        b = bounds(diff, self.ranges)
        s = sign(b[0], self.values) if b is not None else None
        return s is not None and s > 0

    # --- conditions ---------------------------------------------------------------------

    _MAX_DISJUNCTS = 8

    def condition(self, c) -> list:
        """The condition as a disjunction of conjunctions of affine constraints
        (expr >= 0 / expr == 0): a list of lists of (Poly, is_equality)."""
        v = self.const_int(c) if self._foldable(c) else None
        if v is None and self._foldable(c):
            f = evaluate(c)
            v = None if f is None else int(bool(f))
        if v is not None:
            return [[]] if v else []
        s = strip_casts(c)
        known = self.null_test(s, bare=True)
        if known is not None:
            return [[]] if known else []
        if s.kind == CK.UNARY_OPERATOR and unary_operator(s) == "!":
            return self._negate(self.condition(only_child(s)), s)
        if s.kind == CK.BINARY_OPERATOR:
            op = binary_operator(s)
            a, b = expr_children(s)
            if op == "&&":
                da, db = self.condition(a), self.condition(b)
                return self._limit([x + y for x in da for y in db], s)
            if op == "||":
                return self._limit(self.condition(a) + self.condition(b), s)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                x, y = self.affine(a, pure=True), self.affine(b, pure=True)
                t = SCALARS.get(a.type.get_canonical().kind)
                if t is not None and unsigned(t) and op not in ("==", "!="):
                    return self._unsigned(s, op, x, y)
                if op == "<":
                    out = [[((y - x).plus(-1), False)]]
                elif op == "<=":
                    out = [[(y - x, False)]]
                elif op == ">":
                    out = [[((x - y).plus(-1), False)]]
                elif op == ">=":
                    out = [[(x - y, False)]]
                elif op == "==":
                    out = [[(x - y, True)]]
                else:
                    out = [[((x - y).plus(-1), False)], [((y - x).plus(-1), False)]]
                return self._decide(out)
        if s.kind == CK.CALL_EXPR and _is_int_type(s):  # `if (in_range(r, h))`
            expr = self.one_line_helper(s)
            if expr is not None:
                return self.condition(expr)
        if _is_int_type(s):  # `if (n)`: n != 0
            x = self.affine(s, pure=True)
            return self._decide([[(x.plus(-1), False)], [(x.scale(-1).plus(-1), False)]])
        raise NotAffine(s, f"'{c_text(s)}' is not a comparison of affine expressions")

    def _unsigned(self, s, op: str, x: Poly, y: Poly) -> list:
        """`x op y` compared as unsigned numbers (C converts both sides): where the side
        that must be the larger is not negative, the other one must not be either
        (`(unsigned)r < (unsigned)h` is `0 <= r < h`, Caffe's bounds test), given that
        sizes fit in the signed type; NotAffine where neither side is known so."""
        lo, hi = (x, y) if op in ("<", "<=") else (y, x)
        strict = op in ("<", ">")
        upper = (hi - lo).plus(-1) if strict else hi - lo
        if self._nonnegative_here(lo) and not hi.dims() and self._nonnegative_here(hi):
            return self._decide([[(upper, False)]])  # both sides known not negative
        if not self._nonnegative_here(hi):
            if hi.dims() or hi.is_const:
                raise NotAffine(s, f"'{c_text(s)}' compares as unsigned numbers a side that may be "
                                    f"negative")
            from synth.frontend.c.layout import render

            self.assume(f"{render(hi, self.symbol_names())} >= 0 (where '{c_text(s)}' at line "
                        f"{s.location.line} compares as unsigned numbers)")
        return self._decide([[(lo, False), (upper, False)]])

    def _nonnegative_here(self, e: Poly) -> bool:
        """`e` >= 0 at the --size values, or over the loop indices' ranges here."""
        if not e.dims():
            sg = sign(e, self.values)
            return sg is not None and sg >= 0
        b = bounds(e, self.ranges)
        sg = sign(b[0], self.values) if b is not None else None
        return sg is not None and sg >= 0

    def _decide(self, dnf: list) -> list:
        """Constraints that --size values decide are dropped (true) or drop their
        conjunction (false)."""
        if not self.values:
            return dnf
        out = []
        for conj in dnf:
            kept, false = [], False
            for e, eq in conj:
                s = sign(e, self.values) if not e.dims() else None
                if s is None:
                    kept.append((e, eq))
                elif (eq and s != 0) or (not eq and s < 0):
                    false = True
            if not false:
                out.append(kept)
        return out

    def _negate(self, dnf: list, c) -> list:
        out = [[]]  # true
        for conj in dnf:
            alternatives = []  # not (c1 and c2 ...) = not c1 or not c2 ...
            for e, eq in conj:
                if eq:  # e > 0 or e < 0, less a side the loop indices never reach
                    alternatives += [[(x, False)] for x in (e.plus(-1), e.scale(-1).plus(-1))
                                     if not self._never(x)]
                else:
                    alternatives.append([(e.scale(-1).plus(-1), False)])
            out = self._limit([x + y for x in out for y in alternatives], c)
        return out

    def _never(self, e: Poly) -> bool:
        """`e >= 0` holds nowhere in the enclosing loops (its highest value is negative):
        `i < 0` for an index from 0, `i > n - 1` for one below n."""
        if not e.dims():
            return False
        b = bounds(e, self.ranges)
        s = sign(b[1], self.values) if b is not None else None
        return s is not None and s < 0

    def _limit(self, dnf: list, c) -> list:
        if len(dnf) > self._MAX_DISJUNCTS:
            raise NotAffine(c, f"the condition needs more than {self._MAX_DISJUNCTS} affine sets")
        return dnf
