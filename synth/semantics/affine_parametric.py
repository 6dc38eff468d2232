"""The original affine function at symbolic sizes: each output array as a term of a
symbolic element index (synth.semantics.parametric), for the all-size proof.

The sizes are the kernel's size symbols (synth.analysis.sizes): a loop bound, index or
condition constant the size model names is its expression in the symbols, a size
argument is its symbol. Loops are not unrolled; each is summarised once, from one run of
its body at a symbolic iteration `v`, with the arrays it writes as unknown functions
`X_in` (their contents when iteration `v` starts):

- a read `Y_in(y)` that no earlier iteration can have written (decided by z3 over the
  integers, every size symbolic) reads the contents from before the loop;
- an array whose iteration writes no longer read any `_in` contents, and whose written
  elements pin the iteration (`x1 == v`), is written by exactly one iteration per
  element: its final contents are the body's at that iteration (a parallel loop);
- an array whose update is `X_in(x) + d` with `d` free of `_in` contents is a sum
  reduction: `before(x) + SUM(lb, ub, Lambda([v], If(written, d, 0)))`;
- a loop carrying one value that it sums (`iter_args(%s = init)`, yielding `%s + t` with
  `t` free of the arrays the loop writes) results in `init + SUM(lb, ub, Lambda([v], t))`;
- anything else (a recurrence, a max reduction, other carried values, a step) is
  outside the model: NotParametric, and the proof falls back to bounded sizes.

Arrays are functions from index tuples to terms (Python closures); the element type's
sort is Real for floats and Int for integers, as in the bounded executor."""

from __future__ import annotations

import itertools

import z3
from mlir import ir

from synth.analysis.collect import split_const, walk
from synth.analysis.model import Kernel
from synth.analysis.symbols import SizeExpr
from synth.semantics import z3sem
from synth.analysis.affine_expr import integer_set
from synth.semantics.parametric import (NotParametric, is_sum, make_sum, mentions, open_sum, query_ms, solve_for,
                                        zero)
from synth.semantics.affine_closed import (
    Array,
    carried_step,
    closed,
    closed_cases,
    closed_guard,
    conjuncts,
    max_of,
    min_of,
    pins,
    reads_in,
)
from synth.semantics.canonical import assume, canonical
from synth.semantics.scalar import ARITH_MATH, INT_CASTS, Unsupported, cmpf, cmpi, int_cast, type_width

EARLIER_WRITE_MS = 5000  # z3's time for one "may an earlier iteration have written it" query at most



def size_term(e: SizeExpr) -> z3.ArithRef:
    t = z3.IntVal(e.const) + z3.Sum([z3.Int(n) * c for n, c in e.terms] or [z3.IntVal(0)])
    return z3.simplify(t / e.div if e.div != 1 else t)


def affine_term(expr, values: list, const=None, n_dims: int | None = None) -> z3.ArithRef:
    """An affine expression over z3 Int operands (dims, then symbols when the map's
    `n_dims` is given); `const(value)`, when given, is the term of a constant (the raised
    side: a size, or a number)."""
    if isinstance(expr, ir.AffineConstantExpr):
        return const(expr.value) if const is not None else z3.IntVal(expr.value)
    if isinstance(expr, ir.AffineDimExpr):
        return values[expr.position]
    if isinstance(expr, ir.AffineSymbolExpr):
        if n_dims is None:
            raise NotParametric("symbol operands of affine maps need the map's dim count")
        return values[n_dims + expr.position]
    if not isinstance(expr, ir.AffineAddExpr):
        const = None  # coefficients and divisors stay numbers
    lhs, rhs = affine_term(expr.lhs, values, const, n_dims), affine_term(expr.rhs, values, const, n_dims)
    if isinstance(expr, ir.AffineAddExpr):
        return lhs + rhs
    if isinstance(expr, ir.AffineMulExpr):
        return lhs * rhs
    if isinstance(expr, ir.AffineModExpr):
        return lhs % rhs  # z3: Euclidean, equal to floor mod for a positive divisor
    if isinstance(expr, ir.AffineFloorDivExpr):
        return lhs / rhs
    if isinstance(expr, ir.AffineCeilDivExpr):
        return -((-lhs) / rhs)
    raise NotParametric(f"affine expression {expr}")


def _map_terms(amap: ir.AffineMap, operands: list):
    """expr -> its z3 term over the map's operands (dims then symbols)."""
    return lambda expr: affine_term(expr, list(operands), n_dims=amap.n_dims)


