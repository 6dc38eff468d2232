"""Loops that stay loops: a time-step loop around the whole kernel.

A kernel whose statements all sit in one loop that repeats them (its index unused, each
repetition reading what the previous one wrote: PolyBench's stencils) has no loop-free
tensor program. Its raise is a loop in the target whose body is a tensor program:

    stablehlo: stablehlo.while over (counter, the arrays the body writes)
    linalg:    scf.for over the same arrays as iter_args

The body is one repetition: the kernel with that loop running once (`step_kernel`) is
raised like any other kernel (sketches and search), and synth.codegen.raised emits its
program inside the loop, `TimeLoop.trip` times (an expression of the size symbols).
Validation checks the whole raised function against the original, loop and all.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace

from mlir import ir
from mlir.dialects import arith

from synth.analysis.collect import loop_step
from synth.analysis.function import find_function
from synth.analysis.model import Kernel, load_kernel
from synth.analysis.sizes import SizeModel
from synth.analysis.symbols import SizeExpr
from synth.errors import NoSolutionError
from synth.frontend.reader import SourceModule, diagnostic_location, nested_in


@dataclass(frozen=True)
class TimeLoop:
    trip: SizeExpr  # repetitions, in the kernel's size symbols
    location: str
    # (argument, dim) of each input the step reads at the step's index (fdtd-2d's fict[t]):
    # the step reads it at index 0, and the target's loop rotates it by one along that dim
    # after each step, so that step t reads element t
    rotated: tuple[tuple[int, int], ...] = ()
    # a counter loop (its body indexes by its counter): the step kernel's argument that
    # holds the counter, and the counter's first value (step k has counter start + k)
    counter: int | None = None
    start: SizeExpr | None = None
    # the step kernel's arguments that are the kernel's local scalars carried from one
    # step to the next (lifted_loop): not arguments or results of the raised function
    state: tuple[int, ...] = ()
    # a counter that counts down (step k has counter start - k): a loop whose index the
    # body uses only negated (a backward sweep, `y[-j + W - 1]`), read at the counter
    descending: bool = False
    # the loop of an interchanged recurrence (synth.synthesis.recurrence)
    interchanged: bool = False


def _why_not(kernel: Kernel, why: str) -> NoSolutionError:
    return NoSolutionError(
        f"@{kernel.name}: the loop at {kernel.sizes.time_loops[0]} repeats a computation that "
        f"reads what its previous iteration wrote (a time-step loop); {why}, so no equivalent "
        f"program exists in the grammar")


@contextmanager
def editable(kernel: Kernel):
    """A copy of the kernel's normal form to rewrite, inside its context: (the module, the
    kernel's function, that function's entry block)."""
    source = kernel.normal
    with source.context, ir.Location.unknown():
        module = source.copy()
        func = find_function(module, kernel.name)
        yield module, func, func.regions[0].blocks[0]


def reloaded(kernel: Kernel, text: str) -> Kernel:
    """`text`, a rewrite of the kernel, loaded as a kernel whose sizes are named as the
    kernel's (_in_kernel_terms)."""
    part = load_kernel(SourceModule(kernel.normal.path, text), kernel.name, extents=kernel.sizes)
    part = replace(part, sizes=_in_kernel_terms(part.sizes, kernel.sizes))
    # a size the part uses as a value only (adi's step count in its coefficients, once the
    # loop it bounded is left out) has the kernel's value
    part.sizes.symbols.update({n: kernel.sizes.symbols[n] for n in part.sizes.unknown()
                               if n in kernel.sizes.symbols and kernel.sizes.symbols[n].value >= 0})
    return part


