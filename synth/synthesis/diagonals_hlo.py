"""The stablehlo text of a loop over a table's diagonals (synth.synthesis.diagonals).

StableHLO has no per-element body, so the original's body runs on lanes: one lane per row
r of the table, lane r computing the cell (r, r + L) of diagonal L, masked where that cell
is not in the nest. Index values are i64 vectors, data values vectors of their type, each
arithmetic operation the stablehlo operation of the same semantics (`arith.addi` add,
`cmpi sge` a SIGNED GE compare, `select` select, `extsi` convert ...), in the original's
order. Reads are gathers at computed indices (clamped by the gather, so a masked lane
reads some element and never leaves the array); an `affine.if` evaluates its branches and
selects the cell by its condition; an inner `affine.for` is a `stablehlo.while` over its
longest trip among the lanes, each lane updating its cell while its own k is in bounds.

The table is carried flattened and padded by one element per row, R x (C + 1) elements:
viewed as R x (C + 1), its column L is the diagonal L (element (r, L) is the cell
(r, r + L)), written back with one `dynamic_update_slice` of that column; a table kept
below its main diagonal (L < 0) is padded in front too, its diagonal L the column L + shift."""

from __future__ import annotations

from synth.grammar.op import Emitter, format_scalar
from synth.analysis.affine_expr import integer_set
from synth.synthesis.diagonals import DiagonalNest, Lin, NotDiagonal, at_sizes, diagonals, form_value, inverse
from mlir import ir

_BINARY = {"arith.addi": "add", "arith.addf": "add", "arith.subi": "subtract", "arith.subf": "subtract",
           "arith.muli": "multiply", "arith.mulf": "multiply", "arith.divf": "divide",
           "arith.maxsi": "maximum", "arith.minsi": "minimum", "arith.maximumf": "maximum",
           "arith.minimumf": "minimum", "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor"}
_CONVERT = ("arith.extsi", "arith.trunci", "arith.sitofp", "arith.extf", "arith.truncf")
_CMPI = {0: "EQ", 1: "NE", 2: "LT", 3: "LE", 4: "GT", 5: "GE"}  # eq ne slt sle sgt sge
_CMPF = {1: "EQ", 2: "GT", 3: "GE", 4: "LT", 5: "LE"}  # oeq ogt oge olt ole


