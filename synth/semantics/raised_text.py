"""The text of raised modules: the top-level functions (found by synth.frontend.mlir_text,
synth's one scanner of MLIR text: brackets outside strings and comments), keeping one
function and its callees, and the textual re-instantiation at other sizes used for modules
synth did not write (see synth.semantics.raised).

The functions are found in the text, not through MLIR, because a module synth writes need
not parse in any one MLIR context: a stablehlo raise beside its drop-in wrapper holds
stablehlo ops, which only jaxlib's context registers, and bufferization ops, which it does
not (tests/data/gpu/durbin.stablehlo.mlir). Each function kept is then parsed by MLIR in
the context of its dialect; tests/test_raised_text.py checks on every raised module in
tests/data that MLIR finds the functions where this text split says they start."""

from __future__ import annotations

import re


from synth.frontend.mlir_text import closing, code
from synth.semantics import support as support

# smallest original size value the textual re-instantiation accepts; a number within _NEAR
# of an original size is that size plus an offset (defined below the grammar, which uses them)
from synth.analysis.sizes import MIN_SIZE, NEAR as _NEAR  # noqa: E402


# module text --------------------------------------------------------------------------------


_FUNC = re.compile(r"func\.func\s+(?:(?:private|public|nested)\s+)?@([\w$.]+)")


