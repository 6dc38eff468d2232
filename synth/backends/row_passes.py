"""One pass over a matrix for a matrix-vector and a vector-matrix product that read it.

bicg (`q = A p`, `s = r A`) and mvt (`x1 += A y1`, `x2 += y2 A`) read one matrix twice,
once per product; at PolyBench LARGE it is 30 MB, so each product streams it from memory.
Run row block by row block instead (8 rows of A, ~16 KB per row, stay in the L1/L2
caches between the two), the two products read A from memory once.

This module finds such pairs in a linalg function, `linalg.matvec(A, x)` and
`linalg.vecmat(y, A)` on the same A where neither product depends on the other, moves the
operands of the later one, then the matvec itself, above the vecmat (the function is a
dataflow graph of pure tensor ops, so any topological order computes the same), and tags
both ops with the pair's number. `schedule()` gives the transform sequences that tile both
by rows and fuse the two row loops into one (transform.loop.fuse_sibling), peel the row
loop so its blocks but the last have 8 rows, and in those blocks tile the matvec's sum
and the vecmat's columns by 8 and fuse these loops too: each step loads an 8 x 8 tile of
A once into registers and uses it for both products (8 partial sums per row for the
matvec, as mlir_cpu splits any matvec; 8 FMAs into 8 entries of the vecmat's result).
The matvec-first order is what lets the column loops fuse: the matvec's partial sums are
reduced after its loop, so the vecmat's loop must not come after that reduction.
Measured on a 2000 x 2000 pair (mvt's shape), one thread, Intel Xeon host, medians of 20
calls: rows fused only 2.5-2.7 ms, rows and columns 1.6-1.7 ms (NumPy's two products
2.7 ms); 2100 x 1900 (bicg): 2.5-3.5 -> 1.65-1.87 ms.

A vecmat that reads the matvec's result (atax: `y = (A x) A`) cannot be a sibling of it;
such a pair is written as one scf.for over blocks of 8 rows instead (the block's rows of
A x, then their part of y), then the last rows (the rows modulo 8), which yields both
results; every block has a static shape, so mlir_cpu vectorizes both products in it.
`fuse_rows` does both, on one parse.

gemver computes its matrix elementwise (`A' = A + u1 v1^T + u2 v2^T`), then `x = y A'`,
then a matvec of A' by a vector that needs all of x. `fuse_producers` (a stage of mlir_cpu's
pipeline, after elementwise fusion has made A' one linalg.generic) writes such a vecmat as
one loop over blocks of 8 rows: the block of A' (the generic on the rows of its operands),
stored, and its part of y A' from the block while it is in cache; then the last rows. That
saves a pass over A' from memory. Raised gemver at PolyBench LARGE, one thread, Intel Xeon
host, old and new code in alternating processes (3 rounds of 5 calls, medians): linalg
10.1, 10.0, 10.3 -> 9.3, 9.6, 9.2 ms; stablehlo 9.3, 9.4, 10.8 -> 8.7, 8.8, 9.1 ms
(outputs bitwise equal: every element gets the same operations in the same order). The
block's generic left to LLVM's vectorizer ran as fast as or faster than tiled 8 x 8 and
vectorized by the schedule (9.3, 9.6, 9.2 against 9.7, 9.6, 10.5 ms).
"""

from __future__ import annotations

from dataclasses import dataclass

ROWS = 8  # rows of the matrix per fused step

MATVEC, VECMAT = "synth.rows_mv", "synth.rows_vm"
STEP = "synth.row_step"  # the products of a row block `_row_loop` wrote (not paired again)


@dataclass(frozen=True)
class Paired:
    text: str  # the module, rewritten, reordered and tagged (unchanged where nothing matched)
    pairs: int  # independent pairs tagged (their matvec now comes first)
    loops: int = 0  # dependent pairs written as one row loop (`_row_loop`)


def _matrix(op):
    name = op.operation.name
    if name == "linalg.matvec":
        return op.operands[0]
    if name == "linalg.vecmat":
        return op.operands[1]
    return None


