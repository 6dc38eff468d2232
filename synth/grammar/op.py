"""The grammar op: everything about one operation in one place.

An `Op` bundles, for one grammar operation:
  signature      name, MLIR op name, dialect, arity, weight, commutativity (the last two,
                 with the attribute-domain kind, come from grammars/<dialect>.json)
  attribute_domain(arg_types, ctx)  every valid attribute choice for these operand types
  result_type(arg_types, attrs)     the shape rule (raises ShapeError)
  apply(sem, args, attrs)           the reference semantics, written against the NumPy
                                    namespace `NUMPY` (`evaluate` is apply with it)
  emit(em, operands, arg_types, attrs, result_type)   the MLIR text (shape-generic too,
                 where `shape_generic`: dims known only at run time, synth.grammar.dims)
  cost(arg_types, attrs, result_type)   estimated work, to choose among equivalent programs

The proofs do not use `apply`: they interpret the op's emitted MLIR (synth.semantics.
interpreter), and the conformance test checks that both agree with the compiled op. Attributes are hashable
`Attrs`: a tuple of (key, value) pairs sorted by key (`attrs(dim=1)`, `attr_dict(a)`).

MLIR text is produced by an `Emitter` (fresh SSA names, memoized scalar constants,
`tensor.empty` / `linalg.fill` helpers) and wrapped into a function by `emit_function`:

    text = emit_function("main", [TensorType((3, 4), "f64")],
                         lambda em, args: [em.apply(op, args, arg_types, attrs)])

which gives `func.func @main(%a0: tensor<3x4xf64>) -> (tensor<...>) { ... return ... }`.
`emit_op_function(op, arg_types, attrs)` is the one-op case (used by the verifier).
A bare `func.func` at top level parses as a module in both MLIR contexts.

The grammar of a dialect is an explicit value: `ops_for("stablehlo")`.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from synth.grammar.types import SearchContext, ShapeError, TensorType
from synth.grammar.unary_math import UNARY_MATH, numpy_function

Attrs = tuple[tuple[str, object], ...]

DIALECTS = ("stablehlo", "linalg")


def attrs(**values) -> Attrs:
    """Attrs from keyword arguments (lists become tuples)."""
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in values.items()))


def attr_dict(a: Attrs) -> dict[str, Any]:
    return dict(a)


# ---------------------------------------------------------------------------------------
# grammar specs (grammars/<dialect>.json, written by scripts/derive_grammars.py)


class GrammarError(Exception):
    """The Python grammar and its JSON spec disagree, or the JSON is missing."""


@dataclass(frozen=True)
class OpSpec:
    """One op's entry in grammars/<dialect>.json."""

    name: str
    mlir_name: str
    dialect: str
    arity: int
    weight: int
    commutative: bool
    attr_domain: str  # kind of attribute domain, e.g. "none", "permutation", "reduce_dim"
    entry: dict = field(compare=False, hash=False, repr=False)  # the whole JSON entry


def grammar_path(dialect: str) -> Path:
    """grammars/<dialect>.json at the repository root (next to the `synth` package), or,
    in an installed wheel, the same file shipped as synth/grammars/<dialect>.json."""
    repo = Path(__file__).resolve().parents[2] / "grammars" / f"{dialect}.json"
    if repo.exists():
        return repo
    packaged = Path(__file__).resolve().parents[1] / "grammars" / f"{dialect}.json"
    if packaged.exists():
        return packaged
    raise GrammarError(f"no grammar file for dialect {dialect!r} (looked at {repo} and {packaged}); "
                       "run scripts/derive_grammars.py")


@lru_cache(maxsize=None)
def load_specs(dialect: str) -> dict[str, OpSpec]:
    data = json.loads(grammar_path(dialect).read_text())
    if data.get("dialect") != dialect:
        raise GrammarError(f"{grammar_path(dialect)} is not the {dialect} grammar")
    out = {}
    for e in data["ops"]:
        out[e["name"]] = OpSpec(e["name"], e["mlir_name"], dialect, e["arity"], e["weight"],
                                e["commutative"], e["attr_domain"], e)
    return out


def spec(dialect: str, name: str) -> OpSpec:
    specs = load_specs(dialect)
    if name not in specs:
        raise GrammarError(f"op {name!r} is not in {grammar_path(dialect)}; "
                           "add it to scripts/derive_grammars.py and rerun it")
    return specs[name]


