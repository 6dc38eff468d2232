"""Fourth layer of the function translator: C expressions to SSA values (`arith` / `math`
ops in the type of the C expression, with C's signedness), assignments (to elements,
scalar locals, integer locals followed as closed forms, pointers), increments,
conditions as i1, `c ? a : b`, math calls, and calls of the file's own functions
(inlined)."""

from __future__ import annotations

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c.access import ARRAYS, AccessTranslator
from synth.frontend.c.libclang import binary_operator, evaluate, same_file, unary_operator
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
    View,
)
from synth.frontend.c.scalars import FLOATS, SCALARS, is_int, mlir, unsigned, usual
from synth.frontend.c.poly import Poly

_MATH = {  # C name -> (op, number of arguments)
    "sqrt": ("math.sqrt", 1), "exp": ("math.exp", 1), "log": ("math.log", 1),
    "pow": ("math.powf", 2), "fabs": ("math.absf", 1), "fmax": ("arith.maxnumf", 2),
    "fmin": ("arith.minnumf", 2), "tanh": ("math.tanh", 1), "sin": ("math.sin", 1),
    "cos": ("math.cos", 1), "floor": ("math.floor", 1), "ceil": ("math.ceil", 1),
    "tan": ("math.tan", 1), "erf": ("math.erf", 1),
}
_MATH.update({name + "f": spec for name, spec in list(_MATH.items())})
_MATH.update({"abs": ("math.absi", 1), "labs": ("math.absi", 1)})
_INFINITY = ("__builtin_inff", "__builtin_inf", "__builtin_huge_valf", "__builtin_huge_val")
# C99's classification macros as <math.h> expands them (glibc: `isnan(x)` is
# `__builtin_isnan (x)`, `isinf(x)` is `__builtin_isinf_sign (x)`: -1 at -inf), and glibc's
# functions behind them: name -> what they test
_CLASSIFY = {"__builtin_isnan": "nan", "__isnan": "nan", "__isnanf": "nan",
             "__builtin_isinf": "inf", "__builtin_isinf_sign": "inf_sign", "__isinf": "inf_sign",
             "__isinff": "inf_sign", "__builtin_isfinite": "finite", "__finite": "finite",
             "__finitef": "finite"}

_CMPI = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_CMPU = {"<": "ult", "<=": "ule", ">": "ugt", ">=": "uge", "==": "eq", "!=": "ne"}
_CMPF = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_FLOAT_ARITH = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf", "/": "arith.divf"}
_INT_ARITH = {"+": "arith.addi", "-": "arith.subi", "*": "arith.muli", "/": "arith.divsi",
              "%": "arith.remsi", "&": "arith.andi", "|": "arith.ori", "^": "arith.xori",
              "<<": "arith.shli", ">>": "arith.shrsi"}
_UNSIGNED_ARITH = {"/": "arith.divui", "%": "arith.remui", ">>": "arith.shrui"}
_STEPS = ("post++", "post--", "pre++", "pre--")


def _is_pointer(c) -> bool:
    return c.type.get_canonical().kind in (TK.POINTER, *ARRAYS)


