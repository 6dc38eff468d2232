"""The form synth.backends.pivot_blocks rewrites: a loop whose step updates each row of its
matrix from that row and row k (`match`: the step's slices of the matrix, classified).
See synth.backends.pivot_blocks for the rewrite."""

from __future__ import annotations

from dataclasses import dataclass

from synth.backends.ir_toolkit import (
    all_parallel, defining, indexing_maps, operation, is_identity_map, mixed, evaluate,
    value_within)

@dataclass
class _Slice:
    op: object  # the tensor.extract_slice
    kind: str  # "column", "row" (of D), "element" (of a column or a row slice)
    index: object  # the column's, row's or element's offset (an int or a Value)
    parent: "_Slice | None" = None  # the slice an element is taken from

@dataclass
class Step:
    """The parts of a matched pivot loop's step: counter, matrix iter_arg, scalar ops, slices
    and the generic that updates the matrix."""
    counter: object
    matrix: object  # the iter_arg
    scalars: list  # the scalar arithmetic ops, in order
    slices: dict  # result Value -> _Slice
    generic: object
    rows_part: object = None  # the 1-d generic over rows hoisted out of `generic` (_hoist), or None
    cols_part: object = None  # the same over columns


_SCALAR_DIALECTS = ("arith",)


def _scalar(op) -> bool:
    from mlir import ir
    return op.name.split(".")[0] in _SCALAR_DIALECTS and all(
        not isinstance(r.type, (ir.RankedTensorType, ir.UnrankedTensorType)) for r in op.results)


def match(loop) -> Step | None:
    """The pivot step of `loop` (an scf.for whose one iter_arg is a static 2-d tensor), or
    None when `loop` does not have that form."""
    from mlir import ir
    body = loop.regions[0].blocks[0]
    args = list(body.arguments)
    if len(args) != 2 or not isinstance(args[1].type, ir.RankedTensorType):
        return None
    t = ir.RankedTensorType(args[1].type)
    if t.rank != 2 or not t.has_static_shape:
        return None
    counter, matrix = args
    rows, cols = t.shape
    scalars, slices, generics, pending, raw = [], {}, [], {}, set()
    ops = [operation(o) for o in body.operations]
    for op in ops[:-1]:
        if op.name in ("arith.constant", "tensor.empty") or _scalar(op):
            if op.name != "tensor.empty":
                scalars.append(op)
            continue
        if op.name == "tensor.extract_slice":
            found = _classify(op, matrix, slices, rows, cols)
            if found is None:
                return None
            # rank-reduced, or with its unit dims, dropped by a collapse_shape (stablehlo_linalg)
            reduced = ir.RankedTensorType(op.results[0].type).rank == (0 if found.kind == "element" else 1)
            (slices if reduced else pending)[op.results[0]] = found
        elif op.name == "tensor.collapse_shape" and op.operands[0] in pending:
            if len(list(op.operands[0].uses)) != 1:
                return None
            raw.add(op.operands[0])
            slices[op.results[0]] = pending.pop(op.operands[0])
        elif op.name == "tensor.extract" and len(op.operands) == 1 and op.operands[0] in slices and \
                slices[op.operands[0]].kind == "element":
            element = slices[op.operands[0]]
            slices[op.results[0]] = _Slice(op, "value", element.index, element.parent)
        elif op.name == "linalg.generic":
            generics.append(op)
        else:
            return None
    yielded = list(ops[-1].operands)
    if not generics or pending or yielded != [generics[-1].results[0]] or generics[-1].results[0].type != matrix.type:
        return None
    generic, parts = generics[-1], generics[:-1]
    for g in generics:
        if not all_parallel(g) or len(g.results) != 1:
            return None
        init = list(g.opview.outputs)[0]
        if defining(init) is None or defining(init).name != "tensor.empty":
            return None
        for o in g.regions[0].blocks[0].operations:
            o = operation(o)
            if o.name.split(".")[0] not in ("arith", "math") and o.name not in ("linalg.yield", "linalg.index"):
                return None
            if any(v in slices and slices[v].kind != "value" for v in o.operands):
                return None
    # the parts (1-d generics over row k's or column k's values, as stablehlo_linalg gives them)
    part_dims = {}
    for value, amap in zip(generic.opview.inputs, indexing_maps(generic)):
        dims = [ir.AffineDimExpr(e).position for e in amap.results if isinstance(e, ir.AffineDimExpr)]
        if len(dims) != len(amap.results):
            return None
        if value == matrix:
            if not is_identity_map(amap):
                return None
        elif value in slices:
            if dims != {"column": [0], "row": [1], "element": []}.get(slices[value].kind):
                return None
        elif any(value == p.results[0] for p in parts):
            if len(dims) != 1:
                return None
            part_dims[operation(defining(value))] = dims[0]
        elif value_within(value, loop):
            return None  # another tensor computed in the step
    if len(part_dims) != len(parts) or sorted(part_dims.values()) not in ([], [0], [1], [0, 1]):
        return None
    for part, dim in part_dims.items():
        if len(list(part.results[0].uses)) != 1:
            return None
        for value, amap in zip(part.opview.inputs, indexing_maps(part)):
            if value == matrix or value not in slices:
                return None
            wanted = {"column": 0, "row": 1}.get(slices[value].kind)
            if len(amap.results) != (0 if wanted is None else 1) or wanted not in (None, dim):
                return None
    users = set(generics)
    for value, s in slices.items():  # the slices feed the generics, elements or payloads
        for use in value.uses:
            user = operation(use.owner)
            if user in users or (user.name in ("tensor.extract_slice", "tensor.collapse_shape", "tensor.extract")
                                 and (user.results[0] in slices or user.results[0] in raw)):
                continue
            if s.kind == "value" and any(_inside_op(user, g) for g in generics):
                continue
            return None
    step = Step(counter, matrix, scalars, slices, generic)
    for part, dim in part_dims.items():
        if dim == 0:
            step.rows_part = part
        else:
            step.cols_part = part
    return step