# ---------------------------------------------------------------------------------------
# MLIR text


def format_scalar(value, dtype: str) -> str:
    """An MLIR literal for a scalar of element type `dtype` (infinities in hex)."""
    if dtype == "i1":
        return "true" if value else "false"
    if dtype in ("i32", "i64", "index", "i16", "i8"):
        if not isinstance(value, (int, np.integer)) and not float(value).is_integer():
            raise ValueError(f"{value} is not an integer")
        return str(int(value))
    v = float(value)
    if not math.isfinite(v):
        if dtype == "f64":
            return "0x" + struct.pack(">d", v).hex().upper()
        return "0x" + struct.pack(">f", v).hex().upper()
    r = repr(v)
    if "e" in r and "." not in r.split("e")[0]:
        r = r.replace("e", ".0e")  # MLIR float literals need a '.'
    return r


class Emitter:
    """Collects the lines of one function body and hands out fresh SSA names.

    A shape-generic body (`sizes`: a synth.grammar.dims.GenericSizes) computes the sizes it
    needs as SSA values (`size`, `shape_value`), in `prologue`: lines that go before the
    body's, at the function's top level."""

    def __init__(self, indent: str = "  ", sizes=None):
        self.lines: list[str] = []
        self.prologue: list[str] = []
        self.indent = indent
        self.base_indent = indent
        self.sizes = sizes
        self._count = 0
        self._scalars: dict[tuple[str, str], str] = {}

    @property
    def depth(self) -> int:
        """The nesting level of the lines emitted now (two spaces a level)."""
        return len(self.indent) // 2

    @depth.setter
    def depth(self, levels: int) -> None:
        self.indent = "  " * levels

    def fresh(self, hint: str = "v") -> str:
        name = f"%{hint}{self._count}"
        self._count += 1
        return name

    def line(self, text: str) -> None:
        for ln in text.splitlines():
            self.lines.append(self.indent + ln)

    def scalar_constant(self, value, dtype: str) -> str:
        """`arith.constant` of a scalar, one per (value, dtype) per function."""
        lit = format_scalar(value, dtype)
        key = (lit, dtype)
        if key not in self._scalars:
            name = self.fresh("c")
            self.line(f"{name} = arith.constant {lit} : {dtype}")
            self._scalars[key] = name
        return self._scalars[key]

    @property
    def generic(self) -> bool:
        """Whether sizes known only at run time may appear (a shape-generic body)."""
        return self.sizes is not None

    def size(self, dim) -> str:
        """The SSA value of a dimension (`index` in linalg, `tensor<i64>` in stablehlo);
        only in a shape-generic body."""
        from synth.grammar.dims import GenericUnsupported

        if self.sizes is None:
            raise GenericUnsupported(f"size {dim!r} asked for as a value outside a generic body")
        return self.sizes.value(self, dim)

    def shape_value(self, dims) -> str:
        """stablehlo: the `tensor<Rxi64>` of the dimensions `dims` (a generic body)."""
        from synth.grammar.dims import GenericUnsupported

        if self.sizes is None:
            raise GenericUnsupported("a shape asked for as a value outside a generic body")
        return self.sizes.shape(self, dims)

    def empty(self, t: TensorType) -> str:
        """`tensor.empty` of `t`, its dynamic dims (a generic body) given as values."""
        from synth.grammar.dims import is_dynamic

        dynamic = [self.size(d) for d in t.shape if is_dynamic(d)]
        name = self.fresh("e")
        self.line(f"{name} = tensor.empty({', '.join(dynamic)}) : {t.mlir()}")
        return name

    def filled(self, t: TensorType, value) -> str:
        """`tensor.empty` + `linalg.fill` with a constant (the outs of an accumulating op)."""
        c = self.scalar_constant(value, t.dtype)
        e = self.empty(t)
        name = self.fresh("f")
        self.line(f"{name} = linalg.fill ins({c} : {t.dtype}) outs({e} : {t.mlir()}) -> {t.mlir()}")
        return name

    def apply(self, op: Op, operands: Sequence[str], arg_types: Sequence[TensorType],
              attrs: Attrs) -> tuple[str, TensorType]:
        """Emit `op` on `operands`; returns (SSA name, result type)."""
        arg_types = tuple(arg_types)
        rt = op.result_type(arg_types, attrs)
        if self.generic and not op.shape_generic:
            from synth.grammar.dims import GenericUnsupported, has_dynamic

            if any(has_dynamic(t) for t in (*arg_types, rt)):
                raise GenericUnsupported(f"{op.name} has no shape-generic emitter yet")
        return op.emit(self, list(operands), arg_types, attrs, rt), rt


