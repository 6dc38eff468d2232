"""Recurrences along one loop, parallel along another: scalar expansion and interchange.

A kernel whose statements sit in one nest

    for i:                                  (no iteration of i touches another's elements)
      for j iter_args(s = init):            (a recurrence along j: deriche's ym1, ym2, xm1)
        y[i][j] = f(x[i][j], s, y[i][j-1])
        yield g(...)

has no loop-free tensor program, and the i loop, the top-level one, is no counter loop
either (each of its steps is a scalar recurrence). Its rows are independent, though: the
nest is rewritten so that the recurrence is the top-level loop and its body works on
whole columns,

    s_k = memref.alloca() : memref<E x T>   (one element per i: the scalars expanded)
    for i: s_k[i] = init_k
    for j:
      for i:
        v_k = s_k[i]
        y[i][j] = f(x[i][j], v, y[i][j-1])
        s_k[i] = g(...)                     (stored in an order where each v_k is read
                                             before s_k is overwritten)

which is the form synth.synthesis.steps.lifted_loop describes: statements (the state's
initial values) before one counter loop whose step the sketches read off (`take` and
`put` at the counter, the state as whole vectors). The interchange is legal because the
i loop carries no dependence: every array the nest writes is indexed by i alone along
one dim, the same dim in every access (`parallel_along`). A down-counting j (deriche's
backward sweeps) is normalized already (`y[i][-j + W - 1]`): the counter reads and writes
at `W - 1 - counter`.
"""

from __future__ import annotations

from dataclasses import replace

from mlir import ir
from mlir.dialects import affine, memref

from synth.analysis.collect import loop_step
from synth.analysis.function import find_function
from synth.errors import InputError
from synth.frontend.reader import diagnostic_location
from synth.synthesis.sketch_reader import only_negated
from synth.synthesis.steps import LiftedLoop, reads_what_it_writes_elsewhere, append_arguments, drop_dead, editable, reloaded

_ACCESS = ("affine.load", "affine.store")


def _defined_outside(value: ir.Value, op: ir.Operation) -> bool:
    """Whether `value` is defined outside `op` (a block argument or result of an op that
    `op` does not contain)."""
    owner = value.owner
    while True:
        owner_op = owner.owner if isinstance(owner, ir.Block) else owner
        if not isinstance(owner_op, ir.Operation) and hasattr(owner_op, "operation"):
            owner_op = owner_op.operation
        node = owner_op
        while node is not None:
            if node == op:
                return False
            if node.name == "func.func":
                return True
            node = node.parent
        return True


def _mentions(e: ir.AffineExpr, position: int) -> bool:
    if isinstance(e, ir.AffineDimExpr):
        return e.position == position
    if isinstance(e, ir.AffineBinaryExpr):
        return _mentions(e.lhs, position) or _mentions(e.rhs, position)
    return False


def _dim_of(access, iv: ir.Value) -> int | None:
    """The result of the access's map that is exactly the loop index `iv`, where the index
    appears in that result only; -1 where it appears nowhere; None otherwise."""
    view = access.opview
    amap = view.map.value
    positions = [k for k, v in enumerate(view.indices) if v == iv]
    if not positions:
        return -1
    found = None
    for r, e in enumerate(amap.results):
        if any(_mentions(e, p) for p in positions):
            if found is not None or not (isinstance(e, ir.AffineDimExpr) and e.position in positions):
                return None
            found = r
    return -1 if found is None else found


