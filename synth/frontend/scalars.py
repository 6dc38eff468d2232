"""Local scalars a loop accumulates into become the loop's iter_args (a step of the normal
form, synth.frontend.normalize).

Polygeist keeps a C local that a loop updates (`temp2 += B[k][j] * A[i][k]` in symm, the
norm in gramschmidt, sums in durbin and ludcmp) in a one-element buffer
(`memref.alloca() : memref<f64>` or `memref<1xf64>`): stored before the loop, loaded and
stored back in every iteration, loaded after it. The same loop written with an iter_arg is
the form hand-written kernels and `benchmarks/polybench/` use, and the form synth's
sketches of reductions read: Polygeist's symm was not raised within the default budget
(its accumulator in a buffer), and was in 3 s with the buffer written as an iter_arg.

`accumulators_as_iter_args` rewrites each `affine.for` L (without iter_args) whose body
accesses such a buffer B exactly twice, both in the body's own block: a load, then later a
store. L becomes a loop with one iter_arg: its initial value is what B holds before L (the
value last stored into B in L's block, or a load of B put before L); the load's uses take
the iter_arg; the stored value is yielded. The value L returns is stored into B right after
L, and the loads of B in L's block after it (up to the next op that stores into B or holds
an access of it) take the value itself. A buffer left without loads loses its stores and
its allocation.

`temporaries_forwarded` reads a C local used as a temporary (`int d = a[i] - b[i];
out[i] = d < 0 ? -d : d;`, stored then loaded in the same iteration) as the value stored:
where every load of a one-element buffer follows a store into it in the same block, with
no op touching the buffer between them, each load takes the stored value and the buffer
goes (a buffer read before it is written in an iteration, or after a loop, stays). The loop then carries nothing through the buffer (the all-size proof's dependence
analysis saw one), and the statement sketches read the expression directly.

Each step keeps what every load of B reads, so the function computes what it did.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import affine as affine_d

from synth.frontend.reader import nested_in, walk_ops

_ALLOCS = ("memref.alloca", "memref.alloc")
_LOADS = ("affine.load", "memref.load")
_STORES = ("affine.store", "memref.store")


def _is_scalar_buffer(op) -> bool:
    """A local buffer of one element (memref<T> or memref<1x..x1xT>), no dynamic sizes."""
    if op.name not in _ALLOCS or len(op.operands):
        return False
    t = ir.MemRefType(op.results[0].type)
    return all(d == 1 for d in t.shape)


def _accesses(buf: ir.Value) -> list:
    """The ops that read or write `buf` (None in the list: a use that is neither)."""
    out = []
    for use in buf.uses:
        user = use.owner.operation
        if user.name in _LOADS and use.operand_number == 0:
            out.append(user)
        elif user.name in _STORES and use.operand_number == 1:
            out.append(user)
        else:
            out.append(None)
    return out


def _touches(op, buf_ops: list) -> bool:
    return any(a == op or nested_in(a, op) for a in buf_ops)


def _origin(buf: ir.Value) -> ir.AffineMapAttr:
    """The map of `buf`'s one element: (0, .., 0)."""
    rank = len(ir.MemRefType(buf.type).shape)
    return ir.AffineMapAttr.get(ir.AffineMap.get(0, 0, [ir.AffineConstantExpr.get(0)] * rank))


def _initial(loop, buf: ir.Value, buf_ops: list):
    """What `buf` holds just before `loop`: the value last stored into it in the loop's
    block, or the result of a load of it inserted before the loop."""
    ops = list(loop.block.operations)
    k = next(i for i, o in enumerate(ops) if o.operation == loop)
    for prev in reversed(ops[:k]):
        prev = prev.operation
        if prev.name in _STORES and prev.operands[1] == buf:
            return prev.operands[0]
        if prev.name in _LOADS and prev.operands[0] == buf:
            return prev.results[0]
        if _touches(prev, buf_ops):
            break
    with loop.location:
        load = affine_d.AffineLoadOp(ir.MemRefType(buf.type).element_type, buf, [], _origin(buf),
                                     ip=ir.InsertionPoint(loop))
    return load.result


