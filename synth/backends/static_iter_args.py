"""synth-static-iter-args: a loop that carries a tensor of static shape as a dynamic one
carries it with its static type, when every step only updates it in place.

A shape-generic raise made static (synth.semantics.specialize: the arguments cast to their
generic types, then inline and canonicalize) keeps the dynamic type of a tensor its loop
carries but does not return: MLIR's canonicalization folds a cast through scf.for only
where the loop's result is cast back (fdtd-2d's source vector, `tensor<?xf64>` in a loop
over `tensor<1000x1200xf64>` arrays). The passes after it look for static shapes
(synth-wavefront's queue), and the generic raise at PolyBench LARGE ran 3.4x slower on
mlir-cpu than the static one.

Taken: an iter_arg of dynamic type whose initial value is known to have a static type S
(a tensor.cast from S, or an update in place of such a value: tensor.insert_slice /
tensor.insert into it), and whose yielded value is known to have type S at every step: a
value of type S (through tensor.casts: deriche's state vectors, each step's new vector cast
to the dynamic type), the iter_arg itself updated in place (tensor.insert_slice /
tensor.insert: the shape kept), or another iter_arg taken with the same S (the fixpoint of
these, starting from every candidate). The iter_arg and the result get the static type, casts
to the dynamic one are put where they are used, and MLIR's canonicalize folds those into the
slices. A loop whose init is a result of a loop retyped so (adi's sweeps: one loop's array
updated by slices and passed to the next) is taken in the next round: rounds run until one
retypes nothing."""

from __future__ import annotations

from synth.backends.ir_toolkit import defining, ops_named


def _static_of(value):
    """The static tensor type `value` is known to have (through tensor.cast and updates in
    place: tensor.insert_slice and tensor.insert take the tensor they update as operand 1),
    else None."""
    from mlir import ir
    while True:
        t = value.type
        if isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).has_static_shape:
            return t
        op = defining(value)
        if op is None or op.name not in ("tensor.cast", "tensor.insert_slice", "tensor.insert"):
            return None
        value = op.operands[0 if op.name == "tensor.cast" else 1]


def _keeps(value, args: dict, static) -> bool:
    """Whether `value` (a yielded one) has type `static` whenever the iter_args `args` (by
    block argument: their static types) have theirs: a value of that type through casts and
    updates in place, or one of `args` of that type."""
    while True:
        if value in args:
            return args[value] == static
        if value.type == static:
            return True
        op = defining(value)
        if op is None or op.name not in ("tensor.cast", "tensor.insert_slice", "tensor.insert"):
            return False
        value = op.operands[0 if op.name == "tensor.cast" else 1]


def _retype(loop, k: int, static) -> None:
    from mlir import ir
    from mlir.dialects import tensor

    body = loop.regions[0].blocks[0]
    arg, result = body.arguments[1 + k], loop.results[k]
    dynamic = arg.type
    inner_uses = [(use.owner, use.operand_number) for use in arg.uses]
    outer_uses = [(use.owner, use.operand_number) for use in result.uses]
    arg.set_type(static)
    result.set_type(static)
    with ir.InsertionPoint.at_block_begin(body), loop.location:
        inside = tensor.CastOp(dynamic, arg).result
    for owner, number in inner_uses:
        owner = getattr(owner, "operation", owner)
        owner.operands[number] = inside
    terminator = body.operations[len(body.operations) - 1]
    with ir.InsertionPoint(terminator), loop.location:
        terminator.operands[k] = tensor.CastOp(static, terminator.operands[k]).result
    ops = [getattr(o, "operation", o) for o in loop.block.operations]
    after = ops[ops.index(loop) + 1]  # (a loop is never last: the block's terminator is)
    with ir.InsertionPoint(after), loop.location:
        outside = tensor.CastOp(dynamic, result).result
    for owner, number in outer_uses:
        owner = getattr(owner, "operation", owner)
        owner.operands[number] = outside
    with ir.InsertionPoint(loop), loop.location:
        loop.operands[3 + k] = tensor.CastOp(static, loop.operands[3 + k]).result


def _retyped(loop) -> int:
    """Retype the iter_args of `loop` that are taken (module docstring); how many."""
    from mlir import ir

    body = loop.regions[0].blocks[0]
    terminator = body.operations[len(body.operations) - 1]
    candidates = {}
    for k, init in enumerate(list(loop.opview.initArgs)):
        t = init.type
        if not isinstance(t, ir.RankedTensorType) or ir.RankedTensorType(t).has_static_shape:
            continue
        static = _static_of(init)
        if static is not None:
            candidates[k] = static
    while True:  # the largest set of candidates each yielding its type given the others'
        args = {body.arguments[1 + k]: t for k, t in candidates.items()}
        kept = {k: t for k, t in candidates.items() if _keeps(terminator.operands[k], args, t)}
        if kept == candidates:
            break
        candidates = kept
    for k, static in candidates.items():
        _retype(loop, k, static)
    return len(candidates)


def static_iter_args(module) -> int:
    """Give the iter_args of `module`'s scf.for loops that carry a statically shaped tensor
    as a dynamic one their static type (module docstring), canonicalize, and again until
    none is left; the number of iter_args retyped."""
    from mlir import passmanager

    count = 0
    while True:
        made = sum(_retyped(loop) for loop in ops_named(module, ("scf.for",)))
        if not made:
            return count
        count += made
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)
