"""The entry points: `list_c_functions`, and `translate_c`, which translates the file's
functions one by one, assembles the module and reprints it through MLIR (verified, with or
without the C locations)."""

from __future__ import annotations

from synth.errors import InputError, SynthError
from synth.frontend.c.libclang import _functions, _parse
from synth.frontend.c.statements import _FunctionTranslator
from synth.frontend.reader import SourceModule


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
