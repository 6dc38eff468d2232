"""The raised side of an equivalence proof: `@NAME_raised` read from a module (synth's
output or hand-written) and evaluated on object arrays of z3 terms.

Reading. A raised module may hold the drop-in wrapper `@NAME`, whose bufferization ops
the jaxlib (stablehlo) context cannot parse. `load_raised` keeps `@NAME_raised` and the
functions it calls (transitively) and blanks every other top-level function out of the
text, character for character (newlines kept), so MLIR's FILE:LINE:COL diagnostics still
point into the file. A module with a stablehlo op (outside comments) is parsed in jaxlib's
context (stablehlo registered, as `synth.codegen.emit` does), any other in the upstream `mlir` one.

Sizes. The raised function is written at the ORIGINAL sizes (e.g. 1000x1200); proofs need
it at small ones. `RaisedFunction.resized(value_map)` re-instantiates it textually, with
`value_map` taking each original size value to its small value:
  - every dimension of a `tensor<...>` / `memref<...>` type,
  - every integer in a bracketed integer list (`[0:999, 0:1100]`, `[999, 0] [1, 1100]`,
    `low = [1, 0]`), in `array<i64: ...>` and in `arith.constant N : index`
  - every integer constant inside an `affine_map<...>` (an edge index n-1 of a slice)
is mapped when it equals an original size exactly, or lies within 2 of exactly one
(so a slice bound n-1 stays n-1); every other number is left alone, and so are the
contents of `dense<...>` constants (data, not sizes). Dimension numbers
(`dims = [0, 1]`, permutations) are far below any size and never move. This needs every
original size to be >= MIN_SIZE and equal sizes to map to equal values (the caller,
synth.validation.verify, ensures both). The resized text is parsed and verified by MLIR, so a
rewrite that breaks the function is an error, never a silent change; a raised function
that hides a size elsewhere (a non-splat constant shaped by a size, an affine-map
expression such as `-d0 + 999`, which maps to `-d0 + n-1` only if written so) cannot be
re-instantiated this way.

Evaluating. `RaisedFunction.evaluate(args)` interprets the function op by op on NumPy
object arrays of z3 terms (0-d arrays for rank-0 tensors), with the shared encodings of
`synth.semantics.z3sem` (the same uninterpreted sqrt / exp as the affine side, max / min /
select via If, real division):
  - stablehlo: add subtract multiply divide negate abs maximum minimum sqrt rsqrt
    exponential power clamp and or not xor convert compare select dot_general (any batch
    and contracting dims) dot broadcast_in_dim broadcast transpose reshape reverse
    reduce (any body, interpreted) iota constant slice concatenate pad, func.call;
  - linalg: the module is first run through MLIR's `linalg-generalize-named-ops`, so every
    named op (add ... exp, matmul, matvec, vecmat, batch_matmul, dot, transpose,
    broadcast, reduce, fill, map, ...) is interpreted through its own `linalg.generic`
    definition: iteration domain from the indexing maps, points in lexicographic order,
    the region's scalar arith / math ops evaluated at each point (reductions read and
    update the output). Also tensor.empty (fresh unknown elements), arith.constant,
    elementwise arith on tensors, tensor.extract_slice / insert_slice (static),
    expand_shape / collapse_shape, extract, from_elements.
Infinite constants (the -inf / +inf identities of max / min reductions) are sentinels
that max, min, compare and select understand; any other use of one is an InputError, as
is a NaN constant or an op outside this list.
"""

from __future__ import annotations

import math
import operator
import re
from collections import ChainMap
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import z3

from synth.semantics import support as support
from synth.errors import InputError
from synth.semantics import z3sem
from synth.grammar.op import broadcast
from synth.frontend.reader import read_text

MIN_SIZE = 8  # smallest original size value the textual re-instantiation accepts
_NEAR = 2  # a number within this of an original size is that size plus an offset


# module text --------------------------------------------------------------------------------


def _skip_string(text: str, i: int) -> int:
    """Index just past the string literal starting at text[i] == '"'."""
    i += 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _matching_brace(text: str, i: int) -> int:
    """Index just past the '}' matching the '{' at text[i] (strings and comments skipped)."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _skip_string(text, i)
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return len(text)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced braces")


_FUNC = re.compile(r"func\.func\s+(?:(?:private|public|nested)\s+)?@([\w$.]+)")


def top_level_functions(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of each `func.func` at the top level of a module (or of the file).

    A function ends with its body's closing brace; a declaration (no body) with its line."""
    out: list[tuple[str, int, int]] = []
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _skip_string(text, i)
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth <= 1 and text.startswith("func.func", i) and (i == 0 or not text[i - 1].isalnum()):
            m = _FUNC.match(text, i)
            if m:
                end = _function_end(text, m.end())
                out.append((m.group(1), i, end))
                i = end
                continue
        i += 1
    return out


def _function_end(text: str, i: int) -> int:
    parens = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _skip_string(text, i)
            continue
        if c in "([":
            parens += 1
        elif c in ")]":
            parens -= 1
        elif c == "{" and parens == 0:
            if text[:i].rstrip().endswith("attributes"):
                i = _matching_brace(text, i)
                continue
            return _matching_brace(text, i)
        elif c == "\n" and parens == 0:
            rest = text[i:].lstrip()
            if not rest.startswith(("{", "->", "attributes")):
                return i  # a declaration
        i += 1
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


