"""IREE's stage below a shape-generic stablehlo raise: the dynamic-shape ops IREE 3.13's
stablehlo input conversion does not take, rewritten to ones of the same semantics that it
does, so that IREE compiles the generic text as it is (dynamic shapes) rather than once per
input shapes.

- `stablehlo.dynamic_reshape %x, %shape` -> `tensor.reshape %x(%shape)` (same operands,
  same result type; both the row-major reshape to the extents `%shape` holds). IREE marks
  every `stablehlo.dynamic_reshape` illegal and has no pattern for it ("failed to legalize
  operation 'stablehlo.dynamic_reshape' that was explicitly marked illegal"), while it
  lowers `tensor.reshape` with an integer shape tensor to a flow reshape.
- `stablehlo.gather` whose index tensor has a dynamic batch dim and an explicit index
  vector of extent 1 (`tensor<?x1xi64>`, `index_vector_dim` its last dim): the index
  collapsed to `tensor<?xi64>` (`tensor.collapse_shape`), the same `dimension_numbers`
  then reading it as an implicit index vector of extent 1 (`index_vector_dim` = its rank),
  which is the same gather. IREE's gather canonicalization otherwise collapses the
  result's dims with a `stablehlo.reshape` to a dynamic type that its own verifier refuses
  ("'stablehlo.reshape' op result #0 must be statically shaped", nussinov).
- `dynamic_update_slice` of a dynamic update: `tensor.insert_slice` at the starts clamped
  as stablehlo clamps them; a vector update computed from the vector it is written into,
  a select of the update gathered at iota - start (`_update_slice`, `_selected_update`).
- `dot_general` of dynamic shapes other than M x K times K x N: as that matrix product of
  transposed and reshaped operands (`_dot_general`); of a matrix and a vector, as the
  vector broadcast, multiplied and summed over the contracting dim (`_matrix_vector`);
  of two vectors, their product summed (`_vector_dot`).
- `dynamic_gather` of a line at a counter: a `real_dynamic_slice` (`_dynamic_gather`).
- `dynamic_broadcast_in_dim` of a dynamic-length vector: gathered at iota first, then
  broadcast known not to expand (`_vector_broadcast`); where the text shows the vector's
  length is the target dim's extent at every size (synth.backends.iree_extents: a carried
  row of a matrix), marked so as it is, no gather (`_mark_nonexpanding`).
- first, a function whose broadcast vectors' lengths equal their target extents only by
  the caller's precondition: split on that test at entry (synth.backends.iree_versions).
- a `stablehlo.while` of a function of dynamic shapes holding another while or a
  dot_general, or carrying an array of two or more dynamic dims: blocks of branches
  (`_whiles_as_branches`; nested whiles carrying dynamic tensors, packed products'
  calls, IREE's aliasing of carried arrays); other whiles kept, their scalars on the host.
Each with the IREE error it avoids in its doc. At static shapes only the vector update
read from its own vector is rewritten (IREE gets durbin's static raise wrong otherwise).

Nothing else changes; a module without such ops comes back as it was. What is validated
and proven stays the raised text itself; this stage is a backend's, as library_stablehlo's
blocked forms (its conformance test: tests/test_iree_dynamic.py runs raises through it on
IREE at several sizes against the original loops)."""

from __future__ import annotations

DYNAMIC = -(2 ** 63)  # ShapedType::kDynamic in a static_offsets / static_sizes array
_REWRITES = {"stablehlo.dynamic_reshape": "_reshape", "stablehlo.gather": "_gather",
             "stablehlo.dynamic_update_slice": "_update_slice", "stablehlo.dot_general": "_dot_general",
             "stablehlo.dynamic_gather": "_dynamic_gather",
             "stablehlo.dynamic_broadcast_in_dim": "_vector_broadcast"}


