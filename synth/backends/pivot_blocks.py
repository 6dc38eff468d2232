"""A time loop whose step updates each row from that row and the counter's row runs blocks
of steps per pass over its matrix (mlir-cpu backend).

floyd-warshall, raised to linalg, is a loop over k whose step is one linalg.generic over
the whole matrix D: element (i, j) of the new D from D[i][j], elements of column k (of row
i), row k, and D[k][k] (the in-place order of the original is written out with selects on
i > k and j > k). Each step streams the 31 MB matrix through the caches once: 2800 passes.

Such a step reads row i and the pivot row k alone to compute row i. So a block of T steps
k0 .. k0 + T - 1 can run as:
1. the pivot rows k0 .. k0 + T - 1 (a T-row block), step by step, keeping a copy of row k
   as it is just before step k (P[k - k0]); these rows need each other;
2. every other block of H rows: steps k0 .. k0 + T - 1 in order, step k reading its own
   rows and P[k - k0]. Where the step reads its rows' column k alone, the block runs by
   chunks of W columns (W a multiple of T dividing the columns, H x W elements within
   _CHUNK_BYTES, in L1): first its T pivot columns step by step, recording per step the
   values the step reads by row (column k, before the step, and what is computed from it);
   then the rest of the pivot columns' chunk and every other chunk, each through the T
   steps, from the recorded values.
Row i at step k reads the values the step-by-step loop gives it (its own row, as steps
k0 .. k - 1 left it, and row k just before step k), and every element gets the same
operations in the same order: the results are bitwise the same. The matrix is read from
memory once per T steps, and a chunk of a block from L2 once per T steps.

Taken only in this form (`match`): an scf.for with constant bounds and step 1 carrying one
static 2-d tensor D; its body: scalar arithmetic on the counter, extract_slices of D
(columns: all rows, one column; rows: one row, all columns, at the counter), 0-d slices of
those at the counter (elements of row k), tensor.empty, and one all-parallel linalg.generic
that reads D with the identity map and is yielded. The offsets are evaluated for every
counter value (an interpreter of the index arithmetic): a row slice and an element of a
column must be at row k itself.

Before blocking, the step's payload is split (`_hoist`): the values that depend on the
column index alone and are read from an input (row k's new values: min(D[k][j], D[k][k]' +
D[k][j]), D[k][k]' itself chosen by j > k) move into a 1-d generic over the columns, those
that depend on the row alone (column k's new values) into one over the rows, and the 2-d
generic reads them: per element it is left with min(D[i][j], a + b), a and b each one select
of two loaded values. The blocked loop computes row k's part once per step, while the pivot
rows run (kept in a T x cols table, like the copies of row k), and each block its rows'
part. In a block of phase 2 the selects' conditions are known (`_fold_compares`): its rows
all lie before or all after the pivot rows, and every chunk but the pivot columns' lies
before or after them, so there the payload is the plain min(D[i][j], a + b[j]).

PolyBench floyd-warshall at LARGE (2800 x 2800 i32), the same loop in C (gcc -O3
-march=native, one thread, Intel Xeon host): one pass per step 4.4 s; T = 56, H = 2: 1.34 s
with a plain min-plus step, 2.1-2.5 s with the raised payload (selects per element). The
raised linalg on this backend, one thread, same host (2026-11-27), in alternating processes,
medians of 5 calls:
- one pass per step 5.20, 5.62 s; blocks of whole rows (H = 2), the payload split: 3.45,
  3.84 s; with the chunks and the folded selects (H = 8, W = 280): 2.06, 2.09 s (outputs
  bitwise equal); two more rounds, one pass against chunks: 5.23, 5.34 -> 3.17, 2.69 s.
  Blocks without the split had gained 15% (4.75 -> 4.1 s): the payload cost more than the
  memory traffic saved.
- chunks of the T pivot columns alone (W = T = 56; the rest of the pivot chunk not split
  off, so W columns ran with selects): 2.1-2.4 s at W = 56-140, 2.6 s at W = 280; split off:
  H = 8: W = 280 1.89 s, W = 560 1.71 s, W = 1400 2.31 s; H = 4 or 16 at W = 560: 2.58,
  2.18 s (one run each, a noisy host: W = 280 and 560 alternated 3 times: 2.10, 3.20, 2.79
  and 2.18, 2.65, 2.72 s).
- no faster: the 2-d generic vectorized by the schedule (synth.row2: 2-6x slower; LLVM
  vectorizes the loops by 8 itself), the compares done in i32 instead of i64.
The stablehlo raise lowers (stablehlo_linalg) to another loop: it carries, besides the
matrix, row and column k + 1 and their new values, computed at the end of each step from
the new matrix for the next step (codegen.raised's carried lines, which spare XLA a copy of
the matrix per step). rotation.derotate turns it into the form above (the same ops at the
start of the step, at the counter before, from the matrix; checked), where the blocks then
take the loop. Its step comes split already (two 1-d generics and the 2-d one), with slices
kept at their unit dims and collapsed, and the elements of row k read as scalars in the
payloads; `match` takes those too. floyd-warshall's stablehlo raise at LARGE on this backend, one
thread, alternating processes: 4.56, 4.15 -> 2.52, 1.63 s (outputs bitwise equal, and equal
to the linalg raise's).
"""

