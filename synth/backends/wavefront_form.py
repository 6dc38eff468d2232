"""The form synth.backends.wavefront rewrites: a stencil time loop whose step updates its
carried arrays by generics over row ranges (`loop_updates`), and the lags between the updates
(`lags`). See synth.backends.wavefront for the rewrite."""

from __future__ import annotations

from dataclasses import dataclass, field

from synth.backends.ir_toolkit import (
    static_values, op_within, all_parallel, defining, indexing_maps, operation,
    is_identity_map)


@dataclass
class _Update:
    generic: object  # the linalg.generic over the update's range
    array: int  # the iter_arg it is inserted into
    offsets: list[int]  # where, in the array
    shape: list[int]
    # (array, offsets, this step's value); offsets None: element 0 of a queue (`_rotation`)
    reads: list[tuple[int, list[int] | None, bool]] = field(default_factory=list)


def plain_slice(op) -> bool:
    """A slice op with constant offsets and sizes, strides 1, not rank-reducing."""
    from mlir import ir
    if static_values(op, "offsets") is None or static_values(op, "sizes") is None:
        return False
    if any(s != 1 for s in ir.DenseI64ArrayAttr(op.attributes["static_strides"])):
        return False
    small, big = (op.results[0], op.operands[0]) if op.name == "tensor.extract_slice" else (op.operands[0], op.operands[1])
    return ir.RankedTensorType(small.type).rank == ir.RankedTensorType(big.type).rank


def identity_maps(generic) -> bool:
    """Whether every indexing map of `generic` is the identity."""
    return all(map(is_identity_map, indexing_maps(generic)))


def _pure_payload(generic, loop) -> bool:
    """Whether the payload is scalar arithmetic on its arguments and values from outside
    `loop` (no linalg.index, no tensor reads)."""
    from mlir import ir
    for o in generic.regions[0].blocks[0].operations:
        o = operation(o)
        if o.name.split(".")[0] not in ("arith", "math") and o.name != "linalg.yield":
            return False
        for v in o.operands:
            owner = v.owner
            if isinstance(owner, ir.Block):
                if owner != generic.regions[0].blocks[0]:
                    return False
            elif op_within(operation(owner), loop) and operation(owner).parent != generic:
                return False
    return True


def _rotation(body, queue, yielded) -> list | None:
    """The ops of `body` that rotate the rank-1 iter_arg `queue` left by one (element 0
    moved to the end: extract_slices [1, n) and [0, 1), each copied or not, inserted at 0
    and n - 1), ending in `yielded`, in body order; None when `yielded` is not that."""
    from mlir import ir

    n = ir.RankedTensorType(queue.type).shape[0]

    def part(value, offset: int, size: int) -> list | None:
        op = defining(value)
        ops = []
        if op is not None and op.name == "linalg.copy":
            empty = defining(list(op.opview.outputs)[0])
            if empty is None or empty.name != "tensor.empty":
                return None
            ops, op = [op, empty], defining(list(op.opview.inputs)[0])
        if op is None or op.name != "tensor.extract_slice" or op.operands[0] != queue or not plain_slice(op) \
                or static_values(op, "offsets") != [offset] or static_values(op, "sizes") != [size]:
            return None
        return ops + [op]

    last = defining(yielded)
    if n < 2 or last is None or last.name != "tensor.insert_slice" or not plain_slice(last) \
            or static_values(last, "offsets") != [n - 1] or static_values(last, "sizes") != [1]:
        return None
    first = defining(last.operands[1])
    if first is None or first.name != "tensor.insert_slice" or first.operands[1] != queue or not plain_slice(first) \
            or static_values(first, "offsets") != [0] or static_values(first, "sizes") != [n - 1]:
        return None
    head, tail = part(last.operands[0], 0, 1), part(first.operands[0], 1, n - 1)
    if head is None or tail is None:
        return None
    mine = [last, first] + head + tail
    for op in mine[1:]:  # used by the rotation only
        if any(operation(use.owner) not in mine for use in op.results[0].uses):
            return None
    order = [operation(o) for o in body.operations]
    return sorted(mine, key=order.index)


