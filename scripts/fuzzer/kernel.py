"""The kernel tree: sizes (`Dim`), arrays, subscripts and accesses, expressions (`Load`,
`Binary`, `Select`, ... and the malformed `Call`, `Undefined`, `Undef`), statements
(`Store`, `For`, `If`, `ScalarReduce`, `Accumulate`, `ReturnArg`) and the `Kernel`
holding them; then the walkers every later stage uses: over expressions and statement
nodes, what a kernel uses (arrays, scalars, sizes), what it contains (`tree_features`),
and how big it is (`expr_cost` for the generator's budget, `kernel_size` for shrinking)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Dim:
    """A size: an array extent / loop bound (`value`), given by an i32 size argument
    (`param`) or a constant; `steps`: a repeat count (time loop), no array extent."""

    name: str
    value: int
    param: bool = False
    steps: bool = False


@dataclass(eq=False)
class Array:
    """A memref: an argument, or a local buffer (`local`: memref.alloc / alloca) that the
    function returns. `axes`: (dim name, factor) per axis; factor 2 for strided arrays."""

    name: str
    axes: tuple
    local: bool = False


@dataclass
class Index:
    """One subscript: coef * iv + offset (iv None: the constant `offset`)."""

    iv: str | None
    coef: int = 1
    offset: int = 0


@dataclass
class Access:
    array: Array
    index: tuple = ()


# expressions ------------------------------------------------------------------------------


@dataclass
class Load:
    access: Access


@dataclass
class Scalar:
    name: str  # a scalar argument


@dataclass
class Const:
    value: float


@dataclass
class IvValue:
    iv: str  # the loop index as a value (index_cast, sitofp)


@dataclass
class Unary:
    op: str  # neg, sqrt, abs, exp
    arg: object


@dataclass
class Binary:
    op: str  # add, sub, mul, div, max, min
    lhs: object
    rhs: object


@dataclass
class Select:
    pred: str  # gt, lt, ge, le
    a: object
    b: object
    then: object
    orelse: object


@dataclass
class Call:
    """Malformed: a call of an external function (`func.call`), which synth does not read."""

    arg: object


@dataclass
class Undefined:
    """Malformed: an SSA value used but never defined."""


@dataclass
class Undef:
    """Malformed: `llvm.mlir.undef` used as a value."""


# statements -------------------------------------------------------------------------------


@dataclass
class Store:
    """target = expr, or target = target OP expr (`reduce`: add, max, min)."""

    target: Access
    expr: object
    reduce: str | None = None


@dataclass
class For:
    """`affine.for iv = lo to extent(dim) - hi`; `tri`: ("upper", outer) bounds it by
    `#map(outer)` (d0 + 1), ("lower", outer) starts it at the outer index; `scf`: printed
    as `scf.for` (malformed)."""

    iv: str
    dim: str
    body: list
    lo: int = 0
    hi: int = 0
    tri: tuple | None = None
    scf: bool = False
    step: int = 1


@dataclass
class If:
    """`affine.if #set(a, b)` with (d0 - d1 - strict >= 0); an else branch or none."""

    a: str
    b: str
    then: list
    orelse: list | None = None
    strict: int = 0


@dataclass
class ScalarReduce:
    """`%r = affine.for ... iter_args(%acc = init)` over `loops` (For without body), then
    stored into `sink` (an Access) or returned (sink None)."""

    loops: list
    op: str
    init: float
    expr: object
    sink: Access | None = None


@dataclass
class Accumulate:
    """A `memref<T>` accumulator: `acc[] = init`, then `nest` reduces into acc[]; the
    function returns it (`result` "memref") or its value ("scalar"), or, for an argument
    accumulator, nothing (None)."""

    acc: Array
    init: float
    nest: list
    result: str | None = None


@dataclass
class ReturnArg:
    """`return %A`: the function also returns one of its argument arrays."""

    array: Array


@dataclass
class Kernel:
    k: int
    seed: int
    elem: str
    dims: list
    arrays: list  # every array created, in argument order
    scalars: list  # scalar argument names
    body: list
    category: str = "normal"  # normal, inexpressible, malformed
    malformed: str | None = None  # syntax-<variant>, undefined, scf, call, undef
    features: set = field(default_factory=set)
    memref_style: bool = False  # plain accesses as memref.load / memref.store

    @property
    def name(self) -> str:
        return f"fuzz_{self.k}"

    def dim(self, name: str) -> Dim:
        return next(d for d in self.dims if d.name == name)


IVS = ("i", "j", "k", "l")  # loop indices, outermost first


# walkers ---------------------------------------------------------------------------------


def expr_cost(e, rank: int) -> int:
    """Estimated size of a tensor program computing `e` in a nest of `rank` loops: one
    per op, plus a broadcast or transpose per leaf that needs one."""
    if isinstance(e, Load):
        ivs = [s.iv for s in e.access.index if s.iv is not None]
        return int(len(ivs) < rank) + int(ivs != sorted(ivs, key=IVS.index)) + \
            int(any(s.offset or s.coef != 1 for s in e.access.index))
    if isinstance(e, Scalar | Const):
        return int(rank > 0)
    if isinstance(e, IvValue):
        return 2
    return 1 + sum(expr_cost(c, rank) for c in expr_children(e))


def walk_expr(e):
    yield e
    for c in expr_children(e):
        yield from walk_expr(c)


def expr_children(e) -> list:
    if isinstance(e, Unary | Call):
        return [e.arg]
    if isinstance(e, Binary):
        return [e.lhs, e.rhs]
    if isinstance(e, Select):
        return [e.a, e.b, e.then, e.orelse]
    return []


def walk_nodes(body: list):
    """Every statement node, depth first."""
    for node in body:
        yield node
        if isinstance(node, For):
            yield from walk_nodes(node.body)
        elif isinstance(node, If):
            yield from walk_nodes(node.then)
            yield from walk_nodes(node.orelse or [])
        elif isinstance(node, Accumulate):
            yield from walk_nodes(node.nest)


def node_exprs(node) -> list:
    return [node.expr] if isinstance(node, Store | ScalarReduce) else []


def node_accesses(node) -> list[Access]:
    out = []
    if isinstance(node, Store):
        out.append(node.target)
    if isinstance(node, ScalarReduce) and node.sink is not None:
        out.append(node.sink)
    if isinstance(node, Accumulate):
        out.append(Access(node.acc, ()))
    if isinstance(node, ReturnArg):
        out.append(Access(node.array, ()))
    for e in node_exprs(node):
        out += [x.access for x in walk_expr(e) if isinstance(x, Load)]
    return out


def used_arrays(kn: Kernel) -> set:
    return {a.array.name for node in walk_nodes(kn.body) for a in node_accesses(node)}


def used_scalars(kn: Kernel) -> set:
    return {x.name for node in walk_nodes(kn.body) for e in node_exprs(node)
            for x in walk_expr(e) if isinstance(x, Scalar)}


def used_dims(kn: Kernel) -> set:
    """Sizes a loop bounds (size arguments of unused sizes are dropped)."""
    out = set()
    for node in walk_nodes(kn.body):
        if isinstance(node, For):
            out.add(node.dim)
        if isinstance(node, ScalarReduce):
            out |= {lp.dim for lp in node.loops}
    return out


def tree_features(kernel: Kernel) -> set[str]:
    """What the final kernel contains (expressions redrawn during generation excluded)."""
    out = {f"elem-{kernel.elem}"}
    if any(d.param for d in kernel.dims if d.name in used_dims(kernel)):
        out.add("size-params")
    depth = max_depth(kernel.body)
    out.add(f"{depth}-deep")
    if kernel.memref_style:
        out.add("memref-load-store")
    def visit(body, nloops):
        for node in body:
            if isinstance(node, For):
                visit(node.body, nloops + 1)
            elif isinstance(node, If):
                visit(node.then, nloops)
                visit(node.orelse or [], nloops)
            elif isinstance(node, Accumulate):
                visit(node.nest, nloops)
            elif isinstance(node, Store | ScalarReduce):
                n = nloops + (len(node.loops) if isinstance(node, ScalarReduce) else 0)
                for e in walk_expr(node.expr):
                    if isinstance(e, Binary):
                        out.add(e.op)
                    elif isinstance(e, Unary) and e.op != "abs":
                        out.add(e.op)
                    elif isinstance(e, Select):
                        out.add("select")
                    elif isinstance(e, IvValue):
                        out.add("iv-value")
                    elif isinstance(e, Scalar):
                        out.add("scalar-arg")
                    elif isinstance(e, Load):
                        ivs = [x.iv for x in e.access.index if x.iv is not None]
                        if len(ivs) < len(e.access.index):
                            out.add("constant-index")
                        if ivs != sorted(ivs, key=IVS.index):
                            out.add("transpose")
                        if len(ivs) < n:
                            out.add("broadcast")
                        if any(x.coef > 1 for x in e.access.index):
                            out.add("stride")
                        if any(x.offset and x.coef == 1 for x in e.access.index):
                            out.add("offset-access")
                            if any(abs(x.offset) > 2 for x in e.access.index if x.iv):
                                out.add("large-offset")
    visit(kernel.body, 0)
    return out


def max_depth(body: list) -> int:
    best = 0
    for node in body:
        if isinstance(node, For):
            best = max(best, 1 + max_depth(node.body))
        elif isinstance(node, If):
            best = max(best, max_depth(node.then), max_depth(node.orelse or []))
        elif isinstance(node, Accumulate):
            best = max(best, max_depth(node.nest))
        elif isinstance(node, ScalarReduce):
            best = max(best, len(node.loops))
    return best


def kernel_size(kernel: Kernel) -> int:
    return sum(1 + sum(1 for e in node_exprs(n) for _ in walk_expr(e)) for n in walk_nodes(kernel.body))