def parallel_along(outer, inner, skip: set) -> dict | None:
    """Each array the nest writes -> the dim the outer index addresses it at, where every
    access to it (read or write) addresses that dim by the outer index alone and no other
    dim by it: iterations of the outer loop then touch disjoint elements. None where some
    access does otherwise (the outer loop carries a dependence)."""
    iv = outer.induction_variable
    accesses = []

    def visit(op):
        if op.name in _ACCESS:
            accesses.append(op)
        elif op.name in ("memref.load", "memref.store") or (op.name.startswith("affine.") and op.name not in (
                "affine.for", "affine.yield", "affine.apply", "affine.min", "affine.max") + _ACCESS):
            accesses.append(None)  # a form this rewrite does not read (affine.if, memref ops)
        return ir.WalkResult.ADVANCE
    inner.operation.walk(visit)
    if any(a is None for a in accesses):
        return None
    written = {a.opview.memref for a in accesses if a.name == "affine.store"}
    dims: dict = {}
    for a in accesses:
        m = a.opview.memref
        if m not in written or m in skip:
            continue
        d = _dim_of(a, iv)
        if d is None or d < 0 or dims.setdefault(m, d) != d:
            return None
    return dims


def _store_order(yields: list, loads: list) -> list[int] | None:
    """An order of the state's stores in which each state element is read (by the values
    of the stores before it) before its own store overwrites it: store k after every store
    whose value was computed from v_k. None where they form a cycle (a swap)."""
    n = len(yields)
    reads = []
    for value in yields:
        seen, stack, got = set(), [value], set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in loads:
                got.add(loads.index(v))
            owner = v.owner
            if isinstance(owner, ir.Block):
                continue
            owner = owner.operation if hasattr(owner, "operation") else owner
            stack.extend(owner.operands)
        reads.append(got)
    order, done = [], set()
    while len(order) < n:
        ready = [k for k in range(n) if k not in done
                 and all(k not in reads[m] or m in done or m == k for m in range(n))]
        if not ready:
            return None
        order.append(ready[0])
        done.add(ready[0])
    return order