def step_kernel(kernel: Kernel) -> tuple[Kernel, TimeLoop]:
    """The kernel with its time loop running once, and the loop. NoSolutionError where
    the loop is not one the targets' loops express: several time loops, statements
    outside it, a trip count that is not an expression of the sizes."""
    sizes = kernel.sizes
    if len(sizes.time_loops) != 1:
        raise _why_not(kernel, f"it is one of {len(sizes.time_loops)} such loops (one loop of the "
                               f"target around one step is supported, not more)")
    trip = sizes.time_trips[0] if sizes.time_trips else None
    if trip is None:
        raise _why_not(kernel, "its trip count is not an expression of the sizes")
    if kernel.interface.results or kernel.interface.out_parameters:
        raise _why_not(kernel, "it returns values (not carried by the target's loops yet)")
    location = sizes.time_loops[0]
    path = kernel.normal.path
    from synth.synthesis.recurrence import forward_constants

    with editable(kernel) as (module, _, entry):
        # local scalars stored once before the loop from values of the function's top
        # level (adi's coefficients `a = -mul1 / 2`) read as those values: no statements
        forward_constants(entry)
        loops = []

        def visit(op):
            if op.name == "affine.for" and diagnostic_location(path, op.location) == location:
                loops.append(op)
            return ir.WalkResult.ADVANCE
        module.walk(visit)
        if len(loops) != 1:
            raise _why_not(kernel, "the loop could not be found again")
        loop = loops[0].opview
        stores_outside = []

        def outside(op):
            if op.name in ("affine.store", "memref.store") and not nested_in(op, loops[0]):
                stores_outside.append(op)
            return ir.WalkResult.ADVANCE
        module.walk(outside)
        if stores_outside:
            raise _why_not(kernel, "statements outside the loop")
        rotated = _read_at_step(loop)
        lb = loop.lowerBoundMap.value
        # 0 to 1 (its index is unused): a bound of 2 would read as a size of its own
        ub = loop.upperBoundMap.value
        for attr, amap, value in (("lowerBoundMap", lb, 0), ("upperBoundMap", ub, 1)):
            once = ir.AffineMap.get(amap.n_dims, amap.n_symbols, [ir.AffineConstantExpr.get(value)])
            loop.operation.attributes[attr] = ir.AffineMapAttr.get(once)
        text = str(module)
    step = load_kernel(SourceModule(path, text), kernel.name)
    if step.sizes.unknown():  # sizes known at run time only: the values the kernel was given
        step.sizes.symbols.update({n: kernel.sizes.symbols[n] for n in step.sizes.unknown()
                                   if n in kernel.sizes.symbols and kernel.sizes.symbols[n].value >= 0})
    if rotated:  # the step reads them at index 0 only: their extents are the original's,
        # and a step count that sized them keeps its value (nothing in the step indexes by it)
        dims = dict(step.sizes.arg_dims)
        dims.update({a: kernel.sizes.arg_dims[a] for a, _ in rotated})
        symbols = {n: (kernel.sizes.symbols.get(n, s) if s.value < 0 else s)
                   for n, s in step.sizes.symbols.items()}
        for a, _ in rotated:  # a constant extent the step no longer indexes (Polygeist's n500)
            for e in kernel.sizes.arg_dims[a]:
                for n in e.symbols:
                    symbols.setdefault(n, kernel.sizes.symbols[n])
        step = replace(step, sizes=replace(step.sizes, arg_dims=dims, symbols=symbols))
    if step.sizes.time_loops:
        raise _why_not(kernel, "another loop inside it repeats too")
    return step, TimeLoop(trip, location, rotated)


def counter_loop(kernel: Kernel) -> str | None:
    """The location of the loop a kernel may keep as a counter loop: the one top-level
    affine.for holding every statement, its index used by its body, no iter_args, unit
    step, bounds that are sizes. None where there is none."""
    sizes = kernel.sizes
    if sizes.time_loops or kernel.interface.results or kernel.interface.out_parameters:
        return None
    source = kernel.normal
    with source.context:
        module = source.parsed()
        func = find_function(module, kernel.name)
        top = [op.operation for op in func.regions[0].blocks[0].operations]
        loops = [op for op in top if op.name == "affine.for"]
        stores = [op for op in top if op.name in ("affine.store", "memref.store")]
        if len(loops) != 1 or stores or len(loops[0].results):
            return None
        loop = loops[0].opview
        if loop_step(loop) != 1 or not any(True for _ in loop.induction_variable.uses) \
                or not reads_what_it_writes_elsewhere(loop) or not _has_inner_loop(loop):
            return None
        location = diagnostic_location(source.path, loop.location)
    return location if location in sizes.loop_ranges else None


