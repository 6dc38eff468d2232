"""Dependence analysis and loop distribution of affine functions.

A *statement* is one `affine.store`; its computation is the backward slice of the stored
value and of its indices: loads, arith/math ops, and values carried through `iter_args`,
loop results and `affine.if` results. Distribution splits a function into groups of
statements; each group runs the whole original function restricted to its statements
(`split_function`), group after group.

Dependences are memory-based (flow, anti and output) between access instances, computed
with isl at concrete sizes: the domain of an access comes from the enclosing `affine.for`
bounds and steps and the `affine.if` conditions, its schedule from the textual positions
interleaved with the induction variables. Whatever cannot be expressed exactly (a bound
through `affine.min`, a non-affine index) is over-approximated (dropped constraint,
unconstrained index), which only adds dependences. A statement depends on another when
some instance of an access of the second (its store, or a load of its computation)
conflicts with and runs before one of the first. Groups are the strongly connected
components of that graph in a topological order that keeps the original order where it can.

Local buffers (`memref.alloca`/`alloc`) live inside one call, so all statements touching
one local are fused. Things the model cannot represent at all (`memref.store`, ops with
regions or effects other than the affine ones, loop bounds read from memory, memrefs that
are neither arguments nor locals) make the whole function one group.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import islpy as isl
from mlir import ir

from synth.errors import InputError
from synth.analysis.function import find_function
from synth.frontend.reader import SourceModule
from synth.analysis.affine_expr import integer_set, isl_text, isl_wrap

LOADS = ("affine.load", "memref.load")
ALLOCS = ("memref.alloca", "memref.alloc")
# ops without side effects: dead once their results are unused
_PURE_OPS = {"affine.load", "affine.apply", "affine.min", "affine.max", "memref.load", *ALLOCS}
_PURE_DIALECTS = ("arith", "math")
REGION_OPS = ("affine.for", "affine.if")
_OTHER_OPS = {"affine.store", "affine.yield", "memref.dealloc", "func.return"}


def is_pure(name: str) -> bool:
    """Whether an op of this name has no side effects (a pure op or dialect)."""
    return name in _PURE_OPS or name.split(".")[0] in _PURE_DIALECTS


class Unmodelled(Exception):
    """The function does something the dependence model cannot represent."""


@dataclass
class Statement:
    id: int  # index of the affine.store in a pre-order walk of the function body
    array: int | None  # function-argument index of the memref it stores to (None for a local)
    depth: int  # number of enclosing affine.for loops
    top_level: int  # index of the enclosing top-level op in the function body


@dataclass
class DependenceGraph:
    statements: list[Statement]
    edges: set[tuple[int, int]]  # (s, t): some instance of s must run before one of t
    fallback: str | None = None  # why the function stays one group, if it does


# ----------------------------------------------------------------------------------------
# walking


def function_body(module: ir.Module, func_name: str, path: str = "<module>") -> ir.Block:
    """The entry block of @func_name in `module`; InputError (naming `path`) when there is none."""
    func = find_function(module, func_name)
    if func is None or len(func.regions[0].blocks) == 0:
        raise InputError(f"no function @{func_name} with a body in the module", path)
    return func.regions[0].blocks[0]


def preorder(block: ir.Block, depth: int = 0):
    """(op, number of enclosing affine.for loops inside `block`) in pre-order."""
    for op in block.operations:
        op = op.operation
        yield op, depth
        inner = depth + (op.name == "affine.for")
        for region in op.regions:
            for b in region.blocks:
                yield from preorder(b, inner)


def stores_in(body: ir.Block) -> list[ir.Operation]:
    """The affine.store ops in `body`, nested ones included, in program order."""
    return [op for op, _ in preorder(body) if op.name == "affine.store"]


def _arg_index(value: ir.Value, body: ir.Block) -> int | None:
    if isinstance(value, ir.BlockArgument) and value.owner == body:
        return value.arg_number
    return None


def statements(module: ir.Module, func_name: str) -> list[Statement]:
    """The affine.store statements of a function, in pre-order (caller's context)."""
    body = function_body(module, func_name)
    out: list[Statement] = []
    for top, top_op in enumerate(body.operations):
        top_op = top_op.operation
        ops = [(top_op, 0)] + [
            (op, d) for region in top_op.regions for b in region.blocks
            for op, d in preorder(b, int(top_op.name == "affine.for"))
        ]
        for op, depth in ops:
            if op.name == "affine.store":
                out.append(Statement(len(out), _arg_index(op.operands[1], body), depth, top))
    return out


def block_terminator(block: ir.Block) -> ir.Operation:
    """The last op of `block` (its terminator)."""
    ops = list(block.operations)
    return ops[-1].operation


# ----------------------------------------------------------------------------------------
# the polyhedral model of a function


@dataclass
class _Access:
    name: str  # isl tuple of its instances
    array: str | None  # isl tuple of the array; None for a local buffer
    local: int | None  # index of the local buffer it touches
    write: bool
    relation: isl.Map | None  # instance -> element (None for a local)
    schedule: list[str]  # schedule coordinates over the enclosing induction variables
    ivs: list[str]
    domain: isl.Set


class _Model:
    """Accesses of one function with their domains, relations and schedules."""

    def __init__(self, body: ir.Block, sizes: dict[int, int]):
        self.body = body
        self.sizes = sizes
        self.params: set[str] = set()
        self.iv_names: dict[ir.Value, str] = {}
        self.locals: dict[ir.Value, int] = {}
        self.accesses: list[_Access] = []
        self.store_access: list[int] = []  # statement id -> access index
        self.load_access: dict[ir.Value, int] = {}
        self._walk(body, isl.Set("{ [] }"), [], [])

    # -- values -----------------------------------------------------------------------
    def _argument(self, k: int) -> str:
        if k in self.sizes:
            return str(self.sizes[k])
        self.params.add(f"p{k}")
        return f"p{k}"

    def _value_expr(self, value: ir.Value) -> str | None:
        """isl expression of an index value, None if it is not an affine function of
        induction variables, constants and size parameters."""
        if value in self.iv_names:
            return self.iv_names[value]
        if isinstance(value, ir.BlockArgument):
            k = _arg_index(value, self.body)
            return self._argument(k) if k is not None and str(value.type) in ("i32", "i64", "index", "i16") else None
        owner = value.owner
        name = owner.name
        if name in ("arith.index_cast", "arith.index_castui"):
            k = _arg_index(owner.operands[0], self.body)
            return self._argument(k) if k is not None else None
        if name == "arith.constant":
            attr = owner.attributes["value"]
            return str(ir.IntegerAttr(attr).value) if isinstance(attr, ir.IntegerAttr) else None
        if name == "affine.apply":
            amap = owner.opview.map.value
            operands = [self._value_expr(v) for v in owner.operands]
            return isl_text(amap.results[0], operands[: amap.n_dims], operands[amap.n_dims:])
        return None

    def _map_exprs(self, amap: ir.AffineMap, operands: list[ir.Value], *, control: bool) -> list[str | None]:
        values = [self._value_expr(v) for v in operands]
        if control:
            for v, e in zip(operands, values):
                if e is None and _slice_loads([v]):
                    raise Unmodelled("a loop bound or affine.if condition depends on memory")
        return [isl_text(r, values[: amap.n_dims], values[amap.n_dims:]) for r in amap.results]

    def _set(self, ivs: list[str], constraints: list[str]) -> isl.Set:
        params = f"[{', '.join(sorted(self.params))}] -> " if self.params else ""
        where = f" : {' and '.join(constraints)}" if constraints else ""
        return isl.Set(f"{params}{{ [{', '.join(ivs)}]{where} }}")

    # -- walk ---------------------------------------------------------------------------
    def _walk(self, block: ir.Block, domain: isl.Set, ivs: list[str], schedule: list[str]) -> None:
        for pos, op in enumerate(block.operations):
            op = op.operation
            name = op.name
            if name == "affine.for":
                self._loop(op, pos, domain, ivs, schedule)
            elif name == "affine.if":
                self._if(op, pos, domain, ivs, schedule)
            elif name in LOADS or name == "affine.store":
                self._access(op, domain, ivs, schedule + [str(pos)])
            elif name in ALLOCS:
                self.locals[op.results[0]] = len(self.locals)
            elif name == "memref.store":
                raise Unmodelled("memref.store is not a statement (only affine.store is)")
            elif not (is_pure(name) or name in _OTHER_OPS) or len(op.regions):
                raise Unmodelled(f"operation '{name}' is not modelled")

    def _loop(self, op, pos, domain, ivs, schedule) -> None:
        view = op.opview
        iv = f"i{len(ivs)}"
        inner = ivs + [iv]
        lbm, ubm = view.lowerBoundMap.value, view.upperBoundMap.value
        lbs = self._map_exprs(lbm, list(view.lowerBoundOperands), control=True)
        ubs = self._map_exprs(ubm, list(view.upperBoundOperands), control=True)
        constraints = [f"{iv} >= {e}" for e in lbs if e is not None]
        constraints += [f"{iv} < {e}" for e in ubs if e is not None]
        step = ir.IntegerAttr(view.step).value if isinstance(view.step, ir.Attribute) else int(view.step)
        if step > 1 and len(lbs) == 1 and lbs[0] is not None:
            constraints.append(f"exists (e0 : {iv} = {isl_wrap(lbs[0])} + {step}*e0)")
        inner_domain = domain.add_dims(isl.dim_type.set, 1).intersect(self._set(inner, constraints))
        self.iv_names[view.induction_variable] = iv
        self._walk(view.body, inner_domain, inner, schedule + [str(pos), iv])

    def _if(self, op, pos, domain, ivs, schedule) -> None:
        view = op.opview
        try:
            amap, eqs = integer_set(view.condition)
            read = amap.n_dims, list(zip(amap.results, eqs))
        except (ir.MLIRError, ValueError):
            read = None
        then_set, exact = self._set(ivs, []), False
        if read is not None:
            n_dims, constraints = read
            operands = list(op.operands)
            values = [self._value_expr(v) for v in operands]
            for v, e in zip(operands, values):
                if e is None and _slice_loads([v]):
                    raise Unmodelled("an affine.if condition depends on memory")
            texts = []
            for expr, eq in constraints:
                e = isl_text(expr, values[:n_dims], values[n_dims:])
                if e is not None:
                    texts.append(f"{e} {'=' if eq else '>='} 0")
            then_set, exact = self._set(ivs, texts), len(texts) == len(constraints)
        self._walk(view.then_block, domain.intersect(then_set), ivs, schedule + [str(pos), "0"])
        if len(view.elseRegion.blocks):
            else_domain = domain.subtract(then_set) if exact else domain
            self._walk(view.else_block, else_domain, ivs, schedule + [str(pos), "1"])

    def _access(self, op, domain, ivs, schedule) -> None:
        name = op.name
        write = name == "affine.store"
        memref = op.operands[1 if write else 0]
        if name == "memref.load":
            exprs = [self._value_expr(v) for v in list(op.operands)[1:]]
        else:
            view = op.opview
            exprs = self._map_exprs(view.map.value, list(view.indices), control=False)
        k = _arg_index(memref, self.body)
        if k is not None:
            array, local = f"A{k}", None
        elif memref in self.locals:
            array, local = None, self.locals[memref]
        else:
            raise Unmodelled(f"{name} on a memref that is neither an argument nor a local buffer")
        tuple_name = f"P{len(self.accesses)}"
        outs = [f"o{d}" for d in range(len(exprs))]
        cons = [f"o{d} = {e}" for d, e in enumerate(exprs) if e is not None]
        params = f"[{', '.join(sorted(self.params))}] -> " if self.params else ""
        where = f" : {' and '.join(cons)}" if cons else ""
        relation = None
        if array is not None:
            relation = isl.Map(f"{params}{{ {tuple_name}[{', '.join(ivs)}] -> "
                               f"{array}[{', '.join(outs)}]{where} }}")
            relation = relation.intersect_domain(domain.set_tuple_name(tuple_name))
        access = _Access(tuple_name, array, local, write, relation, schedule, ivs, domain)
        if write:
            self.store_access.append(len(self.accesses))
        else:
            self.load_access[op.results[0]] = len(self.accesses)
        self.accesses.append(access)

    # -- dependences --------------------------------------------------------------------
    def schedule_map(self, access: _Access, length: int) -> isl.Map:
        coords = access.schedule + ["0"] * (length - len(access.schedule))
        params = f"[{', '.join(sorted(self.params))}] -> " if self.params else ""
        text = f"{params}{{ {access.name}[{', '.join(access.ivs)}] -> [{', '.join(coords)}] }}"
        return isl.Map(text).intersect_domain(access.domain.set_tuple_name(access.name))


def backward_slice(roots: list[ir.Value], around_loops: bool, strict: bool) -> set[ir.Value]:
    """The values (op results and block arguments) that the values in `roots` are computed
    from: through pure ops, load indices and loop/if results; with `around_loops` also
    through iter_args (their inits and the values yielded to them: every iteration), else
    within one iteration. `strict`: Unmodelled on any other op, else it ends the walk."""
    seen: set[ir.Value] = set()
    stack = list(roots)
    while stack:
        value = stack.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, ir.BlockArgument):
            parent = value.owner.owner
            if around_loops and parent is not None and parent.name == "affine.for" and value.arg_number > 0:
                k = value.arg_number - 1
                view = parent.opview
                stack += [list(view.inits)[k], block_terminator(view.body).operands[k]]
            continue  # induction variables and function arguments
        op = value.owner
        name = op.name
        if name in LOADS:
            stack += list(op.operands)[1:]
        elif name == "affine.for":
            view = op.opview
            k = value.result_number
            stack += [list(view.inits)[k], block_terminator(view.body).operands[k]]
        elif name == "affine.if":
            view = op.opview
            stack.append(block_terminator(view.then_block).operands[value.result_number])
            if len(view.elseRegion.blocks):
                stack.append(block_terminator(view.else_block).operands[value.result_number])
        elif is_pure(name):
            stack += list(op.operands)
        elif strict:
            raise Unmodelled(f"a stored value comes from '{name}'")
    return seen


