"""Last layer of the function translator: the function (signature, parameters, body,
`return`), its statements and declarations, `for` loops as `affine.for` and `if` as
`affine.if`, and the refusal of what is not static control."""

from __future__ import annotations

import re

import clang.cindex as ci
from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.errors import InputError
from synth.frontend.c.expressions import _ExprTranslator
from synth.frontend.c.libclang import _binop, _unop
from synth.frontend.c.model import (
    _Aff,
    _Binding,
    _expr_children,
    _NotAffine,
    _only_child,
    _Operands,
    _Refuse,
    _render,
    _strip,
    _text,
)

_REFUSED_STMTS = {
    CK.WHILE_STMT: "'while' loop is not static control (only for loops with affine bounds)",
    CK.DO_STMT: "'do' loop is not static control (only for loops with affine bounds)",
    CK.GOTO_STMT: "'goto' is not static control",
    CK.INDIRECT_GOTO_STMT: "'goto' is not static control",
    CK.LABEL_STMT: "labels ('goto' targets) are not static control",
    CK.BREAK_STMT: "'break' is not static control (loops must run their full affine range)",
    CK.CONTINUE_STMT: "'continue' is not static control (use an 'if' around the rest of the body)",
    CK.SWITCH_STMT: "'switch' is not static control",
    CK.CASE_STMT: "'switch' is not static control",
    CK.DEFAULT_STMT: "'switch' is not static control",
    CK.ASM_STMT: "inline assembly is not supported",
}


