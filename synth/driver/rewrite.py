"""Rewriting a C translation unit so that its raised functions call their native code.

For each raised function NAME (found with libclang: its extent, its body, the name's
position), the original definition stays where it is, renamed `NAME__synth_orig` and made
`static`; right after it comes a new definition of NAME, with the original's header as
written (return type, storage class, `inline`, parameters), whose body
- computes each array's extents (the MLIR kernel's memref type: a static number, or the C
  expression the front end read the array's shape from, `synth.c_shape`), and calls the
  original when one is not positive (nothing to do, or outside the raise's domain), or,
  for a raise made at fixed sizes, when a size argument or extent differs from the
  raise's (the object would run its MLIR copy of the loops; the C compiler's is the one
  the quick timing compared with);
- calls the original when an array argument is NULL (the translation reads every pointer
  parameter as an array, so a test of it against NULL reads as false: synth.assumptions);
- checks that the address range of every array the function writes is disjoint from the
  range of every other array argument (C lets pointer arguments overlap; the raise reads
  each as an array of its own), and calls the original when two overlap;
- otherwise builds the memref descriptors and calls the raised object's C entry point
  (`_mlir_ciface_...`, synth.driver.native).
Each fallback adds one to the weak global `__synth_cc_fallbacks` (a program, or a test,
may read it). `#line` directives keep the compiler's messages and `__FILE__` pointing
into the user's file. The input file is never modified."""

from __future__ import annotations

from dataclasses import dataclass, field

from synth.errors import InputError

ORIG_SUFFIX = "__synth_orig"
FALLBACKS = "__synth_cc_fallbacks"

C_TYPES = {"f64": "double", "f32": "float", "i64": "__INT64_TYPE__", "i32": "__INT32_TYPE__",
           "i16": "__INT16_TYPE__", "i8": "__INT8_TYPE__", "index": "__INT64_TYPE__", "i1": "_Bool"}
ELEMENT_BYTES = {"f64": 8, "f32": 4, "i64": 8, "i32": 4, "i16": 2, "i8": 1, "index": 8, "i1": 1}


@dataclass
class FunctionSite:
    """Where a function definition sits in the file (byte offsets)."""

    name: str
    start: int  # first byte of the definition
    name_at: int  # the name in the declarator
    body_start: int  # its '{'
    end: int  # one past its '}'
    params: list[str]
    static: bool
    line_after: int  # the line after the one holding the closing brace


def scan(path: str, clang_args: list[str]) -> list[FunctionSite]:
    """The function definitions of the file (not of its headers), in order; InputError
    (FILE:LINE:COL) where clang reports an error."""
    from clang.cindex import CursorKind as CK

    from synth.frontend.c.libclang import functions, parse_file

    std = next((a.split("=", 1)[1] for a in clang_args if a.startswith("-std=")), "c99")
    extra = [a for a in clang_args if not a.startswith("-std=")]
    tu = parse_file(path, std, [], [], extra)
    data = open(path, "rb").read()
    sites = []
    for f in functions(tu, path):
        if f.spelling == "main":
            continue
        body = [c for c in f.get_children() if c.kind == CK.COMPOUND_STMT]
        if not body:
            continue
        b = body[0]
        start, end = f.extent.start.offset, f.extent.end.offset
        name_at = f.location.offset
        if (data[b.extent.start.offset:b.extent.start.offset + 1] != b"{" or data[end - 1:end] != b"}"
                or data[name_at:name_at + len(f.spelling)].decode(errors="replace") != f.spelling
                or not start <= name_at < b.extent.start.offset):
            continue  # written through macros: left as it is
        params = [p.spelling for p in f.get_arguments()]
        newline = data.find(b"\n", end)
        line_after = f.extent.end.line + 1
        sites.append(FunctionSite(f.spelling, start, name_at, b.extent.start.offset, end, params,
                                  f.storage_class.name == "STATIC", line_after if newline >= 0 else -1))
    return sites


@dataclass
class Replacement:
    """What the raise of one function gives the rewrite (synth.driver.jobs)."""

    site: FunctionSite
    entry: str  # the C entry point of the raised object
    arguments: list[dict]  # per parameter: {"kind": "scalar", "type"} or {"kind": "memref", ...}
    results: list[str]  # MLIR result types (none or one scalar)
    written: list[int]  # the parameters (indices) the function writes
    note: str  # one line for the comment above the new definition
    guard: list = field(default_factory=list)  # a static raise's sizes (synth.driver.jobs._guard)


