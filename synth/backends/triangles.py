"""Contractions over a triangle compute only its blocks (mlir-cpu backend).

Raised programs write a triangular product as a product of whole matrices:
- an operand masked to a triangle (trmm: `select(k > i, A^T, 0) B`; symm: the strictly
  lower part of A, and its transpose), so half of the products are by zero;
- a result of which only a triangle is kept (syrk, syr2k: `select(j <= i, beta C +
  alpha A A^T, beta C)`; covariance, correlation), so half of the result is computed and
  thrown away.
Either way the contraction (linalg.matmul, or a linalg.generic of the same form) costs
twice what the loops' products do.

`triangular_blocks` finds such a contraction on tensors, after elementwise fusion: an
operand that a generic (through linalg.copy) computes as zeros outside a triangle, or a
product whose only use (through transposes and leading slices) is a generic whose yield
depends on it only inside one (covariance's: kept on and above the diagonal, that part
scaled, then mirrored). Both are decided by evaluating the generic's payload once per
order of its two loop indices (d0 < d1, d0 = d1, d0 > d1): comparisons of the indices
(linalg.index, or iota inputs) are then known, and a select takes the operand its
condition gives at that order. It writes the contraction as a loop over blocks of B rows
(or columns) of the parallel dim the triangle is bound to: each block is the contraction
on slices of its operands, taking along the other dim only the part where the block can
be nonzero or is used, from the block's first index on (k >= i, j >= i) or up to its last
(k <= i, j <= i); that dim's extent is then dynamic. A last block of the rows left over
(n mod B) follows the loop. The schedule tiles each block's contraction as it does any
other (cache and register tiles, peeled).

Values: what is skipped are products by an exact zero (a NaN or infinity there, which the
loops never read, no longer reaches the sum) or result elements no select takes (they keep
the contraction's init); the other products add in the same order, but an element at the
edge of a block may fall in a tile computed with fused multiply-adds where the whole
product computed it in a peeled one (two roundings), or the other way round.

Blocks of 32 rows: with 8 (the register tile), each block reads the other operand's part
once more, for 8 rows only, and where the operands outgrow the L3 cache (correlation at
LARGE) that ran 0.17-0.20 s against 0.06-0.11 s with 32; 32, 64 and 128 rows were within
this host's noise on trmm, syrk, syr2k, symm and correlation (one thread, AMD EPYC, medians
of 10 calls, 2 rounds).

PolyBench LARGE through this backend, one thread, AMD EPYC host, old and new code in
alternating processes (3 rounds, medians of 10 calls, s; outputs checked against the
loops'): trmm to linalg 0.054-0.061 -> 0.034-0.040, to stablehlo 0.050-0.054 ->
0.033-0.046; syrk 0.058-0.060 -> 0.035, 0.057-0.077 -> 0.031-0.032; syr2k 0.121-0.130 ->
0.078-0.088, 0.121-0.129 -> 0.067-0.076; symm 0.109-0.116 -> 0.075-0.084, 0.136-0.148 ->
0.077-0.091; correlation 0.116-0.127 -> 0.105-0.116, 0.107-0.112 -> 0.086-0.096;
covariance (2 rounds) 0.096-0.097 -> 0.074-0.088, 0.106-0.111 -> 0.080-0.088. No other
PolyBench raise has such a contraction.
"""

from __future__ import annotations

from dataclasses import dataclass

from synth.backends.ir_toolkit import (
    CMPI, RELATION, defining, indexing_maps, operation, ops_named, value_in_regions, is_zero_fill,
    insert_slice, extract_slice)

BLOCK = 32  # rows (or columns) per block: a multiple of the register tile's rows

# arith.cmpi predicates (their numbers) as (relation of lhs to rhs); unsigned ones only
# on indices, which are never negative here
_RELATIONS = {n: RELATION[name] for n, name in CMPI.items() if name in RELATION}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class Triangle:
    """Where a contraction's loops need to run: loop dim `dim` only where it is `relation`
    loop dim `by` (a parallel dim, 0 or 1), e.g. (2, ">", 0): k > i."""
    dim: int
    relation: str
    by: int


def _dims(amap) -> list[int] | None:
    """The loop dims an indexing map reads its operand's dims at; None unless each result
    is a dim."""
    from mlir import ir
    out = []
    for e in amap.results:
        if not isinstance(e, ir.AffineDimExpr):
            return None
        out.append(ir.AffineDimExpr(e).position)
    return out


