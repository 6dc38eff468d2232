"""Diagonals kept as a loop: interval dynamic programs (nussinov, matrix-chain-like tables).

A nest `for a { for b { body } }` whose body writes one 2-D array T at one cell
(r, c) = (e0(a, b), e1(a, b)) per iteration (the map from (a, b) to the cell one-to-one)
and reads T at other cells only on shorter diagonals (c' - r' < c - r) that earlier
iterations wrote (or at cells no iteration writes) is a wavefront: every cell of diagonal
L = c - r depends only on diagonals before it, so a loop over L, ascending, computing all
the cells of diagonal L at once, each by the original's body, computes what the nest does.
The condition is checked for every size with Z3 over the integers (`legality`), not on
examples; each read's question within READ_TIMEOUT_MS and, where the raise finds the nest,
within the caller's `deadline` (the raise's search budget, --timeout: `diagonal_raise(...,
deadline=)`; the re-checks at other sizes, `DiagonalRaise.text`, are validation's), a
question left undecided refusing the nest.

Raised by synth.synthesis.diagonals_linalg (each diagonal a `linalg.generic` running the
original's body per cell, its operations in their order, inside an `scf.for` over L) and
synth.synthesis.diagonals_hlo (the same body on lanes, one per row, inside a
`stablehlo.while` over L). This module finds the nest (`find_nest`), checks the dependences
(`legality`) and gives each diagonal's cells at given sizes (`diagonals`).

The emitted text is validated like any raise (synth.pipeline): tested against the loops
at several sizes, bit for bit for integers, and proven by Z3 at bounded sizes (the loop
unrolled there)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import z3
from mlir import ir

from synth.analysis.collect import loop_step
from synth.analysis.model import Kernel
from synth.budget import ms_left
from synth.frontend.reader import affine_linear, walk_ops
from synth.analysis.affine_expr import integer_set

Lin = dict  # a linear form: variable name (str) or 1 (the constant) -> coefficient
READ_TIMEOUT_MS = 10_000  # Z3's time for one read's legality question at most (seen: milliseconds)


class NotDiagonal(Exception):
    """The kernel is not a nest this module raises (the message says why)."""


def _add(*forms: Lin, scale: tuple[int, ...] | None = None) -> Lin:
    out: Lin = {}
    for k, f in enumerate(forms):
        s = 1 if scale is None else scale[k]
        for v, c in f.items():
            out[v] = out.get(v, 0) + s * c
    return {v: c for v, c in out.items() if c != 0}


def _lin(expr, operands: list[Lin], n_dims: int) -> Lin:
    """The linear form of an affine expression whose dims then symbols are `operands`."""
    def split(form: Lin) -> tuple[dict, int]:  # ({key: c}, the constant: key 1)
        return {v: c for v, c in form.items() if v != 1}, form.get(1, 0)
    lin = affine_linear(expr, dim=lambda p: split(operands[p]), symbol=lambda p: split(operands[n_dims + p]))
    if lin is None:
        raise NotDiagonal(f"the affine expression {expr} is not linear")
    return _add(lin[0], {1: lin[1]})

def _map_lins(amap, operands: list[Lin]) -> list[Lin]:
    return [_lin(e, operands, amap.n_dims) for e in amap.results]


def _op_lins(amap, operands: list[Lin], sites: dict, op, attr: str) -> list[Lin]:
    """The forms of `op`'s map `attr`, a constant the size model reads as a size (Polygeist's
    `2499`: n - 1) that size's form (`sites`: op -> attr -> result -> form)."""
    out = _map_lins(amap, operands)
    for r, form in sites.get(op.operation, {}).get(attr, {}).items() if op is not None else ():
        out[r] = _add({v: c for v, c in out[r].items() if v != 1}, form)
    return out


def _size_sites(kernel: Kernel, block) -> dict:
    """op -> attr -> result -> the form over the size symbols of that map result's constant,
    for the constants of `block` (the kernel's normal form) its SizeModel reads as sizes."""
    ops = list(walk_ops(block))
    out: dict = {}
    for (index, attr, r), e in kernel.sizes.sites.items():
        if e.div == 1 and index < len(ops):
            out.setdefault(ops[index], {}).setdefault(attr, {})[r] = _add(dict(e.terms), {1: e.const})
    return out