def _slice_loads(roots: list[ir.Value]) -> set[ir.Value]:
    """Results of the loads that the values in `roots` are computed from, through pure ops,
    loop/if results and iter_args; load indices are followed too."""
    return {v for v in backward_slice(roots, around_loops=True, strict=True)
            if isinstance(v, ir.OpResult) and v.owner.name in LOADS}


def store_inputs(store: ir.Operation) -> list[ir.Value]:
    """The values a store's effect depends on: the stored value and the indices."""
    operands = list(store.operands)
    return [operands[0]] + operands[2:]


def _statement_edges(model: _Model, stores: list[ir.Operation]) -> set[tuple[int, int]]:
    owners: dict[int, set[int]] = {a: {s} for s, a in enumerate(model.store_access)}
    for s, store in enumerate(stores):
        for load in _slice_loads(store_inputs(store)):
            owners.setdefault(model.load_access[load], set()).add(s)
    edges: set[tuple[int, int]] = set()

    # statements sharing a local buffer run in one group: a cycle through all of them
    by_local: dict[int, set[int]] = {}
    for a, access in enumerate(model.accesses):
        if access.local is not None and a in owners:
            by_local.setdefault(access.local, set()).update(owners[a])
    for members in by_local.values():
        ring = sorted(members)
        edges |= {(s, t) for s, t in zip(ring, ring[1:] + ring[:1]) if s != t}

    live = [a for a in owners if model.accesses[a].array is not None]
    if not live:
        return edges
    length = max(len(model.accesses[a].schedule) for a in live)
    writes = reads = schedule = None
    for a in live:
        access = model.accesses[a]
        relation = isl.UnionMap.from_map(access.relation)
        if access.write:
            writes = relation if writes is None else writes.union(relation)
        else:
            reads = relation if reads is None else reads.union(relation)
        sched = isl.UnionMap.from_map(model.schedule_map(access, length))
        schedule = sched if schedule is None else schedule.union(sched)
    if writes is None:
        return edges
    conflicts = writes.apply_range(writes.reverse())
    if reads is not None:
        conflicts = conflicts.union(writes.apply_range(reads.reverse()))
        conflicts = conflicts.union(reads.apply_range(writes.reverse()))
    deps = conflicts.intersect(schedule.lex_lt_union_map(schedule))
    index = {model.accesses[a].name: a for a in live}
    pairs: list[tuple[str, str]] = []

    def record(m: isl.Map) -> None:
        if not m.is_empty():
            pairs.append((m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)))

    deps.foreach_map(record)
    for src, dst in pairs:
        for s in owners[index[src]]:
            edges |= {(s, t) for t in owners[index[dst]] if s != t}
    return edges


