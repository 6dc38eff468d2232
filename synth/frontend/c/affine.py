"""Second layer of the function translator: integer C expressions as affine expressions
(loop indices as dims, integer parameters as symbols), `affine.for` bounds, index values
(`affine.apply`), and conditions as disjunctions of affine constraints."""

from __future__ import annotations

from clang.cindex import CursorKind as CK

from synth.frontend.c.emitter import _Emitter
from synth.frontend.c.libclang import _binop, _evaluate, _unop
from synth.frontend.c.model import (
    _SCALARS,
    _Aff,
    _expr_children,
    _NotAffine,
    _only_child,
    _Operands,
    _Refuse,
    _render,
    _strip,
    _text,
)


class _AffineTranslator(_Emitter):
    """Affine expressions, bounds and conditions of one function."""

    # --- affine expressions -------------------------------------------------------------

    def const_int(self, c) -> int | None:
        if not self._foldable(c):
            return None
        v = _evaluate(c)
        return v if isinstance(v, int) else None

    def _foldable(self, c) -> bool:
        """No references to variables and no calls: clang may evaluate it."""
        if c.kind == CK.DECL_REF_EXPR:
            d = c.referenced
            return d is not None and d.kind == CK.ENUM_CONSTANT_DECL
        if c.kind in (CK.CALL_EXPR, CK.ARRAY_SUBSCRIPT_EXPR, CK.MEMBER_REF_EXPR,
                      CK.COMPOUND_ASSIGNMENT_OPERATOR, CK.STRING_LITERAL):
            return False
        if c.kind == CK.BINARY_OPERATOR and _binop(c) in ("=", ","):
            return False
        if c.kind == CK.UNARY_OPERATOR and _unop(c) in ("post++", "post--", "pre++", "pre--", "*", "&"):
            return False
        return all(self._foldable(k) for k in c.get_children() if k.kind != CK.TYPE_REF)

    def affine(self, c) -> _Aff:
        """The affine (linear) expression of an integer C expression, or _NotAffine."""
        v = self.const_int(c)
        if v is not None:
            return _Aff({}, v)
        s = _strip(c)
        for node in (c, s):
            if _SCALARS.get(node.type.get_canonical().kind) not in ("i32", "i64"):
                raise _NotAffine(node, f"'{_text(node)}' is not an integer expression")
        if s.kind == CK.CSTYLE_CAST_EXPR:
            kids = _expr_children(s)
            if _SCALARS.get(s.type.get_canonical().kind) in ("i32", "i64") and kids:
                inner = kids[-1]
                if _SCALARS.get(inner.type.get_canonical().kind) in ("i32", "i64"):
                    return self.affine(inner)
            raise _NotAffine(s, f"cast '{_text(s)}' is not an integer expression")
        k = s.kind
        if k == CK.DECL_REF_EXPR:
            b = self.binding(s)
            if b is None:  # enum constant that did not fold
                raise _NotAffine(s, f"'{s.spelling}' is not a constant")
            if b.kind == "loopvar":
                if b.aff is None:
                    raise _Refuse(s, f"loop index '{b.name}' is read outside its loop")
                return b.aff
            if b.kind == "arg" and b.type in ("i32", "i64"):
                return _Aff.var("s", self.symbol(b, s))
            if b.kind == "mem":
                raise _NotAffine(s, f"'{b.name}' is a variable computed at run time (only loop "
                                    f"indices, integer parameters and constants are affine)")
            if b.kind == "arg":
                raise _NotAffine(s, f"'{b.name}' is a {b.type} parameter, not an integer")
            raise _NotAffine(s, f"'{b.name}' is an array")
        if k == CK.BINARY_OPERATOR:
            op = _binop(s)
            a, b = _expr_children(s)
            if op in ("+", "-"):
                x, y = self.affine(a), self.affine(b)
                return x + y if op == "+" else x - y
            if op == "*":
                x, y = self.affine(a), self.affine(b)
                if x.is_const:
                    return y.scale(x.const)
                if y.is_const:
                    return x.scale(y.const)
                raise _NotAffine(s, f"'{_text(s)}' multiplies two variables")
            raise _NotAffine(s, f"operator '{op}' in '{_text(s)}' is not affine (only + - and "
                                f"* by a constant)")
        if k == CK.UNARY_OPERATOR:
            op = _unop(s)
            if op in ("+", "-"):
                x = self.affine(_only_child(s))
                return x if op == "+" else x.scale(-1)
            raise _NotAffine(s, f"operator '{op}' in '{_text(s)}' is not affine")
        if k == CK.ARRAY_SUBSCRIPT_EXPR:
            raise _NotAffine(s, f"it reads '{_text(s)}' (a data-dependent value)")
        if k == CK.CALL_EXPR:
            raise _NotAffine(s, f"it calls '{s.spelling}'")
        raise _NotAffine(s, f"'{_text(s)}' is not affine")

    def value_of_aff(self, e: _Aff, c) -> str:
        """An index SSA value for an affine expression."""
        if e.is_const:
            return self.const(e.const, "index", c)
        if len(e.terms) == 1 and e.const == 0:
            (key, coeff), = e.terms.items()
            if coeff == 1:
                return key[1]
        ops = _Operands()
        ops.add(e)
        m = f"affine_map<{ops.header()} -> ({_render(e, ops.name)})>"
        return self.op(f"affine.apply {m}{ops.uses()}", c)

    def bound(self, e: _Aff, floordiv: int = 1, plus: int = 0) -> str:
        """`affine.for` bound: a constant, or an affine_map with its operands."""
        if e.is_const:
            return str((e.const // floordiv) + plus)
        ops = _Operands()
        ops.add(e)
        body = _render(e, ops.name)
        if floordiv != 1:
            body = f"({body}) floordiv {floordiv}"
            if plus:
                body += f" + {plus}" if plus > 0 else f" - {-plus}"
        elif plus:
            return self.bound(e.plus(plus))
        return f"affine_map<{ops.header()} -> ({body})>{ops.uses()}"

    # --- conditions ---------------------------------------------------------------------

    _MAX_DISJUNCTS = 8

    def condition(self, c) -> list:
        """The condition as a disjunction of conjunctions of affine constraints
        (expr >= 0 / expr == 0): a list of lists of (_Aff, is_equality)."""
        v = self.const_int(c)
        if v is None and self._foldable(c):
            f = _evaluate(c)
            v = None if f is None else int(bool(f))
        if v is not None:
            return [[]] if v else []
        s = _strip(c)
        if s.kind == CK.UNARY_OPERATOR and _unop(s) == "!":
            return self._negate(self.condition(_only_child(s)), s)
        if s.kind == CK.BINARY_OPERATOR:
            op = _binop(s)
            a, b = _expr_children(s)
            if op == "&&":
                da, db = self.condition(a), self.condition(b)
                return self._limit([x + y for x in da for y in db], s)
            if op == "||":
                return self._limit(self.condition(a) + self.condition(b), s)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                x, y = self.affine(a), self.affine(b)
                if op == "<":
                    return [[((y - x).plus(-1), False)]]
                if op == "<=":
                    return [[(y - x, False)]]
                if op == ">":
                    return [[((x - y).plus(-1), False)]]
                if op == ">=":
                    return [[(x - y, False)]]
                if op == "==":
                    return [[(x - y, True)]]
                return [[((x - y).plus(-1), False)], [((y - x).plus(-1), False)]]
        raise _NotAffine(s, f"'{_text(s)}' is not a comparison of affine expressions")

    def _negate(self, dnf: list, c) -> list:
        out = [[]]  # true
        for conj in dnf:
            alternatives = []  # not (c1 and c2 ...) = not c1 or not c2 ...
            for e, eq in conj:
                if eq:
                    alternatives += [[(e.plus(-1), False)], [(e.scale(-1).plus(-1), False)]]
                else:
                    alternatives.append([(e.scale(-1).plus(-1), False)])
            out = self._limit([x + y for x in out for y in alternatives], c)
        return out

    def _limit(self, dnf: list, c) -> list:
        if len(dnf) > self._MAX_DISJUNCTS:
            raise _NotAffine(c, f"the condition needs more than {self._MAX_DISJUNCTS} affine sets")
        return dnf
