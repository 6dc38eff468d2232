"""Loop distribution: a function restricted to a group of its statements (`split_function`),
keeping each group's affine.stores and what they need (liveness through loads, iter_args,
loop results and affine.if results), everything else erased."""

from __future__ import annotations


from mlir import ir
from mlir.dialects import affine as affine_d

from synth.errors import InputError
from synth.analysis.function import find_function
from synth.frontend.reader import SourceModule

from synth.analysis.dependences import REGION_OPS, is_pure, preorder, stores_in, block_terminator




# ----------------------------------------------------------------------------------------
# splitting


def _parent_op(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    return None if parent is None or parent.name == "func.func" else parent.operation


def _liveness(body: ir.Block) -> tuple[set[ir.Operation], set[tuple[ir.Operation, int]]]:
    """Ops that the side effects left in `body` need, and the live iter_args (loop, k).

    Roots are the stores (and any other op with effects); an op is live when a live value
    comes from it or a live op is nested in it; a loop-carried value is live when the
    loop's result or its block argument is."""
    live: set[ir.Operation] = set()
    live_iters: set[tuple[ir.Operation, int]] = set()
    pending: list[ir.Value] = []

    def need_op(op: ir.Operation | None) -> None:
        while op is not None and op not in live:
            live.add(op)
            if op.name == "affine.for":
                view = op.opview
                pending.extend(view.lowerBoundOperands)
                pending.extend(view.upperBoundOperands)
            else:
                pending.extend(op.operands)
                if op.name == "affine.if":  # results kept whole
                    for region in op.regions:
                        for block in region.blocks:
                            pending.extend(block_terminator(block).operands)
            op = _parent_op(op)

    def need_iter(loop: ir.Operation, k: int) -> None:
        if (loop, k) not in live_iters:
            live_iters.add((loop, k))
            need_op(loop)
            view = loop.opview
            pending.extend([list(view.inits)[k], block_terminator(view.body).operands[k]])

    def propagate() -> None:
        while pending:
            value = pending.pop()
            if isinstance(value, ir.BlockArgument):
                parent = value.owner.owner
                if parent is not None and parent.name == "affine.for" and value.arg_number > 0:
                    need_iter(parent.operation, value.arg_number - 1)
                continue
            op = value.owner.operation
            if op.name == "affine.for":
                need_iter(op, value.result_number)
            else:
                need_op(op)

    ops = [op for op, _ in preorder(body)]
    for op in ops:
        name = op.name
        if not (is_pure(name) or name in REGION_OPS or name in ("affine.yield", "memref.dealloc")):
            need_op(op)
    propagate()
    # a dealloc stays with its buffer
    for op in ops:
        if op.name == "memref.dealloc" and op.operands[0].owner.operation in live:
            need_op(op)
    propagate()
    return live, live_iters


def _drop_iter_args(loop: ir.Operation, keep: list[int]) -> None:
    """Rebuild an affine.for with only the iter_args in `keep` (the others pass through)."""
    view = loop.opview
    old = view.body
    with ir.InsertionPoint(loop), loop.location:
        new = affine_d.AffineForOp(
            view.lowerBoundMap.value, view.upperBoundMap.value, view.step,
            [list(view.inits)[k] for k in keep],
            lower_bound_operands=list(view.lowerBoundOperands),
            upper_bound_operands=list(view.upperBoundOperands))
    block = new.regions[0].blocks[0]
    ops = [op.operation for op in old.operations]
    for op in ops[:-1]:
        block.append(op)
    old.arguments[0].replace_all_uses_with(block.arguments[0])
    for j, k in enumerate(keep):
        old.arguments[k + 1].replace_all_uses_with(block.arguments[j + 1])
    with ir.InsertionPoint(block), loop.location:
        affine_d.AffineYieldOp([ops[-1].operands[k] for k in keep])
    for j, k in enumerate(keep):
        loop.results[k].replace_all_uses_with(new.results[j])
    loop.erase()


def _remove_dead(body: ir.Block) -> None:
    """Erase what the remaining stores do not need: dead computations, loops and ifs left
    without effects, buffers nobody stores to, and iter_args whose values are unused."""
    live, live_iters = _liveness(body)
    rebuild = []
    for op, _ in preorder(body):
        if op.name == "affine.for" and op in live:
            n = len(op.results)
            keep = [k for k in range(n) if (op, k) in live_iters]
            if len(keep) < n:
                block = op.opview.body
                terminator = block_terminator(block)
                for k in range(n):
                    if k not in keep:  # pass the value through so its computation is dead
                        terminator.operands[k] = block.arguments[k + 1]
                rebuild.append((op, keep))
    dead: list[ir.Operation] = []

    def collect(block: ir.Block) -> None:
        for op in block.operations:
            op = op.operation
            if op not in live:
                if op.name != "affine.yield":
                    dead.append(op)
            else:
                for region in op.regions:
                    for b in region.blocks:
                        collect(b)

    collect(body)
    dead = _erase_unused(dead)  # the inits of dropped iter_args stay used until the rebuild
    for op, keep in rebuild:
        _drop_iter_args(op, keep)
    _erase_unused(dead)


def _erase_unused(ops: list[ir.Operation]) -> list[ir.Operation]:
    """Erase the ops whose results have no uses, to a fixpoint; returns the others."""
    progress = True
    while progress:
        progress = False
        kept = []
        for op in reversed(ops):  # later ones first: a result's users go before its definition
            if all(not list(r.uses) for r in op.results):
                op.erase()
                progress = True
            else:
                kept.append(op)
        ops = kept[::-1]
    return ops


def split_function(source: SourceModule, func_name: str, groups: list[list[int]]) -> tuple[str, list[str]]:
    """Module text with the original module plus `@<func>_part<k>` per group: the original
    body keeping only the group's affine.stores and what they need. Returns (text, names)."""
    names = [f"{func_name}_part{k}" for k in range(len(groups))]
    module = source.copy()
    with source.context:
        func = find_function(module, func_name)
        if func is None:
            raise InputError(f"no function @{func_name} in the module", source.path)
        taken = {op.attributes["sym_name"].value for op in module.body.operations if "sym_name" in op.attributes}
        n = len(stores_in(func.regions[0].blocks[0]))
        bad = sorted(s for group in groups for s in group if not 0 <= s < n)
        if bad:
            raise ValueError(f"@{func_name} has {n} statements; no statement {bad[0]}")
        clash = taken.intersection(names)
        if clash:
            raise InputError(f"the module already has a function @{sorted(clash)[0]}", source.path)
        for name, group in zip(names, groups):
            part = func.operation.clone(ip=ir.InsertionPoint(module.body))
            part.attributes["sym_name"] = ir.StringAttr.get(name)
            body = part.regions[0].blocks[0]
            keep = set(group)
            for s, store in enumerate(stores_in(body)):
                if s not in keep:
                    store.erase()
            _remove_dead(body)
        module.operation.verify()
        return str(module), names
