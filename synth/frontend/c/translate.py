"""The entry points: `list_c_functions`, and `translate_c`, which translates the file's
functions one by one, assembles the module and reprints it through MLIR (verified, with or
without the C locations)."""

from __future__ import annotations

from synth.errors import InputError, SynthError
from synth.frontend.c.emitter import Plan
from synth.frontend.c.libclang import functions, parse_file
from synth.frontend.c.model import Demote
from synth.frontend.c.statements import FunctionTranslator
from synth.frontend.reader import SourceModule

_MAX_PASSES = 64


def list_c_functions(path: str, *, defines: list[str] = (), include_dirs: list[str] = (),
                     std: str = "c99", extra_flags: list[str] = ()) -> list[str]:
    """Names of the functions defined (with a body) in the C file, in order."""
    tu = parse_file(str(path), std, defines, include_dirs, extra_flags)
    return [c.spelling for c in functions(tu, str(path))]


def translate_function(path: str, f, sizes: dict | None = None) -> str:
    """One function's `func.func` text. A first pass follows the function to find what
    the second needs: the accesses of every array (their layouts), and the integer locals
    that are data rather than affine values (each found restarts the first pass)."""
    plan = Plan()
    for _ in range(_MAX_PASSES):
        first = FunctionTranslator(path, f, sizes=sizes, plan=plan, collect=True)
        try:
            first.translate()
        except Demote as d:
            plan.demoted[d.decl] = d.reason
            continue
        plan.layouts = first.guarded(first.decide_layouts)
        final = FunctionTranslator(path, f, sizes=sizes, plan=plan)
        try:
            return final.translate()
        except Demote as d:  # only the first pass should find these
            plan.demoted[d.decl] = d.reason
    raise InputError(f"function '{f.spelling}' has too many integer locals to follow",
                     FunctionTranslator(path, f).where(f))


def translate_c(path: str, *, function: str | None = None, defines: list[str] = (),
                include_dirs: list[str] = (), std: str = "c99", extra_flags: list[str] = (),
                locations: bool = True, skip_unsupported: bool = False,
                sizes: dict | None = None) -> SourceModule:
    """Translate the C file's functions (or only `function`) to an affine MLIR module.

    `defines` are `NAME` / `NAME=VALUE` (a leading `-D` is accepted), `include_dirs` are
    directories (`-I` accepted). With `locations` (default), every op carries the C
    location it came from (`loc("file.c":LINE:COL)`), so later messages point into the C
    file; pass `locations=False` for the module as a standalone .mlir file.
    InputError (exit 2) for clang errors and for C outside static control. With
    `skip_unsupported` (and no `function`), functions outside static control (a PolyBench
    file's `main`, `print_array`) are left out, each named with its reason in the result's
    `notes`; InputError only when none is left. `sizes` ({"n": 100}) gives integer
    parameters of those names a value: the translation uses it wherever the parameter is
    read (the parameter stays in the signature), so that shapes and bounds are constants
    (`synth translate/raise --size n=100`); a function without such a parameter is
    refused when it is the one asked for, and left as it is otherwise."""
    path = str(path)
    tu = parse_file(path, std, defines, include_dirs, extra_flags)
    funcs = functions(tu, path)
    if function is not None:
        funcs = [f for f in funcs if f.spelling == function]
        if not funcs:
            raise InputError(f"no function '{function}' with a body in the file", path)
    elif not funcs:
        raise InputError("no function with a body in the file", path)
    texts, notes, kept = [], [], []
    for f in funcs:
        try:
            texts.append(translate_function(path, f, _sizes_for(f, sizes, function is not None)))
            kept.append(f)
        except InputError as e:
            if not skip_unsupported or function is not None:
                raise
            notes.append(f"skipped function '{f.spelling}': {e}")
            first_error = e
    if not kept:
        raise first_error
    first = FunctionTranslator(path, kept[0]).loc(kept[0])
    text = "module {\n" + "\n".join(texts) + "\n} " + first + "\n"
    return SourceModule(path, _reprint(text, path, locations), notes)


def _sizes_for(f, sizes: dict | None, strict: bool) -> dict | None:
    """The --size values that apply to `f` (all of them must, for the function asked for)."""
    if not sizes or strict:
        return sizes
    names = {p.spelling for p in f.get_arguments()}
    return {k: v for k, v in sizes.items() if k in names}


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