def _dependences(ops) -> list[set[int]]:
    """For each op of a block (by position), the positions of the ops of that block it
    depends on, transitively (through operands, and through the values its regions use)."""
    position = {op.operation: k for k, op in enumerate(ops)}
    deps: list[set[int]] = []
    for k, op in enumerate(ops):
        mine: set[int] = set()
        for value in _used_values(op):
            owner = _position(value, position)
            if owner is not None and owner < k:
                mine.add(owner)
                mine |= deps[owner]
        deps.append(mine)
    return deps


def _used_values(op):
    yield from op.operands
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield from _used_values(inner)


def _position(value, position) -> int | None:
    """The block position of the op defining `value`; None for a block argument or an
    op outside the block."""
    from mlir import ir
    owner = value.owner
    return None if isinstance(owner, ir.Block) else position.get(owner)


def fuse_rows(text: str) -> Paired:
    """The module (parsed once) with, per function, each dependent matvec/vecmat pair
    written as one row loop (`_row_loop`), then its first independent pair on a shared
    matrix reordered and tagged for the `fuse_rows` transform sequence (see the module
    docstring)."""
    from mlir import ir
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError:
            return Paired(text, 0)  # the pipeline reports what it cannot read
        pairs = loops = 0
        for func in module.body.operations:
            if func.operation.name != "func.func" or not func.regions[0].blocks:
                continue
            while True:
                ops = list(func.regions[0].blocks[0].operations)
                deps = _dependences(ops)
                found = _dependent_pair(ops, deps)
                if found is None:
                    break
                _row_loop(ops, deps, *found)
                loops += 1
            found = _independent_pair(ops, deps)
            if found is None:
                continue
            k, j = found  # the matvec's position, the vecmat's
            first, second = min(k, j), max(k, j)
            for m in sorted(deps[second]):
                if m > first:
                    ops[m].operation.move_before(ops[first].operation)
            if j < k:  # its operands are above the vecmat now
                ops[k].operation.move_before(ops[j].operation)
            number = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), pairs)
            ops[k].operation.attributes[MATVEC] = number
            ops[j].operation.attributes[VECMAT] = number
            pairs += 1
        return Paired(str(module) if pairs or loops else text, pairs, loops)


def _dependent_pair(ops, deps) -> tuple[int, int] | None:
    """Positions of a matvec and a vecmat on its matrix whose vector is the matvec's
    result, where nothing else the vecmat reads depends on that result (`deps`:
    `_dependences(ops)`); the matrix of static shape."""
    from mlir import ir
    position = {op.operation: k for k, op in enumerate(ops)}
    for j, other in enumerate(ops):
        if other.operation.name != "linalg.vecmat" or STEP in other.operation.attributes:
            continue
        k = _position(other.operands[0], position)
        if k is None or ops[k].operation.name != "linalg.matvec" or _matrix(ops[k]) != _matrix(other):
            continue
        if not ir.RankedTensorType(_matrix(other).type).has_static_shape:
            continue  # a shape-generic raise's tensor<?x?>: the row loop's blocks need the sizes
        owners = [_position(v, position) for v in list(other.operands)[1:]]
        if all(m is None or (m != k and k not in deps[m]) for m in owners):
            return k, j
    return None


def _row_loop(ops, deps, k: int, j: int) -> None:
    """Replace matvec ops[k] and vecmat ops[j] by one scf.for over blocks of ROWS rows and
    the same step on the last rows (rows % ROWS), built where the matvec was (the vecmat's
    other operands moved above it first)."""
    from mlir import ir

    matvec, vecmat = ops[k], ops[j]
    for m in sorted(deps[j]):
        if m > k and k not in deps[m]:
            ops[m].operation.move_before(matvec.operation)
    a, x, q, y = matvec.operands[0], matvec.operands[1], matvec.operands[2], vecmat.operands[2]
    rows = ir.RankedTensorType(a.type).shape[0]
    with ir.InsertionPoint(matvec.operation), matvec.location:
        q, y = _by_row_blocks(rows, [q, y], lambda carried, first, height: _row_step(a, x, *carried, first, height))
    matvec.results[0].replace_all_uses_with(q)
    vecmat.results[0].replace_all_uses_with(y)
    vecmat.operation.erase()
    matvec.operation.erase()