def check_supported(arguments: list[dict], results: list[str], params: list[str]) -> str | None:
    """Why the wrapper cannot be built for this signature (None: it can)."""
    if len(arguments) != len(params):
        return f"the kernel has {len(arguments)} arguments, the C function {len(params)} parameters"
    if len(results) > 1 or any(r not in C_TYPES for r in results):
        return f"its result types ({', '.join(results)}) have no C form here"
    for i, a in enumerate(arguments):
        if a["kind"] == "scalar":
            if a["type"] not in C_TYPES:
                return f"parameter '{params[i]}' has the type {a['type']}"
            continue
        if a["element"] not in ELEMENT_BYTES:
            return f"parameter '{params[i]}' has elements of type {a['element']}"
        for k, d in enumerate(a["shape"]):
            extent = a["c_shape"][k] if a.get("c_shape") and k < len(a["c_shape"]) else None
            if d is None and (extent is None or extent == "?"):
                return f"the extent {k} of '{params[i]}' is not known in C"
    return None


def _extents(a: dict) -> list[str]:
    out = []
    for k, d in enumerate(a["shape"]):
        out.append(str(d) if d is not None else f"(__INT64_TYPE__)({a['c_shape'][k]})")
    return out


def _descriptor_type(rank: int) -> str:
    return f"__synth_memref{rank}"


def _descriptor_typedef(rank: int) -> str:
    t = _descriptor_type(rank)
    dims = f", sizes[{rank}], strides[{rank}]" if rank else ""
    return (f"#ifndef __SYNTH_MEMREF{rank}_DEFINED\n#define __SYNTH_MEMREF{rank}_DEFINED\n"
            f"typedef struct {{ void *allocated, *aligned; __INT64_TYPE__ offset{dims}; }} {t};\n#endif\n")