def form_value(form: Lin, variable, const, mul, add) -> str:
    """The SSA value computing the linear `form`, emitted through the emitter's callbacks:
    `variable(v)` a variable's value, `const(c)` a constant's, `mul(x, c)` x times the
    number c, `add(x, y)`; the variables by name, then the constant (the two emitters')."""
    acc = None
    for v, c in sorted(form.items(), key=lambda kv: (kv[0] == 1, str(kv[0]))):
        term = const(c) if v == 1 else variable(v)
        if v != 1 and c != 1:
            term = mul(term, c)
        acc = term if acc is None else add(acc, term)
    return acc if acc is not None else const(0)


def at_sizes(form: Lin, values: dict[str, int]) -> Lin:
    """`form` with the named sizes replaced by their values."""
    out: Lin = {}
    for v, c in form.items():
        key = 1 if v == 1 or v in values else v
        out[key] = out.get(key, 0) + c * (values[v] if v in values else 1)
    return {v: c for v, c in out.items() if c != 0}


def _z3(form: Lin, env: dict) -> z3.ArithRef:
    return z3.Sum([z3.IntVal(c) if v == 1 else c * env[v] for v, c in form.items()] or [z3.IntVal(0)])


@dataclass
class Access:
    """A load of T at another cell: its index forms and the constraints around it
    (enclosing affine.if conditions taken, inner loops' bounds) as (form, is_eq)."""
    cell: tuple[Lin, Lin]
    around: list[tuple[Lin, bool]]
    where: str


@dataclass
class DiagonalNest:
    kernel: Kernel
    table: int  # the argument written
    outer: object  # affine.for (a)
    inner: object  # affine.for (b)
    cell: tuple[Lin, Lin]  # (r, c) of the store, over "a", "b" and the sizes
    domain: list[tuple[Lin, bool]]  # the (a, b) iteration domain, form >= 0 (or == 0)
    symbols: dict  # SSA value of each size symbol -> its size name
    constants: list  # function-level arith.constant ops the body uses
    keys: dict  # SSA value -> its key in the forms (a loop's variable, a size, `#N`, `@N`)
    forms: dict = field(default_factory=dict)  # key -> its linear form (`@N`: an affine.apply's)
    # +1: the diagonals run upwards (each read on a shorter one, c' - r' < c - r), -1
    # downwards (a table kept below its main diagonal: c' - r' > c - r)
    direction: int = 1
    reads: list[Access] = field(default_factory=list)
    sites: dict = field(default_factory=dict)  # constants read as sizes (_size_sites)

    @property
    def name(self) -> str:
        return self.kernel.name

    def lins(self, amap, operands, op=None, attr: str = "map") -> list[Lin]:
        """The forms of a map of the body (`op`'s attribute `attr`) over `operands` (SSA values)."""
        return _op_lins(amap, [self.forms[k] for k in _operand_keys(operands, self.keys)], self.sites, op, attr)


def _bounds(loop, var: str, operands: dict, keys: dict, sites: dict) -> list[tuple[Lin, bool]]:
    view = loop.opview
    if loop_step(view) != 1:
        raise NotDiagonal(f"the loop over {var} has a step other than 1")
    lo = _op_lins(view.lowerBoundMap.value, [operands[v] for v in _operand_keys(view.lowerBoundOperands, keys)],
                  sites, loop, "lowerBoundMap")
    hi = _op_lins(view.upperBoundMap.value, [operands[v] for v in _operand_keys(view.upperBoundOperands, keys)],
                  sites, loop, "upperBoundMap")
    if len(lo) != 1 or len(hi) != 1:
        raise NotDiagonal(f"the loop over {var} has a max or min bound")
    return [(_add({var: 1}, lo[0], scale=(1, -1)), False), (_add(hi[0], {var: -1, 1: -1}), False)]


def _operand_keys(values, keys: dict) -> list:
    """The key of each index operand (a loop's variable, a size's name, `#N` a constant)."""
    out = []
    for v in values:
        if v not in keys:
            raise NotDiagonal("an index computed inside the nest (not a loop index or a size)")
        out.append(keys[v])
    return out


def _position(op) -> str:
    m = re.search(r'loc\("([^"]*)":(\d+):(\d+)\)', str(op.location))
    return f"{m.group(1)}:{m.group(2)}:{m.group(3)}" if m else "?"


def _function(module: ir.Module, name: str):
    return next(op for op in module.body.operations if op.operation.name == "func.func"
                and ir.StringAttr(op.attributes["sym_name"]).value == name)