class ExprTranslator(AccessTranslator):
    """Values, assignments and calls of one function."""

    # --- assignments --------------------------------------------------------------------

    def _target(self, lhs):
        s = strip_casts(lhs)
        if s.kind == CK.DECL_REF_EXPR:
            b = self.binding(s)
            if b is not None and (b.kind in ("index", "pointer") or b.kind == "loopvar" and b.aff is None):
                return b, s  # (a loop index outside its loop: an integer local)
        return None, s

    def assign(self, e, op: str, discard: bool = False) -> tuple[str | None, str]:
        lhs, rhs = expr_children(e)
        b, s = self._target(lhs)
        if b is not None and b.kind == "pointer":
            return self._assign_pointer(b, e, op, rhs)
        if b is not None:
            return self._assign_index(b, s, e, op, rhs, discard)
        load, store, t = self.lvalue(lhs)
        if op == "=":
            v, vt = self.value(rhs)
            v = self.convert(v, vt, t, e)
        else:
            old = load()
            v, vt = self.value(rhs)
            binop = op[:-1]
            comp = usual(t, vt) if binop not in ("<<", ">>") else usual(t, t)
            v = self.arith(binop, self.convert(old, t, comp, e), self.convert(v, vt, comp, e), comp, e,
                           rhs)
            v = self.convert(v, comp, t, e)
        store(v)
        return v, t

    def _assign_index(self, b, s, e, op, rhs, discard):
        try:
            x = self.affine(rhs)
        except NotAffine as err:
            raise Demote(b.key, f"'{b.name}' is assigned '{c_text(rhs)}': {err.reason}") from None
        if op == "=":
            new = x
        elif op in ("+=", "-="):
            old = self.affine(s)
            new = old + x if op == "+=" else old - x
        elif op == "*=" and (x.is_const or not self.affine(s).dims()):
            new = self.affine(s) * x
        elif op == "/=" and x.is_const and x.const > 0 and not (old := self.affine(s)).dims():
            # OpenCV's `step1 /= sizeof(src1[0])`: a size divided as C truncates
            known = old.subst(self.values) if self.values else old
            if known.is_const:
                new = Poly.number(abs(known.const) // x.const * (1 if known.const >= 0 else -1))
            else:
                new = self.derived_symbol(e, old, "/", x.const)
        else:
            raise Demote(b.key, f"'{c_text(e)}' is not an affine update")
        self.ivals[b.key] = new
        if discard:
            return None, b.type
        return self.convert(self.value_of_aff(new, e), "index", b.type, e), b.type

    def _assign_pointer(self, b, e, op, rhs):
        if op == "=":
            self.ivals[b.key] = self.retarget(self.pval(rhs), b.ctype, e)
        elif op in ("+=", "-="):
            old = self.pval(expr_children(e)[0])
            d = self.subscript(rhs, e) * self._unit(old)
            self.ivals[b.key] = View(old.base, old.offset + (d if op == "+=" else d.scale(-1)), old.dims, old.unit, old.in_bytes)
        else:
            raise Refuse(e, f"pointer update '{c_text(e)}' is not supported")
        return None, "ptr"

    @staticmethod
    def _unit(v: View):
        from synth.frontend.c.access import stride

        return stride(v.dims).scale(v.unit)

    def arith(self, op: str, a: str, b: str, t: str, c, divisor=None) -> str:
        if t in FLOATS:
            if op not in _FLOAT_ARITH:
                raise Refuse(c, f"operator '{op}' on floating-point values is not supported")
            return self.op(f"{_FLOAT_ARITH[op]} {a}, {b} : {t}", c)
        if op not in _INT_ARITH:
            raise Refuse(c, f"operator '{op}' is not supported")
        if op in ("/", "%") and self.pred is not None:
            d = self.const_int(divisor) if divisor is not None else None
            if not d:
                raise Refuse(c, f"integer division '{c_text(c)}' under a condition on data (the "
                                 f"translation evaluates both sides of the condition, and the "
                                 f"divisor may be zero where the condition is false)")
        name = _UNSIGNED_ARITH.get(op, _INT_ARITH[op]) if unsigned(t) else _INT_ARITH[op]
        return self.op(f"{name} {a}, {b} : {mlir(t)}", c)

    # --- values -------------------------------------------------------------------------

    def value(self, c, discard: bool = False) -> tuple[str | None, str]:
        """SSA value of an expression, in the type of its C type."""
        k = c.kind
        if k in (CK.INTEGER_LITERAL, CK.FLOATING_LITERAL) or (
                k not in (CK.DECL_REF_EXPR,) and self._foldable(c) and k != CK.CONDITIONAL_OPERATOR):
            v = evaluate(c)
            if v is not None:
                t = self.ctype(c)
                return self.const(v, t, c), t
            if k in (CK.INTEGER_LITERAL, CK.FLOATING_LITERAL):
                raise Refuse(c, "cannot evaluate literal")
        if k == CK.PAREN_EXPR:
            return self.value(only_child(c), discard)
        if _is_pointer(c) and k not in (CK.CALL_EXPR,):
            return self._pointer_effect(c, discard)
        if k in (CK.UNEXPOSED_EXPR, CK.CSTYLE_CAST_EXPR):
            kids = expr_children(c)
            if not kids:
                raise Refuse(c, f"unsupported expression '{c_text(c)}'")
            if k == CK.CSTYLE_CAST_EXPR and c.type.get_canonical().kind == TK.VOID:
                return self.value(kids[-1], True)
            inner = kids[-1]
            if inner.type.get_canonical().kind == TK.FUNCTIONPROTO:
                raise Refuse(c, f"function '{c_text(inner)}' used as a value")
            t = self.ctype(c)
            v, vt = self.value(inner)
            return self.convert(v, vt, t, c), t
        if k == CK.DECL_REF_EXPR:
            return self._name_value(c)
        if k == CK.ARRAY_SUBSCRIPT_EXPR:
            return self.load(c)
        if k == CK.BINARY_OPERATOR:
            return self._binary(c, binary_operator(c), discard)
        if k == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            return self.assign(c, binary_operator(c), discard)
        if k == CK.UNARY_OPERATOR:
            return self._unary(c, unary_operator(c), discard)
        if k == CK.CONDITIONAL_OPERATOR:
            return self._conditional(c)
        if k == CK.CALL_EXPR:
            return self.call(c)
        if k == CK.MEMBER_REF_EXPR:
            raise Refuse(c, f"struct member access '{c_text(c)}' is not supported")
        if k == CK.STRING_LITERAL:
            raise Refuse(c, "string literals are not supported")
        raise Refuse(c, f"expression '{c_text(c)}' ({k.name.lower()}) is not supported")

    def _pointer_effect(self, c, discard: bool):
        """A pointer-typed expression evaluated for its effect (`p++;`, `p = q;`)."""
        s = strip_casts(c)
        if s.kind == CK.BINARY_OPERATOR and binary_operator(s) == "=" or s.kind == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            return self.assign(s, binary_operator(s), discard)
        if s.kind == CK.UNARY_OPERATOR and unary_operator(s) in _STEPS:
            self.step_pointer(s, unary_operator(s))
            return None, "ptr"
        if not discard:
            raise Refuse(c, f"pointer value '{c_text(c)}' used as a number")
        self.pval(c)
        return None, "ptr"

    def _name_value(self, c):
        b = self.binding(c)
        if b is None:
            v = evaluate(c)
            if v is None:
                raise Refuse(c, f"unsupported reference to '{c.spelling}'")
            t = self.ctype(c)
            return self.const(v, t, c), t
        if b.kind == "arg":
            if b.name in self.sizes and is_int(b.type):
                return self.const(self.sizes[b.name], b.type, c), b.type
            return b.ssa, b.type
        if b.kind == "mem":
            return self.op(f"affine.load {b.ssa}[] : memref<{mlir(b.type)}>", c), b.type
        if b.kind in ("loopvar", "index"):
            v = self.value_of_aff(self.affine(c), c)
            return self.convert(v, "index", b.type, c), b.type
        raise Refuse(c, f"array '{b.name}' used as a value (only its elements)")

    def _binary(self, c, op: str, discard: bool):
        if op == "=":
            return self.assign(c, op, discard)
        if op == ",":
            a, b = expr_children(c)
            self.value(a, True)
            return self.value(b, discard)
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            v = self.cond(c)
            t = self.ctype(c)
            return self.convert(v, "i1", t, c), t
        t = self.ctype(c)
        a, b = expr_children(c)
        va, ta = self.value(a)
        vb, tb = self.value(b)
        # C converts both operands to the result type (a shift: the count to the left's)
        return self.arith(op, self.convert(va, ta, t, c), self.convert(vb, tb, t, c), t, c, b), t

    def _unary(self, c, op: str, discard: bool):
        inner = only_child(c)
        if op in _STEPS:
            b, s = self._target(inner)
            if b is not None:
                old = self.affine(s)
                self.ivals[b.key] = old.plus(1 if op.endswith("++") else -1)
                if discard:
                    return None, b.type
                v = old if op.startswith("post") else self.ivals[b.key]
                return self.convert(self.value_of_aff(v, c), "index", b.type, c), b.type
            load, store, t = self.lvalue(inner)
            old = load()
            one = self.const(1, t, c)
            new = self.arith("+" if op.endswith("++") else "-", old, one, t, c)
            store(new)
            return (old if op.startswith("post") else new), t
        if op == "*":
            return self.load(c)
        if op == "&":
            raise Refuse(c, f"address-of '{c_text(c)}' used as a number")
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
            if t in FLOATS:
                return self.op(f"arith.negf {v} : {t}", c), t
            return self.op(f"arith.subi {self.const(0, t, c)}, {v} : {mlir(t)}", c), t
        if op == "~":
            return self.op(f"arith.xori {v}, {self.const(-1, t, c)} : {mlir(t)}", c), t
        raise Refuse(c, f"operator '{op}' is not supported")

    def _conditional(self, c):
        cond, a, b = expr_children(c)
        t = self.ctype(c)
        if self._reads_memory(a) or self._reads_memory(b):
            # an affine condition may guard an access (`i > 0 ? A[i - 1] : 0.0`): only
            # the chosen operand is evaluated, in an affine.if with results
            try:
                dnf = self.condition(cond)
                neg = self._negate(dnf, cond)
            except NotAffine:
                dnf = None
            if dnf is not None:
                if len(neg) < len(dnf):
                    dnf, a, b = neg, b, a
                return self._if_value(c, dnf, a, b, t), t
        p = self.cond(cond)
        va, ta = self.value(a)
        vb, tb = self.value(b)
        va, vb = self.convert(va, ta, t, c), self.convert(vb, tb, t, c)
        return self.op(f"arith.select {p}, {va}, {vb} : {mlir(t)}", c), t

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
        ops, cs = self.constraints(conj, c)
        r = self.fresh()
        self.body.append("  " * self.indent + f"{r} = affine.if affine_set<{ops.header()} : ({cs})>"
                         f"{ops.uses()} -> {mlir(t)} {{")
        self.indent += 1
        saved = self.tighten(conj)
        v, vt = self.value(a)
        self.ranges = saved
        self.emit(f"affine.yield {self.convert(v, vt, t, a)} : {mlir(t)}", a)
        self.indent -= 1
        self.body.append("  " * self.indent + "} else {")
        self.indent += 1
        v = self._if_value(c, rest, a, b, t)
        self.emit(f"affine.yield {v} : {mlir(t)}", b)
        self.indent -= 1
        self.body.append("  " * self.indent + "} " + self.loc(c))
        return r

    def constraints(self, conj: list, c) -> tuple[Operands, str]:
        """The operands and the text of an affine set's constraints."""
        lowered = [(self.lower(e, c), eq) for e, eq in conj]
        ops = Operands()
        for e, _ in lowered:
            ops.add(e)
        cs = ", ".join(f"{render_poly(e, ops.name)} {'==' if eq else '>='} 0" for e, eq in lowered)
        return ops, cs

    def cond(self, c) -> str:
        """An i1 value of a condition."""
        s = c
        while s.kind == CK.PAREN_EXPR:
            s = only_child(s)
        known = self.null_test(s, bare=True)  # `p == NULL`, `!p` of an array
        if known is not None:
            return self.const(int(known), "i1", s)
        if s.kind == CK.BINARY_OPERATOR:
            op = binary_operator(s)
            a, b = expr_children(s)
            if op in ("&&", "||"):
                x, y = self.cond(a), self.cond(b)
                return self.op(f"arith.{'andi' if op == '&&' else 'ori'} {x}, {y} : i1", s)
            if op in _CMPI:
                va, ta = self.value(a)
                vb, tb = self.value(b)
                t = usual(ta, tb)
                va, vb = self.convert(va, ta, t, s), self.convert(vb, tb, t, s)
                if t in FLOATS:
                    return self.op(f"arith.cmpf {_CMPF[op]}, {va}, {vb} : {t}", s)
                table = _CMPU if unsigned(t) else _CMPI
                return self.op(f"arith.cmpi {table[op]}, {va}, {vb} : {mlir(t)}", s)
        if s.kind == CK.UNARY_OPERATOR and unary_operator(s) == "!":
            v = self.cond(only_child(s))
            return self.op(f"arith.xori {v}, {self.const(1, 'i1', s)} : i1", s)
        test = _CLASSIFY.get(s.spelling) if s.kind == CK.CALL_EXPR else None
        if test is not None and test != "inf_sign":  # `if (isnan(x))`: the comparison itself
            return self.classify(s, test)
        v, t = self.value(c)
        return self.convert(v, t, "i1", c)

    def classify(self, c, test: str) -> str:
        """`isnan(x)` (x unordered with itself), `isinf(x)`, `isfinite(x)`: comparisons
        of x (i1); `isinf` as glibc defines it (1 at +inf, -1 at -inf, else 0) an int."""
        args = list(c.get_arguments())
        if len(args) != 1:
            raise Refuse(c, f"'{c.spelling}' takes 1 argument")
        v, t = self.value(args[0])
        if t not in FLOATS:
            v, t = self.convert(v, t, "f64", args[0]), "f64"
        if test == "nan":
            return self.op(f"arith.cmpf uno, {v}, {v} : {t}", c)
        inf = self.const(float("inf"), t, c)
        if test == "inf_sign":
            minus = self.const(float("-inf"), t, c)
            up = self.op(f"arith.cmpf oeq, {v}, {inf} : {t}", c)
            down = self.op(f"arith.cmpf oeq, {v}, {minus} : {t}", c)
            one, none, zero = (self.const(k, "i32", c) for k in (1, -1, 0))
            low = self.op(f"arith.select {down}, {none}, {zero} : i32", c)
            return self.op(f"arith.select {up}, {one}, {low} : i32", c)
        a = self.op(f"math.absf {v} : {t}", c)
        return self.op(f"arith.cmpf {'oeq' if test == 'inf' else 'olt'}, {a}, {inf} : {t}", c)

    # --- calls --------------------------------------------------------------------------

    def call(self, c) -> tuple[str, str]:
        name = c.spelling
        callee = c.referenced
        if name in _INFINITY:
            t = self.ctype(c)
            return self.const(float("inf"), t, c), t
        if name in _CLASSIFY:
            v, t = self.classify(c, _CLASSIFY[name]), self.ctype(c)
            return self.convert(v, "i32" if _CLASSIFY[name] == "inf_sign" else "i1", t, c), t
        fdef = callee.get_definition() if callee is not None else None
        if fdef is not None and fdef.location.file is not None and same_file(
                fdef.location.file.name, self.path) and name not in _MATH:
            return self.inline(c, fdef)
        if name not in _MATH or callee is None:
            raise Refuse(c, f"call to unknown function '{name}' is not static control (only "
                             f"functions defined in the file, "
                             f"{', '.join(sorted(n for n in _MATH if not n.endswith('f') or n == 'fabs'))} "
                             f"and their 'f' variants are translated)")
        opname, nargs = _MATH[name]
        args = list(c.get_arguments())
        if len(args) != nargs:
            raise Refuse(c, f"'{name}' takes {nargs} argument(s)")
        t = self.ctype(c)
        vals = []
        for a in args:
            v, vt = self.value(a)
            vals.append(self.convert(v, vt, t, a))
        return self.op(f"{opname} {', '.join(vals)} : {mlir(t)}", c), t

    def inline(self, c, fdef) -> tuple[str | None, str]:
        """A call of a function defined in the file, translated in place: its parameters
        bound to the arguments (pointers to their views, integers to their closed forms
        where affine), its body translated, its final `return` the value."""
        if fdef.hash in self.inlining:
            raise Refuse(c, f"recursive call of '{fdef.spelling}' is not supported")
        params = [p for p in fdef.get_children() if p.kind == CK.PARM_DECL]
        args = list(c.get_arguments())
        if len(params) != len(args):
            raise Refuse(c, f"call of '{fdef.spelling}' with {len(args)} argument(s) for "
                             f"{len(params)} parameter(s)")
        changed = self.modified_in(fdef)
        for p, a in zip(params, args):
            self.bind_argument(p, a, p.hash in changed)
        body = next((k for k in fdef.get_children() if k.kind == CK.COMPOUND_STMT), None)
        stmts = list(body.get_children()) if body is not None else []
        rkind = fdef.result_type.get_canonical().kind
        result = None if rkind == TK.VOID else self.scalar_type(
            fdef.result_type, fdef, f"the result of '{fdef.spelling}'")
        self.inlining.add(fdef.hash)
        try:
            if self.has_early_returns(stmts):  # its quick returns, as a function's
                return self.returned(stmts, result, c), result or "void"
            for j, s in enumerate(stmts):
                if s.kind == CK.RETURN_STMT and j == len(stmts) - 1:
                    kids = expr_children(s)
                    if not kids:
                        return None, "void"
                    v, t = self.value(kids[0])
                    return self.convert(v, t, result, s), result
                self.stmt(s)
        finally:
            self.inlining.discard(fdef.hash)
        if result is not None:
            raise Refuse(fdef, f"function '{fdef.spelling}' does not end with 'return'")
        return None, "void"

    def one_line_helper(self, c):
        """The returned expression of a call of a function of the file whose body is only
        `return e;` with integer parameters given affine arguments (Caffe's
        `is_a_ge_zero_and_a_lt_b(a, b)`), its parameters bound: a condition may read it
        as affine; None otherwise."""
        callee = c.referenced
        fdef = callee.get_definition() if callee is not None else None
        if fdef is None or fdef.location.file is None or not same_file(
                fdef.location.file.name, self.path) or fdef.hash in self.inlining:
            return None
        body = next((k for k in fdef.get_children() if k.kind == CK.COMPOUND_STMT), None)
        stmts = list(body.get_children()) if body is not None else []
        params = [p for p in fdef.get_children() if p.kind == CK.PARM_DECL]
        args = list(c.get_arguments())
        if len(stmts) != 1 or stmts[0].kind != CK.RETURN_STMT or not expr_children(stmts[0]) \
                or len(params) != len(args) or self.modified_in(fdef):
            return None
        for p, a in zip(params, args):
            t = SCALARS.get(p.type.get_canonical().kind)
            if t is None or not is_int(t):
                return None
            try:
                self.ivals[p.hash] = self.affine(a, pure=True)
            except NotAffine:
                return None
            self.env[p.hash] = Binding("index", None, t, name=p.spelling, key=p.hash)
        return expr_children(stmts[0])[0]

    def bind_argument(self, p, a, changed: bool) -> None:
        name = p.spelling or "parameter"
        canon = p.type.get_canonical()
        if canon.kind in (TK.POINTER, *ARRAYS):
            b = Binding("pointer", None, "", name=name, key=p.hash)
            b.ctype = p.type
            self.ivals[p.hash] = self.retarget(self.pval(a), p.type, p)
            self.env[p.hash] = b
            return
        t = self.scalar_type(p.type, p, f"parameter '{name}'")
        if is_int(t) and not changed and p.hash not in self.plan.demoted:
            try:
                self.ivals[p.hash] = self.affine(a)
                self.env[p.hash] = Binding("index", None, t, name=name, key=p.hash)
                return
            except NotAffine:
                pass
        v, vt = self.value(a)
        v = self.convert(v, vt, t, a)
        if changed:
            mem = self.local_buffer(t, p)
            self.emit(f"affine.store {v}, {mem}[] : memref<{mlir(t)}>", p)
            self.env[p.hash] = Binding("mem", mem, t, name=name)
        else:
            self.env[p.hash] = Binding("arg", v, t, name=name)