def resize_text(text: str, value_map: dict[int, int]) -> str:
    """Rewrite the sizes of a raised module (see the module docstring). The contents of
    `dense<...>` attributes are data, never sizes: they are masked while rewriting."""
    constants: list[str] = []

    def mask(m: re.Match) -> str:
        constants.append(m.group())
        return f"\0{len(constants) - 1}\0"

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


# types -------------------------------------------------------------------------------------

_FLOATS = ("f16", "bf16", "f32", "f64")
_TENSOR = re.compile(r"^tensor<(.*)>$")


@dataclass(frozen=True)
class ValueType:
    shape: tuple[int, ...] | None  # None: a scalar (not a tensor)
    dtype: str

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None

    def mlir(self) -> str:
        if self.shape is None:
            return self.dtype
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + self.dtype + ">"


def value_type(t) -> ValueType:
    """A ValueType from an MLIR type (either binding), via its text."""
    s = str(t)
    m = _TENSOR.match(s)
    if m is None:
        return ValueType(None, s)
    parts = m.group(1).split("x")
    if any(not p.isdigit() for p in parts[:-1]):
        raise _Unsupported(f"dynamic or unsupported tensor type {s}")
    return ValueType(tuple(int(p) for p in parts[:-1]), parts[-1])


def _sort(dtype: str) -> z3.SortRef:
    if dtype in _FLOATS:
        return z3.RealSort()
    if dtype == "i1":
        return z3.BoolSort()
    if dtype == "index" or re.fullmatch(r"[su]?i\d+", dtype):
        return z3.IntSort()
    raise _Unsupported(f"element type {dtype} has no z3 sort")


# infinities --------------------------------------------------------------------------------


class _Infinity:
    """+inf / -inf: only as identities of max / min (see the module docstring)."""

    __slots__ = ("sign",)

    def __init__(self, sign: int):
        self.sign = sign

    def __repr__(self) -> str:
        return "+inf" if self.sign > 0 else "-inf"


POS_INF, NEG_INF = _Infinity(1), _Infinity(-1)


def _is_inf(x) -> bool:
    return isinstance(x, _Infinity)


class _Unsupported(Exception):
    """An op, attribute or value outside what the interpreter models (becomes InputError)."""


def _finite(name: str, *xs) -> None:
    if any(_is_inf(x) for x in xs):
        raise _Unsupported(f"an infinite value reaches '{name}'; infinities are supported only "
                           f"as identities of max / min reductions")


# scalar semantics --------------------------------------------------------------------------


def numeral(value, dtype: str):
    """A constant as a z3 numeral of `dtype` (infinities as sentinels; NaN unsupported)."""
    if dtype == "i1":
        return z3.BoolVal(bool(value))
    if dtype in _FLOATS:
        v = float(value)
        if math.isnan(v):
            raise _Unsupported("NaN constants have no real-number value")
        if math.isinf(v):
            return POS_INF if v > 0 else NEG_INF
        return z3sem.numeral(v, "f64")
    return z3.IntVal(int(value))


def _maximum(a, b):
    if _is_inf(a):
        return b if a.sign < 0 else a
    if _is_inf(b):
        return a if b.sign < 0 else b
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return z3sem.maximum(a, b)


def _minimum(a, b):
    if _is_inf(a):
        return b if a.sign > 0 else a
    if _is_inf(b):
        return a if b.sign > 0 else b
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return z3sem.minimum(a, b)


_PY_COMPARE = {"GT": operator.gt, "GE": operator.ge, "LT": operator.lt, "LE": operator.le,
               "EQ": operator.eq, "NE": operator.ne}


def _compare(direction: str, a, b):
    if _is_inf(a) or _is_inf(b):
        # -inf < every real < +inf; both infinite: compare the signs
        rank_a = a.sign if _is_inf(a) else 0
        rank_b = b.sign if _is_inf(b) else 0
        return z3.BoolVal(_PY_COMPARE[direction](rank_a, rank_b))
    if isinstance(a, int) and isinstance(b, int):
        return _PY_COMPARE[direction](a, b)
    return z3sem.COMPARE[direction](a, b)


def _select(p, a, b):
    if isinstance(p, bool):
        return a if p else b
    if z3.is_true(p):
        return a
    if z3.is_false(p):
        return b
    if a is b:
        return a
    _finite("select", a, b)
    return z3sem.select(p, a, b)


def _checked(name: str, fn: Callable) -> Callable:
    def call(*xs):
        _finite(name, *xs)
        return fn(*xs)
    return call


def _add(a, b):
    if _is_zero(a):
        return b
    if _is_zero(b):
        return a
    return a + b


def _is_zero(x) -> bool:
    """A literal zero (Python int or z3 numeral): `_add` drops it to keep terms small."""
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return x == 0
    if isinstance(x, z3.ArithRef) and z3.is_int_value(x):
        return x.as_long() == 0
    return isinstance(x, z3.ArithRef) and z3.is_rational_value(x) and x.as_fraction() == 0