def find_nest(kernel: Kernel, module: ir.Module, symbolic: bool = False) -> DiagonalNest:
    """The nest of `kernel` (parsed as `module`, its normal form) as a DiagonalNest, or
    NotDiagonal saying why it is not one. `symbolic` (`module` the kernel's normal form
    itself): the constants its size model reads as sizes are those sizes in the forms."""
    func = _function(module, kernel.name)
    block = func.regions[0].blocks[0]
    sites = _size_sites(kernel, block) if symbolic else {}
    _keys: dict = {}  # SSA value -> its key in `operands`
    params = {i: n for i, n in kernel.sizes.params.items()}
    symbols, constants, loops = {}, [], []
    operands: dict = {}
    for op in block.operations:
        name = op.operation.name
        if name == "arith.constant":
            constants.append(op)
            if str(op.results[0].type) == "index":
                value = ir.IntegerAttr(op.attributes["value"]).value
                _keys[op.results[0]] = f"#{value}"
                operands[f"#{value}"] = {1: value} if value else {}
        elif name == "arith.index_cast" and isinstance(op.operands[0].owner, ir.Block) \
                and op.operands[0].arg_number in params:
            size = params[op.operands[0].arg_number]
            symbols[op.results[0]] = size
            _keys[op.results[0]] = size
            operands[size] = {size: 1}
        elif name == "affine.for":
            loops.append(op)
        elif name != "func.return":
            raise NotDiagonal(f"an operation {name} outside the nest")
    if len(loops) != 1:
        raise NotDiagonal("not one loop nest")
    outer = loops[0]
    inside = [op for op in outer.regions[0].blocks[0].operations if op.operation.name != "affine.yield"]
    if len(inside) != 1 or inside[0].operation.name != "affine.for":
        raise NotDiagonal("the outer loop does not hold exactly one loop")
    inner = inside[0]
    if len(outer.results) or len(inner.results):
        raise NotDiagonal("a loop of the nest carries values (iter_args)")
    _keys[outer.regions[0].blocks[0].arguments[0]] = "a"
    operands["a"] = {"a": 1}
    _keys[inner.regions[0].blocks[0].arguments[0]] = "b"
    operands["b"] = {"b": 1}
    domain = _bounds(outer, "a", operands, _keys, sites) + _bounds(inner, "b", operands, _keys, sites)
    if kernel.interface.results:
        raise NotDiagonal("the function returns values")
    written = kernel.written
    if len(written) != 1 or len(kernel.function.arguments[written[0]].shape or ()) != 2:
        raise NotDiagonal("it does not write exactly one 2-D array")
    nest = DiagonalNest(kernel, written[0], outer, inner, None, domain, symbols, constants, _keys, operands,
                        sites=sites)
    table = block.arguments[written[0]]
    stores, loads = [], []
    _scan(inner.regions[0].blocks[0], table, operands, _keys, [], stores, loads, 0, sites)
    cells = {tuple(tuple(sorted(f.items(), key=str)) for f in s) for s in stores}
    if len(cells) != 1:
        raise NotDiagonal("the body stores to more than one cell of the table")
    nest.cell = stores[0]
    nest.reads = [a for a in loads if a.cell != nest.cell]
    if not nest.reads:
        raise NotDiagonal("no iteration reads a cell another one writes (nothing to keep as a loop)")
    # a recurrence along rows only (or columns only) is interchanged into a loop over whole
    # columns (synth.synthesis.recurrence), a better form: diagonals are for both at once
    if all(a.cell[0] == nest.cell[0] for a in nest.reads) or all(a.cell[1] == nest.cell[1] for a in nest.reads):
        raise NotDiagonal("every other cell read is on the cell's own row (or column): a recurrence "
                          "along one dim, left to the interchange")
    return nest


