"""The lexical structure of MLIR text, for what synth reads before MLIR parses it (or where
no one MLIR context can: synth.semantics.raised_text): string literals, `//` comments, and
the brackets outside them. The one scanner synth has for MLIR text: the raised modules'
split into functions and the legacy attributes the reader upgrades both use it."""

from __future__ import annotations

from collections.abc import Iterator


class UnbalancedBrackets(ValueError):
    """An opening bracket of MLIR text that is never closed, at 1-based `line`, `column`."""

    def __init__(self, text: str, i: int):
        self.line = text.count("\n", 0, i) + 1
        self.column = i - (text.rfind("\n", 0, i) + 1) + 1
        super().__init__(f"unbalanced brackets: the '{text[i]}' at line {self.line}, column {self.column} "
                         f"is never closed")


def skip_string(text: str, i: int) -> int:
    """Index just past the string literal starting at text[i] == '"'."""
    i += 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def code(text: str, i: int = 0) -> Iterator[int]:
    """Indices of the characters of `text`, from `i` on, that are code: outside string
    literals and `//` comments."""
    n = len(text)
    while i < n:
        if text[i] == '"':
            i = skip_string(text, i)
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        yield i
        i += 1


_CLOSING = {"{": "}", "(": ")", "[": "]", "<": ">"}


def closing(text: str, i: int) -> int:
    """Index just past the bracket that closes the one at text[i] (`{`, `(`, `[` or `<`;
    brackets of other kinds in between are not counted, and the `>` of `->` closes
    nothing). UnbalancedBrackets where none does."""
    opening = text[i]
    close = _CLOSING[opening]
    depth = 0
    for k in code(text, i):
        c = text[k]
        if c == opening:
            depth += 1
        elif c == close and not (close == ">" and text[k - 1] == "-"):
            depth -= 1
            if depth == 0:
                return k + 1
    raise UnbalancedBrackets(text, i)