def _queue_read(generic, position: int) -> bool:
    """Whether operand `position` of `generic` is read at element 0 only (a map to (0))."""
    from mlir import ir
    results = ir.AffineMapAttr(list(generic.attributes["indexing_maps"])[position]).value.results
    return len(results) == 1 and str(results[0]) == "0"


def _scalar_read(generic, position: int) -> bool:
    """Whether operand `position` of `generic` is a rank-0 tensor (a map to ())."""
    from mlir import ir
    return len(ir.AffineMapAttr(list(generic.attributes["indexing_maps"])[position]).value.results) == 0


def _head_slice(op) -> bool:
    """Whether `op` (a tensor.extract_slice) takes element 0 of a rank-1 tensor as a rank-0
    one (a shape-generic raise made static reads a queue's head so)."""
    from mlir import ir
    return (static_values(op, "offsets") == [0] and static_values(op, "sizes") == [1]
            and ir.RankedTensorType(op.results[0].type).rank == 0)


def loop_updates(loop) -> tuple[list[_Update], dict[int, list]] | None:
    """The updates of the step of `loop` (an scf.for), in order, and the rotations of its
    queues (iter_arg -> its ops); None when the loop is not of the form the module
    docstring names."""
    from mlir import ir
    body = loop.regions[0].blocks[0]
    if len(list(body.arguments[0].uses)):
        return None  # the counter is read
    carried = list(body.arguments)[1:]
    ops = [operation(o) for o in body.operations]
    yielded = list(ops[-1].operands)
    queues: dict[int, list] = {}
    for i, a in enumerate(carried):
        if not isinstance(a.type, ir.RankedTensorType):
            return None
        if ir.RankedTensorType(a.type).rank == 1:
            rotation = _rotation(body, a, yielded[i])
            if rotation is None:
                return None
            queues[i] = rotation
        elif ir.RankedTensorType(a.type).rank < 2:
            return None
    if len(queues) == len(carried):
        return None
    rotating = [o for ops_ in queues.values() for o in ops_]
    version = {a: i for i, a in enumerate(carried)}  # a value of an array -> the array
    latest = list(carried)
    written: dict[int, list[tuple[int, int]]] = {}  # array -> the rows its updates wrote so far
    slices: dict = {}  # extract_slice result -> (array, offsets, this step's value)
    placed: dict = {}  # generic result -> its update
    updates: list[_Update] = []
    pending: dict = {}
    heads: dict = {}  # a queue's element 0 as a rank-0 tensor -> the queue
    for op in ops[:-1]:
        if op.name in ("arith.constant", "tensor.empty") or op in rotating:
            continue
        if op.name == "tensor.extract_slice" and op.operands[0] in version and version[op.operands[0]] in queues \
                and _head_slice(op):
            heads[op.results[0]] = version[op.operands[0]]
            continue
        if op.name == "tensor.extract_slice":
            source = op.operands[0]
            if source not in version or version[source] in queues or not plain_slice(op):
                return None
            array = version[source]
            if source != latest[array]:
                return None  # an older value of an array written since
            slices[op.results[0]] = (array, static_values(op, "offsets"), array in written)
        elif op.name == "linalg.generic":
            if len(op.results) != 1 or not all_parallel(op):
                return None
            init = list(op.opview.outputs)[0]
            if defining(init) is None or defining(init).name != "tensor.empty" or not _pure_payload(op, loop):
                return None
            shape = list(ir.RankedTensorType(op.results[0].type).shape)
            maps = indexing_maps(op)
            reads = []
            for position, v in enumerate(op.opview.inputs):
                if (v in version and version[v] in queues and _queue_read(op, position)) or \
                        (v in heads and _scalar_read(op, position)):
                    reads.append((version[v] if v in version else heads[v], None, False))
                    continue
                if not is_identity_map(maps[position]):
                    return None
                if v in slices:
                    reads.append(slices[v])
                elif v in placed:
                    u = placed[v]
                    reads.append((u.array, u.offsets, True))
                else:
                    return None
                if list(ir.RankedTensorType(v.type).shape) != shape:
                    return None
            if not is_identity_map(maps[-1]):
                return None
            pending[op.results[0]] = (op, shape, reads)
        elif op.name == "tensor.insert_slice":
            source, dest = op.operands[0], op.operands[1]
            if source not in pending or dest not in version or version[dest] in queues or not plain_slice(op):
                return None
            array = version[dest]
            if dest != latest[array]:
                return None
            generic, shape, reads = pending.pop(source)
            offsets = static_values(op, "offsets")
            if static_values(op, "sizes") != shape:
                return None
            rows = (offsets[0], offsets[0] + shape[0])
            if any(lo < rows[1] and rows[0] < hi for lo, hi in written.get(array, [])):
                return None  # an array's updates in a step write disjoint rows
            if array in written and any(a == array for v in updates if v.array != array for a, _, _ in v.reads):
                return None  # read between two of its updates: part old, part new in the step
            # its own array, read in its own rows: the previous step's value there
            reads = [(a, o, False) if a == array and o is not None and this and rows[0] <= o[0]
                     and o[0] + shape[0] <= rows[1] else (a, o, this) for a, o, this in reads]
            if any(a == array and this for a, _, this in reads):
                return None
            update = _Update(generic, array, offsets, shape, reads)
            written.setdefault(array, []).append(rows)
            updates.append(update)
            placed[source] = update
            version[op.results[0]] = array
            latest[array] = op.results[0]
        else:
            return None
    if pending or not updates:
        return None
    for i, a in enumerate(carried):
        if i not in queues and yielded[i] != latest[i]:
            return None
    for u in updates:  # a generic's only uses: its insert and reads of it by later updates
        for use in u.generic.results[0].uses:
            if operation(use.owner).name not in ("tensor.insert_slice", "linalg.generic"):
                return None
    return updates, queues