def _contraction(op) -> list[list[int]] | None:
    """The loop dims of each operand (lhs, rhs, result) of a contraction C[i, j] +=
    A[.] * B[.] over loops (i, j, k), k the reduction: a linalg.matmul, or a linalg.generic
    of that form (3 loops, the last a reduction, a multiply-add body, C read at (i, j));
    None for any other op."""
    from mlir import ir
    if op.name == "linalg.matmul":
        if "indexing_maps" in op.attributes:
            maps = [_dims(m) for m in indexing_maps(op)]
        else:
            maps = [[0, 2], [2, 1], [0, 1]]
    elif op.name == "linalg.generic":
        if str(op.attributes["iterator_types"]).count("parallel") != 2 or \
                not str(op.attributes["iterator_types"]).endswith('#linalg.iterator_type<reduction>]'):
            return None
        maps = [_dims(m) for m in indexing_maps(op)]
        block = op.regions[0].blocks[0]
        body = [operation(o) for o in block.operations]
        if [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
            return None
        mul, add, _ = body
        a, b, c = block.arguments
        if set(mul.operands) != {a, b} or set(add.operands) != {c, mul.results[0]} \
                or body[2].operands[0] != add.results[0]:
            return None
    else:
        return None
    if len(op.operands) != 3 or len(op.results) != 1 or any(m is None or len(m) != 2 for m in maps) \
            or maps[2] != [0, 1] or sorted(maps[0] + maps[1]) != [0, 1, 2, 2]:
        return None
    if any(not ir.RankedTensorType(v.type).has_static_shape for v in op.operands):
        return None
    return maps


def _index_dim(value) -> int | None:
    """The loop dim d whose index `value` is, in a generic's payload (through index
    casts): `linalg.index d`, or the element of an input that is an iota (a generic of
    no inputs yielding one of its indices, read at a permutation of the loop dims);
    None for anything else."""
    from mlir import ir
    op = defining(value)
    while op is not None and op.name == "arith.index_cast":
        value = op.operands[0]
        op = defining(value)
    if op is not None:
        return ir.IntegerAttr(op.attributes["dim"]).value if op.name == "linalg.index" else None
    generic = operation(value.owner.owner)
    n = ir.BlockArgument(value).arg_number
    if generic.name != "linalg.generic" or n >= len(list(generic.opview.inputs)):
        return None
    iota = defining(list(generic.opview.inputs)[n])
    if iota is None or iota.name != "linalg.generic" or list(iota.opview.inputs):
        return None
    d, dims = _index_dim(_yielded(iota)), _dims(indexing_maps(generic)[n])
    if d is None or dims is None or _dims(indexing_maps(iota)[-1]) != list(range(len(dims))):
        return None
    return dims[d]


# The three orders of a 2-d generic's loop indices (d0 vs d1). A payload's comparisons of
# the two indices are decided by the order alone, so evaluating it once per order says
# at which points (a union of orders: a triangle, with or without its diagonal) a value
# can be nonzero, or depends on an operand.
_ORDERS = ("<", "=", ">")
_ALL = frozenset(_ORDERS)
_HOLDS = {"<": {"<"}, "<=": {"<", "="}, ">": {">"}, ">=": {">", "="}}
# a union of orders as the relation d0 <rel> d1 that covers it (None: every point)
_COVER = {frozenset({"<"}): "<", frozenset({"<", "="}): "<=", frozenset({">"}): ">",
          frozenset({">", "="}): ">=", frozenset({"="}): "<="}
_MIRRORED = {"<": ">", "=": "=", ">": "<"}


def _decided(condition, order: str) -> bool | None:
    """The value of `condition` (an i1 in a 2-d payload) where d0 <order> d1: a
    comparison of the two loop indices (through index casts); None if it is anything else."""
    from mlir import ir
    op = defining(condition)
    if op is None or op.name != "arith.cmpi":
        return None
    relation = _RELATIONS.get(ir.IntegerAttr(op.attributes["predicate"]).value)
    a, b = _index_dim(op.operands[0]), _index_dim(op.operands[1])
    if relation is None or {a, b} != {0, 1}:
        return None
    return (order if a == 0 else _MIRRORED[order]) in _HOLDS[relation]


def _where(value, leaf, memo: dict, conditions: bool) -> frozenset:
    """The orders at which `value`, in a 2-d payload, may be what `leaf` says of the
    values it decides (leaf(v): a set of orders, or None to look through v's op): through
    a select, the orders its condition may take each operand at (and, with `conditions`,
    the condition's own); through any other op, the union over its operands."""
    if value in memo:
        return memo[value]
    known = leaf(value)
    if known is None:
        op = defining(value)
        if op is not None and op.name == "arith.select":
            condition, x, y = op.operands
            on_x, on_y = _where(x, leaf, memo, conditions), _where(y, leaf, memo, conditions)
            known = (_where(condition, leaf, memo, conditions) if conditions else frozenset()) | frozenset(
                o for o in _ORDERS if (o in on_x and _decided(condition, o) is not False)
                or (o in on_y and _decided(condition, o) is not True))
        elif op is not None:
            known = frozenset().union(*(_where(v, leaf, memo, conditions) for v in op.operands))
        else:
            known = frozenset()
    memo[value] = known
    return known


def _yielded(generic):
    return list(generic.regions[0].blocks[0].operations)[-1].operands[0]


def _zero(value, generic) -> bool:
    """Whether `value`, in `generic`'s payload, is 0.0: a constant, or the element of an
    input that is a linalg.fill of the constant 0.0."""
    from mlir import ir
    op = defining(value)
    if op is None:
        block = generic.regions[0].blocks[0]
        if value.owner != block:
            return False
        n = ir.BlockArgument(value).arg_number
        inputs = list(generic.opview.inputs)
        return n < len(inputs) and is_zero_fill(inputs[n])
    if op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.FloatAttr):
        return False
    return ir.FloatAttr(op.attributes["value"]).value == 0.0


