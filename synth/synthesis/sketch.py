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

import os
import sys

from dataclasses import dataclass

from mlir import ir

from synth.analysis.collect import carried_sum, loop_step
from synth.grammar.op import Op, attrs, op_by_name
from synth.grammar.shapes import shrink_dim
from synth.grammar.types import ShapeError, TensorType
from synth.semantics.affine_expr import compile_map
from synth.synthesis.program import Expr

MAX_TRIM = 2  # elements a slice may drop at either end (stencil offsets)
DIAGONAL = 1000  # position of the second index of a diagonal read A[i, i] of loop i: 1000 + i

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
    hi: int  # exclusive: the loop's box (every iteration of it lies inside)


@dataclass(frozen=True)
class _Mask:
    """`index(a) <direction> index(b)`, over loop positions a, b (relative to their boxes):
    the part of a box a triangular loop runs over (`j < i + 1`, `k > i`)."""
    a: int
    b: int
    direction: str

    @property
    def loops(self) -> set[int]:
        return {self.a, self.b}

    def moved(self, keep: list[int]) -> "_Mask":
        return _Mask(keep.index(self.a), keep.index(self.b), self.direction)


@dataclass(frozen=True)
class _CounterMask:
    """`index(a) <direction> counter + offset`, the index relative to a's box: the part
    of a box a loop bounded by the counter of a loop kept as a loop runs over (`j > k`
    in step k)."""
    a: int
    direction: str
    offset: int

    @property
    def loops(self) -> set[int]:
        return {self.a}

    def moved(self, keep: list[int]) -> "_CounterMask":
        return _CounterMask(keep.index(self.a), self.direction, self.offset)


COUNTER = object()  # stands for the counter argument in (index value, offset) pairs


@dataclass
class _View:
    """A tensor over the loops at `dims` (positions in the nest, increasing). `natural`:
    the same tensor before its transpose into nest order (expr, dims in its own order),
    where it had one: a contraction takes it as it is (mvt's A^T y is vecmat(y, A), no
    transposed copy of A)."""
    expr: Expr
    dims: tuple[int, ...]
    natural: tuple | None = None


_FLIP = {"GT": "LT", "GE": "LE", "LT": "GT", "LE": "GE"}


def _is_block_argument(value: ir.Value) -> bool:
    return isinstance(value.owner, ir.Block)


def _is_loop_index(value: ir.Value) -> bool:
    return _is_block_argument(value) and value.owner.owner.name == "affine.for"


class _Reader:
    """The statement of one part function, read into an Expr over the problem's inputs."""

    def __init__(self, func, dialect: str, params: dict[int, int], input_types: dict[int, TensorType],
                 counter: int | None = None, counter_range: tuple[int, int] | None = None):
        self.func = func
        self.dialect = dialect
        self.params = {k: v for k, v in params.items() if k != counter}  # size argument -> stand-in value
        self.input_types = input_types
        self.entry = func.regions[0].blocks[0]
        self.counter = counter  # the argument holding a loop counter (synth.synthesis.steps)
        self.counter_range = counter_range  # its values [lo, hi) at the stand-in sizes
        # loops read backwards: index -> K, where the loop's every use is an index `-iv + c`
        # (a down-counting loop, normalized so); read as j = K - iv over the same box
        self.reversed: dict = {}

    def access(self, op):
        """_access, with the loops read backwards counted forwards."""
        return _access(op, self.reversed, self.index_value)

    def is_counter(self, value) -> bool:
        return self.counter is not None and isinstance(value, ir.Value) and self.arg_index(value) == self.counter

    def counter_leaf(self) -> Expr:
        if self.counter is None or self.counter not in self.input_types:
            raise NoSketch("a loop counter the problem does not take")
        return Expr(self.input_types[self.counter], leaf=self.counter)

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

    def bound(self, amap: ir.AffineMap, operands, upper: bool):
        """The bound at the stand-in sizes (an int), or (loop index, c) for a bound
        `i + c` on the index of an enclosing loop (a triangular loop)."""
        operands = list(operands)
        if any(self.is_counter(v) for v in operands):
            if len(amap.results) != 1:
                raise NoSketch("a min / max bound on a loop counter")
            iv, c = _unit_offset(amap.results[0], operands, amap.n_dims)
            if not self.is_counter(iv):
                raise NoSketch("a bound that is not the counter plus a constant")
            return COUNTER, c
        if any(_is_loop_index(v) for v in operands):
            if len(amap.results) != 1:
                raise NoSketch("a min / max bound on a loop index")
            iv, c = _unit_offset(amap.results[0], operands, amap.n_dims)
            if not _is_loop_index(iv):
                raise NoSketch("a bound that is not a loop index plus a constant")
            return iv, c
        values = [self.index_value(v) for v in operands]
        try:
            results = [f(values) for f in compile_map(amap)]
        except ValueError as e:
            raise NoSketch(f"the bound {amap}: {e}") from None
        return min(results) if upper else max(results)

    # -- the statement ------------------------------------------------------------------------
    def statement(self):
        """(store, loops outermost first, masks of the triangular loops)."""
        stores = []
        self.func.operation.walk(lambda op: (stores.append(op) if op.name in ("affine.store", "memref.store")
                                             else None, ir.WalkResult.ADVANCE)[1])
        # stores into local scalars are their definitions, read where they are loaded
        # ... and so are stores into local arrays (a temporary copied into an argument)
        stores = [op for op in stores if _local_scalar(_memref(op)) is None
                  and _local_array(_memref(op)) is None]
        if len(stores) != 1:
            raise NoSketch(f"{len(stores)} stores in the group")
        store = stores[0].opview
        loops: list[_Loop] = []
        masks: list[_Mask] = []
        for f in _nest(store.operation, "the store is"):
            self.place(f, loops, masks)
        return store, loops, masks

    def place(self, f, loops: list, masks: list) -> int:
        """Append the loop `f` (inside `loops`) to `loops`, and the masks of its bounds
        that are relative to an enclosing loop to `masks`; its position."""
        if loop_step(f) != 1:
            raise NoSketch("a loop step other than 1")
        nl = f.lowerBoundMap.value.n_dims + f.lowerBoundMap.value.n_symbols
        lb_ops = list(f.operands)[:nl]
        ub_ops = list(f.operands)[nl:nl + f.upperBoundMap.value.n_dims + f.upperBoundMap.value.n_symbols]
        lb = self.bound(f.lowerBoundMap.value, lb_ops, False)
        ub = self.bound(f.upperBoundMap.value, ub_ops, True)
        at = {l.iv: p for p, l in enumerate(loops)}
        for b in (lb, ub):
            if not isinstance(b, int) and b[0] is not COUNTER and b[0] not in at:
                raise NoSketch("a bound on the index of a loop outside the statement's")
        # `l >= a + c`: the box from a's first value, less one where c >= 1 (then the
        # mask is a strict comparison, and a triangle over a whole array needs no slice);
        # `l >= counter + c`: from the counter's first value plus c (a mask, below)
        if any(not isinstance(b, int) and b[0] is COUNTER for b in (lb, ub)) and self.counter_range is None:
            raise NoSketch("a loop bounded by a counter whose values are not known")
        if isinstance(lb, int):
            lo = lb
        elif lb[0] is COUNTER:
            lo = self.counter_range[0] + lb[1]
        else:
            lo = loops[at[lb[0]]].lo + lb[1] - (lb[1] >= 1)
        if isinstance(ub, int):
            hi = ub
        elif ub[0] is COUNTER:
            hi = self.counter_range[1] - 1 + ub[1]
        else:
            hi = loops[at[ub[0]]].hi - 1 + ub[1]
        pos = len(loops)
        loops.append(_Loop(f.induction_variable, lo, hi))
        if isinstance(lb, int) and isinstance(ub, int) and _only_negated(f.induction_variable):
            # a loop whose index is only ever subtracted (`a[n - 2 - i]`): the statement
            # read over j = lo + hi - 1 - i, the same box forwards. Where the original's
            # order matters (a read of an element written earlier), the sketch reads the
            # previous value like any other, and validation refutes it.
            self.reversed[f.induction_variable] = lo + hi - 1
        for side, b in (("lower", lb), ("upper", ub)):
            if isinstance(b, int):
                continue
            if b[0] is COUNTER:  # index(pos) - lo  >= / <  counter + c - lo
                masks.append(_CounterMask(pos, "GE" if side == "lower" else "LT", b[1] - lo))
                continue
            # absolute l >= a + c (lower) or l < a + c (upper), in indices relative to the boxes
            outer = at[b[0]]
            d = loops[outer].lo + b[1] - lo
            table = {"lower": {0: "GE", 1: "GT"}, "upper": {0: "LT", 1: "LE"}}[side]
            if d not in table:
                raise NoSketch("a triangular bound whose offset is not a strict or loose comparison")
            masks.append(_Mask(pos, outer, table[d]))
        return pos