def interchanged_recurrence(kernel) -> LiftedLoop | None:
    """The kernel's one nest `for i { for j iter_args(...) }` rewritten as the state's
    initial values, then one counter loop over j whose step works on every i (module
    doc), as a LiftedLoop over the expanded state; None where the kernel is not of that
    form or the i loop carries a dependence. The state is the inner loop's iter_args and
    the local scalars private to each i (stored before the inner loop, from a value
    defined outside the nest, and used in the inner loop only: C's `double ym1 = 0`)."""
    if kernel.sizes.time_loops or kernel.interface.results or kernel.interface.out_parameters:
        return None
    path = kernel.normal.path
    with editable(kernel) as (module, func, entry):
        top = [op.operation for op in entry.operations]
        loops = [op for op in top if op.name == "affine.for"]
        if len(loops) != 1 or any(op.name in ("affine.store", "memref.store") for op in top):
            return None
        outer = loops[0].opview
        body = [op.operation for op in outer.regions[0].blocks[0].operations]
        if loop_step(outer) != 1 or len(outer.results) or len(body) < 2 or body[-2].name != "affine.for":
            return None
        inner = body[-2].opview
        private = _private_scalars(body[:-2], outer, inner)
        if private is None or loop_step(inner) != 1 or any(True for r in inner.results for _ in r.uses):
            return None
        operands = list(inner.lowerBoundOperands) + list(inner.upperBoundOperands) + list(inner.inits)
        if any(not _defined_outside(v, outer.operation) for v in operands):
            return None
        dims = parallel_along(outer, inner, set(private))
        if not dims:
            return None
        iters = list(inner.regions[0].blocks[0].arguments)[1:]
        if not iters and not private and not _carried_through_arrays(inner, dims):
            return None  # a map along j: the sketches read it as it is
        outer_loc, inner_loc = outer.location, inner.location
        zeros = all(_is_zero(v) for v in list(private.values()) + list(inner.inits))
        i_map = ir.AffineMapAttr.get(ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0)]))
        with ir.InsertionPoint(outer.operation):
            extent = _extent(dims)
            if extent is None:  # the outer loop's bound as the state's run-time extent
                ub = outer.upperBoundMap.value
                if len(ub.results) != 1:
                    return None
                bound = affine.AffineApplyOp(ub, list(outer.upperBoundOperands)).result
            types = [ir.MemRefType(m.type).element_type for m in private] + [v.type for v in iters]
            state = [memref.AllocaOp(ir.MemRefType.get([extent if extent is not None else ir.ShapedType.get_dynamic_size()],
                                                       t), [] if extent is not None else [bound], []).result
                     for t in types]
            init = loop_like(outer, outer_loc)
            with ir.InsertionPoint(init.body):
                for m, v in private.items():
                    affine.AffineStoreOp(v, state[list(private).index(m)], [init.induction_variable], map=i_map)
                for s, v in zip(state[len(private):], inner.inits):
                    affine.AffineStoreOp(v, s, [init.induction_variable], map=i_map)
                affine.AffineYieldOp([])
            j_loop = loop_like(inner, inner_loc)
            with ir.InsertionPoint(j_loop.body):
                i_loop = loop_like(outer, outer_loc)
                affine.AffineYieldOp([])
            i = i_loop.induction_variable
            with ir.InsertionPoint(i_loop.body):
                loads = [affine.AffineLoadOp(v.type, s, [i], map=i_map, loc=inner_loc).result
                         for s, v in zip(state[len(private):], iters)]
                anchor = affine.AffineYieldOp([])
        _expand(private, state, outer.induction_variable, i_map)
        yield_op = inner.regions[0].blocks[0].operations[len(inner.regions[0].blocks[0].operations) - 1]
        yields = list(yield_op.operands)
        state_iters = state[len(private):]
        order = _store_order(yields, iters)
        if order is None:
            return None
        for arg, load in zip(iters, loads):
            arg.replace_all_uses_with(load)
        inner.induction_variable.replace_all_uses_with(j_loop.induction_variable)
        outer.induction_variable.replace_all_uses_with(i)
        block = inner.regions[0].blocks[0]
        moved = list(block.operations)
        yield_values = list(moved[-1].operands)
        for op in moved[:-1]:
            op.move_before(anchor)
        with ir.InsertionPoint(anchor):
            for k in order:
                affine.AffineStoreOp(yield_values[k], state_iters[k], [i], map=i_map, loc=yield_op.location)
        outer.operation.erase()
        # a backward sweep (deriche's `y[i][-j + W - 1]`): its counter counts down
        descending = only_negated(j_loop.induction_variable)
        for m in private:  # the scalars themselves, unused now
            if not any(True for _ in m.uses):
                m.owner.erase()
        # the statements before the loop alone: the state made arguments
        n = len(entry.arguments)
        args = append_arguments(func, [(s.type, s.owner.location, {}) for s in state])
        for s, arg in zip(state, args):
            alloca = s.owner
            s.replace_all_uses_with(arg)
            alloca.erase()
        with_state = str(module)
        j_loop.operation.erase()
        before = str(module)
        module = ir.Module.parse(with_state)
        func = find_function(module, kernel.name)
        block = func.regions[0].blocks[0]
        top = [op.operation for op in block.operations if op.operation.name == "affine.for"]
        for op in top[:-1]:  # the initial values' loop
            op.erase()
        drop_dead(block)
        after = str(module)
    try:
        rest = with_values(reloaded(kernel, after), kernel)
        # state that starts at zeros needs no statements before the loop: the raised loop
        # starts its state at zeros (synth.codegen.raised._prologue)
        prologue = None if zeros else with_values(reloaded(kernel, before), kernel)
    except InputError:  # a part that does not reach an array of dynamic extent: not rewritten
        return None
    location = _top_loop(rest)
    if location is None:
        return None
    return LiftedLoop(prologue, rest, tuple(range(n, n + len(state))), location, descending)


def with_values(part, kernel):
    """`part` with the values the kernel gave its run-time sizes (test values: pipeline's
    with_test_values), which a reloaded part does not see."""
    part.sizes.symbols.update({n: kernel.sizes.symbols[n] for n in part.sizes.unknown()
                               if n in kernel.sizes.symbols and kernel.sizes.symbols[n].value >= 0})
    return part