from __future__ import annotations

from synth.backends.ir_toolkit import (
    CMPI, holds, constant_int, defining, indexing_maps, operation, ops_named, clone_into,
    feeding, insert_slice, extract_slice, type_shape)
from synth.backends.rotation import derotate
from synth.backends.pivot_match import Step, columns_at_counter, match, pivot_rows  # noqa: F401 (read by tests too)

_MAX_STEPS = 56  # the most steps per block (T): the largest divisor of the trip count up to it
_ROWS = 8  # rows per block in phase 2 (H), where it divides the matrix and T
_CHUNK_BYTES = 16 << 10  # the most bytes of a chunk of a block's rows (phase 2), in L1 (48 KB here)


def _payload_dims(generic) -> dict:
    """Each payload value of a 2-d generic (block arguments and op results) -> the set of
    iteration dims it depends on (through its operands' indexing maps and linalg.index)."""
    from mlir import ir
    block = generic.regions[0].blocks[0]
    dims = {}
    for arg, amap in zip(block.arguments, indexing_maps(generic)):
        dims[arg] = frozenset(ir.AffineDimExpr(e).position for e in amap.results)
    for o in block.operations:
        o = operation(o)
        if o.name == "linalg.index":
            found = frozenset([ir.IntegerAttr(o.attributes["dim"]).value])
        else:
            found = frozenset().union(*(dims.get(v, frozenset()) for v in o.operands))
        for r in o.results:
            dims[r] = found
    return dims


def _build_generic(inputs, in_maps, outputs, ops, yielded, block_args, rank: int, index_dims=None):
    """A new all-parallel linalg.generic of `rank` dims at the current insertion point: its
    payload the clones of `ops` (payload ops of another generic, in order), that generic's
    `block_args` (one per input) standing for the new block's input arguments, and
    `yielded` (values of the old payload) yielded; linalg.index d becomes linalg.index
    index_dims[d]."""
    from mlir import ir
    from mlir.dialects import linalg
    identity = ir.AffineMap.get_identity(rank)
    maps = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in list(in_maps) + [identity] * len(outputs)])
    parallel = ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * rank)
    types = [o.type for o in outputs]
    generic = linalg.GenericOp(types, list(inputs), list(outputs), maps, parallel)
    def element(t):
        return ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t

    block = generic.regions[0].blocks.append(*[element(v.type) for v in list(inputs) + list(outputs)])
    mapping = dict(zip(block_args, list(block.arguments)[:len(inputs)]))
    with ir.InsertionPoint(block):
        for o in ops:
            if o.name == "linalg.index":
                dim = ir.IntegerAttr(o.attributes["dim"]).value
                mapping[o.results[0]] = linalg.IndexOp((index_dims or {}).get(dim, dim)).result
                continue
            clone_into([o], mapping)
        linalg.YieldOp([mapping.get(v, v) for v in yielded])
    return generic


