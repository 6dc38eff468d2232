"""C front end: static-control C kernels (PolyBench style) to affine MLIR.

`translate_c` parses a C file with libclang (the `libclang` wheel, no Polygeist) and
emits one `func.func` per function with a body, in the form synth reads (see
`benchmarks/polybench/*.mlir`): every loop an `affine.for`, every array access an
`affine.load` / `affine.store`, `affine.if` for affine conditions, scalar locals as
`memref.alloca() : memref<T>`, scalar arithmetic in `arith` / `math`.

What is translated (anything else is refused with an `InputError` at FILE:LINE:COL,
naming the construct):

- parameters: `double` / `float` / `int` / `long` scalars (f64 / f32 / i32 / i64), and
  arrays with constant extents (`double A[N][M]`, `DATA_TYPE POLYBENCH_2D(A,NI,NJ,ni,nj)`
  after macro expansion) as static memrefs `memref<NxMxf64>`, in the C order. Arrays whose
  extent is a run-time value (C99 VLAs `double A[n][m]`) and pointers are refused.
- `for (i = lb; i < ub; i++)` (also `<=`, `>`, `>=`, `++i`, `i += c`, `i = i + c`, and
  decreasing loops `i--` / `i -= c`) with affine bounds: constants, integer parameters
  (an `arith.index_cast` of the argument, used as a symbol), enclosing loop indices,
  `+ - *` by constants.
- `if` / `else` whose condition is a conjunction (`&&`) of affine comparisons
  (`<`, `<=`, `>`, `>=`, `==`; `!=` and `!` swap the branches) -> `affine.if`.
- array subscripts that are affine in loop indices and integer parameters.
- scalar locals (initialised or not) and local arrays of constant extent ->
  `memref.alloca` (hoisted to the function entry), read and written with affine ops;
  scalar parameters that the function assigns get such a local copy.
- `=`, `+=`, `-=`, `*=`, `/=` (and `%=`, bitwise), `++` / `--` on scalars and elements;
  `+ - * /` (`%`, bitwise and shifts on integers), unary minus, comparisons, `&&`, `||`,
  `!`, `c ? a : b` (`arith.select`: both operands are evaluated), casts between the
  scalar types (loop indices through `arith.index_cast`), integer and float literals
  (constant expressions are folded), calls to `sqrt exp log pow fabs fmax fmin tanh sin
  cos floor ceil` (and the `f` variants).
- `return expr;` as the function's last statement -> `func.return` with a result.

Refused: `while`, `do`, `goto`, `break`, `continue`, `switch`, `return` before the end,
pointer parameters, pointer arithmetic and dereference, `&`, struct access, calls to other
functions, data-dependent loop bounds, conditions and subscripts (`A[B[i]]`), non-affine
subscripts (`A[i*j]`), global variables, unsigned/char/short/long double types.
"""

from __future__ import annotations

import ctypes
import math
import os
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import clang.cindex as ci
from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.errors import InputError, SynthError
from synth.frontend.reader import SourceModule

__all__ = ["list_c_functions", "resource_include_dir", "translate_c"]

_FALLBACK_INCLUDE = Path(__file__).resolve().parent / "include"
_FALLBACK_HEADERS = ("stddef.h", "stdarg.h", "stdbool.h", "float.h", "limits.h", "stdint.h")


# ------------------------------------------------------------------------------------------
# libclang: parsing, and the few C entry points the Python bindings of 18.1.1 lack