def _float_div(a, b):
    return z3sem.div(a, b)


def _int_div(a, b):
    return support.trunc_div(a, b)


def _abs(a):
    return abs(a) if isinstance(a, int) else z3.If(a >= 0, a, -a)


def _to_float(a):
    if isinstance(a, bool):
        return z3.RealVal(int(a))
    if isinstance(a, int):
        return z3.RealVal(a)
    if z3.is_bool(a):
        return z3.If(a, z3.RealVal(1), z3.RealVal(0))
    if z3.is_int(a):
        return z3.ToReal(a)
    return a


def _bool_op(py: Callable, sym: Callable) -> Callable:
    def fn(*xs):
        if all(isinstance(x, bool) for x in xs):
            return py(*xs)
        if all(z3.is_bool(x) or isinstance(x, bool) for x in xs):
            return sym(*xs)
        raise _Unsupported("bitwise operations are modelled on i1 only")
    return fn


def _by_type(float_fn: Callable | None, int_fn: Callable | None = None) -> Callable:
    """dtype -> scalar function: `float_fn` for float results, `int_fn` (default: the
    same) for integer / i1 / index ones; None where the op is not modelled."""
    return lambda dtype: float_fn if dtype in _FLOATS or int_fn is None else int_fn


# arrays ------------------------------------------------------------------------------------


def _map(fn: Callable, shape: tuple[int, ...], *arrays) -> np.ndarray:
    arrays = [np.broadcast_to(np.asarray(a, dtype=object), shape) for a in arrays]
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = fn(*(a[idx] for a in arrays))
    return out


def _scalar_array(value) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _dense_values(ir, attr, t: ValueType) -> np.ndarray:
    """The elements of a dense elements attribute as numerals of `t.dtype`."""
    dense = ir.DenseElementsAttr(attr)
    shape = t.shape if t.is_tensor else ()
    if dense.is_splat:
        value = numeral(_attr_number(ir, dense.get_splat_value()), t.dtype)
        out = np.empty(shape, dtype=object)
        for idx in np.ndindex(*shape):
            out[idx] = value
        return out
    if t.dtype in _FLOATS:
        raw = np.array(ir.DenseFPElementsAttr(attr))
    elif t.dtype == "i1":
        raise _Unsupported("non-splat i1 constants are not supported")
    else:
        raw = np.array(ir.DenseIntElementsAttr(attr))
    raw = raw.reshape(shape)
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = numeral(raw[idx], t.dtype)
    return out


def _cast(cls, attr):
    """`cls(attr)`, or None when the attribute is of another kind (either binding)."""
    try:
        return cls(attr)
    except (ValueError, TypeError):
        return None


def _attr_number(ir, attr):
    for cls in (ir.BoolAttr, ir.FloatAttr, ir.IntegerAttr):
        a = _cast(cls, attr)
        if a is not None:
            return a.value
    raise _Unsupported(f"constant {attr} is not a number")


def _i64s(ir, attr) -> list[int]:
    if (a := _cast(ir.DenseI64ArrayAttr, attr)) is not None:
        return [int(x) for x in a]
    if (a := _cast(ir.DenseIntElementsAttr, attr)) is not None:
        return [int(x) for x in np.array(a).reshape(-1)]
    if (a := _cast(ir.ArrayAttr, attr)) is not None:
        return [int(ir.IntegerAttr(x).value) for x in a]
    raise _Unsupported(f"expected a list of integers, got {attr}")


def _int_attr(ir, attr) -> int:
    return int(ir.IntegerAttr(attr).value)


def _has(op, name: str) -> bool:
    try:
        op.attributes[name]
        return True
    except KeyError:
        return False


def dot_general(a: np.ndarray, b: np.ndarray, lb, rb, lc, rc, add=_add) -> np.ndarray:
    """StableHLO dot_general on object arrays: result dims are the batch dims, then the
    lhs free dims, then the rhs free dims; products summed left to right."""
    lf = [k for k in range(a.ndim) if k not in lb and k not in lc]
    rf = [k for k in range(b.ndim) if k not in rb and k not in rc]
    out_shape = tuple(a.shape[k] for k in lb) + tuple(a.shape[k] for k in lf) + tuple(b.shape[k] for k in rf)
    contract_shape = tuple(a.shape[k] for k in lc)
    out = np.empty(out_shape, dtype=object)
    for idx in np.ndindex(*out_shape):
        bi, li, ri = idx[:len(lb)], idx[len(lb):len(lb) + len(lf)], idx[len(lb) + len(lf):]
        ai, bj = [0] * a.ndim, [0] * b.ndim
        for k, v in zip(lb, bi):
            ai[k] = v
        for k, v in zip(rb, bi):
            bj[k] = v
        for k, v in zip(lf, li):
            ai[k] = v
        for k, v in zip(rf, ri):
            bj[k] = v
        acc = None
        for c in np.ndindex(*contract_shape):
            for k, v in zip(lc, c):
                ai[k] = v
            for k, v in zip(rc, c):
                bj[k] = v
            x, y = a[tuple(ai)], b[tuple(bj)]
            _finite("dot_general", x, y)
            term = x * y
            acc = term if acc is None else add(acc, term)
        out[idx] = acc  # None for an empty contraction: the caller fills in a typed zero
    return out


