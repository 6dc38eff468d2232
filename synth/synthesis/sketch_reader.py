"""Reading a statement for the sketch tactic (synth.synthesis.sketch): the loops of its
nest at the stand-in sizes (boxes, triangular masks, loops read backwards), each access as
(loop index, offset) per dim, and the small predicates the reading needs. NoSketch says
why a statement is outside the tactic."""

from __future__ import annotations


from dataclasses import dataclass

from mlir import ir

from synth.analysis.collect import loop_step
from synth.frontend.reader import affine_linear
from synth.grammar.op import Op, op_by_name
from synth.grammar.types import TensorType
from synth.grammar.unary_math import UNARY_MATH, linalg_name, stablehlo_name
from synth.analysis.affine_expr import compile_map
from synth.synthesis.constants import fold_constant
from synth.synthesis.program import Expr

MAX_TRIM = 2  # elements a slice may drop at either end (stencil offsets)
DIAGONAL = 1000  # position of the second index of a diagonal read A[i, i] of loop i: 1000 + i

ELEMENTWISE = {  # arith / math op -> grammar op short name, per dialect
    "stablehlo": {
        "arith.addf": "add", "arith.addi": "add", "arith.subf": "subtract", "arith.subi": "subtract",
        "arith.mulf": "multiply", "arith.muli": "multiply", "arith.divf": "divide", "arith.divsi": "divide",
        "arith.maximumf": "maximum", "arith.maxf": "maximum", "arith.maxnumf": "maximum",
        "arith.maxsi": "maximum", "arith.minimumf": "minimum", "arith.minf": "minimum",
        "arith.minnumf": "minimum", "arith.minsi": "minimum", "arith.negf": "negate",
        "math.sqrt": "sqrt", "math.exp": "exponential", "math.log": "log", "math.absf": "abs", "math.absi": "abs",
        "math.powf": "power",
        "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor", "arith.shli": "shift_left",
        "arith.shrsi": "shift_right_arithmetic", "arith.remsi": "remainder",
        "arith.shrui": "shift_right_logical",
        **{f.math_op: stablehlo_name(f).split(".", 1)[1] for f in UNARY_MATH},
    },
    "linalg": {
        "arith.addf": "add", "arith.addi": "add", "arith.subf": "sub", "arith.subi": "sub",
        "arith.mulf": "mul", "arith.muli": "mul", "arith.divf": "div", "arith.divsi": "div",
        "arith.maximumf": "max", "arith.maxf": "max", "arith.maxnumf": "max", "arith.maxsi": "max",
        "arith.minimumf": "min", "arith.minf": "min", "arith.minnumf": "min", "arith.minsi": "min",
        "arith.negf": "negf", "math.sqrt": "sqrt", "math.exp": "exp", "math.log": "log", "math.absf": "abs", "math.powf": "powf",
        "math.absi": "abs", "arith.andi": "andi", "arith.ori": "ori", "arith.xori": "xori",
        "arith.shli": "shli", "arith.shrsi": "shrsi", "arith.remsi": "remsi", "arith.shrui": "shrui",
        **{f.math_op: linalg_name(f).split(".", 1)[1] for f in UNARY_MATH},
    },
}


class NoSketch(Exception):
    """The statement is outside what the sketch covers (the message says how)."""


@dataclass
class Loop:
    """A loop around an access: its counter and the bounds [lo, hi) of its box."""
    iv: ir.Value
    lo: int
    hi: int  # exclusive: the loop's box (every iteration of it lies inside)


@dataclass(frozen=True)
class Mask:
    """`index(a) <direction> index(b)`, over loop positions a, b (relative to their boxes):
    the part of a box a triangular loop runs over (`j < i + 1`, `k > i`)."""
    a: int
    b: int
    direction: str

    @property
    def loops(self) -> set[int]:
        return {self.a, self.b}

    def moved(self, keep: list[int]) -> "Mask":
        return Mask(keep.index(self.a), keep.index(self.b), self.direction)