def _by_row_blocks(rows: int, carried: list, step) -> list:
    """`step(carried, first, height)` (the carried values updated with rows [first, first +
    height)) over blocks of ROWS rows: an scf.for over the full blocks, then the last rows
    (rows % ROWS), every block of static shape; built at the current insertion point.
    Returns the final carried values."""
    from mlir import ir
    from mlir.dialects import arith, scf

    index = ir.IndexType.get()
    full = rows - rows % ROWS
    if full:
        lower, upper, stride = (arith.ConstantOp(index, n).result for n in (0, full, ROWS))
        loop = scf.ForOp(lower, upper, stride, carried)
        with ir.InsertionPoint(loop.body):
            scf.YieldOp(step(list(loop.inner_iter_args), loop.induction_variable, ROWS))
        carried = list(loop.results)
    if full < rows:
        carried = step(carried, arith.ConstantOp(index, full).result, rows - full)
    return carried


def _row_step(a, x, q, y, first, height: int) -> list:
    """`height` rows of A from row `first` on: their entries of q = A x, and y plus their
    rows' part of q A. Returns the new q and y."""
    from mlir import ir
    from mlir.dialects import linalg, tensor

    cols = ir.RankedTensorType(a.type).shape[1]
    element = ir.RankedTensorType(a.type).element_type
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    block = tensor.ExtractSliceOp(ir.RankedTensorType.get([height, cols], element), a, [first], [], [],
                                  [dynamic, 0], [height, cols], [1, 1]).result
    part = tensor.ExtractSliceOp(ir.RankedTensorType.get([height], element), q, [first], [], [],
                                 [dynamic], [height], [1]).result
    product = linalg.matvec(block, x, outs=[part])
    q_next = tensor.InsertSliceOp(product, q, [first], [], [], [dynamic], [height], [1]).result
    y_next = linalg.vecmat(product, block, outs=[y])
    y_next.owner.attributes[STEP] = ir.UnitAttr.get()
    return [q_next, y_next]


def _independent_pair(ops, deps) -> tuple[int, int] | None:
    """Positions of the first matvec and vecmat that read one matrix, neither depending on
    the other (`deps`: `_dependences(ops)`)."""
    for k, op in enumerate(ops):
        if op.operation.name != "linalg.matvec":
            continue
        for j, other in enumerate(ops):
            if other.operation.name == "linalg.vecmat" and _matrix(other) == _matrix(op) \
                    and k not in deps[j] and j not in deps[k]:
                return k, j
    return None


