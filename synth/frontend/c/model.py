"""What the C translator works with: refusals (`Refuse`, `NotAffine`, `Demote`), the
dims / symbols of affine maps (`Operands`) and their rendering, float literals, bindings
of C declarations (`Binding`) and pointer values (`View`), and helpers over libclang
cursors (`strip_casts`, `expr_children`, `c_text` for messages, `for_parts`)."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from clang.cindex import CursorKind as CK

from synth.frontend.c.libclang import binary_operator, evaluate, unary_operator
from synth.frontend.c.poly import Poly

class Refuse(Exception):
    """Not static control: becomes an InputError at the cursor."""

    def __init__(self, cursor, message: str):
        super().__init__(message)
        self.cursor, self.message = cursor, message


class Demote(Exception):
    """An integer local cannot be followed as an affine value (it is assigned data, or
    changes under a condition): the translation restarts with it as a memory local."""

    def __init__(self, decl, reason: str):
        super().__init__(reason)
        self.decl, self.reason = decl, reason


class NotAffine(Exception):
    """An expression that is not affine in the loop counters and sizes (the translator falls back)."""
    def __init__(self, cursor, reason: str):
        super().__init__(reason)
        self.cursor, self.reason = cursor, reason


class Operands:
    """Dims and symbols of a group of affine expressions, in first-use order."""

    def __init__(self):
        self.dims: list[str] = []
        self.syms: list[str] = []

    def add(self, e: Poly) -> None:
        """`e` is lowered (`_Emitter.lower`): every monomial one variable."""
        for (kind, ssa), in e.terms:
            lst = self.dims if kind == "d" else self.syms
            if ssa not in lst:
                lst.append(ssa)

    def name(self, mono) -> str:
        (kind, ssa), = mono
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


def render_poly(e: Poly, name) -> str:
    """`d0 * 2 + s0 - 1` of a lowered polynomial, with `name(monomial)` naming each
    variable."""
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


def inline(e: Poly) -> str:
    """Subscript form of affine.load/store: `%i * 2 + symbol(%n) - 1`."""
    return render_poly(e, lambda m: m[0][1] if m[0][0] == "d" else f"symbol({m[0][1]})")


def float_literal(v: float, t: str) -> str:
    """`v` as an MLIR float literal of type `t` (inf and nan as hexadecimal bit patterns)."""
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


def strip_casts(c):
    """Look through parentheses and implicit casts that keep the value (int to int)."""
    while True:
        if c.kind == CK.PAREN_EXPR:
            c = only_child(c)
        elif c.kind == CK.UNEXPOSED_EXPR:
            kids = expr_children(c)
            if len(kids) != 1:
                return c
            c = kids[0]
        else:
            return c


def expr_children(c) -> list:
    """The expression children of cursor `c` (type references and declarations left out)."""
    return [k for k in c.get_children() if k.kind not in (CK.TYPE_REF,) and not k.kind.is_declaration()]


def only_child(c):
    """The single expression child of `c`; Refuse when it has more or fewer."""
    kids = expr_children(c)
    if len(kids) != 1:
        raise Refuse(c, "unsupported expression")
    return kids[0]


def c_text(c, depth: int = 0) -> str:
    """A short C rendering of an expression for messages (macro-expanded)."""
    if depth > 6:
        return "..."
    k = c.kind
    v = evaluate(c) if k in (CK.INTEGER_LITERAL, CK.FLOATING_LITERAL) else None
    if v is not None:
        return repr(v)
    if k == CK.DECL_REF_EXPR:
        return c.spelling
    if k in (CK.PAREN_EXPR,):
        return "(" + c_text(only_child(c), depth + 1) + ")"
    if k == CK.UNEXPOSED_EXPR:
        kids = expr_children(c)
        return c_text(kids[0], depth) if len(kids) == 1 else "<expr>"
    if k == CK.CSTYLE_CAST_EXPR:
        kids = expr_children(c)
        return f"({c.type.spelling}) " + (c_text(kids[-1], depth + 1) if kids else "")
    if k == CK.ARRAY_SUBSCRIPT_EXPR:
        a, b = expr_children(c)
        return f"{c_text(a, depth + 1)}[{c_text(b, depth + 1)}]"
    if k in (CK.BINARY_OPERATOR, CK.COMPOUND_ASSIGNMENT_OPERATOR):
        a, b = expr_children(c)
        return f"{c_text(a, depth + 1)} {binary_operator(c)} {c_text(b, depth + 1)}"
    if k == CK.UNARY_OPERATOR:
        op = unary_operator(c)
        inner = c_text(only_child(c), depth + 1)
        return inner + op[4:] if op.startswith("post") else op.replace("pre", "") + inner
    if k == CK.CONDITIONAL_OPERATOR:
        kids = expr_children(c)
        if len(kids) == 3:
            return " ? ".join([c_text(kids[0], depth + 1), " : ".join(c_text(x, depth + 1) for x in kids[1:])])
    if k == CK.CALL_EXPR:
        return f"{c.spelling}(" + ", ".join(c_text(a, depth + 1) for a in c.get_arguments()) + ")"
    if k == CK.MEMBER_REF_EXPR:
        kids = expr_children(c)
        return (c_text(kids[0], depth + 1) + "." if kids else "") + c.spelling
    return c.spelling or k.name.lower()


def for_parts(s) -> tuple | None:
    """(init, condition, increment, body) of a `for` statement, None for a part left empty
    (`for (; i < n; i++)`); None where the header cannot be told apart (a macro). libclang's
    children omit the empty parts without saying which: the header's tokens say it."""
    kids = list(s.get_children())
    if len(kids) == 4:
        return tuple(kids)
    toks = [t.spelling for t in s.get_tokens()]
    if len(toks) < 2 or toks[0] != "for" or toks[1] != "(":
        return None
    present, depth, current = [], 0, 0
    for t in toks[1:]:
        depth += {"(": 1, ")": -1}.get(t, 0)
        if depth == 0:
            break
        if depth == 1 and t == ";":
            present.append(current > 0)
            current = 0
        elif t != "(" or depth > 1:
            current += 1
    present.append(current > 0)
    if len(present) != 3 or sum(present) != len(kids) - 1:
        return None
    rest = iter(kids[:-1])
    return tuple(next(rest) if p else None for p in present) + (kids[-1],)


