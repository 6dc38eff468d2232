"""The IR toolkit the passes of mlir-cpu (synth.backends.passes) are written with: walking,
defining ops, "inside", constant integers, integer ranges, affine forms and values of index arithmetic,
arith.cmpi predicates, slices, and cloning. Works on the ops of any MLIR bindings (the
`mlir` package's, jaxlib's): the dialect modules are imported from `mlir` where needed.

One helper per idea: the passes import these rather than each other's private helpers.
"""

from __future__ import annotations

# walking -----------------------------------------------------------------------------------


def operation(owner):
    """The ir.Operation of an op handle (an OpView or an Operation)."""
    return getattr(owner, "operation", owner)


def nested_ops(module) -> list:
    """Every op of `module` (an ir.Module, or an op: the ops inside it), nested ones
    included, in the order they appear (collected before any is rewritten)."""
    found = []

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = operation(inner)
                    found.append(inner)
                    walk(inner)

    walk(module.operation)
    return found


def ops_named(module, names) -> list:
    """The ops of `nested_ops(module)` named one of `names`."""
    return [op for op in nested_ops(module) if op.name in names]


def defining(value):
    """The op defining `value`, None for a block argument."""
    from mlir import ir
    owner = value.owner
    return None if isinstance(owner, ir.Block) else operation(owner)


def defining_named(value, name: str):
    """The op defining `value` (its handle as the bindings give it) when it is named
    `name`, else None."""
    owner = value.owner
    return owner if getattr(owner, "name", None) == name else None


def in_block(op, block):
    """`op` or the op enclosing it that sits directly in `block`; None if none does."""
    op = operation(op)
    while op is not None and op.block != block:
        op = op.parent
    return op


# inside ------------------------------------------------------------------------------------


def op_within(op, ancestor) -> bool:
    """Whether `op` is `ancestor` or nested in it."""
    while op is not None:
        if op == ancestor:
            return True
        op = op.parent
    return False


def value_within(value, op) -> bool:
    """Whether `value` is defined by `op`, by an op nested in it, or is a block argument of
    one of their regions."""
    from mlir import ir
    owner = value.owner
    return op_within(operation(owner.owner) if isinstance(owner, ir.Block) else operation(owner), op)


def value_in_regions(value, op) -> bool:
    """Whether `value` is defined in `op`'s regions (a block argument of them, or a result
    of an op nested in them; `op`'s own results are not)."""
    from mlir import ir
    owner = value.owner
    start = operation(owner.owner) if isinstance(owner, ir.Block) else operation(owner).parent
    return op_within(start, op)


# constants and integer arithmetic -----------------------------------------------------------

CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci")


def constant_int(value) -> int | None:
    """The integer an arith.constant defines as `value`; None for anything else."""
    from mlir import ir
    op = defining(value)
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.IntegerAttr):
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


def is_zero_fill(value) -> bool:
    """Whether `value` is a linalg.fill of the constant 0."""
    from mlir import ir
    fill = defining(value)
    if fill is None or fill.name != "linalg.fill":
        return False
    constant = defining(fill.operands[0])
    if constant is None or constant.name != "arith.constant":
        return False
    attr = constant.attributes["value"]
    return (isinstance(attr, ir.FloatAttr) and ir.FloatAttr(attr).value == 0.0) or \
        (isinstance(attr, ir.IntegerAttr) and ir.IntegerAttr(attr).value == 0)


def evaluate(value, counter, k: int, cache: dict) -> int | None:
    """The integer `value` takes when `counter` is k (index arithmetic of arith ops on the
    counter and constants); None where it is not such arithmetic."""
    from mlir import ir
    if isinstance(value, int):
        return value
    if value == counter:
        return k
    if value in cache:
        return cache[value]
    op = defining(value)
    if op is None:
        return None
    if op.name == "arith.constant":
        attr = op.attributes["value"]
        result = ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None
    elif op.name in CASTS:
        result = evaluate(op.operands[0], counter, k, cache)
    elif op.name in ("arith.addi", "arith.subi", "arith.muli", "arith.maxsi", "arith.minsi"):
        a, b = (evaluate(v, counter, k, cache) for v in op.operands)
        if a is None or b is None:
            return None
        result = {"arith.addi": a + b, "arith.subi": a - b, "arith.muli": a * b,
                  "arith.maxsi": max(a, b), "arith.minsi": min(a, b)}[op.name]
    else:
        return None
    cache[value] = result
    return result