@lru_cache(maxsize=1)
def resource_include_dir() -> str:
    """Directory with the compiler's freestanding headers (stddef.h, stdarg.h, float.h...):
    the libclang wheel ships none. The system C compiler's own (`gcc -print-file-name=include`),
    else the minimal ones shipped in synth/frontend/include."""
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if not cc or not shutil.which(cc):
            continue
        try:
            out = subprocess.run([cc, "-print-file-name=include"], capture_output=True, text=True,
                                 timeout=10, check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        if out and os.path.isabs(out) and os.path.isfile(os.path.join(out, "stddef.h")):
            return out
    return str(_FALLBACK_INCLUDE)


_BINOPS = {3: "*", 4: "/", 5: "%", 6: "+", 7: "-", 8: "<<", 9: ">>", 11: "<", 12: ">", 13: "<=",
           14: ">=", 15: "==", 16: "!=", 17: "&", 18: "^", 19: "|", 20: "&&", 21: "||", 22: "=",
           23: "*=", 24: "/=", 25: "%=", 26: "+=", 27: "-=", 28: "<<=", 29: ">>=", 30: "&=",
           31: "^=", 32: "|=", 33: ","}
_UNOPS = {1: "post++", 2: "post--", 3: "pre++", 4: "pre--", 5: "&", 6: "*", 7: "+", 8: "-", 9: "~",
          10: "!", 11: "__real", 12: "__imag", 13: "__extension__"}


@lru_cache(maxsize=1)
def _lib():
    lib = ci.conf.lib
    for name, args, res in [
        ("clang_getCursorBinaryOperatorKind", [ci.Cursor], ctypes.c_int),
        ("clang_getCursorUnaryOperatorKind", [ci.Cursor], ctypes.c_int),
        ("clang_Cursor_Evaluate", [ci.Cursor], ctypes.c_void_p),
        ("clang_EvalResult_getKind", [ctypes.c_void_p], ctypes.c_int),
        ("clang_EvalResult_isUnsignedInt", [ctypes.c_void_p], ctypes.c_uint),
        ("clang_EvalResult_getAsLongLong", [ctypes.c_void_p], ctypes.c_longlong),
        ("clang_EvalResult_getAsUnsigned", [ctypes.c_void_p], ctypes.c_ulonglong),
        ("clang_EvalResult_getAsDouble", [ctypes.c_void_p], ctypes.c_double),
        ("clang_EvalResult_dispose", [ctypes.c_void_p], None),
    ]:
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    return lib


def _binop(c) -> str:
    return _BINOPS.get(_lib().clang_getCursorBinaryOperatorKind(c), "?")


def _unop(c) -> str:
    return _UNOPS.get(_lib().clang_getCursorUnaryOperatorKind(c), "?")


def _evaluate(c) -> int | float | None:
    """Value of a constant expression (macros expanded), else None."""
    lib = _lib()
    res = lib.clang_Cursor_Evaluate(c)
    if not res:
        return None
    try:
        kind = lib.clang_EvalResult_getKind(res)
        if kind == 1:  # CXEval_Int
            if lib.clang_EvalResult_isUnsignedInt(res):
                return int(lib.clang_EvalResult_getAsUnsigned(res))
            return int(lib.clang_EvalResult_getAsLongLong(res))
        if kind == 2:  # CXEval_Float
            return float(lib.clang_EvalResult_getAsDouble(res))
        return None
    finally:
        lib.clang_EvalResult_dispose(res)


def _clang_args(std, defines, include_dirs, extra_flags) -> list[str]:
    args = [f"-std={std}"]
    args += [d if d.startswith("-D") else f"-D{d}" for d in defines]
    args += [i if i.startswith("-I") else f"-I{i}" for i in include_dirs]
    args += list(extra_flags)
    args += ["-isystem", resource_include_dir()]
    return args


def _parse(path: str, std: str, defines, include_dirs, extra_flags) -> ci.TranslationUnit:
    if not os.path.isfile(path):
        raise InputError("no such file", path)
    args = _clang_args(std, defines, include_dirs, extra_flags)
    try:
        tu = ci.Index.create().parse(path, args=args)
    except ci.TranslationUnitLoadError as e:
        raise InputError(f"clang cannot parse the file: {e}", path) from None
    for d in tu.diagnostics:
        if d.severity >= ci.Diagnostic.Error:
            loc = d.location
            where = path
            if loc.file is not None:
                fname = path if _same_file(loc.file.name, path) else loc.file.name
                where = f"{fname}:{loc.line}:{loc.column}"
            raise InputError(d.spelling, where)
    return tu


@lru_cache(maxsize=256)
def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _functions(tu: ci.TranslationUnit, path: str) -> list:
    """Function definitions in the main file, in order."""
    out = []
    for c in tu.cursor.get_children():
        if (c.kind == CK.FUNCTION_DECL and c.is_definition() and c.location.file is not None
                and _same_file(c.location.file.name, path)):
            out.append(c)
    return out


def list_c_functions(path: str, *, defines: list[str] = (), include_dirs: list[str] = (),
                     std: str = "c99", extra_flags: list[str] = ()) -> list[str]:
    """Names of the functions defined (with a body) in the C file, in order."""
    tu = _parse(str(path), std, defines, include_dirs, extra_flags)
    return [c.spelling for c in _functions(tu, str(path))]


def translate_c(path: str, *, function: str | None = None, defines: list[str] = (),
                include_dirs: list[str] = (), std: str = "c99", extra_flags: list[str] = (),
                locations: bool = True, skip_unsupported: bool = False) -> SourceModule:
    """Translate the C file's functions (or only `function`) to an affine MLIR module.

    `defines` are `NAME` / `NAME=VALUE` (a leading `-D` is accepted), `include_dirs` are
    directories (`-I` accepted). With `locations` (default), every op carries the C
    location it came from (`loc("file.c":LINE:COL)`), so later messages point into the C
    file; pass `locations=False` for the module as a standalone .mlir file.
    InputError (exit 2) for clang errors and for C outside static control. With
    `skip_unsupported` (and no `function`), functions outside static control (a PolyBench
    file's `main`, `print_array`) are left out, each named with its reason in the result's
    `notes`; InputError only when none is left."""
    path = str(path)
    tu = _parse(path, std, defines, include_dirs, extra_flags)
    funcs = _functions(tu, path)
    if function is not None:
        funcs = [f for f in funcs if f.spelling == function]
        if not funcs:
            raise InputError(f"no function '{function}' with a body in the file", path)
    elif not funcs:
        raise InputError("no function with a body in the file", path)
    texts, notes, kept = [], [], []
    for f in funcs:
        try:
            texts.append(_FunctionTranslator(path, f).translate())
            kept.append(f)
        except InputError as e:
            if not skip_unsupported or function is not None:
                raise
            notes.append(f"skipped function '{f.spelling}': {e}")
            first_error = e
    if not kept:
        raise first_error
    first = _FunctionTranslator(path, kept[0]).loc(kept[0])
    text = "module {\n" + "\n".join(texts) + "\n} " + first + "\n"
    return SourceModule(path, _reprint(text, path, locations), notes)


def _reprint(text: str, path: str, locations: bool) -> str:
    from mlir import ir

    with ir.Context():
        try:
            module = ir.Module.parse(text)
            module.operation.verify()
        except ir.MLIRError as e:
            details = "; ".join(str(d) for d in e.error_diagnostics) or str(e)
            raise SynthError(f"internal error: the MLIR generated from C does not verify: {details}",
                             path) from None
        return module.operation.get_asm(enable_debug_info=locations)


# ------------------------------------------------------------------------------------------
# types and affine expressions

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


# ------------------------------------------------------------------------------------------
# one function

_MATH = {  # C name -> (op, number of arguments)
    "sqrt": ("math.sqrt", 1), "exp": ("math.exp", 1), "log": ("math.log", 1),
    "pow": ("math.powf", 2), "fabs": ("math.absf", 1), "fmax": ("arith.maximumf", 2),
    "fmin": ("arith.minimumf", 2), "tanh": ("math.tanh", 1), "sin": ("math.sin", 1),
    "cos": ("math.cos", 1), "floor": ("math.floor", 1), "ceil": ("math.ceil", 1),
}
_MATH.update({name + "f": spec for name, spec in list(_MATH.items())})

_CMPI = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_CMPF = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_FLOAT_ARITH = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf", "/": "arith.divf"}
_INT_ARITH = {"+": "arith.addi", "-": "arith.subi", "*": "arith.muli", "/": "arith.divsi",
              "%": "arith.remsi", "&": "arith.andi", "|": "arith.ori", "^": "arith.xori",
              "<<": "arith.shli", ">>": "arith.shrsi"}
_REFUSED_STMTS = {
    CK.WHILE_STMT: "'while' loop is not static control (only for loops with affine bounds)",
    CK.DO_STMT: "'do' loop is not static control (only for loops with affine bounds)",
    CK.GOTO_STMT: "'goto' is not static control",
    CK.INDIRECT_GOTO_STMT: "'goto' is not static control",
    CK.LABEL_STMT: "labels ('goto' targets) are not static control",
    CK.BREAK_STMT: "'break' is not static control (loops must run their full affine range)",
    CK.CONTINUE_STMT: "'continue' is not static control (use an 'if' around the rest of the body)",
    CK.SWITCH_STMT: "'switch' is not static control",
    CK.CASE_STMT: "'switch' is not static control",
    CK.DEFAULT_STMT: "'switch' is not static control",
    CK.ASM_STMT: "inline assembly is not supported",
}


@dataclass
class _Binding:
    kind: str  # "arg" (SSA value), "mem" (memref<T> local), "array", "loopvar" (an Aff or None: unbound)
    ssa: str | None = None
    type: str = ""  # element / scalar MLIR type
    shape: tuple = ()
    aff: _Aff | None = None
    name: str = ""
    param_index: int | None = None


class _FunctionTranslator:
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

    # --- affine expressions -------------------------------------------------------------

    def const_int(self, c) -> int | None:
        if not self._foldable(c):
            return None
        v = _evaluate(c)
        return v if isinstance(v, int) else None

    def _foldable(self, c) -> bool:
        """No references to variables and no calls: clang may evaluate it."""
        if c.kind == CK.DECL_REF_EXPR:
            d = c.referenced
            return d is not None and d.kind == CK.ENUM_CONSTANT_DECL
        if c.kind in (CK.CALL_EXPR, CK.ARRAY_SUBSCRIPT_EXPR, CK.MEMBER_REF_EXPR,
                      CK.COMPOUND_ASSIGNMENT_OPERATOR, CK.STRING_LITERAL):
            return False
        if c.kind == CK.BINARY_OPERATOR and _binop(c) in ("=", ","):
            return False
        if c.kind == CK.UNARY_OPERATOR and _unop(c) in ("post++", "post--", "pre++", "pre--", "*", "&"):
            return False
        return all(self._foldable(k) for k in c.get_children() if k.kind != CK.TYPE_REF)

    def affine(self, c) -> _Aff:
        """The affine (linear) expression of an integer C expression, or _NotAffine."""
        v = self.const_int(c)
        if v is not None:
            return _Aff({}, v)
        s = _strip(c)
        for node in (c, s):
            if _SCALARS.get(node.type.get_canonical().kind) not in ("i32", "i64"):
                raise _NotAffine(node, f"'{_text(node)}' is not an integer expression")
        if s.kind == CK.CSTYLE_CAST_EXPR:
            kids = _expr_children(s)
            if _SCALARS.get(s.type.get_canonical().kind) in ("i32", "i64") and kids:
                inner = kids[-1]
                if _SCALARS.get(inner.type.get_canonical().kind) in ("i32", "i64"):
                    return self.affine(inner)
            raise _NotAffine(s, f"cast '{_text(s)}' is not an integer expression")
        k = s.kind
        if k == CK.DECL_REF_EXPR:
            b = self.binding(s)
            if b is None:  # enum constant that did not fold
                raise _NotAffine(s, f"'{s.spelling}' is not a constant")
            if b.kind == "loopvar":
                if b.aff is None:
                    raise _Refuse(s, f"loop index '{b.name}' is read outside its loop")
                return b.aff
            if b.kind == "arg" and b.type in ("i32", "i64"):
                return _Aff.var("s", self.symbol(b, s))
            if b.kind == "mem":
                raise _NotAffine(s, f"'{b.name}' is a variable computed at run time (only loop "
                                    f"indices, integer parameters and constants are affine)")
            if b.kind == "arg":
                raise _NotAffine(s, f"'{b.name}' is a {b.type} parameter, not an integer")
            raise _NotAffine(s, f"'{b.name}' is an array")
        if k == CK.BINARY_OPERATOR:
            op = _binop(s)
            a, b = _expr_children(s)
            if op in ("+", "-"):
                x, y = self.affine(a), self.affine(b)
                return x + y if op == "+" else x - y
            if op == "*":
                x, y = self.affine(a), self.affine(b)
                if x.is_const:
                    return y.scale(x.const)
                if y.is_const:
                    return x.scale(y.const)
                raise _NotAffine(s, f"'{_text(s)}' multiplies two variables")
            raise _NotAffine(s, f"operator '{op}' in '{_text(s)}' is not affine (only + - and "
                                f"* by a constant)")
        if k == CK.UNARY_OPERATOR:
            op = _unop(s)
            if op in ("+", "-"):
                x = self.affine(_only_child(s))
                return x if op == "+" else x.scale(-1)
            raise _NotAffine(s, f"operator '{op}' in '{_text(s)}' is not affine")
        if k == CK.ARRAY_SUBSCRIPT_EXPR:
            raise _NotAffine(s, f"it reads '{_text(s)}' (a data-dependent value)")
        if k == CK.CALL_EXPR:
            raise _NotAffine(s, f"it calls '{s.spelling}'")
        raise _NotAffine(s, f"'{_text(s)}' is not affine")

    def value_of_aff(self, e: _Aff, c) -> str:
        """An index SSA value for an affine expression."""
        if e.is_const:
            return self.const(e.const, "index", c)
        if len(e.terms) == 1 and e.const == 0:
            (key, coeff), = e.terms.items()
            if coeff == 1:
                return key[1]
        ops = _Operands()
        ops.add(e)
        m = f"affine_map<{ops.header()} -> ({_render(e, ops.name)})>"
        return self.op(f"affine.apply {m}{ops.uses()}", c)

    def bound(self, e: _Aff, floordiv: int = 1, plus: int = 0) -> str:
        """`affine.for` bound: a constant, or an affine_map with its operands."""
        if e.is_const:
            return str((e.const // floordiv) + plus)
        ops = _Operands()
        ops.add(e)
        body = _render(e, ops.name)
        if floordiv != 1:
            body = f"({body}) floordiv {floordiv}"
            if plus:
                body += f" + {plus}" if plus > 0 else f" - {-plus}"
        elif plus:
            return self.bound(e.plus(plus))
        return f"affine_map<{ops.header()} -> ({body})>{ops.uses()}"

    # --- the function -------------------------------------------------------------------

    def translate(self) -> str:
        f = self.func
        try:
            return self._translate()
        except _Refuse as e:
            raise InputError(e.message, self.where(e.cursor)) from None
        except _NotAffine as e:
            raise InputError(f"'{_text(e.cursor)}' is not affine: {e.reason}", self.where(e.cursor)) from None
        except RecursionError:
            raise InputError(f"function '{f.spelling}' is too deeply nested", self.where(f)) from None

    def _translate(self) -> str:
        f = self.func
        body = next((k for k in f.get_children() if k.kind == CK.COMPOUND_STMT), None)
        self._prescan(body)
        args = []
        for i, p in enumerate(k for k in f.get_children() if k.kind == CK.PARM_DECL):
            ssa = f"%arg{i}"
            name = p.spelling or f"#{i + 1}"
            canon = p.type.get_canonical()
            if canon.kind in (TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY):
                shape, elem = self.array_shape(p.type, p, name)
                args.append(f"{ssa}: {self.memref(shape, elem)} {self.loc(p)}")
                self.env[p.hash] = _Binding("array", ssa, elem, shape, name=name, param_index=i)
                continue
            if canon.kind == TK.POINTER:
                raise _Refuse(p, f"pointer parameter '{name}' ('{p.type.spelling}') is not static "
                                 f"control: declare it as an array with constant extents, e.g. "
                                 f"'double {name}[N]'")
            t = self.scalar_type(p.type, p, f"parameter '{name}'")
            args.append(f"{ssa}: {t} {self.loc(p)}")
            if p.hash in self.loop_vars:
                raise _Refuse(p, f"parameter '{name}' is used as a loop index")
            if p.hash in self.assigned:  # a local copy that the function may change
                mem = self.fresh("alloca")
                self.prologue.append(f"    {mem} = memref.alloca() : memref<{t}> {self.loc(p)}")
                self.prologue.append(f"    affine.store {ssa}, {mem}[] : memref<{t}> {self.loc(p)}")
                self.env[p.hash] = _Binding("mem", mem, t, name=name)
            else:
                self.env[p.hash] = _Binding("arg", ssa, t, name=name, param_index=i)
        rkind = f.result_type.get_canonical().kind
        result = (None if rkind == TK.VOID
                  else self.scalar_type(f.result_type, f, f"the result of '{f.spelling}'"))
        stmts = list(body.get_children()) if body is not None else []
        ret = None
        for j, s in enumerate(stmts):
            if s.kind == CK.RETURN_STMT and j == len(stmts) - 1:
                ret = s
                break
            self.stmt(s)
        ret_line = "return"
        loc_c = ret if ret is not None else f
        if ret is not None:
            kids = _expr_children(ret)
            if kids and result is None:
                raise _Refuse(ret, "'return' with a value in a void function")
            if kids:
                v, t = self.value(kids[0])
                v = self.convert(v, t, result, ret)
                ret_line = f"return {v} : {result}"
        elif result is not None:
            raise _Refuse(f, f"function '{f.spelling}' returns {result} but does not end with "
                             f"'return'")
        self.body.append(f"    {ret_line} {self.loc(loc_c)}")
        # locals never read or written (e.g. `int i, j;` where j is unused) need no buffer
        used = "\n".join(self.body + self.prologue)
        prologue = [line for line in self.prologue if not (
            "memref.alloca()" in line
            and len(re.findall(re.escape(line.split("=")[0].strip()) + r"(?!\w)", used)) == 1)]
        sig = ", ".join(args)
        res = f" -> {result}" if result else ""
        lines = [f"  func.func @{f.spelling}({sig}){res} {{", *prologue, *self.body,
                 f"  }} {self.loc(f)}"]
        return "\n".join(lines)

    def _prescan(self, c) -> None:
        """Loop variables (declared anywhere) and variables assigned somewhere."""
        if c is None:
            return
        for k in c.walk_preorder():
            if k.kind == CK.FOR_STMT:
                var = self._loop_var(k, quiet=True)
                if var is not None:
                    self.loop_vars.add(var.hash)
            lhs = None
            if k.kind == CK.BINARY_OPERATOR and _binop(k) == "=" or k.kind == CK.COMPOUND_ASSIGNMENT_OPERATOR:
                lhs = _expr_children(k)[0]
            elif k.kind == CK.UNARY_OPERATOR and _unop(k) in ("post++", "post--", "pre++", "pre--"):
                lhs = _only_child(k)
            if lhs is not None:
                lhs = _strip(lhs)
                if lhs.kind == CK.DECL_REF_EXPR and lhs.referenced is not None:
                    self.assigned.add(lhs.referenced.hash)

    # --- statements ---------------------------------------------------------------------

    def stmt(self, s) -> None:
        k = s.kind
        if k == CK.COMPOUND_STMT:
            for ch in s.get_children():
                self.stmt(ch)
        elif k == CK.NULL_STMT:
            pass
        elif k == CK.DECL_STMT:
            for d in s.get_children():
                self.declare(d)
        elif k == CK.FOR_STMT:
            self.for_stmt(s)
        elif k == CK.IF_STMT:
            self.if_stmt(s)
        elif k == CK.RETURN_STMT:
            raise _Refuse(s, "'return' before the end of the function is not static control")
        elif k in _REFUSED_STMTS:
            raise _Refuse(s, _REFUSED_STMTS[k])
        elif k.is_expression():
            self.expr_stmt(s)
        else:
            raise _Refuse(s, f"statement '{k.name.lower()}' is not supported")

    def declare(self, d) -> None:
        if d.kind != CK.VAR_DECL:
            if d.kind in (CK.STRUCT_DECL, CK.UNION_DECL, CK.TYPEDEF_DECL, CK.ENUM_DECL):
                return
            raise _Refuse(d, f"declaration '{d.spelling}' is not supported")
        name = d.spelling
        if d.storage_class in (ci.StorageClass.STATIC, ci.StorageClass.EXTERN):
            raise _Refuse(d, f"'{d.storage_class.name.lower()}' local '{name}' is not supported")
        canon = d.type.get_canonical()
        init = [k for k in d.get_children() if k.kind != CK.TYPE_REF and k.kind.is_expression()]
        if canon.kind in (TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY):
            if canon.kind != TK.CONSTANTARRAY:
                raise _Refuse(d, f"local array '{name}' has a run-time extent: only constant "
                                 f"extents are static")
            shape, elem = self.array_shape(d.type, d, name)
            # the children are the extents, then an initialiser list if there is one
            if any(k.kind in (CK.INIT_LIST_EXPR, CK.STRING_LITERAL) for k in init):
                raise _Refuse(d, f"initialiser of local array '{name}' is not supported (assign the "
                                 f"elements in a loop)")
            mem = self.fresh("alloca")
            self.prologue.append(f"    {mem} = memref.alloca() : {self.memref(shape, elem)} {self.loc(d)}")
            self.env[d.hash] = _Binding("array", mem, elem, shape, name=name)
            return
        t = self.scalar_type(d.type, d, f"local '{name}'")
        if d.hash in self.loop_vars:
            if t not in ("i32", "i64"):
                raise _Refuse(d, f"loop index '{name}' must be an int or long")
            self.env[d.hash] = _Binding("loopvar", None, t, name=name)
            return  # its initial value is never read (reads outside its loops are refused)
        mem = self.fresh("alloca")
        self.prologue.append(f"    {mem} = memref.alloca() : memref<{t}> {self.loc(d)}")
        self.env[d.hash] = _Binding("mem", mem, t, name=name)
        if init:
            v, vt = self.value(init[-1])
            v = self.convert(v, vt, t, d)
            self.emit(f"affine.store {v}, {mem}[] : memref<{t}>", d)

    def _loop_var(self, s, quiet: bool = False):
        """The declaration of a for loop's index, from its initialisation."""
        kids = list(s.get_children())
        if len(kids) != 4:
            if quiet:
                return None
            raise _Refuse(s, "'for' loop without initialisation, condition and increment is not "
                             "static control")
        init = kids[0]
        if init.kind == CK.DECL_STMT:
            decls = [d for d in init.get_children() if d.kind == CK.VAR_DECL]
            if len(decls) == 1:
                return decls[0]
        elif init.kind == CK.BINARY_OPERATOR and _binop(init) == "=":
            lhs = _strip(_expr_children(init)[0])
            if lhs.kind == CK.DECL_REF_EXPR and lhs.referenced is not None:
                return lhs.referenced
        if quiet:
            return None
        raise _Refuse(init, "'for' loop initialisation must assign one integer index "
                            "('i = lb' or 'int i = lb')")

    def for_stmt(self, s) -> None:
        var = self._loop_var(s)
        init, cond, inc, body = s.get_children()
        b = self.env.get(var.hash)
        if b is None and init.kind == CK.DECL_STMT:
            self.declare(var)
            b = self.env[var.hash]
        if b is None or b.kind != "loopvar":
            raise _Refuse(init, f"'{var.spelling}' cannot be a loop index (a parameter or global)")
        if b.aff is not None:
            raise _Refuse(init, f"loop index '{b.name}' of an enclosing loop is reassigned")
        if init.kind == CK.DECL_STMT:
            vals = [k for k in var.get_children() if k.kind != CK.TYPE_REF and k.kind.is_expression()]
            if not vals:
                raise _Refuse(init, f"loop index '{b.name}' has no initial value")
            lb_expr = vals[-1]
        else:
            lb_expr = _expr_children(init)[1]
        lb = self._affine_or_refuse(lb_expr, "loop lower bound")
        step = self._step(inc, var, b.name)
        ub_expr, cmp = self._condition(cond, var, b.name)
        bound = self._affine_or_refuse(ub_expr, "loop bound")
        iv = self.fresh("i")
        if step > 0:
            if cmp not in ("<", "<="):
                raise _Refuse(cond, f"condition '{_text(cond)}' does not bound the increasing index "
                                    f"'{b.name}' from above")
            ub = bound.plus(1) if cmp == "<=" else bound
            head = f"affine.for {iv} {self.loc(var)} = {self.bound(lb)} to {self.bound(ub)}"
            if step != 1:
                head += f" step {step}"
            b.aff = _Aff.var("d", iv)
        else:
            if cmp not in (">", ">="):
                raise _Refuse(cond, f"condition '{_text(cond)}' does not bound the decreasing index "
                                    f"'{b.name}' from below")
            lo = bound.plus(1) if cmp == ">" else bound
            k = -step  # i = lb - k * t for t in [0, (lb - lo) floordiv k]
            head = f"affine.for {iv} {self.loc(var)} = 0 to {self.bound(lb - lo, floordiv=k, plus=1)}"
            b.aff = lb - _Aff.var("d", iv).scale(k)
        self.body.append("  " * self.indent + head + " {")
        self.indent += 1
        try:
            self.stmt(body)
        finally:
            self.indent -= 1
            b.aff = None
        self.body.append("  " * self.indent + "} " + self.loc(s))

    def _is_var(self, c, var) -> bool:
        c = _strip(c)
        return c.kind == CK.DECL_REF_EXPR and c.referenced is not None and c.referenced.hash == var.hash

    def _step(self, inc, var, name: str) -> int:
        k = inc.kind
        if k == CK.UNARY_OPERATOR and self._is_var(_only_child(inc), var):
            op = _unop(inc)
            if op in ("post++", "pre++"):
                return 1
            if op in ("post--", "pre--"):
                return -1
        elif k == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            lhs, rhs = _expr_children(inc)
            op = _binop(inc)
            c = self.const_int(rhs)
            if self._is_var(lhs, var) and op in ("+=", "-=") and c:
                return c if op == "+=" else -c
        elif k == CK.BINARY_OPERATOR and _binop(inc) == "=":
            lhs, rhs = _expr_children(inc)
            r = _strip(rhs)
            if self._is_var(lhs, var) and r.kind == CK.BINARY_OPERATOR and _binop(r) in ("+", "-"):
                a, bb = _expr_children(r)
                op = _binop(r)
                if self._is_var(a, var) and self.const_int(bb):
                    return self.const_int(bb) * (1 if op == "+" else -1)
                if op == "+" and self._is_var(bb, var) and self.const_int(a):
                    return self.const_int(a)
        raise _Refuse(inc, f"loop increment '{_text(inc)}' must step '{name}' by a nonzero constant "
                           f"('{name}++', '{name} += c', '{name}--')")

    def _condition(self, cond, var, name: str):
        c = _strip(cond)
        if c.kind == CK.BINARY_OPERATOR and _binop(c) in ("<", "<=", ">", ">="):
            a, b = _expr_children(c)
            op = _binop(c)
            if self._is_var(a, var):
                return b, op
            if self._is_var(b, var):
                return a, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
        raise _Refuse(cond, f"loop condition '{_text(cond)}' must compare the index '{name}' with an "
                            f"affine bound ('{name} < ub', '{name} <= ub')")

    def _affine_or_refuse(self, c, what: str) -> _Aff:
        try:
            return self.affine(c)
        except _NotAffine as e:
            raise _Refuse(e.cursor, f"{what} '{_text(c)}' is not affine: {e.reason} (data-dependent "
                                    f"bounds are not static control)") from None

    _MAX_DISJUNCTS = 8

    def if_stmt(self, s) -> None:
        kids = [k for k in s.get_children() if not k.kind.is_declaration()]
        cond, then = kids[0], kids[1]
        other = kids[2] if len(kids) > 2 else None
        try:
            dnf = self.condition(cond)
            neg = self._negate(dnf, cond)
        except _NotAffine as e:
            raise _Refuse(cond, f"'if' condition '{_text(cond)}' is not affine: {e.reason} "
                                f"(data-dependent conditions are not static control; write a "
                                f"data-dependent choice as 'c ? a : b')") from None
        if len(neg) < len(dnf):  # `i != j`: one equality with the branches swapped
            dnf, then, other = neg, other, then
        self._if_chain(s, dnf, then, other)

    def _if_chain(self, s, dnf: list, then, other) -> None:
        """`if (c1 || c2 ...) then else other` as nested affine.if: each ci a conjunction."""
        if not dnf:  # false
            if other is not None:
                self.stmt(other)
            return
        conj, rest = dnf[0], dnf[1:]
        if not conj:  # true
            if then is not None:
                self.stmt(then)
            return
        ops = _Operands()
        for e, _ in conj:
            ops.add(e)
        cs = ", ".join(f"{_render(e, ops.name)} {'==' if eq else '>='} 0" for e, eq in conj)
        if not ops.dims and not ops.syms:  # constant constraints only: decide here
            holds = all((e.const == 0) if eq else (e.const >= 0) for e, eq in conj)
            self._if_chain(s, [[]] if holds else rest, then, other)
            return
        head = f"affine.if affine_set<{ops.header()} : ({cs})>{ops.uses()}"
        self.body.append("  " * self.indent + head + " {")
        self.indent += 1
        if then is not None:
            self.stmt(then)
        self.indent -= 1
        if rest or other is not None:
            self.body.append("  " * self.indent + "} else {")
            self.indent += 1
            self._if_chain(s, rest, then, other)
            self.indent -= 1
        self.body.append("  " * self.indent + "} " + self.loc(s))

    def condition(self, c) -> list:
        """The condition as a disjunction of conjunctions of affine constraints
        (expr >= 0 / expr == 0): a list of lists of (_Aff, is_equality)."""
        v = self.const_int(c)
        if v is None and self._foldable(c):
            f = _evaluate(c)
            v = None if f is None else int(bool(f))
        if v is not None:
            return [[]] if v else []
        s = _strip(c)
        if s.kind == CK.UNARY_OPERATOR and _unop(s) == "!":
            return self._negate(self.condition(_only_child(s)), s)
        if s.kind == CK.BINARY_OPERATOR:
            op = _binop(s)
            a, b = _expr_children(s)
            if op == "&&":
                da, db = self.condition(a), self.condition(b)
                return self._limit([x + y for x in da for y in db], s)
            if op == "||":
                return self._limit(self.condition(a) + self.condition(b), s)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                x, y = self.affine(a), self.affine(b)
                if op == "<":
                    return [[((y - x).plus(-1), False)]]
                if op == "<=":
                    return [[(y - x, False)]]
                if op == ">":
                    return [[((x - y).plus(-1), False)]]
                if op == ">=":
                    return [[(x - y, False)]]
                if op == "==":
                    return [[(x - y, True)]]
                return [[((x - y).plus(-1), False)], [((y - x).plus(-1), False)]]
        raise _NotAffine(s, f"'{_text(s)}' is not a comparison of affine expressions")

    def _negate(self, dnf: list, c) -> list:
        out = [[]]  # true
        for conj in dnf:
            alternatives = []  # not (c1 and c2 ...) = not c1 or not c2 ...
            for e, eq in conj:
                if eq:
                    alternatives += [[(e.plus(-1), False)], [(e.scale(-1).plus(-1), False)]]
                else:
                    alternatives.append([(e.scale(-1).plus(-1), False)])
            out = self._limit([x + y for x in out for y in alternatives], c)
        return out

    def _limit(self, dnf: list, c) -> list:
        if len(dnf) > self._MAX_DISJUNCTS:
            raise _NotAffine(c, f"the condition needs more than {self._MAX_DISJUNCTS} affine sets")
        return dnf

    def expr_stmt(self, s) -> None:
        e = _strip(s) if s.kind == CK.PAREN_EXPR else s
        if e.kind == CK.CSTYLE_CAST_EXPR and e.type.get_canonical().kind == TK.VOID:
            kids = _expr_children(e)
            if kids:
                self.expr_stmt(kids[-1])
            return
        if e.kind == CK.BINARY_OPERATOR and _binop(e) == ",":
            a, b = _expr_children(e)
            self.expr_stmt(a)
            self.expr_stmt(b)
            return
        self.value(e, discard=True)

    # --- accesses -----------------------------------------------------------------------

    def access(self, c) -> tuple[_Binding, list[_Aff]]:
        """Array and affine subscripts of an element `A[i][j]`."""
        idx = []
        e = c
        while e.kind == CK.ARRAY_SUBSCRIPT_EXPR:
            base, index = _expr_children(e)
            idx.insert(0, index)
            e = _strip(base)
        if e.kind != CK.DECL_REF_EXPR:
            if e.kind == CK.MEMBER_REF_EXPR:
                raise _Refuse(e, f"struct member access '{_text(e)}' is not supported")
            raise _Refuse(e, f"subscript of '{_text(e)}': only arrays declared with constant "
                             f"extents can be indexed (pointer arithmetic is not static control)")
        b = self.binding(e)
        if b is None or b.kind != "array":
            raise _Refuse(e, f"'{e.spelling}' is not an array with constant extents (pointer "
                             f"indexing is not static control)")
        if len(idx) != len(b.shape):
            raise _Refuse(c, f"'{_text(c)}' has {len(idx)} subscript(s) for the {len(b.shape)}-d "
                             f"array '{b.name}'")
        subs = []
        for ix in idx:
            try:
                subs.append(self.affine(ix))
            except _NotAffine as err:
                dep = "data-dependent" if self._reads_memory(ix) else "non-affine"
                raise _Refuse(ix, f"{dep} array subscript '{_text(ix)}' in '{_text(c)}': {err.reason} "
                                  f"(subscripts must be affine in loop indices and integer "
                                  f"parameters)") from None
        return b, subs

    def _reads_memory(self, c) -> bool:
        for k in c.walk_preorder():
            if k.kind == CK.ARRAY_SUBSCRIPT_EXPR:
                return True
            if k.kind == CK.DECL_REF_EXPR:
                b = self.env.get(k.referenced.hash) if k.referenced is not None else None
                if b is not None and b.kind == "mem":
                    return True
        return False

    def load(self, c) -> tuple[str, str]:
        b, subs = self.access(c)
        mt = self.memref(b.shape, b.type)
        v = self.op(f"affine.load {b.ssa}[{', '.join(_inline(e) for e in subs)}] : {mt}", c)
        return v, b.type

    def lvalue(self, c):
        """(load thunk, store function, element type) of an assignable expression."""
        s = _strip(c)
        if s.kind == CK.ARRAY_SUBSCRIPT_EXPR:
            b, subs = self.access(s)
            mt = self.memref(b.shape, b.type)
            where = f"{b.ssa}[{', '.join(_inline(e) for e in subs)}] : {mt}"
        elif s.kind == CK.DECL_REF_EXPR:
            b = self.binding(s)
            if b is None:
                raise _Refuse(s, f"cannot assign to '{s.spelling}'")
            if b.kind == "loopvar":
                raise _Refuse(s, f"loop index '{b.name}' is modified outside its 'for' header "
                                 f"(not static control)")
            if b.kind != "mem":
                raise _Refuse(s, f"cannot assign to '{b.name}'")
            where = f"{b.ssa}[] : memref<{b.type}>"
        elif s.kind == CK.UNARY_OPERATOR and _unop(s) == "*":
            raise _Refuse(s, f"pointer dereference '{_text(s)}' (pointer arithmetic) is not static "
                             f"control")
        elif s.kind == CK.MEMBER_REF_EXPR:
            raise _Refuse(s, f"struct member access '{_text(s)}' is not supported")
        else:
            raise _Refuse(s, f"cannot assign to '{_text(s)}'")

        def load():
            return self.op(f"affine.load {where}", c)

        def store(v):
            self.emit(f"affine.store {v}, {where}", c)

        return load, store, b.type

    def assign(self, e, op: str) -> tuple[str, str]:
        lhs, rhs = _expr_children(e)
        load, store, t = self.lvalue(lhs)
        if op == "=":
            v, vt = self.value(rhs)
            v = self.convert(v, vt, t, e)
        else:
            old = load()
            v, vt = self.value(rhs)
            binop = op[:-1]
            comp = self._common(t, vt) if binop not in ("<<", ">>") else t
            v = self.arith(binop, self.convert(old, t, comp, e), self.convert(v, vt, comp, e), comp, e)
            v = self.convert(v, comp, t, e)
        store(v)
        return v, t

    @staticmethod
    def _common(a: str, b: str) -> str:
        rank = {"i1": 0, "i32": 1, "i64": 2, "index": 2, "f32": 3, "f64": 4}
        return a if rank[a] >= rank[b] else b

    def arith(self, op: str, a: str, b: str, t: str, c) -> str:
        if t in _FLOATS:
            if op not in _FLOAT_ARITH:
                raise _Refuse(c, f"operator '{op}' on floating-point values is not supported")
            return self.op(f"{_FLOAT_ARITH[op]} {a}, {b} : {t}", c)
        if op not in _INT_ARITH:
            raise _Refuse(c, f"operator '{op}' is not supported")
        return self.op(f"{_INT_ARITH[op]} {a}, {b} : {t}", c)

    # --- values -------------------------------------------------------------------------

    def value(self, c, discard: bool = False) -> tuple[str | None, str]:
        """SSA value of an expression, in the MLIR type of its C type."""
        k = c.kind
        if k in (CK.INTEGER_LITERAL, CK.FLOATING_LITERAL) or (
                k not in (CK.DECL_REF_EXPR,) and self._foldable(c) and k != CK.CONDITIONAL_OPERATOR):
            t = self.ctype(c)
            v = _evaluate(c)
            if v is not None:
                return self.const(v, t, c), t
            if k in (CK.INTEGER_LITERAL, CK.FLOATING_LITERAL):
                raise _Refuse(c, "cannot evaluate literal")
        if k == CK.PAREN_EXPR:
            return self.value(_only_child(c), discard)
        if k in (CK.UNEXPOSED_EXPR, CK.CSTYLE_CAST_EXPR):
            kids = _expr_children(c)
            if not kids:
                raise _Refuse(c, f"unsupported expression '{_text(c)}'")
            if k == CK.CSTYLE_CAST_EXPR and c.type.get_canonical().kind == TK.VOID:
                return self.value(kids[-1], True)
            inner = kids[-1]
            if inner.type.get_canonical().kind == TK.FUNCTIONPROTO:
                raise _Refuse(c, f"function '{_text(inner)}' used as a value")
            t = self.ctype(c)
            v, vt = self.value(inner)
            return self.convert(v, vt, t, c), t
        if k == CK.DECL_REF_EXPR:
            b = self.binding(c)
            t = self.ctype(c)
            if b is None:
                v = _evaluate(c)
                if v is None:
                    raise _Refuse(c, f"unsupported reference to '{c.spelling}'")
                return self.const(v, t, c), t
            if b.kind == "arg":
                return b.ssa, b.type
            if b.kind == "mem":
                return self.op(f"affine.load {b.ssa}[] : memref<{b.type}>", c), b.type
            if b.kind == "loopvar":
                if b.aff is None:
                    raise _Refuse(c, f"loop index '{b.name}' is read outside its loop")
                v = self.value_of_aff(b.aff, c)
                return self.convert(v, "index", b.type, c), b.type
            raise _Refuse(c, f"array '{b.name}' used as a value (only its elements)")
        if k == CK.ARRAY_SUBSCRIPT_EXPR:
            return self.load(c)
        if k == CK.BINARY_OPERATOR:
            op = _binop(c)
            if op == "=":
                return self.assign(c, op)
            if op == ",":
                a, b = _expr_children(c)
                self.value(a, True)
                return self.value(b, discard)
            if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                v = self.cond(c)
                t = self.ctype(c)
                return self.convert(v, "i1", t, c), t
            if c.type.get_canonical().kind == TK.POINTER:
                raise _Refuse(c, f"pointer arithmetic '{_text(c)}' is not static control")
            t = self.ctype(c)
            a, b = _expr_children(c)
            va, ta = self.value(a)
            vb, tb = self.value(b)
            # C converts both operands to the result type (a shift: the count to the left's)
            return self.arith(op, self.convert(va, ta, t, c), self.convert(vb, tb, t, c), t, c), t
        if k == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            return self.assign(c, _binop(c))
        if k == CK.UNARY_OPERATOR:
            op = _unop(c)
            inner = _only_child(c)
            if op in ("post++", "post--", "pre++", "pre--"):
                load, store, t = self.lvalue(inner)
                old = load()
                one = self.const(1, t, c)
                new = self.arith("+" if op.endswith("++") else "-", old, one, t, c)
                store(new)
                return (old if op.startswith("post") else new), t
            if op == "*":
                raise _Refuse(c, f"pointer dereference '{_text(c)}' (pointer arithmetic) is not "
                                 f"static control")
            if op == "&":
                raise _Refuse(c, f"address-of '{_text(c)}' is not static control")
            if op == "!":
                v = self.cond(c)
                t = self.ctype(c)
                return self.convert(v, "i1", t, c), t
            t = self.ctype(c)
            v, vt = self.value(inner)
            v = self.convert(v, vt, t, c)
            if op == "+":
                return v, t
            if op == "-":
                if t in _FLOATS:
                    return self.op(f"arith.negf {v} : {t}", c), t
                return self.op(f"arith.subi {self.const(0, t, c)}, {v} : {t}", c), t
            if op == "~":
                return self.op(f"arith.xori {v}, {self.const(-1, t, c)} : {t}", c), t
            raise _Refuse(c, f"operator '{op}' is not supported")
        if k == CK.CONDITIONAL_OPERATOR:
            cond, a, b = _expr_children(c)
            t = self.ctype(c)
            if self._reads_memory(a) or self._reads_memory(b):
                # an affine condition may guard an access (`i > 0 ? A[i - 1] : 0.0`): only
                # the chosen operand is evaluated, in an affine.if with results
                try:
                    dnf = self.condition(cond)
                    neg = self._negate(dnf, cond)
                except _NotAffine:
                    dnf = None
                if dnf is not None:
                    if len(neg) < len(dnf):
                        dnf, a, b = neg, b, a
                    return self._if_value(c, dnf, a, b, t), t
            p = self.cond(cond)
            va, ta = self.value(a)
            vb, tb = self.value(b)
            va, vb = self.convert(va, ta, t, c), self.convert(vb, tb, t, c)
            return self.op(f"arith.select {p}, {va}, {vb} : {t}", c), t
        if k == CK.CALL_EXPR:
            return self.call(c)
        if k == CK.MEMBER_REF_EXPR:
            raise _Refuse(c, f"struct member access '{_text(c)}' is not supported")
        if k == CK.STRING_LITERAL:
            raise _Refuse(c, "string literals are not supported")
        raise _Refuse(c, f"expression '{_text(c)}' ({k.name.lower()}) is not supported")

    def _if_value(self, c, dnf: list, a, b, t: str) -> str:
        """`(c1 || c2 ...) ? a : b` as nested affine.if ops with results."""
        if not dnf:
            v, vt = self.value(b)
            return self.convert(v, vt, t, b)
        conj, rest = dnf[0], dnf[1:]
        if conj and not any(e.terms for e, _ in conj):  # constant constraints only
            holds = all((e.const == 0) if eq else (e.const >= 0) for e, eq in conj)
            return self._if_value(c, [[]] if holds else rest, a, b, t)
        if not conj:
            v, vt = self.value(a)
            return self.convert(v, vt, t, a)
        ops = _Operands()
        for e, _ in conj:
            ops.add(e)
        cs = ", ".join(f"{_render(e, ops.name)} {'==' if eq else '>='} 0" for e, eq in conj)
        r = self.fresh()
        self.body.append("  " * self.indent + f"{r} = affine.if affine_set<{ops.header()} : ({cs})>"
                         f"{ops.uses()} -> {t} {{")
        self.indent += 1
        v, vt = self.value(a)
        self.emit(f"affine.yield {self.convert(v, vt, t, a)} : {t}", a)
        self.indent -= 1
        self.body.append("  " * self.indent + "} else {")
        self.indent += 1
        v = self._if_value(c, rest, a, b, t)
        self.emit(f"affine.yield {v} : {t}", b)
        self.indent -= 1
        self.body.append("  " * self.indent + "} " + self.loc(c))
        return r

    def cond(self, c) -> str:
        """An i1 value of a condition."""
        s = c
        while s.kind == CK.PAREN_EXPR:
            s = _only_child(s)
        if s.kind == CK.BINARY_OPERATOR:
            op = _binop(s)
            a, b = _expr_children(s)
            if op in ("&&", "||"):
                x, y = self.cond(a), self.cond(b)
                return self.op(f"arith.{'andi' if op == '&&' else 'ori'} {x}, {y} : i1", s)
            if op in _CMPI:
                va, ta = self.value(a)
                vb, tb = self.value(b)
                t = self._common(ta, tb)
                va, vb = self.convert(va, ta, t, s), self.convert(vb, tb, t, s)
                if t in _FLOATS:
                    return self.op(f"arith.cmpf {_CMPF[op]}, {va}, {vb} : {t}", s)
                return self.op(f"arith.cmpi {_CMPI[op]}, {va}, {vb} : {t}", s)
        if s.kind == CK.UNARY_OPERATOR and _unop(s) == "!":
            v = self.cond(_only_child(s))
            return self.op(f"arith.xori {v}, {self.const(1, 'i1', s)} : i1", s)
        v, t = self.value(c)
        return self.convert(v, t, "i1", c)

    def call(self, c) -> tuple[str, str]:
        name = c.spelling
        callee = c.referenced
        if name not in _MATH or callee is None or callee.is_definition():
            raise _Refuse(c, f"call to unknown function '{name}' is not static control (only "
                             f"{', '.join(sorted(n for n in _MATH if not n.endswith('f') or n == 'fabs'))} "
                             f"and their 'f' variants are translated)")
        opname, nargs = _MATH[name]
        args = list(c.get_arguments())
        if len(args) != nargs:
            raise _Refuse(c, f"'{name}' takes {nargs} argument(s)")
        t = self.ctype(c)
        vals = []
        for a in args:
            v, vt = self.value(a)
            vals.append(self.convert(v, vt, t, a))
        return self.op(f"{opname} {', '.join(vals)} : {t}", c), t