def _scan(block, table, operands: dict, keys: dict, around: list, stores: list, loads: list,
          depth: int, sites: dict) -> None:
    """Check the body's operations and collect its accesses of the table."""
    for op in block.operations:
        name = op.operation.name
        if name in ("affine.load", "affine.store"):
            memref = op.operands[0 if name == "affine.load" else 1]
            indices = list(op.operands[1 if name == "affine.load" else 2:])
            if name == "affine.store" and memref != table:
                raise NotDiagonal("the body stores to another array")
            if memref != table:
                continue
            amap = ir.AffineMapAttr(op.attributes["map"]).value
            cell = tuple(_op_lins(amap, [operands[k] for k in _operand_keys(indices, keys)], sites, op, "map"))
            (stores if name == "affine.store" else loads).append(
                cell if name == "affine.store" else Access(cell, list(around), _position(op)))
        elif name == "affine.if":
            try:
                amap, eqs = integer_set(op.attributes["condition"])
            except ValueError as e:
                raise NotDiagonal(str(e)) from None
            conds = list(zip(_op_lins(amap, [operands[k] for k in _operand_keys(op.operands, keys)], sites, op,
                                      "condition"), eqs))
            _scan(op.regions[0].blocks[0], table, operands, keys, around + conds, stores, loads, depth, sites)
            if len(op.regions) > 1 and op.regions[1].blocks:
                _scan(op.regions[1].blocks[0], table, operands, keys, around, stores, loads, depth, sites)
        elif name == "affine.for":
            var = f"k{depth}"
            keys[op.regions[0].blocks[0].arguments[0]] = var
            operands[var] = {var: 1}
            if op.results and len(op.results):
                raise NotDiagonal("an inner loop carries values (iter_args)")
            inner = around + _bounds(op, var, operands, keys, sites)
            _scan(op.regions[0].blocks[0], table, operands, keys, inner, stores, loads, depth + 1, sites)
        elif name == "affine.apply":  # an index: its form stands for it where it is used
            key = f"@{len(keys)}"
            keys[op.results[0]] = key
            operands[key] = _op_lins(ir.AffineMapAttr(op.attributes["map"]).value,
                                     [operands[k] for k in _operand_keys(op.operands, keys)], sites, op, "map")[0]
        elif name == "affine.yield":
            if len(op.operands):
                raise NotDiagonal("an affine.yield with values")
        elif not (name.startswith("arith.") or name.startswith("math.")) or op.regions:
            raise NotDiagonal(f"an operation {name} in the body")


def inverse(cell: tuple[Lin, Lin]) -> tuple[Lin, Lin]:
    """(a, b) as forms of the cell's row "r" and column "c" (the map must be unimodular)."""
    (r, c) = cell
    al0, be0 = r.get("a", 0), r.get("b", 0)
    al1, be1 = c.get("a", 0), c.get("b", 0)
    det = al0 * be1 - be0 * al1
    if det not in (1, -1) or any(isinstance(v, str) and v.startswith("k") for v in (*r, *c)):
        raise NotDiagonal("the cell written is not a one-to-one affine map of the two loops")
    g0 = {v: k for v, k in r.items() if v not in ("a", "b")}
    g1 = {v: k for v, k in c.items() if v not in ("a", "b")}
    rr = _add({"r": 1}, g0, scale=(1, -1))
    cc = _add({"c": 1}, g1, scale=(1, -1))
    a = _add(rr, cc, scale=(be1 * det, -be0 * det))
    b = _add(rr, cc, scale=(-al1 * det, al0 * det))
    return a, b


def _subst(form: Lin, values: dict[str, Lin]) -> Lin:
    return _add(*[values[v] if v in values else {v: 1} if v != 1 else {1: 1} for v in form],
                scale=tuple(form.values()))


def checked(nest: DiagonalNest, deadline: float | None = None) -> DiagonalNest:
    """The nest with its direction set: upwards where `legality` holds so, else downwards
    where it holds so; else NotDiagonal (the upwards reason). Both checks end by `deadline`
    (a time.monotonic() value; None: each read within READ_TIMEOUT_MS only)."""
    try:
        legality(nest, 1, deadline)
    except NotDiagonal as up:
        try:
            legality(nest, -1, deadline)
        except NotDiagonal:
            raise up from None
        nest.direction = -1
    return nest


def read_timeout_ms(deadline: float | None) -> int:
    """Z3's time for the next read's question, in ms: READ_TIMEOUT_MS, or what is left
    before `deadline` (time.monotonic()) where that is less; NotDiagonal when nothing is
    (the caller's budget is spent: the nest is not checked, so not raised this way)."""
    ms = ms_left(deadline, READ_TIMEOUT_MS)
    if ms is None:
        raise NotDiagonal("the time budget ran out before the dependences were checked")
    return ms


