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
    ELEMENTWISE,
    Mask,
    View,
    is_block_argument,
    memref_of,
    loops_around,
    same_bounds,
)
from synth.synthesis.sketch_guards import guard_mask


class Locals:
    """The local-value methods of _StatementSketch."""

    def bind(self, iv: ir.Value, pos: int) -> None:
        """Loop index iv read as the loop at `pos`. A loop read twice as different loops
        (softmax's `e` loop: the element i of out[i] = e, then summed into `sum`) makes
        the values read so far stale: they are read again."""
        if iv in self.at and self.at[iv] != pos:
            self.memo.clear()
            self.views.clear()
        self.at[iv] = pos

    def local_value(self, array: ir.Value, use) -> View:
        """A local scalar read after its definition: the value of the store reaching the
        read (_reaching_store), or a store of an initial value outside any loop, then a
        loop nest adding into it (`nrm = 0; for i: nrm += a[i] * a[i]`): the initial
        value plus the term summed over that nest. NoSketch for a value carried from one
        iteration to the next (a recurrence: lowpass's `state += alpha * (x - state)`)."""
        key = (array, use.operation)
        if key in self.locals_read:  # the update reads the local itself (lowpass's state)
            raise NoSketch("a local scalar whose update reads its own previous value (a recurrence)")
        self.locals_read.add(key)
        try:
            return self._local_value(array, use)
        finally:
            self.locals_read.discard(key)

    def _local_value(self, array: ir.Value, use) -> View:
        stores = [u.owner for u in array.uses if u.owner.name in ("affine.store", "memref.store")]
        top = [st for st in stores if st.parent.name == "func.func"]
        nested = [st for st in stores if st.parent.name != "func.func"]
        reaching = _reaching_store(use, stores)
        if reaching is not None:
            # the last store before the read, with no loop storing it in between (`dx = P[i] -
            # Q[j]; ... dx * dx`; `ss /= size; ss += eps; ss = 1 / sqrt(ss)`): its value
            return self.read(reaching.operands[0])
        holder = None
        if len(top) != 1 or len(nested) > 1:
            # inside a loop around the statement (a row loop: `ss = 0; for j: ss += x[r][j] *
            # x[r][j]; ss = 1 / sqrt(ss / n); for j: y[r][j] = ss * x[r][j]`): the store
            # reaching the accumulating loop before the read, and the one store inside it
            holder = _holder(use, stores)
            first = _reaching_store(holder, stores) if holder is not None else None
            inner = [st for st in stores if holder is not None and _inside(st.operation, holder)]
            if first is None or len(inner) != 1:
                raise NoSketch("a local scalar that is not an initial value plus one accumulation")
            top, nested = [first], inner
        init = self.read(top[0].operands[0])
        if not nested:
            return init
        acc = nested[0]
        op = None if is_block_argument(acc.operands[0]) else acc.operands[0].owner
        extreme = _extreme(op, array) if op is not None else None
        if extreme is not None:
            return self.extreme_value(acc, top[0].operands[0], init, *extreme)
        if op is None or op.name not in ("arith.addf", "arith.addi"):
            raise NoSketch("a local scalar accumulated other than by a sum")
        own = [x for x in op.operands if not is_block_argument(x) and x.owner.name in ("affine.load", "memref.load")
               and memref_of(x.owner) == array]
        if len(own) != 1:
            raise NoSketch("a local scalar accumulated other than by a sum")
        term = next(x for x in op.operands if x != own[0])
        masks: list = []
        positions = []
        guards: list = []
        for f in loops_around(acc, "a local accumulation", guards):
            if holder is not None and not _inside(f.operation, holder):
                continue  # a loop around the statement too (the row loop): bound already
            pos = self.reader.place(f, self.loops, masks)
            self.bind(f.induction_variable, pos)
            positions.append(pos)
        # an affine.if around the accumulation (taps skipped outside an array): the term
        # masked where its conditions fail, before the sum (synth.synthesis.sketch_guards)
        masks += [guard_mask(self.reader, g, self.at, self.loops) for g in guards]
        self.read_plain_loads(term)
        total = self.summed(term, masks, frozenset(positions))
        value = top[0].operands[0]
        if not is_block_argument(value) and value.owner.name == "arith.constant" and \
                float(value.owner.attributes["value"].value) == 0.0:
            return total  # a sum from 0
        return self.sk.combine(ELEMENTWISE[self.dialect][op.name], init, total)

    def read_plain_loads(self, value: ir.Value) -> None:
        """Read the loads of arguments at loop indices plus constants in `value`'s
        expression first: a window's loops (conv1d's `in[i + k - 1]`) then take their
        extents from those reads (`k3[k]`: a size of its own at fixed sizes), as other
        views over them do."""
        seen, todo = set(), [value]
        while todo:
            v = todo.pop()
            if is_block_argument(v) or v in seen:
                continue
            seen.add(v)
            op = v.owner
            if op.name != "affine.load":
                todo += list(op.operands) if op.name.startswith(("arith.", "math.")) else []
                continue
            memref, idx = self.reader.access(op)
            k = self.reader.arg_index(memref)
            if k is not None and k in self.input_types and all(iv in self.at for iv, _ in idx):
                self.read(v)

    def extreme_value(self, acc, init_value: ir.Value, init: View, kind: str, term: ir.Value) -> View:
        """A local scalar updated to the larger (kind "max") or smaller of itself and a term
        in a loop nest (`if (x[i] > m) m = x[i]`): the term reduced over the nest, then
        combined with the initial value (left out where it is -inf for a max, +inf for a
        min). Where a term is NaN the original keeps its value and the reduction gives
        NaN: validation runs on numbers."""
        masks: list = []
        positions = []
        for f in loops_around(acc, "a local accumulation"):
            pos = self.reader.place(f, self.loops, masks)
            self.bind(f.induction_variable, pos)
            positions.append(pos)
        if masks:
            raise NoSketch("a max / min over a triangular loop nest")
        v = self.read(term)
        over = set(v.dims) & set(positions)
        if not over:
            raise NoSketch("a max / min of a term constant along its loops")
        for p in sorted(over, reverse=True):
            k = v.dims.index(p)
            v = View(self.sk.apply(f"reduce_{kind}", (v.expr,), (("dim", k),)), v.dims[:k] + v.dims[k + 1:])
        bound = float("-inf") if kind == "max" else float("inf")
        if not is_block_argument(init_value) and self.reader.fold(init_value) == bound:
            return v
        short = {"stablehlo": {"max": "maximum", "min": "minimum"}, "linalg": {"max": "max", "min": "min"}}
        return self.sk.combine(short[self.dialect][kind], init, v)

    def local_array_value(self, array: ir.Value, use) -> View:
        """A local array read where one store defined it: in a nest over the same ranges,
        at the same index (durbin's `z[i] = ...` then `y[i] = z[i]`): the stored value,
        its loop indices those of the read."""
        stores = [u.owner for u in array.uses if u.owner.name in ("affine.store", "memref.store")]
        if len(stores) != 1:
            raise NoSketch("a local array stored more than once")
        return self.defined_value(stores[0], use)

    def defined_value(self, define, use) -> View:
        """The value the store `define` wrote where the load `use` reads it: in a nest over
        the same ranges, at the same index (NoSketch else); the loop indices of the store
        those of the read."""
        outer, inner = loops_around(define, "a local array used"), loops_around(use, "a local array used")
        _, at_def = self.reader.access(define)
        _, at_use = self.reader.access(use)
        if len(outer) != len(inner) or not all(same_bounds(f, g) for f, g in zip(outer, inner)):
            raise NoSketch("a local array read over other ranges than it is written")
        position = {f.induction_variable: k for k, f in enumerate(outer)}
        for (a, c), (b, d) in zip(at_def, at_use):
            if a is None and b is None and c == d:  # one constant index (a column of a (n, 1) view)
                continue
            if c != d or a not in position or inner[position[a]].induction_variable != b:
                raise NoSketch("a local array read at another index than it is written")
        for f, g in zip(outer, inner):
            if g.induction_variable not in self.at:
                raise NoSketch("a local array read outside the statement's loops")
            self.bind(f.induction_variable, self.at[g.induction_variable])
        value = define.operands[0] if define.name == "memref.store" else define.opview.value
        return self.read(value)

    def iterated(self, f) -> View:
        """The result of a loop that sums into a scalar (`iter_args(%s = init)`, yielding
        `%s + term`): init plus the term summed over the loop's range (symm's temp2)."""
        try:
            add, term, init = carried_sum(f)
            nest = [f]
        except ValueError as e:
            found = self.arg_best(f)
            if found is not None:
                return found
            nested = _nested_sum(f)
            if nested is None:
                raise NoSketch(f"a loop that {e}") from None
            add, term, init, nest = nested
        masks: list[Mask] = []
        positions = set()
        for loop in nest:  # a sum over a nest (a 3x3 window's two loops), outermost first
            pos = self.reader.place(loop, self.loops, masks)
            self.bind(loop.induction_variable, pos)
            positions.add(pos)
        self.read_plain_loads(term)
        total = self.summed(term, masks, frozenset(positions))
        if not is_block_argument(init) and init.owner.name == "arith.constant" and \
                float(init.owner.attributes["value"].value) == 0.0:
            return total
        return self.sk.combine(ELEMENTWISE[self.dialect][add], self.read(init), total)


    def arg_best(self, f) -> View | None:
        """The index a loop keeps of its best term (BLAS's isamax: `m = |x[0]|; best = 0;
        for i from 1: if (|x[i]| > m) { m = |x[i]|; best = i; }`): argmax (strictly
        greater: the first of equal ones) or argmin of the term over the loop's range
        from one before its start, where the local m starts as the term there and best
        as that index. None where the loop is not of that form."""
        body = f.regions[0].blocks[0]
        args = list(body.arguments)
        if len(args) != 2 or len(list(f.results)) != 1:
            return None
        iv, best = args
        step = list(body.operations)[-1].operands[0]
        if is_block_argument(step) or step.owner.name != "arith.select" or step.owner.operands[2] != best:
            return None
        cond, index = step.owner.operands[0], step.owner.operands[1]
        while not is_block_argument(index) and index.owner.name in ("arith.index_cast", "arith.index_castui"):
            index = index.owner.operands[0]
        if index != iv or is_block_argument(cond) or cond.owner.name not in ("arith.cmpf", "arith.cmpi"):
            return None
        cmp = cond.owner
        table = _ORDERED if cmp.name == "arith.cmpf" else _SIGNED
        code = ir.IntegerAttr(cmp.attributes["predicate"]).value
        if code not in (2, 4):  # strict: cmpf ogt / olt, cmpi slt / sgt (>= would keep the last)
            return None
        x, y = cmp.operands
        local = lambda v: (not is_block_argument(v) and v.owner.name in ("affine.load", "memref.load")  # noqa: E731
                           and _local_scalar_of(v) is not None)
        if local(y) and not local(x):
            term, m, kind = x, _local_scalar_of(y), "max" if table[code] == "gt" else "min"
        elif local(x) and not local(y):
            term, m, kind = y, _local_scalar_of(x), "min" if table[code] == "gt" else "max"
        else:
            return None
        # m is updated with the same choice in the loop, and starts as the term one step before
        stores = [u.owner for u in m.uses if u.owner.name in ("affine.store", "memref.store")]
        inside = [st for st in stores if _inside(st.operation, f.operation)]
        if len(inside) != 1:
            return None
        update = inside[0].operands[0]
        if is_block_argument(update) or update.owner.name != "arith.select" or update.owner.operands[0] != cond \
                or not local(update.owner.operands[2]) or not self.same_at(update.owner.operands[1], term, iv, 0):
            return None
        masks: list = []
        pos = self.reader.place(f, self.loops, masks)
        if masks:
            return None
        first = self.loops[pos].lo - 1  # the term's index the locals start at
        start = _reaching_store(f, stores)
        init = list(f.operation.operands)[-1]
        if start is None or self.reader.fold(init) != first or \
                not self.same_at(start.operands[0], term, iv, -1):
            return None
        self.loops[pos].lo = first
        self.bind(iv, pos)
        v = self.read(term)
        if pos not in v.dims:
            raise NoSketch("a best term constant along its loop")
        dtype = str(best.type)
        v = View(self.sk.apply(f"arg{kind}", (v.expr,), (("dim", v.dims.index(pos)), ("dtype", dtype))),
                  tuple(p for p in v.dims if p != pos))
        if first:
            v = self.sk.combine(ELEMENTWISE[self.dialect]["arith.addi"], v, self.sk.constant(first))
        return v

    def same_at(self, a: ir.Value, b: ir.Value, iv: ir.Value, shift: int) -> bool:
        """Whether `a` is the value `b` has where loop index iv is one of its box's own
        values plus `shift` (0: `b` itself; -1: `b` one iteration before the first):
        the same ops on the same values, loads at indices shifted so."""
        if a == b and shift == 0:
            return True
        if is_block_argument(a) or is_block_argument(b):
            return a == b
        oa, ob = a.owner, b.owner
        if oa.name != ob.name:
            return False
        if oa.name == "affine.load":
            (ma, ia), (mb, ib) = self.reader.access(oa), self.reader.access(ob)
            if ma != mb or len(ia) != len(ib):
                return False
            box = next((l for l in self.loops if l.iv == iv), None)
            for (va, ca), (vb, cb) in zip(ia, ib):
                if vb == iv:
                    first = (box.lo if box is not None else None)
                    if shift == 0 and va == iv and ca == cb:
                        continue
                    if va is not None or first is None or ca != first + shift + cb:
                        return False
                elif (va, ca) != (vb, cb):
                    return False
            return True
        if _attributes(oa) != _attributes(ob) or len(oa.operands) != len(ob.operands):
            return False
        return all(self.same_at(x, y, iv, shift) for x, y in zip(oa.operands, ob.operands))