def int_range(value, depth: int = 0) -> tuple[int, int] | None:
    """Bounds [lo, hi] of an integer or index `value` wherever it is defined: a constant, the
    counter of an scf.for with constant bounds and a positive step, casts of them, and +, -,
    max and min of them; None for anything else."""
    from mlir import ir

    if depth > 32:
        return None
    owner = value.owner
    if isinstance(owner, ir.Block):
        parent = operation(owner.owner)
        if parent.name != "scf.for" or value != owner.arguments[0]:
            return None
        view = parent.opview
        lb, ub, step = (constant_int(v) for v in (view.lowerBound, view.upperBound, view.step))
        if None in (lb, ub, step) or step <= 0 or ub <= lb:
            return None
        return lb, lb + (ub - 1 - lb) // step * step
    op = operation(owner)
    if op.name == "arith.constant":
        attr = op.attributes["value"]
        return (ir.IntegerAttr(attr).value,) * 2 if isinstance(attr, ir.IntegerAttr) else None
    if op.name in ("arith.index_cast", "arith.extsi"):
        return int_range(op.operands[0], depth + 1)
    if op.name not in ("arith.addi", "arith.subi", "arith.maxsi", "arith.minsi"):
        return None
    a, b = (int_range(v, depth + 1) for v in op.operands)
    if a is None or b is None:
        return None
    return {"arith.addi": (a[0] + b[0], a[1] + b[1]), "arith.subi": (a[0] - b[1], a[1] - b[0]),
            "arith.maxsi": (max(a[0], b[0]), max(a[1], b[1])),
            "arith.minsi": (min(a[0], b[0]), min(a[1], b[1]))}[op.name]


# affine forms ------------------------------------------------------------------------------

POSITION = "j"  # the generic's position in an affine form (AffineForms)


class AffineForms:
    """Integers in the payload of a 1-d linalg.generic as affine forms {leaf: coefficient}
    (the constant under key 1) over leaf values (loop counters, anything else opaque) and
    the generic's position POSITION, with max/min resolved where the ranges decide them
    (`n_form`: the generic's extent, a form); None where it cannot say."""

    def __init__(self, generic, n_form: dict):
        self.generic, self.n = generic, n_form
        self.memo: dict = {}

    def form(self, value, depth: int = 0) -> dict | None:
        if depth > 48:
            return None
        if value in self.memo:
            return self.memo[value]
        result = self._form(value, depth)
        self.memo[value] = result
        return result

    def _form(self, value, depth: int) -> dict | None:
        from mlir import ir

        op = defining(value)
        if op is None:
            return {value: 1}  # a loop counter or argument: a leaf
        if op.name == "linalg.index" and operation(op.parent) == self.generic:
            return {POSITION: 1} if ir.IntegerAttr(op.attributes["dim"]).value == 0 else None
        if op.name == "arith.constant":
            attr = op.attributes["value"]
            return {1: ir.IntegerAttr(attr).value} if isinstance(attr, ir.IntegerAttr) else None
        if op.name in ("arith.index_cast", "arith.extsi"):
            return self.form(op.operands[0], depth + 1)
        if op.name in ("arith.addi", "arith.subi"):
            a, b = (self.form(v, depth + 1) for v in op.operands)
            if a is None or b is None:
                return None
            return plus_forms(a, b, 1 if op.name == "arith.addi" else -1)
        if op.name in ("arith.maxsi", "arith.minsi"):
            a, b = (self.form(v, depth + 1) for v in op.operands)
            if a is None or b is None:
                return None
            bounds = self.bounds(plus_forms(a, b, -1))
            if bounds is None:
                return None
            if bounds[0] >= 0:
                return a if op.name == "arith.maxsi" else b
            if bounds[1] <= 0:
                return b if op.name == "arith.maxsi" else a
            return None
        return None if op_within(op, self.generic) else {value: 1}

    def bounds(self, form: dict) -> tuple[int, int] | None:
        """[lo, hi] of `form` over its leaves' ranges and the generic's positions 0..n-1."""
        if POSITION in form:  # linear in the position: its extremes are at 0 and n - 1
            at_zero = {k: c for k, c in form.items() if k != POSITION}
            at_last = plus_forms(at_zero, plus_forms(self.n, {1: -1}, 1), form[POSITION])
            a, b = self.bounds(at_zero), self.bounds(at_last)
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        lo = hi = 0
        for leaf, c in form.items():
            r = (1, 1) if leaf == 1 else int_range(leaf)
            if r is None:
                return None
            lo, hi = lo + min(c * r[0], c * r[1]), hi + max(c * r[0], c * r[1])
        return lo, hi


