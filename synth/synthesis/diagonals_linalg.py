"""The linalg text of a loop over a table's diagonals (synth.synthesis.diagonals): an
`scf.for` over the diagonals carrying the table flattened row-major, each diagonal a
`linalg.generic` over its cells whose body is the original's body, in its order (reads of
the table at other cells `tensor.extract`s of the carried table, the cell a running value,
`affine.if` an `scf.if`, an inner `affine.for` an `scf.for` carrying that value), written
back with one strided `tensor.insert_slice`. Where an inner loop walks down a column of the
table, a transposed copy is carried too and read there (contiguous). Static (at given
sizes) or shape-generic (sizes read from the arguments: synth.grammar.dims)."""

from __future__ import annotations

import re

from mlir import ir

from synth.analysis.symbols import GenericValues
from synth.grammar.dims import GenericSizes, kernel_sources
from synth.grammar.op import Emitter
from synth.analysis.affine_expr import integer_set
from synth.synthesis.diagonals import (DiagonalNest, Lin, NotDiagonal, at_sizes, diagonal_bounds, diagonals,
                                       form_value, inverse, transposed_reads)


class _Text(Emitter):
    """The function body's lines (its nesting counted in `depth`) and index arithmetic."""

    def __init__(self):
        super().__init__(indent="  ")
        self.symbol = None  # a generic text's size symbol -> its SSA value (index)

    def const(self, value: int) -> str:
        name = self.fresh("c")
        self.line(f"{name} = arith.constant {value} : index")
        return name

    def index(self, form: Lin, scope: dict[str, str]) -> str:
        """An index value computing `form` (its variables named in `scope`, else sizes)."""
        return form_value(form, lambda v: scope[v] if v in scope else self.symbol(v), self.const,
                          lambda x, c: self.binary("muli", x, self.const(c)),
                          lambda x, y: self.binary("addi", x, y))

    def binary(self, op: str, x: str, y: str) -> str:
        """`arith.op x, y` on index values."""
        out = self.fresh()
        self.line(f"{out} = arith.{op} {x}, {y} : index")
        return out

    def mul_add(self, x: str, width, y: str) -> str:
        """x * width + y (width an int, or an index value of a generic text)."""
        w = self.const(width) if isinstance(width, int) else width
        prod, total = self.fresh(), self.fresh()
        self.line(f"{prod} = arith.muli {x}, {w} : index")
        self.line(f"{total} = arith.addi {prod}, {y} : index")
        return total

    def fold(self, op: str, names: list[str]) -> str:
        acc = names[0]
        for n in names[1:]:
            out = self.fresh()
            self.line(f"{out} = arith.{op} {acc}, {n} : index")
            acc = out
        return acc


_GENERIC = re.compile(r'^(?:%[^=]*= )?("[\w.]+")\(([^()]*)\)(.*)$', re.S)