def emit_function(name: str, arg_types: Sequence[TensorType],
                  build: Callable[[Emitter, list[str]], Sequence[tuple[str, TensorType]]],
                  sizes=None) -> str:
    """`func.func @name(%a0: T0, ...) -> (R0, ...)` whose body `build(em, ["%a0", ...])`
    emits; `build` returns the (SSA name, type) of each result. `sizes` (a
    synth.grammar.dims.GenericSizes, whose arguments this sets) for a shape-generic body."""
    em = Emitter(indent="  ", sizes=sizes)
    args = [f"%a{i}" for i in range(len(arg_types))]
    if sizes is not None:
        sizes.args = {i: (a, t) for i, (a, t) in enumerate(zip(args, arg_types))}
    results = list(build(em, args))
    params = ", ".join(f"{a}: {t.mlir()}" for a, t in zip(args, arg_types))
    rtypes = ", ".join(t.mlir() for _, t in results)
    ret = f"  return {', '.join(v for v, _ in results)} : {rtypes}" if results else "  return"
    return "\n".join([f"func.func @{name}({params}) -> ({rtypes}) {{", *em.prologue, *em.lines, ret,
                      "}"]) + "\n"


def emit_op_function(op: Op, arg_types: Sequence[TensorType], attrs: Attrs, name: str = "main",
                     result_type: TensorType | None = None) -> str:
    """A function applying one op to its arguments. `result_type` overrides the shape
    rule (to check that MLIR rejects a wrong one)."""
    arg_types = tuple(arg_types)

    def build(em: Emitter, args: list[str]):
        rt = result_type if result_type is not None else op.result_type(arg_types, attrs)
        return [(op.emit(em, args, arg_types, attrs, rt), rt)]

    return emit_function(name, arg_types, build)


# ---------------------------------------------------------------------------------------
# NumPy semantics namespace