def lower(text: str) -> tuple[str, int]:
    """`text` (a stablehlo module) with the rewrites above; (the module text, how many ops
    were rewritten)."""
    if not any(name in text for name in (*_REWRITES, "stablehlo.while")):
        return text, 0
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    with jax_mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        from synth.backends.iree_versions import split

        split_count = split(ir, module)  # sizes equal only by the caller's precondition: tested at entry
        found = []

        def visit(op):
            if op.name in _REWRITES:
                found.append(op)
            return ir.WalkResult.ADVANCE
        module.operation.walk(visit)
        count = split_count + _mark_nonexpanding(ir, found)  # read before any op is rewritten
        for op in found:
            count += globals()[_REWRITES[op.name]](ir, op)
        count += _whiles_as_branches(ir, module)
        if not count:
            return text, 0
        module.operation.verify()
        return str(module), count


def _reshape(ir, op) -> int:
    with ir.InsertionPoint(op), op.location:
        new = ir.Operation.create("tensor.reshape", results=[op.results[0].type],
                                  operands=[op.operands[0], op.operands[1]])
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()
    return 1


def _index_vector_dim(op) -> int:
    text = str(op.attributes["dimension_numbers"])
    key = "index_vector_dim = "
    return int(text.split(key)[1].split(">")[0].split(",")[0]) if key in text else 0


def _gather(ir, op) -> int:
    index_type = ir.RankedTensorType(op.operands[1].type)
    rank = index_type.rank
    if rank < 2 or index_type.shape[-1] != 1 or _index_vector_dim(op) != rank - 1 \
            or all(not index_type.is_dynamic_dim(k) for k in range(rank - 1)):
        return 0
    collapsed_type = ir.RankedTensorType.get(index_type.shape[:-1], index_type.element_type)
    groups = [[k] for k in range(rank - 2)] + [[rank - 2, rank - 1]]
    reassociation = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k)
                                                        for k in g]) for g in groups])
    with ir.InsertionPoint(op), op.location:
        index = ir.Operation.create("tensor.collapse_shape", results=[collapsed_type], operands=[op.operands[1]],
                                    attributes={"reassociation": reassociation})
    op.operands[1] = index.results[0]
    return 1