@dataclass(frozen=True)
class LiftedLoop:
    """A kernel of statements before one top-level counter loop (durbin's `y[0] = -r[0];
    alpha = -r[0]; beta = 1`, then the loop over k): the local allocations the loop reads
    what the statements before it stored (alpha, beta) made arguments `state` of both
    parts; `prologue` is the kernel without the loop, `loop` without those statements
    (None where the state starts at zeros: synth.synthesis.recurrence)."""
    prologue: Kernel | None
    loop: Kernel
    state: tuple[int, ...]
    location: str
    descending: bool = False  # the loop's counter counts down (TimeLoop.descending)


def lifted_loop(kernel: Kernel) -> LiftedLoop | None:
    """The kernel split into statements before its one top-level loop and the loop (a
    counter loop: counter_loop of the loop part), or None where it is not of that form."""
    sizes = kernel.sizes
    if sizes.time_loops or kernel.interface.results or kernel.interface.out_parameters:
        return None
    with editable(kernel) as (module, func, entry):
        top = [op.operation for op in entry.operations]
        loops = [k for k, op in enumerate(top) if op.name == "affine.for"]
        stores = [k for k, op in enumerate(top) if op.name in ("affine.store", "memref.store")]
        if len(loops) != 1 or not stores or max(stores) > loops[0] or len(top[loops[0]].results) \
                or any(op.name not in ("func.return", "arith.constant") for op in top[loops[0] + 1:]):
            return None
        loop = top[loops[0]]
        # locals the statements before the loop store and the loop reads: its state
        stored = {top[k].opview.memref for k in stores}
        read: set = set()

        def visit(op):
            if op.name in ("affine.load", "memref.load"):
                read.add(op.opview.memref)
            return ir.WalkResult.ADVANCE
        loop.walk(visit)
        state = [op for op in top if op.name == "memref.alloca" and op.results[0] in stored
                 and op.results[0] in read]
        n = len(entry.arguments)
        args = append_arguments(func, [(a.results[0].type, a.location, {}) for a in state])
        for alloca, arg in zip(state, args):
            alloca.results[0].replace_all_uses_with(arg)
            alloca.erase()
        location = diagnostic_location(kernel.normal.path, loop.location)
        both = str(module)
        loop.erase()
        before = str(module)
        module = ir.Module.parse(both)
        func = find_function(module, kernel.name)
        for op in list(func.regions[0].blocks[0].operations):
            name = op.operation.name
            if name == "affine.for":
                break
            if name in ("affine.store", "memref.store"):
                op.operation.erase()
        drop_dead(func.regions[0].blocks[0])
        after = str(module)
    prologue, rest = reloaded(kernel, before), reloaded(kernel, after)
    if counter_loop(rest) is None:
        return None
    return LiftedLoop(prologue, rest, tuple(range(n, n + len(state))), location)


def append_arguments(func, new: list) -> list:
    """Add arguments (type, location, attribute dict) after the function's last one, in
    its entry block, its type and its arg_attrs; the new block arguments."""
    entry = func.regions[0].blocks[0]
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    old = list(ir.ArrayAttr(func.attributes["arg_attrs"])) if "arg_attrs" in func.attributes \
        else [ir.DictAttr.get({}) for _ in ftype.inputs]
    args = [entry.add_argument(t, loc) for t, loc, _ in new]
    func.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(list(ftype.inputs) + [t for t, _, _ in new], list(ftype.results)))
    func.attributes["arg_attrs"] = ir.ArrayAttr.get(old + [ir.DictAttr.get(a) for _, _, a in new])
    return args