@dataclass(frozen=True)
class _Flipped:
    """An index `plus - minus + c` (durbin's `r[k - i - 1]`: plus the counter, minus a
    loop index): read as the array flipped about the counter (flip), at `minus`."""
    plus: ir.Value
    minus: ir.Value


def _linear(e: ir.AffineExpr, symbols: list[int] | None = None) -> tuple[dict[int, int], int] | None:
    """({dim position: coefficient}, constant) of an affine expression without mod or div,
    and without symbols unless `symbols` gives their values; None for others."""
    if isinstance(e, ir.AffineConstantExpr):
        return {}, e.value
    if isinstance(e, ir.AffineSymbolExpr):
        return ({}, symbols[e.position]) if symbols is not None and e.position < len(symbols) else None
    if isinstance(e, ir.AffineDimExpr):
        return {e.position: 1}, 0
    if isinstance(e, ir.AffineAddExpr):
        a, b = _linear(e.lhs, symbols), _linear(e.rhs, symbols)
        if a is None or b is None:
            return None
        coeffs = dict(a[0])
        for d, c in b[0].items():
            coeffs[d] = coeffs.get(d, 0) + c
        return {d: c for d, c in coeffs.items() if c}, a[1] + b[1]
    if isinstance(e, ir.AffineMulExpr):
        a, b = _linear(e.lhs, symbols), _linear(e.rhs, symbols)
        if a is None or b is None or (a[0] and b[0]):
            return None
        (k, (coeffs, c)) = (a[1], b) if not a[0] else (b[1], a)
        return {d: k * v for d, v in coeffs.items() if k * v}, k * c
    return None


def _only_negated(iv: ir.Value) -> bool:
    """Whether every use of loop index `iv` is in an affine load / store's subscripts,
    each with coefficient -1 (and at least one use)."""
    uses = list(iv.uses)
    if not uses:
        return False
    for use in uses:
        op = use.owner
        if op.name not in ("affine.load", "affine.store"):
            return False
        view = op.opview
        dims = [d for d, v in enumerate(view.indices) if v == iv]
        if not dims:
            return False
        amap = view.map.value
        for e in amap.results:
            form = _linear(e, [0] * amap.n_symbols)  # the coefficients are what matters
            if form is None or any(form[0].get(d, 0) not in (0, -1) for d in dims):
                return False
    return True


def _unit_offset(e: ir.AffineExpr, operands: list[ir.Value], n_dims: int,
                 flips: bool = False, reversed_: dict | None = None,
                 symbols: list[int] | None = None) -> tuple[ir.Value | _Flipped | None, int]:
    """(loop index, c) for an index `iv + c`, (None, c) for a constant index c; with
    `flips`, (_Flipped, c) for an index `a - b + c`; for an index `-iv + c` of a loop
    read backwards (`reversed_`: iv -> K, the loop read as j = K - iv), (iv, c - K);
    else NoSketch. `symbols`: the values of the map's symbols (at the stand-in sizes)."""
    form = _linear(e, symbols)
    if form is not None:
        coeffs, c = form
        if not coeffs:
            return None, c
        if len(coeffs) == 1 and set(coeffs.values()) == {1}:
            return operands[next(iter(coeffs))], c
        if len(coeffs) == 1 and set(coeffs.values()) == {-1} and reversed_ \
                and operands[next(iter(coeffs))] in reversed_:
            iv = operands[next(iter(coeffs))]
            return iv, c - reversed_[iv]
        if flips and len(coeffs) == 2 and sorted(coeffs.values()) == [-1, 1]:
            plus = next(d for d, v in coeffs.items() if v == 1)
            minus = next(d for d, v in coeffs.items() if v == -1)
            return _Flipped(operands[plus], operands[minus]), c
    raise NoSketch(f"the index {e} is not a loop index plus a constant")


def _edge(c: int, n) -> str:
    """"first" or "last" for a constant index c along a dim of extent n; NoSketch else."""
    if c == 0:
        return "first"
    if c == int(n) - 1:
        return "last"
    raise NoSketch("a constant index inside an array (not its first or last element)")


