"""synth-lane-slices: a slice of a slice of an array along one dim taken as one slice of the
array, so synth-lane-blocks sees the lanes a step reads and writes as slices of the arrays.

adi's sweeps (raised by synth.synthesis.recurrence: a counter loop along j whose step works
on the inner lanes 1 .. N-2 of a column or row) read and write the inner part of a line:

    %col = tensor.extract_slice %p[0, %j] [N, 1] [1, 1]      : tensor<NxN> to tensor<N>
    %in  = tensor.extract_slice %col[1] [M] [1]                : tensor<N> to tensor<M>
    ...
    %upd = tensor.insert_slice %v into %col[1] [M] [1]         : tensor<M> into tensor<N>
    %p2  = tensor.insert_slice %upd into %p[0, %j] [N, 1] [1, 1]

taken here as

    %in  = tensor.extract_slice %p[1, %j] [M, 1] [1, 1]      : tensor<NxN> to tensor<M>
    %p2  = tensor.insert_slice %v into %p[1, %j] [M, 1] [1, 1]

The first is a slice's slice (offsets add along the line's dim). The second holds where the
line the insert updates is the line of the same array value at the same offsets (the outer
insert's destination is the inner extract's source, its offsets computed alike): the line's
other elements are written back where they were read. Both are plain identities of tensor
values; nothing else is changed (the old ops, left unused, are erased by canonicalize).
"""

from __future__ import annotations

from synth.backends.ir_toolkit import defining, mixed, ops_named, static_values


def _line(op):
    """(dim, extent) of a slice op taking one line of its array (one size not 1, at static
    offset 0 along it, unit strides) whose small side is rank 1; else None."""
    from mlir import ir
    sizes, strides = static_values(op, "sizes"), static_values(op, "strides")
    if sizes is None or strides is None or any(s != 1 for s in strides):
        return None
    big = [k for k, s in enumerate(sizes) if s != 1]
    small = op.results[0].type if op.name == "tensor.extract_slice" else op.operands[0].type
    if len(big) != 1 or ir.RankedTensorType(small).rank != 1:
        return None
    d = big[0]
    if list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))[d] != 0:
        return None
    return d, sizes[d]


def _part(op, extent: int):
    """(offset, size) of a static unit-stride rank-1 slice op inside a line of `extent`."""
    off, sizes, strides = static_values(op, "offsets"), static_values(op, "sizes"), static_values(op, "strides")
    if off is None or sizes is None or strides != [1] or len(off) != 1 or off[0] + sizes[0] > extent:
        return None
    return off[0], sizes[0]


def _same(a, b, depth: int = 8) -> bool:
    """Whether two index values are computed alike (the same value, or ops of one name and
    attributes on operands computed alike: the clamped counter computed twice)."""
    if a == b:
        return True
    x, y = defining(a), defining(b)
    if depth == 0 or x is None or y is None or x.name != y.name or len(x.regions) or len(x.operands) != len(y.operands):
        return False
    if {k: str(x.attributes[k]) for k in x.attributes} != {k: str(y.attributes[k]) for k in y.attributes}:
        return False
    if list(x.results).index(a) != list(y.results).index(b):
        return False
    return all(_same(p, q, depth - 1) for p, q in zip(x.operands, y.operands))


def same_offsets(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        p == q if isinstance(p, int) or isinstance(q, int) else _same(p, q) for p, q in zip(a, b))


def _moved(line_op, d: int, offset: int, size: int) -> dict:
    """The attributes of `line_op` with its offset and size along `d` made `offset`, `size`."""
    from mlir import ir
    attrs = {k: line_op.attributes[k] for k in line_op.attributes}
    off = list(ir.DenseI64ArrayAttr(attrs["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(attrs["static_sizes"]))
    off[d], sizes[d] = offset, size
    attrs["static_offsets"] = ir.DenseI64ArrayAttr.get(off)
    attrs["static_sizes"] = ir.DenseI64ArrayAttr.get(sizes)
    return attrs


def _dynamic_offsets(op) -> list:
    return list(op.opview.offsets)


def _fold_extract(op) -> bool:
    """extract_slice(extract_slice(A, line), [o] [m]) -> extract_slice(A, the part)."""
    from mlir import ir
    outer = defining(op.operands[0])
    if outer is None or outer.name != "tensor.extract_slice":
        return False
    line = _line(outer)
    part = line and _part(op, line[1])
    if not part:
        return False
    d = line[0]
    attrs = _moved(outer, d, *part)
    dyn = _dynamic_offsets(outer)
    attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, len(dyn), 0, 0])
    with ir.InsertionPoint(op), op.location:
        new = ir.Operation.create("tensor.extract_slice", results=[op.results[0].type],
                                  operands=[outer.operands[0], *dyn], attributes=attrs)
    op.results[0].replace_all_uses_with(new.results[0])
    return True


def _fold_insert(op) -> bool:
    """insert_slice(insert_slice(v into extract_slice(A, line), [o] [m]) into A, line) ->
    insert_slice(v into A, the part), the two lines at offsets computed alike."""
    from mlir import ir
    inner = defining(op.operands[0])
    if inner is None or inner.name != "tensor.insert_slice":
        return False
    read = defining(inner.operands[1])
    line = _line(op)
    if read is None or read.name != "tensor.extract_slice" or line is None or _line(read) != line:
        return False
    part = _part(inner, line[1])
    if not part or read.operands[0] != op.operands[1] or \
            not same_offsets(mixed(read, "offsets"), mixed(op, "offsets")):
        return False
    attrs = _moved(op, line[0], *part)
    dyn = _dynamic_offsets(op)
    attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, 1, len(dyn), 0, 0])
    with ir.InsertionPoint(op), op.location:
        new = ir.Operation.create("tensor.insert_slice", results=[op.results[0].type],
                                  operands=[inner.operands[0], op.operands[1], *dyn], attributes=attrs)
    op.results[0].replace_all_uses_with(new.results[0])
    return True


def lane_slices(module) -> int:
    """Take each slice of a line's slice of `module` as one slice of the array (module
    docstring); the number of slices rewritten."""
    from mlir import passmanager

    count = 0
    for op in ops_named(module, ("tensor.extract_slice",)):
        count += _fold_extract(op)
    for op in ops_named(module, ("tensor.insert_slice",)):
        count += _fold_insert(op)
    if count:
        passmanager.PassManager.parse("builtin.module(canonicalize,cse)").run(module.operation)
    return count