def _elementwise_2d(op) -> bool:
    """Whether `op` is an all-parallel 2-d linalg.generic with one result written at its
    loop point (its output map the identity)."""
    if op is None or op.name != "linalg.generic" or len(op.results) != 1 or \
            "reduction" in str(op.attributes["iterator_types"]):
        return False
    return _dims(indexing_maps(op)[-1]) == [0, 1]


def _masked(value) -> tuple[int, str, int] | None:
    """(0, relation, 1) such that `value` (a 2-d tensor) is 0.0 at every point where not
    `dim 0 <relation> dim 1`: a generic (through linalg.copy) whose payload yields zeros
    (constants, fills) there, by selects on comparisons of its indices."""
    op = defining(value)
    while op is not None and op.name == "linalg.copy":
        op = defining(op.operands[0])
    if not _elementwise_2d(op):
        return None

    def leaf(v):  # where v may be nonzero: a zero nowhere; a select's operands decide; else anywhere
        if _zero(v, op):
            return frozenset()
        d = defining(v)
        return None if d is not None and d.name == "arith.select" and value_in_regions(v, op) else _ALL
    relation = _COVER.get(_where(_yielded(op), leaf, {}, conditions=False))
    return None if relation is None else (0, relation, 1)


def _leading_part(op) -> bool:
    """Whether `op` is a tensor.extract_slice from the origin, of static sizes and unit
    strides, and of its source's rank (its points are its source's at the same indices)."""
    from mlir import ir
    if op.name != "tensor.extract_slice" or len(op.operands) != 1:
        return False
    offsets, strides = (list(ir.DenseI64ArrayAttr(op.attributes[a])) for a in ("static_offsets", "static_strides"))
    return (all(o == 0 for o in offsets) and all(s == 1 for s in strides)
            and ir.RankedTensorType(op.results[0].type).rank == ir.RankedTensorType(op.operands[0].type).rank)


def _kept(result) -> tuple[int, str, int] | None:
    """(result dim a, relation, result dim b) such that the only use of `result` (a 2-d
    tensor) computes from it only at the points where `a relation b`: an elementwise
    generic whose yield depends on `result`'s element only there, by selects on
    comparisons of its indices; the result may be transposed on the way, or its leading
    part taken (linalg.transpose, tensor.extract_slice, each the only use of what it
    reads)."""
    from mlir import ir
    origin = [0, 1]  # the result's dim at each dim of `result` as it is read
    while True:
        uses = list(result.uses)
        if len(uses) != 1:
            return None
        user = operation(uses[0].owner)
        if user.name == "linalg.transpose" and uses[0].operand_number == 0:
            origin = [origin[p] for p in ir.DenseI64ArrayAttr(user.attributes["permutation"])]
        elif not _leading_part(user):
            break
        result = user.results[0]
    if not _elementwise_2d(user):
        return None
    n = uses[0].operand_number
    inputs = list(user.opview.inputs)
    if n >= len(inputs) or list(user.operands).count(result) != 1:
        return None
    dims = _dims(indexing_maps(user)[n])
    if dims is None or sorted(dims) != [0, 1]:
        return None
    element = user.regions[0].blocks[0].arguments[n]

    def leaf(v):  # where v depends on the element: everywhere for the element, nowhere for the rest but ops
        if v == element:
            return _ALL
        return None if defining(v) is not None and value_in_regions(v, user) else frozenset()
    relation = _COVER.get(_where(_yielded(user), leaf, {}, conditions=True))
    if relation is None:
        return None
    # the user's loop dims 0 and 1 read the result's dims origin[dims.index(0)], ...
    return origin[dims.index(0)], relation, origin[dims.index(1)]