class Lanes(Emitter):
    """The function body's lines, on `lanes` lanes (one per row of the table)."""

    def __init__(self, lanes: int):
        super().__init__(indent="  ")
        self.lanes = lanes

    def vec(self, element: str) -> str:
        return f"tensor<{self.lanes}x{element}>"

    def splat(self, value, element: str) -> str:
        out = self.fresh("c")
        self.line(f"{out} = stablehlo.constant dense<{value}> : {self.vec(element)}")
        return out

    def spread(self, x: str, element: str) -> str:
        """A rank-0 value on every lane."""
        out = self.fresh()
        self.line(f"{out} = stablehlo.broadcast_in_dim {x}, dims = [] : (tensor<{element}>) -> {self.vec(element)}")
        return out

    def op(self, name: str, a: str, b: str, element: str) -> str:
        out = self.fresh()
        self.line(f"{out} = stablehlo.{name} {a}, {b} : {self.vec(element)}")
        return out

    def index(self, form: Lin, scope: dict[str, str]) -> str:
        """An i64 lane vector computing `form` (its variables i64 vectors in `scope`)."""
        return form_value(form, scope.__getitem__, lambda c: self.splat(c, "i64"),
                          lambda x, c: self.op("multiply", x, self.splat(c, "i64"), "i64"),
                          lambda x, y: self.op("add", x, y, "i64"))

    def open_while(self, out: str, counter: str, init: str, state: str, state0: str, state_type: str,
                   direction: str, bound) -> None:
        """`out:2 = stablehlo.while` over an i64 `counter` from `init` while it is `direction`
        (LT, GT, LE, GE) `bound` (a value, or a number made a constant), carrying `state`;
        the lines after are its body's, until close_while."""
        self.line(f"{out}:2 = stablehlo.while({counter} = {init}, {state} = {state0}) : "
                  f"tensor<i64>, {state_type}")
        self.line("cond {")
        if not isinstance(bound, str):
            end = self.fresh("c")
            self.line(f"  {end} = stablehlo.constant dense<{bound}> : tensor<i64>")
            bound = end
        go = self.fresh()
        self.line(f"  {go} = stablehlo.compare {direction}, {counter}, {bound} : "
                  "(tensor<i64>, tensor<i64>) -> tensor<i1>")
        self.line(f"  stablehlo.return {go} : tensor<i1>")
        self.line("} do {")
        self.depth += 1

    def close_while(self, counter: str, step: int, state: str, state_type: str) -> None:
        """The end of open_while's body: `counter` + `step` and `state` returned."""
        one, nxt = self.fresh("c"), self.fresh()
        self.line(f"{one} = stablehlo.constant dense<{step}> : tensor<i64>")
        self.line(f"{nxt} = stablehlo.add {counter}, {one} : tensor<i64>")
        self.line(f"stablehlo.return {nxt}, {state} : tensor<i64>, {state_type}")
        self.depth -= 1
        self.line("}")

    def compare(self, direction: str, a: str, b: str, element: str, kind: str) -> str:
        out = self.fresh()
        self.line(f"{out} = stablehlo.compare {direction}, {a}, {b}, {kind} : ({self.vec(element)}, "
                  f"{self.vec(element)}) -> {self.vec('i1')}")
        return out

    def select(self, cond: str, a: str, b: str, element: str) -> str:
        out = self.fresh()
        self.line(f"{out} = stablehlo.select {cond}, {a}, {b} : {self.vec('i1')}, {self.vec(element)}")
        return out

    def gather(self, flat: str, size: int, element: str, index: str) -> str:
        """flat[index] per lane (the index clamped into the array by the gather)."""
        column, out = self.fresh(), self.fresh()
        self.line(f"{column} = stablehlo.reshape {index} : ({self.vec('i64')}) -> tensor<{self.lanes}x1xi64>")
        self.line(f'{out} = "stablehlo.gather"({flat}, {column}) {{dimension_numbers = #stablehlo.gather<'
                  f"collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
                  f"indices_are_sorted = false, slice_sizes = array<i64: 1>}} : "
                  f"(tensor<{size}x{element}>, tensor<{self.lanes}x1xi64>) -> {self.vec(element)}")
        return out