def _update_slice(ir, op) -> int:
    """`dynamic_update_slice` of a dynamic update: `tensor.insert_slice` at the starts
    clamped as stablehlo clamps them, into [0, dim - update's dim]."""
    operand, update = op.operands[0], op.operands[1]
    update_type = ir.RankedTensorType(update.type)
    static = update_type.has_static_shape and ir.RankedTensorType(operand.type).has_static_shape
    if static and not (update_type.rank == 1 and _reads(update, operand)):
        return 0  # IREE's own lowering; but for the hazard below (durbin's static raise too)
    index = ir.IndexType.get()
    with ir.InsertionPoint(op), op.location:
        def create(name, operands, attributes=None, result=index):
            return ir.Operation.create(name, results=[result], operands=operands,
                                       attributes=attributes or {}).results[0]

        def constant(k: int):
            return create("arith.constant", [], {"value": ir.IntegerAttr.get(index, k)})

        def dim(value, k: int):
            shape = ir.RankedTensorType(value.type).shape
            return constant(shape[k]) if shape[k] != DYNAMIC else create("tensor.dim", [value, constant(k)])
        offsets, sizes, static_sizes = [], [], []
        for k, start in enumerate(op.operands[2:]):
            element = ir.RankedTensorType(start.type).element_type
            at = create("arith.index_cast", [create("tensor.extract", [start], result=element)])
            room = create("arith.subi", [dim(operand, k), dim(update, k)])
            offsets.append(create("arith.maxsi", [create("arith.minsi", [at, room]), constant(0)]))
            static_sizes.append(update_type.shape[k])
            if update_type.is_dynamic_dim(k):
                sizes.append(dim(update, k))
        if update_type.rank == 1 and _reads(update, operand):
            new = _selected_update(ir, operand, update, offsets[0], dim(operand, 0), dim(update, 0))
            op.results[0].replace_all_uses_with(new)
            op.erase()
            return 1
        rank = update_type.rank
        attributes = {"static_offsets": ir.DenseI64ArrayAttr.get([DYNAMIC] * rank),
                      "static_sizes": ir.DenseI64ArrayAttr.get(static_sizes),
                      "static_strides": ir.DenseI64ArrayAttr.get([1] * rank),
                      "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, rank, len(sizes), 0])}
        new = create("tensor.insert_slice", [update, operand, *offsets, *sizes], attributes, op.results[0].type)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return 1


def _reads(value, target, limit: int = 2000) -> bool:
    """Whether `value` is computed from `target` (through the ops defining it)."""
    seen, stack = set(), [value]
    while stack and len(seen) < limit:
        v = stack.pop()
        if v == target:
            return True
        owner = v.owner
        if not hasattr(owner, "operands") or not hasattr(owner, "name") or owner.name == "func.func":
            continue  # a block argument
        key = hash(owner.operation if hasattr(owner, "operation") else owner)
        if key in seen:
            continue
        seen.add(key)
        stack.extend(owner.operands)
    return bool(stack)  # past the limit: assume it does


def _selected_update(ir, operand, update, start, n, m):
    """A vector update read from the vector it is written into (durbin's y[0:k] +
    a * flip(y[0:k]) into y) as select(start <= i < start + m, update[i - start], operand):
    IREE fuses such an update into its in-place `tensor.insert_slice`, reading elements
    it has already overwritten (durbin at n >= 10: every value wrong); an optimization
    barrier between them stops IREE's shape resolution in loops instead."""
    b = _Builder(ir)
    i64 = ir.IntegerType.get_signless(64)
    lanes = ir.RankedTensorType.get([DYNAMIC], i64)

    def spread(x):  # an index value on every lane
        scalar = b.create("tensor.from_elements", [b.create("arith.index_cast", [x], result=i64)],
                          result=ir.RankedTensorType.get([], i64))
        return b.create("stablehlo.dynamic_broadcast_in_dim", [scalar, b.shape([n])],
                        {"broadcast_dimensions": ir.DenseI64ArrayAttr.get([])}, lanes)
    iota = b.create("stablehlo.dynamic_iota", [b.shape([n])], {"iota_dimension": ir.IntegerAttr.get(i64, 0)}, lanes)
    at = b.create("stablehlo.subtract", [iota, spread(start)], result=lanes)
    numbers = ir.Attribute.parse("#stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], "
                                 "index_vector_dim = 1>")
    values = b.create("stablehlo.gather", [update, at], {"dimension_numbers": numbers,
                                                         "indices_are_sorted": ir.BoolAttr.get(False),
                                                         "slice_sizes": ir.DenseI64ArrayAttr.get([1])}, operand.type)
    flags = ir.RankedTensorType.get([DYNAMIC], ir.IntegerType.get_signless(1))
    direction = lambda d: ir.Attribute.parse(f"#stablehlo<comparison_direction {d}>")
    low = b.create("stablehlo.compare", [at, spread(b.constant(0))], {"comparison_direction": direction("GE")}, flags)
    high = b.create("stablehlo.compare", [at, spread(m)], {"comparison_direction": direction("LT")}, flags)
    inside = b.create("stablehlo.and", [low, high], result=flags)
    return b.create("stablehlo.select", [inside, values, operand], result=operand.type)


def _whiles_as_branches(ir, module) -> int:
    """Each `stablehlo.while` carrying a dynamic tensor, in a function of `module`, as
    blocks of that function: ^cond(carried) -> cf.cond_br -> ^body(carried) -> cf.br
    ^cond, or ^after(carried), where the ops after the loop go. The same loop; IREE then
    sees one control-flow graph, in which it resolves the carried tensors' dims, where a
    while nested in another one's body, carrying a dynamic tensor, stops it ("'tensor.dim'
    op unexpected during shape cleanup; dynamic dimensions must have been resolved",
    nussinov's loop over k inside the loop over diagonals). Outermost first: a converted
    loop's body ops move into the function's blocks, its nested loops with them.

    Only a loop holding another while or a dot_general (iree_packed's call then: IREE
    refuses a call of dynamic tensors in a loop, "'util.call' op function type mismatch")
    or carrying a tensor of two or more dynamic dims (such a kept while IREE 3.13 runs
    wrong: a = a + b, b = b + a over ? x ? arrays gave b the new a; right over ? and ? x 1
    ones), and the loops in it: as blocks IREE keeps the counter and test on the device
    and reads the test back each step (a dispatch, a copy to staging, a wait; one more per
    index the step extracts), a kept while's scalars on the host (durbin: 3 submissions,
    2 waits a step -> 1, 0; benchmarks/results/iree_dynamic_loops_2026-12-07.md)."""
    _mark_branches(ir, module)
    count = 0
    while True:
        loop = _outer_while(ir, module)
        if loop is None:
            return count
        _branches(ir, loop)
        count += 1


def _outer_while(ir, module):
    for f in module.body.operations:
        if f.operation.name != "func.func":
            continue
        if "?" not in str(f.attributes["function_type"]):  # a function of static shapes: left as it is
            continue
        for block in f.regions[0].blocks:
            for op in block.operations:
                if op.operation.name == "stablehlo.while" and BRANCHES in op.operation.attributes:
                    return op.operation
    return None


BRANCHES = "synth.branches"  # a while `_whiles_as_branches` converts (erased with it)


def _dynamic_dims(ir, value) -> int:
    """How many dims of `value`'s tensor type are dynamic."""
    if not isinstance(value.type, ir.RankedTensorType):
        return 0
    t = ir.RankedTensorType(value.type)
    return sum(t.is_dynamic_dim(k) for k in range(t.rank))


def _mark_branches(ir, module) -> None:
    """Marks each while of a dynamic function holding another while or a dot_general,
    and every while inside it (`_whiles_as_branches`)."""
    def inner(op, names) -> list:
        found = []

        def visit(o):
            if o.name in names and o != op:
                found.append(o)
            return ir.WalkResult.ADVANCE
        op.walk(visit)
        return found
    for f in module.body.operations:
        if f.operation.name != "func.func" or "?" not in str(f.attributes["function_type"]):
            continue
        for block in f.regions[0].blocks:
            for op in block.operations:
                loop = op.operation
                if loop.name == "stablehlo.while" and (inner(loop, {"stablehlo.while", "stablehlo.dot_general"})
                                                       or any(_dynamic_dims(ir, v) > 1 for v in loop.operands)):
                    for each in [loop, *inner(loop, {"stablehlo.while"})]:
                        each.attributes[BRANCHES] = ir.UnitAttr.get()


def _branches(ir, loop) -> None:
    block = loop.block
    types = [v.type for v in loop.operands]
    after = block.create_after(*types, arg_locs=[loop.location] * len(types))
    body = block.create_after(*types, arg_locs=[loop.location] * len(types))
    cond = block.create_after(*types, arg_locs=[loop.location] * len(types))
    rest, seen = [], False
    for op in block.operations:
        if seen:
            rest.append(op.operation)
        seen = seen or op.operation == loop
    for op in rest:
        op.detach_from_parent()
        after.append(op)
    for result, arg in zip(loop.results, after.arguments):
        result.replace_all_uses_with(arg)

    def move(region, target):
        source = region.blocks[0]
        for old, new in zip(source.arguments, target.arguments):
            old.replace_all_uses_with(new)
        ops = [op.operation for op in source.operations]
        for op in ops[:-1]:
            op.detach_from_parent()
            target.append(op)
        return ops[-1]  # the stablehlo.return, still in the region
    go = move(loop.regions[0], cond)
    with ir.InsertionPoint(cond), loop.location:
        flag = ir.Operation.create("tensor.extract", results=[ir.IntegerType.get_signless(1)],
                                   operands=[go.operands[0]]).results[0]
        ir.Operation.create("cf.cond_br", operands=[flag, *cond.arguments, *cond.arguments],
                            successors=[body, after],
                            attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                                [1, len(types), len(types)])})
    done = move(loop.regions[1], body)
    with ir.InsertionPoint(body), loop.location:
        ir.Operation.create("cf.br", operands=list(done.operands), successors=[cond])
    with ir.InsertionPoint(loop), loop.location:
        ir.Operation.create("cf.br", operands=list(loop.operands), successors=[cond])
    loop.erase()


