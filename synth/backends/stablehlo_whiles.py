"""Counted `stablehlo.while` loops as `scf.for` (synth.backends.stablehlo_linalg.to_linalg
runs this before jaxlib's legalization, which has no control flow lowering; the mlir-cpu
pipeline's loop rewrites are written for scf.for).

A while is counted when its condition is one comparison of an integer counter the loop
carries with a bound that does not change while it runs, and its body steps that counter by
a constant:
- the condition `k < b`, `k <= b`, `k > b` or `k >= b` (either side; a signed or
  unspecified comparison type), every other op of the condition region computing the bound
  from values defined outside the while (they are hoisted above it);
- the bound a constant, a value defined outside the while (a run-time step count, a
  generic raise's `n - 1` from tensor dims), a value of the enclosing loop's body (nussinov's
  inner loop to the diagonal's widest row), or another carried value the body returns
  unchanged (JAX's `fori_loop` carries its upper bound);
- the start any value (a constant, or computed: a generic raise's `n - 1`);
- the body returning `k + c` or `k - c`, `c` a nonzero constant whose sign goes the way of
  the comparison (up with < and <=, down with > and >=).

It becomes an `scf.for` whose induction variable is the counter (counting up; counting down,
the counter's negation, so that the step is positive), the other values its iter_args; where
the body reads the counter, a 0-d tensor of it. Where the loop's final count is read, it is
computed from the bounds: `start + max(0, ceil((stop - start) / step)) * step`. The counter
is counted in `index` (64-bit): a loop whose counter would wrap around its type (a bound at
the type's maximum with `<=`, which never ends) is not modelled. Any other while is left
as it is (to_linalg then names it: an `scf.while` bufferizes with a copy of every carried value
per step and allocations whose deallocation MLIR's LLVM lowering rejects).

PolyBench nussinov's generic stablehlo raise has a while `k <= n - 1` from 1 (n read from
the table's dims), holding one `k < max(row widths)` from 0: the second was counted before
this module, the first was not (only `k < b`, a constant start and `k + 1` were read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FLIPPED = {"LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE"}
# ops that may not move out of the condition region (each run has an effect of its own)
_EFFECTS = {"stablehlo.custom_call", "stablehlo.rng", "stablehlo.rng_bit_generator", "stablehlo.infeed",
            "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv"}


@dataclass(frozen=True)
class Counted:
    """A counted while: its counter's position among the carried values, its start (the
    while's operand), the bound (a value defined outside the while once `hoisted` moved
    there), the step, whether the bound is included, and the condition ops to hoist."""

    position: int
    start: object
    bound: object
    step: int
    inclusive: bool
    hoisted: tuple = ()


def constant_int(value) -> int | None:
    """The integer of a 0-d integer `stablehlo.constant`, else None."""
    owner = value.owner
    if getattr(owner, "name", None) != "stablehlo.constant":
        return None
    match = re.fullmatch(r"dense<(-?\d+)> : tensor<i(?:8|16|32|64)>", str(owner.attributes["value"]))
    return int(match.group(1)) if match else None


def _direction(compare) -> str | None:
    """The compare's direction when it orders signed integers (a signed or unspecified
    comparison type), else None."""
    kind = str(compare.attributes["compare_type"]) if "compare_type" in compare.attributes else ""
    if any(word in kind for word in ("UNSIGNED", "FLOAT", "TOTALORDER")):
        return None
    match = re.search(r"comparison_direction (\w+)", str(compare.attributes["comparison_direction"]))
    return match.group(1) if match else None


def _invariant_condition_ops(cond, flag) -> tuple | None:
    """The condition region's ops other than the compare `flag` and the return, when none
    reads a carried value (in order: they move above the while as they are); else None."""
    from jaxlib.mlir import ir

    ops = [o.operation for o in cond.operations][:-1]
    args = list(cond.arguments)
    for o in ops:
        if o == flag.operation:
            continue
        if o.regions or o.name in _EFFECTS or any(isinstance(v.owner, ir.Block) and v in args for v in o.operands):
            return None
        if any(not isinstance(v.owner, ir.Block) and v.owner == flag.operation for v in o.operands):
            return None
    return tuple(o for o in ops if o != flag.operation)


def _step(body, position: int) -> int | None:
    """c when the body returns `k + c`, `c + k` or `k - c` for the counter k at
    `position` (c a constant), else None."""
    k = body.arguments[position]
    new = list(body.operations)[-1].operands[position]
    owner = new.owner
    name = getattr(owner, "name", None)
    if name not in ("stablehlo.add", "stablehlo.subtract"):
        return None
    lhs, rhs = owner.operands
    if name == "stablehlo.subtract":
        c = constant_int(rhs) if lhs == k else None
        return None if c is None else -c
    if lhs == k:
        return constant_int(rhs)
    return constant_int(lhs) if rhs == k else None


def counted(op) -> Counted | None:
    """The while `op` read as a counted loop (the module docstring), else None."""
    cond = op.regions[0].blocks[0]
    flag = list(cond.operations)[-1].operands[0].owner
    if getattr(flag, "name", None) != "stablehlo.compare" or flag.operation.block != cond:
        return None
    hoisted = _invariant_condition_ops(cond, flag)
    direction = _direction(flag)
    if hoisted is None or direction not in _FLIPPED:
        return None
    args = list(cond.arguments)
    lhs, rhs = flag.operands
    for counter, bound, way in ((lhs, rhs, direction), (rhs, lhs, _FLIPPED[direction])):
        if counter in args:
            loop = _counting(op, args.index(counter), bound, way)
            if loop is not None:
                return Counted(loop[0], op.operands[loop[0]], loop[1], loop[2], way in ("LE", "GE"), hoisted)
    return None


def _counting(op, position: int, bound, way: str):
    """(position, bound outside the while, step) when the carried value at `position`
    counts towards `bound` (`k <way> bound`), else None."""
    from jaxlib.mlir import ir

    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    if not isinstance(ir.RankedTensorType(op.operands[position].type).element_type, ir.IntegerType):
        return None
    args = list(cond.arguments)
    if bound in args:  # a carried bound: one the body returns as it is
        at = args.index(bound)
        if at == position or list(body.operations)[-1].operands[at] != body.arguments[at]:
            return None
        bound = op.operands[at]
    step = _step(body, position)
    if not step or (step > 0) != (way in ("LT", "LE")):
        return None
    return position, bound, step


def _index(value, ip, negate: bool = False, plus: int = 0):
    """`value` (a 0-d integer tensor) as an index, negated and/or plus a constant: an
    arith.constant where it is a constant."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import arith

    index = ir.IndexType.get()
    c = constant_int(value)
    if c is not None:
        return arith.ConstantOp(index, ir.IntegerAttr.get(index, (-c if negate else c) + plus), ip=ip).result
    element = ir.RankedTensorType(value.type).element_type
    scalar = ir.Operation.create("tensor.extract", results=[element], operands=[value], ip=ip).result
    x = arith.IndexCastOp(index, scalar, ip=ip).result
    if negate:
        x = arith.SubIOp(_const(0, ip), x, ip=ip).result
    return arith.AddIOp(x, _const(plus, ip), ip=ip).result if plus else x


