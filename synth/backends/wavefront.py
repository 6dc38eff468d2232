"""A stencil's time loop runs several time steps per sweep over its arrays (mlir-cpu backend).

jacobi-2d and heat-3d, raised, are a time loop whose step updates the interior of one array
from shifted slices of another, then the other way round: after elementwise fusion, each
update is one linalg.generic over the interior, inserted into its array. Each step streams
every array once through the caches; at PolyBench LARGE the arrays (13.5 MB each) live in
L3, and the raised loop runs at the speed of the original loops (1.0x).

`wavefront` rewrites such a loop so that a block of T steps makes one pass over the arrays:
the row q of update k of step s (rows along dim 0) is computed at wave r = q + s * P + l_k,
waves in order, and within a wave steps and updates in order. The lags (l_k per update, P
per step) are the least that keep every read where the step-by-step loop has it:
- a read of rows q + d of an array written earlier in the same step (by update j): the
  row is written at wave q + d + l_j, so l_k >= l_j + d;
- a read of rows q + d of an array written later in the step (by update j >= k, so the
  previous step's values): the previous step wrote the row at q + d + l_j - P, so
  P >= l_j + d - l_k; and the row must not be overwritten yet by this step's update j:
  l_j + d >= l_k (j == k, an update reading its own array, needs d >= 0);
- a read of an array written earlier in the step (by j < k) must not see the next step's
  update j: P + l_j + d >= l_k.
An update computes a row only where the row is in its range (an scf.if); a row is one
generic over the update's other dims, the update's own generic on rows of its operands,
so every element gets the same operations in the same order as before (the values are
bitwise the same). The waves, the steps and the updates run in place on the loop's arrays.

A wave computes a block of rows of each update (`block_rows`: 4 where four rows of every
array, with a row above and below, fit in half the core's L2, fewer else, down to 1): the
block is one generic over its rows, tiled by rows x the vector width, so the rows above and
below a tile, shared by its neighbours, are loaded once for the block (shift_reuse then
takes its shifted reads row by row). With rows of 10 KB (jacobi-2d at LARGE) each tile of a
row had three rows to load from L2, and the loop ran at 0.34 ns per point against 0.19-0.23
in C with 4-row blocks. Waves r = first, first + H, ... (H rows per block) compute, for each
step and update in order, the rows q .. q + H - 1, q = r - s * P - l_k; this tiles the loop
over (wave, step and update), whose dependences all go forward in both (a step's update
reads only earlier updates' values and its own rows at or below, loop_updates), so any
rectangular tiling keeps them. The waves where every block is inside its update's rows
compute the blocks as they are; before and after those, a block is moved into its update's
rows and its rows outside q .. q + H - 1 keep their values (a select in its payload, a
masked store); an update of fewer rows than a block (fdtd-2d's boundary row) is computed
whole there, its rows kept where the block has none of them. With blocks no scf.if is left:
with a branch per update and row around generics of rows, one-shot bufferization's analysis
took 9 s on fdtd-2d (and more than 5 minutes with blocks), 0.6 s without.

T is the largest divisor of the trip count up to 10 whose window (the rows between the
oldest and the newest update of a wave, of every array the loop carries) fits in the
budget (`window_budget`, from the host's caches): half the core's L2 where the arrays fit
in half the L3, else a quarter of the L3. Each row's generic is marked (`synth.row2`, `synth.row3`) for the
schedule, which tiles it along its last dim by the vector width and vectorizes the tiles
(the whole-array generics are left to LLVM). A time loop whose count is known only at run
time (a generic raise's step-count argument) gets T as for a count every T divides, sweeps
count / T times, and runs the steps left (fewer than T) as it was written, from where the
sweeps stop (the loop, marked `synth.wavefront_rest`). Only loops of that form are taken: a
constant lower bound, step 1, the counter unused, every update an all-parallel generic with identity maps
over static slices at constant offsets, arrays of rank 2 or more (a row of a rank-1 array is
one element). An array may have several updates in a step where they write disjoint rows and
no other update reads the array between them (fdtd-2d's ey: its row 0, then rows 1 to n);
they share one lag. A rank-1 iter_arg that the step rotates left by one (`_rotation`:
element 0 moved to the end) is a queue: an update may read its element 0 (a map to (0),
fdtd-2d's source value of the step), step s of a sweep then reads element s mod n (n
the queue's length), and the sweep rotates the queue by its steps. The sweeps of a loop over
vectors (jacobi-1d: rank 1, in L1 already) are marked `synth.row1` instead
(`_mark_vectors`: all-parallel generics with identity maps on vectors or unit-stride slices
of them), so the schedule vectorizes them by mlir_cpu.ROW1_TILE elements.

PolyBench LARGE on this backend, one thread, the Intel Xeon host (2026-11-26), before and
after in one process (scripts/compare_pipelines.py, 3-4 rounds of 3 calls): jacobi-2d
(1300 x 1300, 500 steps, T = 10) 1.35 -> 1.05 s and 1.14 -> 0.78 s in two runs; T = 5:
1.17 -> 0.86 s; without the row vectorization T = 5 gained less (1.34 -> 1.08 s) and
T = 10 lost (2.3 s). The same on its stablehlo raise (lowered to the same loop): 1.20x
over the loops against XLA's 0.93x. heat-3d (planes of 120 x 120, 230 KB per plane and
array; T = 10 needs a 5 MB window): on that host (300 MB of L3, the arrays in it) a 2-4 MB
window (T = 2, 5) ran as fast as before (1.34 -> 1.32 s). On an AMD EPYC host (1 MB of L2
per core, 32 MB of L3: the two arrays, 27.6 MB, do not stay in it; the C loops take 0.65
ns per point at 40^3, 1.3-1.5 ns at 120^3), 2026-11-27, with the L3 budget (T = 10), old
and new code in alternating processes, medians of 3 calls: linalg 2.10, 2.18 -> 1.08,
0.83 s, stablehlo 2.24, 2.19 -> 0.82, 0.82 s, outputs bitwise equal (T = 5: 1.06 s,
T = 20: 1.04 s). jacobi-1d (rank 1, in L1 already) is not of the form. fdtd-2d (3 arrays of 1000 x 1200, 500 steps, T = 10, P = 1; the C loops
take 0.9-1.0 ns per point where the arrays fit in L2, 2.3 ns at LARGE), 2026-11-27, old and
new code in alternating processes, medians of 3 rounds of 5 calls: 1.46 -> 0.58 s and
1.53 -> 0.59 s, outputs bitwise equal.
Blocks of rows, PolyBench LARGE, one thread, AMD EPYC host (2026-11-28), old and new code in
alternating processes (medians of 5 calls): jacobi-2d 0.57-0.68 -> 0.38-0.39 s (one sample
0.49) to linalg, 0.57 -> 0.39 s to stablehlo; fdtd-2d 0.43-0.45 -> 0.42-0.45 s to linalg,
0.43-0.54 -> 0.42 s to stablehlo, compile 11 -> 6 s; outputs bitwise equal. heat-3d (planes
of 230 KB for both arrays: 1 row per block) is as before: blocks of 4 planes (1.4 MB with
their neighbours, beyond the L2) ran 0.85-0.97 s against 0.82-0.85 s, 2 planes 0.82-0.84 s.
"""