@dataclass(frozen=True)
class CounterMask:
    """`index(a) <direction> counter + offset`, the index relative to a's box: the part
    of a box a loop bounded by the counter of a loop kept as a loop runs over (`j > k`
    in step k)."""
    a: int
    direction: str
    offset: int

    @property
    def loops(self) -> set[int]:
        return {self.a}

    def moved(self, keep: list[int]) -> "CounterMask":
        return CounterMask(keep.index(self.a), self.direction, self.offset)


@dataclass(frozen=True)
class SumMask:
    """`index(a) + index(b) < limit`, the indices relative to their boxes: the part of a
    box a loop bounded by a size less an enclosing loop's index runs over (a
    correlation's `i < n - lag`). Only a window that is 0 exactly there satisfies it
    (synth.synthesis.sketch_views)."""
    a: int
    b: int
    limit: int

    @property
    def loops(self) -> set[int]:
        return {self.a, self.b}

    def moved(self, keep: list[int]) -> "SumMask":
        return SumMask(keep.index(self.a), keep.index(self.b), self.limit)


@dataclass(frozen=True)
class _Negated:
    """A bound `c - iv` on an enclosing loop's index iv (in (bound, c) pairs)."""
    iv: ir.Value


COUNTER = object()  # stands for the counter argument in (index value, offset) pairs


@dataclass
class View:
    """A tensor over the loops at `dims` (positions in the nest, increasing). `natural`:
    the same tensor before its transpose into nest order (expr, dims in its own order),
    where it had one: a contraction takes it as it is (mvt's A^T y is vecmat(y, A), no
    transposed copy of A). `zero_from`: (a, b, limit) where the view is a window that is
    0 exactly where index(a) + index(b) >= limit (past its array's end)."""
    expr: Expr
    dims: tuple[int, ...]
    natural: tuple | None = None
    zero_from: tuple | None = None


FLIP = {"GT": "LT", "GE": "LE", "LT": "GT", "LE": "GE"}


def is_block_argument(value: ir.Value) -> bool:
    """Whether `value` is a block argument (not an op result)."""
    return isinstance(value.owner, ir.Block)


def _is_loop_index(value: ir.Value) -> bool:
    return is_block_argument(value) and value.owner.owner.name == "affine.for"


