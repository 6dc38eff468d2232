"""An estimate of the work a raised function does at one size, read from its static text.

The test at the largest size (synth.validation.plan.SizePlan.largest_tested) bounds the
original's statement instances. A raise may cost far more than the original there: a loop
kept as a loop (a wavefront's sequential loop over hyperplanes, a time loop) whose every
trip runs an op over a whole array costs trips x array elements, which XLA may pay as a
copy of the array per trip: seidel-2d's step at n = 2000 runs ~6000 hyperplanes, each
reshaping the 4e6-element (skewed) array, for 4e6 statement instances of the original.

`raised_work` walks the static instance of a raised function (the text tested at those
sizes): each op counts the elements of its largest operand or result (a static tensor or
memref; scalars count 1), times the trips of the loops around it (`stablehlo.while`,
`scf.for`, `scf.while`); an op's own regions (a reduction's body) are not counted apart,
nor terminators. An op that reads a slice (a gather, `dynamic_slice`, linalg's
`extract_slice`) counts the slice, one that writes a slice in place
(`dynamic_update_slice`, `insert_slice`) the update; every other op its largest array,
so a reshape of a whole array inside a loop counts the array: XLA copies an array that a
loop reshapes and updates each trip (seidel-2d's step, one copy of its array per
hyperplane: 5.9e8 estimated element operations at n = 500 run in 0.33 s on XLA, 4.6e9 at
n = 1000 in 7.6 s, on this host under load; nussinov's gathers out of a table its inner
loop does not update cost no copy).
A loop's trips are read from its bounds where they are constants or the function's size
arguments (`scalars`); otherwise `unknown_trips` is assumed (the largest size), as it is
for a dynamic dim (a hyperplane's lanes). It is an estimate, not a bound: it chooses how
large a test is, never what a test concludes.
"""

from __future__ import annotations

import math

_LOOPS = ("stablehlo.while", "scf.for", "scf.while", "affine.for")
# ops whose regions run per element or per operand (counted by the op's own elements)
_BRANCHES = ("stablehlo.if", "stablehlo.case", "scf.if", "func.func")
# ops that read a slice of an array (their result), or write one in place (the operand
# at that position): linalg's once bufferized (one-shot-bufferize), XLA's where it can
_READS = ("tensor.extract_slice", "stablehlo.gather", "stablehlo.dynamic_slice", "stablehlo.slice",
          "stablehlo.real_dynamic_slice")
_WRITES = {"tensor.insert_slice": 0, "stablehlo.dynamic_update_slice": 1, "stablehlo.scatter": 2}
_ELEMENT = ("tensor.extract", "tensor.insert", "tensor.dim")
_TERMINATORS = ("stablehlo.return", "func.return", "scf.yield", "scf.condition", "affine.yield")


def raised_work(text: str, name: str, dialect: str, scalars: dict[int, int], unknown_trips: int) -> int:
    """The estimated element operations of `@name` in the static module `text`."""
    from synth.semantics.specialize import raised_in_context

    with raised_in_context(text, name, dialect) as (ir, _, func):
        walker = _Walker(ir, func.operation, scalars, unknown_trips)
        return walker.region(func.operation.regions[0], 1)