def _memref(op) -> ir.Value:
    """The memref a load or store accesses."""
    return (op.opview if hasattr(op, "opview") else op).memref


def _access(op, reversed_: dict | None = None, size=None) -> tuple[ir.Value, list[tuple[ir.Value, int]]]:
    """(memref, [(loop index, offset) per dim]) of an affine / memref load or store
    (`reversed_`: the loops read backwards, see _unit_offset; `size`: value -> int, the
    value of a size symbol in a subscript, at the stand-in sizes)."""
    view = op.opview if hasattr(op, "opview") else op
    if op.name.startswith("affine."):
        amap = view.map.value
        operands = list(view.indices)
        symbols = [size(v) for v in operands[amap.n_dims:]] if size is not None and amap.n_symbols else None
        return view.memref, [_unit_offset(e, operands, amap.n_dims, True, reversed_, symbols)
                             for e in amap.results]
    return view.memref, [(v, 0) for v in view.indices]


def _local_scalar(memref: ir.Value) -> ir.Value | None:
    """The memref itself where it is a local scalar (memref.alloca of one element), else None."""
    if _is_block_argument(memref) or memref.owner.name != "memref.alloca":
        return None
    t = ir.MemRefType(memref.type)
    return memref if all(n == 1 for n in t.shape) else None


def _local_array(memref: ir.Value) -> ir.Value | None:
    """The memref itself where it is a local array (memref.alloca of more than one element)."""
    if _is_block_argument(memref) or memref.owner.name != "memref.alloca" or _local_scalar(memref) is not None:
        return None
    return memref


def _nest(op, what: str) -> list:
    """The affine.for ops around `op`, outermost first; NoSketch ("`what` inside ...")
    inside anything else."""
    nest = []
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name != "affine.for":
            raise NoSketch(f"{what} inside {parent.name}")
        nest.append(parent.opview)
        parent = parent.parent
    return nest[::-1]


def _same_bounds(f, g) -> bool:
    """Whether two loops run over the same range (the same bound maps of the same values)."""
    return str(f.lowerBoundMap.value) == str(g.lowerBoundMap.value) and \
        str(f.upperBoundMap.value) == str(g.upperBoundMap.value) and \
        list(f.operands) == list(g.operands) and loop_step(f) == loop_step(g)


_CMPI = {2: "slt", 3: "sle", 4: "sgt", 5: "sge"}  # arith.cmpi's signed orders


def _min_max(op, dialect: str) -> str:
    """The grammar's min or max for `select(cmpi(a, b), a, b)` (floyd-warshall's shorter
    path, nussinov's max); NoSketch for other selects. Unsigned predicates are not the
    grammar's (signed) min / max, and a float select by an ordered compare returns b on
    NaN where min / max propagate it: both left out."""
    cond, a, b = op.operands
    if _is_block_argument(cond) or cond.owner.name != "arith.cmpi":
        raise NoSketch("a select on something other than an integer comparison")
    word = _CMPI.get(ir.IntegerAttr(cond.owner.attributes["predicate"]).value)
    x, y = cond.owner.operands
    if word is None or {x, y} != {a, b} or a == b:
        raise NoSketch("a select that is not a min or max of the values it compares")
    smaller = word in ("slt", "sle")  # x < y
    which = "min" if smaller == (x == a) else "max"
    return {"stablehlo": {"min": "minimum", "max": "maximum"},
            "linalg": {"min": "min", "max": "max"}}[dialect][which]


# comparisons that mean what the grammar's compare does on every value, NaN included:
# ordered float predicates (false on NaN, as stablehlo's compare and linalg's cmpf o*),
# `une` (true on NaN, stablehlo's NE), and the signed integer ones
_CMPF_DIRECTION = {1: "EQ", 2: "GT", 3: "GE", 4: "LT", 5: "LE", 13: "NE"}  # oeq ogt oge olt ole une
_CMPI_DIRECTION = {0: "EQ", 1: "NE", 2: "LT", 3: "LE", 4: "GT", 5: "GE"}  # eq ne slt sle sgt sge


def _compare_direction(cmp) -> str:
    """The grammar's comparison direction of an arith.cmpf / cmpi; NoSketch for a
    predicate it does not mean (unsigned, or a float one whose NaN answer differs)."""
    code = ir.IntegerAttr(cmp.attributes["predicate"]).value
    table = _CMPF_DIRECTION if cmp.name == "arith.cmpf" else _CMPI_DIRECTION
    if code not in table:
        raise NoSketch(f"a comparison the grammar does not mean ({cmp.name} predicate {code})")
    return table[code]


def _factors(value: ir.Value, name: str) -> list[ir.Value]:
    """The operands of a tree of `name` ops (a product a * b * c), left to right."""
    if _is_block_argument(value) or value.owner.name != name:
        return [value]
    return [f for v in value.owner.operands for f in _factors(v, name)]