def wrapper(r: Replacement, header: str) -> str:
    """The new definition of the function (its header as written, a body that calls the
    raised code or the original), with the declarations it needs before it."""
    params, args = r.site.params, r.arguments
    ret = C_TYPES[r.results[0]] if r.results else "void"
    ranks = sorted({len(a["shape"]) for a in args if a["kind"] == "memref"})
    lines = [f"/* synth cc: {r.note} */"]
    lines += [_descriptor_typedef(k) for k in ranks]
    lines.append(f"extern __attribute__((weak)) unsigned long {FALLBACKS};")
    entry_params = [C_TYPES[a["type"]] if a["kind"] == "scalar" else f"{_descriptor_type(len(a['shape']))} *"
                    for a in args]
    lines.append(f"extern {ret} {r.entry}({', '.join(entry_params) or 'void'});")
    decls, stmts, positive, memrefs = [], [], [], [i for i, a in enumerate(args) if a["kind"] == "memref"]
    for i in memrefs:
        for k, e in enumerate(_extents(args[i])):
            decls.append(f"    const __INT64_TYPE__ __synth_e{i}_{k} = {e};")
            if not e.isdigit():
                positive.append(f"__synth_e{i}_{k} <= 0")
        for k, e in enumerate(args[i].get("c_strides") or ()):  # a view at the caller's strides
            decls.append(f"    const __INT64_TYPE__ __synth_s{i}_{k} = (__INT64_TYPE__)({e});")
    pairs = [(w, o) for w in r.written if w in memrefs for o in memrefs
             if o != w and (o not in r.written or o > w)]
    for i in sorted({x for pair in pairs for x in pair}):  # the address ranges the check compares
        a = args[i]
        count = " * ".join(f"__synth_e{i}_{k}" for k in range(len(a["shape"]))) or "1"
        if a.get("c_strides"):  # a view: from its first element to its last
            count = " + ".join(f"(__synth_e{i}_{k} - 1) * __synth_s{i}_{k}" for k in range(len(a["shape"]))) + " + 1"
        decls.append(f"    const __UINTPTR_TYPE__ __synth_lo{i} = (__UINTPTR_TYPE__)(const void *)({params[i]});")
        decls.append(f"    const __UINTPTR_TYPE__ __synth_hi{i} = __synth_lo{i} + "
                     f"(__UINTPTR_TYPE__)({count}) * {ELEMENT_BYTES[a['element']]}u;")
    # a static raise called at other sizes: the original as the C compiler built it
    sizes = [f"({params[g[1]]}) != {g[2]}" if g[0] == "param" else f"__synth_e{g[1]}_{g[2]} != {g[3]}"
             for g in r.guard if (g[0] == "param" and g[1] < len(params)) or (g[0] == "dim" and g[1] in memrefs)]
    # the raise takes every array as one (a NULL test in the original reads as false)
    nulls = [f"({params[i]}) == 0" for i in memrefs]
    # the conditions the translation's reading of an array needs (a byte stride a multiple
    # of the element size: `(is1) % 8 == 0`): where one fails, the original
    required = [f"!({c})" for i in memrefs for c in args[i].get("c_require", ())]
    checks = positive + nulls + required + sizes + [f"(__synth_lo{w} < __synth_hi{o} && __synth_lo{o} < __synth_hi{w})"
                                 for w, o in pairs]
    call_orig = f"{r.site.name}{ORIG_SUFFIX}({', '.join(params)})"
    if checks:
        stmts.append("    if (" + "\n        || ".join(checks) + ") {")
        stmts.append(f"        {FALLBACKS}++;")
        stmts.append(f"        {'return ' if ret != 'void' else ''}{call_orig};")
        if ret == "void":
            stmts.append("        return;")
        stmts.append("    }")
    else:  # the original is never called: said used, for -Wunused-function
        stmts.append(f"    (void){r.site.name}{ORIG_SUFFIX};")
    call_args = []
    for i, a in enumerate(args):
        if a["kind"] == "scalar":
            call_args.append(f"({C_TYPES[a['type']]})({params[i]})")
            continue
        rank, m = len(a["shape"]), f"__synth_m{i}"
        decls.append(f"    {_descriptor_type(rank)} {m};")  # filled field by field: C89 too
        stmts.append(f"    {m}.allocated = {m}.aligned = (void *)({params[i]});")
        stmts.append(f"    {m}.offset = 0;")
        for k in range(rank):
            stride = " * ".join(f"__synth_e{i}_{j}" for j in range(k + 1, rank)) or "1"
            if a.get("c_strides"):
                stride = f"__synth_s{i}_{k}"
            stmts.append(f"    {m}.sizes[{k}] = __synth_e{i}_{k};")
            stmts.append(f"    {m}.strides[{k}] = {stride};")
        call_args.append(f"&{m}")
    body = decls + stmts
    call = f"{r.entry}({', '.join(call_args)})"
    body.append(f"    {'return ' if ret != 'void' else ''}{call};")
    return "\n".join(lines) + "\n" + header.rstrip() + "\n{\n" + "\n".join(body) + "\n}\n"


def rewrite(path: str, replacements: list[Replacement], runtime: str = "") -> str:
    """The file's text with each replaced function renamed and followed by its new
    definition; `runtime` (C) appended at the end."""
    data = open(path, "rb").read()
    quoted = path.replace("\\", "\\\\").replace('"', '\\"')
    out, pos = [f'#line 1 "{quoted}"\n'.encode()], 0
    for r in sorted(replacements, key=lambda r: r.site.start):
        s = r.site
        header = data[s.start:s.body_start].decode()
        new_header = (data[s.start:s.name_at] + (s.name + ORIG_SUFFIX).encode()
                      + data[s.name_at + len(s.name):s.body_start])
        out.append(data[pos:s.start])
        if not s.static:
            out.append(b"static ")
        out.append(new_header)
        end_line = data.find(b"\n", s.end)
        end_line = len(data) if end_line < 0 else end_line + 1
        out.append(data[s.body_start:end_line])
        if end_line == len(data) and not data.endswith(b"\n"):
            out.append(b"\n")
        out.append(wrapper(r, header).encode())
        if s.line_after > 0:
            out.append(f'#line {s.line_after} "{quoted}"\n'.encode())
        pos = end_line
    out.append(data[pos:])
    if replacements:  # defined after the user's code: a weak declaration there may still be null
        out.append(f"\n__attribute__((weak)) unsigned long {FALLBACKS} = 0;\n".encode())
    if runtime:
        out.append(b"\n" + runtime.encode())
    try:
        return b"".join(out).decode()
    except UnicodeDecodeError:
        raise InputError("the file is not UTF-8 text", path) from None
