"""Reading MLIR modules as Polygeist emits them (older and newer syntax).

Modules are kept as text; each consumer parses them inside its own `ir.Context`
(MLIR objects must not outlive their context). Parse errors become `InputError`s
located at `FILE:LINE:COL` in the original file: every upgrade below keeps line
numbers unchanged.
"""

from __future__ import annotations

import re
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from mlir import ir

from synth.errors import InputError
from synth.frontend.mlir_text import UnbalancedBrackets, closing


class LegacySyntaxWarning(UserWarning):
    """The input used syntax that MLIR 22 rejects; synth upgraded or dropped it."""


@dataclass
class SourceModule:
    """Module text after legacy upgrades, with where it came from. The text is parsed once,
    on first use (`parsed`), in a context shared with other sources (`_source_context`),
    which lives at least as long as this object; passes that change the IR work on a
    `copy`."""

    path: str
    text: str
    notes: list[str] = field(default_factory=list)  # what the upgrades changed
    _parsed: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def parsed(self) -> ir.Module:
        """The module (FILE:LINE:COL InputError if it does not parse); read it under
        `with source.context:` and do not change it."""
        if self._parsed is None:
            context = _source_context()
            with context:
                self._parsed = (context, parse_module(self))
        return self._parsed[1]

    @property
    def context(self) -> ir.Context:
        self.parsed()
        return self._parsed[0]

    def copy(self):
        """A private copy of the module's top-level op (a builtin.module, in `context`) for
        a pass to change."""
        with self.context, ir.Location.unknown():
            return self.parsed().operation.clone()

    def __getstate__(self):  # the parse stays in this process
        return {**self.__dict__, "_parsed": None}


_SHARED = threading.local()
SOURCE_USES = 64  # a shared context is replaced after this many sources (what it uniqued is freed)


def _source_context() -> ir.Context:
    """The context to parse a source in: one per thread, shared by SOURCE_USES sources,
    then a new one (a source keeps its own alive). A new context costs ~5 ms (it loads
    every dialect), and raising adi made ~190 (one per size its parts are tested at)."""
    state = _SHARED.__dict__.setdefault("context", [None, SOURCE_USES])
    if state[1] >= SOURCE_USES:
        state[0], state[1] = ir.Context(), 0
    state[1] += 1
    return state[0]


_DL_SPEC = re.compile(r"dlti\.dl_spec\s*=\s*#dlti\.dl_spec<")
_OLD_FUNC = re.compile(r"^(\s*)func(\s+(?:private\s+)?@)", re.MULTILINE)
# op names MLIR renamed (same semantics): arith.maxf/minf (NaN-propagating, -0 < +0)
_RENAMED_OPS = {"arith.maxf": "arith.maximumf", "arith.minf": "arith.minimumf"}
_OLD_OP = re.compile(r"\b(" + "|".join(re.escape(k) for k in _RENAMED_OPS) + r")(?![\w.])")


def _attribute_span(text: str, match: re.Match) -> tuple[int, int]:
    """Span of `name = #dialect.attr<...>` with balanced angle brackets (to the end of the
    text where they are not)."""
    try:
        return match.start(), closing(text, match.end() - 1)
    except UnbalancedBrackets:
        return match.start(), len(text)


def _blank_keep_lines(fragment: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in fragment)


def _drop_attribute(text: str, start: int, end: int) -> str:
    """Remove an attribute entry from a dictionary, with its separating comma, keeping newlines."""
    after = text[end:]
    stripped = after.lstrip()
    if stripped.startswith(","):
        end += len(after) - len(stripped) + 1
    else:  # last entry: take the comma before it
        before = text[:start].rstrip()
        if before.endswith(","):
            start = len(before) - 1
    return text[:start] + _blank_keep_lines(text[start:end]) + text[end:]


