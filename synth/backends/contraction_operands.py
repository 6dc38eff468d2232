"""An elementwise producer of a contraction's operand stays out of the contraction (mlir-cpu).

mlir_cpu's schedule tiles and vectorizes a matrix product written as a linalg.generic (the
dot_general forms without a named op: C^T C in covariance, a 3-d by 2-d product in doitgen)
where its payload is a multiply and an add (`match_contraction`). Elementwise fusion
(linalg-fuse-elementwise-ops) fuses a single-use elementwise producer of an operand into
its consumer, contractions included: symm raised to stablehlo multiplies B by the lower
triangle of A, `select(j < i, A, 0)`, so after fusion the product's payload holds the
compare and the select, the schedule no longer takes it, and it runs as plain loops that
evaluate the select once per multiply (PolyBench LARGE, AMD EPYC host, one thread: 2.9 s,
against 0.12 s from XLA).

`keep_operands` (stablehlo_linalg runs it before its elementwise fusion) puts a linalg.copy between each such
producer and the contraction. Fusion does not cross a named op, so the producer computes its
operand once (one pass over it), the copy takes another, and the product stays a
contraction the schedule tiles. Only contractions that reuse each operand element across a
parallel dim the operand does not have (rank 3 or 4, the schedule's) are taken; a
matrix-vector product reads each element once, and fusing its producer into it saves a pass
(gemver's A + u1 v1^T + u2 v2^T into y A').
"""

from __future__ import annotations

from synth.backends.ir_toolkit import all_parallel, defining, operation, ops_named


def _contraction(op) -> bool:
    """Whether `op` is a linalg.generic the schedule tiles as a contraction: two inputs and
    one init, rank 3 or 4, the last dim a reduction and the others parallel, a payload that
    adds the product of its two inputs to its init."""
    from mlir import ir

    view = op.opview
    if len(view.inputs) != 2 or len(view.outputs) != 1:
        return False
    kinds = [str(k) for k in ir.ArrayAttr(op.attributes["iterator_types"])]
    if len(kinds) not in (3, 4) or "reduction" not in kinds[-1] or any("reduction" in k for k in kinds[:-1]):
        return False
    body = op.regions[0].blocks[0]
    ops = [operation(o) for o in body.operations]
    if [o.name for o in ops] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    a, b, acc = body.arguments
    mul, add, out = ops
    return ({mul.operands[0], mul.operands[1]} == {a, b} and set(add.operands) == {acc, mul.results[0]}
            and out.operands[0] == add.results[0])


def keep_operands(module) -> int:
    """Put a linalg.copy between each contraction (`_contraction`) and an operand that a
    single-use, all-parallel linalg.generic computes; the number of copies put."""
    from mlir import ir
    from mlir.dialects import arith, linalg, tensor

    count = 0
    for op in ops_named(module, ["linalg.generic"]):
        if not _contraction(op):
            continue
        for position in range(2):
            value = op.operands[position]
            producer = defining(value)
            if (producer is None or producer.name != "linalg.generic" or not all_parallel(producer)
                    or len(list(value.uses)) != 1):
                continue
            shaped = ir.RankedTensorType(value.type)
            with ir.InsertionPoint(op), op.location:
                index = ir.IndexType.get()  # a dynamic dim's size from the operand (a generic raise)
                sizes = [tensor.DimOp(value, arith.ConstantOp(index, k).result).result
                         if shaped.is_dynamic_dim(k) else n for k, n in enumerate(shaped.shape)]
                empty = tensor.EmptyOp(sizes, shaped.element_type).result
                copied = linalg.copy(value, outs=[empty])
            op.operands[position] = copied
            count += 1
    return count