class _Sketcher:
    """Builds the sketch of one statement: views over loop positions, combined
    elementwise (broadcast to the union of their dims), reduced over the loops the store
    does not index (contractions where a product has the reduced loop on both sides)."""

    def __init__(self, reader: _Reader, loops: list[_Loop], dtype: str):
        self.reader, self.loops, self.dtype = reader, loops, dtype
        self.dialect = reader.dialect
        self.dim_shape: dict[int, object] = {}  # loop position -> extent (a Size where known)
        self._broadcasts: dict = {}

    def apply(self, short: str, args: tuple, attrs: tuple = ()) -> Expr:
        op = self.reader.op(short)
        try:
            rt = op.result_type(tuple(a.type for a in args), attrs)
        except ShapeError as e:
            raise NoSketch(str(e)) from None
        return Expr(rt, op, attrs, args)

    def shape(self, dims) -> tuple:
        if any(p not in self.dim_shape for p in dims):
            raise NoSketch("a loop no array is indexed by")
        return tuple(self.dim_shape[p] for p in dims)

    def record(self, pos: int, extent) -> None:
        known = self.dim_shape.setdefault(pos, extent)
        if int(known) != int(extent):
            raise NoSketch("one loop over views of different extents")

    # -- views ---------------------------------------------------------------------------------
    def broadcast(self, v: _View, dims: tuple[int, ...]) -> _View:
        if v.dims == dims:
            return v
        key = (id(v.expr), dims)  # a value broadcast once per shape (a constant used several times)
        if key not in self._broadcasts:
            self._broadcasts[key] = (v, self._broadcast(v, dims))  # v kept alive: its id stays its own
        return self._broadcasts[key][1]

    def _broadcast(self, v: _View, dims: tuple[int, ...]) -> _View:
        shape = self.shape(dims)
        if self.dialect == "stablehlo":
            kept = tuple(dims.index(p) for p in v.dims)
            return _View(self.apply("broadcast_in_dim", (v.expr,), (("dims", kept), ("shape", shape))), dims)
        added = tuple(k for k, p in enumerate(dims) if p not in v.dims)
        return _View(self.apply("broadcast", (v.expr,), (("dims", added), ("shape", shape))), dims)

    def combine(self, short: str, *views: _View) -> _View:
        dims = tuple(sorted(set().union(*(v.dims for v in views))))
        return _View(self.apply(short, tuple(self.broadcast(v, dims).expr for v in views)), dims)

    def in_order(self, expr: Expr, dims: tuple[int, ...]) -> _View:
        """A tensor whose dims are the loops `dims` in that order, transposed into nest order."""
        order = sorted(range(len(dims)), key=lambda k: dims[k])
        if order == list(range(len(dims))):
            return _View(expr, tuple(dims))
        t = self.apply("transpose", (expr,), (("permutation", tuple(order)),))
        return _View(t, tuple(sorted(dims)), natural=(expr, tuple(dims)))

    def constant(self, value: float, dims: tuple[int, ...] = ()) -> _View:
        if self.dialect == "stablehlo":
            c = _View(self.apply("constant", (), (("dtype", self.dtype), ("value", float(value)))), ())
            return self.broadcast(c, dims)
        return _View(self.apply("fill", (), (("dtype", self.dtype), ("shape", self.shape(dims)),
                                              ("value", float(value)))), dims)

    def select(self, mask, x: _View, y: _View) -> _View:
        """x where the mask holds, y elsewhere (x and y over the same dims, which hold the mask's)."""
        if isinstance(mask, _CounterMask):
            a = (("dim", x.dims.index(mask.a)), ("direction", mask.direction), ("offset", mask.offset))
            return _View(self.apply("counter_select", (x.expr, y.expr, self.reader.counter_leaf()), a), x.dims)
        a, b, direction = x.dims.index(mask.a), x.dims.index(mask.b), mask.direction
        if self.dialect == "linalg":
            if a > b:
                a, b, direction = b, a, _FLIP.get(direction, direction)
            return _View(self.apply("select_index", (x.expr, y.expr),
                                    (("dims", (a, b)), ("direction", direction))), x.dims)
        shape = self.shape(x.dims)
        ia = self.apply("iota", (), (("dim", a), ("dtype", "i64"), ("shape", shape)))
        ib = self.apply("iota", (), (("dim", b), ("dtype", "i64"), ("shape", shape)))
        pred = self.apply("compare", (ia, ib), (("direction", direction),))
        return _View(self.apply("select", (pred, x.expr, y.expr)), x.dims)

    def masked(self, v: _View, masks) -> _View:
        for m in masks:
            if not m.loops <= set(v.dims):
                v = self.broadcast(v, tuple(sorted(set(v.dims) | m.loops)))
            v = self.select(m, v, self.constant(0.0, v.dims))
        return v

    # -- reductions ----------------------------------------------------------------------------
    def reduce(self, v: _View, positions) -> _View:
        for p in sorted(positions, reverse=True):
            k = v.dims.index(p)
            v = _View(self.apply("reduce_add", (v.expr,), (("dim", k),)), v.dims[:k] + v.dims[k + 1:])
        return v

    def contract(self, x: _View, y: _View, reduced: frozenset, masks) -> _View:
        for m in masks:  # each mask on the operand that has both its loops
            if m.loops <= set(x.dims):
                x = self.masked(x, [m])
            elif m.loops <= set(y.dims):
                y = self.masked(y, [m])
            else:
                raise NoSketch("a triangular bound across the factors of a product")
        x, y = (_View(*v.natural) if v.natural else v for v in (x, y))
        x = self.reduce(x, (set(x.dims) & reduced) - set(y.dims))
        y = self.reduce(y, (set(y.dims) & reduced) - set(x.dims))
        common = set(x.dims) & set(y.dims)
        contract = sorted(common & reduced)
        batch = sorted(common - reduced)
        free_x = [p for p in x.dims if p not in common]
        free_y = [p for p in y.dims if p not in common]
        if self.dialect == "linalg":
            named = self.named_contraction(x, y, batch, contract, free_x, free_y)
            if named is not None:
                return named
        dims = attrs(lhs_batch=tuple(x.dims.index(p) for p in batch),
                     rhs_batch=tuple(y.dims.index(p) for p in batch),
                     lhs_contract=tuple(x.dims.index(p) for p in contract),
                     rhs_contract=tuple(y.dims.index(p) for p in contract))
        expr = self.apply("dot_general", (x.expr, y.expr), dims)
        return self.in_order(expr, tuple(batch + free_x + free_y))


    def merge_one(self, views: list[_View], short: str) -> list[_View]:
        """Two of the factors of a product multiplied elementwise: one whose loops another
        has (w[k] into X[k, i]), else the two that share the most loops."""
        pairs = [(i, j) for i in range(len(views)) for j in range(len(views)) if i != j]
        i, j = max(pairs, key=lambda ij: (set(views[ij[0]].dims) <= set(views[ij[1]].dims),
                                          len(set(views[ij[0]].dims) & set(views[ij[1]].dims))))
        merged = self.combine(short, views[i], views[j])
        return [v for k, v in enumerate(views) if k not in (i, j)] + [merged]

    def transposed(self, v: _View, dims: tuple[int, ...]) -> Expr:
        """v's tensor with its dims in the order `dims`."""
        if v.dims == dims:
            return v.expr
        perm = tuple(v.dims.index(p) for p in dims)
        return self.apply("transpose", (v.expr,), (("permutation", perm),))

    def named_contraction(self, x: _View, y: _View, batch, contract, free_x, free_y) -> _View | None:
        """The contraction as a named linalg op (matmul, matvec, vecmat, batch_matmul, dot:
        what the backends schedule best), operands in the order with fewer transposes;
        None for other forms."""
        if len(contract) != 1 or len(batch) > 1 or len(free_x) > 1 or len(free_y) > 1:
            return None
        names = {(0, 1, 1): "matmul", (0, 1, 0): "matvec", (0, 0, 1): "vecmat",
                 (1, 1, 1): "batch_matmul", (0, 0, 0): "dot"}
        options = []
        for a, b, fa, fb in ((x, y, free_x, free_y), (y, x, free_y, free_x)):
            name = names.get((len(batch), len(fa), len(fb)))
            if name is None:
                continue
            want_a, want_b = tuple(batch + fa + contract), tuple(batch + contract + fb)
            cost = (a.dims != want_a) + (b.dims != want_b)
            options.append((cost, name, a, b, want_a, want_b, tuple(batch + fa + fb)))
        if not options:
            return None
        _, name, a, b, want_a, want_b, out = min(options, key=lambda o: o[0])
        expr = self.apply(name, (self.transposed(a, want_a), self.transposed(b, want_b)))
        return self.in_order(expr, out)