def upgrade_legacy_syntax(text: str) -> tuple[str, list[str]]:
    """Rewrite constructs of older Polygeist/MLIR output that MLIR 22 rejects."""
    notes: list[str] = []
    if _OLD_FUNC.search(text):
        text = _OLD_FUNC.sub(r"\1func.func\2", text)
        notes.append("upgraded pre-`func` dialect `func @name` to `func.func @name`")
    renamed = sorted({m.group(1) for m in _OLD_OP.finditer(text)})
    if renamed:
        text = _OLD_OP.sub(lambda m: _RENAMED_OPS[m.group(1)], text)
        notes.append("renamed old op names " + ", ".join(f"`{o}` to `{_RENAMED_OPS[o]}`" for o in renamed))
    m = _DL_SPEC.search(text)
    if m:
        start, end = _attribute_span(text, m)
        spec = text[start:end]
        upgraded = re.sub(r"(dense<[^>]*>\s*:\s*vector<\d+x)i32>", r"\1i64>", spec)
        if upgraded != spec and _parses(upgraded_text := text[:start] + upgraded + text[end:]):
            text = upgraded_text
            notes.append("upgraded legacy `dlti.dl_spec` entries (i32 vectors to i64)")
        elif not _parses(text):
            text = _drop_attribute(text, start, end)
            notes.append("dropped legacy module attribute `dlti.dl_spec` that MLIR 22 rejects")
    return text, notes


def _parses(text: str) -> bool:
    with ir.Context():
        try:
            ir.Module.parse(text)
            return True
        except ir.MLIRError:
            return False


def walk_ops(block: ir.Block):
    """Every operation nested in `block`, in pre-order (parents before their bodies): the
    order every analysis numbers ops in."""
    for op in block.operations:
        op = op.operation
        yield op
        for region in op.regions:
            for b in region.blocks:
                yield from walk_ops(b)


def nested_in(op, ancestor) -> bool:
    """Whether `op` is nested (at any depth) in the operation `ancestor`."""
    parent = op.parent
    while parent is not None:
        if parent == ancestor:
            return True
        parent = parent.parent
    return False


def _term(key) -> tuple[dict, int]:
    return {key: 1}, 0


def affine_linear(e: ir.AffineExpr, dim=lambda p: _term(("d", p)), symbol=lambda p: _term(("s", p))
                  ) -> tuple[dict, int] | None:
    """An affine expression as a linear form ({key: coefficient}, constant), zero
    coefficients dropped; None for a mod, a div or a product of two non-constants.
    `dim(position)` / `symbol(position)` give each dim's / symbol's form (a key of its
    own by default: ("d", p), ("s", p); a known value as a constant), or None where it
    makes the expression not linear."""
    if isinstance(e, ir.AffineConstantExpr):
        return {}, e.value
    if isinstance(e, ir.AffineDimExpr):
        return dim(e.position)
    if isinstance(e, ir.AffineSymbolExpr):
        return symbol(e.position)
    if isinstance(e, (ir.AffineAddExpr, ir.AffineMulExpr)):
        a, b = affine_linear(e.lhs, dim, symbol), affine_linear(e.rhs, dim, symbol)
        if a is None or b is None:
            return None
        if isinstance(e, ir.AffineAddExpr):
            terms = dict(a[0])
            for k, c in b[0].items():
                terms[k] = terms.get(k, 0) + c
            return {k: c for k, c in terms.items() if c}, a[1] + b[1]
        if a[0] and b[0]:
            return None
        (terms, c0), f = (a, b[1]) if not b[0] else (b, a[1])
        return {k: c * f for k, c in terms.items() if c * f}, c0 * f
    return None


def diagnostic_location(path: str, location: ir.Location) -> str:
    try:
        if location.is_a_file():
            return f"{path}:{location.start_line}:{location.start_col}"
    except (AttributeError, ValueError, TypeError):  # location kinds without file info
        pass
    return path