def _hoist(step: Step) -> None:
    """Split the step's generic into a 1-d generic over the rows computing the payload values
    that depend on the row alone, the same over the columns, and the 2-d generic computing the
    rest from them (LICM for the payload: the raised floyd-warshall step computes row k's and
    column k's new values per element, ~3 times the work of the min-plus update itself).
    Values worth a generic only: ones read from an input element (not from the indices alone),
    not i1 (a tensor of i1 does not lower to LLVM here), used by the 2-d part."""
    from mlir import ir
    from mlir.dialects import tensor
    if step.rows_part is not None or step.cols_part is not None:
        return  # split already (stablehlo_linalg's loops)
    generic = step.generic
    block = generic.regions[0].blocks[0]
    dims = _payload_dims(generic)
    n_in = len(generic.opview.inputs)
    args = list(block.arguments)[:n_in]
    shape = ir.RankedTensorType(generic.results[0].type).shape
    ops = [operation(o) for o in block.operations]
    both = [o for o in ops if len(dims[o.results[0]] if o.results else frozenset()) == 2 or o.name == "linalg.yield"]
    hoisted = {0: [], 1: []}
    for o in ops:
        for r in o.results:
            d = dims[r]
            if len(d) != 1 or isinstance(r.type, ir.IntegerType) and ir.IntegerType(r.type).width == 1:
                continue
            if isinstance(r.type, ir.IndexType) or not any(operation(u.owner) in both for u in r.uses):
                continue
            if not any(a in args for f in feeding([r], block) for a in f.operands):
                continue
            hoisted[next(iter(d))].append(r)
    if not hoisted[0] and not hoisted[1]:
        return
    parts, extra, extra_maps, extra_args = {}, [], [], []
    with ir.InsertionPoint(generic), generic.location:
        for d, values in hoisted.items():
            if not values:
                continue
            sliced = feeding(values, block)
            used = [a for a in args if any(a in f.operands for f in sliced)]
            one = lambda a: ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0)] if dims[a] else [])
            outs = [tensor.empty([shape[d]], v.type) for v in values]
            part = _build_generic([generic.opview.inputs[a.arg_number] for a in used], [one(a) for a in used],
                                  outs, sliced, values, used, 1, {d: 0})
            parts[d] = part
            extra += list(part.results)
            extra_maps += [ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(d)])] * len(values)
            extra_args += values
        yielded = list(ops[-1].operands)
        kept = feeding(yielded, block, set(extra_args))
        used = [a for a in args if any(a in f.operands for f in kept)]
        main = _build_generic([generic.opview.inputs[a.arg_number] for a in used] + extra,
                              [indexing_maps(generic)[a.arg_number] for a in used] + extra_maps,
                              list(generic.opview.outputs), kept, yielded, used + extra_args, 2)
    generic.results[0].replace_all_uses_with(main.results[0])
    generic.erase()
    step.generic = operation(main)
    step.rows_part, step.cols_part = (operation(parts[d]) if d in parts else None for d in (0, 1))


def _clone_part(generic, operands: list, shape: list[int], offsets=None):
    """A clone of a step's generic (2-d or a hoisted 1-d part) on `operands` (its inputs,
    then its init replaced by a tensor.empty of `shape`), result typed `shape`; linalg.index
    d offset by offsets[d] (the block's first row, first column) where given."""
    from mlir import ir
    from mlir.dialects import arith, tensor
    outs = list(generic.opview.outputs)
    inits = [tensor.empty(shape, ir.RankedTensorType(o.type).element_type) for o in outs]
    clone = generic.clone(ir.InsertionPoint.current)
    for i, v in enumerate(list(operands) + inits):
        clone.operands[i] = v
    for r, o in zip(clone.results, outs):
        r.set_type(ir.RankedTensorType.get(type_shape(shape), ir.RankedTensorType(o.type).element_type))
    for o in list(clone.regions[0].blocks[0].operations):
        o = operation(o)
        offset = (offsets or {}).get(ir.IntegerAttr(o.attributes["dim"]).value) if o.name == "linalg.index" else None
        if offset is not None:
            uses = [(operation(u.owner), u.operand_number) for u in o.results[0].uses]
            with ir.InsertionPoint.after(o):
                moved = arith.addi(o.results[0], offset)
            for user, n in uses:
                user.operands[n] = moved
    return clone


def _row_inputs(generic) -> list[int]:
    """The positions of a 2-d generic's inputs read by row alone (map (d0, d1) -> (d0))."""
    from mlir import ir
    return [n for n, m in enumerate(indexing_maps(generic)[:len(generic.opview.inputs)])
            if [ir.AffineDimExpr(e).position for e in m.results] == [0]]


_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui")
# arith.cmpi predicates (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge): their value where
# lhs < rhs, and where lhs > rhs (indices and counters are not negative)
_LESS = {n: holds(name, 0, 1) for n, name in CMPI.items()}
_MORE = {n: holds(name, 1, 0) for n, name in CMPI.items()}


def _root(value):
    """`value` seen through integer casts."""
    op = defining(value)
    while op is not None and op.name in _CASTS:
        value = op.operands[0]
        op = defining(value)
    return value


