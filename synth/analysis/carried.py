"""Scalars a kernel carries from one iteration of a loop to the next (sums kept in a
one-element local buffer, iter_args), found on the original's IR for the dependence
analysis (synth.analysis.dependences)."""

from __future__ import annotations


from mlir import ir

from synth.frontend.reader import SourceModule

from synth.analysis.dependences import (
    ACCUMULATORS,
    ALLOCS,
    LOADS,
    function_body,
    preorder,
    backward_slice,
    store_inputs,
    stores_in,
    block_terminator,
)  # noqa: E402


def _accumulates(value: ir.Value, into: ir.Value, excluded) -> bool:
    """Whether `value` is `into` combined with a term that reads nothing in `excluded`
    (x = x + e, x = x * e, max, min, or one of them under a condition on other values: a
    masked reduction): an accumulation, which the tensor ops absorb. An
    inner loop's result that starts from `into` and accumulates it is one too (a sum over
    a nest: `epot -= ...` in the j loop inside the i loop)."""
    if isinstance(value, ir.OpResult) and value.owner.name == "affine.for":
        inner = value.owner.opview
        k = value.result_number
        inits, args = list(inner.inits), list(inner.body.arguments)[1:]
        return (k < len(inits) and inits[k] == into
                and _accumulates(list(block_terminator(inner.body).operands)[k], args[k],
                                     set(excluded) | (set(args) - {args[k]})))
    if isinstance(value, ir.OpResult) and value.owner.name == "arith.select":
        # if (c) x += e: select(c, x + e, x) with c reading neither x nor `excluded` (a
        # masked reduction)
        c, t, f = list(value.owner.operands)
        other = f if t == into else t if f == into else None
        return (other is not None and not (backward_slice([c], around_loops=False, strict=False)
                                           & (set(excluded) | {into}))
                and _accumulates(other, into, excluded))
    if not isinstance(value, ir.OpResult) or value.owner.name not in ACCUMULATORS:
        return False
    a, b = list(value.owner.operands)
    term = b if a == into else a if b == into and "sub" not in value.owner.name else None
    return term is not None and not (backward_slice([term], around_loops=False, strict=False) & excluded)


def _masked(value: ir.Value, loads: list) -> bool:
    """`if (c) s += e` on a local scalar: the value stored is select(c, s + e, s) (or its
    arms swapped), `s` read by `loads` (each a load of the scalar before the store), c and e
    reading none of them, and the loads read nowhere else: a masked reduction."""
    if not (isinstance(value, ir.OpResult) and value.owner.name == "arith.select"):
        return False
    c, t, f = list(value.owner.operands)
    other = t if f in loads else f if t in loads else None
    if not isinstance(other, ir.OpResult) or other.owner.name not in ACCUMULATORS:
        return False
    a, b = list(other.owner.operands)
    term = b if a in loads else a if b in loads and "sub" not in other.owner.name else None
    if term is None or backward_slice([c, term], around_loops=False, strict=False) & set(loads):
        return False
    return all(u.owner == value.owner or u.owner == other.owner for v in loads for u in v.uses)


def _carried_scalars(body: ir.Block, path: str) -> dict[ir.Value, str]:
    """Values that hold what an earlier iteration of a loop computed and that are not an
    accumulation: an iter_arg whose next value is not itself combined with a term, and a
    load of a one-element local buffer that comes before the loop's body stores it (the
    previous iteration's value) and feeds something other than that accumulation. Each
    maps to a phrase saying which loop carries it."""
    from synth.frontend.reader import diagnostic_location
    out: dict[ir.Value, str] = {}
    scalars = {op.results[0]: op for op, _ in preorder(body)
               if op.name in ALLOCS and _elements(op.results[0].type) == 1}
    for loop, _ in preorder(body):
        if loop.name != "affine.for":
            continue
        where = diagnostic_location(path, loop.location)
        view = loop.opview
        args = list(view.body.arguments)[1:]
        yields = list(block_terminator(view.body).operands)
        for k, (arg, nxt) in enumerate(zip(args, yields)):
            if nxt != arg and not _accumulates(nxt, arg, set(args)):
                out[arg] = (f"the loop at {where} carries its iter_arg #{k} from one iteration to the next "
                            f"(its next value is not the old one plus, times, max or min a term)")
        stores: dict[ir.Value, list[ir.Operation]] = {}
        early: dict[ir.Value, list[ir.Value]] = {}  # loads before any store in the body
        late: dict[ir.Value, list[ir.Value]] = {}  # ... and after one
        for op, _ in preorder(view.body):
            if op.name == "affine.store" and op.operands[1] in scalars:
                stores.setdefault(op.operands[1], []).append(op)
            elif op.name in LOADS and op.operands[0] in scalars:
                (late if op.operands[0] in stores else early).setdefault(op.operands[0], []).append(op.results[0])
        for buf, loads in early.items():
            if buf not in stores:
                continue  # read-only in this loop
            for load in loads:
                (update, *more) = stores[buf]
                value = update.operands[0]
                users = [u.owner for u in load.uses]
                if not more and (users == [value.owner] and _accumulates(value, load, set(loads) - {load})
                                 or _masked(value, loads)):
                    # s = s + term: a reduction, unless the body reads the running value
                    # after updating it (out[i] = s: a scan, such as a prefix sum)
                    for running in late.get(buf, []):
                        out[running] = (f"the loop at {where} updates a running accumulation and each "
                                        f"iteration reads its partial value (a scan, such as a prefix "
                                        f"sum; no op of the grammar computes one)")
                    continue
                alloc = diagnostic_location(path, scalars[buf].location)
                out[load] = (f"the loop at {where} carries the local scalar allocated at {alloc} "
                             f"from one iteration to the next (its body reads it before storing it)")
    return out


def _elements(memref_type: ir.Type) -> int:
    """Elements of a statically shaped memref (-1 where a dim is dynamic)."""
    n = 1
    for d in ir.MemRefType(memref_type).shape:
        n = n * d if d >= 0 and n >= 0 else -1
    return n


def carried_scalars(source: SourceModule, func_name: str) -> dict[int, str]:
    """Statement id -> how the value it stores depends on a scalar that a loop carries
    from one iteration to the next other than as an accumulation (durbin's alpha, the
    previous pixels deriche's filters keep in iter_args): a scalar recurrence. For
    messages: why a statement has no program."""
    with source.context:
        body = function_body(source.parsed(), func_name, source.path)
        try:
            carried = _carried_scalars(body, source.path)
        except (ValueError, TypeError):
            return {}
        out: dict[int, str] = {}
        for s, store in enumerate(stores_in(body)):
            hit = [carried[v] for v in backward_slice(store_inputs(store), around_loops=False, strict=False)
                   if v in carried]
            if hit:
                out[s] = sorted(hit)[0]
    return out
