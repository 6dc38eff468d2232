"""Sizes as SSA values: how a shape-generic function body computes the sizes it uses.

A program emitted with `--shapes generic` has `?` in its types wherever a dimension
depends on a size symbol known only at run time (synth.analysis.symbols.GenericValues).
Where an op needs such a size as a value (a `tensor.empty`, a slice's limit, a
broadcast's target shape, a loop's trip count), its emitter asks the `Emitter`, which
computes it from its `GenericSizes`: each dynamic symbol is read once from the
function's arguments, a dimension of an array argument (`tensor.dim`,
`stablehlo.get_dimension_size`) or a size argument (a rank-0 integer tensor), and each
expression of the symbols once from those values. All of these lines go to the
function's prologue (the top of its body), so values defined there are visible in every
region below (a `stablehlo.while` body, an `scf.for`).

linalg computes sizes as `index` values (arith), stablehlo as rank-0 `tensor<i64>`
(stablehlo arithmetic; a shape operand is a `tensor<Rxi64>` concatenated from them).
Sizes are non-negative, so a floordiv is a truncating division.
"""

from __future__ import annotations

from dataclasses import dataclass

from synth.analysis.symbols import Size, SizeExpr
from synth.frontend.size_extremes import parts
from synth.grammar.types import TensorType


class GenericUnsupported(Exception):
    """An op (or a form of one) that has no shape-generic emitter yet; the message names it."""


@dataclass(frozen=True)
class SizeSource:
    """Where a dynamic symbol's value comes from: dimension `dim` of array argument `arg`,
    which is the symbol plus `offset` (kind "dim"); dimension `dim` of array argument
    `arg`, which is `coeff` (+1 or -1, else a multiple: 2 * h rows) times the symbol plus
    `rest`, an expression of symbols with sources of their own (kind "solved":
    moving_average's out, n - w + 1, gives w once in gives n); or the value of the rank-0 integer argument `arg` (kind
    "scalar", element type `dtype`); or, for a quotient symbol (q0 = (n - k) floordiv 2,
    synth.analysis.sizes.SizeModel.floordivs), `rest`, its floordiv of symbols with
    sources of their own (kind "quotient", `arg` -1). A size read from a shape is
    preferred to a scalar's value: the compilers' shape refinement sees shapes, not values."""

    symbol: str
    kind: str  # "dim" | "solved" | "scalar" | "quotient"
    arg: int
    dim: int = 0
    offset: int = 0
    dtype: str = "i64"
    coeff: int = 1
    rest: SizeExpr | None = None
    # kind "extreme": `extreme` ("min" / "max") of `parts`, each (argument, 0) the value of a
    # rank-0 integer argument or (None, c) a constant (a loop bound max(s, 0) of sizes:
    # synth.frontend.size_extremes)
    extreme: str = ""
    parts: tuple = ()


def find_sources(dynamic, arg_dims: dict[int, tuple], scalar_args: dict[str, tuple[int, str]],
                 quotients: dict[str, SizeExpr] | None = None,
                 extremes: dict | None = None) -> dict[str, SizeSource]:
    """A source for each symbol of `dynamic` that the arguments expose: an array argument's
    dimension whose expression is the symbol plus a constant (the first such, in argument
    order), else the size argument named by `scalar_args` (symbol -> (argument, dtype)),
    else the min / max of size arguments `extremes` names (symbol -> (kind, parts));
    then each quotient symbol (`quotients`: symbol -> its floordiv) whose floordiv's
    symbols all have one. Symbols none exposes are left out (they stay constants of the
    text)."""
    quotients = quotients or {}
    out: dict[str, SizeSource] = {}
    for arg in sorted(arg_dims):
        for d, e in enumerate(arg_dims[arg]):
            if isinstance(e, SizeExpr) and e.div == 1 and len(e.terms) == 1 and e.terms[0][1] == 1:
                name = e.terms[0][0]
                if name in dynamic and name not in out:
                    out[name] = SizeSource(name, "dim", arg, d, e.const)
    for units in ((1, -1), None):  # (then a multiple of the symbol: 2 * h rows of an upsampling)
        solved = True
        while solved:  # a dim linear in symbols, all but one with a source: that one, solved
            solved = False
            for arg in sorted(arg_dims):
                for d, e in enumerate(arg_dims[arg]):
                    if not isinstance(e, SizeExpr) or e.div != 1:
                        continue
                    missing = [(n, c) for n, c in e.terms if n not in out]
                    if len(missing) == 1 and (units is None or missing[0][1] in units) and missing[0][0] in dynamic:
                        name, coeff = missing[0]
                        rest = SizeExpr(tuple(t for t in e.terms if t[0] != name), e.const)
                        out[name] = SizeSource(name, "solved", arg, d, coeff=coeff, rest=rest)
                        solved = True
    for name, (arg, dtype) in scalar_args.items():
        if name in dynamic and name not in out:
            out[name] = SizeSource(name, "scalar", arg, dtype=dtype)
    for name, (kind, sides) in (extremes or {}).items():
        if name in dynamic and name not in out:
            out[name] = SizeSource(name, "extreme", next(a for a, _ in sides if a is not None),
                                   extreme=kind, parts=sides)
    for name, e in quotients.items():  # (where no dim shows it)
        if name in dynamic and name not in out and all(n in out for n in e.symbols):
            out[name] = SizeSource(name, "quotient", -1, rest=e)
    return out