def parse_module(source: SourceModule) -> ir.Module:
    """Parse in the current context; errors become InputError at FILE:LINE:COL."""
    try:
        return ir.Module.parse(source.text)
    except ir.MLIRError as e:
        diags = e.error_diagnostics
        if not diags:
            raise InputError(f"cannot parse MLIR: {e}", source.path) from None
        first = diags[0]
        message = first.message
        notes = [n.message for n in first.notes]
        if notes:
            message += " (" + "; ".join(notes) + ")"
        raise InputError(message, diagnostic_location(source.path, first.location)) from None


def read_text(path: str | Path) -> str:
    """A file's text (`-`: standard input); a missing or unreadable file is an InputError
    naming it."""
    if str(path) == "-":
        import sys

        return sys.stdin.read()
    try:
        return Path(path).read_text()
    except FileNotFoundError:
        raise InputError("no such file", str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read file: {e}", str(path)) from None


def load_source(path: str | Path, *, warn: bool = True) -> SourceModule:
    """Read a module file (never modified), upgrade legacy syntax, check that it parses."""
    return load_text(read_text(path), "<stdin>" if str(path) == "-" else str(path), warn=warn)


def load_text(text: str, path: str, *, warn: bool = True) -> SourceModule:
    """`load_source` on text already read; `path` names it in messages."""
    text, notes = upgrade_legacy_syntax(text)
    source = SourceModule(path, text, notes)
    if warn:
        for note in notes:
            warnings.warn(f"{path}: {note}", LegacySyntaxWarning, stacklevel=2)
    source.parsed()
    return source


def input_assumptions(source: SourceModule, name: str) -> list[str]:
    """The `synth.assumptions` of function @name as read (what the C translation took for
    granted: arrays that do not overlap, leading dimensions that hold their rows)."""
    with source.context:
        for op in source.parsed().body.operations:
            if op.operation.name == "func.func" and op.attributes["sym_name"].value == name:
                if "synth.assumptions" not in op.attributes:
                    return []
                return [ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes["synth.assumptions"])]
    return []


@dataclass(frozen=True)
class COptions:
    """How to compile a C input (synth.frontend.c): -D, -I, --std, other flags, and the
    values --size gives integer parameters."""

    defines: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    std: str = "c99"
    flags: tuple[str, ...] = ()
    sizes: tuple[tuple[str, int], ...] = ()


def c_options_from_args(args) -> COptions:
    """COptions from a command line's parsed options (-D, -I, --std, --cflags, --size;
    any of them absent: its default). A bad --size is an InputError."""
    import shlex

    return COptions(tuple(getattr(args, "define", None) or ()), tuple(getattr(args, "include", None) or ()),
                    getattr(args, "std", "c99"), tuple(shlex.split(getattr(args, "cflags", None) or "")),
                    size_options(getattr(args, "size", None) or ()))


def size_options(items) -> tuple[tuple[str, int], ...]:
    """`--size NAME=VALUE` options as (name, value) pairs."""
    out = []
    for item in items:
        name, _, value = item.partition("=")
        try:
            out.append((name.strip(), int(value, 0)))
        except ValueError:
            raise InputError(f"--size {item}: expected NAME=INTEGER (e.g. --size n=1000)") from None
        if not name.strip().isidentifier():
            raise InputError(f"--size {item}: '{name}' is not a C parameter name")
    return tuple(out)


def is_c(path) -> bool:
    return str(path).endswith((".c", ".h"))


def load_input(path, *, function: str | None = None, c: COptions | None = None,
               warn: bool = True) -> SourceModule:
    """A kernel file as a module: MLIR (`load_source`), or C translated to affine MLIR
    (functions outside static control are left out, named in the notes, unless `function`
    asks for one)."""
    if not is_c(path):
        return load_source(path, warn=warn)
    from synth.frontend.c import translate_c

    c = c or COptions()
    source = translate_c(str(path), function=function, defines=list(c.defines),
                         include_dirs=list(c.include_dirs), std=c.std, extra_flags=list(c.flags),
                         skip_unsupported=function is None, sizes=dict(c.sizes) or None)
    if warn:
        for note in source.notes:
            warnings.warn(f"{path}: {note}", LegacySyntaxWarning, stacklevel=2)
    return source