class _Builder:
    """Index arithmetic and small tensor ops at an insertion point (generic op creation)."""

    def __init__(self, ir):
        self.ir, self.index = ir, ir.IndexType.get()

    def create(self, name, operands, attributes=None, result=None):
        return self.ir.Operation.create(name, results=[result or self.index], operands=operands,
                                        attributes=attributes or {}).results[0]

    def constant(self, k: int):
        return self.create("arith.constant", [], {"value": self.ir.IntegerAttr.get(self.index, k)})

    def dim(self, value, k: int):
        shape = self.ir.RankedTensorType(value.type).shape
        return self.constant(shape[k]) if shape[k] != DYNAMIC else self.create("tensor.dim", [value, self.constant(k)])

    def product(self, value, dims: list[int]):
        acc = self.constant(1)
        for k in dims:
            acc = self.create("arith.muli", [acc, self.dim(value, k)])
        return acc

    def shape(self, extents: list):
        """A tensor<Nxi64> holding index values `extents`."""
        i64 = self.ir.IntegerType.get_signless(64)
        parts = [self.create("arith.index_cast", [e], result=i64) for e in extents]
        return self.create("tensor.from_elements", parts, result=self.ir.RankedTensorType.get([len(parts)], i64))

    def reshape(self, value, extents: list, static: list[int]):
        t = self.ir.RankedTensorType(value.type)
        return self.create("tensor.reshape", [value, self.shape(extents)],
                           result=self.ir.RankedTensorType.get(static, t.element_type))


