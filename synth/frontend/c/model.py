"""What the C translator works with: MLIR scalar types of C types, refusals (`_Refuse`,
`_NotAffine`), affine expressions (`_Aff`) and the dims / symbols they use (`_Operands`)
with their rendering, float literals, bindings of C declarations (`_Binding`), and helpers
over libclang cursors (`_strip`, `_expr_children`, `_text` for messages)."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c.libclang import _binop, _evaluate, _unop

_SCALARS = {TK.DOUBLE: "f64", TK.FLOAT: "f32", TK.INT: "i32", TK.LONG: "i64", TK.LONGLONG: "i64"}
_INTS = ("i1", "i32", "i64", "index")
_FLOATS = ("f32", "f64")
_WIDTH = {"i1": 1, "i32": 32, "i64": 64, "index": 64, "f32": 32, "f64": 64}


class _Refuse(Exception):
    """Not static control: becomes an InputError at the cursor."""

    def __init__(self, cursor, message: str):
        super().__init__(message)
        self.cursor, self.message = cursor, message


class _NotAffine(Exception):
    def __init__(self, cursor, reason: str):
        super().__init__(reason)
        self.cursor, self.reason = cursor, reason


@dataclass
class _Aff:
    """A linear expression: sum of coeff * var + const; var is ('d', ssa) or ('s', ssa)."""

    terms: dict = field(default_factory=dict)
    const: int = 0

    @staticmethod
    def var(kind: str, ssa: str) -> _Aff:
        return _Aff({(kind, ssa): 1}, 0)

    def __add__(self, o: _Aff) -> _Aff:
        t = dict(self.terms)
        for k, v in o.terms.items():
            t[k] = t.get(k, 0) + v
        return _Aff({k: v for k, v in t.items() if v}, self.const + o.const)

    def scale(self, c: int) -> _Aff:
        if c == 0:
            return _Aff()
        return _Aff({k: v * c for k, v in self.terms.items()}, self.const * c)

    def __sub__(self, o: _Aff) -> _Aff:
        return self + o.scale(-1)

    def plus(self, c: int) -> _Aff:
        return _Aff(dict(self.terms), self.const + c)

    @property
    def is_const(self) -> bool:
        return not self.terms


class _Operands:
    """Dims and symbols of a group of affine expressions, in first-use order."""

    def __init__(self):
        self.dims: list[str] = []
        self.syms: list[str] = []

    def add(self, e: _Aff) -> None:
        for kind, ssa in e.terms:
            lst = self.dims if kind == "d" else self.syms
            if ssa not in lst:
                lst.append(ssa)

    def name(self, key) -> str:
        kind, ssa = key
        return f"d{self.dims.index(ssa)}" if kind == "d" else f"s{self.syms.index(ssa)}"

    def header(self) -> str:
        h = "(" + ", ".join(f"d{i}" for i in range(len(self.dims))) + ")"
        if self.syms:
            h += "[" + ", ".join(f"s{i}" for i in range(len(self.syms))) + "]"
        return h

    def uses(self) -> str:
        u = "(" + ", ".join(self.dims) + ")"
        if self.syms:
            u += "[" + ", ".join(self.syms) + "]"
        return u


def _render(e: _Aff, name) -> str:
    """`d0 * 2 + s0 - 1`, with `name(key)` naming each variable."""
    parts: list[str] = []
    for key, c in e.terms.items():
        v = name(key)
        mag = abs(c)
        term = v if mag == 1 else f"{v} * {mag}"
        if not parts:
            parts.append(term if c > 0 else f"-{term}")
        else:
            parts.append(("+ " if c > 0 else "- ") + term)
    if e.const or not parts:
        if not parts:
            parts.append(str(e.const))
        else:
            parts.append(("+ " if e.const > 0 else "- ") + str(abs(e.const)))
    return " ".join(parts)


def _inline(e: _Aff) -> str:
    """Subscript form of affine.load/store: `%i * 2 + symbol(%n) - 1`."""
    return _render(e, lambda key: key[1] if key[0] == "d" else f"symbol({key[1]})")


def _float_literal(v: float, t: str) -> str:
    if math.isfinite(v):
        s = repr(float(v))
        if "e" in s:
            mant, ex = s.split("e")
            if "." not in mant:
                mant += ".0"
            return f"{mant}e{ex}"
        return s if "." in s else s + ".0"
    if t == "f32":
        return f"0x{struct.unpack('<I', struct.pack('<f', v))[0]:08X}"
    return f"0x{struct.unpack('<Q', struct.pack('<d', v))[0]:016X}"


def _strip(c):
    """Look through parentheses and implicit casts that keep the value (int to int)."""
    while True:
        if c.kind == CK.PAREN_EXPR:
            c = _only_child(c)
        elif c.kind == CK.UNEXPOSED_EXPR:
            kids = _expr_children(c)
            if len(kids) != 1:
                return c
            c = kids[0]
        else:
            return c


def _expr_children(c) -> list:
    return [k for k in c.get_children() if k.kind not in (CK.TYPE_REF,) and not k.kind.is_declaration()]


def _only_child(c):
    kids = _expr_children(c)
    if len(kids) != 1:
        raise _Refuse(c, "unsupported expression")
    return kids[0]


def _text(c, depth: int = 0) -> str:
    """A short C rendering of an expression for messages (macro-expanded)."""
    if depth > 6:
        return "..."
    k = c.kind
    v = _evaluate(c) if k in (CK.INTEGER_LITERAL, CK.FLOATING_LITERAL) else None
    if v is not None:
        return repr(v)
    if k == CK.DECL_REF_EXPR:
        return c.spelling
    if k in (CK.PAREN_EXPR,):
        return "(" + _text(_only_child(c), depth + 1) + ")"
    if k == CK.UNEXPOSED_EXPR:
        kids = _expr_children(c)
        return _text(kids[0], depth) if len(kids) == 1 else "<expr>"
    if k == CK.CSTYLE_CAST_EXPR:
        kids = _expr_children(c)
        return f"({c.type.spelling}) " + (_text(kids[-1], depth + 1) if kids else "")
    if k == CK.ARRAY_SUBSCRIPT_EXPR:
        a, b = _expr_children(c)
        return f"{_text(a, depth + 1)}[{_text(b, depth + 1)}]"
    if k in (CK.BINARY_OPERATOR, CK.COMPOUND_ASSIGNMENT_OPERATOR):
        a, b = _expr_children(c)
        return f"{_text(a, depth + 1)} {_binop(c)} {_text(b, depth + 1)}"
    if k == CK.UNARY_OPERATOR:
        op = _unop(c)
        inner = _text(_only_child(c), depth + 1)
        return inner + op[4:] if op.startswith("post") else op.replace("pre", "") + inner
    if k == CK.CALL_EXPR:
        return f"{c.spelling}(" + ", ".join(_text(a, depth + 1) for a in c.get_arguments()) + ")"
    if k == CK.MEMBER_REF_EXPR:
        kids = _expr_children(c)
        return (_text(kids[0], depth + 1) + "." if kids else "") + c.spelling
    return c.spelling or k.name.lower()


@dataclass
class _Binding:
    kind: str  # "arg" (SSA value), "mem" (memref<T> local), "array", "loopvar" (an Aff or None: unbound)
    ssa: str | None = None
    type: str = ""  # element / scalar MLIR type
    shape: tuple = ()
    aff: _Aff | None = None
    name: str = ""
    param_index: int | None = None
