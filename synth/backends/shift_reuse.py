"""Shifted reads of a stencil share their loads (mlir-cpu backend, a stage after the tiles
are vectorized, on tensors).

A vectorized stencil loop over a row reads the same row at several shifts per tile of W
elements: jacobi-1d's `B[i] = c * (A[i-1] + A[i] + A[i+1])` reads A[i-1 : i+7], A[i : i+8]
and A[i+1 : i+9] per tile of 8, two of them unaligned, each a separate load. `shift_reuse`
rewrites such a loop to load the row once per tile: the loop carries the vector
v = A[i + c0 : i + c0 + W] (c0 the least shift), loads the next one, w = A[i + c0 + W :
i + c0 + 2W], and makes each shifted read a vector.shuffle of v and w (LLVM lowers it to a
lane shift such as valignq); w is the next tile's v. The values are the same elements, so
the results are bitwise the same. The loop's last tile keeps its own reads (the original
loop, left to run one step after the new one): w would read past the row there.

Taken: an scf.for with constant bounds and step W, at least two tiles, whose body reads
(vector.transfer_read, all in bounds, identity map) a tensor defined outside the loop at
indices defined outside it but the last, which is the counter plus a constant c, the
vector's shape R x 1 x ... x 1 x W, at two or more shifts no further apart than W. R > 1
rows (the wavefront's blocks of rows) are shuffled row by row: one vector.shuffle of the two
tiles flattened (`_lanes`). A read of a
value inserted (tensor.insert_slice) into such a tensor counts as a read of that tensor at
the insert's offset (the second sweep of jacobi-1d reads B's new interior that way).

PolyBench LARGE jacobi-1d, AMD EPYC host, one thread (the same in C with AVX-512
intrinsics: the loops' 0.40-0.41 ms -> 0.29-0.30 ms, bitwise equal): see mlir_cpu.
"""

from __future__ import annotations

from synth.backends.ir_toolkit import constant_int, defining, operation, ops_named


def _shift(index, iv) -> int | None:
    """c where `index` is `iv` + c (the counter itself, an arith.addi of it and a constant,
    or an affine.apply of a map s0 + c or d0 + c to it); None otherwise."""
    from mlir import ir
    if index == iv:
        return 0
    op = defining(index)
    if op is None:
        return None
    if op.name == "arith.addi":
        a, b = op.operands
        if a == iv and constant_int(b) is not None:
            return constant_int(b)
        if b == iv and constant_int(a) is not None:
            return constant_int(a)
        return None
    if op.name != "affine.apply" or len(op.operands) != 1 or op.operands[0] != iv:
        return None
    amap = ir.AffineMapAttr(op.attributes["map"]).value
    if len(amap.results) != 1:
        return None
    expr = amap.results[0].maybe_downcast()
    leaf = (ir.AffineDimExpr, ir.AffineSymbolExpr)
    if isinstance(expr, leaf):
        return 0
    if not isinstance(expr, ir.AffineAddExpr):
        return None
    lhs, rhs = expr.lhs.maybe_downcast(), expr.rhs.maybe_downcast()
    if isinstance(lhs, ir.AffineConstantExpr):
        lhs, rhs = rhs, lhs
    if not isinstance(lhs, leaf) or not isinstance(rhs, ir.AffineConstantExpr):
        return None
    return rhs.value


def _outside(value, loop) -> bool:
    """Whether `value` is defined outside `loop` (not in its body, not its block args)."""
    from mlir import ir
    owner = value.owner
    if isinstance(owner, ir.Block):
        return owner != loop.regions[0].blocks[0]
    parent = operation(owner)
    while parent is not None:
        if parent == loop:
            return False
        parent = parent.parent
    return True


def _through_insert(source, offsets: list[int]):
    """(tensor, offsets) for a read of `source` where `source` is the value a
    tensor.insert_slice (static offsets, unit strides, the whole value) puts into a tensor:
    the read is one of that tensor, at the offsets moved by the insert's. Else as given."""
    from mlir import ir
    for use in source.uses:
        user = operation(use.owner)
        if user.name != "tensor.insert_slice" or user.operands[0] != source:
            continue
        if len(user.operands) != 2:  # dynamic offsets, sizes or strides
            continue
        static = list(ir.DenseI64ArrayAttr(user.attributes["static_offsets"]))
        strides = list(ir.DenseI64ArrayAttr(user.attributes["static_strides"]))
        sizes = list(ir.DenseI64ArrayAttr(user.attributes["static_sizes"]))
        if any(s != 1 for s in strides) or sizes != list(ir.RankedTensorType(source.type).shape):
            continue
        return user.results[0], [o + s for o, s in zip(offsets, static)]
    return source, offsets


