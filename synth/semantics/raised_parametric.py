"""The raised function at symbolic sizes, for the all-size proof: each result as a term
of a symbolic element index (synth.semantics.parametric).

A shape-generic raised function (`?` dims, its sizes computed from its arguments:
synth.grammar.dims) is read with its sizes as the SSA values it computes: an argument's
`?` dims are the original's size terms, `tensor.dim` / `stablehlo.get_dimension_size`
and the index arithmetic on them are terms, and each op's `?` result dims are what it
computes (from its operands, or from a shape operand: dynamic_broadcast_in_dim,
dynamic_iota, real_dynamic_slice, dynamic_gather, tensor.empty's sizes, a slice's SSA
sizes), so no integer is read as a size there.

The raised text is written at the kernel's original sizes. Every dimension, slice bound,
pad width and index constant in it that is one of those sizes (or within a few of
exactly one: `n - 1`) stands for that size symbol, by the rule that re-instantiates
raised modules at other sizes (synth.semantics.raised_text.map_size); other integers
are constants. The proof is thus about the family of raised functions that rule gives,
which at the original sizes is the text itself.

A tensor is its shape (z3 Int terms) and a function from a symbolic index to the
element's term. Ops follow the bounded interpreter (synth.semantics.interpreter), with
the same scalar table; contractions and sum reductions become SUM terms. Ops without an
element-wise description at symbolic sizes (cholesky, triangular_solve, max reductions,
non-splat constants) raise NotParametric."""

from __future__ import annotations

import itertools
import re

import z3

from synth.semantics import scalar
from synth.semantics.parametric import NotParametric
from synth.analysis.sizes import NEAR
from synth.semantics.raised_text import MIN_SIZE
from synth.semantics.raised_values import FLOATS, is_dynamic_dim, value_type
from synth.semantics.scalar import Unsupported

ELEMENTWISE = {**scalar.STABLEHLO, **scalar.ARITH_MATH}
DIRECTION = re.compile(r"comparison_direction\s+(\w+)")
DOT_FIELD = re.compile(r"(lhs|rhs)_(batching|contracting)_dimensions\s*=\s*\[([\d,\s]*)\]")
_TERMINATORS = ("func.return", "stablehlo.return", "linalg.yield", "tensor.yield")


class Tensor:
    def __init__(self, shape: tuple, dtype: str, at):
        self.shape, self.dtype, self.at = tuple(shape), dtype, at

    @property
    def rank(self) -> int:
        return len(self.shape)


class Sizes:
    """Integers of the raised text as terms of the size symbols."""

    def __init__(self, values: dict[str, int], near: bool = True):
        self.near = near  # also a number within NEAR of exactly one size (n - 1)
        self.near_read = False  # whether a number was read as `size + offset`
        self.by_value: dict[int, str] = {}
        for name, v in values.items():
            if v in self.by_value:
                raise NotParametric(f"size symbols {self.by_value[v]} and {name} have the same "
                                    f"value ({v}): the raised text cannot tell them apart")
            self.by_value[v] = name

    def term(self, value: int) -> z3.ArithRef:
        if value in self.by_value:
            return z3.Int(self.by_value[value])
        if self.near and value >= MIN_SIZE - NEAR:
            for offset in range(1, NEAR + 1):
                for sign in (-1, 1):
                    hits = [v for v in self.by_value if v + sign * offset == value]
                    if len(hits) == 1:
                        self.near_read = True
                        return z3.Int(self.by_value[hits[0]]) + sign * offset
                    if hits:
                        return z3.IntVal(value)
        return z3.IntVal(value)


def numeral(v, dtype: str):
    """`v` as a z3 value of `dtype` (z3 terms as they are)."""
    if isinstance(v, z3.ExprRef):
        return v
    if dtype in FLOATS:
        return z3.RealVal(v)
    if dtype == "i1":
        return z3.BoolVal(bool(v))
    return z3.IntVal(int(v))


def to_dtype(i: z3.ArithRef, dtype: str):
    """The integer term `i` as a term of `dtype` (real for floats)."""
    return z3.ToReal(i) if dtype in FLOATS else i