def _const(n: int, ip):
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import arith

    index = ir.IndexType.get()
    return arith.ConstantOp(index, ir.IntegerAttr.get(index, n), ip=ip).result


def _as_counter(x, negate: bool, counter_type, ip):
    """The counter's 0-d tensor from the index `x` (its negation when counting down)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import arith

    if negate:
        x = arith.SubIOp(_const(0, ip), x, ip=ip).result
    k = arith.IndexCastOp(ir.RankedTensorType(counter_type).element_type, x, ip=ip).result
    return ir.Operation.create("tensor.from_elements", results=[counter_type], operands=[k], ip=ip).result


def _final_count(lb, ub, step: int, ip):
    """lb + max(0, ceil((ub - lb) / step)) * step: the first value of the counter past the loop."""
    from jaxlib.mlir.dialects import arith

    span = arith.SubIOp(ub, lb, ip=ip).result
    trips = arith.CeilDivSIOp(span, _const(step, ip), ip=ip).result
    trips = arith.MaxSIOp(trips, _const(0, ip), ip=ip).result
    return arith.AddIOp(lb, arith.MulIOp(trips, _const(step, ip), ip=ip).result, ip=ip).result


def while_to_for(op, loop: Counted) -> None:
    """The counted while `op` replaced by an `scf.for` (the module docstring)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import scf

    position, down = loop.position, loop.step < 0
    carried = [v for i, v in enumerate(op.operands) if i != position]
    counter_type = op.operands[position].type
    for hoisted in loop.hoisted:
        hoisted.move_before(op.operation)
    with ir.Location.unknown():
        ip = ir.InsertionPoint(op)
        lb = _index(loop.start, ip, negate=down)
        ub = _index(loop.bound, ip, negate=down, plus=1 if loop.inclusive else 0)
        final = None
        if any(True for _ in op.results[position].uses):
            final = _as_counter(_final_count(lb, ub, abs(loop.step), ip), down, counter_type, ip)
        new = scf.ForOp(lb, ub, _const(abs(loop.step), ip), iter_args=carried, ip=ip)
        body = op.regions[1].blocks[0]
        mark = scf.YieldOp(list(new.inner_iter_args), ip=ir.InsertionPoint(new.body))
        inner = ir.InsertionPoint(mark)
        k = _as_counter(new.induction_variable, down, counter_type, inner)
        others = iter(new.inner_iter_args)
        for i, arg in enumerate(body.arguments):
            arg.replace_all_uses_with(k if i == position else next(others))
        for inner_op in list(body.operations):
            inner_op.move_before(mark)
        ret = _last_before(mark)
        scf.YieldOp([v for i, v in enumerate(ret.operands) if i != position], ip=ir.InsertionPoint(mark))
        mark.operation.erase()
        ret.erase()
    results = iter(new.results)
    for i, old in enumerate(op.results):
        if i != position:
            old.replace_all_uses_with(next(results))
        elif final is not None:
            old.replace_all_uses_with(final)
    op.erase()


def _last_before(mark):
    """The op just before `mark` in its block (the moved `stablehlo.return`)."""
    ops = list(mark.operation.block.operations)
    index = next(i for i, o in enumerate(ops) if o == mark.operation)
    return ops[index - 1].operation