class Body:
    """The original body on lanes (see the module's doc)."""

    def __init__(self, nest: DiagonalNest, t: Lanes, values: dict[str, int], names: dict,
                 state: str, padded: int, element: str, flats: dict, valid: str, shift: int = 0):
        self.nest, self.t, self.values, self.names = nest, t, values, names
        self.state, self.padded, self.element, self.flats, self.valid = state, padded, element, flats, valid
        self.shift = shift  # where the table starts in the padded state
        self.cols = int(nest.kernel.sizes.shape(nest.table, values)[1]) if values else None

    def form(self, amap, operands, op=None, attr: str = "map") -> list[Lin]:
        return [at_sizes(f, self.values) for f in self.nest.lins(amap, operands, op, attr)]

    def condition(self, op, scope) -> str:
        t = self.t
        amap, eqs = integer_set(op.attributes["condition"])
        cond = None
        for f, eq in zip(self.form(amap, list(op.operands), op, "condition"), eqs):
            c = t.compare("EQ" if eq else "GE", t.index(f, scope), t.splat(0, "i64"), "i64", "SIGNED")
            cond = c if cond is None else t.op("and", cond, c, "i1")
        return cond

    def read_table(self, index: list[Lin], scope: dict[str, str]) -> str:
        """The table at another cell, on lanes (from the padded state)."""
        flat = self.t.index(_scaled(index[0], self.cols, _scaled(index[1], 1, {1: self.shift})), scope)
        return self.t.gather(self.state, self.padded, self.element, flat)

    def read_array(self, arg: int, index: list[Lin], scope: dict[str, str]) -> str:
        """Another array argument at `index`, on lanes (from its flattened copy)."""
        shape = [int(d) for d in self.nest.kernel.sizes.shape(arg, self.values)]
        strides = [1] * len(shape)
        for k in range(len(shape) - 2, -1, -1):
            strides[k] = strides[k + 1] * shape[k + 1]
        form: Lin = {}
        for f, s in zip(index, strides):
            form = _scaled(form, 1, _scaled(f, s, {}))
        flat, size, arg_el = self.flats[arg]
        return self.t.gather(flat, size, arg_el, self.t.index(form, scope))

    def run(self, block, scope: dict[str, str], cell: str) -> str:
        t, el = self.t, self.element
        for op in block.operations:
            name = op.operation.name
            if name in ("affine.yield", "affine.apply"):  # an apply: its form, where used
                continue
            if name == "affine.load":
                index = self.form(ir.AffineMapAttr(op.attributes["map"]).value, list(op.operands[1:]), op)
                arg = op.operands[0].arg_number
                if arg == self.nest.table:
                    if tuple(index) == tuple(at_sizes(f, self.values) for f in self.nest.cell):
                        self.names[op.results[0]] = cell
                        continue
                    self.names[op.results[0]] = self.read_table(index, scope)
                else:
                    self.names[op.results[0]] = self.read_array(arg, index, scope)
            elif name == "affine.store":
                cell = self.names[op.operands[0]]
            elif name == "affine.if":
                cond = self.condition(op, scope)
                then = self.run(op.regions[0].blocks[0], scope, cell)
                other = self.run(op.regions[1].blocks[0], scope, cell) if len(op.regions) > 1 \
                    and op.regions[1].blocks else cell
                cell = t.select(cond, then, other, el)
            elif name == "affine.for":
                cell = self.loop(op, scope, cell)
            else:
                self.names[op.results[0]] = self.scalar(op, name, scope)
        return cell

    def value(self, v, scope: dict[str, str]) -> str:
        """The lanes of an operand: a value of the body, or an index the nest defines (a
        loop's variable, a size) as i64 lanes."""
        if v in self.names:
            return self.names[v]
        key = self.nest.keys.get(v)
        if key is None:
            raise NotDiagonal("the body uses a value defined outside the nest")
        return scope[key] if key in scope else self.t.index(at_sizes(self.nest.forms[key], self.values), scope)

    def loop(self, op, scope: dict[str, str], cell: str) -> str:
        """An inner loop: a while over its longest trip among the valid lanes."""
        t, el = self.t, self.element
        view = op.opview
        lo = t.index(self.form(view.lowerBoundMap.value, list(view.lowerBoundOperands), op, "lowerBoundMap")[0], scope)
        hi = t.index(self.form(view.upperBoundMap.value, list(view.upperBoundOperands), op, "upperBoundMap")[0], scope)
        trip = t.select(self.valid, t.op("subtract", hi, lo, "i64"), t.splat(0, "i64"), "i64")
        zero, longest = t.fresh("c"), t.fresh("trip")
        t.line(f"{zero} = stablehlo.constant dense<0> : tensor<i64>")
        t.line(f"{longest} = stablehlo.reduce({trip} init: {zero}) applies stablehlo.maximum across "
               f"dimensions = [0] : ({t.vec('i64')}, tensor<i64>) -> tensor<i64>")
        m, carried, out = t.fresh("m"), t.fresh("cell"), t.fresh("loop")
        t.open_while(out, m, zero, carried, cell, t.vec(el), "LT", longest)
        k = t.op("add", lo, t.spread(m, "i64"), "i64")
        active = t.op("and", self.valid, t.compare("LT", k, hi, "i64", "SIGNED"), "i1")
        var = self.nest.keys[op.regions[0].blocks[0].arguments[0]]
        new = self.run(op.regions[0].blocks[0], {**scope, var: k}, carried)
        kept = t.select(active, new, carried, el)
        t.close_while(m, 1, kept, t.vec(el))
        return f"{out}#1"

    def scalar(self, op, name: str, scope: dict[str, str] | None = None) -> str:
        """One arith operation on lanes: the stablehlo operation of the same semantics
        (index values are i64 lanes)."""
        t = self.t
        result = _lane_type(op.results[0].type)
        args = [self.value(v, scope or {}) for v in op.operands]
        if name == "arith.constant":
            attr = op.attributes["value"]
            value = ir.IntegerAttr(attr).value if result.startswith("i") else ir.FloatAttr(attr).value
            return t.splat(format_scalar(value, result), result)
        if name in _BINARY:
            return t.op(_BINARY[name], args[0], args[1], result)
        if name == "arith.select":
            return t.select(args[0], args[1], args[2], result)
        if name in ("arith.cmpi", "arith.cmpf"):
            predicate = ir.IntegerAttr(op.attributes["predicate"]).value
            table = _CMPI if name == "arith.cmpi" else _CMPF
            if predicate not in table:
                raise NotDiagonal(f"a {name} predicate #{predicate} stablehlo.compare does not read the same way")
            operand = _lane_type(op.operands[0].type)
            return t.compare(table[predicate], args[0], args[1], operand,
                             "SIGNED" if name == "arith.cmpi" else "FLOAT")
        if name in _CONVERT or name == "arith.index_cast":
            source = _lane_type(op.operands[0].type)
            if source == result:
                return args[0]
            out = t.fresh()
            t.line(f"{out} = stablehlo.convert {args[0]} : ({t.vec(source)}) -> {t.vec(result)}")
            return out
        if name == "arith.negf":
            out = t.fresh()
            t.line(f"{out} = stablehlo.negate {args[0]} : {t.vec(result)}")
            return out
        raise NotDiagonal(f"{name} has no stablehlo counterpart here")


