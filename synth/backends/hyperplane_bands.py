"""synth-hyperplane-bands: a sweep over hyperplanes run by bands of rows (skewed tiling).

The linalg raise of an in-place sweep whose dependences run along both loops
(synth.synthesis.wavefront_linalg; PolyBench's seidel-2d) is an scf.for over the
hyperplanes d = a*i + j of the flattened array, marked `synth.hyperplane = a`; on hyperplane
d the lanes are the rows i_first(d) .. i_last(d),

    i_first = maxsi(l0, ceildivsi(d - X, a))     (X = u1 - 1: the last column)
    i_last  = minsi(R, floordivsi(d - Y, a))     (R = u0 - 1: the last row; Y = l1)

each a strided slice (stride N1 - a) of the flat array. At PolyBench LARGE (2000 x 2000) a
hyperplane spans 1,000 rows of 16 KB: every lane is on its own pages and cache lines, and the
sweep is bound by the TLB and L2 rather than by its arithmetic.

Here the loop runs by bands of B rows: for b = l0, l0 + B, ... up to R, the hyperplanes that
have points in rows b .. b' (b' = min(b + B - 1, R)),

    d from max(first, a*b + Y) to min(last, a*b' + X + 1),

their lanes clamped to the band (i_first -> maxsi(i_first, b), i_last -> minsi(i_last, b')).
This keeps every dependence of the form (synth.synthesis.wavefront): a read of a new value
(a*d0 + d1 >= 1, d0 >= 0) comes from a row at or above, so from an earlier band, or from the
same band on an earlier hyperplane; an old value's writer (a*d0 + d1 <= -1, d0 <= 0) is at
or below, in a later band or later in the same band. Every element gets the same operations
in the same order: the outputs are bitwise the same. A hyperplane's lanes are then computed
one by one in place (`_lanes_as_loop`): the strided generic reading slices of the array it
writes got, after bufferization, a fresh buffer and two copies of its lanes per hyperplane.

B is the most rows whose band, with the rows above and below, fits in half the core's L2
(as synth.backends.wavefront.block_rows), at least 4; a value computed at run time from the
slices' stride where the shape is not static. A row-range bound the loop computes inside
(X, R) is hoisted out (pure index arithmetic on values from outside). Loops not of this
form (no mark, other bounds) are left alone.
"""

from __future__ import annotations

from synth.backends.host import cache_bytes
from synth.backends.ir_toolkit import constant_int, defining, nested_ops, operation, value_within

MARK = "synth.hyperplane"
# the fewest rows per band
MIN_ROWS = 4
_PURE = ("arith.addi", "arith.subi", "arith.muli", "arith.constant", "arith.maxsi", "arith.minsi")