def _reads(loop, iv, width: int) -> dict:
    """The body's reads that qualify, grouped: (tensor, outer index values) -> [(read op,
    shift)]."""
    from mlir import ir
    groups: dict = {}
    for op in loop.regions[0].blocks[0].operations:
        op = operation(op)
        if op.name != "vector.transfer_read":
            continue
        vtype = ir.VectorType(op.results[0].type)
        source = op.operands[0]
        if not isinstance(source.type, ir.RankedTensorType):
            continue
        rank = ir.RankedTensorType(source.type).rank
        shape = list(vtype.shape)
        if rank == 0 or len(shape) != rank or shape[-1] != width or any(s != 1 for s in shape[1:-1]):
            continue
        if len(op.operands) != rank + 2:  # a mask
            continue
        if not all(ir.BoolAttr(b).value for b in ir.ArrayAttr(op.attributes["in_bounds"])):
            continue
        pmap = ir.AffineMapAttr(op.attributes["permutation_map"]).value
        if pmap != ir.AffineMap.get_minor_identity(rank, rank):
            continue
        indices = list(op.operands[1:1 + rank])
        c = _shift(indices[-1], iv)
        if c is None or not all(_outside(v, loop) for v in indices[:-1]):
            continue
        tensor, moved = _through_insert(source, [0] * rank)
        if tensor is not source and any(m != 0 for m in moved[:-1]):
            tensor, moved = source, [0] * rank  # (an outer offset would need new index values)
        if not _outside(tensor, loop):
            continue
        key = (tensor, tuple(indices[:-1]))
        groups.setdefault(key, []).append((op, c + moved[-1]))
    return groups


def _lanes(rows: int, width: int, d: int) -> list[int]:
    """The vector.shuffle mask that takes, from two vectors of `rows` rows of `width` lanes
    flattened (v, then w), each row's lanes d .. d + width - 1 of v's row followed by w's."""
    n = rows * width
    return [h * width + l + d if l + d < width else n + h * width + l + d - width
            for h in range(rows) for l in range(width)]


def _rewrite(loop) -> bool:
    from mlir import ir
    from mlir.dialects import arith, scf, vector

    from synth.backends.ir_toolkit import clone_into

    view = loop.opview
    lb, ub, step = (constant_int(v) for v in (view.lowerBound, view.upperBound, view.step))
    if None in (lb, ub, step) or step < 2 or (ub - lb) % step or (ub - lb) // step < 2:
        return False
    body = loop.regions[0].blocks[0]
    iv = body.arguments[0]
    groups = {k: v for k, v in _reads(loop, iv, step).items()
              if len({c for _, c in v}) >= 2 and max(c for _, c in v) - min(c for _, c in v) <= step}
    if not groups:
        return False
    index = ir.IndexType.get()
    n_carried = len(view.initArgs)
    with ir.InsertionPoint(loop), loop.location:
        firsts = []
        for (tensor, outer), reads in groups.items():
            low = min(c for _, c in reads)
            at = arith.constant(index, lb + low)
            first = reads[0][0].clone(ir.InsertionPoint.current)
            first.operands[0] = tensor
            first.operands[len(outer) + 1] = at
            firsts.append(first.results[0])
        new = scf.ForOp(view.lowerBound, arith.constant(index, ub - step), view.step,
                        iter_args=list(view.initArgs) + firsts)
    with ir.InsertionPoint(new.body), loop.location:
        niv = new.induction_variable
        mapping = {iv: niv}
        for old_arg, new_arg in zip(list(body.arguments)[1:], list(new.inner_iter_args)[:n_carried]):
            mapping[old_arg] = new_arg
        nexts = []
        for g, ((tensor, outer), reads) in enumerate(groups.items()):
            low = min(c for _, c in reads)
            vtype = ir.VectorType(reads[0][0].results[0].type)
            rows = vtype.shape[0] if vtype.rank > 1 else 1
            flat = ir.VectorType.get([rows * step], vtype.element_type)
            here = new.inner_iter_args[n_carried + g]
            at = arith.addi(niv, arith.constant(index, low + step))
            ahead = reads[0][0].clone(ir.InsertionPoint.current)
            ahead.operands[0] = tensor
            ahead.operands[len(outer) + 1] = at
            nexts.append(ahead.results[0])
            a = here if vtype.rank == 1 else vector.shape_cast(flat, here)
            b = ahead.results[0] if vtype.rank == 1 else vector.shape_cast(flat, ahead.results[0])
            for op, c in reads:
                d = c - low
                if d == 0:
                    value = here
                elif d == step:
                    value = ahead.results[0]
                else:
                    shuffled = vector.shuffle(a, b, _lanes(rows, step, d))
                    value = shuffled if vtype.rank == 1 else vector.shape_cast(vtype, shuffled)
                mapping[op.results[0]] = value
        replaced = [op for reads in groups.values() for op, _ in reads]
        ops = [operation(o) for o in body.operations]
        clone_into([o for o in ops[:-1] if not any(o == r for r in replaced)], mapping)
        terminator = ops[-1]
        scf.YieldOp([mapping.get(v, v) for v in terminator.operands] + nexts)
    # the original loop runs the last tile, on the new loop's values
    with ir.InsertionPoint(loop), loop.location:
        last = arith.constant(index, ub - step)
    loop.operands[0] = last
    for i in range(n_carried):
        loop.operands[3 + i] = new.results[i]
    return True


def shift_reuse(module) -> int:
    """Rewrite the vectorized loops of `module` (an ir.Module, on tensors) whose tiles read
    one row at several shifts to load it once per tile (module docstring); the number
    rewritten."""
    loops = [loop for loop in ops_named(module, ("scf.for",)) if loop.parent is not None]
    return sum(_rewrite(loop) for loop in loops)
