"""libclang: parse a C file (diagnostics as InputError at FILE:LINE:COL), the compiler's
resource headers, the function definitions of the main file, and the few C entry points
(operator kinds, constant evaluation) the Python bindings of libclang 18.1.1 lack."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import clang.cindex as ci
from clang.cindex import CursorKind as CK

from synth.errors import InputError

FALLBACK_INCLUDE = Path(__file__).resolve().parent.parent / "include"  # synth/frontend/include
FALLBACK_HEADERS = ("stddef.h", "stdarg.h", "stdbool.h", "float.h", "limits.h", "stdint.h")


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
    return str(FALLBACK_INCLUDE)


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


def binary_operator(c) -> str:
    """The operator of a binary-operator cursor as C spells it ("+", "<<", ...), "?" when unknown."""
    return _BINOPS.get(_lib().clang_getCursorBinaryOperatorKind(c), "?")


def unary_operator(c) -> str:
    """The operator of a unary-operator cursor as C spells it, "?" when unknown."""
    return _UNOPS.get(_lib().clang_getCursorUnaryOperatorKind(c), "?")


def evaluate(c) -> int | float | None:
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


def parse_file(path: str, std: str, defines, include_dirs, extra_flags) -> ci.TranslationUnit:
    """The clang translation unit of the C file at `path`; InputError when it is missing or unparsable."""
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
                fname = path if same_file(loc.file.name, path) else loc.file.name
                where = f"{fname}:{loc.line}:{loc.column}"
            raise InputError(d.spelling, where)
    return tu


@lru_cache(maxsize=256)
def same_file(a: str, b: str) -> bool:
    """Whether paths `a` and `b` name the same file (by their absolute paths when one is missing)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def functions(tu: ci.TranslationUnit, path: str) -> list:
    """Function definitions in the main file, in order."""
    out = []
    for c in tu.cursor.get_children():
        if (c.kind == CK.FUNCTION_DECL and c.is_definition() and c.location.file is not None
                and same_file(c.location.file.name, path)):
            out.append(c)
    return out
