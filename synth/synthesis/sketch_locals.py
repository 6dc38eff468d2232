"""Local scalars and arrays read by a statement of the sketch tactic
(synth.synthesis.sketch): a local's value where it is read (the store reaching the
read, or an initial value plus an accumulation), a local array defined by one store, a
loop summing into a scalar. A mixin of _StatementSketch: `self` holds the reading state
(reader, loops, at, sk, memo) and `read` / `summed`."""

from __future__ import annotations

from mlir import ir

from synth.analysis.collect import carried_sum
from synth.synthesis.sketch_reader import (
    NoSketch,
    _ELEMENTWISE,
    _Mask,
    _View,
    _is_block_argument,
    _memref,
    _nest,
    _same_bounds,
)


class _Locals:
    """The local-value methods of _StatementSketch."""

    def local_value(self, array: ir.Value, use) -> _View:
        """A local scalar read after its definition: the value of the store reaching the
        read (_reaching_store), or a store of an initial value outside any loop, then a
        loop nest adding into it (`nrm = 0; for i: nrm += a[i] * a[i]`): the initial
        value plus the term summed over that nest. NoSketch for a value carried from one
        iteration to the next (a recurrence: lowpass's `state += alpha * (x - state)`)."""
        anchor = _top_level(use)
        key = (array, anchor)
        if key in self.locals_read:  # the update reads the local itself (lowpass's state)
            raise NoSketch("a local scalar whose update reads its own previous value (a recurrence)")
        self.locals_read.add(key)
        try:
            return self._local_value(array, use, anchor)
        finally:
            self.locals_read.discard(key)

    def _local_value(self, array: ir.Value, use, anchor) -> _View:
        stores = [u.owner for u in array.uses if u.owner.name in ("affine.store", "memref.store")]
        top = [st for st in stores if st.parent.name == "func.func"]
        nested = [st for st in stores if st.parent.name != "func.func"]
        reaching = _reaching_store(use, stores)
        if reaching is not None:
            # the last store before the read, with no loop storing it in between (`dx = P[i] -
            # Q[j]; ... dx * dx`; `ss /= size; ss += eps; ss = 1 / sqrt(ss)`): its value
            return self.read(reaching.operands[0])
        if len(top) != 1 or len(nested) > 1:
            raise NoSketch("a local scalar that is not an initial value plus one accumulation")
        init = self.read(top[0].operands[0])
        if not nested:
            return init
        acc = nested[0]
        op = None if _is_block_argument(acc.operands[0]) else acc.operands[0].owner
        if op is None or op.name not in ("arith.addf", "arith.addi"):
            raise NoSketch("a local scalar accumulated other than by a sum")
        own = [x for x in op.operands if not _is_block_argument(x) and x.owner.name in ("affine.load", "memref.load")
               and _memref(x.owner) == array]
        if len(own) != 1:
            raise NoSketch("a local scalar accumulated other than by a sum")
        term = next(x for x in op.operands if x != own[0])
        masks: list = []
        positions = []
        for f in _nest(acc, "a local accumulation"):
            pos = self.reader.place(f, self.loops, masks)
            self.at[f.induction_variable] = pos
            positions.append(pos)
        total = self.summed(term, masks, frozenset(positions))
        value = top[0].operands[0]
        if not _is_block_argument(value) and value.owner.name == "arith.constant" and \
                float(value.owner.attributes["value"].value) == 0.0:
            return total  # a sum from 0
        return self.sk.combine(_ELEMENTWISE[self.dialect][op.name], init, total)

    def local_array_value(self, array: ir.Value, use) -> _View:
        """A local array read where one store defined it: in a nest over the same ranges,
        at the same index (durbin's `z[i] = ...` then `y[i] = z[i]`): the stored value,
        its loop indices those of the read."""
        stores = [u.owner for u in array.uses if u.owner.name in ("affine.store", "memref.store")]
        if len(stores) != 1:
            raise NoSketch("a local array stored more than once")
        define = stores[0]
        outer, inner = _nest(define, "a local array used"), _nest(use, "a local array used")
        _, at_def = self.reader.access(define)
        _, at_use = self.reader.access(use)
        if len(outer) != len(inner) or not all(_same_bounds(f, g) for f, g in zip(outer, inner)):
            raise NoSketch("a local array read over other ranges than it is written")
        position = {f.induction_variable: k for k, f in enumerate(outer)}
        for (a, c), (b, d) in zip(at_def, at_use):
            if c != d or a not in position or inner[position[a]].induction_variable != b:
                raise NoSketch("a local array read at another index than it is written")
        for f, g in zip(outer, inner):
            if g.induction_variable not in self.at:
                raise NoSketch("a local array read outside the statement's loops")
            self.at[f.induction_variable] = self.at[g.induction_variable]
        value = define.operands[0] if define.name == "memref.store" else define.opview.value
        return self.read(value)

    def iterated(self, f) -> _View:
        """The result of a loop that sums into a scalar (`iter_args(%s = init)`, yielding
        `%s + term`): init plus the term summed over the loop's range (symm's temp2)."""
        try:
            add, term, init = carried_sum(f)
        except ValueError as e:
            raise NoSketch(f"a loop that {e}") from None
        masks: list[_Mask] = []
        pos = self.reader.place(f, self.loops, masks)
        self.at[f.induction_variable] = pos
        total = self.summed(term, masks, frozenset({pos}))
        if not _is_block_argument(init) and init.owner.name == "arith.constant" and \
                float(init.owner.attributes["value"].value) == 0.0:
            return total
        return self.sk.combine(_ELEMENTWISE[self.dialect][add], self.read(init), total)


def _top_level(op):
    """The operation of the function's body that is or holds `op`."""
    op = op.operation
    while op.parent is not None and op.parent.name != "func.func":
        op = op.parent
    return op


def _reaching_store(use, stores: list):
    """The store of `stores` (to one local scalar) whose value the load `use` reads: the
    last one before it in its block, else in the blocks around it (past ops that store
    none of them); None where an op in between holds one (a loop accumulating into it).
    NoSketch where the read is inside a loop that stores the local after it (a value
    carried from the previous iteration: a recurrence)."""
    targets = [st.operation for st in stores]
    holds = lambda o: any(_inside(t, o) for t in targets)  # noqa: E731
    op = use.operation
    while True:
        ops = [o.operation for o in op.block.operations]
        at = next(k for k, o in enumerate(ops) if o == op)
        for o in reversed(ops[:at]):
            if any(o == t for t in targets):
                return o
            if holds(o):
                return None
        parent = op.parent
        if parent is None or parent.name == "func.func":
            return None
        if holds(parent):
            raise NoSketch("a local scalar read before the loop body stores it (a recurrence)")
        op = parent.operation


def _inside(op, holder) -> bool:
    """Whether `op` is `holder` or nested in it."""
    while op is not None:
        if op == holder:
            return True
        op = op.parent.operation if op.parent is not None and op.parent.name != "func.func" else None
    return False
