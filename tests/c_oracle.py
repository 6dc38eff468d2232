"""The C as written is the reference: a corpus function compiled by the system C compiler
(`-O0` and `-O2`, no fast-math, `-ffp-contract=off`) into a shared library and called
through ctypes, against synth's translation of it run through the ExecutionEngine (and
against a raised module's `@NAME_raised`), on the same random inputs.

A corpus directory holds C files and a `manifest.json` (benchmarks/c-libs): per function
its integer sizes, the other integer arguments, each array argument's extent in elements
(an expression of the sizes) and value ranges; `elements` gives the type of the numbers a
`char *` parameter holds (NumPy's loops: its extent is then in those elements). The C side gets each array as a flat buffer
of that extent followed by guard elements (which the C must not write); the translation
gets the buffer as an array of the shape its signature gives (its extents at the sizes),
padded past the C extent with NaN (floats) or a sentinel: an element the translation reads
beyond what the C reads shows in its results."""

from __future__ import annotations

import ctypes
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.backends.cc import compile_library
from synth.execution import run_function
from synth.frontend.c import translate_c
from synth.frontend.c.libclang import functions, parse_file

OPT_LEVELS = ("-O0", "-O2")
FLAGS = ("-std=c99", "-fPIC", "-shared", "-fno-fast-math", "-ffp-contract=off")
GUARD = 16
_TYPES = {  # C type kind -> (NumPy dtype, ctypes type, MLIR type)
    TK.FLOAT: (np.float32, ctypes.c_float, "f32"), TK.DOUBLE: (np.float64, ctypes.c_double, "f64"),
    TK.CHAR_S: (np.int8, ctypes.c_int8, "i8"), TK.SCHAR: (np.int8, ctypes.c_int8, "i8"),
    TK.CHAR_U: (np.uint8, ctypes.c_uint8, "i8"), TK.UCHAR: (np.uint8, ctypes.c_uint8, "i8"),
    TK.SHORT: (np.int16, ctypes.c_int16, "i16"), TK.USHORT: (np.uint16, ctypes.c_uint16, "i16"),
    TK.INT: (np.int32, ctypes.c_int32, "i32"), TK.UINT: (np.uint32, ctypes.c_uint32, "i32"),
    TK.LONG: (np.int64, ctypes.c_int64, "i64"), TK.ULONG: (np.uint64, ctypes.c_uint64, "i64"),
    TK.LONGLONG: (np.int64, ctypes.c_int64, "i64"), TK.ULONGLONG: (np.uint64, ctypes.c_uint64, "i64"),
}


_ELEMENTS = {"double": TK.DOUBLE, "float": TK.FLOAT, "int": TK.INT, "unsigned": TK.UINT,
             "long": TK.LONG, "short": TK.SHORT, "unsigned short": TK.USHORT,
             "signed char": TK.SCHAR, "unsigned char": TK.UCHAR}


@dataclass
class Param:
    name: str
    array: bool
    kind: object  # TypeKind of the number (the element type of an array)


@dataclass
class Case:
    path: Path
    function: str
    spec: dict

    @property
    def id(self) -> str:
        return f"{self.path.stem}:{self.function}"

    @property
    def sizes(self) -> dict:
        return dict(self.spec.get("sizes", {}))

    @property
    def defines(self) -> list:
        return list(self.spec.get("defines", []))


def load_cases(directory: Path) -> list[Case]:
    manifest = json.loads((directory / "manifest.json").read_text())
    return [Case(directory / file, fn, spec) for file, funcs in manifest.items()
            if not file.startswith("_") for fn, spec in funcs.items()]


def signature(case: Case) -> tuple[list[Param], object]:
    """Parameters and result type kind (None for void) of the function, from its C."""
    tu = parse_file(str(case.path), "c99", case.defines, [str(case.path.parent)], ())
    f = next(c for c in functions(tu, str(case.path)) if c.spelling == case.function)
    params = []
    for p in (k for k in f.get_children() if k.kind == CK.PARM_DECL):
        t = p.type.get_canonical()
        array = t.kind in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY)
        while t.kind in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY):
            t = t.get_pointee().get_canonical() if t.kind == TK.POINTER else t.element_type.get_canonical()
        params.append(Param(p.spelling, array, t.kind))
    for p in params:  # a `char *` whose bytes hold numbers of another type (NumPy's loops)
        if p.name in case.spec.get("elements", {}):
            p.kind = _ELEMENTS[case.spec["elements"][p.name]]
    r = f.result_type.get_canonical().kind
    return params, (None if r == TK.VOID else r)


def _extent(expr: str, values: dict) -> int:
    return int(eval(expr, {"__builtins__": {}}, dict(values)))  # manifest arithmetic only