def dims_field(text: str, name: str) -> list[int]:
    key = f"{name} = ["
    if key not in text:
        return []
    return [int(v) for v in text.split(key)[1].split("]")[0].replace(" ", "").split(",") if v]


def _dot_general(ir, op) -> int:
    """A dot_general of dynamic shapes other than a matrix product (M x K times K x N):
    the operands transposed and reshaped to one, the product reshaped back. IREE's own
    rewrite to that form reshapes with `stablehlo.reshape` to a dynamic type, which its
    verifier refuses ("must be statically shaped": atax's matrix-vector product, durbin's
    dot of two vectors). An operand that is a matrix of dynamic extents once transposed,
    and a result that is one, are not reshaped: IREE keeps a `tensor.reshape` as a flow
    reshape between dispatches, which nothing fuses across (syr2k's A B^T: the transpose
    of B a dispatch of its own rather than its tiles' packing, the product's unpacking
    apart from the elementwise update after it)."""
    numbers = str(op.attributes["dot_dimension_numbers"])
    lhs, rhs = op.operands[0], op.operands[1]
    lt, rt, out_t = (ir.RankedTensorType(v.type) for v in (lhs, rhs, op.results[0]))
    if lt.has_static_shape and rt.has_static_shape:
        return 0
    if dims_field(numbers, "lhs_batching_dimensions") or dims_field(numbers, "rhs_batching_dimensions"):
        return 0
    lc, rc = dims_field(numbers, "lhs_contracting_dimensions"), dims_field(numbers, "rhs_contracting_dimensions")
    lf = [k for k in range(lt.rank) if k not in lc]
    rf = [k for k in range(rt.rank) if k not in rc]
    if lt.rank == 2 and rt.rank == 2 and lc == [1] and rc == [0]:
        return 0  # already a matrix product
    if sorted((lt.rank, rt.rank)) == [1, 2] and len(lc) == 1 and _zero(ir, out_t.element_type) is not None:
        return _matrix_vector(ir, op, lc[0], rc[0])
    if lt.rank == rt.rank == 1 and len(lc) == 1 and _zero(ir, out_t.element_type) is not None \
            and lt.element_type == rt.element_type == out_t.element_type:
        return _vector_dot(ir, op)
    b = _Builder(ir)
    with ir.InsertionPoint(op), op.location:
        def flat(value, t, first: list[int], second: list[int]):
            order = first + second
            if order != list(range(t.rank)):
                permuted = ir.RankedTensorType.get([t.shape[k] for k in order], t.element_type)
                value = b.create("stablehlo.transpose", [value],
                                 {"permutation": ir.DenseI64ArrayAttr.get(order)}, permuted)
            static = [DYNAMIC, DYNAMIC]  # a unit dim IREE would collapse with a dynamic stablehlo.reshape
            if ir.RankedTensorType(value.type).shape == static:  # a matrix already: no reshape
                return value  # (a tensor.reshape is a dispatch boundary to IREE, _dot_general)
            return b.reshape(value, [b.product(value, list(range(len(first)))),
                                     b.product(value, list(range(len(first), len(order))))], static)
        a = flat(lhs, lt, lf, lc)
        c = flat(rhs, rt, rc, rf)
        at, ct = ir.RankedTensorType(a.type), ir.RankedTensorType(c.type)
        product_t = ir.RankedTensorType.get([at.shape[0], ct.shape[1]], out_t.element_type)
        numbers2 = ir.Attribute.parse("#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>")
        attributes = {"dot_dimension_numbers": numbers2}
        if "precision_config" in op.attributes:
            attributes["precision_config"] = op.attributes["precision_config"]
        product = b.create("stablehlo.dot_general", [a, c], attributes, product_t)
        if product_t == out_t:  # the result a matrix too
            new = product
        else:
            extents = [b.dim(lhs, k) for k in lf] + [b.dim(rhs, k) for k in rf]
            new = b.reshape(product, extents, list(out_t.shape))
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return 1


