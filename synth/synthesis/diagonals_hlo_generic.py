"""The stablehlo text of a loop over a table's diagonals for every size its arguments
expose (`synth raise --shapes generic`; synth.synthesis.diagonals_hlo has the static one
and the layout: one lane per row of the table, the table flattened and padded to
R x (C + 1) elements, whose column L + shift is the diagonal L).

The sizes are rank-0 i64 values read from the arguments (synth.grammar.dims: a dim by
`get_dimension_size`, a size argument by its value), computed once in the function's
prologue with the lane shape (R) and the views' shapes; every lane vector is a
`tensor<?x...>` (`dynamic_iota`, `dynamic_broadcast_in_dim`, `dynamic_reshape`), the
reads gathers at computed indices, the column written back with a `dynamic_update_slice`
of a `tensor<?x1x...>` update. The diagonals' range and each diagonal's rows are the
forms of `diagonal_bounds` evaluated on those values (rank-0, broadcast once per
diagonal). Made static at given shapes by jax's shape refinement
(synth.semantics.specialize), the text is what is tested and proven at each size."""

from __future__ import annotations

from synth.analysis.symbols import GenericValues
from synth.grammar.dims import GenericSizes, kernel_sources
from synth.grammar.op import format_scalar
from synth.synthesis.diagonals import (DiagonalNest, Lin, NotDiagonal, at_sizes, diagonal_bounds, diagonals,
                                       inverse)
from synth.synthesis.diagonals_hlo import Body, Lanes, inputs_on_lanes

I64 = "tensor<i64>"


class _DynamicLanes(Lanes):
    """Lanes whose count R is known at run time: `lanes` the tensor<1xi64> shape (R)."""

    def __init__(self, sizes: GenericSizes):
        super().__init__(0)
        self.sizes = sizes
        self.lanes_shape = None
        self.scalars: set[str] = set()  # names of rank-0 i64 values a form may use
        self._splats: dict = {}

    def vec(self, element: str) -> str:
        return f"tensor<?x{element}>"

    def pro(self, rhs: str, hint: str = "p") -> str:
        """`%name = rhs` in the prologue (visible in every region below)."""
        name = self.fresh(hint)
        self.prologue.append(f"{self.base_indent}{name} = {rhs}")
        return name

    def scalar_const(self, value: int) -> str:
        key = ("i64", int(value))
        if key not in self._splats:
            self._splats[key] = self.pro(f"stablehlo.constant dense<{int(value)}> : {I64}", "c")
        return self._splats[key]

    def splat(self, value, element: str) -> str:
        key = (str(value), element, "lanes")
        if key not in self._splats:
            c = self.pro(f"stablehlo.constant dense<{value}> : tensor<{element}>", "c")
            self._splats[key] = self.pro(f"stablehlo.dynamic_broadcast_in_dim {c}, {self.lanes_shape}, dims = [] : "
                                         f"(tensor<{element}>, tensor<1xi64>) -> {self.vec(element)}", "splat")
        return self._splats[key]

    def spread(self, x: str, element: str) -> str:
        out = self.fresh()
        self.line(f"{out} = stablehlo.dynamic_broadcast_in_dim {x}, {self.lanes_shape}, dims = [] : "
                  f"(tensor<{element}>, tensor<1xi64>) -> {self.vec(element)}")
        return out

    def sop(self, name: str, a: str, b: str) -> str:
        """A rank-0 i64 operation."""
        out = self.fresh()
        self.line(f"{out} = stablehlo.{name} {a}, {b} : {I64}")
        return out

    def scalar_index(self, form: Lin, scope: dict[str, str]) -> str:
        """A rank-0 i64 computing the terms of `form` that are not lanes (the constant,
        sizes, rank-0 values of `scope`)."""
        acc = None
        for v, c in sorted(form.items(), key=lambda kv: (kv[0] == 1, str(kv[0]))):
            if v == 1:
                term = self.scalar_const(c)
            elif v in scope and scope[v] not in self.scalars:
                continue
            else:
                term = scope[v] if v in scope else self.sizes._symbol(self, v)
                if c != 1:
                    term = self.sop("multiply", term, self.scalar_const(c))
            acc = term if acc is None else self.sop("add", acc, term)
        return acc if acc is not None else self.scalar_const(0)

    def index(self, form: Lin, scope: dict[str, str]) -> str:
        acc = None
        for v, c in sorted(form.items(), key=lambda kv: str(kv[0])):
            if v == 1 or v not in scope or scope[v] in self.scalars:
                continue
            term = scope[v] if c == 1 else self.op("multiply", scope[v], self.splat(c, "i64"), "i64")
            acc = term if acc is None else self.op("add", acc, term, "i64")
        if any(v == 1 or v not in scope or scope[v] in self.scalars for v in form):
            rest = self.spread(self.scalar_index(form, scope), "i64")
            acc = rest if acc is None else self.op("add", acc, rest, "i64")
        return acc if acc is not None else self.splat(0, "i64")

    def gather(self, flat: str, size, element: str, index: str) -> str:
        column, out = self.fresh(), self.fresh()
        self.line(f"{column} = stablehlo.dynamic_reshape {index}, {self.column_shape} : "
                  f"({self.vec('i64')}, tensor<2xi64>) -> tensor<?x1xi64>")
        self.line(f'{out} = "stablehlo.gather"({flat}, {column}) {{dimension_numbers = #stablehlo.gather<'
                  f"collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
                  f"indices_are_sorted = false, slice_sizes = array<i64: 1>}} : "
                  f"(tensor<?x{element}>, tensor<?x1xi64>) -> {self.vec(element)}")
        return out