def statement_sketch(func, dialect: str, params: dict[int, int], input_types: dict[int, TensorType],
                     output: int, output_type: TensorType, counter: int | None = None,
                     counter_range: tuple[int, int] | None = None) -> Expr:
    """The sketch of the one statement of `func` (a part function at the stand-in sizes)
    writing argument `output`; NoSketch where the statement is outside the tactic.
    `counter`: the argument holding the counter of a loop kept as a loop (one step of it is
    `func`), whose values are `counter_range` at the stand-in sizes: an index at the
    counter is a `take` of that dim (a `put` for the store), a loop bounded by it a
    `counter_select` mask."""
    reader = _Reader(func, dialect, params, input_types, counter, counter_range)
    store, loops, masks = reader.statement()
    # a loop that runs once and whose index nothing uses (a time loop's one step) is no dim
    dropped = [p for p, l in enumerate(loops) if l.hi - l.lo == 1 and not any(True for _ in l.iv.uses)]
    if dropped:
        keep = [p for p in range(len(loops)) if p not in dropped]
        if any(m.loops & set(dropped) for m in masks):
            raise NoSketch("a triangular bound on a loop that runs once")
        masks = [m.moved(keep) for m in masks]
        loops = [loops[p] for p in keep]
    at = {l.iv: p for p, l in enumerate(loops)}
    memref, full_index = reader.access(store.operation)
    if reader.arg_index(memref) != output:
        raise NoSketch("the store writes a local")
    # an index at the counter: the block is written into that slice of the array (put)
    store_counter = {d: c for d, (iv, c) in enumerate(full_index) if iv is not None and reader.is_counter(iv)}
    store_index = list(full_index)
    if store_counter:
        output_type = output_type.with_shape(tuple(n for d, n in enumerate(output_type.shape)
                                                   if d not in store_counter))
        full_index = [x for d, x in enumerate(full_index) if d not in store_counter]
    # a constant index (ey[0][j] = ...) writes the array's first or last element along
    # that dim: the block over the other dims, then select_edge into the previous value
    store_edges = {d: _edge(c, output_type.shape[d]) for d, (iv, c) in enumerate(full_index) if iv is None}
    if store_edges and store_counter:
        raise NoSketch("a store at a constant index and at the counter")
    index = [x for d, x in enumerate(full_index) if d not in store_edges]
    stored: list[int] = []  # loop position of each store dim
    for iv, c in index:
        if iv not in at or at[iv] in stored:
            raise NoSketch("a store index that is not a distinct loop index")
        stored.append(at[iv])
    if stored != sorted(stored):
        # the loops renumbered so that the store's dims come first, in the store's order:
        # the views are built in that order, and the block needs no transpose at the end
        # (gramschmidt's A[i][j] -= ... in a j, i nest: a transposed copy per step otherwise)
        order = stored + [p for p in range(len(loops)) if p not in stored]
        loops = [loops[p] for p in order]
        masks = [m.moved(order) for m in masks]
        at = {l.iv: p for p, l in enumerate(loops)}
        stored = list(range(len(stored)))
    reduced = frozenset(range(len(loops))) - set(stored)
    if any(l.hi <= l.lo for l in loops):
        raise NoSketch("an empty loop")
    shape = tuple(n for d, n in enumerate(output_type.shape) if d not in store_edges)
    block_lo = tuple(loops[p].lo + c for p, (_, c) in zip(stored, index))
    block_hi = tuple(int(shape[d]) - block_lo[d] - (loops[p].hi - loops[p].lo) for d, p in enumerate(stored))
    if any(not 0 <= v <= MAX_TRIM for v in block_lo + block_hi):
        raise NoSketch("the block written is not the array less at most 2 elements at each end")
    block = tuple(shrink_dim(shape[d], block_lo[d] + block_hi[d]) for d in range(len(shape)))
    if None in block:
        raise NoSketch("an array extent that is a floordiv of sizes")
    dtype = output_type.dtype
    sk = _Sketcher(reader, loops, dtype)
    for d, p in enumerate(stored):
        sk.record(p, block[d])
    memo: dict = {}

    views: dict = {}  # (array, access) -> its view: an element read twice is one node
    fixed: set = set()  # loop indices at the counter: the statement on the counter's line
    stored_value = store.operands[0] if store.operation.name == "memref.store" else store.value

    def at_counter(iv) -> bool:
        return reader.is_counter(iv) or (isinstance(iv, ir.Value) and iv in fixed)

    def load(op) -> _View:
        array, idx = reader.access(op)
        if _local_scalar(array) is not None:
            return local_value(array, op)
        if _local_array(array) is not None:
            return local_array_value(array, op)
        k = reader.arg_index(array)
        if k is None or k not in input_types:
            raise NoSketch("a load from a local or an array the group does not read")
        if (k, tuple(idx)) not in views:
            line = written_before(k, idx)
            views[(k, tuple(idx))] = view_of(k, idx) if line is None else line
        return views[(k, tuple(idx))]

    def written_before(k: int, idx) -> _View | None:
        """A read of the written array on the counter's line through the current element
        (floyd-warshall's A[i][k] in step k: the element (i, k), which this step writes
        when its j loop is at k): the value the statement stores there where that
        iteration comes before the current one (index(q) > counter), the previous value
        elsewhere. None where the read is not of that form."""
        if k != output or store_counter or masks:
            return None
        lines = [d for d, (iv, c) in enumerate(idx) if reader.is_counter(iv) and c == 0]
        if len(lines) != 1 or len(idx) != len(store_index):
            return None
        d = lines[0]
        if any(idx[e] != store_index[e] for e in range(len(idx)) if e != d):
            return None
        iv_q, c = store_index[d]
        if c != 0 or iv_q not in at or iv_q in fixed:
            return None
        q = at[iv_q]
        saved = dict(memo), dict(views)
        memo.clear()
        views.clear()
        fixed.add(iv_q)
        try:
            new = read(stored_value)  # the statement with loop q at the counter
        finally:
            fixed.discard(iv_q)
            memo.clear()
            memo.update(saved[0])
            views.clear()
            views.update(saved[1])
        old = view_of(k, idx)
        dims = tuple(sorted(set(new.dims) | set(old.dims) | {q}))
        mask = _CounterMask(q, "GT", -loops[q].lo)
        return sk.select(mask, sk.broadcast(new, dims), sk.broadcast(old, dims))

    def taken(k: int, idx) -> tuple[Expr, list]:
        """Argument k with its dims indexed at the counter taken (the highest first, so the
        others keep their positions), and the indices of the dims left."""
        expr, rest = Expr(input_types[k], leaf=k), list(idx)
        for d, (iv, c) in enumerate(idx):
            if isinstance(iv, _Flipped):
                if not reader.is_counter(iv.plus):
                    raise NoSketch("an index that is a difference of loop indices")
                expr = sk.apply("flip", (expr, reader.counter_leaf()), (("dim", d), ("offset", c)))
                rest[d] = (iv.minus, 0)
        for d in sorted((d for d, (iv, _) in enumerate(idx) if iv is not None and at_counter(iv)), reverse=True):
            expr = sk.apply("take", (expr, reader.counter_leaf()), (("dim", d), ("offset", idx[d][1])))
            del rest[d]
        return expr, rest

    def view_of(k: int, idx) -> _View:
        """Argument k read at `idx` ((loop index, offset) per dim) over the loops."""
        # a read of the written array at another element is taken as a read of its previous
        # value (right where the original reads elements it has not written yet, as trmm's
        # k > i; a recurrence's sketch is wrong on the examples, and not taken)
        if len(idx) != input_types[k].rank:
            raise NoSketch("an access of another rank")
        leaf, idx = taken(k, idx)
        t = leaf.type
        if leaf.op is not None and any(iv is None for iv, _ in idx):
            raise NoSketch("a load at a constant index and at the counter")
        edges = {}  # dim -> "first" | "last": a constant index (fict[0], A[n - 1][j])
        for d, (iv, c) in enumerate(idx):
            if iv is None:
                edges[d] = _edge(c, t.shape[d])
        if edges:
            return edge_view(k, t, idx, edges)
        dims, lo, hi = [], [], []
        diagonal = None  # (loop position, its stand-in second position) of an A[i, i]
        for d, (iv, c) in enumerate(idx):
            if iv not in at:
                raise NoSketch("a load index that is not a loop index")
            p = at[iv]
            if p in dims:
                if diagonal is not None or idx[dims.index(p)][1] != c:
                    raise NoSketch("a load index that is not a distinct loop index")
                diagonal = (p, DIAGONAL + p)
                p = DIAGONAL + p
            loop = loops[at[iv]]
            lo.append(loop.lo + c)
            hi.append(int(t.shape[d]) - lo[-1] - (loop.hi - loop.lo))
            dims.append(p)
        if any(not 0 <= v <= MAX_TRIM for v in lo + hi):
            raise NoSketch("a load view that is not the array less at most 2 elements at each end")
        view = leaf if not any(lo + hi) else sk.apply(
            "slice_range" if dialect == "stablehlo" else "extract_range", (leaf,),
            (("lo", tuple(lo)), ("hi", tuple(hi))))
        for d, p in enumerate(dims):
            sk.record(p, view.type.shape[d])
        v = sk.in_order(view, tuple(dims))
        if diagonal is None:
            return v
        # the diagonal: the elements where both indices agree, summed over the second
        return sk.reduce(sk.masked(v, [_Mask(diagonal[0], diagonal[1], "EQ")]), {diagonal[1]})

    def edge_view(k: int, t: TensorType, idx, edges: dict) -> _View:
        """Argument k at a constant index along the dims `edges` (its first or last
        element there), over the loops of its other dims (which cover those dims whole)."""
        rest = [(iv, c) for d, (iv, c) in enumerate(idx) if d not in edges]
        positions = sorted(edges.values())
        if len(set(positions)) != 1:
            raise NoSketch("constant indices at both ends")
        a = (("dims", tuple(sorted(edges))), ("position", positions[0]))
        kept = TensorType(tuple(n for d, n in enumerate(t.shape) if d not in edges), t.dtype)
        expr = sk.apply("slice_edge", (Expr(t, leaf=k),), a)
        if dialect == "stablehlo":  # its slice_edge keeps the rank
            expr = sk.apply("reshape", (expr,), (("shape", kept.shape),))
        dims = []
        for d, (iv, c) in enumerate(rest):
            if iv is None or iv not in at or at[iv] in dims or c != 0:
                raise NoSketch("a load at a constant index and other than loop indices elsewhere")
            loop = loops[at[iv]]
            if loop.lo != 0 or loop.hi != int(kept.shape[d]):
                raise NoSketch("a load at a constant index over part of its other dims")
            sk.record(at[iv], kept.shape[d])
            dims.append(at[iv])
        return sk.in_order(expr, tuple(dims))

    def read(value: ir.Value) -> _View:
        if value not in memo:  # a value used twice is one node (emitted once)
            memo[value] = _read(value)
        return memo[value]

    def _read(value: ir.Value) -> _View:
        k = reader.arg_index(value)
        if k is not None:
            if k not in input_types or input_types[k].rank != 0:
                raise NoSketch("a scalar argument the problem does not take")
            return _View(Expr(input_types[k], leaf=k), ())
        if _is_block_argument(value):
            raise NoSketch("a loop index used as a value")
        op = value.owner
        if op.name in ("affine.load", "memref.load"):
            return load(op)
        if op.name == "affine.for":
            return iterated(op.opview)
        if op.name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, (ir.FloatAttr, ir.IntegerAttr)):
                return sk.constant(attr.value)
            raise NoSketch("a constant that is not a number")
        if op.name == "arith.select":  # select(a < b, a, b): min; select(a > b, a, b): max
            try:
                short = _min_max(op, dialect)
            except NoSketch:  # any other: the comparison and the select as written
                return selected(op)
            return sk.combine(short, *(read(v) for v in op.operands[1:]))
        short = _ELEMENTWISE[dialect].get(op.name)
        if short is None:
            raise NoSketch(f"{op.name} has no elementwise op in the grammar")
        return sk.combine(short, *(read(v) for v in op.operands))

    def selected(op) -> _View:
        """`select(cmp(a, b), x, y)` as written: stablehlo compare + select, linalg's fused
        select_cmp (the four operands broadcast to the union of their loops)."""
        cond = op.operands[0]
        if _is_block_argument(cond) or cond.owner.name not in ("arith.cmpf", "arith.cmpi"):
            raise NoSketch("a select on something other than a comparison")
        direction = _compare_direction(cond.owner)
        views = [read(v) for v in (*cond.owner.operands, *op.operands[1:])]
        dims = tuple(sorted(set().union(*(v.dims for v in views))))
        a, b, x, y = (sk.broadcast(v, dims).expr for v in views)
        if dialect == "linalg":
            return _View(sk.apply("select_cmp", (a, b, x, y), (("direction", direction),)), dims)
        pred = sk.apply("compare", (a, b), (("direction", direction),))
        return _View(sk.apply("select", (pred, x, y)), dims)

    def local_value(array: ir.Value, use) -> _View:
        """A local scalar read after its definition: a store of an initial value outside
        any loop, then (optionally) a loop nest adding into it (`nrm = 0; for i: nrm +=
        a[i] * a[i]`): the initial value plus the term summed over that nest."""
        stores = [u.owner for u in array.uses if u.owner.name in ("affine.store", "memref.store")]
        top = [st for st in stores if st.parent.name == "func.func"]
        nested = [st for st in stores if st.parent.name != "func.func"]
        if len(top) != 1 or len(nested) > 1:
            raise NoSketch("a local scalar that is not an initial value plus one accumulation")
        init = read(top[0].operands[0])
        if not nested:
            return init
        acc = nested[0]
        op = None if _is_block_argument(acc.operands[0]) else acc.operands[0].owner
        if op is None or op.name not in ("arith.addf", "arith.addi"):
            raise NoSketch("a local scalar accumulated other than by a sum")
        own = [x for x in op.operands if not _is_block_argument(x) and x.owner.name in ("affine.load", "memref.load")
               and _memref(x.owner) == array]
        if len(own) != 1:
            raise NoSketch("a local scalar accumulated other than by a sum")
        term = next(x for x in op.operands if x != own[0])
        masks: list = []
        positions = []
        for f in _nest(acc, "a local accumulation"):
            pos = reader.place(f, loops, masks)
            at[f.induction_variable] = pos
            positions.append(pos)
        total = summed(term, masks, frozenset(positions))
        value = top[0].operands[0]
        if not _is_block_argument(value) and value.owner.name == "arith.constant" and \
                float(value.owner.attributes["value"].value) == 0.0:
            return total  # a sum from 0
        return sk.combine(_ELEMENTWISE[dialect][op.name], init, total)

    def local_array_value(array: ir.Value, use) -> _View:
        """A local array read where one store defined it: in a nest over the same ranges,
        at the same index (durbin's `z[i] = ...` then `y[i] = z[i]`): the stored value,
        its loop indices those of the read."""
        stores = [u.owner for u in array.uses if u.owner.name in ("affine.store", "memref.store")]
        if len(stores) != 1:
            raise NoSketch("a local array stored more than once")
        define = stores[0]
        outer, inner = _nest(define, "a local array used"), _nest(use, "a local array used")
        _, at_def = reader.access(define)
        _, at_use = reader.access(use)
        if len(outer) != len(inner) or not all(_same_bounds(f, g) for f, g in zip(outer, inner)):
            raise NoSketch("a local array read over other ranges than it is written")
        position = {f.induction_variable: k for k, f in enumerate(outer)}
        for (a, c), (b, d) in zip(at_def, at_use):
            if c != d or a not in position or inner[position[a]].induction_variable != b:
                raise NoSketch("a local array read at another index than it is written")
        for f, g in zip(outer, inner):
            if g.induction_variable not in at:
                raise NoSketch("a local array read outside the statement's loops")
            at[f.induction_variable] = at[g.induction_variable]
        value = define.operands[0] if define.name == "memref.store" else define.opview.value
        return read(value)

    def iterated(f) -> _View:
        """The result of a loop that sums into a scalar (`iter_args(%s = init)`, yielding
        `%s + term`): init plus the term summed over the loop's range (symm's temp2)."""
        try:
            add, term, init = carried_sum(f)
        except ValueError as e:
            raise NoSketch(f"a loop that {e}") from None
        masks: list[_Mask] = []
        pos = reader.place(f, loops, masks)
        at[f.induction_variable] = pos
        total = summed(term, masks, frozenset({pos}))
        if not _is_block_argument(init) and init.owner.name == "arith.constant" and \
                float(init.owner.attributes["value"].value) == 0.0:
            return total
        return sk.combine(_ELEMENTWISE[dialect][add], read(init), total)

    def summed(value: ir.Value, inner: list[_Mask], over: frozenset | None = None) -> _View:
        """The sum of `value` over the loops `over` (the reduced loops by default), masked
        by `inner` (the triangular bounds that involve one of them), as a view over the
        others."""
        over = reduced if over is None else over
        v = read(value)
        if not set(v.dims) & over:
            raise NoSketch("a term constant along a reduced loop (a sum of copies)")
        op = None if _is_block_argument(value) else value.owner
        name = op.name if op is not None else ""
        if name in ("arith.addf", "arith.subf", "arith.addi", "arith.subi"):
            a, b = op.operands
            parts = [summed(x, inner, over) if set(read(x).dims) & over else None for x in (a, b)]
            if None in parts:
                raise NoSketch("a term constant along a reduced loop (a sum of copies)")
            return sk.combine(_ELEMENTWISE[dialect][name], *parts)
        if name == "arith.negf":
            return sk.combine(_ELEMENTWISE[dialect][name], summed(op.operands[0], inner, over))
        if name in ("arith.mulf", "arith.muli"):
            # the factors constant along the reduced loops are taken out of the sum; the
            # others are one summed term, or the two sides of a contraction
            factors = _factors(value, name)
            outside = [read(f) for f in factors if not set(read(f).dims) & over]
            within = [f for f in factors if set(read(f).dims) & over]
            if len(within) == 1:
                core = summed(within[0], inner, over)
            else:
                if name != "arith.mulf" and dialect == "linalg":
                    raise NoSketch("an integer contraction")
                views = [read(f) for f in within]
                while len(views) > 2:
                    views = sk.merge_one(views, _ELEMENTWISE[dialect][name])
                core = sk.contract(views[0], views[1], over, inner)
            if outside:
                scale = outside[0]
                for v in outside[1:]:
                    scale = sk.combine(_ELEMENTWISE[dialect][name], scale, v)
                core = sk.combine(_ELEMENTWISE[dialect][name], scale, core)
            return core
        if name == "arith.divf" and not set(read(op.operands[1]).dims) & over:
            return sk.combine(_ELEMENTWISE[dialect][name], summed(op.operands[0], inner, over),
                              read(op.operands[1]))
        return sk.reduce(sk.masked(v, inner), set(v.dims) & over)

    value = store.operands[0] if store.operation.name == "memref.store" else store.value
    outer = [m for m in masks if not m.loops & reduced]
    inner = [m for m in masks if m not in outer]
    if reduced:
        # an accumulation: C[I] = C[I] + term (or - term), the term summed over the others
        op = None if _is_block_argument(value) else value.owner
        if op is None or op.name not in ("arith.addf", "arith.addi", "arith.subf", "arith.subi"):
            raise NoSketch("a loop the store does not index, not an accumulation")
        a, b = op.operands
        own = [x for x in (a, b) if not _is_block_argument(x) and x.owner.name in ("affine.load", "memref.load")
               and reader.arg_index(_memref(x.owner)) == output]
        if len(own) != 1 or (op.name in ("arith.subf", "arith.subi") and own[0] != a):
            raise NoSketch("a loop the store does not index, not an accumulation")
        term = b if own[0] == a else a
        body = sk.combine(_ELEMENTWISE[dialect][op.name], read(own[0]), summed(term, inner))
    else:
        body = read(value)
    if body.expr.type.dtype != dtype:
        raise NoSketch("the stored value's type differs from the array's")
    store_dims = tuple(sorted(stored))
    body = sk.broadcast(body, store_dims)
    if outer:  # a triangular block: the previous values outside it
        if output not in input_types:
            raise NoSketch("a triangular block of an array whose previous value is not an input")
        previous = load(store.operation)  # the array's previous value over the block
        for m in outer:
            body = sk.select(m, body, previous)
    result = body.expr
    order = [store_dims.index(p) for p in stored]  # nest order -> the store's order
    if order != list(range(len(order))):
        result = sk.apply("transpose", (result,), (("permutation", tuple(order)),))
    if store_edges:
        if output not in input_types:
            raise NoSketch("an edge of an array whose previous value is not an input")
        return _edge_store(sk, result, output, input_types[output], store_edges, block_lo + block_hi)
    if store_counter:
        if output not in input_types:
            raise NoSketch("a slice of an array whose previous value is not an input")
        if any(block_lo + block_hi):
            result = sk.apply("insert_range", (taken(output, store_index)[0], result),
                              (("lo", block_lo), ("hi", block_hi)))
        return _put_back(sk, reader, Expr(input_types[output], leaf=output), store_counter, result)
    if not any(block_lo + block_hi):
        return result
    if output not in input_types:
        raise NoSketch("a block of an array whose previous value is not an input")
    return sk.apply("insert_range", (Expr(input_types[output], leaf=output), result),
                    (("lo", block_lo), ("hi", block_hi)))