def _lane_type(t) -> str:
    """The element type of a scalar's lanes (index: i64)."""
    return "i64" if str(t) == "index" else str(t)


def _scaled(form: Lin, scale: int, plus: Lin) -> Lin:
    out = {v: c * scale for v, c in form.items()}
    for v, c in plus.items():
        out[v] = out.get(v, 0) + c
    return {v: c for v, c in out.items() if c}


def inputs_on_lanes(nest: DiagonalNest, t: Lanes, module_op) -> dict:
    """SSA value -> its lanes, for the data scalars the body reads (size arguments are
    read as sizes) and the function's non-index constants."""
    kernel = nest.kernel
    names: dict = {}
    block = module_op.regions[0].blocks[0]
    for i, a in enumerate(kernel.function.arguments[:kernel.n_arguments]):
        if not a.is_array and i not in kernel.sizes.params and any(True for _ in block.arguments[i].uses):
            names[block.arguments[i]] = t.spread(f"%a{i}", a.type)
    for op in nest.constants:
        if str(op.results[0].type) != "index":
            attr, result = op.attributes["value"], str(op.results[0].type)
            value = ir.IntegerAttr(attr).value if result.startswith("i") else ir.FloatAttr(attr).value
            names[op.results[0]] = t.splat(format_scalar(value, result), result)
    return names


