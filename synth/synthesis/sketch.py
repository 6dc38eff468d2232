"""A program read off the statement itself: the sketch tactic of the search.

A statement `B[i + b0, j + b1] = f(A[i + a0, j + a1], C[j + c0, i + c1], s, 0.5, ...)` in a
nest of loops `i in [li, ui)`, `j in [lj, uj)` (each loop index in the store exactly once,
every loop of the nest in the store: no reduction) is, as a tensor program, `f` applied
elementwise to views of its operands over the block the loops write:

- each load becomes a slice of its array (`slice_range`: the loop's range shifted by the
  load's offset), then a transpose / broadcast into the order of the store's dims (a load
  that misses a loop index is repeated along it);
- scalars (function arguments, constants) are broadcast to the block;
- arith / math ops become the grammar's elementwise ops;
- a block smaller than the array is written into the array's previous value
  (`insert_range`).

Ranges are read at the stand-in sizes and kept as size expressions: a loop `1 to n - 1`
over an array of `n` makes slices of extent `n - 2`, which re-instantiate at any n. The
sketch is a candidate like any other: solve.py keeps it only where it is right on the
problem's examples, and validation checks it as it checks every program. Statements it
does not cover (reductions, conditionals, non-unit strides, indirect or diagonal
accesses, several statements in a group) get None, and the search runs as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from synth.grammar.op import Op, op_by_name
from synth.grammar.shapes import shrink_dim
from synth.grammar.types import ShapeError, TensorType
from synth.semantics.affine_expr import compile_map
from synth.synthesis.program import Expr

MAX_TRIM = 2  # elements a slice may drop at either end (stencil offsets)

_ELEMENTWISE = {  # arith / math op -> grammar op short name, per dialect
    "stablehlo": {
        "arith.addf": "add", "arith.addi": "add", "arith.subf": "subtract", "arith.subi": "subtract",
        "arith.mulf": "multiply", "arith.muli": "multiply", "arith.divf": "divide", "arith.divsi": "divide",
        "arith.maximumf": "maximum", "arith.maxf": "maximum", "arith.maxnumf": "maximum",
        "arith.maxsi": "maximum", "arith.minimumf": "minimum", "arith.minf": "minimum",
        "arith.minnumf": "minimum", "arith.minsi": "minimum", "arith.negf": "negate",
        "math.sqrt": "sqrt", "math.exp": "exponential", "math.absf": "abs", "math.absi": "abs",
    },
    "linalg": {
        "arith.addf": "add", "arith.addi": "add", "arith.subf": "sub", "arith.subi": "sub",
        "arith.mulf": "mul", "arith.muli": "mul", "arith.divf": "div", "arith.divsi": "div",
        "arith.maximumf": "max", "arith.maxf": "max", "arith.maxnumf": "max", "arith.maxsi": "max",
        "arith.minimumf": "min", "arith.minf": "min", "arith.minnumf": "min", "arith.minsi": "min",
        "arith.negf": "negf", "math.sqrt": "sqrt", "math.exp": "exp", "math.absf": "abs",
        "math.absi": "abs",
    },
}


class NoSketch(Exception):
    """The statement is outside what the sketch covers (the message says how)."""


@dataclass
class _Loop:
    iv: ir.Value
    lo: int
    hi: int  # exclusive


def _is_block_argument(value: ir.Value) -> bool:
    return isinstance(value.owner, ir.Block)


class _Reader:
    """The statement of one part function, read into an Expr over the problem's inputs."""

    def __init__(self, func, dialect: str, params: dict[int, int], input_types: dict[int, TensorType]):
        self.func = func
        self.dialect = dialect
        self.params = params  # size argument index -> value at the stand-in sizes
        self.input_types = input_types
        self.entry = func.regions[0].blocks[0]

    def op(self, short: str) -> Op:
        return op_by_name(self.dialect, f"{self.dialect}.{short}")

    # -- index values ------------------------------------------------------------------------
    def arg_index(self, value: ir.Value) -> int | None:
        if _is_block_argument(value) and value.owner == self.entry:
            return ir.BlockArgument(value).arg_number
        return None

    def index_value(self, value: ir.Value) -> int:
        """An index operand of a loop bound, at the stand-in sizes."""
        k = self.arg_index(value)
        if k is not None and k in self.params:
            return self.params[k]
        owner = value.owner
        if not _is_block_argument(value):
            if owner.name == "arith.constant":
                attr = owner.attributes["value"]
                if isinstance(attr, ir.IntegerAttr):
                    return int(attr.value)
            if owner.name in ("arith.index_cast", "arith.index_castui"):
                return self.index_value(owner.operands[0])
        raise NoSketch("a loop bound that is not a size")

    def bound(self, amap: ir.AffineMap, operands, upper: bool) -> int:
        values = [self.index_value(v) for v in operands]
        try:
            results = [f(values) for f in compile_map(amap)]
        except ValueError as e:
            raise NoSketch(f"the bound {amap}: {e}") from None
        return min(results) if upper else max(results)

    # -- the statement ------------------------------------------------------------------------
    def statement(self):
        stores = []
        self.func.operation.walk(lambda op: (stores.append(op) if op.name in ("affine.store", "memref.store")
                                             else None, ir.WalkResult.ADVANCE)[1])
        if len(stores) != 1:
            raise NoSketch(f"{len(stores)} stores in the group")
        store = stores[0].opview
        loops: list[_Loop] = []
        parent = store.operation.parent
        while parent is not None and parent.name != "func.func":
            if parent.name != "affine.for":
                raise NoSketch(f"the store is inside {parent.name}")
            f = parent.opview
            if _step(f) != 1:
                raise NoSketch("a loop step other than 1")
            nl = f.lowerBoundMap.value.n_dims + f.lowerBoundMap.value.n_symbols
            lb_ops = list(f.operands)[:nl]
            ub_ops = list(f.operands)[nl:nl + f.upperBoundMap.value.n_dims + f.upperBoundMap.value.n_symbols]
            loops.append(_Loop(f.induction_variable, self.bound(f.lowerBoundMap.value, lb_ops, False),
                               self.bound(f.upperBoundMap.value, ub_ops, True)))
            parent = parent.parent
        return store, loops[::-1]


