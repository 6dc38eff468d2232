"""C scalar types as the translator names them, and C's rules on them.

A type is an MLIR type name, with `u` for C's unsigned integers: `f64 f32 i64 i32 i16
i8 i1 index` and `u64 u32 u16 u8` (MLIR's integers are signless: `u8` is emitted as
`i8`, and the signedness picks the ops: `divui`, `extui`, `cmpi ult` ...). C's integer
promotions (everything narrower than int becomes int) and usual arithmetic conversions
(`usual`) decide the type an operation is computed in; clang makes most of them explicit
as implicit casts, the compound assignments leave theirs to us."""

from __future__ import annotations

from clang.cindex import TypeKind as TK

SCALARS = {
    TK.DOUBLE: "f64", TK.FLOAT: "f32",
    TK.LONG: "i64", TK.LONGLONG: "i64", TK.ULONG: "u64", TK.ULONGLONG: "u64",
    TK.INT: "i32", TK.UINT: "u32", TK.SHORT: "i16", TK.USHORT: "u16",
    TK.CHAR_S: "i8", TK.SCHAR: "i8", TK.CHAR_U: "u8", TK.UCHAR: "u8",
}
FLOATS = ("f32", "f64")
WIDTH = {"i1": 1, "i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32, "u32": 32, "i64": 64,
         "u64": 64, "index": 64, "f32": 32, "f64": 64}


def is_int(t: str) -> bool:
    """An integer type of C (not i1, not index)."""
    return t in WIDTH and t not in FLOATS and t not in ("i1", "index")


def unsigned(t: str) -> bool:
    return t.startswith("u")


def mlir(t: str) -> str:
    """The MLIR type of a translator type."""
    return "i" + t[1:] if t.startswith("u") else t


def promoted(t: str) -> str:
    """C's integer promotion: types narrower than int (and i1, a comparison's result)
    become int."""
    if t in FLOATS or t == "index":
        return t
    return "i32" if WIDTH[t] < 32 else t


def usual(a: str, b: str) -> str:
    """C's usual arithmetic conversions of two operand types."""
    if a in FLOATS or b in FLOATS:
        return "f64" if "f64" in (a, b) else "f32"
    if "index" in (a, b):
        return "index"
    a, b = promoted(a), promoted(b)
    if a == b:
        return a
    wa, wb = WIDTH[a], WIDTH[b]
    if unsigned(a) == unsigned(b):
        return a if wa > wb else b
    u, s = (a, b) if unsigned(a) else (b, a)
    if WIDTH[u] >= WIDTH[s]:
        return u
    return s  # the signed type is wider: it holds every value of the unsigned one


def wrap(value: int, t: str) -> int:
    """An integer constant as the signless MLIR literal of its width (two's complement)."""
    w = WIDTH[t]
    value &= (1 << w) - 1
    return value - (1 << w) if value >= 1 << (w - 1) else value