def legality(nest: DiagonalNest, direction: int = 1, deadline: float | None = None) -> None:
    """NotDiagonal unless, for every size (each size symbol >= 1), every iteration and
    every read of the table at another cell, that cell is one no iteration writes, or one
    on a diagonal before the cell's (c' - r' < c - r; `direction` -1: c' - r' > c - r) that
    an earlier iteration writes (Z3 over the integers; each read's question within
    `read_timeout_ms(deadline)`, undecided: NotDiagonal)."""
    a_of, b_of = inverse(nest.cell)
    for read in nest.reads:
        names = {v for f in (*nest.cell, *read.cell, *(f for f, _ in nest.domain + read.around))
                 for v in f if v != 1} | {"r", "c"}
        env = {v: z3.Int(v) for v in names}
        s = z3.Solver()
        s.set("timeout", read_timeout_ms(deadline))
        s.add([env[v] >= 1 for v in set(nest.symbols.values()) | set(nest.kernel.sizes.symbols) if v in env])
        for form, eq in nest.domain + read.around:
            s.add(_z3(form, env) == 0 if eq else _z3(form, env) >= 0)
        # the cell read, as an iteration (a', b') of the nest: written there if in the domain
        where = {"r": read.cell[0], "c": read.cell[1]}
        a2, b2 = _subst(a_of, where), _subst(b_of, where)
        moved = {"a": a2, "b": b2}
        written = z3.And([_z3(_subst(f, moved), env) == 0 if eq else _z3(_subst(f, moved), env) >= 0
                          for f, eq in nest.domain])
        shorter = _z3(_add(read.cell[1], read.cell[0], scale=(direction, -direction)), env) < \
            _z3(_add(nest.cell[1], nest.cell[0], scale=(direction, -direction)), env)
        A, B = _z3(a2, env), _z3(b2, env)
        earlier = z3.Or(A < env["a"], z3.And(A == env["a"], B < env["b"]))
        s.add(written, z3.Not(z3.And(shorter, earlier)))
        verdict = s.check()
        if verdict != z3.unsat:
            why = "Z3 could not decide it" if verdict == z3.unknown else \
                f"at {_model(s.model(), env)} it is not"
            raise NotDiagonal(f"the read of the table at {read.where} is not always of a cell on a "
                              f"{'shorter' if direction > 0 else 'longer'} diagonal written by an earlier "
                              f"iteration ({why})")


def _model(model, env: dict) -> str:
    return ", ".join(f"{v} = {model.eval(x, model_completion=True)}" for v, x in sorted(env.items())
                     if v not in ("r", "c"))


# the diagonals' range at given sizes ------------------------------------------------------


@dataclass(frozen=True)
class Diagonals:
    """Diagonal L of the table holds the cells (r, r + L) for lo(L) <= r <= hi(L), lo the
    largest of `lower` and hi the smallest of `upper` (forms over "L" and 1); L runs from
    `first` to `last`, each diagonal non-empty."""
    first: int
    last: int
    lower: tuple
    upper: tuple


def diagonal_bounds(nest: DiagonalNest) -> tuple[list[Lin], list[Lin], list[Lin], list[Lin]]:
    """For every size at once: (lower, upper, first, last), forms over "L" and the sizes:
    the rows of diagonal L run from the largest `lower` to the smallest `upper`, and L from
    the largest `first` to the smallest `last` (where those rows are not empty).
    NotDiagonal where a bound is not unit in L."""
    a_of, b_of = inverse(nest.cell)
    on = {"r": {"r": 1}, "c": {"r": 1, "L": 1}}
    moved = {"a": _subst(a_of, on), "b": _subst(b_of, on)}
    lower, upper, only = [], [], []
    for form, eq in nest.domain:
        f = _subst(form, moved)
        s = f.pop("r", 0)
        if eq or abs(s) > 1:
            raise NotDiagonal("a bound of the nest is not a bound of the row along a diagonal")
        (lower if s == 1 else upper if s == -1 else only).append(_add(f, scale=(-1,)) if s == 1 else f)
    first, last = [], []
    for f in only + [_add(u, lo, scale=(1, -1)) for u in upper for lo in lower]:  # f >= 0
        f = dict(f)
        k = f.pop("L", 0)
        if k == 1:
            first.append(_add(f, scale=(-1,)))
        elif k == -1:
            last.append(f)
        elif k != 0:
            raise NotDiagonal("a bound of the diagonals is not unit in L")
    if not (lower and upper and first and last):
        raise NotDiagonal("the diagonals of the nest are unbounded")
    return lower, upper, first, last