def _zero(ir, element):
    """A 0-d constant 0 of `element` (a float or an integer type), or None."""
    t, element = ir.RankedTensorType.get([], element), element.maybe_downcast()
    if isinstance(element, ir.FloatType):
        return ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(element, 0.0))
    if isinstance(element, ir.IntegerType) and element.width > 1:
        return ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(element, 0))
    return None


def _matrix_vector(ir, op, lc: int, rc: int) -> int:
    """A dot_general of a matrix and a vector (either side) at dynamic shapes: the vector
    broadcast along the matrix's contracting dim (known not to expand: the dot's operands
    have equal contracting extents), multiplied by the matrix, summed over that dim
    (`stablehlo.reduce`). IREE fuses the three into one reduction dispatch with the
    elementwise ops around it, as its own matvec at static shapes, where the matrix
    product of an n x 1 operand (`_dot_general`'s form) is a dispatch of its own, tiled
    as a matrix product (gemver's generic raise at MEDIUM: 0.35 ms against 0.13 ms)."""
    lhs, rhs = op.operands[0], op.operands[1]
    matrix, vector, along = (lhs, rhs, lc) if ir.RankedTensorType(lhs.type).rank == 2 else (rhs, lhs, rc)
    mt, out_t = ir.RankedTensorType(matrix.type), ir.RankedTensorType(op.results[0].type)
    element = out_t.element_type
    b = _Builder(ir)
    with ir.InsertionPoint(op), op.location:
        shape = b.shape([b.dim(matrix, 0), b.dim(matrix, 1)])
        spread = b.create("stablehlo.dynamic_broadcast_in_dim", [vector, shape],
                          {"broadcast_dimensions": ir.DenseI64ArrayAttr.get([along]),
                           "known_nonexpanding_dimensions": ir.DenseI64ArrayAttr.get([0])},
                          ir.RankedTensorType.get(list(mt.shape), ir.RankedTensorType(vector.type).element_type))
        product = b.create("stablehlo.multiply", [matrix, spread], result=ir.RankedTensorType.get(list(mt.shape), element))
        reduce = _sum(ir, b, product, along, out_t)
    op.results[0].replace_all_uses_with(reduce.results[0])
    op.erase()
    return 1