def band_rows(row_bytes: int, l2: int | None = None) -> int:
    """The rows per band: the most B with B + 2 rows of `row_bytes` in half the L2 (`l2`:
    another size than the host's), at least MIN_ROWS."""
    l2 = cache_bytes(2) if l2 is None else l2
    return max(MIN_ROWS, l2 // 2 // max(row_bytes, 1) - 2)


def _outside(value, loop):
    """`value` usable before `loop`: itself where defined outside it, else its defining op
    (pure index arithmetic whose operands are usable outside) moved before the loop; None
    where it is not such a value. An int (a static stride) is itself."""
    if isinstance(value, int) or not value_within(value, loop):
        return value
    op = defining(value)
    if op is None or op.name not in _PURE or op.parent != loop:
        return None
    if any(_outside(v, loop) is None for v in op.operands):
        return None
    op.move_before(loop)
    return value


def _shift(value, counter):
    """S where `value` is d - S (arith.subi), or d + k (arith.addi of a constant: S = -k,
    an int); None otherwise."""
    op = defining(value)
    if op is None or op.name not in ("arith.subi", "arith.addi") or op.operands[0] != counter:
        return None
    if op.name == "arith.subi":
        return op.operands[1]
    k = constant_int(op.operands[1]) if op.name == "arith.addi" else None
    return None if k is None else -k


def _bound(op, clamp: str, divide: str, counter, a: int):
    """(the op, its bound C, the shift S) where `op` is `clamp`(C, `divide`(d - S, a)), either
    operand order, d the loop's counter (the divide folded away where a = 1); else None."""
    if op.name != clamp or len(op.operands) != 2:
        return None
    for k in (0, 1):
        div = defining(op.operands[k])
        if div is not None and div.name == divide and constant_int(div.operands[1]) == a:
            shift = _shift(div.operands[0], counter)
        else:
            shift = _shift(op.operands[k], counter) if a == 1 else None
        if shift is not None:
            return op, op.operands[1 - k], shift
    return None


def _form(loop):
    """(a, i_first op, l0, X, i_last op, R, Y, the slices' stride) of a marked sweep, or None."""
    from mlir import ir

    view = loop.opview
    if MARK not in loop.attributes or constant_int(view.step) != 1 or len(view.initArgs) != 1:
        return None
    a = ir.IntegerAttr(loop.attributes[MARK]).value
    body = loop.regions[0].blocks[0]
    counter = body.arguments[0]
    firsts, lasts, strides = [], [], set()
    for op in body.operations:
        op = operation(op)
        if (found := _bound(op, "arith.maxsi", "arith.ceildivsi", counter, a)) is not None:
            firsts.append(found)
        if (found := _bound(op, "arith.minsi", "arith.floordivsi", counter, a)) is not None:
            lasts.append(found)
        if op.name == "tensor.insert_slice" and op.operands[1] == body.arguments[1]:
            strides.add(_stride(op))
    if len(firsts) != 1 or len(lasts) != 1 or len(strides) != 1 or any(v is None for v in strides):
        return None
    (first, l0, x), (last, r, y) = firsts[0], lasts[0]
    outside = [_outside(v, loop) for v in (l0, x, r, y, next(iter(strides)))]
    if any(v is None for v in outside):
        return None
    l0, x, r, y, stride = outside
    return a, first, l0, x, last, r, y, stride


def _stride(insert):
    """The one stride of a rank-1 tensor.insert_slice, a Value (or an int); None otherwise."""
    from mlir import ir
    from synth.backends.ir_toolkit import mixed

    if ir.RankedTensorType(insert.operands[1].type).rank != 1:
        return None
    return mixed(insert, "strides")[0]


def _lanes_as_loop(loop) -> bool:
    """The generic whose lanes the sweep inserts into its array computed lane by lane in an
    scf.for carrying the array: each lane reads its elements (tensor.extract at the slice's
    offset plus the lane times its stride), computes the payload, and writes its element
    (tensor.insert). The lanes of a hyperplane are independent (no lane writes what another
    reads: that would be a dependence within the hyperplane) and a lane reads its own element
    before writing it, so the values are the same; bufferization then updates the array in
    place, where the generic's strided slices of the array it also writes got a fresh buffer
    for its lanes and two copies per hyperplane."""
    from mlir import ir
    from mlir.dialects import arith, scf, tensor

    from synth.backends.ir_toolkit import clone_into, mixed

    body = loop.regions[0].blocks[0]
    carried = body.arguments[1]
    inserts = [operation(o) for o in body.operations
               if operation(o).name == "tensor.insert_slice" and operation(o).operands[1] == carried]
    generic = defining(inserts[0].operands[0]) if len(inserts) == 1 else None
    if generic is None or generic.name != "linalg.generic" or len(generic.results) != 1 \
            or len(list(generic.opview.outputs)) != 1:
        return False
    pieces = [defining(v) for v in generic.opview.inputs]
    if any(p is None or p.name != "tensor.extract_slice" or ir.RankedTensorType(p.operands[0].type).rank != 1
           for p in pieces):
        return False
    insert = inserts[0]
    payload = generic.regions[0].blocks[0]
    index = ir.IndexType.get()
    with ir.InsertionPoint(insert), insert.location:
        def value(x):
            return arith.constant(index, x) if isinstance(x, int) else x
        lanes = value(mixed(insert, "sizes")[0])
        lane_loop = scf.ForOp(arith.constant(index, 0), lanes, arith.constant(index, 1), iter_args=[carried])
        with ir.InsertionPoint(lane_loop.body):
            p, h = lane_loop.induction_variable, lane_loop.inner_iter_args[0]

            def at(op):
                offset, stride = (value(mixed(op, kind)[0]) for kind in ("offsets", "strides"))
                return arith.addi(offset, arith.muli(p, stride))
            mapping = {}
            for arg, piece in zip(payload.arguments, pieces):
                source = h if piece.operands[0] == carried else piece.operands[0]
                mapping[arg] = tensor.extract(source, [at(piece)])
            where = at(insert)
            out = list(payload.arguments)[-1]
            if any(True for _ in out.uses):
                mapping[out] = tensor.extract(h, [where])
            ops = [operation(o) for o in payload.operations]
            clone_into(ops[:-1], mapping)
            result = ops[-1].operands[0]
            scf.YieldOp([tensor.insert(mapping.get(result, result), h, [where])])
    insert.results[0].replace_all_uses_with(lane_loop.results[0])
    insert.erase()
    generic.erase()
    return True


def _band(loop, rows: int | None) -> bool:
    from mlir import ir
    from mlir.dialects import arith, scf

    form = _form(loop)
    if form is None:
        return False
    a, first, l0, x, last, r, y, stride = form
    view = loop.opview
    index = ir.IndexType.get()
    element = ir.RankedTensorType(view.initArgs[0].type).element_type
    width = max(element.width // 8, 1) if hasattr(element, "width") else 8
    with ir.InsertionPoint(loop), loop.location:
        def c(v):
            return arith.constant(index, v)
        x, y = (c(v) if isinstance(v, int) else v for v in (x, y))
        if rows is not None:
            size = c(rows)
        elif isinstance(stride, int) or constant_int(stride) is not None:
            n1 = (stride if isinstance(stride, int) else constant_int(stride)) + a
            size = c(band_rows(n1 * width))
        else:  # B = max(MIN_ROWS, L2 / 2 / row bytes - 2), the row N1 = stride + a elements
            row_bytes = arith.muli(arith.addi(stride, c(a)), c(width))
            size = arith.maxsi(arith.subi(arith.divsi(c(cache_bytes(2) // 2), row_bytes), c(2)), c(MIN_ROWS))
        bands = scf.ForOp(l0, arith.addi(r, c(1)), size, iter_args=[view.initArgs[0]])
        with ir.InsertionPoint(bands.body):
            b = bands.induction_variable
            b_last = arith.minsi(arith.subi(arith.addi(b, size), c(1)), r)
            lower = arith.maxsi(view.lowerBound, arith.addi(arith.muli(b, c(a)), y))
            upper = arith.minsi(view.upperBound, arith.addi(arith.addi(arith.muli(b_last, c(a)), x), c(1)))
            end = scf.YieldOp([bands.inner_iter_args[0]])
    loop.results[0].replace_all_uses_with(bands.results[0])
    loop.move_before(end)
    end.operands[0] = loop.results[0]
    loop.operands[0], loop.operands[1], loop.operands[3] = lower, upper, bands.inner_iter_args[0]
    for op, bound, clamp in ((first, b, arith.maxsi), (last, b_last, arith.minsi)):
        with ir.InsertionPoint(op), loop.location:
            clamped = clamp(op.results[0], bound)
        defining(clamped).move_after(op)
        op.results[0].replace_all_uses_except(clamped, defining(clamped))
    _lanes_as_loop(loop)
    del loop.attributes[MARK]
    return True


def hyperplane_bands(module, rows: int | None = None) -> int:
    """Run each marked sweep over hyperplanes of `module` (on tensors) by bands of rows
    (module docstring); `rows`: another band size than the host's. The number rewritten."""
    loops = [op for op in nested_ops(module) if op.name == "scf.for" and MARK in op.attributes]
    return sum(_band(loop, rows) for loop in loops)