def stablehlo_text(nest: DiagonalNest, values: dict[str, int], module_op) -> str:
    """`func.func @NAME_raised` (stablehlo) at the sizes `values`."""
    kernel = nest.kernel
    n = kernel.n_arguments
    types = [kernel.tensor_type(i, values).mlir() for i in range(n)]
    rows, cols = (int(d) for d in kernel.sizes.shape(nest.table, values))
    d = diagonals(nest, values)
    # the padded state: `shift` elements, the table, `rows - shift` elements, so that cell
    # (r, r + L) is element (r, L + shift) of its R x (C + 1) view
    shift = max(0, -d.first)
    if d.last + shift > cols or shift > rows:
        raise NotDiagonal("the table's diagonals are not the columns of one padded view")
    element = kernel.function.arguments[nest.table].type
    t = Lanes(rows)
    size, padded = rows * cols, rows * (cols + 1)
    flats = {}
    for i in range(n):
        a = kernel.function.arguments[i]
        if i != nest.table and a.is_array:
            total = 1
            for e in kernel.sizes.shape(i, values):
                total *= int(e)
            flat = t.fresh("flat")
            t.line(f"{flat} = stablehlo.reshape %a{i} : ({types[i]}) -> tensor<{total}x{a.type}>")
            flats[i] = (flat, total, a.type)
    names = inputs_on_lanes(nest, t, module_op)
    flat0, zero_el, state0 = t.fresh("flat"), t.fresh("c"), t.fresh("state")
    t.line(f"{flat0} = stablehlo.reshape %a{nest.table} : ({types[nest.table]}) -> tensor<{size}x{element}>")
    t.line(f"{zero_el} = stablehlo.constant dense<{format_scalar(0, element)}> : tensor<{element}>")
    t.line(f"{state0} = stablehlo.pad {flat0}, {zero_el}, low = [{shift}], high = [{rows - shift}], interior = [0] : "
           f"(tensor<{size}x{element}>, tensor<{element}>) -> tensor<{padded}x{element}>")
    rowv, first = t.fresh("rows"), t.fresh("c")
    t.line(f"{rowv} = stablehlo.iota dim = 0 : {t.vec('i64')}")
    down = nest.direction < 0  # the diagonals downwards: L from last to first
    t.line(f"{first} = stablehlo.constant dense<{d.last if down else d.first}> : tensor<i64>")
    L, state, loop = t.fresh("L"), t.fresh("t"), t.fresh("diagonals")
    ptype = f"tensor<{padded}x{element}>"
    t.open_while(loop, L, first, state, state0, ptype, "GT" if down else "LT",
                 d.first - 1 if down else d.last + 1)
    Lv = t.fresh("Lv")
    t.line(f"{Lv} = stablehlo.broadcast_in_dim {L}, dims = [] : (tensor<i64>) -> {t.vec('i64')}")
    scope = {"L": Lv}
    lo = hi = None
    for f in d.lower:
        v = t.index(f, scope)
        lo = v if lo is None else t.op("maximum", lo, v, "i64")
    for f in d.upper:
        v = t.index(f, scope)
        hi = v if hi is None else t.op("minimum", hi, v, "i64")
    valid = t.op("and", t.compare("GE", rowv, lo, "i64", "SIGNED"), t.compare("LE", rowv, hi, "i64", "SIGNED"), "i1")
    col = t.op("add", rowv, Lv, "i64")
    a_of, b_of = inverse(nest.cell)
    rc = {"r": rowv, "c": col}
    a, b = t.index(at_sizes(a_of, values), rc), t.index(at_sizes(b_of, values), rc)
    cell0 = t.gather(state, padded, element, t.index({"r": cols, "c": 1, 1: shift}, rc))
    body = Body(nest, t, values, names, state, padded, element, flats, valid, shift)
    cell = body.run(nest.inner.regions[0].blocks[0], {"a": a, "b": b}, cell0)
    view, zero_i, old, oldv = t.fresh("view"), t.fresh("c"), t.fresh(), t.fresh()
    vtype = f"tensor<{rows}x{cols + 1}x{element}>"
    t.line(f"{view} = stablehlo.reshape {state} : ({ptype}) -> {vtype}")
    t.line(f"{zero_i} = stablehlo.constant dense<0> : tensor<i64>")
    column = L
    if shift:
        by, column = t.fresh("c"), t.fresh()
        t.line(f"{by} = stablehlo.constant dense<{shift}> : tensor<i64>")
        t.line(f"{column} = stablehlo.add {L}, {by} : tensor<i64>")
    t.line(f"{old} = stablehlo.dynamic_slice {view}, {zero_i}, {column}, sizes = [{rows}, 1] : "
           f"({vtype}, tensor<i64>, tensor<i64>) -> tensor<{rows}x1x{element}>")
    t.line(f"{oldv} = stablehlo.reshape {old} : (tensor<{rows}x1x{element}>) -> {t.vec(element)}")
    new = t.select(valid, cell, oldv, element)
    newc, upd, back = t.fresh(), t.fresh(), t.fresh()
    t.line(f"{newc} = stablehlo.reshape {new} : ({t.vec(element)}) -> tensor<{rows}x1x{element}>")
    t.line(f"{upd} = stablehlo.dynamic_update_slice {view}, {newc}, {zero_i}, {column} : ({vtype}, "
           f"tensor<{rows}x1x{element}>, tensor<i64>, tensor<i64>) -> {vtype}")
    t.line(f"{back} = stablehlo.reshape {upd} : ({vtype}) -> {ptype}")
    t.close_while(L, -1 if down else 1, back, ptype)
    part, out = t.fresh(), t.fresh("out")
    t.line(f"{part} = stablehlo.slice {loop}#1 [{shift}:{shift + size}] : ({ptype}) -> tensor<{size}x{element}>")
    t.line(f"{out} = stablehlo.reshape {part} : (tensor<{size}x{element}>) -> {types[nest.table]}")
    params = ", ".join(f"%a{i}: {types[i]}" for i in range(n))
    body_text = "\n".join(t.lines)
    return (f"func.func @{kernel.name}_raised({params}) -> ({types[nest.table]}) attributes "
            f"{{synth.outputs = [{nest.table}]}} {{\n{body_text}\n  return {out} : {types[nest.table]}\n}}\n")