def diagonals(nest: DiagonalNest, values: dict[str, int]) -> Diagonals:
    a_of, b_of = inverse(nest.cell)
    on = {"r": {"r": 1}, "c": {"r": 1, "L": 1}}
    moved = {"a": at_sizes(_subst(a_of, on), values), "b": at_sizes(_subst(b_of, on), values)}
    lower, upper, only = [], [], []
    for form, eq in nest.domain:
        f = at_sizes(_subst(form, moved), values)
        s = f.pop("r", 0)
        if eq or abs(s) > 1:
            raise NotDiagonal("a bound of the nest is not a bound of the row along a diagonal")
        if s == 1:
            lower.append(_add(f, scale=(-1,)))
        elif s == -1:
            upper.append(f)
        else:
            only.append(f)
    if not lower or not upper:
        raise NotDiagonal("the diagonals of the nest are unbounded")

    def at(f: Lin, L: int) -> int:
        return f.get(1, 0) + f.get("L", 0) * L
    rows, cols = nest.kernel.sizes.shape(nest.table, values)
    present = [L for L in range(-int(rows), int(cols) + 1) if all(at(f, L) >= 0 for f in only)
               and max(at(f, L) for f in lower) <= min(at(f, L) for f in upper)]
    if not present:
        raise NotDiagonal("the nest has no iteration at these sizes")
    if present != list(range(present[0], present[-1] + 1)):
        raise NotDiagonal("the nest's diagonals are not one range")
    return Diagonals(present[0], present[-1], tuple(lower), tuple(upper))


def transposed_reads(nest: DiagonalNest) -> bool:
    """Whether a read of the table walks down a column as an inner loop runs (its row form
    has an inner loop's variable, its column form none): the emitters then also carry the
    table transposed (synth.synthesis.diagonals_linalg)."""
    return any(
        any(isinstance(v, str) and v.startswith("k") for v in a.cell[0])
        and not any(isinstance(v, str) and v.startswith("k") for v in a.cell[1]) for a in nest.reads)


@dataclass
class DiagonalRaise:
    """A kernel raised as a loop over its table's diagonals: `text(values)` is the raised
    function at those sizes (the same text validation tests and proves)."""
    name: str
    dialect: str
    nest: DiagonalNest
    function: object  # the normal form's func.func
    stats: list = field(default_factory=list)

    def text(self, values) -> str:
        """At the kernel's own sizes from its normal form; at others from the normal form
        instantiated there (Kernel.at: a constant bound or offset that is a size, Polygeist's
        `2499`, becomes the other size's), its nest read and checked again."""
        values = dict(values)
        kernel = self.nest.kernel
        if values == kernel.sizes.original():
            with kernel.normal.context:
                return self._emit(self.nest, values, self.function)
        source = kernel.at(values)
        with source.context:
            module = source.parsed()
            nest = checked(find_nest(kernel, module))  # validation's: READ_TIMEOUT_MS per read
            return self._emit(nest, values, _function(module, kernel.name))

    def generic_text(self) -> str:
        """The raised function for every size its arguments expose."""
        kernel = self.nest.kernel
        with kernel.normal.context:
            if self.dialect == "linalg":
                from synth.synthesis.diagonals_linalg import linalg_text
                return linalg_text(self.nest, kernel.sizes.original(), self.function, generic=True)
            from synth.synthesis.diagonals_hlo_generic import stablehlo_generic_text
            return stablehlo_generic_text(self.nest, kernel.sizes.original(), self.function)

    def _emit(self, nest: DiagonalNest, values: dict[str, int], function) -> str:
        if self.dialect == "linalg":
            from synth.synthesis.diagonals_linalg import linalg_text
            return linalg_text(nest, values, function)
        from synth.synthesis.diagonals_hlo import stablehlo_text
        return stablehlo_text(nest, values, function)


TARGETS = ("linalg", "stablehlo")


def diagonal_raise(kernel: Kernel, target: str, deadline: float | None = None) -> DiagonalRaise:
    """The kernel as a DiagonalRaise, or NotDiagonal saying why it is not one: the nest
    (find_nest), its dependences checked for every size (legality) by `deadline` (the
    caller's budget, a time.monotonic() value; None: READ_TIMEOUT_MS per read), the text
    built at the kernel's own sizes once (diagonals)."""
    if target not in TARGETS:
        raise NotDiagonal(f"diagonals are emitted in {', '.join(TARGETS)} only")
    with kernel.normal.context:
        module = kernel.normal.parsed()
        func = _function(module, kernel.name)
        nest = checked(find_nest(kernel, module, symbolic=True), deadline)
        diagonals(nest, kernel.sizes.original())
    return DiagonalRaise(kernel.name, target, nest, func)