class Reader:
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

    size_values: dict = {}  # size argument -> its Size at the stand-in sizes (statement_sketch sets it)

    def size_value(self, value: ir.Value):
        """The Size a size argument converted to a number stands for (through casts and
        extensions), or an integer constant's value; NoSketch for other values."""
        while not is_block_argument(value) and value.owner.name in (
                "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"):
            value = value.owner.operands[0]
        if not is_block_argument(value) and value.owner.name == "arith.constant" \
                and isinstance(value.owner.attributes["value"], ir.IntegerAttr):
            return int(ir.IntegerAttr(value.owner.attributes["value"]).value)  # a size made a constant
        k = self.arg_index(value)
        if k is None or k not in self.size_values:
            raise NoSketch("a conversion to a number of something other than a size or an integer constant")
        return self.size_values[k]

    def fold(self, value: ir.Value):
        """The number a scalar computed from constants only is (synth.synthesis.constants)."""
        return fold_constant(value)

    # -- index values ------------------------------------------------------------------------
    def arg_index(self, value: ir.Value) -> int | None:
        if is_block_argument(value) and value.owner == self.entry:
            return ir.BlockArgument(value).arg_number
        return None

    def index_value(self, value: ir.Value) -> int:
        """An index operand of a loop bound, at the stand-in sizes."""
        k = self.arg_index(value)
        if k is not None and k in self.params:
            return self.params[k]
        owner = value.owner
        if not is_block_argument(value):
            if owner.name == "arith.constant":
                attr = owner.attributes["value"]
                if isinstance(attr, ir.IntegerAttr):
                    return int(attr.value)
            if owner.name in ("arith.index_cast", "arith.index_castui"):
                return self.index_value(owner.operands[0])
            if owner.name in ("arith.divsi", "arith.divui", "arith.floordivsi"):  # n / 2 of a size
                d = self.index_value(owner.operands[1])
                if d > 0 and not is_block_argument(owner.operands[1]):
                    return self.index_value(owner.operands[0]) // d  # (sizes are not negative)
            if owner.name == "arith.muli":  # n * k of sizes
                return self.index_value(owner.operands[0]) * self.index_value(owner.operands[1])
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
            symbols = [self.index_value(v) for v in operands[amap.n_dims:]]
            form = _linear(amap.results[0], symbols)
            if form is not None and len(form[0]) == 1 and set(form[0].values()) == {-1} \
                    and _is_loop_index(operands[next(iter(form[0]))]):
                return _Negated(operands[next(iter(form[0]))]), form[1]  # `c - iv`
            iv, c = _unit_offset(amap.results[0], operands, amap.n_dims, symbols=symbols)
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
        stores = [op for op in stores if local_scalar(memref_of(op)) is None
                  and local_array(memref_of(op)) is None]
        # stores to one array in nests one after the other (softmax's `out[i] = e`, then
        # `out[i] /= sum`): the last is the statement, the others define what it reads
        self.defined = []
        if len(stores) > 1:
            tops = [top(st) for st in stores]
            if len({id(t) for t in tops}) != len(tops) and any(tops[i] == tops[j] for i in range(len(tops))
                                                             for j in range(i)):
                raise NoSketch(f"{len(stores)} stores in the group, two in one loop nest")
            if any(memref_of(st) != memref_of(stores[-1]) for st in stores):
                raise NoSketch(f"{len(stores)} stores in the group, to different arrays")
            self.defined = stores[:-1]
        store = stores[-1].opview
        loops: list[Loop] = []
        masks: list[Mask] = []
        self.guards = []  # affine.if ops around the store (synth.synthesis.sketch_guards)
        for f in loops_around(store.operation, "the store is", self.guards):
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
        negated = None
        if isinstance(ub, tuple) and isinstance(ub[0], _Negated):  # l < c - o: a sum mask
            negated, ub = (ub[0].iv, ub[1]), None
            if negated[0] not in at:
                raise NoSketch("a bound on the index of a loop outside the statement's")
            ub = negated[1] - loops[at[negated[0]]].lo  # the box: at o's first value
        if isinstance(lb, tuple) and isinstance(lb[0], _Negated):
            raise NoSketch("a lower bound that is a size less a loop index")
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
        loops.append(Loop(f.induction_variable, lo, hi))
        if negated is not None:  # l + o < c, relative: L + O < c - lo - o.lo
            outer = at[negated[0]]
            masks.append(SumMask(pos, outer, negated[1] - lo - loops[outer].lo))
        if isinstance(lb, int) and isinstance(ub, int) and negated is None and only_negated(f.induction_variable):
            # a loop whose index is only ever subtracted (`a[n - 2 - i]`): the statement
            # read over j = lo + hi - 1 - i, the same box forwards. Where the original's
            # order matters (a read of an element written earlier), the sketch reads the
            # previous value like any other, and validation refutes it.
            self.reversed[f.induction_variable] = lo + hi - 1
        for side, b in (("lower", lb), ("upper", ub)):
            if isinstance(b, int):
                continue
            if b[0] is COUNTER:  # index(pos) - lo  >= / <  counter + c - lo
                masks.append(CounterMask(pos, "GE" if side == "lower" else "LT", b[1] - lo))
                continue
            # absolute l >= a + c (lower) or l < a + c (upper), in indices relative to the boxes
            outer = at[b[0]]
            d = loops[outer].lo + b[1] - lo
            table = {"lower": {0: "GE", 1: "GT"}, "upper": {0: "LT", 1: "LE"}}[side]
            if d not in table:
                raise NoSketch("a triangular bound whose offset is not a strict or loose comparison")
            masks.append(Mask(pos, outer, table[d]))
        return pos


