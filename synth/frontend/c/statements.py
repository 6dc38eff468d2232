"""Last layer of the function translator: the function (signature, parameters, body,
`return`), its statements and declarations, `for` loops as `affine.for` (with the
integer locals and pointers that advance in them, synth.frontend.c.evolution), `if` on
affine conditions as `affine.if` and on data as selects (if-conversion: the statements
run under a predicate; the integer locals and pointers each branch moves are merged after
it: kept where the branches agree, unknown otherwise), and the refusal of what is outside
that."""

from __future__ import annotations

import re

import clang.cindex as ci
from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.errors import InputError
from synth.frontend.c import evolution, extremes, jumps, layout
from synth.frontend.c.access import ARRAYS
from synth.frontend.c.access import stride as _stride_of
from synth.frontend.c.returns import (
    ReturnTranslator,
    Rest,
    early_return,
    early_returns,
    ends_in_branches,
)
from synth.frontend.c.libclang import binary_operator, unary_operator
from synth.frontend.c.model import (
    Binding,
    Demote,
    expr_children,
    NotAffine,
    Refuse,
    strip_casts,
    c_text,
    View,
)
from synth.frontend.c.poly import Poly
from synth.frontend.c.scalars import is_int, mlir

_REFUSED_STMTS = {
    CK.GOTO_STMT: "'goto' is not static control",
    CK.INDIRECT_GOTO_STMT: "'goto' is not static control",
    CK.LABEL_STMT: "labels ('goto' targets) are not static control",
    CK.BREAK_STMT: "'break' is not static control (loops must run their full affine range)",
    CK.CONTINUE_STMT: "'continue' outside a loop body",
    CK.SWITCH_STMT: "'switch' is not static control",
    CK.CASE_STMT: "'switch' is not static control",
    CK.DEFAULT_STMT: "'switch' is not static control",
    CK.ASM_STMT: "inline assembly is not supported",
}


