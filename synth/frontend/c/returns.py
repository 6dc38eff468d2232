"""Seventh layer of the function translator: quick returns.

Library C often leaves a function early at its top level: reference BLAS's
`if (m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0)) return;`, or
`if (alpha == 0.0) { for (...) C[...] = beta * C[...]; return; }`, or a value
(`if (n <= 0) return 0.0f;`). Such an `if` whose branch ends in `return` splits the
function in two paths: the branch, and the rest of the function (with the `else` branch
first). The condition's disjuncts over sizes (affine) select between them with an
`affine.if` (the raise covers the sizes where the rest runs; the drop-in keeps the loops
for the others); the disjuncts over data select with if-conversion at the level of the
function: the branch runs under the condition, the rest under its negation, every store
to an array (and the returned value) as `select(cond, new, old)`. Since nothing runs after
either path, pointers and integer locals may move in them (each path starts from the
values at the `if`), and in the rest, which is last, scalar locals are stored as they
are (they die at the end; only stores to arrays and the returned value are selected). A
returned value goes through a one-element buffer that each path stores. An `if` with a
`return` deeper in a branch takes the statements after it into each branch (each then
ends the function); an inlined function's early returns are quick returns into its result
(`returned`). A `return` inside a loop stays refused."""

from __future__ import annotations

from dataclasses import dataclass

from clang.cindex import CursorKind as CK

from synth.frontend.c.counted import CountedTranslator
from synth.frontend.c.libclang import binary_operator
from synth.frontend.c.model import expr_children, NotAffine, Refuse, strip_casts, c_text
from synth.frontend.c.scalars import mlir


@dataclass
class Rest:
    """Statements that end the function (may hold further quick returns)."""

    stmts: list


@dataclass
class _DataPaths:
    """A quick return on data: the disjuncts over data, the branch, its return, the rest."""

    data: list
    early: list
    ret: object
    rest: list
    cond: object


@dataclass
class _Early:
    """A quick return's branch: its statements and the `return`."""

    stmts: list
    ret: object


def early_return(s):
    """(condition, statements before the return, the return, else branch) of `if (c) {
    ...; return [v]; } [else ...]`, else None."""
    if s.kind != CK.IF_STMT:
        return None
    kids = [k for k in s.get_children() if not k.kind.is_declaration()]
    if len(kids) < 2:
        return None
    then = kids[1]
    body = list(then.get_children()) if then.kind == CK.COMPOUND_STMT else [then]
    if not body or body[-1].kind != CK.RETURN_STMT:
        return None
    return kids[0], body[:-1], body[-1], (kids[2] if len(kids) > 2 else None)


def early_returns(stmts: list) -> bool:
    """A `return` among `stmts` other than the last statement."""
    last = stmts[-1] if stmts and stmts[-1].kind == CK.RETURN_STMT else None
    return any(k.kind == CK.RETURN_STMT for s in stmts if s is not last for k in s.walk_preorder())


def ends_in_branches(stmts: list) -> bool:
    """The last statement is an `if` with a `return` in it (outside loops): its branches
    end the function (`if (c) { ...; if (d) return; ... } else { ... }`, `if (c) return a;
    else return b;`)."""
    if not stmts or stmts[-1].kind != CK.IF_STMT:
        return False

    def has(c) -> bool:
        if c.kind == CK.RETURN_STMT:
            return True
        if c.kind in (CK.FOR_STMT, CK.WHILE_STMT, CK.DO_STMT) or c.kind.is_expression():
            return False
        return any(has(k) for k in c.get_children())

    return has(stmts[-1])


def _disjuncts(c) -> list:
    s = strip_casts(c)
    if s.kind == CK.BINARY_OPERATOR and binary_operator(s) == "||":
        a, b = expr_children(s)
        return _disjuncts(a) + _disjuncts(b)
    return [c]


def _check_data_disjuncts(data: list) -> None:
    """The disjuncts on data are all evaluated before either path runs, not as C's `||`
    does: refused where that matters, a disjunct that changes a variable (`n-- == 5`) or an
    integer division an earlier one may guard (`x[0] == 0 || y[0] / x[0] > 2`)."""
    from synth.frontend.c.evolution import modified

    for k, d in enumerate(data):
        if modified(d):
            raise Refuse(d, f"'return' before the end: its condition '{c_text(d)}' changes a variable "
                             "(the parts of a condition on data are all evaluated)")
        if k == 0:
            continue
        for n in d.walk_preorder():
            if n.kind == CK.BINARY_OPERATOR and binary_operator(n) in ("/", "%") \
                    and n.type.get_canonical().kind.name not in ("FLOAT", "DOUBLE", "LONGDOUBLE"):
                raise Refuse(n, f"'return' before the end: the integer division '{c_text(n)}' in its "
                                 "condition may be guarded by the parts before it (the parts of a "
                                 "condition on data are all evaluated)")