class _NumpySem:
    """Reference semantics on NumPy arrays. Ops call these through `sem.`."""

    name = "numpy"
    add = staticmethod(np.add)
    sub = staticmethod(np.subtract)
    mul = staticmethod(np.multiply)
    neg = staticmethod(np.negative)
    abs = staticmethod(np.abs)
    maximum = staticmethod(np.maximum)
    minimum = staticmethod(np.minimum)
    sqrt = staticmethod(np.sqrt)
    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    power = staticmethod(np.power)  # math.powf (deriche's 2 ** -alpha)
    tensordot = staticmethod(np.tensordot)

    @staticmethod
    def div(a, b):
        """Float division; integers divide rounding toward zero, x/0 = -1 as XLA defines it
        (arith.divsi leaves it undefined: the search never keeps a program that divides an
        integer by zero on its examples)."""
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype.kind in "iu" and b.dtype.kind in "iu":
            safe = np.where(b == 0, 1, b)
            q = np.abs(a) // np.abs(safe)
            return np.where(b == 0, -1, np.where((a < 0) != (safe < 0), -q, q)).astype(a.dtype)
        return np.divide(a, b)

    @staticmethod
    def rem(a, b):
        """Integer remainder with the dividend's sign (C's %, arith.remsi, stablehlo's
        remainder); x % 0 = x as XLA defines it (the search keeps no program dividing by
        zero on its examples)."""
        a, b = np.asarray(a), np.asarray(b)
        safe = np.where(b == 0, 1, b)
        return np.where(b == 0, a, np.fmod(a, safe)).astype(a.dtype)

    bit_and = staticmethod(np.bitwise_and)
    bit_or = staticmethod(np.bitwise_or)
    bit_xor = staticmethod(np.bitwise_xor)

    @staticmethod
    def shift_left(a, k):
        """a << k; 0 where k is outside [0, width) (as XLA; arith makes it poison)."""
        a, k = np.asarray(a), np.asarray(k)
        bits = 8 * a.dtype.itemsize
        inside = (k >= 0) & (k < bits)
        return np.where(inside, np.left_shift(a, np.where(inside, k, 0)), 0).astype(a.dtype)

    @staticmethod
    def shift_right_arithmetic(a, k):
        """a >> k with the sign bit copied; the sign where k is outside [0, width) (as XLA)."""
        a, k = np.asarray(a), np.asarray(k)
        bits = 8 * a.dtype.itemsize
        inside = (k >= 0) & (k < bits)
        return np.where(inside, np.right_shift(a, np.where(inside, k, 0)), np.where(a < 0, -1, 0)).astype(a.dtype)

    @staticmethod
    def shift_right_logical(a, k):
        """a >> k with zeros shifted in; 0 where k is outside [0, width) (as XLA)."""
        a, k = np.asarray(a), np.asarray(k)
        bits = 8 * a.dtype.itemsize
        inside = (k >= 0) & (k < bits)
        u = a.astype(np.dtype(f"u{a.dtype.itemsize}"))
        return np.where(inside, np.right_shift(u, np.where(inside, k, 0).astype(u.dtype)), 0).astype(a.dtype)

    @staticmethod
    def convert(kind: str, a, dtype: str):
        """A conversion (synth.grammar.families.ConvertFamily): C's casts, integers
        wrapping, floats rounded to nearest (NumPy's casts are IEEE's), float to integer
        truncated toward zero where the result fits, elsewhere what x86-64 gives: the
        minimum of i32 / i64 (char and short go through i32, then keep the low bits)."""
        a = np.asarray(a)
        out = TensorType((), dtype).numpy_dtype
        if kind in ("extui", "uitofp"):
            a = a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.ndim else a.astype(f"u{a.dtype.itemsize}")
        if kind in ("fptosi", "fptoui"):
            low = -2.0 ** (63 if np.dtype(out).itemsize == 8 else 31)
            t = np.trunc(a)
            fits = (t >= low) & (t < -low)  # false on NaN
            wide = np.where(fits, np.where(fits, t, 0).astype(np.int64), np.int64(low))
            return wide.astype(out)
        return a.astype(out)

    @staticmethod
    def compare(direction: str, a, b):
        return _NP_COMPARE[direction](a, b)

    @staticmethod
    def select(p, a, b):
        return np.where(p, a, b)

    @staticmethod
    def reduce(kind: str, a, axis: int):
        a = np.asarray(a)
        fn = {"add": np.sum, "max": np.max, "min": np.min}[kind]
        return np.asarray(fn(a, axis=axis), dtype=a.dtype)

    @staticmethod
    def full(shape, value, dtype: str):
        return np.full(shape, value, dtype=TensorType((), dtype).numpy_dtype)

    @staticmethod
    def iota(shape, dim: int, dtype: str):
        idx = np.arange(shape[dim]).reshape([-1 if i == dim else 1 for i in range(len(shape))])
        return np.broadcast_to(idx, shape).astype(TensorType((), dtype).numpy_dtype)


_NP_COMPARE = {
    "GT": np.greater, "GE": np.greater_equal, "LT": np.less,
    "LE": np.less_equal, "EQ": np.equal, "NE": np.not_equal,
}

for _f in UNARY_MATH:  # sin, cos, tan, tanh, erf, floor, ceil (synth.grammar.unary_math)
    setattr(_NumpySem, _f.name, staticmethod(numpy_function(_f.name)))

NUMPY = _NumpySem()


# ---------------------------------------------------------------------------------------
# the op