class _Walker:
    def __init__(self, ir, func, scalars: dict[int, int], unknown: int):
        self.ir, self.func, self.scalars, self.unknown = ir, func, scalars, max(1, unknown)

    def region(self, region, times: int) -> int:
        return sum(self.op(op.operation, times) for block in region.blocks for op in block.operations)

    def op(self, op, times: int) -> int:
        name = op.name
        if name in _TERMINATORS:  # hands its values on: no work of its own
            return 0
        work = times * self.elements(op)
        if name in _LOOPS:
            trips = self.trips(op)
            work += sum(self.region(r, times * (self.unknown if trips is None else trips)) for r in op.regions)
        elif name in _BRANCHES:
            work += sum(self.region(r, times) for r in op.regions)
        return work

    def elements(self, op) -> int:
        values = [*op.operands, *op.results]
        if op.name in _READS:  # the slice it reads
            values = [op.results[0]]
        elif op.name in _WRITES:  # the slice it writes, in place
            values = [op.operands[_WRITES[op.name]]]
        elif op.name in _ELEMENT:
            return 1
        most = max([1, *(self.size(v) for v in values)])
        if op.name in _READS or op.name in _WRITES:  # no more than the whole array
            most = min(most, max(self.size(v) for v in [*op.operands, *op.results]))
        return most

    def size(self, value) -> int:
        """Elements of a ranked shaped value; a dynamic dim (a hyperplane's lane count that
        varies by trip) counted as the largest size."""
        t = value.type
        shaped = t.maybe_downcast() if hasattr(t, "maybe_downcast") else t
        if not isinstance(shaped, self.ir.ShapedType) or not shaped.has_rank:
            return 1
        return math.prod(self.unknown if shaped.is_dynamic_dim(k) else d for k, d in enumerate(shaped.shape))

    # -- trips ---------------------------------------------------------------------------
    def trips(self, op) -> int | None:
        if op.name == "scf.for":
            lo, hi, step = (self.value(op.operands[k]) for k in range(3))
            if None in (lo, hi, step) or step <= 0:
                return None
            return max(0, -(-(hi - lo) // step))
        if op.name == "affine.for":
            return None
        if op.name == "stablehlo.while":
            return self._while(op)
        return None

    def _while(self, op) -> int | None:
        """Trips of a counted `stablehlo.while`: its condition compares an iteration argument
        that starts at a constant and grows by a constant step with a bound."""
        ir = self.ir
        cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
        ops = list(cond.operations)
        test = ops[-1].operation.operands[0]
        compare = _defining(ir, test)
        if compare is None or compare.name != "stablehlo.compare":
            return None
        direction = str(compare.attributes["comparison_direction"])
        lhs, rhs = compare.operands[0], compare.operands[1]
        lhs = _argument(ir, lhs)
        if lhs is None:
            return None
        k = lhs.arg_number
        start, bound = self.value(op.operands[k]), self.value(rhs)
        step = self._step(body, k)
        if None in (start, bound, step) or step <= 0:
            return None
        if "LT" in direction:
            return max(0, -(-(bound - start) // step))
        if "LE" in direction:
            return max(0, (bound - start) // step + 1)
        if "NE" in direction and (bound - start) % step == 0:
            return max(0, (bound - start) // step)
        return None

    def _step(self, body, k: int) -> int | None:
        ir = self.ir
        ret = list(body.operations)[-1].operation
        nxt = _defining(ir, ret.operands[k])
        if nxt is None or nxt.name != "stablehlo.add":
            return None
        a, b = nxt.operands[0], nxt.operands[1]
        for x, y in ((a, b), (b, a)):
            x = _argument(ir, x)
            if x is not None and x.arg_number == k:
                return self.value(y)
        return None

    def value(self, v, depth: int = 0) -> int | None:
        """An integer scalar's value: a constant, a conversion or cast of one, or a size
        argument of the function (`scalars`)."""
        ir = self.ir
        if depth > 8:
            return None
        arg = _argument(ir, v)
        if arg is not None:
            if arg.owner.owner == self.func:
                return self.scalars.get(arg.arg_number)
            return None
        op = _defining(ir, v)
        if op is None:
            return None
        if op.name in ("stablehlo.constant", "arith.constant"):
            attr = op.attributes["value"].maybe_downcast()
            if isinstance(attr, ir.IntegerAttr):
                return attr.value
            if isinstance(attr, ir.DenseIntElementsAttr) and len(attr) >= 1:
                return int(attr[0])
            return None
        if op.name in ("stablehlo.convert", "stablehlo.reshape", "arith.index_cast", "arith.index_castui",
                       "tensor.extract"):
            return self.value(op.operands[0], depth + 1)
        return None


def _defining(ir, value):
    """The operation defining `value` (None for a block argument)."""
    value = value.maybe_downcast()
    return value.owner.operation if isinstance(value, ir.OpResult) else None


def _argument(ir, value):
    """`value` as a block argument, or None."""
    value = value.maybe_downcast()
    return value if isinstance(value, ir.BlockArgument) else None