class ReturnTranslator(CountedTranslator):
    """Quick returns of one function."""

    result_mem = None  # the returned value's buffer, where the function has quick returns

    def quick_return(self, s, parts, after: list) -> None:
        cond, early, ret, other = parts
        rest = list(after)
        if other is not None:
            rest = (list(other.get_children()) if other.kind == CK.COMPOUND_STMT else [other]) + rest
        affine, data = [], []
        for d in _disjuncts(cond):
            try:
                affine.append(self.condition(d))
            except NotAffine:
                data.append(d)
        _check_data_disjuncts(data)
        dnf = [conj for a in affine for conj in a]
        if len(dnf) > self._MAX_DISJUNCTS:
            raise Refuse(cond, "'return' before the end: its condition needs more than "
                                f"{self._MAX_DISJUNCTS} affine sets")
        later = Rest(rest) if not data else _DataPaths(data, early, ret, rest, cond)
        if not early and ret is not None and not expr_children(ret) and not data:
            self._if_chain(s, self._negate(dnf, cond), Rest(rest), None)
        else:
            self._if_chain(s, dnf, _Early(early, ret), later)

    def special_stmt(self, s) -> bool:
        """The pieces of quick returns that `stmt` is given."""
        if isinstance(s, Rest):
            self.block(s.stmts, top=True)
        elif isinstance(s, _Early):
            self.stmt(s.stmts)
            self.store_result(s.ret)
        elif isinstance(s, _DataPaths):
            self._data_return(s.data, s.early, s.ret, s.rest, s.cond)
        else:
            return False
        return True

    def _data_return(self, data: list, early: list, ret, rest: list, cond) -> None:
        """The two paths under a condition on data: the branch, then the rest."""
        p = None
        for d in data:
            v = self.cond(d)
            p = v if p is None else self.op(f"arith.ori {p}, {v} : i1", cond)
        outer = (self.pred, self.exit_pred, self.free_locals)
        saved = dict(self.ivals)
        try:
            self.pred = p if outer[0] is None else self.op(f"arith.andi {outer[0]}, {p} : i1", cond)
            self.exit_pred, self.free_locals = self.pred, False
            self.stmt(early)
            self.store_result(ret)
            self.ivals.clear()
            self.ivals.update(saved)
            q = self.op(f"arith.xori {p}, {self.const(1, 'i1', cond)} : i1", cond)
            self.pred = q if outer[0] is None else self.op(f"arith.andi {outer[0]}, {q} : i1", cond)
            self.exit_pred, self.free_locals = self.pred, True
            self.block(rest, top=True)
        finally:
            self.pred, self.exit_pred, self.free_locals = outer

    has_early_returns = staticmethod(early_returns)

    def returned(self, stmts: list, result: str | None, c) -> str | None:
        """The value `stmts` (a function's body, or an inlined one: `result` None where it
        returns none) return, through a one-element buffer that each path stores."""
        mem = None
        if result is not None:
            mem = self.local_buffer(result, c)
            self.emit(f"affine.store {self.const(0, result, c)}, {mem}[] : memref<{mlir(result)}>", c)
        outer = self.result_mem
        self.result_mem = (mem, result) if mem is not None else None
        try:
            self.block(stmts, top=True)
        finally:
            self.result_mem = outer
        return None if mem is None else self.op(f"affine.load {mem}[] : memref<{mlir(result)}>", c)

    def store_result(self, ret) -> None:
        """A `return` that ends one path: its value into the result's buffer."""
        kids = expr_children(ret)
        if self.result_mem is None:
            if kids:
                raise Refuse(ret, "'return' with a value in a void function")
            return
        if not kids:
            raise Refuse(ret, "'return' without a value in a function that returns one")
        mem, t = self.result_mem
        v, vt = self.value(kids[0])
        v = self.convert(v, vt, t, ret)
        if self.pred is not None:
            old = self.op(f"affine.load {mem}[] : memref<{mlir(t)}>", ret)
            v = self.op(f"arith.select {self.pred}, {v}, {old} : {mlir(t)}", ret)
        self.emit(f"affine.store {v}, {mem}[] : memref<{mlir(t)}>", ret)