def _inside_op(op, owner) -> bool:
    """Whether `op` is nested in `owner`."""
    while op is not None:
        if operation(op) == owner:
            return True
        op = operation(op).parent
    return False


def _classify(op, matrix, slices, rows: int, cols: int) -> _Slice | None:
    """A slice of the step's matrix (a column or a row, rank-reduced or not), or an element
    of one of those (0-d or 1-element); None for any other slice."""
    from mlir import ir
    if any(s != 1 for s in ir.DenseI64ArrayAttr(op.attributes["static_strides"])):
        return None
    source, result = op.operands[0], ir.RankedTensorType(op.results[0].type)
    offsets, sizes = mixed(op, "offsets"), mixed(op, "sizes")
    if source == matrix:
        if sizes == [rows, 1] and offsets[0] == 0 and list(result.shape) in ([rows], [rows, 1]):
            return _Slice(op, "column", offsets[1])
        if sizes == [1, cols] and offsets[1] == 0 and list(result.shape) in ([cols], [1, cols]):
            return _Slice(op, "row", offsets[0])
        return None
    parent = slices.get(source)
    if parent is not None and parent.kind in ("column", "row") and sizes == [1] and list(result.shape) in ([], [1]):
        return _Slice(op, "element", offsets[0], parent)
    return None


def pivot_rows(step: Step, lower: int, upper: int, cols: int) -> bool:
    """Whether, for every counter value k, each row slice and each element of a column is
    at row k, each element of a row and each column within the matrix."""
    for k in range(lower, upper):
        cache: dict = {}
        for s in step.slices.values():
            at = evaluate(s.index, step.counter, k, cache)
            if at is None:
                return False
            if s.kind == "row" or (s.kind in ("element", "value") and s.parent.kind == "column"):
                if at != k:
                    return False
            elif not 0 <= at < cols:
                return False
    return True


def columns_at_counter(step: Step, lower: int, upper: int) -> bool:
    """Whether each column slice of the step is column k, for every counter value k."""
    for k in range(lower, upper):
        cache: dict = {}
        if any(evaluate(s.index, step.counter, k, cache) != k for s in step.slices.values() if s.kind == "column"):
            return False
    return True
