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
    `low = [1, 0]`), in `array<i64: ...>`, in `arith.constant N : index` and in a rank-0
    `stablehlo.constant dense<N> : tensor<i64>` (a stablehlo.while's bound)
  - every integer constant inside an `affine_map<...>` (an edge index n-1 of a slice)
is mapped when it equals an original size exactly, or lies within 2 of exactly one
(so a slice bound n-1 stays n-1); every other number is left alone, and so are the
contents of other `dense<...>` constants (data, not sizes). Dimension numbers
(`dims = [0, 1]`, permutations) are far below any size and never move. This needs every
original size to be >= MIN_SIZE and equal sizes to map to equal values (the caller,
synth.validation.verify, ensures both). The resized text is parsed and verified by MLIR, so a
rewrite that breaks the function is an error, never a silent change; a raised function
that hides a size elsewhere (a non-splat constant shaped by a size, an affine-map
expression such as `-d0 + 999`, which maps to `-d0 + n-1` only if written so) cannot be
re-instantiated this way.

Evaluating. `RaisedFunction.evaluate(args)` interprets the function op by op on NumPy
object arrays of z3 terms (0-d arrays for rank-0 tensors); every scalar operation means
what `synth.semantics.scalar`'s tables say, the tables the affine side uses (the same
uninterpreted sqrt / exp, max / min / select via If, real division):
  - stablehlo: add subtract multiply divide negate abs maximum minimum sqrt rsqrt
    exponential power clamp and or not xor convert compare select dot_general (any batch
    and contracting dims) dot broadcast_in_dim broadcast transpose reshape reverse
    reduce (any body, interpreted) iota constant slice concatenate pad, triangular_solve
    (left side; forward / backward substitution), func.call;
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

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import z3

from synth.semantics import support as support
from synth.errors import InputError
from synth.frontend.reader import read_text

from synth.semantics.interpreter import Interpreter
from synth.frontend.mlir_text import UnbalancedBrackets
from synth.semantics.raised_text import (MIN_SIZE, keep_functions, resize_text,  # noqa: F401
                                         top_level_functions)
from synth.semantics.raised_values import (ValueType, cast, has, int_attr,  # noqa: F401
                                           scalar_array, numeral, value_type)
from synth.semantics.scalar import Unsupported
from synth.semantics.scalar import is_inf as _is_inf
# the raised function ---------------------------------------------------------------------------


def stablehlo_context():
    from jaxlib.mlir import ir

    return ir, shared_context("stablehlo")


_SHARED = threading.local()
SHARED_USES = 64  # a shared context is replaced after this many uses (what it uniqued is freed)


def _new_context(kind: str):
    if kind == "upstream":
        from mlir import ir
        return ir.Context()
    if kind == "jax":
        from jax._src.interpreters import mlir as jax_mlir
        return jax_mlir.make_ir_context()
    from synth.grammar.verifier import stablehlo_context
    return stablehlo_context()[1]


def shared_context(kind: str = "upstream"):
    """An MLIR context to parse, read and drop modules in (one per thread and kind, renewed
    every SHARED_USES uses): "upstream" (the `mlir` package's), "jax" (jax's
    make_ir_context) or "stablehlo" (jaxlib's with the stablehlo dialects). A new context
    costs ~10 ms, and validating deriche made ~150 (~270 for its stablehlo raise). Its users
    drop every object they made in it before they return."""
    state = _SHARED.__dict__.setdefault(kind, [None, SHARED_USES])
    if state[1] >= SHARED_USES:
        state[0], state[1] = _new_context(kind), 0
    state[1] += 1
    return state[0]


def _upstream_context():
    from mlir import ir

    return ir, shared_context()


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
        return stablehlo_context() if self.dialect == "stablehlo" else _upstream_context()

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

    def signature(self, dynamic: bool = False) -> Signature:
        """The function's signature; `dynamic`: `?` dims allowed (a shape-generic raise)."""
        def work(ir, module, func) -> Signature:
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            try:
                args = [value_type(t, dynamic) for t in ftype.inputs]
                results = [value_type(t, dynamic) for t in ftype.results]
            except Unsupported as e:
                raise InputError(f"@{self.name}: {e}", self.path) from None
            outputs = None
            if has(func, "synth.outputs"):
                attr = cast(ir.ArrayAttr, func.attributes["synth.outputs"])
                if attr is None or any(cast(ir.IntegerAttr, a) is None for a in attr):
                    raise InputError(f"@{self.name}: synth.outputs must be a list of integers",
                                     self.path)
                outputs = [int_attr(ir, a) for a in attr]
            return Signature(args, results, outputs)
        return self._inside(work)

    def resized(self, value_map: dict[int, int]) -> RaisedFunction:
        """The function re-instantiated at other sizes (see the module docstring)."""
        if not value_map or all(k == v for k, v in value_map.items()):
            return self
        try:
            return replace(self, text=resize_text(self.text, value_map))
        except ValueError as e:  # a number derived from the sizes (raised_text.size_derived_numbers)
            raise InputError(f"@{self.name}: {e}", self.path) from None

    def evaluate(self, args: list) -> list[np.ndarray]:
        """Interpret the function on `args` (object arrays of z3 terms, 0-d for rank 0);
        one object array per result."""
        def work(ir, module, func) -> list:
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            try:
                arg_types = [value_type(t) for t in ftype.inputs]
            except Unsupported as e:
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
            results = Interpreter(ir, module, self.path).call(self.name, values)
            return results, [value_type(t) for t in ftype.results]

        results, types = self._inside(work, generalize=self.dialect == "linalg")
        out = []
        for k, (r, t) in enumerate(zip(results, types)):
            r = np.array(r, dtype=object) if isinstance(r, np.ndarray) else scalar_array(r)
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
    """"stablehlo" when a stablehlo (or chlo) op occurs outside comments, else "linalg"."""
    code = re.sub(r"//[^\n]*", "", text)
    return "stablehlo" if re.search(r"\b(stablehlo|chlo)\.\w", code) else "linalg"


def load_raised(path: str | Path, name: str, text: str | None = None) -> RaisedFunction:
    """`@name` from the raised module at `path` (or from `text`), other functions blanked."""
    path = str(path)
    if text is None:
        text = read_text(path)
    try:
        kept = keep_functions(text, name)
    except UnbalancedBrackets as e:
        raise InputError(f"cannot read the raised module: {e}", f"{path}:{e.line}:{e.column}") from None
    if kept is None:
        found = ", ".join("@" + n for n, _, _ in top_level_functions(text)) or "none"
        raise InputError(f"no function @{name} in the raised module (functions: {found})", path)
    return RaisedFunction(path, kept, name, detect_dialect(kept))