class _Body:
    """The original body, one cell's computation, in scf / arith / tensor form."""

    def __init__(self, nest: DiagonalNest, text: _Text, values: dict[str, int], names: dict,
                 state: str, state_type: str, element: str, transposed: str | None, types: list[str],
                 rows, cols):
        self.nest, self.t, self.values, self.names = nest, text, values, names
        self.state, self.state_type, self.element = state, state_type, element
        self.transposed = transposed  # the table transposed, flattened (same type): column walks
        self.types, self.rows, self.cols = types, rows, cols  # rows, cols: ints, or index values
        self.table = nest.kernel.function.arguments[nest.table]
        self.forms: dict = nest.keys  # SSA value -> key, as find_nest read them

    def form(self, amap, operands, op=None, attr: str = "map") -> list[Lin]:
        return [at_sizes(f, self.values) for f in self.nest.lins(amap, operands, op, attr)]

    def value(self, v, scope: dict[str, str]) -> str:
        """The name of an operand: a value of the body, or an index the nest defines (a loop's
        variable, a size: `table[i][j] = i + j` reads them as numbers)."""
        if v in self.names:
            return self.names[v]
        key = self.forms.get(v)
        if key is None:
            raise NotDiagonal("the body uses a value defined outside the nest")
        return scope[key] if key in scope else self.t.index(at_sizes(self.nest.forms[key], self.values), scope)

    def run(self, block, scope: dict[str, str], cell: str) -> str:
        t = self.t
        for op in block.operations:
            name = op.operation.name
            if name in ("affine.yield", "affine.apply"):  # an apply: its form, where used
                continue
            if name == "affine.load":
                amap = ir.AffineMapAttr(op.attributes["map"]).value
                index = self.form(amap, list(op.operands[1:]), op)
                memref = op.operands[0]
                arg = memref.arg_number
                if arg == self.nest.table:
                    if tuple(index) == tuple(at_sizes(f, self.values) for f in self.nest.cell):
                        self.names[op.results[0]] = cell
                        continue
                    out = t.fresh()
                    if self.transposed is not None and _walks_column(index, scope):
                        flat = t.mul_add(t.index(index[1], scope), self.rows, t.index(index[0], scope))
                        t.line(f"{out} = tensor.extract {self.transposed}[{flat}] : {self.state_type}")
                    else:
                        flat = t.mul_add(t.index(index[0], scope), self.cols, t.index(index[1], scope))
                        t.line(f"{out} = tensor.extract {self.state}[{flat}] : {self.state_type}")
                else:
                    idx = [t.index(f, scope) for f in index]
                    out = t.fresh()
                    ty = self.types[arg]
                    t.line(f"{out} = tensor.extract %a{arg}[{', '.join(idx)}] : {ty}")
                self.names[op.results[0]] = out
            elif name == "affine.store":
                cell = self.names[op.operands[0]]
            elif name == "affine.if":
                amap, eqs = integer_set(op.attributes["condition"])
                conds = []
                for f, eq in zip(self.form(amap, list(op.operands), op, "condition"), eqs):
                    v, zero, c = t.index(f, scope), t.const(0), t.fresh()
                    t.line(f"{c} = arith.cmpi {'eq' if eq else 'sge'}, {v}, {zero} : index")
                    conds.append(c)
                cond = conds[0]
                for c in conds[1:]:
                    both = t.fresh()
                    t.line(f"{both} = arith.andi {cond}, {c} : i1")
                    cond = both
                out = t.fresh()
                t.line(f"{out} = scf.if {cond} -> ({self.element}) {{")
                t.depth += 1
                then = self.run(op.regions[0].blocks[0], scope, cell)
                t.line(f"scf.yield {then} : {self.element}")
                t.depth -= 1
                t.line("} else {")
                t.depth += 1
                other = self.run(op.regions[1].blocks[0], scope, cell) if len(op.regions) > 1 \
                    and op.regions[1].blocks else cell
                t.line(f"scf.yield {other} : {self.element}")
                t.depth -= 1
                t.line("}")
                cell = out
            elif name == "affine.for":
                view = op.opview
                lo = self.form(view.lowerBoundMap.value, list(view.lowerBoundOperands), op, "lowerBoundMap")[0]
                hi = self.form(view.upperBoundMap.value, list(view.upperBoundOperands), op, "upperBoundMap")[0]
                lo_v, hi_v, one = t.index(lo, scope), t.index(hi, scope), t.const(1)
                var = self.forms[op.regions[0].blocks[0].arguments[0]]
                k, carried, out = t.fresh("k"), t.fresh("cell"), t.fresh()
                t.line(f"{out} = scf.for {k} = {lo_v} to {hi_v} step {one} iter_args({carried} = {cell}) "
                       f"-> ({self.element}) {{")
                t.depth += 1
                last = self.run(op.regions[0].blocks[0], {**scope, var: k}, carried)
                t.line(f"scf.yield {last} : {self.element}")
                t.depth -= 1
                t.line("}")
                cell = out
            else:  # arith / math: the same operation, in generic form
                m = _GENERIC.match(op.get_asm(print_generic_op_form=True).strip())
                if m is None or len(op.results) != 1:
                    raise NotDiagonal(f"cannot re-emit {name}")
                out = t.fresh()
                args = ", ".join(self.value(v, scope) for v in op.operands)
                t.line(f"{out} = {m.group(1)}({args}){m.group(3)}")
                self.names[op.results[0]] = out
        return cell


def _walks_column(index: list[Lin], scope: dict[str, str]) -> bool:
    """Whether a read walks down a column as an inner loop runs (its row moves with a loop
    variable of the body, its column does not): read from the transposed copy, where the
    walk is along a row (contiguous)."""
    inner = [v for v in scope if isinstance(v, str) and v.startswith("k")]
    return any(index[0].get(v, 0) for v in inner) and not any(index[1].get(v, 0) for v in inner)