@dataclass(frozen=True)
class Flipped:
    """An index `plus - minus + c` (durbin's `r[k - i - 1]`: plus the counter, minus a
    loop index): read as the array flipped about the counter (flip), at `minus`.
    `sized`: whether c involves a size (fir_causal's `in[i + taps - 1 - j]`)."""
    plus: ir.Value
    minus: ir.Value
    sized: bool = False


@dataclass(frozen=True)
class Reversed:
    """An index `c - iv` of a loop that runs forwards elsewhere in the statement (a DSP
    `out[i] = in[n - 1 - i]`): read as the array reversed along that dim (reverse), at
    `iv` plus the extent less 1 less c."""
    iv: ir.Value


@dataclass(frozen=True)
class Summed:
    """An index `a + b + c` of two loop indices: read as a window (synth.grammar.window)."""
    a: ir.Value
    b: ir.Value


def _linear(e: ir.AffineExpr, symbols: list[int] | None = None) -> tuple[dict[int, int], int] | None:
    """({dim position: coefficient}, constant) of an affine expression without mod or div,
    and without symbols unless `symbols` gives their values; None for others."""
    return affine_linear(e, dim=lambda p: ({p: 1}, 0),
                         symbol=lambda p: ({}, symbols[p]) if symbols is not None and p < len(symbols) else None)

def only_negated(iv: ir.Value) -> bool:
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
                 symbols: list[int] | None = None) -> tuple[ir.Value | Flipped | None, int]:
    """(loop index, c) for an index `iv + c`, (None, c) for a constant index c; with
    `flips`, (Flipped, c) for an index `a - b + c`; for an index `-iv + c` of a loop
    read backwards (`reversed_`: iv -> K, the loop read as j = K - iv), (iv, c - K), of
    another loop with `flips`, (Reversed, c); else NoSketch. `symbols`: the values of the map's symbols (at the stand-in sizes)."""
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
        if flips and len(coeffs) == 1 and set(coeffs.values()) == {-1}:
            return Reversed(operands[next(iter(coeffs))]), c
        if flips and len(coeffs) == 2 and sorted(coeffs.values()) == [1, 1]:
            a, b = sorted(coeffs)
            return Summed(operands[a], operands[b]), c
        if flips and len(coeffs) == 2 and sorted(coeffs.values()) == [-1, 1]:
            plus = next(d for d, v in coeffs.items() if v == 1)
            minus = next(d for d, v in coeffs.items() if v == -1)
            bare = _linear(e, [0] * len(symbols)) if symbols else None  # the constant without the sizes
            return Flipped(operands[plus], operands[minus], bare is not None and bare[1] != c), c
    raise NoSketch(f"the index {e} is not a loop index plus a constant")


def top(op):
    """The operation of the function's body that is or holds `op`."""
    op = op.operation
    while op.parent is not None and op.parent.name != "func.func":
        op = op.parent.operation
    return op


def edge(c: int, n) -> str:
    """"first" or "last" for a constant index c along a dim of extent n; NoSketch else."""
    if c == 0:
        return "first"
    if c == int(n) - 1:
        return "last"
    raise NoSketch("a constant index inside an array (not its first or last element)")


def memref_of(op) -> ir.Value:
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


def data_index(value: ir.Value) -> ir.Value | None:
    """The integer a load index is converted from, where it is data (`arith.index_cast` of
    a value that is no index: a table lookup's `in[i]`), else None."""
    if is_block_argument(value) or value.owner.name not in ("arith.index_cast", "arith.index_castui"):
        return None
    source = value.owner.operands[0]
    return None if str(source.type) == "index" else source


def local_scalar(memref: ir.Value) -> ir.Value | None:
    """The memref itself where it is a local scalar (memref.alloca of one element), else None."""
    if is_block_argument(memref) or memref.owner.name != "memref.alloca":
        return None
    t = ir.MemRefType(memref.type)
    return memref if all(n == 1 for n in t.shape) else None


def local_array(memref: ir.Value) -> ir.Value | None:
    """The memref itself where it is a local array (memref.alloca of more than one element)."""
    if is_block_argument(memref) or memref.owner.name != "memref.alloca" or local_scalar(memref) is not None:
        return None
    return memref