def _nested_sum(f):
    """(the addition's op name, term, init, the loops outermost first) for a loop nest
    that sums into one carried value: each loop's yield the result of the next, whose
    initial value is the carried one (read by nothing else), the innermost a carried
    sum (collect.carried_sum); None for other loops."""
    body = f.regions[0].blocks[0]
    if len(list(f.results)) != 1 or len(list(body.arguments)) != 2:
        return None
    carried, step = body.arguments[1], list(body.operations)[-1].operands[0]
    inner = None if is_block_argument(step) else step.owner
    if inner is None or inner.name != "affine.for" or list(inner.operands)[-1] != carried \
            or len(list(carried.uses)) != 1:
        return None
    try:
        add, term, _ = carried_sum(inner.opview)
        rest = [inner.opview]
    except ValueError:
        found = _nested_sum(inner.opview)
        if found is None:
            return None
        add, term, _, rest = found
    return add, term, list(f.operation.operands)[-1], [f] + rest


def _attributes(op) -> list:
    """An op's attributes as (name, text) pairs, sorted."""
    names = [n if isinstance(n, str) else n.name for n in op.attributes]
    return sorted((n, str(op.attributes[n])) for n in names)


def _local_scalar_of(load: ir.Value):
    """The local scalar a load reads (a memref.alloca of one element), or None."""
    memref = memref_of(load.owner)
    if is_block_argument(memref) or memref.owner.name != "memref.alloca":
        return None
    return memref if all(n == 1 for n in ir.MemRefType(memref.type).shape) else None