def inputs(case: Case, params: list[Param], rng: np.random.Generator) -> dict:
    """Argument values: ints from the manifest, floats and arrays random (flat arrays)."""
    values = {**case.sizes, **case.spec.get("ints", {})}
    ranges = case.spec.get("ranges", {})
    out = {}
    for p in params:
        dtype = _TYPES[p.kind][0]
        if p.array:
            n = _extent(case.spec["arrays"][p.name], values)
            out[p.name] = _random(rng, dtype, n, ranges.get(p.name))
        elif p.name in values:
            out[p.name] = values[p.name]
        elif np.issubdtype(dtype, np.floating):
            lo, hi = ranges.get(p.name, (0.5, 1.5))
            sign = 1.0 if p.name in ranges else rng.choice([-1.0, 1.0])
            out[p.name] = float(sign * rng.uniform(lo, hi))
        else:
            raise KeyError(f"{case.id}: no value for integer argument '{p.name}' in the manifest")
    return out


def _random(rng, dtype, n: int, rng_range) -> np.ndarray:
    if np.issubdtype(dtype, np.floating):
        lo, hi = rng_range or (-1.0, 1.0)
        return rng.uniform(lo, hi, n).astype(dtype)
    info = np.iinfo(dtype)
    if rng_range is None:
        rng_range = (info.min, info.max) if info.bits <= 16 or not info.min else (-100, 100)
        if info.bits == 32 and not info.min:
            rng_range = (0, info.max)
    lo, hi = rng_range
    return rng.integers(lo, hi, n, endpoint=True, dtype=np.int64).astype(dtype)


def _sentinel(dtype):
    return np.nan if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max // 3


def run_c(case: Case, params: list[Param], result, args: dict, opt: str) -> tuple[dict, object]:
    """The arrays after one call of the compiled C (flat, the manifest's extent) and the
    returned value. The guard elements past each array must stay as they were."""
    lib = compile_library(case.path, case.defines, [case.path.parent], flags=(opt, *FLAGS))
    fn = getattr(ctypes.CDLL(str(lib)), case.function)
    fn.restype = _TYPES[result][1] if result is not None else None
    cargs, buffers = [], {}
    for p in params:
        if p.array:
            a = args[p.name]
            buf = np.concatenate([a, np.full(GUARD, _sentinel(a.dtype), dtype=a.dtype)])
            buffers[p.name] = buf
            cargs.append(buf.ctypes.data_as(ctypes.c_void_p))
        else:
            cargs.append(_TYPES[p.kind][1](args[p.name]))
    ret = fn(*cargs)
    out = {}
    for name, buf in buffers.items():
        n = len(args[name])
        guard = np.full(GUARD, _sentinel(buf.dtype), dtype=buf.dtype)
        if not np.array_equal(buf[n:], guard, equal_nan=True):
            raise AssertionError(f"{case.id} ({opt}): the C writes past the extent of '{name}' "
                                 f"the manifest gives")
        out[name] = buf[:n].copy()
    return out, ret


_ARG = re.compile(r"%arg(\d+): (memref<([^>]*)>|\w+)")


def mlir_signature(text: str, function: str) -> list[tuple[str, tuple | None]]:
    """(element or scalar type, shape or None) of each argument of `@function`."""
    head = re.search(rf"func\.func @{re.escape(function)}\((.*?)\)( ->|\s*attributes|\s*\{{)", text)
    out = []
    for m in _ARG.finditer(head.group(1)):
        if m.group(3) is not None:
            *dims, elem = m.group(3).split("x")
            out.append((elem, tuple(None if d == "?" else int(d) for d in dims)))
        else:
            out.append((m.group(2), None))
    return out