class _Eval:
    def __init__(self, ir, module, sizes: Sizes):
        self.ir, self.sizes = ir, sizes
        self.functions = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                self.functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
        self.index_stack: list = []
        self.empties = itertools.count()  # names of tensor.empty contents, one per op run
        self.obligations: list = []  # (condition on the sizes, what it says): well-typedness

    def require(self, cond, what: str) -> None:
        """A condition the op's types need at every size (true at the text's own sizes,
        which MLIR verified); the proof checks them all over the domain."""
        self.obligations.append((cond, what))

    def same_shape(self, a: tuple, b: tuple, what: str) -> None:
        if len(a) != len(b):
            raise NotParametric(f"{what}: ranks differ")
        for x, y in zip(a, b):
            if not z3.eq(z3.simplify(x), z3.simplify(y)):
                self.require(x == y, what)

    def shape(self, t, like=None) -> tuple:
        """The shape of type `t` as terms; its `?` dims from `like` (the shape the op
        computes), NotParametric where there is none."""
        vt = value_type(t, dynamic=True)
        if not vt.is_tensor:
            return ()
        out = []
        for k, d in enumerate(vt.shape):
            if is_dynamic_dim(d):
                if like is None or k >= len(like) or like[k] is None:
                    raise NotParametric(f"a dynamic dimension of {t} that the op does not determine")
                out.append(like[k])
            else:
                out.append(self.sizes.term(d))
        return tuple(out)

    def call(self, name: str, args: list) -> list:
        func = self.functions.get(name)
        if func is None or not len(func.regions[0].blocks):
            raise NotParametric(f"no function @{name} with a body")
        return self.block(func.regions[0].blocks[0], args, {})

    def block(self, block, args: list, outer: dict) -> list:
        env = dict(outer)
        env.update(zip(block.arguments, args))
        for op in block.operations:
            name = op.operation.name
            xs = [env[v] for v in op.operands]
            if name in _TERMINATORS:
                return xs
            handler = _HANDLERS.get(name)
            if handler is None:
                raise NotParametric(f"'{name}' has no description at symbolic sizes")
            try:
                results = handler(self, op, xs, env)
            except Unsupported as e:
                raise NotParametric(f"'{name}': {e}") from None
            env.update(zip(op.results, results))
        return []

    def result(self, op, k: int = 0, like=None):
        vt = value_type(op.results[k].type, dynamic=True)
        return self.shape(op.results[k].type, like), vt.dtype, vt.is_tensor


_HANDLERS: dict = {}


def handles(*names):
    def register(fn):
        for n in names:
            _HANDLERS[n] = fn
        return fn
    return register


def elementwise_fn(fn, shape, dtype, is_tensor, xs):
    """`fn` applied to `xs`: on scalars directly, on tensors pointwise as a Tensor of `shape`."""
    if not is_tensor:
        return fn(*xs)
    ats = [x.at if isinstance(x, Tensor) else (lambda idx, x=x: x) for x in xs]
    return Tensor(shape, dtype, lambda idx: fn(*(a(idx) for a in ats)))


def same_operands(ev, op, shape, xs) -> None:
    """Requires every tensor operand of `op` to have the result `shape`."""
    for x in xs:
        if isinstance(x, Tensor):
            ev.same_shape(x.shape, shape, f"'{op.operation.name}' operand and result shapes")


def elementwise_shape(xs) -> tuple | None:
    """The shape of the first tensor operand of the largest rank (an elementwise op's)."""
    tensors = [x for x in xs if isinstance(x, Tensor)]
    return max(tensors, key=lambda x: x.rank).shape if tensors else None


def evaluate(raised, sizes: "dict[str, int] | Sizes", args: list, near: bool = True) -> tuple[list[tuple], list]:
    """The raised function's results at symbolic sizes, as (shape, index variables,
    term of the element at those indices); `args` are Tensors (arrays) or terms
    (scalars), in the function's argument order; and the conditions on the sizes its
    ops' types need (`Eval.require`). Everything is evaluated while the module is alive
    (its ops are not usable after). `sizes` may be a Sizes, which then records whether
    a number was read as a size plus an offset."""
    sz = sizes if isinstance(sizes, Sizes) else Sizes(sizes, near)

    def work(ir, module, func):
        ev = _Eval(ir, module, sz)
        out = []
        for r in ev.call(raised.name, args):
            if not isinstance(r, Tensor):
                out.append(((), (), r))
                continue
            x = tuple(z3.Int(f"x{d}") for d in range(r.rank))
            out.append((r.shape, x, r.at(x)))
        return out, ev.obligations
    return raised._inside(work, generalize=raised.dialect == "linalg")


# --- sizes as SSA values (a shape-generic raised function) ------------------------------------


def scalar_term(x):
    """The element of a rank-0 Tensor, or `x` itself."""
    return x.at(()) if isinstance(x, Tensor) else x


def vector_terms(x: Tensor) -> list:
    """The elements of a static-length 1-D tensor (a shape operand) as terms."""
    if x.rank != 1 or not z3.is_int_value(z3.simplify(x.shape[0])):
        raise NotParametric("a shape operand whose length is not a constant")
    return [z3.simplify(x.at((z3.IntVal(k),))) for k in range(z3.simplify(x.shape[0]).as_long())]


# the handlers, registered by importing their modules (they import this one)
from synth.semantics import raised_parametric_ops, raised_parametric_tensor  # noqa: E402,F401
