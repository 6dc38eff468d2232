"""`continue` in a loop body, as C defines it: the rest of the iteration runs only where
the branch that continues is not taken.

`loop_body` rewrites a loop's body into a statement list without `continue`:
`if (c) { A; continue; } B;` becomes `if (c) { A } else { B }` (a `Branch`, translated
as an `if`: `affine.if` on sizes, if-conversion to selects on data), and a `continue`
deeper in `if` branches takes the rest of the iteration into each branch that does not
continue (`if (a) { if (b) continue; X; } Y;` is `if (a) { if (b) {} else { X; Y } }
else { Y }`). The increment of a `for` loop is not part of the body: it runs after a
`continue` too. A `continue` of a loop nested inside belongs to that loop. Anything else
that holds a `continue` (a `switch`, a statement expression) is refused."""

from __future__ import annotations

from dataclasses import dataclass

from clang.cindex import CursorKind as CK

from synth.frontend.c.model import Refuse

_LOOPS = (CK.FOR_STMT, CK.WHILE_STMT, CK.DO_STMT)


@dataclass(eq=False)
class Branch:
    """`if (cond) then else other` made from the `if` `cursor` (its location), with
    statement lists as branches."""

    cursor: object
    cond: object
    then: list
    other: list


def has_continue(c) -> bool:
    """`c` holds a `continue` of the loop around it (not of a loop inside it)."""
    if isinstance(c, list):
        return any(has_continue(x) for x in c)
    if isinstance(c, Branch):
        return has_continue(c.then) or has_continue(c.other)
    if c.kind == CK.CONTINUE_STMT:
        return True
    if c.kind in _LOOPS or c.kind.is_expression():
        return False
    return any(has_continue(k) for k in c.get_children())


def items(c) -> list:
    """The statements of a branch or body: a block's, or the one statement."""
    if c is None:
        return []
    return list(c.get_children()) if c.kind == CK.COMPOUND_STMT else [c]


MAX_CONTINUES = 8  # each copies the rest of the iteration into both sides of its if


def loop_body(body):
    """The body of a loop (a cursor) as it runs: itself, or where it holds a `continue`,
    the statement list without one."""
    if not has_continue(body):
        return body
    found = _continues(body)
    if len(found) > MAX_CONTINUES:
        raise Refuse(found[MAX_CONTINUES], f"more than {MAX_CONTINUES} 'continue' statements in one "
                                            f"loop body: each copies the rest of the iteration into "
                                            f"both sides of its 'if', which doubles the loop's text")
    return _guard(items(body))


def _continues(c) -> list:
    """The `continue` statements of the loop around `c` (not of loops inside it)."""
    if c.kind == CK.CONTINUE_STMT:
        return [c]
    if c.kind in _LOOPS or c.kind.is_expression():
        return []
    return [x for k in c.get_children() for x in _continues(k)]


def _guard(seq: list) -> list:
    """`seq`, which runs to the end of the iteration, with every `continue` replaced by
    running nothing more."""
    out = []
    for i, s in enumerate(seq):
        if not has_continue(s):
            out.append(s)
            continue
        after = seq[i + 1:]
        if s.kind == CK.CONTINUE_STMT:
            return out
        if s.kind == CK.COMPOUND_STMT:
            return out + _guard(list(s.get_children()) + after)
        if s.kind == CK.IF_STMT:
            kids = [k for k in s.get_children() if not k.kind.is_declaration()]
            other = kids[2] if len(kids) > 2 else None
            return out + [Branch(s, kids[0], _guard(items(kids[1]) + after),
                                 _guard(items(other) + after))]
        what = s.kind.name.lower().replace("_stmt", "")
        raise Refuse(s, f"'continue' inside a '{what}' is not supported (only in the branches "
                         f"of 'if' statements of the loop body)")
    return out