# the interpreter -------------------------------------------------------------------------

Handler = Callable[["_Interpreter", object, list], list]
_HANDLERS: dict[str, Handler] = {}


def _handles(*names: str):
    def register(fn: Handler) -> Handler:
        for n in names:
            _HANDLERS[n] = fn
        return fn
    return register


_TERMINATORS = ("func.return", "stablehlo.return", "linalg.yield", "tensor.yield")


class _Interpreter:
    def __init__(self, ir, module, path: str):
        self.ir, self.path = ir, path
        self.functions = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                self.functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
        self.index_stack: list[tuple[int, ...] | None] = []  # linalg.generic points, innermost last
        self.env: ChainMap | None = None  # SSA value -> value, innermost block first

    def where(self, op) -> str:
        m = re.search(r'loc\("[^"]*":(\d+):(\d+)', str(op.location))
        return f"{self.path}:{m.group(1)}:{m.group(2)}" if m else self.path

    def call(self, name: str, args: list) -> list:
        func = self.functions.get(name)
        if func is None or len(func.regions[0].blocks) == 0:
            raise InputError(f"no function @{name} with a body in the raised module", self.path)
        return self.run_block(func.regions[0].blocks[0], args)

    def run_block(self, block, args: list) -> list:
        """Run a block on its argument values; the values its terminator returns. Values
        of enclosing blocks stay visible (a linalg.generic body may use constants
        defined, or hoisted by MLIR's folder, outside it)."""
        outer = self.env
        self.env = env = ChainMap(dict(zip(block.arguments, args)), *([outer] if outer is not None else []))
        try:
            for op in block.operations:
                name = op.operation.name
                operands = [env[v] for v in op.operands]
                if name in _TERMINATORS:
                    return operands
                handler = _HANDLERS.get(name)
                if handler is None:
                    raise InputError(f"the raised-function interpreter does not support '{name}'",
                                     self.where(op))
                try:
                    results = handler(self, op, operands)
                except _Unsupported as e:
                    raise InputError(f"'{name}': {e}", self.where(op)) from None
                env.maps[0].update(zip(op.results, results))
            return []
        finally:
            self.env = outer

    def result_type(self, op, k: int = 0) -> ValueType:
        return value_type(op.results[k].type)

    def fresh_array(self, t: ValueType, what: str) -> np.ndarray:
        out = np.empty(t.shape, dtype=object)
        sort = _sort(t.dtype)
        for idx in np.ndindex(*t.shape):
            out[idx] = z3.FreshConst(sort, prefix=what)
        return out


# --- elementwise (stablehlo, arith / math on scalars or tensors) ---------------------------

_ELEMENTWISE: dict[str, Callable[[str], Callable | None]] = {
    "stablehlo.add": _by_type(_checked("add", _add)),
    "stablehlo.subtract": _by_type(_checked("subtract", operator.sub)),
    "stablehlo.multiply": _by_type(_checked("multiply", operator.mul)),
    "stablehlo.divide": _by_type(_checked("divide", _float_div), _checked("divide", _int_div)),
    "stablehlo.negate": _by_type(_checked("negate", operator.neg)),
    "stablehlo.abs": _by_type(_checked("abs", _abs)),
    "stablehlo.maximum": _by_type(_maximum),
    "stablehlo.minimum": _by_type(_minimum),
    "stablehlo.sqrt": _by_type(_checked("sqrt", z3sem.sqrt)),
    "stablehlo.rsqrt": _by_type(_checked("rsqrt", lambda a: z3sem.div(z3.RealVal(1), z3sem.sqrt(a)))),
    "stablehlo.exponential": _by_type(_checked("exponential", z3sem.exp)),
    "stablehlo.power": _by_type(_checked("power", support.power)),
    "stablehlo.and": _by_type(_bool_op(operator.and_, z3.And)),
    "stablehlo.or": _by_type(_bool_op(operator.or_, z3.Or)),
    "stablehlo.xor": _by_type(_bool_op(operator.xor, z3.Xor)),
    "stablehlo.not": _by_type(_bool_op(operator.not_, z3.Not)),
    "stablehlo.select": _by_type(_select),
    "stablehlo.clamp": _by_type(lambda lo, x, hi: _minimum(_maximum(x, lo), hi)),
    "arith.addf": _by_type(_checked("addf", _add)),
    "arith.subf": _by_type(_checked("subf", operator.sub)),
    "arith.mulf": _by_type(_checked("mulf", operator.mul)),
    "arith.divf": _by_type(_checked("divf", _float_div)),
    "arith.negf": _by_type(_checked("negf", operator.neg)),
    "arith.maximumf": _by_type(_maximum),
    "arith.maxnumf": _by_type(_maximum),
    "arith.minimumf": _by_type(_minimum),
    "arith.minnumf": _by_type(_minimum),
    "arith.select": _by_type(_select),
    "arith.extf": _by_type(lambda a: a),
    "arith.truncf": _by_type(lambda a: a),
    "arith.sitofp": _by_type(_checked("sitofp", _to_float)),
    "arith.addi": _by_type(None, _checked("addi", operator.add)),
    "arith.subi": _by_type(None, _checked("subi", operator.sub)),
    "arith.muli": _by_type(None, _checked("muli", operator.mul)),
    "arith.divsi": _by_type(None, _checked("divsi", _int_div)),
    "arith.maxsi": _by_type(None, _maximum),
    "arith.minsi": _by_type(None, _minimum),
    "arith.andi": _by_type(None, _bool_op(operator.and_, z3.And)),
    "arith.ori": _by_type(None, _bool_op(operator.or_, z3.Or)),
    "arith.index_cast": _by_type(None, lambda a: a),
    "arith.extsi": _by_type(None, lambda a: a),
    "math.sqrt": _by_type(_checked("sqrt", z3sem.sqrt)),
    "math.rsqrt": _by_type(_checked("rsqrt", lambda a: z3sem.div(z3.RealVal(1), z3sem.sqrt(a)))),
    "math.exp": _by_type(_checked("exp", z3sem.exp)),
    "math.absf": _by_type(_checked("absf", _abs)),
    "math.powf": _by_type(_checked("powf", support.power)),
}