def _triangle(op, maps) -> Triangle | None:
    """The triangle a contraction needs computing over (from a masked operand, else from
    a result only partly kept); None where there is none."""
    found = []
    for operand, dims in zip(op.operands[:2], maps[:2]):
        masked = _masked(operand)
        if masked is not None:
            found.append((dims[masked[0]], masked[1], dims[masked[2]]))
    kept = _kept(op.results[0])
    if kept is not None:
        found.append(kept)  # the result's dims are loop dims 0 and 1
    if not found:
        return None
    a, relation, b = found[0]
    if a == 2:  # k <rel> i or k <rel> j
        return Triangle(2, relation, b)
    if b == 2:
        return Triangle(2, _FLIPPED[relation], a)
    # between the result's rows and columns: block the rows
    return Triangle(1, relation, 0) if a == 1 else Triangle(1, _FLIPPED[relation], 0)


def _block(op, maps, triangle: Triangle, first, rows: int, acc):
    """The contraction on the block of `rows` of loop dim `triangle.by` from `first` (an
    index value), inserted into `acc` (the result so far)."""
    from mlir import ir
    from mlir.dialects import arith
    index = ir.IndexType.get()
    extents = {}
    for v, dims in zip(op.operands, maps):
        for d, n in zip(dims, ir.RankedTensorType(v.type).shape):
            extents[d] = n
    n = extents[triangle.dim]
    if triangle.relation in (">", ">="):  # from the block's first index on
        lo = arith.minsi(first, arith.constant(index, n))
        size = arith.subi(arith.constant(index, n), lo)
    else:  # up to the block's last
        lo = 0
        size = arith.minsi(arith.addi(first, arith.constant(index, rows)), arith.constant(index, n))
    offsets = {triangle.by: first, triangle.dim: lo}
    sizes = {triangle.by: rows, triangle.dim: size}

    def at(value, dims):  # the block's part of an operand read at loop dims `dims`
        shape = ir.RankedTensorType(value.type).shape
        return [offsets.get(d, 0) for d in dims], [sizes.get(d, n) for d, n in zip(dims, shape)]

    operands = [extract_slice(v, *at(v, dims)) for v, dims in zip(op.operands[:2], maps)] + [extract_slice(acc, *at(acc, maps[2]))]
    clone = op.clone(ir.InsertionPoint.current)
    for k, v in enumerate(operands):
        clone.operands[k] = v
    clone.results[0].set_type(clone.operands[2].type)
    return insert_slice(clone.results[0], acc, *at(acc, maps[2]))


def _rewrite(op) -> bool:
    from mlir import ir
    from mlir.dialects import arith, scf
    maps = _contraction(op)
    if maps is None:
        return False
    triangle = _triangle(op, maps)
    if triangle is None:
        return False
    n = ir.RankedTensorType(op.results[0].type).shape[triangle.by]  # the result is read at (i, j)
    full = n - n % BLOCK
    if full < 2 * BLOCK:
        return False
    index = ir.IndexType.get()
    with ir.InsertionPoint(op), op.location:
        loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, full), arith.constant(index, BLOCK),
                         iter_args=[op.operands[2]])
        with ir.InsertionPoint(loop.body):
            scf.YieldOp([_block(op, maps, triangle, loop.induction_variable, BLOCK, loop.inner_iter_args[0])])
        result = loop.results[0]
        if full < n:
            result = _block(op, maps, triangle, arith.constant(index, full), n - full, result)
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return True


def triangular_blocks(module) -> int:
    """Rewrite every contraction over a triangle of `module` (tensors) as blocks; the
    number rewritten."""
    return sum(_rewrite(op) for op in ops_named(module, ("linalg.matmul", "linalg.generic")))