def _or(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return lambda x: z3.Or(a(x), b(x))


class ParametricOriginal:
    """`outputs()`: argument index -> (index variables, term) for each array the
    function writes, at symbolic sizes."""

    def __init__(self, kernel: Kernel, deadline: float | None = None):
        self.kernel = kernel
        self.deadline = deadline  # the level's (time.monotonic()): every z3 query ends by it
        self.model = kernel.sizes
        self._loops = itertools.count()  # numbers the loops' iteration variables v!n
        source = kernel.normal
        self.context = source.context
        with source.context:
            module = source.parsed()
            from synth.analysis.function import find_function
            self.func = find_function(module, kernel.name)
            block = self.func.regions[0].blocks[0]
            self.index = {op: i for i, op in enumerate(walk(block))}
            self.sites: dict[int, dict[str, dict[int, SizeExpr]]] = {}
            for (i, attr, r), e in self.model.sites.items():
                self.sites.setdefault(i, {}).setdefault(attr, {})[r] = e
            self.block = block
            self.constraints = self._domain()
            self.extreme_operands = self._extremes()
            self.result = self._run_function()

    # sizes ------------------------------------------------------------------------------
    def _domain(self) -> list:
        """The sizes for which the original is defined: every symbol >= 1 and every
        access within its array (the size model's constraints)."""
        out = [z3.Int(n) >= 1 for n in self.model.symbols]
        for a, b, _ in self.model.constraints:
            out.append(size_term(a) <= size_term(b))
        for n, e in self.model.floordivs.items():
            out.append(z3.Int(n) == size_term(e))
        for n, monos in self.model.products.items():  # a product of sizes (an image's sw * sh)
            out.append(z3.Int(n) == z3.Sum([c * z3.Product([z3.Int(s) for s in m] + [1]) for m, c in monos]))
        return out

    def _extremes(self) -> dict:
        """argument -> its z3 term, for each size argument that only a loop bound min(k, n)
        reads (synth.frontend.size_extremes: the normal form runs to an argument m of its
        own): symbolic, with m = If(k <= n, k, n) in the domain, so that a raise reading k
        or n is proven at every k and n that give m, whichever is the smaller."""
        out = {}
        for k, e in self.model.extremes.items():
            if k not in self.model.params:
                continue
            terms = [z3.Int(self.model.params[a]) if a in self.model.params
                     else out.setdefault(a, z3.Int(f"size_arg{a}")) for a in e.arguments]
            amap = ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{e.map}>")).value
            results = [_map_terms(amap, terms)(r) for r in amap.results]
            bound = results[0]
            for r in results[1:]:
                bound = z3.If(r < bound, r, bound) if e.kind == "min" else z3.If(r > bound, r, bound)
            self.constraints.append(z3.Int(self.model.params[k]) == bound)
        return out

    def _map(self, op, attr: str, operands: list) -> list:
        amap = ir.AffineMapAttr(op.attributes[attr]).value if attr != "condition" else None
        if attr == "condition":
            amap, _ = integer_set(op.attributes["condition"])
        sites = self.sites.get(self.index.get(op.operation, -1), {}).get(attr, {})
        term = _map_terms(amap, operands)
        out = []
        for r, expr in enumerate(amap.results):
            if r in sites:
                rest, _ = split_const(expr)
                out.append(size_term(sites[r]) + (term(rest) if rest is not None else 0))
            else:
                out.append(term(expr))
        return [z3.simplify(t) if isinstance(t, z3.ExprRef) else z3.IntVal(t) for t in out]

    # running ------------------------------------------------------------------------------
    def _run_function(self):
        env: dict = {}
        state: dict = {}
        params = self.model.param_values(self.model.original())
        for a, value in zip(self.kernel.function.arguments, self.block.arguments):
            if a.is_array:
                sort = z3sem.sort_for(a.type)
                f = z3.Function(f"arg{a.index}", *([z3.IntSort()] * len(a.shape)), sort)
                state[a.index] = Array(f"arg{a.index}", sort, len(a.shape), lambda x, f=f: f(*x))
                env[value] = a.index
            elif a.index in self.model.params:
                env[value] = z3.Int(self.model.params[a.index])
            elif a.index in self.extreme_operands:
                env[value] = self.extreme_operands[a.index]
            elif a.index in params:
                env[value] = z3.IntVal(0)
            elif a.type in ("f16", "bf16", "f32", "f64"):
                env[value] = z3.Real(f"arg{a.index}")
            else:
                env[value] = z3.Int(f"arg{a.index}")
        self.inputs = {k: a.read for k, a in state.items()}
        self.scalars = {a.index: env[v] for a, v in zip(self.kernel.function.arguments, self.block.arguments)
                        if not a.is_array}
        state, _ = self._block(self.block, env, state)
        return state

    def outputs(self) -> dict[int, tuple]:
        return {i: self.final(i) for i in self.kernel.outputs}

    def final(self, i: int) -> tuple:
        """(index variables, term) of array argument i after the function ran (its input
        contents where the function does not write it)."""
        arr = self.result[i]
        x = tuple(z3.Int(f"x{d}") for d in range(arr.rank))
        return x, arr.read(x)

    def _block(self, block, env: dict, state: dict) -> tuple[dict, dict]:
        guards: dict = {}
        state = dict(state)
        for op in block.operations:
            name = op.operation.name
            if name == "affine.yield":  # its values: the loop's summary (carried_step) reads them
                continue
            if name == "func.return":
                if len(op.operands):
                    raise NotParametric(f"'{name}' with values (results)")
                continue
            if name == "affine.for":
                self._for(op, env, state, guards)
            elif name == "affine.if":
                self._if(op, env, state, guards)
            elif name in ("affine.load", "memref.load"):
                key, idx = self._access(op, env, name == "affine.load", 0)
                env[op.results[0]] = state[key].read(idx)
            elif name in ("affine.store", "memref.store"):
                key, idx = self._access(op, env, name == "affine.store", 1)
                value = env[op.operands[0]]
                old, idx = state[key], tuple(idx)
                value = self._typed(value, old.sort)
                state[key] = old.with_read(
                    lambda x, old=old, idx=idx, value=value: z3.If(
                        z3.And([a == b for a, b in zip(x, idx)]), value, old.read(x)))
                guards[key] = _or(guards.get(key), lambda x, idx=idx: z3.And([a == b for a, b in zip(x, idx)]))
            elif name in ("memref.alloca", "memref.alloc"):
                t = ir.MemRefType(op.results[0].type)
                key = ("local", self.index[op.operation])
                sort = z3sem.sort_for(str(t.element_type))
                f = z3.Function(f"undef_{key[1]}", *([z3.IntSort()] * t.rank), sort)
                state[key] = Array(f"local{key[1]}", sort, t.rank, lambda x, f=f: f(*x))
                env[op.results[0]] = key
            elif name == "memref.dealloc":
                continue
            elif name in ("affine.apply", "affine.min", "affine.max"):
                vals = self._map(op, "map", [env[v] for v in op.operands])
                pick = {"affine.apply": lambda r: r[0], "affine.min": min_of, "affine.max": max_of}[name]
                env[op.results[0]] = pick(vals)
            else:
                env[op.results[0]] = self._scalar(op, env)
        return state, guards

    @staticmethod
    def _typed(value, sort):
        if isinstance(value, z3.ExprRef):
            return value
        if isinstance(value, bool):
            return z3.BoolVal(value)
        return z3.RealVal(value) if sort == z3.RealSort() else z3.IntVal(value)

    def _scalar(self, op, env):
        name = op.operation.name
        if name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.BoolAttr):
                return z3.BoolVal(attr.value)
            if isinstance(attr, ir.IntegerAttr):
                if str(op.results[0].type) == "i1":
                    return z3.BoolVal(bool(attr.value))
                return z3.IntVal(attr.value)
            if isinstance(attr, ir.FloatAttr):
                return z3sem.numeral(attr.value, "f64")
            raise NotParametric(f"constant {attr}")
        args = [env[v] for v in op.operands]
        try:
            if name in ARITH_MATH:
                return ARITH_MATH[name](*args)
            if name == "arith.cmpf":
                return cmpf(op.attributes["predicate"].value)(*args)
            if name == "arith.cmpi":
                t = op.operands[0].type
                width = 64 if str(t) == "index" else ir.IntegerType(t).width
                return cmpi(op.attributes["predicate"].value, width)(*args)
            if name in INT_CASTS:
                src, dst = (type_width(str(t)) for t in (op.operands[0].type, op.results[0].type))
                return int_cast(name, src, dst)(*args)
        except (Unsupported, ZeroDivisionError, z3.Z3Exception) as e:
            raise NotParametric(f"'{name}': {e}") from None
        raise NotParametric(f"'{name}' is not modelled at symbolic sizes")

    def _access(self, op, env, affine: bool, memref_pos: int):
        operands = list(op.operands)
        memref = operands[memref_pos]
        rest = [env[v] for v in operands[memref_pos + 1:]]
        idx = self._map(op, "map", rest) if affine else [z3.simplify(v) for v in rest]
        return env[memref], idx

    def _if(self, op, env, state, guards):
        _, eqs = integer_set(op.attributes["condition"])
        vals = self._map(op, "condition", [env[v] for v in op.operands])
        cond = z3.simplify(z3.And([v == 0 if eq else v >= 0 for v, eq in zip(vals, eqs)]))
        if len(op.results):
            raise NotParametric("'affine.if' with results")
        then_state, then_guards = self._block(op.regions[0].blocks[0], env, state)
        else_state, else_guards = (state, {})
        if len(op.regions[1].blocks):
            else_state, else_guards = self._block(op.regions[1].blocks[0], env, state)
        for key in set(then_guards) | set(else_guards):
            a, b = then_state[key], else_state[key]
            state[key] = a.with_read(lambda x, a=a, b=b: z3.If(cond, a.read(x), b.read(x)))
            ga, gb = then_guards.get(key), else_guards.get(key)
            g = lambda x, ga=ga, gb=gb: z3.Or(z3.And(cond, ga(x)) if ga else z3.BoolVal(False),
                                               z3.And(z3.Not(cond), gb(x)) if gb else z3.BoolVal(False))
            guards[key] = _or(guards.get(key), g)

    # loops ------------------------------------------------------------------------------
    def _for(self, op, env, state, guards):
        if ir.IntegerAttr(op.step).value != 1:
            raise NotParametric("a loop with a step other than 1")
        lbs = self._map(op, "lowerBoundMap", [env[v] for v in op.lowerBoundOperands])
        ubs = self._map(op, "upperBoundMap", [env[v] for v in op.upperBoundOperands])
        lb, ub = max_of(lbs), min_of(ubs)
        n = next(self._loops)
        v = z3.Int(f"v!{n}")
        body = op.regions[0].blocks[0]
        written = self._written(body, env, state)
        in_fns = {}
        inner_state = dict(state)
        for key in written:
            arr = state[key]
            f = z3.Function(f"{arr.name}_in{n}", *([z3.IntSort()] * arr.rank), arr.sort)
            in_fns[key] = f
            inner_state[key] = arr.with_read(lambda x, f=f: f(*x))
        inner_env = dict(env)
        inner_env[body.arguments[0]] = v
        carried = carried_step(op, body, n, self._where(op))
        if carried is not None:
            inner_env[body.arguments[1]] = carried[0]
        out_state, body_guards = self._block(body, inner_env, inner_state)
        by_decl = {f.name(): key for key, f in in_fns.items()}

        def earlier_write(key, y, ctx, cur) -> bool:
            """Can an iteration before `cur` have written element y of `key`?"""
            g = body_guards.get(key)
            if g is None:
                return False
            w = z3.Int(f"w!{n}")
            s = z3.Solver()
            s.set("timeout", query_ms(self.deadline, EARLIER_WRITE_MS))
            s.add(self.constraints + ctx + [lb <= w, w < cur, lb <= cur, cur < ub])
            xf = tuple(z3.FreshInt("y") for _ in y)  # v -> w first: y may hold v itself
            s.add(z3.substitute(z3.substitute(g(xf), (v, w)), *zip(xf, y)) if xf else z3.substitute(g(()), (v, w)))
            return s.check() != z3.unsat

        has_in: dict[int, bool] = {}
        memo: dict = {}
        before = dict(state)  # the contents before the loop (`state` is updated per array below)

        def settle(t, ctx, cur):
            """Reads of `_in` contents that no earlier iteration wrote: the contents
            from before the loop."""
            if not reads_in(t, by_decl, has_in):
                return t
            key = (t.get_id(), tuple(c.get_id() for c in ctx), cur.get_id())
            if key not in memo:  # the key's terms kept alive with it (z3 reuses freed ids)
                memo[key] = (t, ctx, cur, _settle(t, ctx, cur))
            return memo[key][3]

        def _settle(t, ctx, cur):
            if is_sum(t):
                lo, hi, k, body_t = open_sum(t)
                lo, hi = settle(lo, ctx, cur), settle(hi, ctx, cur)
                return make_sum(lo, hi, k, settle(body_t, ctx + [lo <= k, k < hi], cur))
            if not z3.is_app(t) or t.num_args() == 0:
                return t
            if z3.is_app_of(t, z3.Z3_OP_ITE):
                c = settle(t.arg(0), ctx, cur)
                return z3.If(c, settle(t.arg(1), ctx + [c], cur), settle(t.arg(2), ctx + [z3.Not(c)], cur))
            args = [settle(c, ctx, cur) for c in t.children()]
            name = t.decl().name()
            if name in by_decl and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                key = by_decl[name]
                if not earlier_write(key, args, ctx, cur):
                    return before[key].read(tuple(args))
            return t.decl()(*args)

        if carried is not None:  # init + SUM(lb, ub, term(v)), the term free of the loop's writes
            mark, term_value, init = carried
            term = settle(inner_env[term_value], [], v)
            if mentions(term, mark) or reads_in(term, by_decl):
                raise NotParametric(f"the value carried by the loop at {self._where(op)} is not a "
                                    f"sum of terms its iterations do not change")
            env[op.results[0]] = env[init] + make_sum(lb, ub, v, canonical(term, self.deadline))

        for key in written:
            arr = state[key]
            x = tuple(z3.Int(f"x{n}_{d}") for d in range(arr.rank))
            raw = out_state[key].read(x)
            g = z3.simplify(body_guards[key](x))
            pre = arr.read
            points = pins(v, g, self.deadline)
            if points:  # each element is written by the iterations its guard pins: a parallel
                # loop (one point), or a few (a symmetric store): the last valid one wins
                valid = [z3.simplify(z3.And(lb <= t, t < ub, z3.substitute(g, (v, t)))) for t in points]
                chosen, values = [], []
                for n_t, t in enumerate(points):
                    last = [z3.Or(z3.Not(valid[u]), points[u] <= t) for u in range(len(points)) if u != n_t]
                    sel = z3.simplify(z3.And([valid[n_t]] + last))
                    chosen.append(sel)
                    values.append(settle(z3.substitute(raw, (v, t)), [sel], t))
                if not any(reads_in(val, by_decl) for val in values):
                    written_g = z3.simplify(z3.Or(valid)) if len(valid) > 1 else valid[0]
                    state[key] = closed_cases(arr, x, list(zip(chosen, values)))
                    guards[key] = _or(guards.get(key), closed_guard(x, written_g))
                    continue
            out = settle(raw, [], v)
            if not reads_in(out, by_decl) and not mentions(g, v):  # the last iteration wins
                written_g = z3.simplify(z3.And(lb < ub, g))
                value = z3.substitute(out, (v, ub - 1))
                state[key] = closed(arr, x, lambda xs, written_g=written_g, value=value, pre=pre:
                                     (written_g, value, pre(xs)))
                guards[key] = _or(guards.get(key), closed_guard(x, written_g))
                continue
            fixed = []
            for conj in conjuncts(g):
                if z3.is_eq(conj):
                    for d, xd in enumerate(x):
                        t = solve_for(xd, conj.arg(0), conj.arg(1))
                        if t is not None and not mentions(t, xd) and all(not mentions(t, y) for y in x):
                            fixed.append((xd, t))
                            break
            here = tuple(z3.substitute(xd, *fixed) if fixed else xd for xd in x)
            out = assume(out, self.constraints + [g, lb <= v, v < ub], deadline=self.deadline)
            delta = out - in_fns[key](*here) if arr.sort != z3.BoolSort() else None
            if delta is None:
                raise NotParametric(f"a loop at {self._where(op)} updates a boolean array")
            if fixed:
                delta = z3.substitute(delta, *fixed)
            delta = canonical(z3.If(g, delta, zero(arr.sort)), self.deadline)
            if reads_in(delta, by_decl):
                raise NotParametric(f"the loop at {self._where(op)} carries a dependence through "
                                    f"{arr.name} that is not a sum reduction")
            total = make_sum(lb, ub, v, delta)
            written_g = z3.simplify(z3.And(lb < ub, g)) if not mentions(g, v) else \
                z3.Exists([v], z3.And(lb <= v, v < ub, g))
            state[key] = closed(arr, x, lambda xs, total=total, pre=pre: (None, total, pre(xs)))
            guards[key] = _or(guards.get(key), closed_guard(x, written_g))

    def _written(self, body, env, state) -> list:
        keys = []
        for op in walk(body):
            name = op.operation.name
            if name in ("affine.store", "memref.store"):
                memref = op.operands[1]
                key = env.get(memref)
                if key is not None and key in state and key not in keys:
                    keys.append(key)
        return keys

    def _where(self, op) -> str:
        from synth.frontend.reader import diagnostic_location
        return diagnostic_location(self.kernel.path, op.location)