from __future__ import annotations

from synth.backends.ir_toolkit import (
    static_values, extract_slice, insert_slice, all_parallel, constant_int, defining,
    indexing_maps, operation, generic_like, ops_named)
from synth.backends.host import cache_bytes
from synth.backends.wavefront_form import identity_maps, plain_slice, loop_updates, lags  # noqa: F401 (read by tests too)

_MAX_STEPS = 10
_ANY_COUNT = 2520  # the least count every T up to 10 divides
BLOCK_ROWS = 4


def _carried_bytes(loop) -> tuple[int, int]:
    """(bytes of one row (dim 0 fixed), bytes in all) of the arrays the loop carries."""
    from mlir import ir
    row = whole = 0
    for a in list(loop.regions[0].blocks[0].arguments)[1:]:
        t = ir.RankedTensorType(a.type)
        n = 1
        for extent in t.shape[1:]:
            n *= extent
        size = n * max(1, t.element_type.width // 8 if hasattr(t.element_type, "width") else 8)
        row, whole = row + size, whole + size * t.shape[0]
    return row, whole


def window_budget(array_bytes: int, l2: int | None = None, l3: int | None = None) -> int:
    """The most bytes a sweep's window may hold: half the core's L2 where the arrays fit in
    half the L3 (they are in L3 already; the window gains only in L2), a quarter of the L3
    where they do not (each step would stream them from memory; a window in L3 is enough).
    `l2`, `l3`: cache sizes other than the host's."""
    l2 = cache_bytes(2) if l2 is None else l2
    l3 = cache_bytes(3) if l3 is None else l3
    return l2 // 2 if array_bytes <= l3 // 2 else max(l2 // 2, l3 // 4)


def block_rows(row_bytes: int, cap: int = BLOCK_ROWS, l2: int | None = None) -> int:
    """The rows per block of a wave (at most `cap`): the most whose rows, with a row above
    and below, of every array the loop carries (`row_bytes` a row of all of them) fit in half
    the core's L2 (`l2`: another size than the host's); 1 where none above 1 does."""
    l2 = cache_bytes(2) if l2 is None else l2
    return max([h for h in range(2, cap + 1) if (h + 2) * row_bytes <= l2 // 2] + [1])


def steps_per_sweep(trips: int, window_rows, row_bytes: int, budget: int, cap: int = _MAX_STEPS) -> int:
    """The largest divisor T of `trips` up to `cap` whose window (`window_rows(T)` rows of
    `row_bytes`) fits in `budget` bytes; 1 when none above 1 does."""
    best = 1
    for t in range(2, min(cap, trips) + 1):
        if trips % t == 0 and window_rows(t) * row_bytes <= budget:
            best = t
    return best


def _into_own_row(generic, position: int):
    """`generic` with its input `position` (the row it overwrites) as its output instead of
    a tensor.empty, the payload reading the output's element: the row is then updated in
    place (a tiled generic that reads a row and writes a fresh tensor inserted over it
    bufferizes to a copy of the row per update)."""
    inputs, outputs = list(generic.opview.inputs), list(generic.opview.outputs)
    block = generic.regions[0].blocks[0]
    block.arguments[position].replace_all_uses_with(block.arguments[len(inputs)])
    maps = list(generic.attributes["indexing_maps"])
    keep = [i for i in range(len(inputs)) if i != position]
    new = generic_like(generic, [inputs[i] for i in keep] + [inputs[position]] + outputs[1:], len(keep),
                       [maps[i] for i in keep] + maps[len(inputs):])
    block.append_to(new.regions[0])
    block.erase_argument(position)
    generic.erase()
    return new


def _keep_rows(generic, keep, count: int) -> None:
    """Make `generic` (its output rows of the array it updates) yield, at row i of its
    output, its value where 0 <= i + `keep` < count and the output's element (the array's
    own value) elsewhere."""
    from mlir import ir
    from mlir.dialects import arith, linalg

    block = generic.regions[0].blocks[0]
    out = block.arguments[len(list(block.arguments)) - 1]
    yield_op = operation(list(block.operations)[-1])
    with ir.InsertionPoint(yield_op), generic.location:
        index = ir.IndexType.get()
        at = arith.addi(linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)).result, keep)
        inside = arith.cmpi(arith.CmpIPredicate.ult, at, arith.constant(index, count))
        yield_op.operands[0] = arith.select(inside, yield_op.operands[0], out)


def _head_of(extract, vectors) -> tuple | None:
    """(the vector, the ops reading it) when `extract` is a scalar `tensor.extract` of
    element 0 of one of `vectors`: of the collapse_shape of a 1-element slice at 0 (a slice
    and a reshape, lowered from stablehlo); None otherwise."""
    if extract.name != "tensor.extract" or len(extract.operands) != 1:
        return None
    collapse = defining(extract.operands[0])
    piece = None if collapse is None or collapse.name != "tensor.collapse_shape" else defining(collapse.operands[0])
    if piece is None or piece.name != "tensor.extract_slice" or piece.operands[0] not in vectors \
            or not plain_slice(piece) or static_values(piece, "offsets") != [0] or static_values(piece, "sizes") != [1]:
        return None
    return piece.operands[0], [extract, collapse, piece]


def _heads_as_operands(loop) -> int:
    """Each generic in the step of `loop` whose payload reads element 0 of a rank-1 iter_arg
    as a scalar from outside (`_head_of`: the stablehlo raise of fdtd-2d's source value)
    reads the iter_arg as an operand instead, by a map to (0), the form of the linalg raise
    and the queue read `loop_updates` takes; the scalar's ops are erased once unused. Returns
    how many generics."""
    from mlir import ir

    body = loop.regions[0].blocks[0]
    vectors = [a for a in list(body.arguments)[1:]
               if isinstance(a.type, ir.RankedTensorType) and ir.RankedTensorType(a.type).rank == 1]
    count = 0
    for op in [operation(o) for o in body.operations]:
        found = _head_of(op, vectors)
        if found is None:
            continue
        vector, ops = found
        users = [operation(use.owner).parent for use in op.results[0].uses]  # the payloads' generics
        if not users or any(u is None or operation(u).name != "linalg.generic" for u in users):
            continue
        for generic in {operation(u) for u in users}:
            _read_head(generic, op.results[0], vector)
            count += 1
        for dead in ops:
            if not any(True for _ in dead.results[0].uses):
                dead.erase()
    return count


def _read_head(generic, scalar, vector) -> None:
    """`generic` with `vector` as one more input read at element 0, its payload's uses of
    `scalar` reading that input instead."""
    from mlir import ir

    inputs, outputs = list(generic.opview.inputs), list(generic.opview.outputs)
    old = generic.regions[0].blocks[0]
    maps = list(generic.attributes["indexing_maps"])
    head = ir.AffineMapAttr.get(ir.AffineMap.get(indexing_maps(generic)[-1].n_dims, 0, [ir.AffineConstantExpr.get(0)]))
    new = generic_like(generic, inputs + [vector] + outputs, len(inputs) + 1,
                       maps[:len(inputs)] + [head] + maps[len(inputs):])
    types = [a.type for a in old.arguments]
    types.insert(len(inputs), ir.RankedTensorType(vector.type).element_type)
    with generic.location:
        block = new.regions[0].blocks.append(*types)
    for i, a in enumerate(old.arguments):
        a.replace_all_uses_with(block.arguments[i if i < len(inputs) else i + 1])
    for o in list(old.operations):
        block.append(operation(o))
    for use in list(scalar.uses):
        if operation(use.owner).parent == new:
            operation(use.owner).operands[use.operand_number] = block.arguments[len(inputs)]
    for old_result, new_result in zip(generic.results, new.results):
        old_result.replace_all_uses_with(new_result)
    generic.erase()


def _rewrite(loop, cap: int, rows: int) -> bool:
    from mlir import ir
    from mlir.dialects import arith, scf, tensor

    from synth.backends.ir_toolkit import clone_into  # (rotation imports this module)

    view = loop.opview
    lb, ub, step = (constant_int(v) for v in (view.lowerBound, view.upperBound, view.step))
    if lb is None or step != 1 or (ub is not None and ub - lb < 2) or "synth.wavefront_rest" in loop.attributes:
        return False
    form = loop_updates(loop)
    found = None if form is None else lags(form[0])
    if found is None:
        return False
    (updates, queues), (ls, period) = form, found
    row_bytes, array_bytes = _carried_bytes(loop)
    rows = block_rows(row_bytes, rows)
    small = {k for k, u in enumerate(updates) if u.shape[0] < rows}
    if len(small) == len(updates):
        rows, small = 1, set()
    reach = max([abs(offsets[0] - u.offsets[0]) for u in updates for _, offsets, _ in u.reads
                 if offsets is not None] + [0])
    # a count known only at run time: sweeps of T steps, then the loop itself runs the
    # steps left (fewer than T); every T up to 10 divides _ANY_COUNT
    trips = ub - lb if ub is not None else _ANY_COUNT
    steps = steps_per_sweep(trips, lambda t: (t - 1) * period + max(ls) + 2 * reach + rows, row_bytes,
                            window_budget(array_bytes), cap)
    if steps < 2:
        return False
    body = loop.regions[0].blocks[0]
    for op in [operation(o) for o in body.operations]:
        if op.name == "arith.constant":
            op.move_before(loop)  # the payloads' constants, for the clones
    index = ir.IndexType.get()
    with ir.InsertionPoint(loop), loop.location:
        def c(v):
            return arith.constant(index, v)

        def compute(u, s, q, count, current, keep=None):
            """Rows q .. q + count - 1 of update `u` at step s of the sweep: its generic on
            those rows of its operands, inserted into its array. `keep` (an index Value): only
            the rows i with 0 <= i + keep < rows take the new values, the others keep the
            array's."""
            row = [count] + u.shape[1:]
            operands = []
            for position, (array, offsets, _) in enumerate(u.reads):
                if offsets is None:  # step s of the sweep: element s of the queue, cyclically
                    n = ir.RankedTensorType(current[array].type).shape[0]
                    scalar = ir.RankedTensorType(u.generic.opview.inputs[position].type).rank == 0
                    operands.append(extract_slice(current[array], [s % n], [1], [] if scalar else None))
                    continue
                at = arith.addi(q, c(offsets[0] - u.offsets[0])) if offsets[0] != u.offsets[0] else q
                operands.append(extract_slice(current[array], [at] + offsets[1:], row))
            element = ir.RankedTensorType(u.generic.results[0].type).element_type
            own = [i for i, (array, offsets, _) in enumerate(u.reads) if array == u.array and offsets == u.offsets]
            # the output: the rows kept are read from it (a row that reads its own old value
            # reads it there, _into_own_row)
            operands.append(tensor.empty(row, element) if own or keep is None else
                            extract_slice(current[u.array], [q] + u.offsets[1:], row))
            clone = u.generic.clone(ir.InsertionPoint.current)
            for i, v in enumerate(operands):
                clone.operands[i] = v
            clone.results[0].set_type(ir.RankedTensorType.get(row, element))
            if own:
                clone = _into_own_row(clone, own[0])
            if keep is not None:
                _keep_rows(clone, keep, rows)
            if len(row) in (2, 3):  # the schedule vectorizes it along its last dim
                clone.attributes[f"synth.row{len(row)}"] = ir.UnitAttr.get()
            return insert_slice(clone.results[0], current[u.array], [q] + u.offsets[1:], row)

        if ub is not None:
            count = c(trips // steps)
        else:  # max(ub - lb, 0) / T sweeps
            count = arith.divsi(arith.maxsi(arith.subi(view.upperBound, c(lb)), c(0)), c(steps))
        sweeps = scf.ForOp(c(0), count, c(1), iter_args=list(view.initArgs))
        with ir.InsertionPoint(sweeps.body):
            first = min(u.offsets[0] + ls[k] for k, u in enumerate(updates))
            last = max(u.offsets[0] + u.shape[0] - 1 + (steps - 1) * period + ls[k] for k, u in enumerate(updates))
            def waves(begin: int, end: int, carried: list, whole: bool) -> list:
                """The waves r = begin, begin + rows, ... below `end`, on `carried`; `whole`:
                every block of every update is in its range there (no row kept)."""
                loop = scf.ForOp(c(begin), c(end), c(rows), iter_args=carried)
                with ir.InsertionPoint(loop.body):
                    current = list(loop.inner_iter_args)
                    r = loop.induction_variable
                    for s in range(steps):
                        for k, u in enumerate(updates):
                            lo, hi = u.offsets[0], u.offsets[0] + u.shape[0]
                            q = arith.subi(r, c(s * period + ls[k]))
                            if rows > 1:
                                if whole and k in small:
                                    continue  # (its rows are in no block of these waves)
                                if whole:
                                    current[u.array] = compute(u, s, q, rows, current)
                                    continue
                                # rows q .. q + rows - 1, as a block moved into the update's
                                # range (rows b .. b + rows - 1; all of them for an update of
                                # fewer rows): the rows of the block outside q's keep their
                                # values
                                count = min(rows, hi - lo)
                                b = arith.minsi(arith.maxsi(q, c(lo)), c(hi - count))
                                current[u.array] = compute(u, s, b, count, current, keep=arith.subi(b, q))
                                continue
                            inside = arith.andi(arith.cmpi(arith.CmpIPredicate.sge, q, c(lo)),
                                                arith.cmpi(arith.CmpIPredicate.slt, q, c(hi)))
                            dest = current[u.array]
                            branch = scf.IfOp(inside, [dest.type], has_else=True)
                            with ir.InsertionPoint(branch.then_block):
                                scf.YieldOp([compute(u, s, q, 1, current)])
                            with ir.InsertionPoint(branch.else_block):
                                scf.YieldOp([dest])
                            current[u.array] = branch.results[0]
                    scf.YieldOp(current)
                return list(loop.results)

            done = list(sweeps.inner_iter_args)
            if rows == 1:
                done = waves(first, last + 1, done, False)
            else:
                # the waves whose blocks are all in their updates' ranges, between the waves
                # where the sweep starts and ends
                # (an update of fewer rows than a block, fdtd-2d's boundary row, has none
                # of its rows in a block there)
                blocked = [k for k in range(len(updates)) if k not in small]
                start = max(updates[k].offsets[0] + ls[k] for k in blocked) + (steps - 1) * period
                stop = min(updates[k].offsets[0] + updates[k].shape[0] - rows + ls[k] for k in blocked)
                start = first + -(-(start - first) // rows) * rows
                stop = max(start, first + ((stop - first) // rows + 1) * rows)
                for k in small:
                    u = updates[k]  # rows q = r - s * period - ls[k] of the waves r in [start, stop)
                    if not (start - (steps - 1) * period - ls[k] >= u.offsets[0] + u.shape[0]
                            or stop - 1 - ls[k] + rows <= u.offsets[0]):
                        stop = start
                end = first + -(-(last + 1 - first) // rows) * rows
                for begin, finish, whole in ((first, start, False), (start, stop, True), (stop, end, False)):
                    if finish > begin:
                        done = waves(begin, finish, done, whole)
            for array, rotation in queues.items():  # each step rotates the queue by one
                for _ in range(steps):
                    mapping = {body.arguments[1 + array]: done[array]}
                    clone_into(rotation, mapping)
                    done[array] = mapping[rotation[-1].results[0]]
            scf.YieldOp(done)
        if ub is None:  # the loop runs the steps left, from where the sweeps stop
            loop.operands[0] = arith.addi(c(lb), arith.muli(count, c(steps)))
            for k, value in enumerate(sweeps.results):
                loop.operands[3 + k] = value
            loop.attributes["synth.wavefront_rest"] = ir.UnitAttr.get()
            return True
    for old, new in zip(loop.results, sweeps.results):
        old.replace_all_uses_with(new)
    loop.erase()
    return True


def _of_vectors(value) -> bool:
    """Whether `value` is a rank-1 tensor, or unit-stride slices of one."""
    from mlir import ir
    while True:
        if not isinstance(value.type, ir.RankedTensorType) or ir.RankedTensorType(value.type).rank != 1:
            return False
        op = defining(value)
        if op is None or op.name in ("tensor.empty", "tensor.insert_slice", "linalg.generic"):
            return True
        if op.name != "tensor.extract_slice":
            return False  # a reshaped column of a matrix, say
        if any(s != 1 for s in ir.DenseI64ArrayAttr(op.attributes["static_strides"])):
            return False
        value = op.operands[0]


def _mark_vectors(loop) -> int:
    """Mark the rank-1 all-parallel generics with identity maps in `loop`'s body (a
    stencil over a vector, jacobi-1d) `synth.row1`: the schedule tiles and vectorizes them."""
    from mlir import ir
    marked = 0
    for op in loop.regions[0].blocks[0].operations:
        op = operation(op)
        if op.name != "linalg.generic" or not all_parallel(op) or not identity_maps(op):
            continue
        if not all(_of_vectors(v) for v in op.operands):
            continue  # a column of a matrix (strided) is left to LLVM
        if ir.RankedTensorType(op.results[0].type).rank == 1 and ir.RankedTensorType(op.results[0].type).has_static_shape:
            op.attributes["synth.row1"] = ir.UnitAttr.get()
            marked += 1
    return marked


def wavefront(module, cap: int = _MAX_STEPS, rows: int = BLOCK_ROWS) -> int:
    """Rewrite the stencil time loops of `module` (an ir.Module, on tensors, after
    elementwise fusion) to sweep T steps at once (module docstring); the number rewritten.
    `cap`: the most steps per sweep."""
    loops = [loop for loop in ops_named(module, ("scf.for",)) if loop.parent is not None]
    for loop in loops:
        _mark_vectors(loop)
        _heads_as_operands(loop)
    return sum(_rewrite(loop, cap, rows) for loop in loops)
