"""synth-static-iter-args: a loop that carries a tensor of static shape as a dynamic one
carries it with its static type, when every step only updates it in place.

A shape-generic raise made static (synth.semantics.specialize: the arguments cast to their
generic types, then inline and canonicalize) keeps the dynamic type of a tensor its loop
carries but does not return: MLIR's canonicalization folds a cast through scf.for only
where the loop's result is cast back (fdtd-2d's source vector, `tensor<?xf64>` in a loop
over `tensor<1000x1200xf64>` arrays). The passes after it look for static shapes
(synth-wavefront's queue), and the generic raise at PolyBench LARGE ran 3.4x slower on
mlir-cpu than the static one.

Taken: an iter_arg whose initial value is a tensor.cast from a static type, and whose
yielded value is the iter_arg itself updated by tensor.insert_slice only (so it keeps the
iter_arg's shape at every step). The iter_arg and the result get the static type, casts to
the dynamic one are put where they are used, and MLIR's canonicalize folds those into the
slices."""

from __future__ import annotations

from synth.backends.ir_toolkit import defining, ops_named


def _updated_in_place(value, arg) -> bool:
    """Whether `value` is `arg` updated by a chain of tensor.insert_slice and tensor.insert
    into it (both take the tensor they update as operand 1)."""
    while value != arg:
        op = defining(value)
        if op is None or op.name not in ("tensor.insert_slice", "tensor.insert"):
            return False
        value = op.operands[1]
    return True


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
    loop.operands[3 + k] = defining(loop.operands[3 + k]).operands[0]


def static_iter_args(module) -> int:
    """Give the iter_args of `module`'s scf.for loops that carry a statically shaped tensor
    as a dynamic one, updated in place, their static type (module docstring), then
    canonicalize; the number of iter_args retyped."""
    from mlir import ir, passmanager

    count = 0
    for loop in ops_named(module, ("scf.for",)):
        body = loop.regions[0].blocks[0]
        terminator = body.operations[len(body.operations) - 1]
        for k, init in enumerate(list(loop.opview.initArgs)):
            cast = defining(init)
            if cast is None or cast.name != "tensor.cast":
                continue
            static = cast.operands[0].type
            if not (isinstance(static, ir.RankedTensorType) and ir.RankedTensorType(static).has_static_shape):
                continue
            if ir.RankedTensorType(init.type).has_static_shape:
                continue
            if not _updated_in_place(terminator.operands[k], body.arguments[1 + k]):
                continue
            _retype(loop, k, static)
            count += 1
    if count:
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)
    return count