class _FunctionTranslator(_ExprTranslator):
    """One C function to a `func.func` text."""

    # --- the function -------------------------------------------------------------------

    def translate(self) -> str:
        f = self.func
        try:
            return self._translate()
        except _Refuse as e:
            raise InputError(e.message, self.where(e.cursor)) from None
        except _NotAffine as e:
            raise InputError(f"'{_text(e.cursor)}' is not affine: {e.reason}", self.where(e.cursor)) from None
        except RecursionError:
            raise InputError(f"function '{f.spelling}' is too deeply nested", self.where(f)) from None

    def _translate(self) -> str:
        f = self.func
        body = next((k for k in f.get_children() if k.kind == CK.COMPOUND_STMT), None)
        self._prescan(body)
        args = []
        for i, p in enumerate(k for k in f.get_children() if k.kind == CK.PARM_DECL):
            ssa = f"%arg{i}"
            name = p.spelling or f"#{i + 1}"
            canon = p.type.get_canonical()
            if canon.kind in (TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY):
                shape, elem = self.array_shape(p.type, p, name)
                args.append(f"{ssa}: {self.memref(shape, elem)} {self.loc(p)}")
                self.env[p.hash] = _Binding("array", ssa, elem, shape, name=name, param_index=i)
                continue
            if canon.kind == TK.POINTER:
                raise _Refuse(p, f"pointer parameter '{name}' ('{p.type.spelling}') is not static "
                                 f"control: declare it as an array with constant extents, e.g. "
                                 f"'double {name}[N]'")
            t = self.scalar_type(p.type, p, f"parameter '{name}'")
            args.append(f"{ssa}: {t} {self.loc(p)}")
            if p.hash in self.loop_vars:
                raise _Refuse(p, f"parameter '{name}' is used as a loop index")
            if p.hash in self.assigned:  # a local copy that the function may change
                mem = self.fresh("alloca")
                self.prologue.append(f"    {mem} = memref.alloca() : memref<{t}> {self.loc(p)}")
                self.prologue.append(f"    affine.store {ssa}, {mem}[] : memref<{t}> {self.loc(p)}")
                self.env[p.hash] = _Binding("mem", mem, t, name=name)
            else:
                self.env[p.hash] = _Binding("arg", ssa, t, name=name, param_index=i)
        rkind = f.result_type.get_canonical().kind
        result = (None if rkind == TK.VOID
                  else self.scalar_type(f.result_type, f, f"the result of '{f.spelling}'"))
        stmts = list(body.get_children()) if body is not None else []
        ret = None
        for j, s in enumerate(stmts):
            if s.kind == CK.RETURN_STMT and j == len(stmts) - 1:
                ret = s
                break
            self.stmt(s)
        ret_line = "return"
        loc_c = ret if ret is not None else f
        if ret is not None:
            kids = _expr_children(ret)
            if kids and result is None:
                raise _Refuse(ret, "'return' with a value in a void function")
            if kids:
                v, t = self.value(kids[0])
                v = self.convert(v, t, result, ret)
                ret_line = f"return {v} : {result}"
        elif result is not None:
            raise _Refuse(f, f"function '{f.spelling}' returns {result} but does not end with "
                             f"'return'")
        self.body.append(f"    {ret_line} {self.loc(loc_c)}")
        # locals never read or written (e.g. `int i, j;` where j is unused) need no buffer
        used = "\n".join(self.body + self.prologue)
        prologue = [line for line in self.prologue if not (
            "memref.alloca()" in line
            and len(re.findall(re.escape(line.split("=")[0].strip()) + r"(?!\w)", used)) == 1)]
        sig = ", ".join(args)
        res = f" -> {result}" if result else ""
        lines = [f"  func.func @{f.spelling}({sig}){res} {{", *prologue, *self.body,
                 f"  }} {self.loc(f)}"]
        return "\n".join(lines)

    def _prescan(self, c) -> None:
        """Loop variables (declared anywhere) and variables assigned somewhere."""
        if c is None:
            return
        for k in c.walk_preorder():
            if k.kind == CK.FOR_STMT:
                var = self._loop_var(k, quiet=True)
                if var is not None:
                    self.loop_vars.add(var.hash)
            lhs = None
            if k.kind == CK.BINARY_OPERATOR and _binop(k) == "=" or k.kind == CK.COMPOUND_ASSIGNMENT_OPERATOR:
                lhs = _expr_children(k)[0]
            elif k.kind == CK.UNARY_OPERATOR and _unop(k) in ("post++", "post--", "pre++", "pre--"):
                lhs = _only_child(k)
            if lhs is not None:
                lhs = _strip(lhs)
                if lhs.kind == CK.DECL_REF_EXPR and lhs.referenced is not None:
                    self.assigned.add(lhs.referenced.hash)

    # --- statements ---------------------------------------------------------------------

    def stmt(self, s) -> None:
        k = s.kind
        if k == CK.COMPOUND_STMT:
            for ch in s.get_children():
                self.stmt(ch)
        elif k == CK.NULL_STMT:
            pass
        elif k == CK.DECL_STMT:
            for d in s.get_children():
                self.declare(d)
        elif k == CK.FOR_STMT:
            self.for_stmt(s)
        elif k == CK.IF_STMT:
            self.if_stmt(s)
        elif k == CK.RETURN_STMT:
            raise _Refuse(s, "'return' before the end of the function is not static control")
        elif k in _REFUSED_STMTS:
            raise _Refuse(s, _REFUSED_STMTS[k])
        elif k.is_expression():
            self.expr_stmt(s)
        else:
            raise _Refuse(s, f"statement '{k.name.lower()}' is not supported")

    def declare(self, d) -> None:
        if d.kind != CK.VAR_DECL:
            if d.kind in (CK.STRUCT_DECL, CK.UNION_DECL, CK.TYPEDEF_DECL, CK.ENUM_DECL):
                return
            raise _Refuse(d, f"declaration '{d.spelling}' is not supported")
        name = d.spelling
        if d.storage_class in (ci.StorageClass.STATIC, ci.StorageClass.EXTERN):
            raise _Refuse(d, f"'{d.storage_class.name.lower()}' local '{name}' is not supported")
        canon = d.type.get_canonical()
        init = [k for k in d.get_children() if k.kind != CK.TYPE_REF and k.kind.is_expression()]
        if canon.kind in (TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY):
            if canon.kind != TK.CONSTANTARRAY:
                raise _Refuse(d, f"local array '{name}' has a run-time extent: only constant "
                                 f"extents are static")
            shape, elem = self.array_shape(d.type, d, name)
            # the children are the extents, then an initialiser list if there is one
            if any(k.kind in (CK.INIT_LIST_EXPR, CK.STRING_LITERAL) for k in init):
                raise _Refuse(d, f"initialiser of local array '{name}' is not supported (assign the "
                                 f"elements in a loop)")
            mem = self.fresh("alloca")
            self.prologue.append(f"    {mem} = memref.alloca() : {self.memref(shape, elem)} {self.loc(d)}")
            self.env[d.hash] = _Binding("array", mem, elem, shape, name=name)
            return
        t = self.scalar_type(d.type, d, f"local '{name}'")
        if d.hash in self.loop_vars:
            if t not in ("i32", "i64"):
                raise _Refuse(d, f"loop index '{name}' must be an int or long")
            self.env[d.hash] = _Binding("loopvar", None, t, name=name)
            return  # its initial value is never read (reads outside its loops are refused)
        mem = self.fresh("alloca")
        self.prologue.append(f"    {mem} = memref.alloca() : memref<{t}> {self.loc(d)}")
        self.env[d.hash] = _Binding("mem", mem, t, name=name)
        if init:
            v, vt = self.value(init[-1])
            v = self.convert(v, vt, t, d)
            self.emit(f"affine.store {v}, {mem}[] : memref<{t}>", d)

    def _loop_var(self, s, quiet: bool = False):
        """The declaration of a for loop's index, from its initialisation."""
        kids = list(s.get_children())
        if len(kids) != 4:
            if quiet:
                return None
            raise _Refuse(s, "'for' loop without initialisation, condition and increment is not "
                             "static control")
        init = kids[0]
        if init.kind == CK.DECL_STMT:
            decls = [d for d in init.get_children() if d.kind == CK.VAR_DECL]
            if len(decls) == 1:
                return decls[0]
        elif init.kind == CK.BINARY_OPERATOR and _binop(init) == "=":
            lhs = _strip(_expr_children(init)[0])
            if lhs.kind == CK.DECL_REF_EXPR and lhs.referenced is not None:
                return lhs.referenced
        if quiet:
            return None
        raise _Refuse(init, "'for' loop initialisation must assign one integer index "
                            "('i = lb' or 'int i = lb')")

    def for_stmt(self, s) -> None:
        var = self._loop_var(s)
        init, cond, inc, body = s.get_children()
        b = self.env.get(var.hash)
        if b is None and init.kind == CK.DECL_STMT:
            self.declare(var)
            b = self.env[var.hash]
        if b is None or b.kind != "loopvar":
            raise _Refuse(init, f"'{var.spelling}' cannot be a loop index (a parameter or global)")
        if b.aff is not None:
            raise _Refuse(init, f"loop index '{b.name}' of an enclosing loop is reassigned")
        if init.kind == CK.DECL_STMT:
            vals = [k for k in var.get_children() if k.kind != CK.TYPE_REF and k.kind.is_expression()]
            if not vals:
                raise _Refuse(init, f"loop index '{b.name}' has no initial value")
            lb_expr = vals[-1]
        else:
            lb_expr = _expr_children(init)[1]
        lb = self._affine_or_refuse(lb_expr, "loop lower bound")
        step = self._step(inc, var, b.name)
        ub_expr, cmp = self._condition(cond, var, b.name)
        bound = self._affine_or_refuse(ub_expr, "loop bound")
        iv = self.fresh("i")
        if step > 0:
            if cmp not in ("<", "<="):
                raise _Refuse(cond, f"condition '{_text(cond)}' does not bound the increasing index "
                                    f"'{b.name}' from above")
            ub = bound.plus(1) if cmp == "<=" else bound
            head = f"affine.for {iv} {self.loc(var)} = {self.bound(lb)} to {self.bound(ub)}"
            if step != 1:
                head += f" step {step}"
            b.aff = _Aff.var("d", iv)
        else:
            if cmp not in (">", ">="):
                raise _Refuse(cond, f"condition '{_text(cond)}' does not bound the decreasing index "
                                    f"'{b.name}' from below")
            lo = bound.plus(1) if cmp == ">" else bound
            k = -step  # i = lb - k * t for t in [0, (lb - lo) floordiv k]
            head = f"affine.for {iv} {self.loc(var)} = 0 to {self.bound(lb - lo, floordiv=k, plus=1)}"
            b.aff = lb - _Aff.var("d", iv).scale(k)
        self.body.append("  " * self.indent + head + " {")
        self.indent += 1
        try:
            self.stmt(body)
        finally:
            self.indent -= 1
            b.aff = None
        self.body.append("  " * self.indent + "} " + self.loc(s))

    def _is_var(self, c, var) -> bool:
        c = _strip(c)
        return c.kind == CK.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash == var.hash

    def _step(self, inc, var, name: str) -> int:
        k = inc.kind
        if k == CK.UNARY_OPERATOR and self._is_var(_only_child(inc), var):
            op = _unop(inc)
            if op in ("post++", "pre++"):
                return 1
            if op in ("post--", "pre--"):
                return -1
        elif k == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            lhs, rhs = _expr_children(inc)
            op = _binop(inc)
            c = self.const_int(rhs)
            if self._is_var(lhs, var) and op in ("+=", "-=") and c:
                return c if op == "+=" else -c
        elif k == CK.BINARY_OPERATOR and _binop(inc) == "=":
            lhs, rhs = _expr_children(inc)
            r = _strip(rhs)
            if self._is_var(lhs, var) and r.kind == CK.BINARY_OPERATOR and _binop(r) in ("+", "-"):
                a, bb = _expr_children(r)
                op = _binop(r)
                if self._is_var(a, var) and self.const_int(bb):
                    return self.const_int(bb) * (1 if op == "+" else -1)
                if op == "+" and self._is_var(bb, var) and self.const_int(a):
                    return self.const_int(a)
        raise _Refuse(inc, f"loop increment '{_text(inc)}' must step '{name}' by a nonzero constant "
                           f"('{name}++', '{name} += c', '{name}--')")

    def _condition(self, cond, var, name: str):
        c = _strip(cond)
        if c.kind == CK.BINARY_OPERATOR and _binop(c) in ("<", "<=", ">", ">="):
            a, b = _expr_children(c)
            op = _binop(c)
            if self._is_var(a, var):
                return b, op
            if self._is_var(b, var):
                return a, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
        raise _Refuse(cond, f"loop condition '{_text(cond)}' must compare the index '{name}' with an "
                            f"affine bound ('{name} < ub', '{name} <= ub')")

    def _affine_or_refuse(self, c, what: str) -> _Aff:
        try:
            return self.affine(c)
        except _NotAffine as e:
            raise _Refuse(e.cursor, f"{what} '{_text(c)}' is not affine: {e.reason} (data-dependent "
                                    f"bounds are not static control)") from None

    def if_stmt(self, s) -> None:
        kids = [k for k in s.get_children() if not k.kind.is_declaration()]
        cond, then = kids[0], kids[1]
        other = kids[2] if len(kids) > 2 else None
        try:
            dnf = self.condition(cond)
            neg = self._negate(dnf, cond)
        except _NotAffine as e:
            raise _Refuse(cond, f"'if' condition '{_text(cond)}' is not affine: {e.reason} "
                                f"(data-dependent conditions are not static control; write a "
                                f"data-dependent choice as 'c ? a : b')") from None
        if len(neg) < len(dnf):  # `i != j`: one equality with the branches swapped
            dnf, then, other = neg, other, then
        self._if_chain(s, dnf, then, other)

    def _if_chain(self, s, dnf: list, then, other) -> None:
        """`if (c1 || c2 ...) then else other` as nested affine.if: each ci a conjunction."""
        if not dnf:  # false
            if other is not None:
                self.stmt(other)
            return
        conj, rest = dnf[0], dnf[1:]
        if not conj:  # true
            if then is not None:
                self.stmt(then)
            return
        ops = _Operands()
        for e, _ in conj:
            ops.add(e)
        cs = ", ".join(f"{_render(e, ops.name)} {'==' if eq else '>='} 0" for e, eq in conj)
        if not ops.dims and not ops.syms:  # constant constraints only: decide here
            holds = all((e.const == 0) if eq else (e.const >= 0) for e, eq in conj)
            self._if_chain(s, [[]] if holds else rest, then, other)
            return
        head = f"affine.if affine_set<{ops.header()} : ({cs})>{ops.uses()}"
        self.body.append("  " * self.indent + head + " {")
        self.indent += 1
        if then is not None:
            self.stmt(then)
        self.indent -= 1
        if rest or other is not None:
            self.body.append("  " * self.indent + "} else {")
            self.indent += 1
            self._if_chain(s, rest, then, other)
            self.indent -= 1
        self.body.append("  " * self.indent + "} " + self.loc(s))

    def expr_stmt(self, s) -> None:
        e = _strip(s) if s.kind == CK.PAREN_EXPR else s
        if e.kind == CK.CSTYLE_CAST_EXPR and e.type.get_canonical().kind == TK.VOID:
            kids = _expr_children(e)
            if kids:
                self.expr_stmt(kids[-1])
            return
        if e.kind == CK.BINARY_OPERATOR and _binop(e) == ",":
            a, b = _expr_children(e)
            self.expr_stmt(a)
            self.expr_stmt(b)
            return
        self.value(e, discard=True)