SEQUENCES = """
  transform.named_sequence @fuse_pair(%mv: !transform.any_op {transform.consumed},
                                      %vm: !transform.any_op {transform.consumed}) {
    %vmg = transform.structured.generalize %vm : (!transform.any_op) -> !transform.any_op
    %vmi = transform.structured.interchange %vmg iterator_interchange = [1, 0] : (!transform.any_op) -> !transform.any_op
    %mvt, %mvl = transform.structured.tile_using_for %mv tile_sizes [@ROWS@, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %vmt, %vml = transform.structured.tile_using_for %vmi tile_sizes [@ROWS@, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.get_parent_op %mvl {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %rows = transform.loop.fuse_sibling %vml into %mvl : (!transform.any_op, !transform.any_op) -> !transform.any_op
    transform.annotate %rows "synth.row_block" : !transform.any_op
    transform.include @peel_one failures(suppress) (%rows) : (!transform.any_op) -> ()
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %blocks = transform.structured.match attributes{synth.row_block} in %func : (!transform.any_op) -> !transform.any_op
    %full, %last = transform.split_handle %blocks {fail_on_payload_too_small = false} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @fuse_columns failures(suppress) (%full) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @fuse_columns(%block: !transform.any_op {transform.readonly}) {
    %mv = transform.structured.match ops{["linalg.matvec"]} in %block : (!transform.any_op) -> !transform.any_op
    %vm = transform.structured.match ops{["linalg.generic"]} in %block : (!transform.any_op) -> !transform.any_op
    %fill, %split, %comb, %sums = transform.structured.tile_reduction_using_for %mv by tile_sizes = [0, @ROWS@] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %vmt, %cols = transform.structured.tile_using_for %vm tile_sizes [0, @ROWS@] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %fill "synth.vectorize" : !transform.any_op
    transform.annotate %split "synth.vectorize" : !transform.any_op
    transform.annotate %comb "synth.vectorize" : !transform.any_op
    transform.annotate %vmt "synth.vectorize" : !transform.any_op
    %func = transform.get_parent_op %block {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_cse to %func : !transform.any_op
    %both = transform.loop.fuse_sibling %cols into %sums : (!transform.any_op, !transform.any_op) -> !transform.any_op
    transform.include @peel_one failures(suppress) (%both) : (!transform.any_op) -> ()
    transform.yield
  }
""".replace("@ROWS@", str(ROWS))


def schedule(pairs: int) -> str:
    """The body of the entry sequence `fuse_rows(%root)` for the tagged pairs: each pair's
    matvec and its vecmat (generalized, loops interchanged so the inner one walks a row)
    tiled by ROWS rows, the vecmat's row loop fused into the matvec's, the loop peeled, and
    in its full blocks the matvec's sum (split in ROWS partial sums) and the vecmat's
    columns tiled by ROWS and fused (`fuse_columns`; the cse before it makes the two
    column loops' bounds the same values, which fuse_sibling requires). A pair the
    transforms refuse is left to the usual schedule (failures suppressed); the tiles marked
    synth.vectorize are vectorized by mlir_cpu's schedule."""
    steps = []
    for n in range(pairs):
        steps.append(
            f"    %mv{n} = transform.structured.match attributes{{{MATVEC} = {n} : i64}} in %root "
            f": (!transform.any_op) -> !transform.any_op\n"
            f"    %vm{n} = transform.structured.match attributes{{{VECMAT} = {n} : i64}} in %root "
            f": (!transform.any_op) -> !transform.any_op\n"
            f"    transform.include @fuse_pair failures(suppress) (%mv{n}, %vm{n}) "
            f": (!transform.any_op, !transform.any_op) -> ()")
    return "\n".join(steps)


def _row_sliceable(generic) -> bool:
    """Whether `generic` (2-d, all parallel, one result written into a tensor.empty, a
    payload of scalar arithmetic) reads each operand along dims in order, so a block of its
    rows is the same generic on the rows of its operands that hold them."""
    from mlir import ir
    from synth.backends.ir_toolkit import all_parallel, defining, indexing_maps, operation
    if len(generic.results) != 1 or not all_parallel(generic):
        return False
    result = generic.results[0].type
    if not isinstance(result, ir.RankedTensorType) or ir.RankedTensorType(result).rank != 2 \
            or not ir.RankedTensorType(result).has_static_shape:
        return False
    init = list(generic.opview.outputs)[0]
    if defining(init) is None or defining(init).name != "tensor.empty":
        return False
    for amap in indexing_maps(generic):
        dims = [ir.AffineDimExpr(e).position for e in amap.results if isinstance(e, ir.AffineDimExpr)]
        if len(dims) != len(amap.results) or dims != sorted(set(dims)):
            return False
    for o in generic.regions[0].blocks[0].operations:
        name = operation(o).name
        if name.split(".")[0] not in ("arith", "math") and name != "linalg.yield":
            return False
    return True