def loops_around(op, what: str, guards: list | None = None) -> list:
    """The affine.for ops around `op`, outermost first; NoSketch ("`what` inside ...")
    inside anything else, but for an affine.if one branch of which holds it while the
    other is empty, where `guards` is given: (the affine.if, whether `op` is in its else
    branch) are put there, outermost first."""
    nest, inner, parent = [], op.operation, op.parent
    while parent is not None and parent.name != "func.func":
        branch = [k for k, r in enumerate(parent.regions) if r.blocks and inner.block == r.blocks[0]] \
            if parent.name == "affine.if" else []
        other = parent.regions[1 - branch[0]] if branch else None
        if branch and guards is not None and (not other.blocks or len(list(other.blocks[0].operations)) == 1):
            guards.insert(0, (parent, branch[0] == 1))
        elif parent.name != "affine.for":
            raise NoSketch(f"{what} inside {parent.name}")
        else:
            nest.append(parent.opview)
        inner, parent = parent, parent.parent
    return nest[::-1]


def same_bounds(f, g) -> bool:
    """Whether two loops run over the same range (the same bound maps of the same values)."""
    def bound_operands(loop):  # the bounds' operands (not the iter_args' initial values)
        n = sum(m.value.n_dims + m.value.n_symbols for m in (loop.lowerBoundMap, loop.upperBoundMap))
        return list(loop.operands)[:n]
    return str(f.lowerBoundMap.value) == str(g.lowerBoundMap.value) and \
        str(f.upperBoundMap.value) == str(g.upperBoundMap.value) and \
        bound_operands(f) == bound_operands(g) and loop_step(f) == loop_step(g)


_CMPI = {2: "slt", 3: "sle", 4: "sgt", 5: "sge"}  # arith.cmpi's signed orders


def min_max(op, dialect: str) -> str:
    """The grammar's min or max for `select(cmpi(a, b), a, b)` (floyd-warshall's shorter
    path, nussinov's max); NoSketch for other selects. Unsigned predicates are not the
    grammar's (signed) min / max, and a float select by an ordered compare returns b on
    NaN where min / max propagate it: both left out."""
    cond, a, b = op.operands
    if is_block_argument(cond) or cond.owner.name != "arith.cmpi":
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


def compare_direction(cmp) -> str:
    """The grammar's comparison direction of an arith.cmpf / cmpi; NoSketch for a
    predicate it does not mean (unsigned, or a float one whose NaN answer differs)."""
    code = ir.IntegerAttr(cmp.attributes["predicate"]).value
    table = _CMPF_DIRECTION if cmp.name == "arith.cmpf" else _CMPI_DIRECTION
    if code not in table:
        raise NoSketch(f"a comparison the grammar does not mean ({cmp.name} predicate {code})")
    return table[code]


# C's conversions, each the grammar's convert of that kind (synth.grammar.families.ConvertFamily)
CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "arith.extf", "arith.truncf", "arith.sitofp",
          "arith.uitofp", "arith.fptosi", "arith.fptoui")


def value_dtype(value: ir.Value) -> str:
    """The grammar element type of a scalar SSA value (index reads as i64)."""
    t = str(value.type)
    return "i64" if t == "index" else t


def negation_of(cond: ir.Value) -> ir.Value | None:
    """c where `cond` is `arith.xori c, true` (either order: C's `!c`, a quick return's
    "not taken"), else None."""
    if is_block_argument(cond) or cond.owner.name != "arith.xori":
        return None
    a, b = cond.owner.operands
    for c, other in ((a, b), (b, a)):
        if not is_block_argument(other) and other.owner.name == "arith.constant":
            attr = other.owner.attributes["value"]
            if (isinstance(attr, ir.BoolAttr) and attr.value) or (
                    isinstance(attr, ir.IntegerAttr) and ir.IntegerType(attr.type).width == 1 and attr.value != 0):
                return c
    return None