def _put_back(sk: "_Sketcher", reader: _Reader, array: Expr, at_counter: dict[int, int], value: Expr) -> Expr:
    """`array` with `value` written at the counter along the dims `at_counter` (dim ->
    offset): the slices taken down to value's (the highest dim first), then put back up."""
    dims = sorted(at_counter, reverse=True)
    chain = [array]
    for d in dims[:-1]:
        chain.append(sk.apply("take", (chain[-1], reader.counter_leaf()), (("dim", d), ("offset", at_counter[d]))))
    for d, base in zip(reversed(dims), reversed(chain)):
        value = sk.apply("put", (base, value, reader.counter_leaf()), (("dim", d), ("offset", at_counter[d])))
    return value


def _edge_store(sk: _Sketcher, result: Expr, output: int, output_type: TensorType, edges: dict,
                trims: tuple) -> Expr:
    """`result` (over the dims without a constant store index) written at the edges
    `edges` (dim -> "first" | "last") of the output's previous value: broadcast to the
    whole array, then select_edge."""
    positions = set(edges.values())
    if len(positions) != 1 or any(trims):
        raise NoSketch("a store at a constant index over part of its other dims, or at both ends")
    kept = tuple(d for d in range(output_type.rank) if d not in edges)
    if sk.dialect == "stablehlo":
        a = (("dims", kept), ("shape", output_type.shape))
    else:
        a = (("dims", tuple(sorted(edges))), ("shape", output_type.shape))
    whole = sk.apply("broadcast_in_dim" if sk.dialect == "stablehlo" else "broadcast", (result,), a)
    return sk.apply("select_edge", (whole, Expr(output_type, leaf=output)),
                    (("dims", tuple(sorted(edges))), ("position", positions.pop())))