def run_translation(case: Case, params: list[Param], args: dict, *, sizes: bool,
                    shapes: dict | None = None) -> tuple[dict, object, str]:
    """Arrays after synth's translation ran (flat, the manifest's extent), the returned
    value and the MLIR text; `sizes`: translated with the manifest's --size values.
    Dynamic extents take the `shapes` (name -> shape) of the sized translation."""
    text = translate_c(str(case.path), function=case.function, locations=False,
                       sizes=case.sizes if sizes else None, defines=case.defines,
                       include_dirs=[str(case.path.parent)]).text
    sig = mlir_signature(text, case.function)
    call, padded = [], {}
    # views at run-time strides (synth.c_strides): the caller's elements at those strides,
    # gathered for the call and put back after it
    strided = view_strides(text, case.function, {q.name: int(args[q.name]) for q in params if not q.array})
    views = {}
    for p, (t, shape) in zip(params, sig):
        if p.array and len(call) in strided:
            buf = args[p.name].copy()
            extents = dynamic_shape(text, case, len(call), shape, None, len(buf))
            views[p.name] = (buf, np.lib.stride_tricks.as_strided(
                buf, extents, [k * buf.itemsize for k in strided[len(call)]]))
            call.append(np.ascontiguousarray(views[p.name][1]))
        elif p.array:
            if None in shape:
                shape = dynamic_shape(text, case, len(call), shape, (shapes or {}).get(p.name), len(args[p.name]))
            a = args[p.name]
            total = int(np.prod(shape))
            buf = np.full(max(total, len(a)), _sentinel(a.dtype), dtype=a.dtype)
            buf[:len(a)] = a
            arr = np.ascontiguousarray(buf[:total].reshape(shape))
            padded[p.name] = arr
            call.append(arr)
        else:
            v = args[p.name]
            if not np.issubdtype(_TYPES[p.kind][0], np.floating):
                v = int(np.array(v).astype(_TYPES[p.kind][0]).astype(np.int64))
                bits = int(t[1:])
                v = v - (1 << bits) if v >= 1 << (bits - 1) else v
            call.append((t, v))
    result = run_function(text, case.function, call)
    out = {}
    for i, p in enumerate(params):
        if p.array and p.name in views:
            buf, view = views[p.name]
            view[...] = np.asarray(result.outputs[i]).reshape(view.shape)
            out[p.name] = buf
        elif p.array:
            got = np.asarray(result.outputs[i]).reshape(-1)
            n = len(args[p.name])
            flat = args[p.name].copy()  # past the translation's extent: as it was
            flat[:min(n, got.size)] = got[:n].view(args[p.name].dtype)
            out[p.name] = flat
    ret = result.results[0] if result.results else None
    return out, ret, text


def raised_outputs(text: str, case, params, args: dict, target: str, sig, run=None) -> tuple[dict, object]:
    """Run `@F_raised` of a raised module on the arguments; the arrays it writes (flat, the
    manifest's extent) and the returned value. `run(dialect, module, name, inputs)` runs
    it (default: synth.backends.run.run_raised, the reference lowering)."""
    from synth.backends.run import run_raised
    from synth.semantics.raised import load_raised
    from synth.semantics.specialize import generic_signature, specialize

    feed = []
    for p, (t, shape) in zip(params, sig):
        a = args[p.name]
        if p.array:
            total = int(np.prod(shape))
            buf = np.full(max(total, len(a)), _sentinel(a.dtype), dtype=a.dtype)
            buf[:len(a)] = a
            feed.append(np.ascontiguousarray(buf[:total].reshape(shape)))
        else:
            dtype = _TYPES[p.kind][0]
            feed.append(np.asarray(np.array(a).astype(dtype)))
    head = re.search(rf"func\.func @{re.escape(case.function)}_raised\(.*", text).group(0)
    outs = [int(x) for x in re.search(r"synth\.outputs = \[([^\]]*)\]", head).group(1).split(",") if x.strip()]
    raised = load_raised("<raised>", f"{case.function}_raised", text)
    name = f"{case.function}_raised"
    module = raised.text
    if generic_signature(module, name):  # a raise for every size: made static at these shapes
        module = specialize(module, name, raised.dialect, [np.shape(x) for x in feed])
    results = (run or run_raised)(raised.dialect, module, name, feed)
    written = {}
    for k, i in enumerate(outs):
        p = params[i]
        got = np.asarray(results[k]).reshape(-1)
        flat = args[p.name].copy()
        n = min(len(flat), got.size)
        flat[:n] = got[:n].astype(flat.dtype) if got.dtype != flat.dtype else got[:n]
        written[p.name] = flat
    for p in params:
        if p.array and p.name not in written:
            written[p.name] = args[p.name].copy()
    ret = results[len(outs)] if len(results) > len(outs) else None
    return written, ret