def _is_index(value, dim: int, offset) -> bool:
    """Whether `value` is `linalg.index dim + offset` (as _clone_part offsets an index)."""
    from mlir import ir
    op = defining(value)
    if op is None or op.name != "arith.addi" or op.operands[1] != offset:
        return False
    index = defining(op.operands[0])
    return index is not None and index.name == "linalg.index" and ir.IntegerAttr(index.attributes["dim"]).value == dim


def _fold_compares(generic, dim: int, offset, k, side: int) -> None:
    """Replace the payload's comparisons of its index along `dim` (offset by `offset`) with
    the counter `k` by their value, where every index of the block is below k (`side` -1)
    or above it (+1): the blocks of phase 2 lie wholly before or after the pivot rows, and
    the chunks but the pivot columns' one before or after the pivot columns."""
    from mlir import ir
    from mlir.dialects import arith
    for o in list(generic.regions[0].blocks[0].operations):
        o = operation(o)
        if o.name != "arith.cmpi":
            continue
        a, b = (_root(v) for v in o.operands)
        predicate = ir.IntegerAttr(o.attributes["predicate"]).value
        if _is_index(a, dim, offset) and b == k:
            value = (_LESS if side < 0 else _MORE)[predicate]
        elif a == k and _is_index(b, dim, offset):
            value = (_MORE if side < 0 else _LESS)[predicate]
        else:
            continue
        with ir.InsertionPoint(o):
            constant = arith.constant(ir.IntegerType.get_signless(1), int(value))
        o.results[0].replace_all_uses_with(constant)
        o.erase()


def _apply(step: Step, k, block, first, height: int, pivot, columns_part=None, column=None, width=None,
           given=None, sides=(0, 0)):
    """Step k (an index Value) on `height` rows of the matrix from row `first` (`block`, a
    tensor of those rows; of `width` columns from `column` where given, else whole rows),
    row k being `pivot` (a tensor<cols> of row k before the step): the scalar ops and the
    generics cloned, their counter k. `columns_part`: the results of the step's column part
    (_hoist, whole rows) where computed already; `given`: the values of the 2-d generic's
    row-indexed inputs (_row_inputs) where recorded already (the rows part is then not
    computed). `sides`: where the block's rows and columns lie with respect to k (-1 all
    before, 1 all after, 0 unknown: _fold_compares). Returns the new block, the column part's
    results and the row-indexed inputs."""
    from mlir import ir
    from mlir.dialects import arith, tensor
    cols = ir.RankedTensorType(step.matrix.type).shape[1]
    width = width or cols
    mapping = {step.counter: k}

    def mapped(v):
        return mapping.get(v, v) if not isinstance(v, int) else v

    clone_into(step.scalars, mapping)
    for value, s in step.slices.items():  # the elements of row k read as scalars (in payloads)
        if s.kind == "value":
            at = mapped(s.parent.index) if s.parent.kind == "column" else mapped(s.index)
            mapping[value] = tensor.ExtractOp(extract_slice(pivot, [at], [1], []), []).result

    def operand(value):
        s = step.slices.get(value)
        if value in mapping:
            return mapping[value]
        if value == step.matrix:
            return block
        if s is None:
            return value
        if s.kind == "column":  # at column k (pivot_rows), inside the block where it has k
            at = mapped(s.index) if column is None else arith.subi(mapped(s.index), column)
            return extract_slice(block, [0, at], [height, 1], [height])
        if s.kind == "row":
            return pivot
        at = mapped(s.parent.index) if s.parent.kind == "column" else mapped(s.index)
        return extract_slice(pivot, [at], [1], [])  # an element of row k

    def substituted(clone):
        for o in clone.regions[0].blocks[0].operations:
            o = operation(o)
            for i, v in enumerate(o.operands):
                if v in mapping:
                    o.operands[i] = mapping[v]
        return clone

    if step.cols_part is not None:
        if columns_part is None:
            part = substituted(_clone_part(step.cols_part, [operand(v) for v in step.cols_part.opview.inputs], [cols]))
            columns_part = list(part.results)
        mapping.update(zip(step.cols_part.results, columns_part))
    if step.rows_part is not None and given is None:
        part = _clone_part(step.rows_part, [operand(v) for v in step.rows_part.opview.inputs], [height], {0: first})
        mapping.update(zip(step.rows_part.results, substituted(part).results))
    rows = _row_inputs(step.generic)
    inputs = []
    for n, (value, amap) in enumerate(zip(step.generic.opview.inputs, indexing_maps(step.generic))):
        if given is not None and n in rows:
            inputs.append(given[rows.index(n)])
            continue
        v = operand(value)
        if column is not None and [ir.AffineDimExpr(e).position for e in amap.results] == [1]:
            v = extract_slice(v, [column], [width], [width])  # the block's columns of a row
        inputs.append(v)
    main = _clone_part(step.generic, inputs, [height, width], {0: first, 1: column})
    substituted(main)
    for dim, (offset, side) in enumerate(zip((first, column), sides)):
        if side and offset is not None:
            _fold_compares(main, dim, offset, k, side)
    return main.results[0], columns_part or [], [inputs[n] for n in rows]