@dataclass(eq=False)
class Binding:
    """What a C name stands for. kind: "arg" (a scalar parameter's SSA value), "mem" (a
    scalar local, memref<T>), "array" (a memref: parameter or local array), "loopvar" (a
    loop index: `aff` while inside its loop), "index" (an integer local followed as a
    polynomial, its value in `_Emitter.ivals`), "pointer" (a pointer variable, its value a
    `View` in `ivals`)."""

    kind: str
    ssa: str | None = None
    type: str = ""  # element / scalar type (synth.frontend.c.scalars)
    shape: tuple = ()  # "array": declared extents, Poly or None (unknown), () for a pointer
    aff: Poly | None = None
    name: str = ""
    param_index: int | None = None
    key: object = None  # "array": stable across passes; "index"/"pointer": the key in ivals
    flat: bool = False  # "array": a pointer (or 1-d array) parameter, laid out from its accesses
    restrict: bool = False
    pointer: bool = False  # "array": a parameter declared as a pointer (`T *p`, `T (*p)[N]`)
    ctype: object = None  # "pointer": its C type (what it points to)
    retyped: bool = False  # "array": a `char *` parameter whose bytes are read as `type` only


@dataclass(frozen=True)
class View:
    """A pointer value: `offset` elements (a polynomial) into the base array, pointing at
    objects of `dims` extents (() for single elements, (m,) for rows of m ...). Into a
    retyped base (a `char *` parameter read as doubles: NumPy's loops) the offset counts
    bytes, and `unit` is the size of what the pointer points to (1 for a `char *`)."""

    base: Binding
    offset: Poly
    dims: tuple = ()
    unit: int = 1  # offset units per object pointed to: into a retyped base, its size in bytes
    # a `char *` into a typed array (`(char *)out`, NumPy's casts of a `float *` parameter):
    # the offset counts bytes; only a cast back to the array's type reads it
    in_bytes: bool = False