def _step(f) -> int:
    step = f.step
    return int(ir.IntegerAttr(step).value) if isinstance(step, ir.Attribute) else int(step)


def _unit_offset(e: ir.AffineExpr, operands: list[ir.Value], n_dims: int) -> tuple[ir.Value, int]:
    """(loop index, c) for an index `iv + c`, else NoSketch."""
    if isinstance(e, ir.AffineDimExpr):
        return operands[e.position], 0
    if isinstance(e, ir.AffineAddExpr):
        for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(a, ir.AffineDimExpr) and isinstance(b, ir.AffineConstantExpr):
                return operands[a.position], b.value
    raise NoSketch(f"the index {e} is not a loop index plus a constant")


def _access(op) -> tuple[ir.Value, list[tuple[ir.Value, int]]]:
    """(memref, [(loop index, offset) per dim]) of an affine / memref load or store."""
    view = op.opview if hasattr(op, "opview") else op
    if op.name.startswith("affine."):
        amap = view.map.value
        operands = list(view.indices)
        return view.memref, [_unit_offset(e, operands, amap.n_dims) for e in amap.results]
    return view.memref, [(v, 0) for v in view.indices]


def statement_sketch(func, dialect: str, params: dict[int, int], input_types: dict[int, TensorType],
                     output: int, output_type: TensorType) -> Expr:
    """The sketch of the one statement of `func` (a part function at the stand-in sizes)
    writing argument `output`; NoSketch where the statement is outside the tactic."""
    reader = _Reader(func, dialect, params, input_types)
    store, loops = reader.statement()
    # a loop that runs once and whose index nothing uses (a time loop's one step) is no dim
    loops = [l for l in loops if not (l.hi - l.lo == 1 and not any(True for _ in l.iv.uses))]
    memref, index = _access(store.operation)
    if reader.arg_index(memref) != output:
        raise NoSketch("the store writes a local")
    position = {}  # loop index -> position in the block (the store's dim)
    for d, (iv, c) in enumerate(index):
        loop = next((l for l in loops if l.iv == iv), None)
        if loop is None or iv in position:
            raise NoSketch("a store index that is not a distinct loop index")
        position[iv] = d
    if len(position) != len(loops):
        raise NoSketch("a loop the store does not index (a reduction)")
    extent = {iv: l.hi - l.lo for l in loops for iv in [l.iv]}
    if any(e <= 0 for e in extent.values()):
        raise NoSketch("an empty loop")
    start = {l.iv: l.lo for l in loops}
    shape = output_type.shape
    block_lo = tuple(start[iv] + c for iv, c in index)
    block_hi = tuple(int(shape[d]) - block_lo[d] - extent[iv] for d, (iv, c) in enumerate(index))
    if any(not 0 <= v <= MAX_TRIM for v in block_lo + block_hi):
        raise NoSketch("the block written is not the array less at most 2 elements at each end")
    block = tuple(shrink_dim(shape[d], block_lo[d] + block_hi[d]) for d in range(len(shape)))
    if None in block:
        raise NoSketch("an array extent that is a floordiv of sizes")
    dtype = output_type.dtype
    memo: dict = {}

    def apply(short: str, args: tuple, attrs: tuple = ()) -> Expr:
        op = reader.op(short)
        try:
            rt = op.result_type(tuple(a.type for a in args), attrs)
        except ShapeError as e:
            raise NoSketch(str(e)) from None
        return Expr(rt, op, attrs, args)

    def broadcast_scalar(x: Expr) -> Expr:
        if not block:
            return x
        if dialect == "stablehlo":
            return apply("broadcast_in_dim", (x,), (("dims", ()), ("shape", block)))
        return apply("broadcast", (x,), (("dims", tuple(range(len(block)))), ("shape", block)))

    def constant(value: float) -> Expr:
        if dialect == "stablehlo":
            return broadcast_scalar(apply("constant", (), (("dtype", dtype), ("value", float(value)))))
        return apply("fill", (), (("dtype", dtype), ("shape", block), ("value", float(value))))

    def load(op) -> Expr:
        array, idx = _access(op)
        k = reader.arg_index(array)
        if k is None or k not in input_types:
            raise NoSketch("a load from a local or an array the group does not read")
        if k == output and idx != index:
            raise NoSketch("a read of the array written at another element (a recurrence)")
        t = input_types[k]
        if len(idx) != t.rank:
            raise NoSketch("an access of another rank")
        dims = []
        lo, hi = [], []
        for d, (iv, c) in enumerate(idx):
            if iv not in position or iv in [x for x, _ in idx[:d]]:
                raise NoSketch("a load index that is not a distinct loop index of the store")
            first = start[iv] + c
            lo.append(first)
            hi.append(int(t.shape[d]) - first - extent[iv])
            dims.append(position[iv])
        if any(not 0 <= v <= MAX_TRIM for v in lo + hi):
            raise NoSketch("a load view that is not the array less at most 2 elements at each end")
        leaf = Expr(t, leaf=k)
        view = leaf if not any(lo + hi) else apply(
            "slice_range" if dialect == "stablehlo" else "extract_range", (leaf,),
            (("lo", tuple(lo)), ("hi", tuple(hi))))
        order = sorted(range(len(dims)), key=lambda d: dims[d])
        if order != list(range(len(dims))):  # into the store's order
            view = apply("transpose", (view,), (("permutation", tuple(order)),))
            dims = sorted(dims)
        if len(dims) < len(block):
            if dialect == "stablehlo":
                view = apply("broadcast_in_dim", (view,), (("dims", tuple(dims)), ("shape", block)))
            else:
                added = tuple(d for d in range(len(block)) if d not in dims)
                view = apply("broadcast", (view,), (("dims", added), ("shape", block)))
        return view

    def read(value: ir.Value) -> Expr:
        if value not in memo:  # a value used twice is one node (emitted once)
            memo[value] = _read(value)
        return memo[value]

    def _read(value: ir.Value) -> Expr:
        k = reader.arg_index(value)
        if k is not None:
            if k not in input_types or input_types[k].rank != 0:
                raise NoSketch("a scalar argument the problem does not take")
            return broadcast_scalar(Expr(input_types[k], leaf=k))
        if _is_block_argument(value):
            raise NoSketch("a loop index used as a value")
        op = value.owner
        if op.name in ("affine.load", "memref.load"):
            return load(op)
        if op.name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.FloatAttr):
                return constant(attr.value)
            if isinstance(attr, ir.IntegerAttr):
                return constant(attr.value)
            raise NoSketch("a constant that is not a number")
        short = _ELEMENTWISE[dialect].get(op.name)
        if short is None:
            raise NoSketch(f"{op.name} has no elementwise op in the grammar")
        return apply(short, tuple(read(v) for v in op.operands))

    body = read(store.operands[0] if store.operation.name == "memref.store" else store.value)
    if body.type.dtype != dtype:
        raise NoSketch("the stored value's type differs from the array's")
    if not any(block_lo + block_hi):
        return body
    if output not in input_types:
        raise NoSketch("a block of an array whose previous value is not an input")
    return apply("insert_range",
                 (Expr(input_types[output], leaf=output), body),
                 (("lo", block_lo), ("hi", block_hi)))


def sketches(spec, dialect: str) -> dict[str, Expr]:
    """Problem name -> its sketch, for the problems of one-statement groups the tactic
    covers (synth.synthesis.spec.Specification at the stand-in sizes)."""
    from synth.frontend.reader import SourceModule

    out: dict[str, Expr] = {}
    groups = [g for g in spec.groups if len(g.statements) == 1 and len(g.problems) == 1]
    if not groups:
        return out
    params = spec.kernel.sizes.param_values(spec.standin)
    source = SourceModule(spec.standin_source.path, spec.split_text)
    with source.context:
        module = source.parsed()
        funcs = {op.attributes["sym_name"].value: op for op in module.body.operations
                 if op.operation.name == "func.func"}
        for g in groups:
            problem = g.problems[0]
            try:
                out[problem.name] = statement_sketch(funcs[g.part], dialect, params, problem.input_types,
                                                     g.writes[0], problem.output_type)
            except NoSketch:
                pass
    return out