class _DynamicBody(Body):
    """The original body on dynamic lanes: flat indices multiply by size values."""

    def read_table(self, index: list[Lin], scope: dict[str, str]) -> str:
        t = self.t
        row = t.op("multiply", t.index(index[0], scope), t.spread(self.cols, "i64"), "i64")
        flat = t.op("add", t.op("add", row, t.index(index[1], scope), "i64"), t.spread(self.shift, "i64"), "i64")
        return t.gather(self.state, None, self.element, flat)

    def read_array(self, arg: int, index: list[Lin], scope: dict[str, str]) -> str:
        t = self.t
        flat, strides, arg_el = self.flats[arg]
        acc = None
        for f, s in zip(index, strides):
            v = t.index(f, scope)
            if s is not None:
                v = t.op("multiply", v, t.spread(s, "i64"), "i64")
            acc = v if acc is None else t.op("add", acc, v, "i64")
        return t.gather(flat, None, arg_el, acc)


def stablehlo_generic_text(nest: DiagonalNest, values: dict[str, int], module_op) -> str:
    """`func.func @NAME_raised` (stablehlo) for every size the arguments expose; `values`:
    the kernel's own sizes (the types' static dims, a check of the padded view there)."""
    kernel = nest.kernel
    n = kernel.n_arguments
    d = diagonals(nest, values)
    rows_at, cols_at = (int(x) for x in kernel.sizes.shape(nest.table, values))
    if d.last + max(0, -d.first) > cols_at or max(0, -d.first) > rows_at:
        raise NotDiagonal("the table's diagonals are not the columns of one padded view")
    sources = kernel_sources(kernel, range(n))
    gvalues = GenericValues(values, sources)
    sizes = GenericSizes("stablehlo", sources, {})
    tensor_types = [kernel.tensor_type(i, gvalues) for i in range(n)]
    types = [x.mlir() for x in tensor_types]
    sizes.args = {i: (f"%a{i}", tensor_types[i]) for i in range(n)}
    element = kernel.function.arguments[nest.table].type
    t = _DynamicLanes(sizes)
    rows, cols = (sizes.value(t, x) for x in tensor_types[nest.table].shape)
    one = t.scalar_const(1)
    t.lanes_shape = t.pro(f"stablehlo.reshape {rows} : ({I64}) -> tensor<1xi64>", "shape")

    def shape(*xs: str) -> str:
        parts = [t.pro(f"stablehlo.reshape {x} : ({I64}) -> tensor<1xi64>") for x in xs]
        return parts[0] if len(parts) == 1 else t.pro(
            f"stablehlo.concatenate {', '.join(parts)}, dim = 0 : "
            f"({', '.join(['tensor<1xi64>'] * len(parts))}) -> tensor<{len(parts)}xi64>", "shape")
    t.column_shape = shape(rows, one)
    width = t.pro(f"stablehlo.add {cols}, {one} : {I64}")  # a row of the padded view
    size = t.pro(f"stablehlo.multiply {rows}, {cols} : {I64}")
    padded = t.pro(f"stablehlo.multiply {rows}, {width} : {I64}")
    flats = {}
    for i in range(n):
        a = kernel.function.arguments[i]
        if i != nest.table and a.is_array:
            dims = [sizes.value(t, x) for x in tensor_types[i].shape]
            strides, total = [None], dims[-1]  # the last dim's stride: 1
            for x in reversed(dims[:-1]):
                strides.insert(0, total)
                total = t.pro(f"stablehlo.multiply {x}, {total} : {I64}")
            flat = t.pro(f"stablehlo.dynamic_reshape %a{i}, {shape(total)} : ({types[i]}, tensor<1xi64>) "
                         f"-> tensor<?x{a.type}>", "flat")
            flats[i] = (flat, strides, a.type)
    names = inputs_on_lanes(nest, t, module_op)
    lower, upper, firsts, lasts = diagonal_bounds(nest)
    first = _fold(t, "maximum", [t.scalar_index(f, {}) for f in firsts])
    last = _fold(t, "minimum", [t.scalar_index(f, {}) for f in lasts])
    zero = t.scalar_const(0)
    # the padded state: `shift` elements, the table, `rows - shift` elements, so that cell
    # (r, r + L) is element (r, L + shift) of its R x (C + 1) view
    shift = t.sop("maximum", t.sop("subtract", zero, first), zero)
    flat0 = t.fresh("flat")
    ftype = f"tensor<?x{element}>"
    t.line(f"{flat0} = stablehlo.dynamic_reshape %a{nest.table}, {shape(size)} : ({types[nest.table]}, "
           f"tensor<1xi64>) -> {ftype}")
    zero_el = t.fresh("c")
    t.line(f"{zero_el} = stablehlo.constant dense<{format_scalar(0, element)}> : tensor<{element}>")
    before, after, state0 = t.fresh("pad"), t.fresh("pad"), t.fresh("state")
    t.line(f"{before} = stablehlo.dynamic_broadcast_in_dim {zero_el}, {_shape_of(t, shift)}, dims = [] : "
           f"(tensor<{element}>, tensor<1xi64>) -> {ftype}")
    t.line(f"{after} = stablehlo.dynamic_broadcast_in_dim {zero_el}, {_shape_of(t, t.sop('subtract', rows, shift))}, "
           f"dims = [] : (tensor<{element}>, tensor<1xi64>) -> {ftype}")
    t.line(f"{state0} = stablehlo.concatenate {before}, {flat0}, {after}, dim = 0 : ({ftype}, {ftype}, {ftype}) -> {ftype}")
    rowv = t.pro(f"stablehlo.dynamic_iota {t.lanes_shape}, dim = 0 : (tensor<1xi64>) -> {t.vec('i64')}", "rows")
    down = nest.direction < 0  # the diagonals downwards: L from last to first
    L, state, loop = t.fresh("L"), t.fresh("t"), t.fresh("diagonals")
    t.open_while(loop, L, last if down else first, state, state0, ftype, "GE" if down else "LE",
                 first if down else last)
    t.scalars.add(L)
    scope = {"L": L}
    lo = _fold(t, "maximum", [t.scalar_index(f, scope) for f in lower])
    hi = _fold(t, "minimum", [t.scalar_index(f, scope) for f in upper])
    valid = t.op("and", t.compare("GE", rowv, t.spread(lo, "i64"), "i64", "SIGNED"),
                 t.compare("LE", rowv, t.spread(hi, "i64"), "i64", "SIGNED"), "i1")
    col = t.op("add", rowv, t.spread(L, "i64"), "i64")
    a_of, b_of = inverse(nest.cell)
    rc = {"r": rowv, "c": col}
    a, b = t.index(at_sizes(a_of, {}), rc), t.index(at_sizes(b_of, {}), rc)
    column = t.sop("add", L, shift)
    at = t.op("add", t.op("multiply", rowv, t.spread(width, "i64"), "i64"), t.spread(column, "i64"), "i64")
    cell0 = t.gather(state, None, element, at)  # in the view: also the column's old values
    body = _DynamicBody(nest, t, {}, names, state, None, element, flats, valid, shift)
    body.cols = cols
    cell = body.run(nest.inner.regions[0].blocks[0], {"a": a, "b": b}, cell0)
    new = t.select(valid, cell, cell0, element)
    view, newc, upd, back = t.fresh("view"), t.fresh(), t.fresh(), t.fresh()
    grid, col_t = f"tensor<?x?x{element}>", f"tensor<?x1x{element}>"
    t.line(f"{view} = stablehlo.dynamic_reshape {state}, {shape(rows, width)} : ({ftype}, tensor<2xi64>) -> {grid}")
    t.line(f"{newc} = stablehlo.dynamic_reshape {new}, {t.column_shape} : ({t.vec(element)}, tensor<2xi64>) -> {col_t}")
    t.line(f"{upd} = stablehlo.dynamic_update_slice {view}, {newc}, {zero}, {column} : ({grid}, {col_t}, "
           f"{I64}, {I64}) -> {grid}")
    t.line(f"{back} = stablehlo.dynamic_reshape {upd}, {shape(padded)} : ({grid}, tensor<1xi64>) -> {ftype}")
    L1 = t.sop("add", L, t.scalar_const(-1 if down else 1))
    t.line(f"stablehlo.return {L1}, {back} : {I64}, {ftype}")
    t.depth -= 1
    t.line("}")
    part, out = t.fresh(), t.fresh("out")
    t.line(f"{part} = stablehlo.real_dynamic_slice {loop}#1, {_shape_of(t, shift)}, "
           f"{_shape_of(t, t.sop('add', shift, size))}, {shape(one)} : "
           f"({ftype}, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> {ftype}")
    t.line(f"{out} = stablehlo.dynamic_reshape {part}, {shape(rows, cols)} : ({ftype}, tensor<2xi64>) "
           f"-> {types[nest.table]}")
    params = ", ".join(f"%a{i}: {types[i]}" for i in range(n))
    body_text = "\n".join(t.prologue + t.lines)
    return (f"func.func @{kernel.name}_raised({params}) -> ({types[nest.table]}) attributes "
            f"{{synth.outputs = [{nest.table}]}} {{\n{body_text}\n  return {out} : {types[nest.table]}\n}}\n")


def _fold(t: _DynamicLanes, op: str, names: list) -> str:
    acc = names[0]
    for x in names[1:]:
        acc = t.sop(op, acc, x)
    return acc


def _shape_of(t: _DynamicLanes, x: str) -> str:
    """A rank-0 value computed in the body as a tensor<1xi64> shape."""
    out = t.fresh("shape")
    t.line(f"{out} = stablehlo.reshape {x} : ({I64}) -> tensor<1xi64>")
    return out