def _vector_dot(ir, op) -> int:
    """A dot_general of two vectors at dynamic length: their product summed
    (`stablehlo.reduce`), one reduction dispatch, as IREE's own dot at static length,
    where the 1 x K times K x 1 matrix product (`_dot_general`'s form) is packed, a
    product and its packs a step, and its call makes a loop holding it blocks of
    branches (durbin's y[0:k] . r[k-1::-1], `_whiles_as_branches`)."""
    lhs, rhs = op.operands[0], op.operands[1]
    out_t = ir.RankedTensorType(op.results[0].type)
    b = _Builder(ir)
    with ir.InsertionPoint(op), op.location:
        product = b.create("stablehlo.multiply", [lhs, rhs], result=lhs.type)
        reduce = _sum(ir, b, product, 0, out_t)
    op.results[0].replace_all_uses_with(reduce.results[0])
    op.erase()
    return 1


def _sum(ir, b, product, along: int, out_t):
    """`stablehlo.reduce` of `product` over dim `along` by addition from zero, typed
    `out_t`, at the current insertion point (the matrix-vector and vector-vector forms)."""
    scalar = ir.RankedTensorType.get([], out_t.element_type)
    init = b.create("stablehlo.constant", [], {"value": _zero(ir, out_t.element_type)}, scalar)
    reduce = ir.Operation.create("stablehlo.reduce", results=[out_t], operands=[product, init],
                                 attributes={"dimensions": ir.DenseI64ArrayAttr.get([along])}, regions=1)
    body = reduce.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(body):
        total = b.create("stablehlo.add", [body.arguments[0], body.arguments[1]], result=scalar)
        ir.Operation.create("stablehlo.return", operands=[total])
    return reduce


def _extent(t, dims: list[int]) -> int:
    """The static product of `t`'s `dims`, or dynamic."""
    out = 1
    for k in dims:
        if t.shape[k] == DYNAMIC:
            return DYNAMIC
        out *= t.shape[k]
    return out


def _dynamic_gather(ir, op) -> int:
    """The dynamic_gather a generic raise emits for a line at a counter (one index, the
    one indexed dim collapsed): a `real_dynamic_slice` from the index clamped into its dim
    and 0 along the others, of the slice sizes, reshaped to the result. IREE has no
    lowering for dynamic_gather ("failed to legalize operation 'stablehlo.dynamic_gather'")."""
    numbers = str(op.attributes["dimension_numbers"])
    a, index, sizes = op.operands[0], op.operands[1], op.operands[2]
    at, it = ir.RankedTensorType(a.type), ir.RankedTensorType(index.type)
    collapsed = dims_field(numbers, "collapsed_slice_dims")
    ivd = int(numbers.split("index_vector_dim = ")[1].split(">")[0].split(",")[0]) if "index_vector_dim" in numbers else 0
    if it.rank != 1 or it.shape[0] != 1 or ivd != 0 or len(collapsed) != 1 \
            or dims_field(numbers, "start_index_map") != collapsed \
            or dims_field(numbers, "offset_dims") != list(range(at.rank - 1)):
        return 0
    dim = collapsed[0]
    b = _Builder(ir)
    with ir.InsertionPoint(op), op.location:
        # gather's slice along each other dim starts at 0 and has the size `sizes` says
        # (the whole dim, as a generic raise emits it); along `dim`, 1 at the clamped index
        size_t = ir.RankedTensorType(sizes.type).element_type
        extents = [b.create("arith.index_cast", [b.create("tensor.extract", [sizes, b.constant(k)], result=size_t)])
                   for k in range(at.rank)]
        start = b.create("arith.index_cast", [b.create("tensor.extract", [index, b.constant(0)], result=it.element_type)])
        start = b.create("arith.maxsi", [b.create("arith.minsi", [start, b.create(
            "arith.subi", [b.dim(a, dim), b.constant(1)])]), b.constant(0)])
        starts = [start if k == dim else b.constant(0) for k in range(at.rank)]
        limits = [b.create("arith.addi", [start, b.constant(1)]) if k == dim else extents[k] for k in range(at.rank)]
        out_t = ir.RankedTensorType(op.results[0].type)
        kept = iter(out_t.shape)  # the result's dims: the slice's but `dim`, in order
        line_t = ir.RankedTensorType.get([1 if k == dim else next(kept) for k in range(at.rank)], at.element_type)
        line = b.create("stablehlo.real_dynamic_slice", [a, b.shape(starts), b.shape(limits),
                                                        b.shape([b.constant(1)] * at.rank)], result=line_t)
        new = b.reshape(line, [extents[k] for k in range(at.rank) if k != dim], list(out_t.shape))
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return 1