def kernel_sources(kernel, arguments) -> dict[str, SizeSource]:
    """symbol -> SizeSource of a kernel's size symbols over its `arguments` (indices): what
    a generic raise taking those arguments reads each size from (find_sources)."""
    model = kernel.sizes
    values = model.original()
    arg_dims = {i: model.arg_dims[i] for i in arguments if i in model.arg_dims}
    # (not a 16-bit argument's value: C's uint16_t sizes are read unsigned, a tensor<i16> is not)
    scalars = {name: (i, kernel.tensor_type(i, values).dtype)
               for i, name in model.params.items() if i in arguments and kernel.tensor_type(i, values).dtype != "i16"}
    extremes = {}
    for k, e in model.extremes.items():
        found = parts(e)
        if k in model.params and found is not None and all(a in arguments for a, _ in found if a is not None) \
                and any(a is not None for a, _ in found):
            extremes[model.params[k]] = (e.kind, found)
    quotients = {n: e for n, e in model.floordivs.items() if not n.startswith("(")}
    # (a product symbol, an image's sw * sh elements: read off the array it is the extent of)
    return find_sources(set(model.symbols) | set(quotients) | set(model.products), arg_dims, scalars, quotients,
                        extremes)

class GenericSizes:
    """The size values of one generic function body (see the module docstring).

    `args`: argument index -> (SSA name, TensorType) of the function's arguments."""

    def __init__(self, dialect: str, sources: dict[str, SizeSource], args: dict[int, tuple[str, TensorType]]):
        self.dialect = dialect
        self.sources = dict(sources)
        self.args = dict(args)
        self._values: dict[object, str] = {}

    # -- the symbols --------------------------------------------------------------------------
    def _symbol(self, em, name: str) -> str:
        key = ("symbol", name)
        if key in self._values:
            return self._values[key]
        src = self.sources.get(name)
        if src is None:
            raise GenericUnsupported(f"size symbol {name} has no value at run time (no argument exposes it)")
        if src.kind == "quotient":  # computed from the sizes it divides
            self._values[key] = self._expr(em, src.rest)
            return self._values[key]
        arg, t = self.args[src.arg]
        if src.kind == "extreme" and self.dialect != "linalg":  # a shape from values: no refinement sees it
            raise GenericUnsupported(f"size symbol {name} is the {src.extreme} of size arguments' values, "
                                     f"a shape stablehlo's shape refinement cannot read")
        if src.kind == "extreme":
            v = self._extreme(em, src)
        elif src.kind == "solved":  # coeff * symbol = dim - rest
            v = self._solved(em, src, arg, t)
        elif self.dialect == "linalg":
            if src.kind == "dim":
                d = self._index_constant(em, src.dim)
                v = _pro(em, f"tensor.dim {arg}, {d} : {t.mlir()}")
            else:
                x = _pro(em, f"tensor.extract {arg}[] : {t.mlir()}")
                v = _pro(em, f"arith.index_cast {x} : {t.dtype} to index")
            if src.kind == "dim" and src.offset:
                v = _pro(em, f"arith.subi {v}, {self._index_constant(em, src.offset)} : index")
        else:
            if src.kind == "dim":
                x = _pro(em, f"stablehlo.get_dimension_size {arg}, dim = {src.dim} : ({t.mlir()}) -> tensor<i32>")
                v = _pro(em, f"stablehlo.convert {x} : (tensor<i32>) -> tensor<i64>")
                if src.offset:
                    v = _pro(em, f"stablehlo.subtract {v}, {self._i64_constant(em, src.offset)} : tensor<i64>")
            elif t.dtype == "i64":
                v = arg
            else:
                v = _pro(em, f"stablehlo.convert {arg} : ({t.mlir()}) -> tensor<i64>")
        self._values[key] = v
        return v

    def _extreme(self, em, src: SizeSource) -> str:
        """The min (max) of size arguments' values and constants."""
        linalg = self.dialect == "linalg"
        values = []
        for a, c in src.parts:
            if a is None:
                values.append(self._index_constant(em, c) if linalg else self._i64_constant(em, c))
                continue
            arg, t = self.args[a]
            if linalg:
                x = _pro(em, f"tensor.extract {arg}[] : {t.mlir()}")
                values.append(_pro(em, f"arith.index_cast {x} : {t.dtype} to index"))
            else:
                values.append(arg if t.dtype == "i64" else _pro(em, f"stablehlo.convert {arg} : ({t.mlir()}) -> tensor<i64>"))
        op = {("min", True): "arith.minsi", ("max", True): "arith.maxsi", ("min", False): "stablehlo.minimum",
              ("max", False): "stablehlo.maximum"}[(src.extreme, linalg)]
        v = values[0]
        for w in values[1:]:
            v = _pro(em, f"{op} {v}, {w} : {'index' if linalg else 'tensor<i64>'}")
        return v

    def _solved(self, em, src: SizeSource, arg: str, t: TensorType) -> str:
        linalg = self.dialect == "linalg"
        if linalg:
            dim = _pro(em, f"tensor.dim {arg}, {self._index_constant(em, src.dim)} : {t.mlir()}")
        else:
            x = _pro(em, f"stablehlo.get_dimension_size {arg}, dim = {src.dim} : ({t.mlir()}) -> tensor<i32>")
            dim = _pro(em, f"stablehlo.convert {x} : (tensor<i32>) -> tensor<i64>")
        rest = self._expr(em, src.rest)
        ty = "index" if linalg else "tensor<i64>"
        sub = "arith.subi" if linalg else "stablehlo.subtract"
        a, b = (dim, rest) if src.coeff > 0 else (rest, dim)
        v = _pro(em, f"{sub} {a}, {b} : {ty}")
        if abs(src.coeff) == 1:
            return v
        const = self._index_constant if linalg else self._i64_constant  # (a multiple: exact)
        return _pro(em, f"{'arith.divsi' if linalg else 'stablehlo.divide'} {v}, {const(em, abs(src.coeff))} : {ty}")

    # -- constants ----------------------------------------------------------------------------
    def _index_constant(self, em, value: int) -> str:
        key = ("index", int(value))
        if key not in self._values:
            self._values[key] = _pro(em, f"arith.constant {int(value)} : index")
        return self._values[key]

    def _i64_constant(self, em, value: int) -> str:
        key = ("i64", int(value))
        if key not in self._values:
            self._values[key] = _pro(em, f"stablehlo.constant dense<{int(value)}> : tensor<i64>")
        return self._values[key]

    # -- expressions ----------------------------------------------------------------------------
    def value(self, em, dim) -> str:
        """The SSA value of a dimension (an int, or a Size whose expression is computed):
        `index` in linalg, `tensor<i64>` in stablehlo."""
        expr = dim.expr if isinstance(dim, Size) and dim.is_dynamic else SizeExpr.constant(int(dim))
        return self._expr(em, expr)

    def _expr(self, em, expr: SizeExpr) -> str:
        key = ("expr", expr)
        if key in self._values:
            return self._values[key]
        linalg = self.dialect == "linalg"
        const = self._index_constant if linalg else self._i64_constant
        ty = "index" if linalg else "tensor<i64>"
        add, mul = ("arith.addi", "arith.muli") if linalg else ("stablehlo.add", "stablehlo.multiply")
        total = None
        for name, coeff in expr.terms:
            term = self._symbol(em, name)
            if coeff != 1:
                term = _pro(em, f"{mul} {term}, {const(em, coeff)} : {ty}")
            total = term if total is None else _pro(em, f"{add} {total}, {term} : {ty}")
        if total is None:
            total = const(em, expr.const)
        elif expr.const:
            total = _pro(em, f"{add} {total}, {const(em, expr.const)} : {ty}")
        if expr.div != 1:
            div = "arith.divsi" if linalg else "stablehlo.divide"  # sizes are >= 0
            total = _pro(em, f"{div} {total}, {const(em, expr.div)} : {ty}")
        self._values[key] = total
        return total

    def shape(self, em, dims) -> str:
        """stablehlo: a `tensor<Rxi64>` holding the dimensions `dims`."""
        key = ("shape", tuple((d.expr if isinstance(d, Size) and d.is_dynamic else int(d)) for d in dims))
        if key in self._values:
            return self._values[key]
        if all(not (isinstance(d, Size) and d.is_dynamic) for d in dims):
            text = ", ".join(str(int(d)) for d in dims)
            v = _pro(em, f"stablehlo.constant dense<[{text}]> : tensor<{len(dims)}xi64>")
        else:
            parts = [_pro(em, f"stablehlo.reshape {self.value(em, d)} : (tensor<i64>) -> tensor<1xi64>")
                     for d in dims]
            v = parts[0] if len(parts) == 1 else _pro(
                em, f"stablehlo.concatenate {', '.join(parts)}, dim = 0 : "
                    f"({', '.join(['tensor<1xi64>'] * len(parts))}) -> tensor<{len(parts)}xi64>")
        self._values[key] = v
        return v


def _pro(em, rhs: str) -> str:
    """`%name = rhs` in the function's prologue; the name."""
    name = em.fresh("sz")
    em.prologue.append(f"{em.base_indent}{name} = {rhs}")
    return name


def is_dynamic(dim) -> bool:
    return isinstance(dim, Size) and dim.is_dynamic


def has_dynamic(t: TensorType) -> bool:
    return any(is_dynamic(d) for d in t.shape)
