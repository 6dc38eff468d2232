"""What a function is, as synth sees it: its arguments (arrays and scalars), which arrays
it reads and writes, and which size parameter bounds each array dimension.

The size binding is structural: a loop `affine.for %i = 0 to %n` with
`%n = arith.index_cast %argK` binds `%i` to size parameter K (loops whose bounds use an
outer induction variable inherit its parameter), and an access `A[.., %i + 1, ..]` binds
that dimension of A to K. Everything here runs inside the caller's `ir.Context`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from mlir import ir

from synth.errors import InputError
from synth.frontend.reader import SourceModule, diagnostic_location
from synth.frontend.reader import walk_ops

ARRAY_ELEMENT_TYPES = ("f64", "f32", "i32", "i64", "i16", "i8")
SCALAR_TYPES = ("i32", "i64", "index", "f32", "f64", "i16", "i8")
SIZE_TYPES = ("i32", "i64", "index", "i16")  # (as synth.analysis.collect's)

_ACCESS_READ = ("affine.load", "memref.load")
_ACCESS_WRITE = ("affine.store", "memref.store")
_SUPPORTED_OPS = {
    "affine.for", "affine.if", "affine.load", "affine.store", "affine.yield", "affine.apply",
    "affine.min", "affine.max", "memref.load", "memref.store", "memref.alloca", "memref.alloc",
    "memref.dealloc", "func.return", "scf.yield",
}
_SUPPORTED_DIALECTS = ("arith", "math")
_INDEX_OPS = {"arith.index_cast", "arith.index_castui"}


@dataclass(frozen=True)
class Argument:
    index: int
    type: str  # element type for arrays, the scalar type otherwise
    shape: tuple[int | None, ...] | None  # None for scalars; a None dim is dynamic (`?`)
    # an array's layout other than the identity, as the type prints it after a comma
    # (`, strided<[?, ?], offset: ?>`: a view with run-time strides, the C front end's
    # reading of a byte pointer at two independent strides); "" for the identity
    layout: str = ""

    @property
    def is_array(self) -> bool:
        return self.shape is not None

    @property
    def mlir_type(self) -> str:
        if self.shape is None:
            return self.type
        dims = ["?" if d is None else str(d) for d in self.shape]
        return f"memref<{'x'.join(dims)}x{self.type}{self.layout}>" if self.shape else f"memref<{self.type}>"


@dataclass
class KernelFunction:
    name: str
    location: str
    arguments: list[Argument]
    reads: set[int]  # argument indices of arrays read
    writes: set[int]  # argument indices of arrays written
    # (array argument index, dim) -> size parameter argument index
    dim_params: dict[tuple[int, int], int] = field(default_factory=dict)
    loop_params: set[int] = field(default_factory=set)  # size parameters that bound some loop
    ops: Counter = field(default_factory=Counter)  # op name -> count in the body
    scalars_used: set[int] = field(default_factory=set)  # non-size scalar arguments used
    # a loop bound depends on an enclosing loop's induction variable, or an affine.if
    # guards a statement: the iteration domain is not a box (e.g. triangular)
    non_rectangular: bool = False
    float_constants: set[float] = field(default_factory=set)  # arith.constant float values
    diagonal: bool = False  # an access uses one index in two dims (A[i][i])
    edge_store: bool = False  # a store at an index no loop moves along some dim (A[n-1][j])
    # an integer division or remainder by a value that is not a constant (`a[i] % b[i]`):
    # random integer inputs leave 0 out (x / 0 traps in compiled code)
    int_divides_by_data: bool = False
    # an integer array whose values index a table (`table[idx[i]]`): argument -> the table's
    # extent there; random inputs draw its values inside (synth.grammar.gather: the C reads
    # outside only with undefined behaviour, an assumption the translation records)
    index_ranges: dict = field(default_factory=dict)
    # the same where the table's extent is a run-time size: index argument -> (table, dim)
    index_dims: dict = field(default_factory=dict)

    @property
    def outputs(self) -> list[int]:
        return sorted(self.writes)

    @property
    def size_params(self) -> list[int]:
        return [a.index for a in self.arguments if not a.is_array and a.type in SIZE_TYPES]

    def inferred_sizes(self) -> dict[int, int]:
        """Size parameter -> value implied by the array shapes (for parameters bound to a dim)."""
        values: dict[int, int] = {}
        for (arr, dim), p in sorted(self.dim_params.items()):
            values.setdefault(p, self.arguments[arr].shape[dim])
        return values


def list_functions(source: SourceModule) -> list[str]:
    """Names of the functions with a body, in module order."""
    with source.context:
        module = source.parsed()
        return [op.attributes["sym_name"].value for op in module.body.operations
                if op.operation.name == "func.func" and len(op.regions[0].blocks) > 0]


_INT_DIVISIONS = ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.floordivsi",
                  "arith.ceildivsi", "arith.ceildivui")


def find_function(module: ir.Module, name: str):
    for op in module.body.operations:
        if op.operation.name == "func.func" and op.attributes["sym_name"].value == name:
            return op
    return None


walk = walk_ops  # every operation nested in a block, in pre-order


def _func_arg_index(value: ir.Value, func_block: ir.Block) -> int | None:
    if isinstance(value, ir.BlockArgument) and value.owner == func_block:
        return value.arg_number
    return None


def _size_source(value: ir.Value, func_block: ir.Block) -> int | None:
    """Size parameter behind an index value: the argument itself or an index_cast of it."""
    idx = _func_arg_index(value, func_block)
    if idx is not None:
        return idx
    if isinstance(value, ir.OpResult) and value.owner.name in ("arith.index_cast", "arith.index_castui"):
        return _func_arg_index(value.owner.operands[0], func_block)
    return None


def _expr_positions(expr: ir.AffineExpr, dims: set[int], syms: set[int]) -> None:
    if isinstance(expr, ir.AffineDimExpr):
        dims.add(expr.position)
    elif isinstance(expr, ir.AffineSymbolExpr):
        syms.add(expr.position)
    elif isinstance(expr, ir.AffineBinaryExpr):
        _expr_positions(expr.lhs, dims, syms)
        _expr_positions(expr.rhs, dims, syms)


def _parse_type(t: ir.Type, location: str, what: str) -> tuple[str, tuple[int, ...] | None]:
    if isinstance(t, ir.MemRefType):
        mt = t
        elem = str(mt.element_type)
        if elem not in ARRAY_ELEMENT_TYPES:
            raise InputError(f"{what} has element type {elem}; supported: "
                             f"{', '.join(ARRAY_ELEMENT_TYPES)}", location)
        return elem, tuple(None if mt.is_dynamic_dim(d) else mt.shape[d] for d in range(mt.rank))
    s = str(t)
    if s not in SCALAR_TYPES:
        raise InputError(f"{what} has type {s}; supported: memrefs of "
                         f"{'/'.join(ARRAY_ELEMENT_TYPES)} and scalars {'/'.join(SCALAR_TYPES)}",
                         location)
    return s, None


def analyze_function(source: SourceModule, module: ir.Module, name: str) -> KernelFunction:
    func = find_function(module, name)
    if func is None:
        raise InputError(f"no function @{name} in the module", source.path)
    location = diagnostic_location(source.path, func.location)
    if len(func.regions[0].blocks) == 0:
        raise InputError(f"@{name} is a declaration without a body", location)
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    if len(ftype.results) > 0:  # synth.frontend.normalize turns results into out-parameters
        raise InputError(f"@{name} returns values; analyze its normal form", location)
    arguments = []
    for i, t in enumerate(ftype.inputs):
        elem, shape = _parse_type(t, location, f"argument #{i} of @{name}")
        layout = ""
        if shape and str(t).startswith("memref<") and str(ir.MemRefType(t).layout).startswith("strided<"):
            layout = f", {ir.MemRefType(t).layout}"
        arguments.append(Argument(i, elem, shape, layout))

    block = func.regions[0].blocks[0]
    kf = KernelFunction(name, location, arguments, set(), set())
    iv_param: dict[ir.Value, int] = {}
    votes: dict[tuple[int, int], Counter] = defaultdict(Counter)

    def param_of(value: ir.Value) -> int | None:
        src = _size_source(value, block)
        if src is not None and not arguments[src].is_array:
            return src
        return iv_param.get(value)

    for op in walk(block):
        opname = op.name
        kf.ops[opname] += 1
        if opname not in _SUPPORTED_OPS and opname.split(".")[0] not in _SUPPORTED_DIALECTS:
            raise InputError(f"unsupported operation '{opname}' in @{name}; synth handles "
                             f"func/affine/arith/math/memref loop code",
                             diagnostic_location(source.path, op.location))
        for v in op.operands:
            idx = _func_arg_index(v, block)
            if idx is None or arguments[idx].is_array:
                continue
            # an integer argument is a size when it only feeds index computations
            if arguments[idx].type not in SIZE_TYPES or (
                    opname.split(".")[0] in _SUPPORTED_DIALECTS and opname not in _INDEX_OPS):
                kf.scalars_used.add(idx)
        if opname == "memref.load":
            _index_ranges(op, block, kf.index_ranges, kf.index_dims)
        if opname in _INT_DIVISIONS and (isinstance(op.operands[1].owner, ir.Block)
                                         or op.operands[1].owner.name != "arith.constant"):
            kf.int_divides_by_data = True
        if opname == "arith.constant":
            value = op.attributes["value"]
            if isinstance(value, ir.FloatAttr):
                kf.float_constants.add(float(value.value))
            elif isinstance(value, ir.IntegerAttr) and str(value.type) not in ("index", "i1"):
                kf.float_constants.add(float(ir.IntegerAttr(value).value))  # data constants too
        if opname == "affine.for":
            view = op.opview
            ub_params = {p for v in view.upperBoundOperands if (p := param_of(v)) is not None}
            lb_params = {p for v in view.lowerBoundOperands if (p := param_of(v)) is not None}
            params = ub_params or lb_params
            if len(params) == 1:
                iv_param[view.induction_variable] = next(iter(params))
            bounds = list(view.upperBoundOperands) + list(view.lowerBoundOperands)
            if any(v in iv_param or (isinstance(v, ir.BlockArgument) and v.owner != block)
                   for v in bounds):
                kf.non_rectangular = True
            kf.loop_params |= {p for v in bounds if (p := _size_source(v, block)) is not None}
        if opname == "affine.if":
            kf.non_rectangular = True
        if opname in _ACCESS_READ + _ACCESS_WRITE:
            memref = op.operands[0 if opname in _ACCESS_READ else 1]
            arr = _func_arg_index(memref, block)
            if arr is not None:
                (kf.writes if opname in _ACCESS_WRITE else kf.reads).add(arr)
                _vote_dims(op, opname, arr, param_of, votes)
            if opname == "affine.store" and _edge_store(op):
                kf.edge_store = True  # A[n-1][...] = ...: a store at a fixed index
            if opname.startswith("affine.") and _diagonal(op):
                kf.non_rectangular = True  # A[i][i]: a diagonal, the mask of i == j
                kf.diagonal = True
    for key, counter in votes.items():
        kf.dim_params[key] = counter.most_common(1)[0][0]
    return kf


def _vote_dims(op: ir.Operation, opname: str, arr: int, param_of, votes) -> None:
    if opname.startswith("affine."):
        view = op.opview
        amap = view.map.value
        indices = list(view.indices)
        for dim, expr in enumerate(amap.results):
            dims: set[int] = set()
            syms: set[int] = set()
            _expr_positions(expr, dims, syms)
            operands = [indices[d] for d in dims] + [indices[amap.n_dims + s] for s in syms]
            params = {p for v in operands if (p := param_of(v)) is not None}
            if len(params) == 1:
                votes[(arr, dim)][params.pop()] += 1
    else:  # memref.load/store: indices are operands directly
        indices = list(op.operands)[1 if opname == "memref.load" else 2:]
        for dim, v in enumerate(indices):
            p = param_of(v)
            if p is not None:
                votes[(arr, dim)][p] += 1


def _index_ranges(op: ir.Operation, block, ranges: dict, dims: dict) -> None:
    """For a memref.load at an index loaded from an argument (through casts): that
    argument -> the least static extent it indexes (`ranges`), or, where the extent is
    dynamic (`emb[tok[i]][j]` of `float emb[V][d]`), -> (table argument, dim) (`dims`)."""
    t = ir.MemRefType(op.operands[0].type)
    for d, v in enumerate(list(op.operands)[1:]):
        unsigned = None  # the width of an unsigned reading (extui, index_castui) on the way
        while not isinstance(v, ir.BlockArgument) and v.owner.name in (
                "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"):
            if v.owner.name in ("arith.extui", "arith.index_castui"):
                src = str(v.owner.operands[0].type)
                unsigned = int(src[1:]) if src[:1] == "i" and src[1:].isdigit() else None
            v = v.owner.operands[0]
        if isinstance(v, ir.BlockArgument) or v.owner.name not in ("affine.load", "memref.load"):
            continue
        if t.is_dynamic_dim(d):
            arg, table = _func_arg_index(v.owner.operands[0], block), _func_arg_index(op.operands[0], block)
            if arg is not None and table is not None:
                dims.setdefault(arg, (table, d))
            continue
        if unsigned is not None and unsigned <= 16 and t.shape[d] >= 1 << unsigned:
            continue  # every value of the type is inside (an unsigned char into 256 rows)
        arg = _func_arg_index(v.owner.operands[0], block)
        if arg is not None:
            ranges[arg] = min(ranges.get(arg, t.shape[d]), t.shape[d])


def _edge_store(op: ir.Operation) -> bool:
    """Whether an affine.store fixes the index of some dim (no loop index in it)."""
    amap = op.opview.map.value
    for expr in amap.results:
        dims: set[int] = set()
        _expr_positions(expr, dims, set())
        if not dims:
            return True
    return False


def _diagonal(op: ir.Operation) -> bool:
    """Whether an affine access uses one index value in two dims (A[i][i])."""
    view = op.opview
    amap = view.map.value
    indices = list(view.indices)
    seen: list = []
    for expr in amap.results:
        dims: set[int] = set()
        _expr_positions(expr, dims, set())
        values = [indices[d] for d in dims]
        if any(v == w for v in values for w in seen):
            return True
        seen += values
    return False


def describe(source: SourceModule, name: str) -> KernelFunction:
    with source.context:
        return analyze_function(source, source.parsed(), name)