def _known(op) -> bool:
    """Whether a dynamic_broadcast_in_dim says which of its dims expand or not."""
    return any(name in op.attributes for name in ("known_expanding_dimensions", "known_nonexpanding_dimensions"))


def _mark_nonexpanding(ir, ops) -> int:
    """Each dynamic-length vector broadcast of `ops` whose vector provably has the target
    dim's extent (synth.backends.iree_extents) marked `known_nonexpanding_dimensions`, so
    that `_vector_broadcast` leaves it as it is (its gather at iota costs an indirect load
    per element of the consumer, which IREE then also flattens: see iree_extents)."""
    from synth.backends.iree_extents import nonexpanding

    count = 0
    for op in ops:
        if op.name != "stablehlo.dynamic_broadcast_in_dim" or _known(op):
            continue
        xt = ir.RankedTensorType(op.operands[0].type)
        if xt.rank == 1 and xt.is_dynamic_dim(0) and nonexpanding(ir, op):
            op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get([0])
            count += 1
    return count


def _vector_broadcast(ir, op) -> int:
    """`dynamic_broadcast_in_dim` of a vector of dynamic length into a new shape: IREE
    cannot tell whether that dim expands (length 1) or not ("failed to legalize operation
    'stablehlo.dynamic_broadcast_in_dim'"). The vector first gathered at iota(n), n the
    target dim's extent (the gather clamps each index: x[0] n times where x has one
    element, x itself where it has n), then broadcast with that dim known not to expand:
    the same values either way."""
    x, shape = op.operands[0], op.operands[1]
    xt = ir.RankedTensorType(x.type)
    if xt.rank != 1 or not xt.is_dynamic_dim(0) or _known(op):
        return 0
    target = ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])[0]
    i64 = ir.IntegerType.get_signless(64)
    b = _Builder(ir)
    with ir.InsertionPoint(op), op.location:
        # the target extent read on the host (a stablehlo.slice of the shape tensor made
        # IREE fail on gemver: "'stream.yield' op used resource not listed in explicit captures")
        size_t = ir.RankedTensorType(shape.type).element_type
        extent = b.shape([b.create("arith.index_cast", [b.create("tensor.extract", [shape, b.constant(target)],
                                                                 result=size_t)])])
        lanes = ir.RankedTensorType.get([DYNAMIC], i64)
        iota = b.create("stablehlo.dynamic_iota", [extent], {"iota_dimension": ir.IntegerAttr.get(i64, 0)}, lanes)
        numbers = ir.Attribute.parse("#stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], "
                                     "index_vector_dim = 1>")
        spread = b.create("stablehlo.gather", [x, iota], {"dimension_numbers": numbers,
                                                          "indices_are_sorted": ir.BoolAttr.get(False),
                                                          "slice_sizes": ir.DenseI64ArrayAttr.get([1])},
                          ir.RankedTensorType.get([DYNAMIC], xt.element_type))
        new = b.create("stablehlo.dynamic_broadcast_in_dim", [spread, shape],
                       {"broadcast_dimensions": op.attributes["broadcast_dimensions"],
                        "known_nonexpanding_dimensions": ir.DenseI64ArrayAttr.get([0])}, op.results[0].type)
    op.results[0].replace_all_uses_with(new)
    op.erase()
    return 1
