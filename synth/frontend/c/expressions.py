"""Third layer of the function translator: C expressions to SSA values (`arith` / `math`
ops in the MLIR type of the C type), array accesses (`affine.load` / `affine.store` with
affine subscripts), assignments, increments, conditions as i1, `c ? a : b`, math calls."""

from __future__ import annotations

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c.affine import _AffineTranslator
from synth.frontend.c.libclang import _binop, _evaluate, _unop
from synth.frontend.c.model import (
    _FLOATS,
    _Aff,
    _Binding,
    _expr_children,
    _inline,
    _NotAffine,
    _only_child,
    _Operands,
    _Refuse,
    _render,
    _strip,
    _text,
)

_MATH = {  # C name -> (op, number of arguments)
    "sqrt": ("math.sqrt", 1), "exp": ("math.exp", 1), "log": ("math.log", 1),
    "pow": ("math.powf", 2), "fabs": ("math.absf", 1), "fmax": ("arith.maximumf", 2),
    "fmin": ("arith.minimumf", 2), "tanh": ("math.tanh", 1), "sin": ("math.sin", 1),
    "cos": ("math.cos", 1), "floor": ("math.floor", 1), "ceil": ("math.ceil", 1),
}
_MATH.update({name + "f": spec for name, spec in list(_MATH.items())})

_CMPI = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_CMPF = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_FLOAT_ARITH = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf", "/": "arith.divf"}
_INT_ARITH = {"+": "arith.addi", "-": "arith.subi", "*": "arith.muli", "/": "arith.divsi",
              "%": "arith.remsi", "&": "arith.andi", "|": "arith.ori", "^": "arith.xori",
              "<<": "arith.shli", ">>": "arith.shrsi"}