def _rewrite(loop, buf: ir.Value) -> bool:
    """Make `buf`'s load and store in `loop`'s body an iter_arg; False where they are not
    the only accesses inside the loop, both in its block, load first."""
    buf_ops = _accesses(buf)
    if any(a is None for a in buf_ops) or len(loop.results):
        return False
    inside = [a for a in buf_ops if nested_in(a, loop)]
    body = loop.regions[0].blocks[0]
    if len(inside) != 2 or any(a.block != body for a in inside):
        return False
    order = [o.operation for o in body.operations]
    load, store = sorted(inside, key=lambda a: order.index(a))
    if load.name not in _LOADS or store.name not in _STORES:
        return False
    init = _initial(loop, buf, buf_ops)
    attrs = loop.attributes
    lb_map = ir.AffineMapAttr(attrs["lowerBoundMap"]).value
    ub_map = ir.AffineMapAttr(attrs["upperBoundMap"]).value
    n_lb = lb_map.n_dims + lb_map.n_symbols
    operands = list(loop.operands)
    with loop.location:
        new = affine_d.AffineForOp(lb_map, ub_map, ir.IntegerAttr(attrs["step"]).value, [init],
                                   lower_bound_operands=operands[:n_lb],
                                   upper_bound_operands=operands[n_lb:],
                                   ip=ir.InsertionPoint(loop))
        new_body = new.body
        body.arguments[0].replace_all_uses_with(new_body.arguments[0])
        load.results[0].replace_all_uses_with(new_body.arguments[1])
        value = store.operands[0]
        load.erase()
        store.erase()
        with ir.InsertionPoint(new_body):
            yield_op = affine_d.AffineYieldOp([value])
        for op in list(body.operations):
            if op.operation.name == "affine.yield":
                continue
            op.operation.move_before(yield_op)
        result = new.results[0]
        after = affine_d.AffineStoreOp(result, buf, [], _origin(buf), ip=ir.InsertionPoint(loop))
    loop.erase()
    _forward(after, buf, result)
    return True


def _forward(store, buf: ir.Value, value: ir.Value) -> None:
    """The loads of `buf` in `store`'s block after it take `value`, up to the first other op
    that accesses `buf` (a store, or an op holding an access)."""
    buf_ops = [a for a in _accesses(buf) if a is not None]
    ops = [o.operation for o in store.operation.block.operations]
    k = ops.index(store.operation)
    for op in ops[k + 1:]:
        if op.name in _LOADS and op.operands[0] == buf:
            op.results[0].replace_all_uses_with(value)
            op.erase()
        elif _touches(op, buf_ops):
            break


def accumulators_as_iter_args(block: ir.Block) -> int:
    """Rewrite the loops of `block` (a function body) as above; the number rewritten."""
    count = 0
    buffers = [op.results[0] for op in walk_ops(block) if _is_scalar_buffer(op)]
    for buf in buffers:
        progress = True
        while progress:
            progress = False
            for op in walk_ops(block):
                if op.name == "affine.for" and _rewrite(op, buf):
                    count += 1
                    progress = True
                    break
        accesses = _accesses(buf)
        if all(a is not None for a in accesses) and not any(a.name in _LOADS for a in accesses):
            for a in accesses:
                a.erase()
            buf.owner.erase()
    return count


def _store_before(load, buf: ir.Value, buf_ops: list | None = None):
    """The store into `buf` before `load` in its block with no op writing `buf` between
    them (the store whose value the load reads), or None."""
    buf_ops = buf_ops if buf_ops is not None else [a for a in _accesses(buf) if a is not None]
    ops = [o.operation for o in load.block.operations]
    for op in reversed(ops[:ops.index(load)]):
        if op.name in _STORES and op.operands[1] == buf:
            return op
        if op.name in _LOADS and op.operands[0] == buf:
            continue  # another read of the same value
        if _touches(op, buf_ops):
            return None
    return None


def temporaries_forwarded(block: ir.Block) -> int:
    """Forward the stores into one-element local buffers to the loads after them in their
    block (above), for the buffers whose every load reads a store so (a temporary: no
    value carried from one iteration to the next, none read after a loop); the number of
    buffers removed."""
    count = 0
    for buf in [op.results[0] for op in walk_ops(block) if _is_scalar_buffer(op)]:
        accesses = _accesses(buf)
        if any(a is None for a in accesses) or \
                not all(_store_before(a, buf, accesses) for a in accesses if a.name in _LOADS):
            continue
        # each load takes the value of the store before it (found before anything is erased)
        for load in [a for a in accesses if a.name in _LOADS]:
            load.results[0].replace_all_uses_with(_store_before(load, buf).operands[0])
        for a in _accesses(buf):
            a.erase()
        buf.owner.erase()
        count += 1
    return count