def whole_extents(part, kernel):
    """`part`, a kernel over the same arguments as `kernel`, with the kernel's array
    extents: a part reaching some of an array only (adi's boundary column `c[i][0] = 0`,
    of a `double c[h][w]`) would otherwise size it by what it reaches, and its raise would
    not take the whole array the parts before and after it pass on."""
    dims = {a: kernel.sizes.arg_dims.get(a, d) for a, d in part.sizes.arg_dims.items()}
    if dims == part.sizes.arg_dims:
        return part
    symbols = dict(part.sizes.symbols)
    for d in dims.values():
        for e in d:
            for n in e.symbols:
                if n in kernel.sizes.symbols and (n not in symbols or symbols[n].value < 0):
                    symbols[n] = kernel.sizes.symbols[n]
    return replace(part, sizes=replace(part.sizes, arg_dims=dims, symbols=symbols))


def _is_zero(v: ir.Value) -> bool:
    """Whether `v` is an arith.constant zero (of any type)."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        return ir.FloatAttr(attr).value == 0.0
    if isinstance(attr, ir.IntegerAttr):
        return ir.IntegerAttr(attr).value == 0
    return False


def _top_loop(kernel) -> str | None:
    """The location of the kernel's one top-level loop (as its sizes key it)."""
    source = kernel.normal
    with source.context:
        func = find_function(source.parsed(), kernel.name)
        loops = [op for op in func.regions[0].blocks[0].operations if op.operation.name == "affine.for"]
        if len(loops) != 1:
            return None
        location = diagnostic_location(source.path, loops[0].location)
    return location if location in kernel.sizes.loop_ranges else None


def _private_scalars(leading: list, outer, inner) -> dict | None:
    """The local scalars (rank-0 or one-element allocas of the function) that each outer
    iteration starts afresh: the ops before the inner loop are stores of values defined
    outside the nest into them, and every other use of them is inside the inner loop.
    Alloca value -> its initial value; None where the ops before the inner loop are
    anything else."""
    private: dict = {}
    for op in leading:
        if op.name != "affine.store":
            return None
        view = op.opview
        m = view.memref
        if not _is_scalar_alloca(m) or not _defined_outside(view.value, outer.operation) or m in private:
            return None
        private[m] = view.value
    for m in private:
        for use in m.uses:
            user = use.owner
            if user.name == "affine.store" and any(user == op for op in leading):
                continue
            if user.name not in _ACCESS or _defined_outside_op(user, inner.operation):
                return None
    return private


def _is_scalar_alloca(m: ir.Value) -> bool:
    owner = m.owner
    if isinstance(owner, ir.Block) or owner.name != "memref.alloca":
        return False
    shape = ir.MemRefType(m.type).shape
    return list(shape) in ([], [1])


def _defined_outside_op(op: ir.Operation, container: ir.Operation) -> bool:
    """Whether `op` is not nested in `container`."""
    node = op.parent
    while node is not None:
        if node == container:
            return False
        if node.name == "func.func":
            return True
        node = node.parent
    return True


def _expand(private: dict, state: list, iv: ir.Value, i_map) -> None:
    """Each access of a private scalar (inside the inner loop) made an access of its
    expanded array at the outer index `iv`."""
    for m, s in zip(private, state):
        for use in list(m.uses):
            user = use.owner
            if _defined_outside_op(user, iv.owner.owner) or user.name not in _ACCESS:
                continue
            view = user.opview
            with ir.InsertionPoint(user), user.location:
                if user.name == "affine.load":
                    new = affine.AffineLoadOp(view.result.type, s, [iv], map=i_map).result
                    view.result.replace_all_uses_with(new)
                else:
                    affine.AffineStoreOp(view.value, s, [iv], map=i_map)
            user.erase()


def loop_like(loop, loc):
    """A new affine.for with the bounds of `loop` (maps and operands), unit step."""
    return affine.AffineForOp(loop.lowerBoundMap.value, loop.upperBoundMap.value, 1,
                              lower_bound_operands=list(loop.lowerBoundOperands),
                              upper_bound_operands=list(loop.upperBoundOperands), loc=loc)