def plus_forms(a: dict, b: dict, scale: int) -> dict:
    """a + scale * b, zero coefficients dropped."""
    out = dict(a)
    for k, c in b.items():
        out[k] = out.get(k, 0) + scale * c
    return {k: c for k, c in out.items() if c != 0}


# predicates --------------------------------------------------------------------------------

# arith.cmpi's predicate attribute values
CMPI = {0: "eq", 1: "ne", 2: "slt", 3: "sle", 4: "sgt", 5: "sge", 6: "ult", 7: "ule", 8: "ugt", 9: "uge"}
# the order predicates as relations of lhs to rhs (unsigned ones as signed: on indices,
# never negative)
RELATION = {"slt": "<", "sle": "<=", "sgt": ">", "sge": ">=", "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
SIGNED_ORDER = {n: name for n, name in CMPI.items() if name in ("slt", "sle", "sgt", "sge")}


def holds(name: str, a: int, b: int) -> bool:
    """Whether `a name b` holds (name: an arith.cmpi predicate; a, b not negative for the
    unsigned ones)."""
    return {"eq": a == b, "ne": a != b, "<": a < b, "<=": a <= b, ">": a > b,
            ">=": a >= b}[RELATION.get(name, name)]


def cmpi_predicate(op) -> str:
    """The predicate of an arith.cmpi op, by name ("slt", ...)."""
    from mlir import ir
    return CMPI[ir.IntegerAttr(op.attributes["predicate"]).value]


# linalg ops --------------------------------------------------------------------------------


def indexing_maps(op) -> list:
    """The indexing maps (ir.AffineMap) of a linalg op."""
    from mlir import ir
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]


def all_parallel(op) -> bool:
    """Whether a linalg op's iterators are all parallel."""
    return "reduction" not in str(op.attributes["iterator_types"])


def is_identity_map(amap) -> bool:
    """Whether `amap` is (d0, ..., dn) -> (d0, ..., dn)."""
    from mlir import ir
    return amap.n_dims == len(amap.results) and all(
        isinstance(e, ir.AffineDimExpr) and ir.AffineDimExpr(e).position == k for k, e in enumerate(amap.results))


def generic_like(generic, operands: list, n_inputs: int, maps: list):
    """A linalg.generic created just before `generic`, with its attributes and result types
    but `operands` (the first `n_inputs` of them inputs) read by `maps` (attributes), and an
    empty body region for the caller to fill."""
    from mlir import ir
    attributes = {a: generic.attributes[a] for a in generic.attributes
                  if a not in ("indexing_maps", "operandSegmentSizes")}
    attributes["indexing_maps"] = ir.ArrayAttr.get(maps)
    attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([n_inputs, len(operands) - n_inputs])
    with ir.InsertionPoint(generic), generic.location:
        return ir.Operation.create("linalg.generic", results=[r.type for r in generic.results],
                                   operands=operands, attributes=attributes, regions=1)


# slices ------------------------------------------------------------------------------------


def mixed(op, kind: str) -> list:
    """A slice op's offsets or sizes (`kind`), each an int or an index Value."""
    from mlir import ir
    static = ir.DenseI64ArrayAttr(op.attributes[f"static_{kind}"])
    dynamic = iter(getattr(op.opview, kind))
    marker = ir.ShapedType.get_dynamic_size() if kind == "sizes" else ir.ShapedType.get_dynamic_stride_or_offset()
    return [next(dynamic) if s == marker else s for s in static]


def static_values(op, kind: str) -> list[int] | None:
    """A slice op's offsets or sizes (`kind`) where all are constants; None otherwise."""
    from mlir import ir
    values = list(ir.DenseI64ArrayAttr(op.attributes[f"static_{kind}"]))
    marker = ir.ShapedType.get_dynamic_size() if kind == "sizes" else ir.ShapedType.get_dynamic_stride_or_offset()
    return None if marker in values else values