def linalg_text(nest: DiagonalNest, values: dict[str, int], module_op, generic: bool = False) -> str:
    """`func.func @NAME_raised` (linalg on tensors) at the sizes `values`; `generic`: for
    every size the arguments expose (their dims `?`, the sizes read from them at run time by
    synth.grammar.dims, the diagonals' bounds computed from them: diagonal_bounds)."""
    kernel = nest.kernel
    t = _Text()
    n = kernel.n_arguments
    ev: dict[str, int] = values  # what the forms are evaluated at (generic: nothing, sizes stay)
    if generic:
        sources = kernel_sources(kernel, range(n))
        values = GenericValues(values, sources)
        sizes = GenericSizes("linalg", sources, {})
        t.symbol = lambda name: sizes._symbol(t, name)
        ev = {}
    tensor_types = [kernel.tensor_type(i, values) for i in range(n)]
    types = [x.mlir() for x in tensor_types]
    element = kernel.function.arguments[nest.table].type
    if generic:
        sizes.args = {i: (f"%a{i}", tensor_types[i]) for i in range(n)}
        rows, cols = (sizes.value(t, d) for d in tensor_types[nest.table].shape)
        flat_type = f"tensor<?x{element}>"
    else:
        rows, cols = (int(d) for d in kernel.sizes.shape(nest.table, values))
        flat_type = f"tensor<{rows * cols}x{element}>"
    names: dict = {}
    block = module_op.regions[0].blocks[0]
    for i in range(n):  # data scalars the body reads
        a = kernel.function.arguments[i]
        if not a.is_array and any(True for _ in block.arguments[i].uses):
            if block.arguments[i] not in nest.symbols and i not in kernel.sizes.params:
                names[block.arguments[i]] = t.fresh("s")
                t.line(f"{names[block.arguments[i]]} = tensor.extract %a{i}[] : {types[i]}")
    for op in nest.constants:
        m = _GENERIC.match(op.get_asm(print_generic_op_form=True).strip())
        names[op.results[0]] = out = t.fresh("k")
        t.line(f"{out} = {m.group(1)}(){m.group(3)}")
    one = t.const(1)
    if generic:
        lower, upper, firsts, lasts = diagonal_bounds(nest)
        first_v = t.fold("maxsi", [t.index(f, {}) for f in firsts])
        last_v = t.fold("minsi", [t.index(f, {}) for f in lasts])
        span = t.fresh()
        t.line(f"{span} = arith.subi {last_v}, {first_v} : index")
        end = t.fresh()
        t.line(f"{end} = arith.addi {span}, {one} : index")
    else:
        d = diagonals(nest, values)
        lower, upper = d.lower, d.upper
        first_v, last_v, end = t.const(d.first), t.const(d.last), t.const(d.last - d.first + 1)
    flat0 = t.fresh("flat")
    t.line(f"{flat0} = tensor.collapse_shape %a{nest.table} [[0, 1]] : {types[nest.table]} into {flat_type}")
    zero = t.const(0)
    # a copy of the table transposed, kept up to date, where a read walks down a column in
    # an inner loop (nussinov's table[k+1][j]): diagonal L of the transpose is strided too
    walks = transposed_reads(nest)
    step, state, result = t.fresh("s"), t.fresh("t"), t.fresh("table")
    tt = t.fresh("tt") if walks else None
    if walks:
        square, tt0, ttflat = t.fresh("empty"), t.fresh("transposed"), t.fresh("flat")
        if generic:
            ttype = f"tensor<?x?x{element}>"
            t.line(f"{square} = tensor.empty({cols}, {rows}) : {ttype}")
        else:
            ttype = f"tensor<{cols}x{rows}x{element}>"
            t.line(f"{square} = tensor.empty() : {ttype}")
        t.line(f"{tt0} = linalg.transpose ins(%a{nest.table} : {types[nest.table]}) outs({square} : {ttype}) "
               f"permutation = [1, 0]")
        t.line(f"{ttflat} = tensor.collapse_shape {tt0} [[0, 1]] : {ttype} into {flat_type}")
        t.line(f"{result}:2 = scf.for {step} = {zero} to {end} step {one} iter_args({state} = {flat0}, "
               f"{tt} = {ttflat}) -> ({flat_type}, {flat_type}) {{")
    else:
        t.line(f"{result} = scf.for {step} = {zero} to {end} step {one} iter_args({state} = {flat0}) -> ({flat_type}) {{")
    t.depth += 1
    # the diagonals upwards (L = first + s) or downwards (L = last - s)
    L = t.index({"s": nest.direction, "f": 1}, {"s": step, "f": first_v if nest.direction > 0 else last_v})
    scope = {"L": L}
    lo = t.fold("maxsi", [t.index(at_sizes(f, ev), scope) for f in lower])
    hi = t.fold("minsi", [t.index(at_sizes(f, ev), scope) for f in upper])
    count = t.fresh("count")
    t.line(f"{count} = arith.subi {hi}, {lo} : index")
    count1 = t.fresh("count")
    t.line(f"{count1} = arith.addi {count}, {one} : index")
    empty, cells = t.fresh("empty"), t.fresh("diagonal")
    t.line(f"{empty} = tensor.empty({count1}) : tensor<?x{element}>")
    t.line(f"{cells} = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>], "
           f"iterator_types = [\"parallel\"]}} outs({empty} : tensor<?x{element}>) {{")
    t.line(f"^bb0(%out: {element}):")
    t.depth += 1
    p = t.fresh("p")
    t.line(f"{p} = linalg.index 0 : index")
    r = t.fresh("r")
    t.line(f"{r} = arith.addi {lo}, {p} : index")
    c = t.fresh("col")
    t.line(f"{c} = arith.addi {r}, {L} : index")
    a_of, b_of = inverse(nest.cell)
    rc = {"r": r, "c": c}
    a = t.index(at_sizes(a_of, ev), rc)
    b = t.index(at_sizes(b_of, ev), rc)
    cell0 = t.fresh("cell")
    t.line(f"{cell0} = tensor.extract {state}[{t.mul_add(r, cols, c)}] : {flat_type}")
    body = _Body(nest, t, ev, names, state, flat_type, element, tt, types, rows, cols)
    last = body.run(nest.inner.regions[0].blocks[0], {"a": a, "b": b}, cell0)
    t.line(f"linalg.yield {last} : {element}")
    t.depth -= 1
    t.line(f"}} -> tensor<?x{element}>")
    stride = _plus_one(t, cols)
    offset = t.mul_add(lo, stride, L)
    updated = t.fresh("t")
    t.line(f"{updated} = tensor.insert_slice {cells} into {state}[{offset}] [{count1}] [{stride}] "
           f": tensor<?x{element}> into {flat_type}")
    if walks:  # the transpose's cell (r, r + L) is at (r + L) * R + r = r * (R + 1) + L * R
        stride_t = _plus_one(t, rows)
        offset_t = t.mul_add(lo, stride_t, t.mul_add(L, rows, zero))
        updated_t = t.fresh("tt")
        t.line(f"{updated_t} = tensor.insert_slice {cells} into {tt}[{offset_t}] [{count1}] [{stride_t}] "
               f": tensor<?x{element}> into {flat_type}")
        t.line(f"scf.yield {updated}, {updated_t} : {flat_type}, {flat_type}")
    else:
        t.line(f"scf.yield {updated} : {flat_type}")
    t.depth -= 1
    t.line("}")
    out = t.fresh("out")
    final = f"{result}{'#0' if walks else ''}"
    if generic:  # copied out element by element: an expand_shape of two dynamic sizes trips
        # MLIR 22's expand-strided-metadata (at most one dynamic size per group)
        square = t.fresh("empty")
        t.line(f"{square} = tensor.empty({rows}, {cols}) : {types[nest.table]}")
        t.line(f"{out} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], "
               f"iterator_types = [\"parallel\", \"parallel\"]}} outs({square} : {types[nest.table]}) {{")
        t.line(f"^bb0(%o: {element}):")
        t.depth += 1
        i, j, x = t.fresh("i"), t.fresh("j"), t.fresh()
        t.line(f"{i} = linalg.index 0 : index")
        t.line(f"{j} = linalg.index 1 : index")
        t.line(f"{x} = tensor.extract {final}[{t.mul_add(i, cols, j)}] : {flat_type}")
        t.line(f"linalg.yield {x} : {element}")
        t.depth -= 1
        t.line(f"}} -> {types[nest.table]}")
    else:
        t.line(f"{out} = tensor.expand_shape {final} [[0, 1]] output_shape [{rows}, {cols}] "
               f": {flat_type} into {types[nest.table]}")
    params = ", ".join(f"%a{i}: {types[i]}" for i in range(n))
    body_text = "\n".join(t.prologue + t.lines)
    return (f"func.func @{kernel.name}_raised({params}) -> ({types[nest.table]}) attributes "
            f"{{synth.outputs = [{nest.table}]}} {{\n{body_text}\n  return {out} : {types[nest.table]}\n}}\n")


def _plus_one(t: _Text, width):
    """width + 1: an int (static), else an index value."""
    if isinstance(width, int):
        return width + 1
    out, one = t.fresh(), t.const(1)
    t.line(f"{out} = arith.addi {width}, {one} : index")
    return out