# ----------------------------------------------------------------------------------------
# groups


def _components(n: int, edges: set[tuple[int, int]]) -> list[list[int]]:
    """Strongly connected components (Tarjan), each sorted."""
    succ: dict[int, list[int]] = {v: [] for v in range(n)}
    for s, t in sorted(edges):
        succ[s].append(t)
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    out: list[list[int]] = []

    def visit(v: int) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in range(n):
        if v not in index:
            visit(v)
    return out


def order_groups(n: int, edges: set[tuple[int, int]]) -> list[list[int]]:
    """SCCs of the statement graph in a topological order; among the components ready to
    run, the one holding the earliest statement goes first (original order where legal)."""
    comps = _components(n, edges)
    comp_of = {v: c for c, comp in enumerate(comps) for v in comp}
    succ: dict[int, set[int]] = {c: set() for c in range(len(comps))}
    indegree = [0] * len(comps)
    for s, t in edges:
        a, b = comp_of[s], comp_of[t]
        if a != b and b not in succ[a]:
            succ[a].add(b)
            indegree[b] += 1
    ready = [(comps[c][0], c) for c in range(len(comps)) if indegree[c] == 0]
    heapq.heapify(ready)
    order: list[list[int]] = []
    while ready:
        _, c = heapq.heappop(ready)
        order.append(comps[c])
        for d in succ[c]:
            indegree[d] -= 1
            if indegree[d] == 0:
                heapq.heappush(ready, (comps[d][0], d))
    return order