def lags(updates: list[_Update]) -> tuple[list[int], int] | None:
    """(l_k per update, P per step), the least that keep the step-by-step order of reads and
    writes (module docstring); None where an update reads rows of its own array above it.
    The updates of one array (disjoint rows: fdtd-2d's boundary row and stencil of ey) share
    one lag, found by raising the lags until every constraint holds."""
    first = {}
    for k, u in enumerate(updates):
        first.setdefault(u.array, k)
    lag = {a: 0 for a in first}
    for _ in range(4 * len(updates) + 4):
        changed = False
        for k, u in enumerate(updates):
            low = lag[u.array]
            for array, offsets, this_step in u.reads:
                if offsets is None or array not in first:
                    continue  # a queue, or read only
                d = offsets[0] - u.offsets[0]
                if this_step:  # written earlier in this step (by another array's updates)
                    low = max(low, lag[array] + d)
                elif array == u.array and d < 0:
                    return None
                elif array != u.array and first[array] < k:
                    return None  # (loop_updates gives this step's value once the array is written)
            for i in range(k):  # earlier updates reading the array this one writes, previous step's value
                for array, offsets, this_step in updates[i].reads:
                    if array == u.array and offsets is not None and not this_step:
                        low = max(low, lag[updates[i].array] - (offsets[0] - updates[i].offsets[0]))
            if low > lag[u.array]:
                lag[u.array], changed = low, True
        if not changed:
            break
    else:
        return None
    ls = [lag[u.array] for u in updates]
    period = 0
    for k, u in enumerate(updates):
        for array, offsets, this_step in u.reads:
            if offsets is None or array not in first:
                continue
            d = offsets[0] - u.offsets[0]
            if this_step:
                period = max(period, ls[k] - lag[array] - d)
            else:
                if lag[array] + d < ls[k]:
                    return None  # (cannot happen: the lag was raised above)
                period = max(period, lag[array] + d - ls[k])
    return ls, max(period, 1)