class FunctionTranslator(ReturnTranslator):
    """One C function to a `func.func` text."""

    # --- the function -------------------------------------------------------------------

    def translate(self) -> str:
        return self.guarded(self._translate)

    def guarded(self, fn):
        """`fn()`, its refusals as InputErrors at their C location."""
        f = self.func
        try:
            return fn()
        except Refuse as e:
            raise InputError(e.message, self.where(e.cursor)) from None
        except NotAffine as e:
            raise InputError(f"'{c_text(e.cursor)}' is not affine: {e.reason}", self.where(e.cursor)) from None
        except evolution.NoClosedForm as e:
            raise InputError(e.reason, self.where(e.cursor)) from None
        except RecursionError:
            raise InputError(f"function '{f.spelling}' is too deeply nested", self.where(f)) from None

    def _translate(self) -> str:
        f = self.func
        body = next((k for k in f.get_children() if k.kind == CK.COMPOUND_STMT), None)
        self._prescan(body)
        params = self._parameters(f)
        rkind = f.result_type.get_canonical().kind
        result = (None if rkind == TK.VOID
                  else self.scalar_type(f.result_type, f, f"the result of '{f.spelling}'"))
        stmts = list(body.get_children()) if body is not None else []
        ret = stmts[-1] if stmts and stmts[-1].kind == CK.RETURN_STMT else None
        ret_line = "return"
        if result is not None and early_returns(stmts):
            # quick returns: every path stores the value it returns
            if ret is None and not ends_in_branches(stmts):
                raise Refuse(f, f"function '{f.spelling}' returns {result} but does not end "
                                 f"with 'return'")
            v = self.returned(stmts, result, f)
            ret_line = f"return {v} : {mlir(result)}"
        elif ret is not None:
            self.block(stmts[:-1], top=True)
        else:
            self.block(stmts, top=True)
        if ret_line == "return" and ret is not None:
            kids = expr_children(ret)
            if kids and result is None:
                raise Refuse(ret, "'return' with a value in a void function")
            if kids:
                v, t = self.value(kids[0])
                v = self.convert(v, t, result, ret)
                ret_line = f"return {v} : {mlir(result)}"
        elif ret_line == "return" and result is not None:
            raise Refuse(f, f"function '{f.spelling}' returns {result} but does not end with "
                             f"'return'")
        self.body.append(f"    {ret_line} {self.loc(ret if ret is not None else f)}")
        if self.collect:
            return ""
        return self._assemble(f, params, result)

    def _assemble(self, f, params: list, result) -> str:
        args = []
        # an array read at computed or data indices, of run-time extent: its extent's C names
        # are the integer parameters' (synth.analysis.c_extents reads them, locations or not)
        named = any(b.kind == "array" and b.key in self.plan.looked_up and any(
            not e.isdigit() for e in self.plan.c_shapes.get(b.key) or ()) for _, b, _ in params)
        for ssa, b, p in params:
            t = self.base_type(b) if b.kind == "array" else mlir(b.type)
            shape = self.plan.c_shapes.get(b.key) if b.kind == "array" else None
            strides, needs = self.view_conditions(b) if b.kind == "array" else ([], [])
            needs = self.c_requires.get(b.key, []) + needs
            attr = (" {synth.c_shape = [" + ", ".join(f'"{e}"' for e in shape) + "]"
                    + ("" if not needs else ", synth.c_shape_requires = ["
                       + ", ".join(f'"{e}"' for e in needs) + "]")
                    + ("" if not strides else ", synth.c_strides = [" + ", ".join(f'"{e}"' for e in strides) + "]")
                    + "}" if shape else "")  # how a pointer or run-time-extent array is read, and
            # the conditions on its sizes that reading needs (a byte stride a multiple of 8)
            if named and b.kind != "array" and is_int(b.type) and p.spelling:
                attr = f' {{synth.c_name = "{p.spelling}"}}'
            args.append(f"{ssa}: {t}{attr} {self.loc(p)}")
        self._overlap(params)
        for b in self.bases:
            lay = self.plan.layouts.get(b.key)
            for text in (lay.assumptions if lay is not None else ()):
                self.assume(text.replace("is read as [", f"is read as {b.name}["))
        # locals never read or written (e.g. `int i, j;` where j is unused) need no buffer
        used = "\n".join(self.body + self.prologue)
        prologue = [line for line in self.prologue if not (
            "memref.alloca()" in line
            and len(re.findall(re.escape(line.split("=")[0].strip()) + r"(?!\w)", used)) == 1)]
        res = f" -> {mlir(result)}" if result else ""
        attrs = ""
        if self.assumptions:
            quoted = ", ".join('"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"'
                               for a in self.assumptions)
            attrs = f" attributes {{synth.assumptions = [{quoted}]}}"
        lines = [f"  func.func @{f.spelling}({', '.join(args)}){res}{attrs} {{", *prologue,
                 *self.body, f"  }} {self.loc(f)}"]
        return "\n".join(lines)

    def _overlap(self, params: list) -> None:
        """C lets pointer parameters overlap; the translation reads each as its own array.
        Said for the arrays written through a pointer parameter that is not `restrict`."""
        arrays = [b for _, b, _ in params if b.kind == "array"]
        # written through a pointer parameter that is not restrict (`double a[N]` reads as
        # an array of its own, as PolyBench and TSVC mean it)
        risky = [b.name for b in arrays if b.key in self.written and b.pointer and not b.restrict]
        if risky and len(arrays) > 1:
            others = [b.name for b in arrays if b.name not in risky]
            words = " or ".join(others)
            if len(risky) == 1:
                what = f"{risky[0]}, which the function writes, does not overlap {words}"
            else:
                what = (f"{', '.join(risky[:-1])} and {risky[-1]}, which the function writes, "
                        f"overlap neither each other" + (f" nor {words}" if others else ""))
            self.assume(f"{what} (C lets pointer parameters overlap; the translation reads each "
                        f"as an array of its own)")

    def _parameters(self, f) -> list:
        params, ints = [], {}
        for i, p in enumerate(k for k in f.get_children() if k.kind == CK.PARM_DECL):
            ssa = f"%arg{i}"
            name = p.spelling or f"#{i + 1}"
            canon = p.type.get_canonical()
            if canon.kind in (TK.POINTER, *ARRAYS):
                b = self.declare_base(p, name, ssa, p.type, i)
                params.append((ssa, b, p))
                if p.hash in self.assigned:  # the parameter itself moves: a pointer variable
                    v = Binding("pointer", None, b.type, name=name, key=p.hash, ctype=p.type)
                    self.ivals[p.hash] = View(b, Poly(), tuple(b.shape[1:]))
                    self.env[p.hash] = v
                else:
                    self.env[p.hash] = b
                continue
            t = self.scalar_type(p.type, p, f"parameter '{name}'")
            if p.hash in self.loop_vars:
                raise Refuse(p, f"parameter '{name}' is used as a loop index")
            b = Binding("arg", ssa, t, name=name, param_index=i)
            params.append((ssa, b, p))
            # an integer parameter the function changes by affine steps (`while (n--)`) is
            # followed as an integer local from its value at the entry
            follow = (is_int(t) and p.hash in self.assigned and p.hash not in self.not_index
                      and p.hash not in self.plan.demoted)
            if is_int(t):
                ints[name] = b
                if name in self.sizes:
                    if p.hash in self.assigned and not follow:
                        raise Refuse(p, f"--size {name}: the function assigns '{name}'")
                    self.values[("s", ssa)] = self.sizes[name]
                    self.params[ssa] = b
            if follow:
                self.env[p.hash] = Binding("index", None, t, name=name, key=p.hash)
                self.ivals[p.hash] = self.param_poly(b)
            elif p.hash in self.assigned:  # a local copy that the function may change
                mem = self.local_buffer(t, p)
                self.prologue.append(f"    affine.store {ssa}, {mem}[] : memref<{mlir(t)}> {self.loc(p)}")
                self.env[p.hash] = Binding("mem", mem, t, name=name)
            else:
                self.env[p.hash] = b
        unknown = sorted(set(self.sizes) - set(ints))
        if unknown:
            raise Refuse(f, f"--size {unknown[0]}: '{f.spelling}' has no integer parameter "
                             f"'{unknown[0]}' (integer parameters: {', '.join(ints) or 'none'})")
        return params

    def local_buffer(self, t: str, c) -> str:
        mem = self.fresh("alloca")
        self.prologue.append(f"    {mem} = memref.alloca() : memref<{mlir(t)}> {self.loc(c)}")
        return mem

    def decide_layouts(self) -> dict:
        """After the first pass: the layout of every array (layout.decide), and the rows
        reached of declared arrays whose first extent is not given."""
        out = {}
        self.plan.derived = {k: v[:3] for k, v in self.derived.items()}
        for b in self.bases:
            every = self.accesses.get(b.key, [])
            for a in every:  # (a size an `if` fixes fixes the symbols derived from it)
                a.facts = self.with_derived(a.facts)
            acc = [a for a in every if a.flat is not None]
            opaque = [layout.Access(self.opaque(a.flat, a.cursor), a.ranges, a.cursor, a.text,
                                    guarded=a.guarded, facts=a.facts, guards=a.guards) for a in acc]
            names = self.symbol_names()
            values = {**self.values, **self.expand}
            try:
                if b.flat:
                    total = b.shape[0] if b.shape and b.shape[0] is not None else None
                    lay = layout.decide(acc, values, names, declared_total=total, opaque=opaque)
                    out[b.key] = lay
                    self._c_shape(b, lay.extents)
                    continue
                lay = layout.Layout([], list(b.shape))
                if acc:
                    if any(d is None for d in b.shape[1:]):
                        raise Refuse(acc[0].cursor, f"'{acc[0].text}' reaches '{b.name}' through a "
                                                     f"pointer, and an inner extent is unknown")
                    strides = [_stride_of(b.shape[k + 1:]) for k in range(len(b.shape))]
                    lay = layout.decide(acc, values, names, fixed=strides)
                    flat_rows = lay.extents[0]
                    lay.extents = list(b.shape)
                if b.shape and b.shape[0] is None:
                    firsts = [a for a in every if a.flat is None]
                    lay.extents[0] = layout.rows(firsts, values) if not acc else (
                        flat_rows if not firsts else None)
                out[b.key] = lay
            except layout.LayoutError as e:
                c = e.access.cursor
                if e.nonaffine and c.kind == CK.ARRAY_SUBSCRIPT_EXPR:
                    index = self._subscript_parts(c)[1]
                    raise Refuse(index, f"non-affine array subscript '{c_text(index)}' in "
                                         f"'{e.access.text}': {e.reason}") from None
                guard = ("; it is read under an 'if', whose condition synth does not use to "
                         "bound a subscript (the subscript's range is its loops')") if e.access.guarded else ""
                raise Refuse(c, f"cannot read '{e.access.text}' as an element of '{b.name}' in "
                                 f"any array shape: {e.reason}{guard}") from None
            self._c_shape(b, out[b.key].extents if b.key in out else b.shape)
        return out

    def _c_shape(self, b, extents) -> None:
        """How a pointer parameter, or one of run-time extent, is read: its extents in C."""
        if b.param_index is not None and (b.pointer or any(d is None or not d.is_const
                                                           for d in b.shape)):
            names = self.symbol_names()
            self.plan.c_shapes[b.key] = ["?" if d is None else layout.render(d, names)
                                         for d in extents]

    def _prescan(self, c) -> None:
        """Loop variables (declared anywhere), variables assigned somewhere, and what is
        assigned to each (integer locals that can be followed as affine values)."""
        if c is None:
            return
        for k in c.walk_preorder():
            if k.kind == CK.FOR_STMT and self.affine_for(k):
                var = self._loop_var(k, quiet=True)
                if var is not None:
                    self.loop_vars.add(var.hash)
            h = evolution.target(k)
            if h is None:
                continue
            self.assigned.add(h)
            if k.kind == CK.UNARY_OPERATOR:
                continue
            op = binary_operator(k)
            rhs = expr_children(k)[1]
            if op not in ("=", "+=", "-=", "*=", "/=") or not self._affine_shaped(rhs):
                self.not_index.add(h)

    @staticmethod
    def _affine_shaped(c) -> bool:
        """No memory read, call or floating-point value: may be an affine value (what
        `sizeof` names is not read)."""
        if c.kind == CK.CXX_UNARY_EXPR:
            return True
        if c.kind in (CK.ARRAY_SUBSCRIPT_EXPR, CK.CALL_EXPR, CK.FLOATING_LITERAL) or (
                c.kind == CK.UNARY_OPERATOR and unary_operator(c) == "*") or (
                c.kind.is_expression() and c.type.get_canonical().kind in (TK.FLOAT, TK.DOUBLE)):
            return False
        return all(FunctionTranslator._affine_shaped(k) for k in c.get_children())

    def modified_in(self, fdef) -> set:
        body = next((k for k in fdef.get_children() if k.kind == CK.COMPOUND_STMT), None)
        self._prescan(body)
        return evolution.modified(body) if body is not None else set()

    # --- statements ---------------------------------------------------------------------

    def block(self, stmts: list, top: bool = False) -> None:
        """Statements in order; `top`: they end the function, where an `if` whose branch
        ends in `return` is a quick return (synth.frontend.c.returns) and the last
        statement may be the `return`."""
        for j, s in enumerate(stmts):
            parts = early_return(s) if top else None
            if parts is not None:
                self.quick_return(s, parts, stmts[j + 1:])
                return
            if top and s.kind == CK.RETURN_STMT and j == len(stmts) - 1:
                self.store_result(s)
                return
            if self._split(s, stmts[j + 1:], Rest if top else list):
                return
            if top and ends_in_branches([s]):
                # an `if` with a `return` inside: each branch, then the statements after
                # it, ends the function, and may return early
                kids = [k for k in s.get_children() if not k.kind.is_declaration()]
                after = stmts[j + 1:]
                rest = [Rest(jumps.items(k) + after) for k in kids[1:]]
                self.branch(s, kids[0], rest[0], rest[1] if len(rest) > 1 else Rest(after))
                return
            self.stmt(s)

    def _split(self, s, after: list, wrap) -> bool:
        """An `if` on sizes alone (an affine condition without loop indices) whose branches
        change an integer local or a pointer that the statements `after` it read (BLAS's
        `if (incx < 0) ix = (-n + 1) * incx;`): those statements run in each branch, from
        the values it leaves there (`wrap`: Rest at the function's top level, where they
        end it). False, translating nothing, for any other statement."""
        if getattr(s, "kind", None) != CK.IF_STMT or not after or not self.sizes_only(s):
            return False
        kids = [k for k in s.get_children() if not k.kind.is_declaration()]
        changed = {h for h in evolution.modified(kids[1:])
                   if (b := self.env.get(h)) is not None and b.kind in ("index", "pointer")}
        if not (changed and evolution.mentions(after, changed)):
            return False
        tails = [jumps.items(k) + after for k in kids[1:]] + [after] * (3 - len(kids))
        self.branch(s, kids[0], wrap(tails[0]), wrap(tails[1]))
        return True

    def sizes_only(self, s) -> bool:
        """Whether the condition of the `if` `s` is affine in the sizes alone."""
        try:
            dnf = self.condition(next(k for k in s.get_children() if not k.kind.is_declaration()))
        except NotAffine:
            return False
        return all(not e.dims() for conj in dnf for e, _ in conj)

    def stmt(self, s) -> None:
        if self.special_stmt(s):
            return
        if isinstance(s, jumps.Branch):
            self.branch(s.cursor, s.cond, s.then, s.other)
            return
        if isinstance(s, list) or s.kind == CK.COMPOUND_STMT:
            stmts = s if isinstance(s, list) else list(s.get_children())
            for j, x in enumerate(stmts):
                if not isinstance(x, list) and self._split(x, stmts[j + 1:], list):
                    return
                self.stmt(x)
            return
        k = s.kind
        if k == CK.NULL_STMT:
            pass
        elif k == CK.DECL_STMT:
            for d in s.get_children():
                self.declare(d)
        elif k == CK.FOR_STMT:
            self.for_stmt(s) if self.affine_for(s) else self.counted_stmt(s)
        elif k in (CK.WHILE_STMT, CK.DO_STMT):
            self.counted_stmt(s)
        elif k == CK.IF_STMT:
            self.if_stmt(s)
        elif k == CK.RETURN_STMT:
            where = (" of the inlined function" if self.inlining else "")
            raise Refuse(s, f"'return' before the end{where} is not static control here: "
                             f"inside a loop (it would end the loop early, on data), or with "
                             f"statements after it in its block (quick returns are in 'if' "
                             f"branches outside loops)")
        elif k in _REFUSED_STMTS:
            raise Refuse(s, _REFUSED_STMTS[k])
        elif k.is_expression():
            self.expr_stmt(s)
        else:
            raise Refuse(s, f"statement '{k.name.lower()}' is not supported")

    def declare(self, d) -> None:
        if d.kind != CK.VAR_DECL:
            if d.kind in (CK.STRUCT_DECL, CK.UNION_DECL, CK.TYPEDEF_DECL, CK.ENUM_DECL):
                return
            raise Refuse(d, f"declaration '{d.spelling}' is not supported")
        name = d.spelling
        if d.storage_class in (ci.StorageClass.STATIC, ci.StorageClass.EXTERN):
            raise Refuse(d, f"'{d.storage_class.name.lower()}' local '{name}' is not supported")
        canon = d.type.get_canonical()
        init = [k for k in d.get_children() if k.kind != CK.TYPE_REF and k.kind.is_expression()]
        if canon.kind in ARRAYS:
            if canon.kind != TK.CONSTANTARRAY:
                raise Refuse(d, f"local array '{name}' has a run-time extent: only constant "
                                 f"extents are static")
            if any(k.kind in (CK.INIT_LIST_EXPR, CK.STRING_LITERAL) for k in init):
                raise Refuse(d, f"initialiser of local array '{name}' is not supported (assign the "
                                 f"elements in a loop)")
            mem = self.fresh("alloca")
            b = self.declare_base(d, name, mem, d.type, None)
            self.prologue.append(f"    {mem} = memref.alloca() : {self.base_type(b)} {self.loc(d)}")
            self.env[d.hash] = b
            return
        if canon.kind == TK.POINTER:
            b = Binding("pointer", None, "", name=name, key=d.hash, ctype=d.type)
            self.env[d.hash] = b
            if init:
                self.ivals[d.hash] = self.retarget(self.pval(init[-1]), d.type, d)
            else:
                self.ivals[d.hash] = None
            return
        t = self.scalar_type(d.type, d, f"local '{name}'")
        if d.hash in self.loop_vars:
            if not is_int(t):
                raise Refuse(d, f"loop index '{name}' must be an integer")
            self.env[d.hash] = Binding("loopvar", None, t, name=name, key=d.hash)
            return  # its initial value is never read (read after a loop: its final value)
        if is_int(t) and init and extremes.bound_only(self, d, init[-1]):
            self.env[d.hash] = Binding("bound", None, t, name=name, key=d.hash)
            return  # read by loop bounds only (synth.frontend.c.extremes), from its initialiser
        if is_int(t) and d.hash not in self.not_index and d.hash not in self.plan.demoted and (
                not init or self._affine_shaped(init[-1])):
            self.env[d.hash] = Binding("index", None, t, name=name, key=d.hash)
            if init:
                try:
                    self.ivals[d.hash] = self.affine(init[-1])
                except NotAffine as e:
                    raise Demote(d.hash, e.reason) from None
            else:
                self.ivals[d.hash] = None
            return
        mem = self.local_buffer(t, d)
        self.env[d.hash] = Binding("mem", mem, t, name=name)
        if init:
            v, vt = self.value(init[-1])
            v = self.convert(v, vt, t, d)
            self.emit(f"affine.store {v}, {mem}[] : memref<{mlir(t)}>", d)

    # --- conditions ---------------------------------------------------------------------

    def if_stmt(self, s) -> None:
        kids = [k for k in s.get_children() if not k.kind.is_declaration()]
        self.branch(s, kids[0], kids[1], kids[2] if len(kids) > 2 else None)

    def branch(self, s, cond, then, other) -> None:
        """`if (cond) then else other` of the `if` `s` (or of a `continue`: jumps.Branch)."""
        try:
            dnf = self.condition(cond)
            neg = self._negate(dnf, cond)
        except NotAffine:
            self._predicated(s, cond, then, other)
            return
        if len(neg) < len(dnf) or (other is not None and len(neg) == 1 and not _acts(then)):
            # `i != j`: one equality with the branches swapped; `if (x < 0 || x >= w)
            # continue;`: the rest of the body under the one conjunction `0 <= x < w`
            dnf, then, other = neg, other, then
        self._if_chain(s, dnf, then, other)

    def _predicated(self, s, cond, then, other) -> None:
        """`if` on data: both branches run, their stores under the condition
        (`select(cond, new, old)`). The condition runs once, as in C; what the branches
        cannot do under a predicate (leave a loop or the function, move a pointer, divide
        integers by a value that may be zero) is refused where it happens."""
        p = self.cond(cond)
        outer = self.pred

        def run(v, branch):
            self.pred = v if outer is None else self.op(f"arith.andi {outer}, {v} : i1", cond)
            self.guards += 1
            try:
                self.stmt(branch)
            finally:
                self.guards -= 1

        def negated():
            if other is not None:
                run(self.op(f"arith.xori {p}, {self.const(1, 'i1', cond)} : i1", cond), other)

        try:
            self.branches(s, lambda: run(p, then), negated)
        finally:
            self.pred = outer

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
        if not any(e.terms for e, _ in conj):  # constant constraints only: decide here
            holds = all((e.const == 0) if eq else (e.const >= 0) for e, eq in conj)
            self._if_chain(s, [[]] if holds else rest, then, other)
            return
        ops, cs = self.constraints(conj, s)
        head = f"affine.if affine_set<{ops.header()} : ({cs})>{ops.uses()}"
        self.body.append("  " * self.indent + head + " {")
        self.indent += 1
        def first():
            saved = self.tighten(conj)
            known, around = len(self.facts), len(self.guard_facts)
            self.facts.extend(c for c in conj if not c[0].dims())
            self.guard_facts.extend(conj)
            self.guards += 1
            try:
                if then is not None:
                    self.stmt(then)
            finally:
                self.guards -= 1
            del self.facts[known:]
            del self.guard_facts[around:]
            self.ranges = saved
            self.indent -= 1

        def second():
            if rest or other is not None:
                self.body.append("  " * self.indent + "} else {")
                self.indent += 1
                self._if_chain(s, rest, then, other)
                self.indent -= 1

        self.branches(s, first, second)
        self.body.append("  " * self.indent + "} " + self.loc(s))

    def expr_stmt(self, s) -> None:
        e = strip_casts(s) if s.kind == CK.PAREN_EXPR else s
        if e.kind == CK.CSTYLE_CAST_EXPR and e.type.get_canonical().kind == TK.VOID:
            kids = expr_children(e)
            if kids:
                self.expr_stmt(kids[-1])
            return
        if e.kind == CK.BINARY_OPERATOR and binary_operator(e) == ",":
            a, b = expr_children(e)
            self.expr_stmt(a)
            self.expr_stmt(b)
            return
        self.value(e, discard=True)


def _acts(s) -> bool:
    """The statement (list) does something: not absent, empty or `;`."""
    if s is None:
        return False
    if isinstance(s, list):
        return any(_acts(x) for x in s)
    if isinstance(s, jumps.Branch) or not hasattr(s, "kind"):
        return True
    if s.kind == CK.NULL_STMT:
        return False
    if s.kind == CK.COMPOUND_STMT:
        return any(_acts(k) for k in s.get_children())
    return True