def dependence_graph(source: SourceModule, func_name: str, sizes: dict[int, int]) -> DependenceGraph:
    """Statements of @func_name and the dependences between them at the given sizes."""
    with source.context:
        module = source.parsed()
        body = function_body(module, func_name, source.path)
        stmts = statements(module, func_name)
        try:
            model = _Model(body, sizes)
            edges = _statement_edges(model, stores_in(body))
        except Unmodelled as e:
            everything = {(s, (s + 1) % len(stmts)) for s in range(len(stmts))} if len(stmts) > 1 else set()
            return DependenceGraph(stmts, everything, str(e))
    return DependenceGraph(stmts, edges)


def recurrences(source: SourceModule, func_name: str, sizes: dict[int, int]) -> dict[int, int]:
    """Statement id -> the argument it reads at elements that earlier instances of itself
    wrote, other than the element each instance writes: a recurrence (x[i] from x[i - 1]),
    which no tensor op computes from the inputs alone. A reduction (C[i][j] += ..., read
    and written at one element) is not one. Empty where the model cannot represent the
    function. For messages: why a statement has no program."""
    with source.context:
        module = source.parsed()
        body = function_body(module, func_name, source.path)
        stores = stores_in(body)
        out: dict[int, int] = {}
        try:
            model = _Model(body, sizes)
            for s, store in enumerate(stores):
                write = model.accesses[model.store_access[s]]
                if write.array is None:
                    continue
                for load in _slice_loads(store_inputs(store)):
                    read = model.accesses[model.load_access[load]]
                    if read.array != write.array or s in out:
                        continue
                    same = read.relation.set_tuple_name(isl.dim_type.in_, write.name)
                    if same.is_equal(write.relation):
                        continue  # an accumulation into the element it writes
                    length = max(len(write.schedule), len(read.schedule))
                    order = isl.UnionMap.from_map(model.schedule_map(write, length)).union(
                        isl.UnionMap.from_map(model.schedule_map(read, length)))
                    flow = isl.UnionMap.from_map(write.relation).apply_range(
                        isl.UnionMap.from_map(read.relation).reverse())
                    if not flow.intersect(order.lex_lt_union_map(order)).is_empty():
                        out[s] = int(write.array[1:])
        except (Unmodelled, isl.Error):
            return {}
    return out


ACCUMULATORS = ("arith.addf", "arith.mulf", "arith.addi", "arith.muli", "arith.maxnumf",
                 "arith.minnumf", "arith.maximumf", "arith.minimumf", "arith.maxsi", "arith.minsi",
                 "arith.subf", "arith.subi")  # the two subtractions with the accumulator on the left


def statement_groups(source: SourceModule, func_name: str, sizes: dict[int, int]) -> list[list[int]]:
    """Partition of statement ids into groups, in an execution order, such that running the
    original function restricted to each group, group after group, is equivalent to it;
    as fine as the dependences allow (see the module docstring). `sizes` gives concrete
    values of size parameters (argument index -> value); others stay symbolic."""
    graph = dependence_graph(source, func_name, sizes)
    return order_groups(len(graph.statements), graph.edges)


