"""One pass over a matrix for a matrix-vector and a vector-matrix product that read it.

bicg (`q = A p`, `s = r A`) and mvt (`x1 += A y1`, `x2 += y2 A`) read one matrix twice,
once per product; at PolyBench LARGE it is 30 MB, so each product streams it from memory.
Run row block by row block instead (8 rows of A, ~16 KB per row, stay in the L1/L2
caches between the two), the two products read A from memory once.

This module finds such pairs in a linalg function, `linalg.matvec(A, x)` and
`linalg.vecmat(y, A)` on the same A where neither product depends on the other, moves the
operands of the later one above the earlier one (the function is a dataflow graph of
pure tensor ops, so any topological order computes the same), and tags both ops with the
pair's number. `schedule()` gives the transform sequences that tile both by rows and fuse
the two row loops into one (transform.loop.fuse_sibling). mlir_cpu runs them before its
own tiling, which then vectorizes the matvec tile as any other.

A vecmat that reads the matvec's result (atax: `y = (A x) A`) cannot be a sibling of it;
such a pair is written as one scf.for over row blocks instead (the block's rows of A x,
then their part of y), which yields both results. `fuse_rows` does both, on one parse.
"""

from __future__ import annotations

from dataclasses import dataclass

ROWS = 8  # rows of the matrix per fused step

MATVEC, VECMAT = "synth.rows_mv", "synth.rows_vm"


@dataclass(frozen=True)
class Paired:
    text: str  # the module, rewritten, reordered and tagged (unchanged where nothing matched)
    pairs: tuple[bool, ...]  # one entry per tagged independent pair: whether its matvec comes first
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
            return Paired(text, ())  # the pipeline reports what it cannot read
        pairs: list[bool] = []
        loops = 0
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
            number = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(pairs))
            ops[k].operation.attributes[MATVEC] = number
            ops[j].operation.attributes[VECMAT] = number
            pairs.append(k < j)
        return Paired(str(module) if pairs or loops else text, tuple(pairs), loops)


def _dependent_pair(ops, deps) -> tuple[int, int] | None:
    """Positions of a matvec and a vecmat on its matrix whose vector is the matvec's
    result, where nothing else the vecmat reads depends on that result (`deps`:
    `_dependences(ops)`)."""
    position = {op.operation: k for k, op in enumerate(ops)}
    for j, other in enumerate(ops):
        if other.operation.name != "linalg.vecmat":
            continue
        k = _position(other.operands[0], position)
        if k is None or ops[k].operation.name != "linalg.matvec" or _matrix(ops[k]) != _matrix(other):
            continue
        owners = [_position(v, position) for v in list(other.operands)[1:]]
        if all(m is None or (m != k and k not in deps[m]) for m in owners):
            return k, j
    return None


def _row_loop(ops, deps, k: int, j: int) -> None:
    """Replace matvec ops[k] and vecmat ops[j] by one scf.for over row blocks, built where
    the matvec was (the vecmat's other operands moved above it first)."""
    from mlir import ir
    from mlir.dialects import arith, linalg, scf, tensor

    matvec, vecmat = ops[k], ops[j]
    for m in sorted(deps[j]):
        if m > k and k not in deps[m]:
            ops[m].operation.move_before(matvec.operation)
    a, x, q_init = matvec.operands[0], matvec.operands[1], matvec.operands[2]
    y_init = vecmat.operands[2]
    rows, cols = ir.RankedTensorType(a.type).shape
    element = ir.RankedTensorType(a.type).element_type
    dynamic = ir.ShapedType.get_dynamic_size()
    index = ir.IndexType.get()
    with ir.InsertionPoint(matvec.operation), matvec.location:
        lower, upper, step = (arith.ConstantOp(index, v).result for v in (0, rows, ROWS))
        loop = scf.ForOp(lower, upper, step, [q_init, y_init])
        with ir.InsertionPoint(loop.body):
            i = loop.induction_variable
            q, y = loop.inner_iter_args
            left = arith.SubIOp(upper, i).result
            height = arith.MinSIOp(step, left).result
            block = tensor.ExtractSliceOp(ir.RankedTensorType.get([dynamic, cols], element), a, [i], [height], [],
                                          [dynamic, 0], [dynamic, cols], [1, 1]).result
            part = tensor.ExtractSliceOp(ir.RankedTensorType.get([dynamic], element), q, [i], [height], [],
                                         [dynamic], [dynamic], [1]).result
            product = linalg.matvec(block, x, outs=[part])
            q_next = tensor.InsertSliceOp(product, q, [i], [height], [], [dynamic], [dynamic], [1]).result
            y_next = linalg.vecmat(product, block, outs=[y])
            scf.YieldOp([q_next, y_next])
    matvec.results[0].replace_all_uses_with(loop.results[0])
    vecmat.results[0].replace_all_uses_with(loop.results[1])
    vecmat.operation.erase()
    matvec.operation.erase()


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
  transform.named_sequence @rows_of(%mv: !transform.any_op {transform.consumed},
                                    %vm: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op) {
    %vmg = transform.structured.generalize %vm : (!transform.any_op) -> !transform.any_op
    %vmi = transform.structured.interchange %vmg iterator_interchange = [1, 0] : (!transform.any_op) -> !transform.any_op
    %mvt, %mvl = transform.structured.tile_using_for %mv tile_sizes [@ROWS@, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %vmt, %vml = transform.structured.tile_using_for %vmi tile_sizes [@ROWS@, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.get_parent_op %mvl {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield %mvl, %vml : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @fuse_matvec_first(%mv: !transform.any_op {transform.consumed},
                                              %vm: !transform.any_op {transform.consumed}) {
    %mvl, %vml = transform.include @rows_of failures(propagate) (%mv, %vm) : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f = transform.loop.fuse_sibling %vml into %mvl : (!transform.any_op, !transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @fuse_vecmat_first(%mv: !transform.any_op {transform.consumed},
                                              %vm: !transform.any_op {transform.consumed}) {
    %mvl, %vml = transform.include @rows_of failures(propagate) (%mv, %vm) : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f = transform.loop.fuse_sibling %mvl into %vml : (!transform.any_op, !transform.any_op) -> !transform.any_op
    transform.yield
  }
""".replace("@ROWS@", str(ROWS))


def schedule(pairs: tuple[bool, ...]) -> str:
    """The body of the entry sequence `fuse_rows(%root)` for the tagged pairs: each pair's
    matvec and its vecmat (generalized, loops interchanged so the inner one walks a row)
    tiled by ROWS rows, and the later row loop fused into the earlier one. A pair the
    transforms refuse is left to the usual schedule (failures suppressed)."""
    steps = []
    for n, matvec_first in enumerate(pairs):
        sequence = "fuse_matvec_first" if matvec_first else "fuse_vecmat_first"
        steps.append(
            f"    %mv{n} = transform.structured.match attributes{{{MATVEC} = {n} : i64}} in %root "
            f": (!transform.any_op) -> !transform.any_op\n"
            f"    %vm{n} = transform.structured.match attributes{{{VECMAT} = {n} : i64}} in %root "
            f": (!transform.any_op) -> !transform.any_op\n"
            f"    transform.include @{sequence} failures(suppress) (%mv{n}, %vm{n}) "
            f": (!transform.any_op, !transform.any_op) -> ()")
    return "\n".join(steps)