def chunk_width(steps: int, cols: int, height: int, element_bytes: int) -> int:
    """The columns of a chunk (phase 2): the widest multiple of `steps` that divides `cols`
    and keeps a chunk of `height` rows within _CHUNK_BYTES; `cols` where none does."""
    fits = [w for w in range(steps, cols, steps) if cols % w == 0 and w * height * element_bytes <= _CHUNK_BYTES]
    return max(fits) if fits else cols


def steps_per_block(trips: int, cap: int = _MAX_STEPS) -> int:
    """The largest divisor of `trips` up to `cap` (1 where none above 1 is)."""
    return max(t for t in range(1, min(cap, trips) + 1) if trips % t == 0)


def _rewrite(loop, cap: int) -> bool:
    from mlir import ir
    from mlir.dialects import arith, scf, tensor
    view = loop.opview
    lower, upper, stride = (constant_int(v) for v in (view.lowerBound, view.upperBound, view.step))
    if None in (lower, upper, stride) or stride != 1 or upper - lower < 4:
        return False
    step = match(loop)
    if step is None:
        return False
    rows, cols = ir.RankedTensorType(step.matrix.type).shape
    if lower < 0 or upper > rows or not pivot_rows(step, lower, upper, cols):
        return False
    steps = steps_per_block(upper - lower, cap)
    if steps < 2:
        return False
    height = _ROWS if rows % _ROWS == 0 and steps % _ROWS == 0 and lower % _ROWS == 0 else 1
    # the other rows' blocks run by chunks of T columns where the chunks tile the columns and
    # the step reads its block's column k alone (its pivot columns are then one chunk)
    width = chunk_width(steps, cols, height, ir.RankedTensorType(step.matrix.type).element_type.width // 8) \
        if lower % steps == 0 and columns_at_counter(step, lower, upper) else cols
    chunked = width < cols
    _hoist(step)
    index = ir.IndexType.get()
    element = ir.RankedTensorType(step.matrix.type).element_type
    table_types = [ir.RankedTensorType(r.type).element_type for r in step.cols_part.results] \
        if step.cols_part is not None else []
    for op in step.scalars:
        if op.name == "arith.constant":
            op.move_before(loop)  # for the clones
    step.scalars = [op for op in step.scalars if op.name != "arith.constant"]
    with ir.InsertionPoint(loop), loop.location:
        def c(v):
            return arith.constant(index, v)

        blocks = scf.ForOp(c(lower), c(upper), c(steps), iter_args=list(view.initArgs))
        with ir.InsertionPoint(blocks.body):
            first, matrix = blocks.induction_variable, blocks.inner_iter_args[0]
            pivots = extract_slice(matrix, [first, 0], [steps, cols], [steps, cols])
            saved = tensor.empty([steps, cols], element)
            tables = [tensor.empty([steps, cols], t) for t in table_types]
            own = scf.ForOp(c(0), c(steps), c(1), iter_args=[pivots, saved] + tables)
            with ir.InsertionPoint(own.body):
                s = own.induction_variable
                current, kept, *tables = own.inner_iter_args
                k = arith.addi(first, s)
                pivot = extract_slice(current, [s, 0], [1, cols], [cols])
                kept = insert_slice(pivot, kept, [s, 0], [1, cols])
                updated, parts, _ = _apply(step, k, current, first, steps, pivot)
                tables = [insert_slice(p, t, [s, 0], [1, cols]) for p, t in zip(parts, tables)]
                scf.YieldOp([updated, kept] + tables)
            matrix = insert_slice(own.results[0], matrix, [first, 0], [steps, cols])
            kept, *tables = list(own.results)[1:]

            row_types = [ir.RankedTensorType(list(step.generic.opview.inputs)[n].type).element_type
                         for n in _row_inputs(step.generic)]

            def chunk(block, r, c0, size, recorded, sides):
                """Steps first .. first + T - 1 on the `size` columns of a row block from c0, its
                row-indexed values `recorded` (T x H tables)."""
                part = extract_slice(block, [0, c0], [height, size], [height, size])
                inner = scf.ForOp(c(0), c(steps), c(1), iter_args=[part])
                with ir.InsertionPoint(inner.body):
                    s = inner.induction_variable
                    pivot = extract_slice(kept, [s, 0], [1, cols], [cols])
                    parts = [extract_slice(t, [s, 0], [1, cols], [cols]) for t in tables]
                    given = [extract_slice(t, [s, 0], [1, height], [height]) for t in recorded]
                    updated, _, _ = _apply(step, arith.addi(first, s), inner.inner_iter_args[0], r, height,
                                           pivot, parts or None, c0, size, given, sides)
                    scf.YieldOp([updated])
                return insert_slice(inner.results[0], block, [0, c0], [height, size])

            def columns(block, r, start, stop, recorded, sides):
                """`chunk` on the columns [start, stop) by chunks of `width`."""
                chunks = scf.ForOp(start, stop, c(width), iter_args=[block])
                with ir.InsertionPoint(chunks.body):
                    scf.YieldOp([chunk(chunks.inner_iter_args[0], r, chunks.induction_variable, width, recorded,
                                       sides)])
                return chunks.results[0]

            def others(matrix, start, stop, side):
                sweep = scf.ForOp(start, stop, c(height), iter_args=[matrix])
                with ir.InsertionPoint(sweep.body):
                    r = sweep.induction_variable
                    block = extract_slice(sweep.inner_iter_args[0], [r, 0], [height, cols], [height, cols])
                    # the pivot columns first (all of the rows where not chunked), their
                    # row-indexed values recorded per step for the other chunks
                    sub = extract_slice(block, [0, first], [height, steps], [height, steps]) if chunked else block
                    recorded = [tensor.empty([steps, height], t) for t in row_types] if chunked else []
                    inner = scf.ForOp(c(0), c(steps), c(1), iter_args=[sub] + recorded)
                    with ir.InsertionPoint(inner.body):
                        s = inner.induction_variable
                        current, *recorded = inner.inner_iter_args
                        pivot = extract_slice(kept, [s, 0], [1, cols], [cols])
                        parts = [extract_slice(t, [s, 0], [1, cols], [cols]) for t in tables]
                        updated, _, values = _apply(step, arith.addi(first, s), current, r, height, pivot,
                                                    parts or None, first if chunked else None,
                                                    steps if chunked else None, sides=(side, 0))
                        recorded = [insert_slice(v, t, [s, 0], [1, height]) for v, t in zip(values, recorded)]
                        scf.YieldOp([updated] + recorded)
                    if chunked:  # then the rest of the pivot columns' chunk, and the other chunks
                        block = insert_slice(inner.results[0], block, [0, first], [height, steps])
                        recorded = list(inner.results)[1:]
                        start = arith.muli(arith.divui(first, c(width)), c(width))
                        stop = arith.addi(start, c(width))
                        after = arith.addi(first, c(steps))
                        block = chunk(block, r, start, arith.subi(first, start), recorded, (side, -1))
                        block = chunk(block, r, after, arith.subi(stop, after), recorded, (side, 1))
                        block = columns(block, r, c(0), start, recorded, (side, -1))
                        block = columns(block, r, stop, c(cols), recorded, (side, 1))
                    else:
                        block = inner.results[0]
                    scf.YieldOp([insert_slice(block, sweep.inner_iter_args[0], [r, 0], [height, cols])])
                return sweep.results[0]

            matrix = others(matrix, c(0), first, -1)  # rows before every pivot of the block
            matrix = others(matrix, arith.addi(first, c(steps)), c(rows), 1)  # rows after
            scf.YieldOp([matrix])
    loop.results[0].replace_all_uses_with(blocks.results[0])
    loop.erase()
    return True


def pivot_blocks(module, cap: int = _MAX_STEPS) -> int:
    """Rewrite the pivot-row time loops of `module` (an ir.Module on tensors, after
    elementwise fusion) to run blocks of steps per pass (module docstring); the number
    rewritten. `cap`: the most steps per block."""
    count = 0
    for loop in ops_named(module, ("scf.for",)):
        if loop.parent is not None:
            count += _rewrite(derotate(loop, lambda new: match(new) is not None) or loop, cap)
    return count