class _ExprTranslator(_AffineTranslator):
    """Values, accesses, assignments and calls of one function."""

    # --- accesses -----------------------------------------------------------------------

    def access(self, c) -> tuple[_Binding, list[_Aff]]:
        """Array and affine subscripts of an element `A[i][j]`."""
        idx = []
        e = c
        while e.kind == CK.ARRAY_SUBSCRIPT_EXPR:
            base, index = _expr_children(e)
            idx.insert(0, index)
            e = _strip(base)
        if e.kind != CK.DECL_REF_EXPR:
            if e.kind == CK.MEMBER_REF_EXPR:
                raise _Refuse(e, f"struct member access '{_text(e)}' is not supported")
            raise _Refuse(e, f"subscript of '{_text(e)}': only arrays declared with constant "
                             f"extents can be indexed (pointer arithmetic is not static control)")
        b = self.binding(e)
        if b is None or b.kind != "array":
            raise _Refuse(e, f"'{e.spelling}' is not an array with constant extents (pointer "
                             f"indexing is not static control)")
        if len(idx) != len(b.shape):
            raise _Refuse(c, f"'{_text(c)}' has {len(idx)} subscript(s) for the {len(b.shape)}-d "
                             f"array '{b.name}'")
        subs = []
        for ix in idx:
            try:
                subs.append(self.affine(ix))
            except _NotAffine as err:
                dep = "data-dependent" if self._reads_memory(ix) else "non-affine"
                raise _Refuse(ix, f"{dep} array subscript '{_text(ix)}' in '{_text(c)}': {err.reason} "
                                  f"(subscripts must be affine in loop indices and integer "
                                  f"parameters)") from None
        return b, subs

    def _reads_memory(self, c) -> bool:
        for k in c.walk_preorder():
            if k.kind == CK.ARRAY_SUBSCRIPT_EXPR:
                return True
            if k.kind == CK.DECL_REF_EXPR:
                b = self.env.get(k.referenced.hash) if k.referenced is not None else None
                if b is not None and b.kind == "mem":
                    return True
        return False

    def load(self, c) -> tuple[str, str]:
        b, subs = self.access(c)
        mt = self.memref(b.shape, b.type)
        v = self.op(f"affine.load {b.ssa}[{', '.join(_inline(e) for e in subs)}] : {mt}", c)
        return v, b.type

    def lvalue(self, c):
        """(load thunk, store function, element type) of an assignable expression."""
        s = _strip(c)
        if s.kind == CK.ARRAY_SUBSCRIPT_EXPR:
            b, subs = self.access(s)
            mt = self.memref(b.shape, b.type)
            where = f"{b.ssa}[{', '.join(_inline(e) for e in subs)}] : {mt}"
        elif s.kind == CK.DECL_REF_EXPR:
            b = self.binding(s)
            if b is None:
                raise _Refuse(s, f"cannot assign to '{s.spelling}'")
            if b.kind == "loopvar":
                raise _Refuse(s, f"loop index '{b.name}' is modified outside its 'for' header "
                                 f"(not static control)")
            if b.kind != "mem":
                raise _Refuse(s, f"cannot assign to '{b.name}'")
            where = f"{b.ssa}[] : memref<{b.type}>"
        elif s.kind == CK.UNARY_OPERATOR and _unop(s) == "*":
            raise _Refuse(s, f"pointer dereference '{_text(s)}' (pointer arithmetic) is not static "
                             f"control")
        elif s.kind == CK.MEMBER_REF_EXPR:
            raise _Refuse(s, f"struct member access '{_text(s)}' is not supported")
        else:
            raise _Refuse(s, f"cannot assign to '{_text(s)}'")

        def load():
            return self.op(f"affine.load {where}", c)

        def store(v):
            self.emit(f"affine.store {v}, {where}", c)

        return load, store, b.type

    def assign(self, e, op: str) -> tuple[str, str]:
        lhs, rhs = _expr_children(e)
        load, store, t = self.lvalue(lhs)
        if op == "=":
            v, vt = self.value(rhs)
            v = self.convert(v, vt, t, e)
        else:
            old = load()
            v, vt = self.value(rhs)
            binop = op[:-1]
            comp = self._common(t, vt) if binop not in ("<<", ">>") else t
            v = self.arith(binop, self.convert(old, t, comp, e), self.convert(v, vt, comp, e), comp, e)
            v = self.convert(v, comp, t, e)
        store(v)
        return v, t

    @staticmethod
    def _common(a: str, b: str) -> str:
        rank = {"i1": 0, "i32": 1, "i64": 2, "index": 2, "f32": 3, "f64": 4}
        return a if rank[a] >= rank[b] else b

    def arith(self, op: str, a: str, b: str, t: str, c) -> str:
        if t in _FLOATS:
            if op not in _FLOAT_ARITH:
                raise _Refuse(c, f"operator '{op}' on floating-point values is not supported")
            return self.op(f"{_FLOAT_ARITH[op]} {a}, {b} : {t}", c)
        if op not in _INT_ARITH:
            raise _Refuse(c, f"operator '{op}' is not supported")
        return self.op(f"{_INT_ARITH[op]} {a}, {b} : {t}", c)

    # --- values -------------------------------------------------------------------------

    def value(self, c, discard: bool = False) -> tuple[str | None, str]:
        """SSA value of an expression, in the MLIR type of its C type."""
        k = c.kind
        if k in (CK.INTEGER_LITERAL, CK.FLOATING_LITERAL) or (
                k not in (CK.DECL_REF_EXPR,) and self._foldable(c) and k != CK.CONDITIONAL_OPERATOR):
            t = self.ctype(c)
            v = _evaluate(c)
            if v is not None:
                return self.const(v, t, c), t
            if k in (CK.INTEGER_LITERAL, CK.FLOATING_LITERAL):
                raise _Refuse(c, "cannot evaluate literal")
        if k == CK.PAREN_EXPR:
            return self.value(_only_child(c), discard)
        if k in (CK.UNEXPOSED_EXPR, CK.CSTYLE_CAST_EXPR):
            kids = _expr_children(c)
            if not kids:
                raise _Refuse(c, f"unsupported expression '{_text(c)}'")
            if k == CK.CSTYLE_CAST_EXPR and c.type.get_canonical().kind == TK.VOID:
                return self.value(kids[-1], True)
            inner = kids[-1]
            if inner.type.get_canonical().kind == TK.FUNCTIONPROTO:
                raise _Refuse(c, f"function '{_text(inner)}' used as a value")
            t = self.ctype(c)
            v, vt = self.value(inner)
            return self.convert(v, vt, t, c), t
        if k == CK.DECL_REF_EXPR:
            b = self.binding(c)
            t = self.ctype(c)
            if b is None:
                v = _evaluate(c)
                if v is None:
                    raise _Refuse(c, f"unsupported reference to '{c.spelling}'")
                return self.const(v, t, c), t
            if b.kind == "arg":
                return b.ssa, b.type
            if b.kind == "mem":
                return self.op(f"affine.load {b.ssa}[] : memref<{b.type}>", c), b.type
            if b.kind == "loopvar":
                if b.aff is None:
                    raise _Refuse(c, f"loop index '{b.name}' is read outside its loop")
                v = self.value_of_aff(b.aff, c)
                return self.convert(v, "index", b.type, c), b.type
            raise _Refuse(c, f"array '{b.name}' used as a value (only its elements)")
        if k == CK.ARRAY_SUBSCRIPT_EXPR:
            return self.load(c)
        if k == CK.BINARY_OPERATOR:
            op = _binop(c)
            if op == "=":
                return self.assign(c, op)
            if op == ",":
                a, b = _expr_children(c)
                self.value(a, True)
                return self.value(b, discard)
            if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                v = self.cond(c)
                t = self.ctype(c)
                return self.convert(v, "i1", t, c), t
            if c.type.get_canonical().kind == TK.POINTER:
                raise _Refuse(c, f"pointer arithmetic '{_text(c)}' is not static control")
            t = self.ctype(c)
            a, b = _expr_children(c)
            va, ta = self.value(a)
            vb, tb = self.value(b)
            # C converts both operands to the result type (a shift: the count to the left's)
            return self.arith(op, self.convert(va, ta, t, c), self.convert(vb, tb, t, c), t, c), t
        if k == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            return self.assign(c, _binop(c))
        if k == CK.UNARY_OPERATOR:
            op = _unop(c)
            inner = _only_child(c)
            if op in ("post++", "post--", "pre++", "pre--"):
                load, store, t = self.lvalue(inner)
                old = load()
                one = self.const(1, t, c)
                new = self.arith("+" if op.endswith("++") else "-", old, one, t, c)
                store(new)
                return (old if op.startswith("post") else new), t
            if op == "*":
                raise _Refuse(c, f"pointer dereference '{_text(c)}' (pointer arithmetic) is not "
                                 f"static control")
            if op == "&":
                raise _Refuse(c, f"address-of '{_text(c)}' is not static control")
            if op == "!":
                v = self.cond(c)
                t = self.ctype(c)
                return self.convert(v, "i1", t, c), t
            t = self.ctype(c)
            v, vt = self.value(inner)
            v = self.convert(v, vt, t, c)
            if op == "+":
                return v, t
            if op == "-":
                if t in _FLOATS:
                    return self.op(f"arith.negf {v} : {t}", c), t
                return self.op(f"arith.subi {self.const(0, t, c)}, {v} : {t}", c), t
            if op == "~":
                return self.op(f"arith.xori {v}, {self.const(-1, t, c)} : {t}", c), t
            raise _Refuse(c, f"operator '{op}' is not supported")
        if k == CK.CONDITIONAL_OPERATOR:
            cond, a, b = _expr_children(c)
            t = self.ctype(c)
            if self._reads_memory(a) or self._reads_memory(b):
                # an affine condition may guard an access (`i > 0 ? A[i - 1] : 0.0`): only
                # the chosen operand is evaluated, in an affine.if with results
                try:
                    dnf = self.condition(cond)
                    neg = self._negate(dnf, cond)
                except _NotAffine:
                    dnf = None
                if dnf is not None:
                    if len(neg) < len(dnf):
                        dnf, a, b = neg, b, a
                    return self._if_value(c, dnf, a, b, t), t
            p = self.cond(cond)
            va, ta = self.value(a)
            vb, tb = self.value(b)
            va, vb = self.convert(va, ta, t, c), self.convert(vb, tb, t, c)
            return self.op(f"arith.select {p}, {va}, {vb} : {t}", c), t
        if k == CK.CALL_EXPR:
            return self.call(c)
        if k == CK.MEMBER_REF_EXPR:
            raise _Refuse(c, f"struct member access '{_text(c)}' is not supported")
        if k == CK.STRING_LITERAL:
            raise _Refuse(c, "string literals are not supported")
        raise _Refuse(c, f"expression '{_text(c)}' ({k.name.lower()}) is not supported")

    def _if_value(self, c, dnf: list, a, b, t: str) -> str:
        """`(c1 || c2 ...) ? a : b` as nested affine.if ops with results."""
        if not dnf:
            v, vt = self.value(b)
            return self.convert(v, vt, t, b)
        conj, rest = dnf[0], dnf[1:]
        if conj and not any(e.terms for e, _ in conj):  # constant constraints only
            holds = all((e.const == 0) if eq else (e.const >= 0) for e, eq in conj)
            return self._if_value(c, [[]] if holds else rest, a, b, t)
        if not conj:
            v, vt = self.value(a)
            return self.convert(v, vt, t, a)
        ops = _Operands()
        for e, _ in conj:
            ops.add(e)
        cs = ", ".join(f"{_render(e, ops.name)} {'==' if eq else '>='} 0" for e, eq in conj)
        r = self.fresh()
        self.body.append("  " * self.indent + f"{r} = affine.if affine_set<{ops.header()} : ({cs})>"
                         f"{ops.uses()} -> {t} {{")
        self.indent += 1
        v, vt = self.value(a)
        self.emit(f"affine.yield {self.convert(v, vt, t, a)} : {t}", a)
        self.indent -= 1
        self.body.append("  " * self.indent + "} else {")
        self.indent += 1
        v = self._if_value(c, rest, a, b, t)
        self.emit(f"affine.yield {v} : {t}", b)
        self.indent -= 1
        self.body.append("  " * self.indent + "} " + self.loc(c))
        return r

    def cond(self, c) -> str:
        """An i1 value of a condition."""
        s = c
        while s.kind == CK.PAREN_EXPR:
            s = _only_child(s)
        if s.kind == CK.BINARY_OPERATOR:
            op = _binop(s)
            a, b = _expr_children(s)
            if op in ("&&", "||"):
                x, y = self.cond(a), self.cond(b)
                return self.op(f"arith.{'andi' if op == '&&' else 'ori'} {x}, {y} : i1", s)
            if op in _CMPI:
                va, ta = self.value(a)
                vb, tb = self.value(b)
                t = self._common(ta, tb)
                va, vb = self.convert(va, ta, t, s), self.convert(vb, tb, t, s)
                if t in _FLOATS:
                    return self.op(f"arith.cmpf {_CMPF[op]}, {va}, {vb} : {t}", s)
                return self.op(f"arith.cmpi {_CMPI[op]}, {va}, {vb} : {t}", s)
        if s.kind == CK.UNARY_OPERATOR and _unop(s) == "!":
            v = self.cond(_only_child(s))
            return self.op(f"arith.xori {v}, {self.const(1, 'i1', s)} : i1", s)
        v, t = self.value(c)
        return self.convert(v, t, "i1", c)

    def call(self, c) -> tuple[str, str]:
        name = c.spelling
        callee = c.referenced
        if name not in _MATH or callee is None or callee.is_definition():
            raise _Refuse(c, f"call to unknown function '{name}' is not static control (only "
                             f"{', '.join(sorted(n for n in _MATH if not n.endswith('f') or n == 'fabs'))} "
                             f"and their 'f' variants are translated)")
        opname, nargs = _MATH[name]
        args = list(c.get_arguments())
        if len(args) != nargs:
            raise _Refuse(c, f"'{name}' takes {nargs} argument(s)")
        t = self.ctype(c)
        vals = []
        for a in args:
            v, vt = self.value(a)
            vals.append(self.convert(v, vt, t, a))
        return self.op(f"{opname} {', '.join(vals)} : {t}", c), t