class Op:
    """Base of all grammar ops. Subclasses set `dialect`, `arity`, `attr_domain_kind` and
    implement attribute_domain, result_type, apply and emit; `weight`, `commutative` and
    the MLIR op name come from the op's JSON spec."""

    dialect: str = ""
    arity: int = 0
    attr_domain_kind: str = "none"
    # whether `emit` handles dynamic dims (synth.grammar.dims): sizes known only at run
    # time, as `?` in types and SSA values where the op needs them
    shape_generic: bool = True

    def __init__(self, name: str):
        s = spec(self.dialect, name)
        if s.arity != self.arity:
            raise GrammarError(f"{name}: Python arity {self.arity} != JSON arity {s.arity}")
        if s.attr_domain != self.attr_domain_kind:
            raise GrammarError(f"{name}: Python attribute domain {self.attr_domain_kind!r} != "
                               f"JSON {s.attr_domain!r}")
        self.spec = s
        self.name: str = s.name
        self.mlir_name: str = s.mlir_name
        self.weight: int = s.weight
        self.commutative: bool = s.commutative

    # identity: by (dialect, name); pickles as a lookup, so ops travel between processes
    def __eq__(self, other):
        return isinstance(other, Op) and (self.dialect, self.name) == (other.dialect, other.name)

    def __hash__(self):
        return hash((self.dialect, self.name))

    def __reduce__(self):
        return (op_by_name, (self.dialect, self.name))

    def __repr__(self):
        return f"<Op {self.name}>"

    # the pieces every op defines -------------------------------------------------------
    def attribute_domain(self, arg_types: tuple[TensorType, ...], ctx: SearchContext) -> Iterable[Attrs]:
        raise NotImplementedError(f"{self.name}: attribute_domain")

    def result_type(self, arg_types: tuple[TensorType, ...], attrs: Attrs) -> TensorType:
        raise NotImplementedError(f"{self.name}: result_type")

    def apply(self, sem, args: list[np.ndarray], attrs: Attrs):
        raise NotImplementedError(f"{self.name}: apply")

    def emit(self, em: Emitter, operands: list[str], arg_types: tuple[TensorType, ...],
             attrs: Attrs, result_type: TensorType) -> str:
        raise NotImplementedError(f"{self.name}: emit")

    # derived -----------------------------------------------------------------------------
    def evaluate(self, args: list[np.ndarray], attrs: Attrs) -> np.ndarray:
        """NumPy reference semantics (0-d arrays for rank 0). Floating-point warnings
        (sqrt of a negative, overflow, x/0) are silenced: the values are IEEE's, as in MLIR."""
        with np.errstate(all="ignore"):
            return np.asarray(self.apply(NUMPY, [np.asarray(a) for a in args], attrs))

    def cost(self, arg_types: tuple[TensorType, ...], attrs: Attrs, result_type: TensorType) -> int:
        """Estimated work of one application at these types, in element operations: the
        elements it reads and writes (data movement, elementwise ops, reductions);
        contractions add their multiply-adds. The search uses it to choose among
        equivalent programs (synth.synthesis.search), at the original sizes."""
        return result_type.size + sum(t.size for t in arg_types)

    def accepts(self, arg_types: tuple[TensorType, ...], ctx: SearchContext) -> bool:
        """Whether some attribute choice fits these operand types."""
        return any(True for _ in self.attribute_domain(arg_types, ctx))

    # helpers for subclasses ----------------------------------------------------------------
    def shape_error(self, message: str, arg_types=(), attrs: Attrs = ()) -> ShapeError:
        types = ", ".join(t.mlir() for t in arg_types)
        extra = f" with {dict(attrs)}" if attrs else ""
        return ShapeError(f"{self.name}({types}){extra}: {message}")

    def check_arity(self, arg_types) -> None:
        if len(arg_types) != self.arity:
            raise self.shape_error(f"expects {self.arity} operands, got {len(arg_types)}", arg_types)


# ---------------------------------------------------------------------------------------
# grammars as values


def ops_for(dialect: str) -> tuple[Op, ...]:
    """The grammar of one dialect (the same op objects on every call)."""
    if dialect == "stablehlo":
        from synth.grammar import stablehlo

        return stablehlo.grammar()
    if dialect == "linalg":
        from synth.grammar import linalg

        return linalg.grammar()
    raise ValueError(f"unknown dialect {dialect!r} (known: {', '.join(DIALECTS)})")


def op_by_name(dialect: str, name: str) -> Op:
    for op in ops_for(dialect):
        if op.name == name:
            return op
    raise KeyError(f"no op {name!r} in the {dialect} grammar")


def private_function(name: str, arg_types: Sequence[TensorType], result: TensorType,
                     build: Callable[[Emitter, list[str]], str]) -> str:
    """`func.func private @name(%a0: T0, ...) -> R` whose body `build(em, ["%a0", ...])`
    emits, returning the SSA name of its one result (a backend's library lowering)."""
    em = Emitter(indent="  ")
    args = [f"%a{i}" for i in range(len(arg_types))]
    value = build(em, args)
    params = ", ".join(f"{a}: {t.mlir()}" for a, t in zip(args, arg_types))
    return (f"func.func private @{name}({params}) -> {result.mlir()} {{\n" + "\n".join(em.lines)
            + f"\n  return {value} : {result.mlir()}\n}}\n")