_ORDERED = {2: "gt", 3: "gt", 4: "lt", 5: "lt", 9: "gt", 10: "gt", 11: "lt", 12: "lt"}  # cmpf o/u gt ge lt le
_SIGNED = {4: "gt", 5: "gt", 2: "lt", 3: "lt"}  # cmpi sgt sge slt sle
_MAXMIN = {"arith.maximumf": "max", "arith.maxnumf": "max", "arith.maxsi": "max",
           "arith.minimumf": "min", "arith.minnumf": "min", "arith.minsi": "min"}


def _extreme(op, array: ir.Value):
    """("max" | "min", term) where `op` computes the larger / smaller of a load of the
    local `array` and a term: select(cmp(a, b), a, b) over those two (either order) or a
    max / min op; None else."""
    def own(x):
        return not is_block_argument(x) and x.owner.name in ("affine.load", "memref.load") \
            and memref_of(x.owner) == array
    if op.name in _MAXMIN:
        a, b = op.operands
        if own(a) != own(b):
            return _MAXMIN[op.name], (b if own(a) else a)
        return None
    if op.name != "arith.select" or is_block_argument(op.operands[0]):
        return None
    cmp, t, f = op.operands[0].owner, op.operands[1], op.operands[2]
    table = _ORDERED if cmp.name == "arith.cmpf" else _SIGNED if cmp.name == "arith.cmpi" else None
    if table is None or own(t) == own(f):
        return None
    word = table.get(ir.IntegerAttr(cmp.attributes["predicate"]).value)
    a, b = cmp.operands
    # the compared values matched to the chosen ones (loads of one element match each other)
    same = lambda x, y: (own(x) and own(y)) or _same_load(x, y)  # noqa: E731
    if word is None or not ((same(a, t) and same(b, f)) or (same(a, f) and same(b, t))):
        return None
    picks_a = same(a, t)  # true -> a
    kind = ("max" if picks_a else "min") if word == "gt" else ("min" if picks_a else "max")
    return kind, (f if own(t) else t)


def _same_load(x: ir.Value, y: ir.Value) -> bool:
    """x and y are one value, or loads of one element (the same memref, map and indices)."""
    if x == y:
        return True
    if is_block_argument(x) or is_block_argument(y) or x.owner.name != "affine.load" \
            or y.owner.name != "affine.load":
        return False
    a, b = x.owner.opview, y.owner.opview
    return a.memref == b.memref and str(a.map) == str(b.map) and list(a.indices) == list(b.indices)


def _holder(use, stores: list):
    """The op before the load `use` (in its block, else in the blocks around it) that
    holds one of `stores` (a loop accumulating into the local); None where a store itself
    comes first or none does."""
    targets = [st.operation for st in stores]
    op = use.operation
    while True:  # its block, then the blocks around it up to the function's
        ops = [o.operation for o in op.block.operations]
        at = next(k for k, o in enumerate(ops) if o == op)
        for o in reversed(ops[:at]):
            if any(o == t for t in targets):
                return None
            if any(_inside(t, o) for t in targets):
                return o
        if op.parent is None or op.parent.name == "func.func":
            return None
        op = op.parent.operation


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
