"""First layer of the function translator: per-function state (the scope of C declarations,
the entry prologue, the body being emitted), SSA names, ops and constants with their C
locations, MLIR types of C types and conversions between them, and name bindings."""

from __future__ import annotations

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c.libclang import _evaluate, _same_file
from synth.frontend.c.model import (
    _FLOATS,
    _SCALARS,
    _WIDTH,
    _Binding,
    _float_literal,
    _Refuse,
    _text,
)


class _Emitter:
    """State and emission of one function's translation; types, conversions, bindings."""

    def __init__(self, path: str, func):
        self.path = path
        self.func = func
        self.prologue: list[str] = []
        self.body: list[str] = []
        self.indent = 2
        self.counter = 0
        self.consts: dict = {}
        self.symbols: dict = {}  # param index -> index SSA
        self.env: dict = {}  # decl hash -> _Binding
        self.loop_vars: set = set()
        self.assigned: set = set()

    # --- emission -----------------------------------------------------------------------

    def loc(self, c) -> str:
        loc = c.location
        fname = self.path
        if loc.file is not None and not _same_file(loc.file.name, self.path):
            fname = loc.file.name
        esc = fname.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{esc}":{loc.line}:{loc.column})'

    def where(self, c) -> str:
        loc = c.location
        if loc.file is None:
            return self.path
        fname = self.path if _same_file(loc.file.name, self.path) else loc.file.name
        return f"{fname}:{loc.line}:{loc.column}"

    def fresh(self, stem: str = "v") -> str:
        self.counter += 1
        return f"%{stem}{self.counter}"

    def emit(self, text: str, c) -> None:
        self.body.append("  " * self.indent + text + " " + self.loc(c))

    def op(self, text: str, c, stem: str = "v") -> str:
        r = self.fresh(stem)
        self.emit(f"{r} = {text}", c)
        return r

    def const(self, value, t: str, c) -> str:
        if t in _FLOATS:
            lit = _float_literal(float(value), t)
        elif t == "i1":
            lit = "true" if value else "false"
        else:
            lit = str(int(value))
        key = (lit, t)
        if key not in self.consts:
            r = self.fresh("c")
            suffix = "" if t == "i1" else f" : {t}"
            self.prologue.append(f"    {r} = arith.constant {lit}{suffix} {self.loc(c)}")
            self.consts[key] = r
        return self.consts[key]

    # --- types --------------------------------------------------------------------------

    def scalar_type(self, t, c, what: str) -> str:
        canon = t.get_canonical()
        if canon.kind in _SCALARS:
            return _SCALARS[canon.kind]
        if canon.kind == TK.POINTER:
            raise _Refuse(c, f"{what} has pointer type '{t.spelling}': pointers are not static control")
        if canon.kind == TK.RECORD:
            raise _Refuse(c, f"{what} has struct type '{t.spelling}': structs are not supported")
        raise _Refuse(c, f"{what} has type '{t.spelling}': only double, float, int and long "
                         f"scalars are supported")

    def array_shape(self, t, c, name: str) -> tuple[tuple, str]:
        shape, cur = [], t.get_canonical()
        while True:
            if cur.kind == TK.CONSTANTARRAY:
                shape.append(cur.element_count)
                cur = cur.element_type.get_canonical()
            elif cur.kind == TK.VARIABLEARRAY:
                extents = [k for k in c.get_children() if k.kind not in (CK.TYPE_REF,)]
                names = sorted({_text(k) for k in extents if _evaluate(k) is None})
                raise _Refuse(c, f"array parameter '{name}' has a run-time extent "
                                 f"({', '.join(repr(n) for n in names) or 'variable'}): C99 variable-length "
                                 f"arrays are not static; give the extents as macros (e.g. "
                                 f"'#define N 1000' or -DN=1000) and declare '{name}[N]...'")
            elif cur.kind == TK.INCOMPLETEARRAY:
                raise _Refuse(c, f"array parameter '{name}' has no extent for dimension {len(shape) + 1}: "
                                 f"declare every extent as a constant")
            else:
                break
        elem = self.scalar_type(cur, c, f"the elements of '{name}'")
        return tuple(shape), elem

    @staticmethod
    def memref(shape, elem) -> str:
        return "memref<" + "".join(f"{d}x" for d in shape) + elem + ">"

    def ctype(self, c) -> str:
        """MLIR type of an expression's C type."""
        canon = c.type.get_canonical()
        if canon.kind in _SCALARS:
            return _SCALARS[canon.kind]
        if canon.kind in (TK.POINTER, TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY):
            raise _Refuse(c, f"pointer value '{_text(c)}' (pointer arithmetic or an array used "
                             f"without all its subscripts) is not static control")
        raise _Refuse(c, f"expression '{_text(c)}' has unsupported type '{c.type.spelling}'")

    def convert(self, v: str, frm: str, to: str, c) -> str:
        if frm == to:
            return v
        if frm == "i1":
            if to in _FLOATS:
                return self.op(f"arith.uitofp {v} : i1 to {to}", c)
            return self.op(f"arith.extui {v} : i1 to {to}", c)
        if to == "i1":
            if frm in _FLOATS:
                zero = self.const(0.0, frm, c)
                return self.op(f"arith.cmpf une, {v}, {zero} : {frm}", c)
            if frm == "index":
                v, frm = self.op(f"arith.index_cast {v} : index to i64", c), "i64"
            zero = self.const(0, frm, c)
            return self.op(f"arith.cmpi ne, {v}, {zero} : {frm}", c)
        if frm == "index":
            if to in _FLOATS:
                v = self.op(f"arith.index_cast {v} : index to i64", c)
                return self.op(f"arith.sitofp {v} : i64 to {to}", c)
            return self.op(f"arith.index_cast {v} : index to {to}", c)
        if to == "index":
            if frm in _FLOATS:
                v, frm = self.op(f"arith.fptosi {v} : {frm} to i64", c), "i64"
            return self.op(f"arith.index_cast {v} : {frm} to index", c)
        if frm in _FLOATS and to in _FLOATS:
            opname = "arith.extf" if _WIDTH[to] > _WIDTH[frm] else "arith.truncf"
            return self.op(f"{opname} {v} : {frm} to {to}", c)
        if frm in _FLOATS:
            return self.op(f"arith.fptosi {v} : {frm} to {to}", c)
        if to in _FLOATS:
            return self.op(f"arith.sitofp {v} : {frm} to {to}", c)
        opname = "arith.extsi" if _WIDTH[to] > _WIDTH[frm] else "arith.trunci"
        return self.op(f"{opname} {v} : {frm} to {to}", c)

    # --- bindings -----------------------------------------------------------------------

    def binding(self, ref):
        decl = ref.referenced
        if decl is None:
            raise _Refuse(ref, f"cannot resolve '{ref.spelling}'")
        b = self.env.get(decl.hash)
        if b is None:
            if decl.kind == CK.ENUM_CONSTANT_DECL:
                return None
            if decl.kind == CK.VAR_DECL:
                raise _Refuse(ref, f"global variable '{ref.spelling}' is not supported (pass it as "
                                   f"a parameter, or make it a macro)")
            if decl.kind == CK.FUNCTION_DECL:
                raise _Refuse(ref, f"function '{ref.spelling}' used as a value")
            raise _Refuse(ref, f"unsupported reference to '{ref.spelling}'")
        return b

    def symbol(self, b: _Binding, c) -> str:
        if b.param_index not in self.symbols:
            r = self.fresh("s")
            self.prologue.append(f"    {r} = arith.index_cast {b.ssa} : {b.type} to index {self.loc(c)}")
            self.symbols[b.param_index] = r
        return self.symbols[b.param_index]