def _apply_elementwise(fn: Callable, t: ValueType, operands: list):
    if not t.is_tensor:
        return fn(*operands)
    return _map(fn, t.shape, *operands)


@_handles(*_ELEMENTWISE)
def _elementwise(it: _Interpreter, op, xs: list) -> list:
    t = it.result_type(op)
    fn = _ELEMENTWISE[op.operation.name](t.dtype)
    if fn is None:
        raise _Unsupported(f"not modelled for element type {t.dtype}")
    return [_apply_elementwise(fn, t, xs)]


@_handles("stablehlo.convert")
def _convert(it, op, xs):
    t = it.result_type(op)
    src = value_type(op.operands[0].type).dtype
    if t.dtype in _FLOATS:
        fn = _to_float if src not in _FLOATS else (lambda a: a)
    elif src in _FLOATS:
        raise _Unsupported("float to integer conversion is not modelled")
    elif t.dtype == "i1":
        fn = lambda a: a != 0 if not z3.is_bool(a) else a  # noqa: E731
    else:
        fn = lambda a: z3.If(a, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(a) else a  # noqa: E731
    return [_apply_elementwise(fn, t, xs)]


_DIRECTION = re.compile(r"comparison_direction\s+(\w+)")


@_handles("stablehlo.compare")
def _sh_compare(it, op, xs):
    direction = _DIRECTION.search(str(op.attributes["comparison_direction"])).group(1)
    if _has(op, "compare_type") and "UNSIGNED" in str(op.attributes["compare_type"]):
        raise _Unsupported("unsigned comparison is not modelled")
    t = it.result_type(op)
    return [_map(lambda a, b: _compare(direction, a, b), t.shape, *xs)]


# arith.cmpf / cmpi predicates in enum order (reals have no NaN: ordered == unordered)
_CMPF = [False, "EQ", "GT", "GE", "LT", "LE", "NE", True, "EQ", "GT", "GE", "LT", "LE", "NE", False, True]
_CMPI = ["EQ", "NE", "LT", "LE", "GT", "GE"]


@_handles("arith.cmpf", "arith.cmpi")
def _arith_compare(it, op, xs):
    pred = _int_attr(it.ir, op.attributes["predicate"])
    t = it.result_type(op)
    if op.operation.name == "arith.cmpf":
        d = _CMPF[pred]
        if isinstance(d, bool):
            return [_apply_elementwise(lambda a, b: z3.BoolVal(d), t, xs)]
    else:
        if pred >= 6:
            width = 64
            kind = ("lt", "le", "gt", "ge")[pred - 6]
            return [_apply_elementwise(lambda a, b: support.unsigned_compare(kind, a, b, width), t, xs)]
        d = _CMPI[pred]
    return [_apply_elementwise(lambda a, b: _compare(d, a, b), t, xs)]


# --- constants and shapes ---------------------------------------------------------------------


@_handles("stablehlo.constant", "arith.constant")
def _constant(it, op, xs):
    t = it.result_type(op)
    attr = op.attributes["value"]
    if t.is_tensor:
        return [_dense_values(it.ir, attr, t)]
    value = _attr_number(it.ir, attr)
    if t.dtype == "index":
        return [int(value)]
    if t.dtype == "i1":
        return [bool(value)]
    return [numeral(value, t.dtype)]


@_handles("stablehlo.iota")
def _iota(it, op, xs):
    t = it.result_type(op)
    dim = _int_attr(it.ir, op.attributes["iota_dimension"])
    out = np.empty(t.shape, dtype=object)
    for idx in np.ndindex(*t.shape):
        out[idx] = numeral(idx[dim], t.dtype)
    return [out]


@_handles("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(it, op, xs):
    t = it.result_type(op)
    dims = tuple(_i64s(it.ir, op.attributes["broadcast_dimensions"]))
    return [broadcast(xs[0], t.shape, dims)]


@_handles("stablehlo.broadcast")
def _sh_broadcast(it, op, xs):
    t = it.result_type(op)
    a = np.asarray(xs[0], dtype=object)
    return [np.array(np.broadcast_to(a, t.shape), dtype=object)]


@_handles("stablehlo.transpose")
def _transpose(it, op, xs):
    perm = _i64s(it.ir, op.attributes["permutation"])
    return [np.ascontiguousarray(np.transpose(xs[0], perm))]


@_handles("stablehlo.reshape", "tensor.collapse_shape", "tensor.expand_shape", "tensor.reshape")
def _reshape(it, op, xs):
    t = it.result_type(op)
    return [np.array(np.reshape(xs[0], t.shape), dtype=object)]


@_handles("stablehlo.reverse")
def _reverse(it, op, xs):
    dims = _i64s(it.ir, op.attributes["dimensions"])
    return [np.ascontiguousarray(np.flip(xs[0], axis=tuple(dims)))]


@_handles("stablehlo.slice")
def _slice(it, op, xs):
    start = _i64s(it.ir, op.attributes["start_indices"])
    limit = _i64s(it.ir, op.attributes["limit_indices"])
    strides = _i64s(it.ir, op.attributes["strides"]) if _has(op, "strides") else [1] * len(start)
    index = tuple(slice(s, e, k) for s, e, k in zip(start, limit, strides))
    return [np.array(xs[0][index], dtype=object)]


@_handles("stablehlo.concatenate")
def _concatenate(it, op, xs):
    dim = _int_attr(it.ir, op.attributes["dimension"])
    return [np.concatenate([np.asarray(x, dtype=object) for x in xs], axis=dim)]


@_handles("stablehlo.pad")
def _pad(it, op, xs):
    a, value = xs[0], xs[1][()]
    low = _i64s(it.ir, op.attributes["edge_padding_low"])
    interior = _i64s(it.ir, op.attributes["interior_padding"])
    t = it.result_type(op)
    out = np.empty(t.shape, dtype=object)
    for idx in np.ndindex(*t.shape):
        src = []
        for d, i in enumerate(idx):
            pos = i - low[d]
            step = interior[d] + 1
            if pos < 0 or pos % step or pos // step >= a.shape[d]:
                src = None
                break
            src.append(pos // step)
        out[idx] = value if src is None else a[tuple(src)]
    return [out]


# --- contractions and reductions ---------------------------------------------------------------

_DOT_FIELD = re.compile(r"(lhs|rhs)_(batching|contracting)_dimensions\s*=\s*\[([\d,\s]*)\]")


@_handles("stablehlo.dot_general")
def _dot_general(it, op, xs):
    dims = {("lhs", "batching"): [], ("rhs", "batching"): [],
            ("lhs", "contracting"): [], ("rhs", "contracting"): []}
    for side, kind, values in _DOT_FIELD.findall(str(op.attributes["dot_dimension_numbers"])):
        dims[(side, kind)] = [int(v) for v in values.replace(" ", "").split(",") if v]
    out = dot_general(np.asarray(xs[0], dtype=object), np.asarray(xs[1], dtype=object),
                      dims[("lhs", "batching")], dims[("rhs", "batching")],
                      dims[("lhs", "contracting")], dims[("rhs", "contracting")])
    return [_zero_fill(out, it.result_type(op))]


@_handles("stablehlo.dot")
def _dot(it, op, xs):
    a, b = (np.asarray(x, dtype=object) for x in xs)
    out = dot_general(a, b, [], [], [a.ndim - 1], [0])
    return [_zero_fill(out, it.result_type(op))]


def _zero_fill(out: np.ndarray, t: ValueType) -> np.ndarray:
    """Empty contractions give zeros of the result's element type."""
    for idx in np.ndindex(*out.shape):
        if out[idx] is None:
            out[idx] = numeral(0, t.dtype)
    return np.asarray(out, dtype=object).reshape(t.shape)


@_handles("stablehlo.reduce")
def _reduce(it, op, xs):
    n = len(xs) // 2
    inputs, inits = xs[:n], [x[()] for x in xs[n:]]
    dims = sorted(_i64s(it.ir, op.attributes["dimensions"]))
    body = op.regions[0].blocks[0]
    a0 = np.asarray(inputs[0], dtype=object)
    kept = [d for d in range(a0.ndim) if d not in dims]
    out_shape = tuple(a0.shape[d] for d in kept)
    outs = [np.empty(out_shape, dtype=object) for _ in range(n)]
    moved = [np.asarray(x, dtype=object).transpose(kept + dims).reshape(out_shape + (-1,)) for x in inputs]
    for idx in np.ndindex(*out_shape):
        acc = list(inits)
        for k in range(moved[0].shape[-1]):
            args = [_scalar_array(v) for v in acc] + [_scalar_array(m[idx + (k,)]) for m in moved]
            acc = [r[()] for r in it.run_block(body, args)]
        for o, v in zip(outs, acc):
            o[idx] = v
    return outs


# --- functions ---------------------------------------------------------------------------------


@_handles("func.call")
def _call(it, op, xs):
    callee = str(op.attributes["callee"]).lstrip("@")
    return it.call(callee, xs)


# --- linalg (named ops are generalized first) and tensor ----------------------------------------


@_handles("tensor.empty")
def _empty(it, op, xs):
    return [it.fresh_array(it.result_type(op), "empty")]


def _affine_value(ir, expr, dims: tuple[int, ...], symbols=()) -> int:
    if isinstance(expr, ir.AffineConstantExpr):
        return expr.value
    if isinstance(expr, ir.AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, ir.AffineSymbolExpr):
        return symbols[expr.position]
    lhs, rhs = _affine_value(ir, expr.lhs, dims, symbols), _affine_value(ir, expr.rhs, dims, symbols)
    if isinstance(expr, ir.AffineAddExpr):
        return lhs + rhs
    if isinstance(expr, ir.AffineMulExpr):
        return lhs * rhs
    if isinstance(expr, ir.AffineModExpr):
        return lhs % rhs
    if isinstance(expr, ir.AffineFloorDivExpr):
        return lhs // rhs
    if isinstance(expr, ir.AffineCeilDivExpr):
        return -(-lhs // rhs)
    raise _Unsupported(f"affine expression {expr}")


@_handles("linalg.generic")
def _generic(it, op, xs):
    ir = it.ir
    view = op.opview
    n_in = len(view.inputs)
    ins, outs = xs[:n_in], [np.array(o, dtype=object) for o in xs[n_in:]]
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    n_dims = maps[0].n_dims
    shapes = [value_type(v.type).shape for v in op.operands]
    domain: list[int | None] = [None] * n_dims
    for amap, shape in zip(maps, shapes):
        if shape is None:
            continue
        for r, expr in enumerate(amap.results):
            if isinstance(expr, ir.AffineDimExpr) and domain[expr.position] is None:
                domain[expr.position] = shape[r]
    if any(d is None for d in domain):
        raise _Unsupported("a loop dimension that no operand indexes directly")
    body = op.regions[0].blocks[0]
    it.index_stack.append(None)
    try:
        for point in np.ndindex(*domain):
            it.index_stack[-1] = point
            args = []
            for amap, x, shape in zip(maps, ins + outs, shapes):
                if shape is None:
                    args.append(x)
                else:
                    args.append(x[tuple(_affine_value(ir, e, point) for e in amap.results)])
            values = it.run_block(body, args)
            for o, amap, v in zip(outs, maps[n_in:], values):
                o[tuple(_affine_value(ir, e, point) for e in amap.results)] = v
    finally:
        it.index_stack.pop()
    return outs


@_handles("linalg.index")
def _index(it, op, xs):
    if not it.index_stack or it.index_stack[-1] is None:
        raise _Unsupported("linalg.index outside a linalg.generic")
    return [int(it.index_stack[-1][_int_attr(it.ir, op.attributes["dim"])])]


def _static(ir, op, name: str) -> list[int]:
    values = _i64s(ir, op.attributes[name])
    if any(v < -(2 ** 62) for v in values):
        raise _Unsupported("dynamic offsets / sizes / strides are not supported")
    return values


@_handles("tensor.extract_slice")
def _extract_slice(it, op, xs):
    off = _static(it.ir, op, "static_offsets")
    size = _static(it.ir, op, "static_sizes")
    stride = _static(it.ir, op, "static_strides")
    t = it.result_type(op)
    index = tuple(slice(o, o + s * k, k) for o, s, k in zip(off, size, stride))
    return [np.array(xs[0][index], dtype=object).reshape(t.shape)]


@_handles("tensor.insert_slice")
def _insert_slice(it, op, xs):
    off = _static(it.ir, op, "static_offsets")
    size = _static(it.ir, op, "static_sizes")
    stride = _static(it.ir, op, "static_strides")
    dest = np.array(xs[1], dtype=object)
    index = tuple(slice(o, o + s * k, k) for o, s, k in zip(off, size, stride))
    dest[index] = np.asarray(xs[0], dtype=object).reshape(dest[index].shape)
    return [dest]


@_handles("tensor.extract")
def _extract(it, op, xs):
    if any(not isinstance(i, int) for i in xs[1:]):
        raise _Unsupported("indices must be concrete")
    return [xs[0][tuple(xs[1:])]]


@_handles("tensor.from_elements")
def _from_elements(it, op, xs):
    t = it.result_type(op)
    out = np.empty(t.shape, dtype=object)
    for idx, v in zip(np.ndindex(*t.shape), xs):
        out[idx] = v
    return [out]


# the raised function ---------------------------------------------------------------------------


def _stablehlo_context():
    from synth.codegen.emit import _stablehlo_context as context

    return context()


def _upstream_context():
    from mlir import ir

    return ir, ir.Context()


_GENERALIZE = "builtin.module(func.func(linalg-generalize-named-ops))"


@dataclass(frozen=True)
class Signature:
    arguments: list[ValueType]
    results: list[ValueType]
    outputs: list[int] | None  # synth.outputs, None when the attribute is missing


@dataclass(frozen=True)
class RaisedFunction:
    """`@name` of a raised module: the text keeps it and its callees only (others blanked)."""

    path: str
    text: str
    name: str
    dialect: str  # "stablehlo" or "linalg"

    def context(self):
        return _stablehlo_context() if self.dialect == "stablehlo" else _upstream_context()

    def _parse(self, ir):
        try:
            module = ir.Module.parse(self.text)
            module.operation.verify()
        except ir.MLIRError as e:
            diags = e.error_diagnostics
            if not diags:
                raise InputError(f"cannot parse the raised module: {e}", self.path) from None
            first = diags[0]
            m = re.search(r'loc\("[^"]*":(\d+):(\d+)', str(first.location))
            where = f"{self.path}:{m.group(1)}:{m.group(2)}" if m else self.path
            raise InputError(first.message, where) from None
        return module

    def _func(self, ir, module):
        for op in module.body.operations:
            if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == self.name:
                if len(op.regions[0].blocks) == 0:
                    raise InputError(f"@{self.name} is a declaration without a body", self.path)
                return op
        raise InputError(f"no function @{self.name} in the raised module", self.path)

    def _inside(self, work: Callable, generalize: bool = False):
        """`work(ir, module, func)` on the parsed module, inside its context. Every MLIR
        object is dropped before the context is (jaxlib crashes on objects that outlive
        their context), so `work` must return plain Python data."""
        ir, ctx = self.context()
        with ctx:
            module = self._parse(ir)
            try:
                if generalize:
                    from mlir import passmanager

                    passmanager.PassManager.parse(_GENERALIZE).run(module.operation)
                return work(ir, module, self._func(ir, module))
            finally:
                del module

    def signature(self) -> Signature:
        def work(ir, module, func) -> Signature:
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            try:
                args = [value_type(t) for t in ftype.inputs]
                results = [value_type(t) for t in ftype.results]
            except _Unsupported as e:
                raise InputError(f"@{self.name}: {e}", self.path) from None
            outputs = None
            if _has(func, "synth.outputs"):
                attr = _cast(ir.ArrayAttr, func.attributes["synth.outputs"])
                if attr is None or any(_cast(ir.IntegerAttr, a) is None for a in attr):
                    raise InputError(f"@{self.name}: synth.outputs must be a list of integers",
                                     self.path)
                outputs = [_int_attr(ir, a) for a in attr]
            return Signature(args, results, outputs)
        return self._inside(work)

    def resized(self, value_map: dict[int, int]) -> RaisedFunction:
        """The function re-instantiated at other sizes (see the module docstring)."""
        if not value_map or all(k == v for k, v in value_map.items()):
            return self
        return replace(self, text=resize_text(self.text, value_map))

    def evaluate(self, args: list) -> list[np.ndarray]:
        """Interpret the function on `args` (object arrays of z3 terms, 0-d for rank 0);
        one object array per result."""
        def work(ir, module, func) -> list:
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            try:
                arg_types = [value_type(t) for t in ftype.inputs]
            except _Unsupported as e:
                raise InputError(f"@{self.name}: {e}", self.path) from None
            if len(args) != len(arg_types):
                raise InputError(f"@{self.name} takes {len(arg_types)} arguments, got {len(args)}",
                                 self.path)
            values = []
            for k, (a, t) in enumerate(zip(args, arg_types)):
                if t.is_tensor:
                    a = np.asarray(a, dtype=object)
                elif isinstance(a, np.ndarray) and a.shape == ():
                    a = a[()]  # a scalar argument given as a rank-0 value
                if t.is_tensor and a.shape != t.shape:
                    raise InputError(f"argument #{k} of @{self.name} has shape {list(a.shape)}, "
                                     f"the function expects {t.mlir()}", self.path)
                values.append(a)
            results = _Interpreter(ir, module, self.path).call(self.name, values)
            return results, [value_type(t) for t in ftype.results]

        results, types = self._inside(work, generalize=self.dialect == "linalg")
        out = []
        for k, (r, t) in enumerate(zip(results, types)):
            r = np.array(r, dtype=object) if isinstance(r, np.ndarray) else _scalar_array(r)
            for idx in np.ndindex(*r.shape):
                v = r[idx]
                if not isinstance(v, z3.ExprRef) and not _is_inf(v):
                    v = r[idx] = numeral(v, t.dtype)  # Python ints / bools of index math
                if _is_inf(v):
                    raise InputError(f"result #{k} of @{self.name} holds an infinite value "
                                     f"(at {list(idx)}), which the real-number model cannot compare",
                                     self.path)
            out.append(r)
        return out


def detect_dialect(text: str) -> str:
    """"stablehlo" when a stablehlo op occurs outside comments, else "linalg"."""
    code = re.sub(r"//[^\n]*", "", text)
    return "stablehlo" if re.search(r"\bstablehlo\.\w", code) else "linalg"


def load_raised(path: str | Path, name: str, text: str | None = None) -> RaisedFunction:
    """`@name` from the raised module at `path` (or from `text`), other functions blanked."""
    path = str(path)
    if text is None:
        text = read_text(path)
    try:
        kept = keep_functions(text, name)
    except ValueError as e:
        raise InputError(f"cannot read the raised module: {e}", path) from None
    if kept is None:
        found = ", ".join("@" + n for n, _, _ in top_level_functions(text)) or "none"
        raise InputError(f"no function @{name} in the raised module (functions: {found})", path)
    return RaisedFunction(path, kept, name, detect_dialect(kept))