def sketches(spec, dialect: str) -> dict[str, Expr]:
    """Problem name -> its sketch, for the problems of one-statement groups the tactic
    covers (synth.synthesis.spec.Specification at the stand-in sizes)."""
    from synth.frontend.reader import SourceModule

    out: dict[str, Expr] = {}
    # one problem; several statements only where all but one define local scalars
    groups = [g for g in spec.groups if len(g.problems) == 1]
    if not groups:
        return out
    params = spec.kernel.sizes.param_values(spec.standin)
    counter = spec.kernel.sizes.counter
    values = spec.kernel.sizes.counter_values(spec.standin)
    counter_range = (values[0], values[-1] + 1) if values else None
    source = SourceModule(spec.standin_source.path, spec.split_text)
    with source.context:
        module = source.parsed()
        funcs = {op.attributes["sym_name"].value: op for op in module.body.operations
                 if op.operation.name == "func.func"}
        for g in groups:
            problem = g.problems[0]
            try:
                out[problem.name] = statement_sketch(funcs[g.part], dialect, params, problem.input_types,
                                                     g.writes[0], problem.output_type, counter, counter_range)
            except NoSketch as e:
                if os.environ.get("SYNTH_DEBUG_SKETCH"):
                    print(f"sketch of {problem.name}: {e}", file=sys.stderr)
    return out
