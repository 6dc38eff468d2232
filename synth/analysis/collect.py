"""What the size analysis reads off a function: its loops (bounds as affine forms over
loop indices and size arguments), its accesses (one form per dim), and the constants of
its affine maps that may be sizes (sites), in pre-order."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from synth.frontend.reader import diagnostic_location
from synth.analysis.symbols import SizeExpr
from synth.frontend.reader import walk_ops

SMALL_CONSTANT = 8  # constants below this in an index or offset are literal (stencil offsets...)
# integer types a size argument has (CMSIS-DSP takes uint16_t rows and columns)
SIZE_TYPES = ("i32", "i64", "index", "i16")


@dataclass
class Lin:
    """An affine form over loop indices (("iv", id) keys) and size symbols (str keys)."""

    terms: dict = field(default_factory=dict)
    const: int = 0

    def add(self, other: Lin, k: int = 1) -> Lin:
        out = dict(self.terms)
        for key, c in other.terms.items():
            out[key] = out.get(key, 0) + k * c
        return Lin({a: b for a, b in out.items() if b}, self.const + k * other.const)

    def scale(self, k: int) -> Lin:
        return Lin({a: b * k for a, b in self.terms.items() if b * k}, self.const * k)

    @property
    def ivs(self) -> list:
        return [k for k in self.terms if isinstance(k, tuple)]

    def size_expr(self) -> SizeExpr:
        assert not self.ivs
        return SizeExpr(tuple(sorted(self.terms.items())), self.const)


@dataclass
class Loop:
    """One affine.for of the function: its bounds as linear forms (None where not affine),
    its step and induction variable."""
    id: int
    op_index: int
    location: str
    lbs: list  # Lin | None per map result
    ubs: list
    step: int
    iv: ir.Value


@dataclass
class _Access:
    array: tuple  # ("arg", index) or ("alloc", op index)
    forms: list  # Lin | None per dim; in raw form (params as ("p", k))
    op_index: int
    write: bool
    location: str
    looked_up: tuple = ()  # the dims a load reads at an index from data (a table lookup)
    guards: tuple = ()  # forms g (raw) with g >= 0 where it runs: the affine.ifs around it

    def data_index(self, d: int) -> bool:
        return d in self.looked_up


def _from_data(v: ir.Value) -> bool:
    """Whether an index is an integer loaded from memory (through casts and extensions)."""
    while not isinstance(v, ir.BlockArgument) and v.owner.name in (
            "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"):
        v = v.owner.operands[0]
    return not isinstance(v, ir.BlockArgument) and v.owner.name in ("affine.load", "memref.load")


@dataclass
class _Site:
    """A constant in a map: the whole result (pure) or its additive constant."""

    key: tuple  # (op index, attribute, result index)
    value: int
    context: str  # "ub", "lb", "index", "offset"
    pure: bool
    iv_loop: int | None = None  # for bounds: the loop
    array_dim: tuple | None = None  # for indices: (array, dim)
    location: str = ""


def _runs_down(form) -> bool:
    """Whether a form runs down by one as each of its loop indices (or counters) runs up,
    from a positive constant (`-i - j + 5`, `-i + 6`): its constant is where it starts, an
    extent or a loop's range less a few (C's `for (j = n - 1; ...) for (i = j - 1; ...)`
    at n = 7), whatever its size."""
    return form is not None and form.const > 0 and bool(form.terms) \
        and all(c == -1 for c in form.terms.values())


# -------------------------------------------------------------------------------------------
# collecting loops, accesses and map constants


walk = walk_ops  # pre-order, as every analysis numbers ops


def carried_sum(loop) -> tuple[str, ir.Value, ir.Value] | None:
    """For an affine.for carrying one value that it sums (`iter_args(%s = init)` yielding
    `%s + term`, %s read by that addition only): (the addition's op name, term, init).
    None for a loop that carries nothing; ValueError saying what else it carries ("carries ...")."""
    results = list(loop.results)
    if not results:
        return None
    if len(results) != 1:
        raise ValueError("carries several values")
    body = loop.regions[0].blocks[0]
    carried = body.arguments[1]
    step = list(body.operations)[-1].operands[0]
    owner = None if isinstance(step.owner, ir.Block) else step.owner
    if owner is None or owner.name not in ("arith.addf", "arith.addi") or carried not in list(owner.operands):
        raise ValueError("carries a value that is not a sum")
    if any(use.owner != owner for use in carried.uses):
        raise ValueError("carries a sum it reads inside")
    a, b = owner.operands
    return owner.name, (b if a == carried else a), list(loop.operation.operands)[-1]


def loop_step(loop) -> int:
    """The step of an affine.for (an attribute in some binding versions, an int in others)."""
    step = loop.step
    return int(ir.IntegerAttr(step).value) if isinstance(step, ir.Attribute) else int(step)


def split_const(expr: ir.AffineExpr) -> tuple[ir.AffineExpr | None, int]:
    """(the expression without its top-level additive constant, that constant)."""
    if isinstance(expr, ir.AffineConstantExpr):
        return None, expr.value
    if isinstance(expr, ir.AffineAddExpr) and isinstance(expr.rhs, ir.AffineConstantExpr):
        return expr.lhs, expr.rhs.value
    return expr, 0


class Collector:
    """Walks a function body once and collects its loops, accesses and sites as linear forms
    over the loop counters and symbols (read by the size and reach analyses too)."""
    def __init__(self, path: str, func, block: ir.Block):
        self.path = path
        self.block = block
        self.loops: dict = {}  # iv value -> Loop
        self.loop_list: list[Loop] = []
        self.accesses: list[_Access] = []
        self.sites: list[_Site] = []
        self.if_forms: list[Lin | None] = []
        self.used_params: set[int] = set()
        self.allocs: dict[int, ir.Operation] = {}
        self.alloc_values: dict = {}
        self.parent: dict[int, int | None] = {}
        self.store_loops: list[list[int]] = []  # per affine.store (pre-order): enclosing loops
        self.quotients: dict[str, tuple] = {}  # "q0" -> (param terms, const, divisor): n / 2
        self.products: dict[str, tuple] = {}  # "m0" -> (param, param): n * k

    def where(self, op) -> str:
        return diagnostic_location(self.path, op.location)

    # values -> forms
    def operand(self, v: ir.Value) -> Lin | None:
        if v in self.loops:
            return Lin({("iv", self.loops[v].id): 1})
        if isinstance(v, ir.BlockArgument):
            if v.owner == self.block and str(v.type) in SIZE_TYPES:
                self.used_params.add(v.arg_number)
                return Lin({("p", v.arg_number): 1})
            return None
        owner = v.owner
        if owner.name in ("arith.index_cast", "arith.index_castui", "arith.extsi"):
            return self.operand(owner.operands[0])
        if owner.name == "arith.constant":
            attr = owner.attributes["value"]
            return Lin({}, ir.IntegerAttr(attr).value) if isinstance(attr, ir.IntegerAttr) else None
        if owner.name == "affine.apply":
            amap = owner.opview.map.value
            forms = [self.operand(x) for x in owner.operands]
            dims = forms[: amap.n_dims] + forms[amap.n_dims:]
            return _map_lins(amap, dims)[0]
        if owner.name in ("arith.divsi", "arith.divui", "arith.floordivsi"):
            return self._quotient(owner)
        if owner.name == "arith.muli":
            return self._product(owner)
        return None

    def _product(self, op) -> Lin | None:
        """`n * k` of two size arguments (a loop over the n * k elements np.repeat writes):
        a symbol of its own (`m0`), which the size analysis makes a product symbol
        (synth.analysis.sizes.SizeModel.products)."""
        x, y = (self.operand(v) for v in op.operands)
        keys = []
        for f in (x, y):
            if f is None or f.const or len(f.terms) != 1:
                return None
            (k, c), = f.terms.items()
            if c != 1 or not isinstance(k, tuple) or k[0] != "p":
                return None
            keys.append(k[1])
        key = tuple(sorted(keys))
        name = next((n for n, q in self.products.items() if q == key), f"m{len(self.products)}")
        self.products[name] = key
        return Lin({name: 1})

    def _quotient(self, op) -> Lin | None:
        """`x / d` of size arguments (no loop index) by a positive constant (C's `n / 2`,
        `(n - k) / 2` at the entry): a symbol of its own (`q0`), which the size analysis
        makes the floordiv of the size symbols (C truncates: the same where x >= 0)."""
        x, d = (self.operand(v) for v in op.operands)
        if x is None or d is None or d.terms or d.const <= 0 or not x.terms \
                or any(not isinstance(k, tuple) or k[0] != "p" for k in x.terms):
            return None
        key = (tuple(sorted(x.terms.items())), x.const, d.const)
        name = next((n for n, q in self.quotients.items() if q == key), f"q{len(self.quotients)}")
        self.quotients[name] = key
        return Lin({name: 1})

    def map_forms(self, amap: ir.AffineMap, operands: list) -> list:
        forms = [self.operand(v) for v in operands]
        return _map_lins(amap, forms)

    def record_sites(self, op_index: int, attr: str, amap: ir.AffineMap, context: str, loc: str,
                     forms: list | None = None, **extra) -> None:
        for r, expr in enumerate(amap.results):
            rest, c = split_const(expr)
            pure = rest is None
            if pure or abs(c) >= SMALL_CONSTANT:
                ctx = context if pure else "offset"
                self.sites.append(_Site((op_index, attr, r), c, ctx, pure, location=loc,
                                        **({k: v for k, v in extra.items()} if pure else {})))
            elif forms is not None and _runs_down(forms[r]):
                # a small bound `-i + 6` of a loop nested in one over i: the outer range
                # less a few, or literal (size_analysis decides)
                self.sites.append(_Site((op_index, attr, r), c, f"reversed {context}", False,
                                        location=loc, **extra))

    def run(self) -> None:
        for index, op in enumerate(walk(self.block)):
            name = op.name
            loc = self.where(op)
            if name == "affine.for":
                v = op.opview
                lbm, ubm = v.lowerBoundMap.value, v.upperBoundMap.value
                loop = Loop(len(self.loop_list), index, loc,
                             self.map_forms(lbm, list(v.lowerBoundOperands)),
                             self.map_forms(ubm, list(v.upperBoundOperands)), loop_step(v),
                             v.induction_variable)
                self.loops[v.induction_variable] = loop
                self.loop_list.append(loop)
                self.parent[loop.id] = self._enclosing(op)
                self.record_sites(index, "lowerBoundMap", lbm, "lb", loc, loop.lbs, iv_loop=loop.id)
                self.record_sites(index, "upperBoundMap", ubm, "ub", loc, loop.ubs, iv_loop=loop.id)
            elif name in ("affine.load", "affine.store"):
                if name == "affine.store":
                    self.store_loops.append(self._loops_around(op))
                v = op.opview
                amap = v.map.value
                write = name == "affine.store"
                memref = op.operands[1 if write else 0]
                array = self.array_of(memref)
                forms = self.map_forms(amap, list(v.indices))
                if array is not None:
                    self.accesses.append(_Access(array, forms, index, write, loc, guards=self._guards(op)))
                for r, expr in enumerate(amap.results):
                    rest, c = split_const(expr)
                    if rest is None or abs(c) >= SMALL_CONSTANT:
                        self.sites.append(_Site((index, "map", r), c, "index" if rest is None else "offset",
                                                rest is None, array_dim=(array, r) if array else None,
                                                location=loc))
                    elif c > 0 and array is not None and _runs_down(forms[r]):
                        # `-i + 7` of a loop run backwards: the array's last index, whatever
                        # its size (a small one too: C's `for (i = m - 1; i >= 0; i--)` at m = 8);
                        # `-i - j + 5` of two: the extent or the loops' range less a few
                        self.sites.append(_Site((index, "map", r), c, "reversed", False,
                                                array_dim=(array, r), location=loc))
            elif name in ("affine.apply", "affine.min", "affine.max"):
                amap = op.attributes["map"].value
                self.map_forms(amap, list(op.operands))
                self.record_sites(index, "map", amap, "offset", loc)
            elif name == "affine.if":
                from synth.analysis.affine_expr import integer_set

                amap, _ = integer_set(op.attributes["condition"])
                self.if_forms += self.map_forms(amap, list(op.operands))
                for r, expr in enumerate(amap.results):
                    rest, c = split_const(expr)
                    if abs(c) >= SMALL_CONSTANT:
                        self.sites.append(_Site((index, "condition", r), c, "offset", False, location=loc))
            elif name in ("memref.alloca", "memref.alloc"):
                self.allocs[index] = op
                self.alloc_values[op.results[0]] = index
            elif name in ("memref.load", "memref.store"):
                operands = list(op.operands)
                memref, idx = (operands[1], operands[2:]) if name == "memref.store" else (operands[0], operands[1:])
                array = self.array_of(memref)
                if array is not None:
                    forms = [self.operand(x) for x in idx]
                    looked_up = () if name == "memref.store" else tuple(
                        d for d, (x, f) in enumerate(zip(idx, forms)) if f is None and _from_data(x))
                    self.accesses.append(_Access(array, forms, index, name == "memref.store", loc, looked_up))

    def _guards(self, op) -> tuple:
        """The constraints g >= 0 (raw forms; an equality as two) of the affine.ifs whose
        then-region holds `op`; unreadable ones left out (they only narrow)."""
        from synth.analysis.affine_expr import integer_set

        out = []
        inner, p = op, op.parent
        while p is not None and p.name != "func.func":
            if p.name == "affine.if" and _in_then(p, inner):
                try:
                    amap, eqs = integer_set(p.attributes["condition"])
                except ValueError:
                    amap, eqs = None, []
                if amap is not None:
                    for form, eq in zip(self.map_forms(amap, list(p.operands)), eqs):
                        if form is not None:
                            out += [form, form.scale(-1)] if eq else [form]
            inner, p = p, p.parent
        return tuple(out)

    def _loops_around(self, op) -> list[int]:
        out = []
        p = op.parent
        while p is not None and p.name != "func.func":
            if p.name == "affine.for":
                iv = p.regions[0].blocks[0].arguments[0]
                if iv in self.loops:
                    out.append(self.loops[iv].id)
            p = p.parent
        return out[::-1]

    def _enclosing(self, op) -> int | None:
        p = op.parent
        while p is not None and p.name != "func.func":
            if p.name == "affine.for":
                iv = p.regions[0].blocks[0].arguments[0]
                return self.loops[iv].id if iv in self.loops else None
            p = p.parent
        return None

    def array_of(self, memref: ir.Value):
        if isinstance(memref, ir.BlockArgument) and memref.owner == self.block:
            return ("arg", memref.arg_number)
        if memref in self.alloc_values:
            return ("alloc", self.alloc_values[memref])
        return None


def _in_then(if_op, op) -> bool:
    """`op` (a direct child of the affine.if `if_op`) lies in its then-region."""
    op = op.operation
    return any(x.operation == op for x in if_op.regions[0].blocks[0].operations)


def _map_lins(amap: ir.AffineMap, forms: list) -> list:
    """Forms of a map's results. Symbol operands are positioned after the dims."""
    out = []
    for expr in amap.results:
        out.append(_expr_lin_positions(expr, forms, amap.n_dims))
    return out


def _expr_lin_positions(expr: ir.AffineExpr, forms: list, n_dims: int) -> Lin | None:
    if isinstance(expr, ir.AffineConstantExpr):
        return Lin({}, expr.value)
    if isinstance(expr, ir.AffineDimExpr):
        return forms[expr.position]
    if isinstance(expr, ir.AffineSymbolExpr):
        return forms[n_dims + expr.position]
    lhs = _expr_lin_positions(expr.lhs, forms, n_dims)
    rhs = _expr_lin_positions(expr.rhs, forms, n_dims)
    if lhs is None or rhs is None:
        return None
    if isinstance(expr, ir.AffineAddExpr):
        return lhs.add(rhs)
    if isinstance(expr, ir.AffineMulExpr):
        if not rhs.terms:
            return lhs.scale(rhs.const)
        if not lhs.terms:
            return rhs.scale(lhs.const)
    return None