def slice_mixed(dims, offsets: dict, sizes: dict):
    """(dynamic offsets, dynamic sizes, static offsets, static sizes, static strides) of a
    slice of a tensor of shape `dims` taking [offsets[k], offsets[k] + sizes[k]) along
    the dims in `offsets` (ints or index Values) and the whole of the others."""
    from mlir import ir
    dyn_off, dyn_size, st_off, st_size = [], [], [], []
    for k, n in enumerate(dims):
        o, s = offsets.get(k, 0), sizes.get(k, n)
        if isinstance(o, int):
            st_off.append(o)
        else:
            st_off.append(ir.ShapedType.get_dynamic_stride_or_offset())
            dyn_off.append(o)
        if isinstance(s, int):
            st_size.append(s)
        else:
            st_size.append(ir.ShapedType.get_dynamic_size())
            dyn_size.append(s)
    return dyn_off, dyn_size, st_off, st_size, [1] * len(dims)


def type_shape(shape: list) -> list[int]:
    """A shape of ints or index Values as a type's shape (a Value: a dynamic size)."""
    from mlir import ir
    return [n if isinstance(n, int) else ir.ShapedType.get_dynamic_size() for n in shape]


def extract_slice(source, offsets: list, sizes: list, shape: list | None = None):
    """tensor.extract_slice of `source` at `offsets` of `sizes` (ints or index Values),
    strides 1, of `shape` (`sizes` where not given; a shape without unit dims: rank-reduced)."""
    from mlir import ir
    from mlir.dialects import tensor
    t = ir.RankedTensorType(source.type)
    dyn_off, dyn_size, st_off, st_size, st_str = slice_mixed(t.shape, dict(enumerate(offsets)),
                                                             dict(enumerate(sizes)))
    result = ir.RankedTensorType.get(type_shape(sizes if shape is None else shape), t.element_type)
    return tensor.ExtractSliceOp(result, source, dyn_off, dyn_size, [], st_off, st_size, st_str).result


def insert_slice(part, dest, offsets: list, sizes: list):
    """tensor.insert_slice of `part` into `dest` at `offsets` of `sizes`, strides 1."""
    from mlir import ir
    from mlir.dialects import tensor
    dyn_off, dyn_size, st_off, st_size, st_str = slice_mixed(ir.RankedTensorType(dest.type).shape,
                                                             dict(enumerate(offsets)), dict(enumerate(sizes)))
    return tensor.InsertSliceOp(part, dest, dyn_off, dyn_size, [], st_off, st_size, st_str).result


# cloning -----------------------------------------------------------------------------------


def feeding(values, block, leaves=frozenset()) -> list:
    """The ops of `block` that `values` are computed from (their own ops included), in
    order, not looking past the values in `leaves`."""
    owners = {}
    for o in block.operations:
        o = operation(o)
        for r in o.results:
            owners[r] = o
    needed, stack = set(), [v for v in values if v not in leaves]
    while stack:
        o = owners.get(stack.pop())
        if o is None or o in needed:
            continue
        needed.add(o)
        stack.extend(x for x in o.operands if x not in leaves)
        for region in o.regions:  # and the values a payload captures from the block
            for inner in region.blocks:
                for p in inner.operations:
                    stack.extend(x for x in operation(p).operands if x not in leaves)
    return [operation(o) for o in block.operations if operation(o) in needed]


def clone_into(ops, mapping: dict) -> None:
    """Clone `ops` at the current insertion point, their operands (and the values their
    payloads capture) through `mapping`, which gets their results."""
    from mlir import ir
    for op in ops:
        clone = op.clone(ir.InsertionPoint.current)
        for i, v in enumerate(op.operands):
            if v in mapping:
                clone.operands[i] = mapping[v]
        for region in clone.regions:
            for b in region.blocks:
                for inner in b.operations:
                    inner = operation(inner)
                    for i, v in enumerate(inner.operands):
                        if v in mapping:
                            inner.operands[i] = mapping[v]
        for old, new in zip(op.results, clone.results):
            mapping[old] = new