_PURE = ("affine.load", "memref.load", "arith.", "math.")


def drop_dead(block) -> None:
    """Erase the loads and arithmetic of `block` (not nested) whose results nothing uses."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(block.operations)):
            o = op.operation
            if o.name.startswith(_PURE) and o.results and \
                    not any(True for r in o.results for _ in r.uses):
                o.erase()
                changed = True


def _has_inner_loop(loop) -> bool:
    """Whether a loop nests another: its step then works on rows or columns (tensor
    work); a step of scalar statements alone (an in-place Gauss-Seidel sweep) would be the
    original loop in another dialect, which a raise does not count as one."""
    return any(op.operation.name == "affine.for" or
               any(True for r in op.operation.regions for b in r.blocks for o in b.operations
                   if o.operation.name == "affine.for")
               for op in loop.regions[0].blocks[0].operations)


def _access_key(op) -> tuple:
    view = op.opview
    if op.name.startswith("affine."):
        return str(view.map.value), tuple(view.indices)
    return "", tuple(view.indices)


def reads_what_it_writes_elsewhere(loop) -> bool:
    """Whether the loop carries a dependence the tensor ops cannot absorb: an array it
    writes is read at another element (a column the previous step wrote, a row the next
    one reads), not only at the element each statement writes."""
    writes: dict = {}
    reads = []

    def visit(op):
        if op.name in ("affine.store", "memref.store"):
            writes.setdefault(op.opview.memref, set()).add(_access_key(op))
        elif op.name in ("affine.load", "memref.load"):
            reads.append(op)
        return ir.WalkResult.ADVANCE
    loop.operation.walk(visit)
    return any(r.opview.memref in writes and _access_key(r) not in writes[r.opview.memref] for r in reads)


def counter_step_kernel(kernel: Kernel, location: str, descending: bool = False) -> tuple[Kernel, TimeLoop]:
    """The kernel with its counter loop (counter_loop) running once at a counter given as
    a new last argument (`index {synth.counter}`): the loop's body in place of the loop,
    its index replaced by the argument. Raising it raises one step; the target's loop runs
    it from the loop's lower bound, `trip` times. `descending`: the index j replaced by
    `lo + hi - 1 - counter` instead (a body that uses j negated reads at the counter plus
    a constant), the loop running the counter from hi - 1 down to lo."""
    from mlir.dialects import affine

    from synth.analysis.sizes import COUNTER, COUNTER_ATTR

    lo, hi = kernel.sizes.loop_ranges[location]
    with editable(kernel) as (module, func, entry):
        loop = next(op for op in entry.operations if op.operation.name == "affine.for").opview
        n = len(entry.arguments)
        (counter,) = append_arguments(func, [(ir.IndexType.get(), loop.location,
                                               {COUNTER_ATTR: ir.UnitAttr.get()})])
        index = counter
        if descending:
            ub, lb = loop.upperBoundMap.value, loop.lowerBoundMap.value
            if len(ub.results) != 1 or len(lb.results) != 1:
                raise NoSolutionError(f"@{kernel.name}: the loop at {location} has min / max bounds")
            with ir.InsertionPoint(loop.operation), loop.location:
                top = affine.AffineApplyOp(ub, list(loop.upperBoundOperands)).result
                bottom = affine.AffineApplyOp(lb, list(loop.lowerBoundOperands)).result
                s0, s1, d0 = ir.AffineSymbolExpr.get(0), ir.AffineSymbolExpr.get(1), ir.AffineDimExpr.get(0)
                flip = ir.AffineMap.get(1, 0 + 2, [s0 + s1 + ir.AffineConstantExpr.get(-1) - d0])
                index = affine.AffineApplyOp(flip, [counter, top, bottom]).result
        loop.induction_variable.replace_all_uses_with(index)
        body = loop.regions[0].blocks[0]
        for op in list(body.operations)[:-1]:  # all but the affine.yield
            op.move_before(loop.operation)
        loop.operation.erase()
        if descending:  # the flipped index composed into the accesses' maps
            from mlir import passmanager

            passmanager.PassManager.parse("builtin.module(func.func(canonicalize))").run(module.operation)
            _counter_as_dim(func, counter)
        text = str(module)
    step = reloaded(kernel, text)
    # an array's extents are the kernel's: a dynamic dim the step reads only below the
    # counter (Polygeist's lu, memref<?x2000xf64>) would otherwise be sized by it
    dims = {a: (kernel.sizes.arg_dims[a] if any(COUNTER in e.symbols for e in d) else d)
            for a, d in step.sizes.arg_dims.items()}
    # ... and so are the sizes those extents and the counter's bounds name, which the step
    # may not see otherwise (a dynamic dim reached by the counter alone: C's `double
    # a[h][w]` swept along h)
    needed = set(lo.symbols) | set(hi.symbols) | {n for d in dims.values() for e in d for n in e.symbols}
    symbols = dict(step.sizes.symbols)
    for name in needed:
        if name in kernel.sizes.symbols and (name not in symbols or symbols[name].value < 0):
            symbols[name] = kernel.sizes.symbols[name]
    if step.sizes.counter != n or (set(lo.symbols) | set(hi.symbols)) - set(symbols):
        raise NoSolutionError(f"@{kernel.name}: the counter of the loop at {location} was not recognised")
    if any(COUNTER in e.symbols for d in dims.values() for e in d):
        raise NoSolutionError(f"@{kernel.name}: an extent of the step at {location} depends on its counter")
    # the kernel's constraints hold of its step too: those over the loop's index (the
    # counter, which the step's own analysis cannot bound) are the ones the step lacks
    known = set(symbols)
    constraints = step.sizes.constraints + [(a, b, why) for a, b, why in kernel.sizes.constraints
                                            if set(a.symbols) | set(b.symbols) <= known]
    congruences = step.sizes.congruences + [c for c in kernel.sizes.congruences
                                            if set(c[0].symbols) <= known and c not in step.sizes.congruences]
    step = replace(step, sizes=replace(step.sizes, counter_range=(lo, hi), arg_dims=dims, symbols=symbols,
                                       constraints=constraints, congruences=congruences))
    if descending:
        return step, TimeLoop(hi - lo, location, counter=n, start=hi - 1, descending=True)
    return step, TimeLoop(hi - lo, location, counter=n, start=lo)


def _counter_as_dim(func, counter: ir.Value) -> None:
    """Each affine access that canonicalize left the counter a symbol of (a function
    argument is one) takes it as a dim again, as the sketches read a loop index."""
    from mlir.dialects import affine

    accesses = []

    def visit(op):
        if op.name in ("affine.load", "affine.store"):
            accesses.append(op)
        return ir.WalkResult.ADVANCE
    func.operation.walk(visit)
    for op in accesses:
        view = op.opview
        amap = view.map.value
        operands = list(view.indices)
        dims, syms = operands[: amap.n_dims], operands[amap.n_dims:]
        ks = [k for k, v in enumerate(syms) if v == counter]
        if not ks:
            continue
        k = ks[0]
        new = amap.replace(ir.AffineSymbolExpr.get(k), ir.AffineDimExpr.get(amap.n_dims), amap.n_dims + 1,
                           amap.n_symbols)
        for j in range(k + 1, amap.n_symbols):
            new = new.replace(ir.AffineSymbolExpr.get(j), ir.AffineSymbolExpr.get(j - 1), new.n_dims,
                              new.n_symbols)
        new = ir.AffineMap.get(new.n_dims, amap.n_symbols - 1, list(new.results))
        indices = dims + [counter] + syms[:k] + syms[k + 1:]
        attr = ir.AffineMapAttr.get(new)
        with ir.InsertionPoint(op), op.location:
            if op.name == "affine.load":
                load = affine.AffineLoadOp(view.result.type, view.memref, indices, map=attr)
                view.result.replace_all_uses_with(load.result)
            else:
                affine.AffineStoreOp(view.value, view.memref, indices, map=attr)
        op.erase()


def _in_kernel_terms(step: SizeModel, sizes: SizeModel) -> SizeModel:
    """The step's sizes in its kernel's symbols: an extent the step names on its own
    (Polygeist's durbin: the size argument bounds only the loop kept, so the step's arrays
    are sized `n2000`, the kernel's `arg0`) is the kernel's expression for the same dim."""
    mapping: dict[str, SizeExpr] = {}
    values = {n: s.value for n, s in sizes.symbols.items()}
    for a, dims in step.arg_dims.items():
        for own, theirs in zip(dims, sizes.arg_dims.get(a, ())):
            if len(own.terms) == 1 and own.terms[0][1] == 1 and not own.const and own.div == 1 \
                    and own.terms[0][0] not in sizes.symbols and not set(theirs.symbols) - set(values) \
                    and step.symbols[own.terms[0][0]].value == theirs.at(values):
                mapping.setdefault(own.terms[0][0], theirs)
    # a dim the step does not index (durbin's statements before its loop, which read r[0]
    # only) is a constant there: the kernel's expression for it
    fixed = {a: tuple(theirs if own.is_constant and theirs.symbols and not set(theirs.symbols) - set(values)
                      and own.const == theirs.at(values) else own
                      for own, theirs in zip(dims, sizes.arg_dims.get(a, dims)))
             for a, dims in step.arg_dims.items()}
    if not mapping and fixed == step.arg_dims:
        return step
    used = {n for e in mapping.values() for n in e.symbols} | \
        {n for dims in fixed.values() for e in dims for n in e.symbols if n in sizes.symbols}
    out = step.renamed(mapping, {n: sizes.symbols[n] for n in used})
    return replace(out, arg_dims={a: tuple(e.substitute(mapping) for e in dims) for a, dims in fixed.items()})


def _read_at_step(loop) -> tuple[tuple[int, int], ...]:
    """Rewrite each read at the loop's index (`x[t + c]`, of an input the kernel does not
    write: synth.analysis.sizes checked that) into a read at `c`, the index's operand a
    constant 0; the (argument, dim) pairs read so."""
    iv = loop.induction_variable
    uses = [(use.owner, use.operand_number) for use in iv.uses]
    if not uses:
        return ()
    func = loop.operation
    while func.name != "func.func":
        func = func.parent
    entry = func.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(entry):
        zero = arith.ConstantOp(ir.IndexType.get(), 0).result
    out = []
    for owner, k in uses:
        load = owner.opview
        position = k - 1  # operand 0 is the memref; then the map's operands, dims first
        amap = load.map.value
        dims = [d for d, e in enumerate(amap.results) if _mentions_dim(e, position)]
        memref = load.memref
        if not isinstance(memref.owner, ir.Block) or len(dims) != 1:
            raise NoSolutionError("a read at a time step's index that is not of an argument along one dim")
        out.append((ir.BlockArgument(memref).arg_number, dims[0]))
        new = amap.replace(ir.AffineDimExpr.get(position), ir.AffineConstantExpr.get(0),
                           amap.n_dims, amap.n_symbols)
        load.operation.attributes["map"] = ir.AffineMapAttr.get(new)
        load.operation.operands[k] = zero
    return tuple(sorted(set(out)))


def _mentions_dim(e: ir.AffineExpr, position: int) -> bool:
    if isinstance(e, ir.AffineDimExpr):
        return e.position == position
    if isinstance(e, ir.AffineBinaryExpr):
        return _mentions_dim(e.lhs, position) or _mentions_dim(e.rhs, position)
    return False


