"""Loop bounds through min and max, as library C writes them: a `?:` that picks the
smaller (larger) of two affine values (`i + B < n ? i + B : n`, a `MIN(a, b)` macro),
nested ones (`MIN(MIN(a, b), c)`), a one-line helper of the file (`imin(i + B, n)`), and
a local set to one of those and never changed after (`int end = MIN(i + B, n); for (j =
i; j < end; j++)`). An upper bound through min is an `affine.for` bound `min(...)` (the
loop runs while the index is below every operand); a lower bound through max is `max(...)`;
either, the other way round, is not a convex set of iterations and is refused.

`extremum(tr, c, want)` returns the operands (polynomials) of `c` read as the `want`
("min" or "max") of affine values: one operand where `c` is affine itself; NotAffine
(with the reason) otherwise."""

from __future__ import annotations

from clang.cindex import CursorKind as CK

from synth.frontend.c.libclang import binary_operator
from synth.frontend.c.model import NotAffine, c_text, expr_children, strip_casts
from synth.frontend.c.poly import Poly

MAX_OPERANDS = 8  # operands of one min / max bound
_PICKS = {"<": "min", "<=": "min", ">": "max", ">=": "max"}  # `x OP y ? x : y`


def extremum(tr, c, want: str) -> list[Poly]:
    """The operands of `c` as the `want` ("min" / "max") of affine values (see module)."""
    out = _operands(tr, c, want, 0)
    if len(out) > MAX_OPERANDS:
        raise NotAffine(c, f"'{c_text(c)}' is the {want} of more than {MAX_OPERANDS} values")
    unique = []
    for p in out:
        if p not in unique:
            unique.append(p)
    return unique


def _operands(tr, c, want: str, depth: int) -> list[Poly]:
    s = strip_casts(c)
    if s.kind == CK.CSTYLE_CAST_EXPR and expr_children(s):
        s = strip_casts(expr_children(s)[-1])
    if depth > 16:
        raise NotAffine(s, f"'{c_text(s)}' nests min / max too deeply")
    if s.kind == CK.CONDITIONAL_OPERATOR:
        kind = picks(tr, s)
        if kind is None:
            tr.affine(s, pure=True)  # says why it is not affine
        if kind != want:
            raise NotAffine(s, f"'{c_text(s)}' is the {kind} of two values where the bound needs "
                               f"their {want} (only an upper bound through min and a lower bound "
                               f"through max are loop bounds)")
        _, a, b = expr_children(s)
        return _operands(tr, a, want, depth + 1) + _operands(tr, b, want, depth + 1)
    if s.kind == CK.CALL_EXPR:
        body = tr.one_line_helper(s)
        if body is not None:
            return _operands(tr, body, want, depth + 1)
    if s.kind == CK.DECL_REF_EXPR:
        init = fixed_local(tr, s)
        if init is not None:
            return _operands(tr, init, want, depth + 1)
    return [tr.affine(s, pure=True)]


def picks(tr, s) -> str | None:
    """"min" / "max" where the `?:` `s` picks the smaller / larger of its two operands
    (`x < y ? x : y`, `x > y ? y : x` ...); None for any other `?:`."""
    cond, a, b = expr_children(s)
    cond = strip_casts(cond)
    if cond.kind != CK.BINARY_OPERATOR or binary_operator(cond) not in _PICKS:
        return None
    x, y = expr_children(cond)
    kind = _PICKS[binary_operator(cond)]
    other = "max" if kind == "min" else "min"
    if _same(tr, a, x) and _same(tr, b, y):
        return kind
    if _same(tr, a, y) and _same(tr, b, x):
        return other
    try:  # `n > 4 ? n - 4 : 0`: a - b is x - y (or y - x)
        d_cond = tr.affine(x, pure=True) - tr.affine(y, pure=True)
        d_pick = tr.affine(a, pure=True) - tr.affine(b, pure=True)
    except NotAffine:
        return None
    if d_pick == d_cond:
        return kind
    if d_pick == d_cond.scale(-1):
        return other
    return None


def _same(tr, a, b) -> bool:
    """The two expressions have the same value: the same text, or equal polynomials."""
    a, b = strip_casts(a), strip_casts(b)
    if c_text(a) == c_text(b):
        return True
    try:
        return tr.affine(a, pure=True) == tr.affine(b, pure=True)
    except NotAffine:
        return False


def fixed_local(tr, ref):
    """The initialiser of the local `ref` names where it still holds that value here: the
    local is never assigned after its declaration, and every name its initialiser reads is
    a parameter the function never changes, a local never assigned after its declaration,
    or the index of a loop around both the declaration and this read; None otherwise."""
    d = ref.referenced
    if d is None or d.kind != CK.VAR_DECL or d.hash in tr.assigned or d.hash in tr.loop_vars:
        return None
    init = [k for k in d.get_children() if k.kind != CK.TYPE_REF and k.kind.is_expression()]
    if not init:
        return None
    for k in init[-1].walk_preorder():
        if k.kind != CK.DECL_REF_EXPR or k.referenced is None:
            continue
        r = k.referenced
        if r.kind in (CK.ENUM_CONSTANT_DECL, CK.FUNCTION_DECL):
            continue
        if r.hash in tr.loop_vars:
            loop = tr.open_loops.get(r.hash)
            if loop is None or not _inside(d, loop):
                return None
        elif r.kind not in (CK.PARM_DECL, CK.VAR_DECL) or r.hash in tr.assigned:
            return None
    return init[-1]


def _inside(inner, outer) -> bool:
    """The cursor `inner` lies within the source extent of `outer`."""
    a, b = inner.extent, outer.extent
    return (a.start.file is not None and b.start.file is not None
            and a.start.file.name == b.start.file.name
            and b.start.offset <= a.start.offset and a.end.offset <= b.end.offset)


def bound_only(tr, d, init) -> bool:
    """The integer local `d`, set once to a `?:` or a call (`int end = MIN(i + B, n)`), is
    read only in the conditions of `for` loops read as affine.for (their bounds, through
    `extremum`): it needs no memory, nor a value computed in each iteration."""
    s = strip_casts(init)
    if s.kind not in (CK.CONDITIONAL_OPERATOR, CK.CALL_EXPR) or d.hash in tr.assigned \
            or d.hash in tr.loop_vars:
        return False
    conds, refs = [], []
    for k in tr.func.walk_preorder():
        if k.kind == CK.FOR_STMT and tr.affine_for(k):
            kids = list(k.get_children())
            if len(kids) == 4:
                conds.append(kids[1])
        elif k.kind == CK.DECL_REF_EXPR and k.referenced is not None and k.referenced.hash == d.hash:
            refs.append(k)
    return bool(refs) and all(any(_inside(r, c) for c in conds) for r in refs)