def dynamic_shape(text: str, case: Case, index: int, shape: tuple, sized: tuple | None, total: int) -> tuple:
    """The extents of the `index`-th argument, dynamic in `shape`: the sized translation's
    (`sized`) where it has the same rank, else its `synth.c_shape` at the manifest's sizes
    (a size of 1 folds a stride away there: `x[i * incx]` is one-dimensional at incx = 1),
    rows not named there as many as the manifest's `total` elements fill."""
    if sized is not None and len(sized) == len(shape):
        return sized
    m = re.search(rf"%arg{index}: memref<[^{{]*?> \{{synth\.c_shape = \[([^\]]*)\]", text)
    names = [n.strip().strip('"') for n in m.group(1).split(",")] if m else []
    values = {**case.spec.get("ints", {}), **case.sizes}
    if len(names) != len(shape) or any(n == "?" for n in names[1:]):
        raise ValueError(f"{case.id}: no extents for argument {index} of shape {shape}")
    inner = [_extent(n, values) if d is None else d for d, n in zip(shape[1:], names[1:])]
    rows = shape[0] if shape[0] is not None else (
        -(-total // int(np.prod(inner))) if names[0] == "?" else _extent(names[0], values))
    return (rows, *inner)


def view_strides(text: str, function: str, values: dict) -> dict:
    """Argument index -> its strides in elements at `values` (size name -> value), for each
    argument the translation reads as a view at run-time strides (its synth.c_strides, C
    expressions of the sizes)."""
    head = text[text.index(f"@{function}("):].split("\n", 1)[0]
    out = {}
    for m in re.finditer(r"%arg(\d+): memref<[^{]*?\{([^}]*)\}", head):
        st = re.search(r"synth\.c_strides = \[([^\]]*)\]", m.group(2))
        if st:
            exprs = [e.strip().strip('"') for e in st.group(1).split(",")]
            out[int(m.group(1))] = [_extent(e.replace("/", "//"), values) for e in exprs]
    return out


def shapes_of(text: str, function: str, params: list[Param]) -> dict:
    return {p.name: shape for p, (_, shape) in zip(params, mlir_signature(text, function)) if p.array}


def assert_same(case: Case, what: str, params: list[Param], result, want: tuple, got: tuple) -> None:
    """Arrays and the returned value equal: floats to rounding, integers exactly."""
    for p in params:
        if p.array:
            _close(case, f"{what}: '{p.name}'", want[0][p.name], got[0][p.name])
    if result is not None:
        dtype = _TYPES[result][0]
        _close(case, f"{what}: the returned value", _as(np.asarray(want[1]).reshape(-1), dtype),
               _as(np.asarray(got[1]).reshape(-1), dtype))


def _as(a: np.ndarray, dtype) -> np.ndarray:
    """`a` as `dtype`, an integer of the same width reinterpreted (MLIR's are signless)."""
    if a.dtype.kind in "iu" and np.dtype(dtype).kind in "iu":
        return a.astype(np.int64).astype(dtype) if a.dtype.itemsize != np.dtype(dtype).itemsize \
            else a.view(dtype)
    return a.astype(dtype)


def _close(case, what, want, got):
    want, got = np.asarray(want), _as(np.asarray(got), np.asarray(want).dtype)
    if want.dtype.kind == "f":
        rtol = 1e-5 if want.dtype == np.float32 else 1e-12
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                   atol=rtol * scale, err_msg=f"{case.id} {what}")
    else:
        np.testing.assert_array_equal(got, want, err_msg=f"{case.id} {what}")


def assert_refused_at(path: Path, source: str, function: str, needle: str, words: list) -> None:
    """`function` in `source` (written to `path`) is refused with exit 2 at the line and
    column where `needle` (once in the file) starts, its message holding each of `words`."""
    import pytest

    from synth.errors import InputError

    path.write_text(source)
    with pytest.raises(InputError) as e:
        translate_c(str(path), function=function)
    assert e.value.exit_code == 2
    at = source.index(needle)
    line = source.count("\n", 0, at) + 1
    column = at - (source.rfind("\n", 0, at) + 1) + 1
    assert e.value.location == f"{path}:{line}:{column}", str(e.value)
    for w in words:
        assert w in e.value.message, e.value.message


@functools.lru_cache(maxsize=None)
def coverage_script():
    """scripts/c_coverage.py as a module: its `check_raised` (a raise against the compiled C
    at a case's sizes) and `resized` (a case at other sizes, by its manifest's steps)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "c_coverage", Path(__file__).resolve().parents[1] / "scripts" / "c_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def raise_for_every_size_equals_compiled_c(case: Case, target: str) -> None:
    """Raise `case` with its sizes left free (shape-generic) and check the one raise against
    gcc at the manifest's sizes and 5 larger (scripts/c_coverage.py's check)."""
    from synth.pipeline import RaiseOptions, raise_function

    coverage = coverage_script()
    name = case.function
    source = translate_c(str(case.path), function=name)  # sizes left free: shape-generic
    outcome = raise_function(source, name, target, RaiseOptions())
    assert "?" in outcome.module.split(f"@{name}_raised(")[1].split(")")[0]
    for by in (0, 5):  # at the manifest's sizes and 5 larger: one raise for both
        at = Case(case.path, case.function, {**case.spec, "sizes": {k: v + by for k, v in case.sizes.items()}})
        params, result = signature(at)
        coverage.check_raised(at, outcome.module, target, params, result)