def _extent(dims: dict) -> int | None:
    """The static extent of the dim the outer index addresses, the smallest over the
    arrays written (the state has one element per outer iteration)."""
    sizes = []
    for m, d in dims.items():
        shape = ir.MemRefType(m.type).shape
        if shape[d] < 0:
            return None
        sizes.append(shape[d])
    return min(sizes) if sizes else None


def _carried_through_arrays(inner, dims: dict) -> bool:
    """Whether the inner loop reads an array it writes at an element another of its
    iterations writes (the state in the array itself: `y[i][j-1]`)."""
    return reads_what_it_writes_elsewhere(inner)


def nest_parts(kernel) -> list | None:
    """The kernel split into one kernel per top-level loop nest, in order, each over all of
    the kernel's arguments (the arrays carry what one nest leaves to the next); None where
    the kernel is not a sequence of two or more nests: statements outside them, results,
    or a local array that two nests share (its value would cross between parts)."""
    if kernel.sizes.time_loops or kernel.interface.results or kernel.interface.out_parameters:
        return None
    texts = []
    with editable(kernel) as (module, func, entry):
        forward_constants(entry)
        top = [op.operation for op in entry.operations]
        loops = [op for op in top if op.name == "affine.for"]
        if len(loops) < 2 or any(op.name in ("affine.store", "memref.store", "scf.for", "scf.while",
                                             "affine.if", "scf.if", "func.call") for op in top):
            return None
        for op in top:
            if op.name in ("memref.alloca", "memref.alloc"):
                users = {k for k, loop in enumerate(loops) for use in op.results[0].uses
                         if not _defined_outside_op(use.owner, loop)}
                # a local two nests share: each must start it afresh (C's `ym1 = 0` at the
                # top of each row, a scalar declared once for the function)
                if len(users) > 1 and not all(_starts_afresh(op.results[0], loops[k]) for k in users):
                    return None
        whole = str(module)
    for k in range(len(loops)):
        with kernel.normal.context:
            part = ir.Module.parse(whole)
            block = find_function(part, kernel.name).regions[0].blocks[0]
            nests = [op.operation for op in block.operations if op.operation.name == "affine.for"]
            for j, op in enumerate(nests):
                if j != k:
                    op.erase()
            drop_dead(block)
            texts.append(str(part))
    try:
        return [whole_extents(with_values(reloaded(kernel, t), kernel), kernel) for t in texts]
    except InputError:  # a part that does not reach an array of dynamic extent cannot size it
        return None     # (Polygeist's memref<?x2160xf64>): not split


def forward_constants(entry) -> None:
    """A local scalar stored once, at the function's top level, from a value defined there
    (C's filter coefficients `a1 = k`), read as that value: its loads replaced by it."""
    for op in list(entry.operations):
        o = op.operation
        if o.name != "affine.store":
            continue
        m, v = o.opview.memref, o.opview.value
        if not _is_scalar_alloca(m) or _loop_index_or_load(v):
            continue
        uses = [u.owner for u in m.uses]
        if any(u.name != "affine.load" for u in uses if u != o):
            continue  # stored elsewhere too
        for u in uses:
            if u != o:
                u.opview.result.replace_all_uses_with(v)
                u.erase()
        o.erase()


def _loop_index_or_load(v: ir.Value) -> bool:
    """Whether `v` is not a value of the function's top level (a loop's, or a load)."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return owner.owner is None or owner.owner.name != "func.func"
    return owner.name in ("affine.load", "memref.load") or owner.parent.name != "func.func"


def _starts_afresh(m: ir.Value, loop) -> bool:
    """Whether the first access of local scalar `m` inside `loop` (in program order) is a
    store directly in the loop's body: each iteration writes it before reading it."""
    first = []

    def visit(op):
        if not first and op.name in _ACCESS and op.opview.memref == m:
            first.append(op)
        return ir.WalkResult.ADVANCE
    loop.walk(visit)
    return bool(first) and first[0].name == "affine.store" and first[0].parent == loop


def has_interchangeable_nest(parts: list) -> bool:
    """Whether one of the parts is a recurrence interchanged_recurrence rewrites."""
    return any(interchanged_recurrence(p) is not None for p in parts)