def top_level_functions(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of each `func.func` at the top level of a module (or of the file).

    A function ends with its body's closing brace; a declaration (no body) with its line."""
    out: list[tuple[str, int, int]] = []
    depth, skip = 0, 0
    for i in code(text):
        if i < skip:  # inside a function already found
            continue
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth <= 1 and text.startswith("func.func", i) and (i == 0 or not text[i - 1].isalnum()):
            m = _FUNC.match(text, i)
            if m:
                skip = _function_end(text, m.end())
                out.append((m.group(1), i, skip))
    return out


def _function_end(text: str, i: int) -> int:
    parens, skip = 0, i
    for k in code(text, i):
        if k < skip:  # inside an attribute dictionary
            continue
        c = text[k]
        if c in "([":
            parens += 1
        elif c in ")]":
            parens -= 1
        elif c == "{" and parens == 0:
            if text[:k].rstrip().endswith("attributes"):
                skip = closing(text, k)
                continue
            return closing(text, k)
        elif c == "\n" and parens == 0:
            rest = text[k:].lstrip()
            if not rest.startswith(("{", "->", "attributes")):
                return k  # a declaration
    return len(text)


def _blank(fragment: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in fragment)


_CALL = re.compile(r"\bcall\s+@([\w$.]+)")


def keep_functions(text: str, root: str) -> str | None:
    """The text with every top-level function blanked out except `root` and the functions
    it calls (transitively); None when there is no function `root`."""
    funcs = {name: (s, e) for name, s, e in top_level_functions(text)}
    if root not in funcs:
        return None
    keep, todo = set(), [root]
    while todo:
        name = todo.pop()
        if name in keep or name not in funcs:
            continue
        keep.add(name)
        s, e = funcs[name]
        todo.extend(_CALL.findall(text[s:e]))
    pieces, pos = [], 0
    for name, (s, e) in sorted(funcs.items(), key=lambda kv: kv[1]):
        pieces.append(text[pos:s])
        pieces.append(text[s:e] if name in keep else _blank(text[s:e]))
        pos = e
    pieces.append(text[pos:])
    return "".join(pieces)


# re-instantiation at other sizes -------------------------------------------------------------


def map_size(value: int, value_map: dict[int, int]) -> int:
    """`value` as a size under `value_map` (exact, else within _NEAR of exactly one size)."""
    if value in value_map:
        return value_map[value]
    if value < MIN_SIZE - _NEAR:
        return value
    for offset in range(1, _NEAR + 1):
        for sign in (-1, 1):
            hits = [v for v in value_map if v + sign * offset == value]
            if len(hits) == 1:
                return value_map[hits[0]] + sign * offset
            if hits:
                return value
    return value


_SHAPED = re.compile(r"\b(tensor|memref|vector)<((?:(?:\d+|\?)x)+)")
_INT_LIST = re.compile(r"\[([\d\s,:\-]*)\]")
_ARRAY_ATTR = re.compile(r"array<i64:([\d\s,\-]*)>")
_INDEX_CONST = re.compile(r"(arith\.constant\s+)(\d+)(\s*:\s*index\b)")
_INT = re.compile(r"\d+")
_AFFINE_MAP = re.compile(r"affine_map<(.*?\))>")  # up to the first ")>": `->` has a '>' too
_MAP_INT = re.compile(r"(?<![\w])\d+")  # an integer constant, not the 0 of d0 / s0


_DENSE = re.compile(r"\bdense(?:_resource)?<[^>]*>")
# a rank-0 i64 stablehlo constant: a loop's bound or a counter's offset (synth's loops count
# in tensor<i64>), an index like `arith.constant N : index`, not data
_COUNT_CONST = re.compile(r"(stablehlo\.constant\s+dense<)(\d+)(>\s*:\s*tensor<i64>)")


# where sizes stand, and the numbers of each match (not the 64 of i64 nor the 0 of d0)
_DERIVED_SITES = (
    (_SHAPED, lambda m: [d for d in m.group(2).split("x")[:-1] if d != "?"]),
    (_INT_LIST, lambda m: _INT.findall(m.group(1))),
    (_ARRAY_ATTR, lambda m: _INT.findall(m.group(1))),
    (_AFFINE_MAP, lambda m: _MAP_INT.findall(m.group(1))),
    (re.compile(r"arith\.constant\s+(\d+)\s*:\s*(?:index|i64)\b"), lambda m: [m.group(1)]),
    (_COUNT_CONST, lambda m: [m.group(2)]),
)


def derived_size(value: int, value_map: dict[int, int]) -> str | None:
    """How `value` derives from the original sizes though it is none of them (nor within
    _NEAR of one): about k x s for k in 2..4, or about s x t; None when it does not."""
    if value < MIN_SIZE or value in value_map or map_size(value, value_map) != value:
        return None
    sizes = sorted(value_map)
    for s in sizes:
        for k in (2, 3, 4):
            if abs(value - k * s) <= _NEAR:
                return f"{value} (about {k} x {s})"
    for s in sizes:
        for t in sizes:
            if abs(value - s * t) <= _NEAR:
                return f"{value} (about {s} x {t})"
    return None


def size_derived_numbers(text: str, value_map: dict[int, int]) -> list[str]:
    """The numbers where sizes stand (types, slice lists, index and counter constants, affine
    maps) that derive from the sizes without being one (`derived_size`): the textual
    re-instantiation would leave them as they are, and a program that pads to 3n or
    indexes from 2n - 1 (synth's own flip did) would silently compute something else."""
    found = []
    data_masked = _DENSE.sub(" ", text)
    for pattern, numbers in _DERIVED_SITES:
        for m in pattern.finditer(text if pattern is _COUNT_CONST else data_masked):
            for k in numbers(m):
                why = derived_size(int(k), value_map)
                if why and why not in found:
                    found.append(why)
    return found


def resize_text(text: str, value_map: dict[int, int]) -> str:
    """Rewrite the sizes of a raised module (see the module docstring). The contents of
    `dense<...>` attributes are data, never sizes: they are masked while rewriting, except
    a rank-0 i64 stablehlo constant (a loop bound: floyd-warshall's `dense<2800>`).
    Raises ValueError where a number derives from the sizes without being one
    (`size_derived_numbers`)."""
    derived = size_derived_numbers(text, value_map)
    if derived:
        raise ValueError(f"the number{'s' if len(derived) > 1 else ''} {', '.join(derived[:3])} "
                         f"derive{'' if len(derived) > 1 else 's'} from the sizes but {'are' if len(derived) > 1 else 'is'} "
                         f"no size itself, so the text cannot be re-instantiated by mapping sizes")
    constants: list[str] = []

    def mask(m: re.Match) -> str:
        constants.append(m.group())
        return f"\0{len(constants) - 1}\0"

    text = _COUNT_CONST.sub(lambda m: m.group(1) + str(map_size(int(m.group(2)), value_map)) + m.group(3), text)
    text = _DENSE.sub(mask, text)
    text = _resize_unmasked(text, value_map)
    return re.sub("\0(\\d+)\0", lambda m: constants[int(m.group(1))], text)


def _resize_unmasked(text: str, value_map: dict[int, int]) -> str:
    def ints(s: str) -> str:
        return _INT.sub(lambda m: str(map_size(int(m.group()), value_map)), s)

    def shaped(m: re.Match) -> str:
        dims = m.group(2).split("x")[:-1]
        new = [d if d == "?" else str(value_map.get(int(d), map_size(int(d), value_map))) for d in dims]
        return f"{m.group(1)}<{''.join(d + 'x' for d in new)}"

    text = _SHAPED.sub(shaped, text)
    text = _INT_LIST.sub(lambda m: "[" + ints(m.group(1)) + "]", text)
    text = _ARRAY_ATTR.sub(lambda m: "array<i64:" + ints(m.group(1)) + ">", text)
    # constant indices in affine maps (an edge index size - 1 of a slice, say)
    text = _AFFINE_MAP.sub(lambda m: "affine_map<" + _MAP_INT.sub(
        lambda k: str(map_size(int(k.group()), value_map)), m.group(1)) + ">", text)
    return _INDEX_CONST.sub(lambda m: m.group(1) + ints(m.group(2)) + m.group(3), text)