def _producer_block(generic, first, height: int):
    """The rows [first, first + height) of `generic`'s result: a clone of it on the rows of
    its operands (a vector read along the columns is read whole), into a new tensor.empty."""
    from mlir import ir
    from mlir.dialects import tensor
    from synth.backends.ir_toolkit import indexing_maps
    from synth.backends.ir_toolkit import extract_slice
    result = ir.RankedTensorType(generic.results[0].type)
    shape = [height, result.shape[1]]
    operands = []
    inputs = list(generic.opview.inputs)
    for value, amap in zip(inputs, indexing_maps(generic)):
        positions = [ir.AffineDimExpr(e).position for e in amap.results]
        if not isinstance(value.type, ir.RankedTensorType) or 0 not in positions:
            operands.append(value)
            continue
        extents = list(ir.RankedTensorType(value.type).shape)
        offsets = [first if p == 0 else 0 for p in positions]
        sizes = [height if p == 0 else n for p, n in zip(positions, extents)]
        operands.append(extract_slice(value, offsets, sizes))
    operands.append(tensor.empty(shape, result.element_type))
    clone = generic.clone(ir.InsertionPoint.current)
    for i, v in enumerate(operands):
        clone.operands[i] = v
    clone.results[0].set_type(ir.RankedTensorType.get(shape, result.element_type))
    return clone.results[0]


def _producer_step(generic, y, whole, acc, first, height: int) -> list:
    """One block of rows: the producer's rows, put into `whole`, and `acc` plus their
    part of y A (the block's entries of y times its rows). Returns the new whole and acc."""
    from mlir import ir
    from mlir.dialects import linalg
    from synth.backends.ir_toolkit import insert_slice, extract_slice
    block = _producer_block(generic, first, height)
    columns = ir.RankedTensorType(generic.results[0].type).shape[1]
    whole = insert_slice(block, whole, [first, 0], [height, columns])
    part = linalg.vecmat(extract_slice(y, [first], [height]), block, outs=[acc])
    part.owner.attributes[STEP] = ir.UnitAttr.get()
    return [whole, part]


def _fuse_producer(vecmat) -> bool:
    """Write a vecmat `y A` whose matrix is computed elementwise in the same block (A = f(...),
    `_row_sliceable`) as one loop over blocks of ROWS rows that computes the block of A,
    stores it, and adds its part of y A, then the last rows; A's other uses (after the
    vecmat) read the loop's A."""
    from mlir import ir
    from synth.backends.ir_toolkit import defining, operation
    vecmat = operation(vecmat)
    generic = defining(vecmat.operands[1])
    if generic is None or generic.name != "linalg.generic" or generic.block != vecmat.block \
            or not _row_sliceable(generic) or STEP in vecmat.attributes:
        return False
    ops = [operation(o) for o in vecmat.block.operations]
    position = {op: k for k, op in enumerate(ops)}
    deps = _dependences(ops)
    g, v = position.get(generic), position.get(vecmat)
    if g is None or v is None:
        return False
    for value in (vecmat.operands[0], vecmat.operands[2]):
        owner = _position(value, position)
        if owner is not None and (owner == g or g in deps[owner]):
            return False
    for use in generic.results[0].uses:
        user = position.get(operation(use.owner))
        if user is None or (user != v and user <= v):
            return False  # a use inside another op's region, or before the vecmat
    rows = ir.RankedTensorType(generic.results[0].type).shape[0]
    y, whole, acc = vecmat.operands[0], list(generic.opview.outputs)[0], vecmat.operands[2]
    with ir.InsertionPoint(vecmat), vecmat.location:
        whole, acc = _by_row_blocks(rows, [whole, acc],
                                    lambda carried, first, height: _producer_step(generic, y, *carried, first, height))
    vecmat.results[0].replace_all_uses_with(acc)
    vecmat.erase()
    generic.results[0].replace_all_uses_with(whole)
    generic.erase()
    return True


def fuse_producers(module) -> int:
    """Run `_fuse_producer` on every vecmat of `module` (an ir.Module on tensors, after
    elementwise fusion); the number rewritten."""
    from synth.backends.ir_toolkit import ops_named
    return sum(_fuse_producer(op) for op in ops_named(module, ("linalg.vecmat",)))
