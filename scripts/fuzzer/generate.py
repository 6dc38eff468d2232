"""The generator (step 1 of the overview): `Gen` adds the constructs a kernel is made of
to the parts `Drawer` draws (elementwise maps, reductions into arrays and scalars,
accumulators, in-place updates, shifted and stepped loops, returned buffers, plus the
inexpressible recurrences and time steps and the malformed kernels); `generate(seed, k)`
draws kernel k of a run deterministically, and `select_programs` picks the programs of
a run (optionally only those with given features)."""

from __future__ import annotations

import copy
import random

from .draw import Drawer, Loop
from .kernel import (Access, Accumulate, Binary, Call, Const, Dim, For, If, Index, Kernel,
                     Load, ReturnArg, ScalarReduce, Store, Undef, Undefined, expr_cost,
                     tree_features, walk_expr, walk_nodes)


class Gen(Drawer):
    """Draws one kernel. Every `construct_*` method appends one construct to the body."""

    # constructs --------------------------------------------------------------------------

    def construct_map(self):
        """An elementwise nest 1-3 deep with 1-3 stores, maybe under an affine.if or
        triangular; later stores may read what earlier ones wrote at the same place."""
        depth = self.rng.choice((1, 2, 2, 3))
        loops = self.loops(depth)
        tri = self.triangular(loops) if depth > 1 and self.rng.random() < 0.3 else None
        stores, written = [], set()
        for _ in range(self.rng.choice((1, 1, 2, 3))):
            avoid = set(written)
            target = self.write_access(loops, avoid | self._read_names(stores))
            e = self.expr(loops, avoid | {target.array.name}, depth=self.rng.choices((1, 2, 3), (9, 9, 2))[0])
            if stores and self.rng.random() < 0.5:  # read an earlier store's value, same place
                prev = self.rng.choice(stores).target
                if len(prev.index) == len(loops):
                    e = Binary(self.rng.choice(("add", "mul")), e, Load(copy.deepcopy(prev)))
                    self.features.add("fused-reuse")
            stores.append(Store(target, e))
            written.add(target.array.name)
        body: list = stores
        if depth > 1 and not tri and self.rng.random() < 0.25:
            body = [self.guard(loops, stores)]
        self.body += self.nest(loops, body, tri)

    def _read_names(self, stores) -> set:
        names = set()
        for s in stores:
            for node in walk_expr(s.expr):
                if isinstance(node, Load):
                    names.add(node.access.array.name)
        return names

    def guard(self, loops: list[Loop], stores: list):
        """`affine.if #set(i, j)` on two of the loops: (i - j >= 0), maybe with an else."""
        a, b = self.rng.sample(loops, 2)
        self.features.add("affine-if")
        orelse = None
        if self.rng.random() < 0.4:
            s = stores[0]
            avoid = {s.target.array.name} | {t.target.array.name for t in stores}
            orelse = [Store(copy.deepcopy(s.target), self.expr(loops, avoid, 1))]
            self.features.add("affine-if-else")
        return If(a.iv, b.iv, stores, orelse, strict=self.rng.choice((0, 1)))

    def construct_shift(self):
        """x[i] = x[i + 1] OP f(i): reads the element the next iteration overwrites (an
        anti-dependence: legal to vectorize, unlike x[i - 1])."""
        d = self.rng.choice(self.dims).name
        lp = Loop("i", d, 0, 1, False)
        x = self.array_for(((d, 1),), set())
        e = self.expr([lp], {x.name}, 1)
        self.features.add("shift-anti-dependence")
        store = Store(Access(x, (Index("i"),)), Binary(self.rng.choice(("add", "mul", "max")),
                                                       Load(Access(x, (Index("i", 1, 1),))), e))
        self.body += self.nest([lp], [store])

    def construct_step(self):
        """A loop with step 2: only every other element is written."""
        depth = self.rng.choice((1, 2))
        loops = self.loops(depth, shifted=False)
        target = self.write_access(loops, set())
        e = self.expr(loops, {target.array.name}, 1)
        nest = self.nest(loops, [Store(target, e)])
        node = nest[0]
        for _ in range(self.rng.randrange(depth)):
            node = node.body[0]
        node.step = 2
        self.features.add("loop-step-2")
        self.body += nest

    def construct_return_argument(self):
        """Return an argument array the kernel writes (`-> memref<...>`)."""
        written = [n.target.array for n in walk_nodes(self.body) if isinstance(n, Store)
                   and n.target.array.axes and not n.target.array.local]
        if written and not self.returns:
            self.returns += 1
            self.features.add("returns-argument")
            self.body.append(ReturnArg(self.rng.choice(written)))

    def construct_inplace(self):
        """A[i] = A[i] * s (and friends): an array updated in place."""
        loops = self.loops(self.rng.choice((1, 2)), shifted=False)
        target = self.write_access(loops, set())
        old = Load(copy.deepcopy(target))
        other = self.expr(loops, {target.array.name}, 1)
        op = self.rng.choice(("mul", "add", "sub", "max"))
        self.features.add("in-place")
        self.body += self.nest(loops, [Store(target, Binary(op, old, other))])

    def construct_reduce(self):
        """A reduction into an array: y[i] = init; for j: y[i] = y[i] OP f(i, j). The reduced
        loops are inner (row), outer (column) or a matmul-like 3-deep nest; with or
        without the init store."""
        depth = self.rng.choice((2, 2, 3)) if not self.deep else 4
        loops = self.loops(depth, shifted=False)
        n_reduced = self.rng.randint(1, depth - 1)
        inner_reduced = self.rng.random() < 0.7
        reduced = loops[depth - n_reduced:] if inner_reduced else loops[:n_reduced]
        kept = [lp for lp in loops if lp not in reduced]
        target = self.write_access(loops, set(), keep=kept)
        op = self.reduce_op()
        e = self.reduced_expr(loops, reduced, {target.array.name})
        store = Store(target, e, reduce=op)
        tri = self.triangular(loops) if self.rng.random() < 0.2 else None
        if inner_reduced and self.rng.random() < 0.3 and not tri:
            self.features.add("reduce-iter-args")
            sr = ScalarReduce([For(lp.iv, lp.dim, []) for lp in reduced], op,
                              self.reduce_init(op), e, sink=target)
            self.body += self.nest(kept, [sr])
            return
        inner = self.nest(reduced, [store], tri) if inner_reduced else [store]
        if inner_reduced and self.rng.random() < 0.6:  # y[i] = init before the inner loops
            self.features.add("reduce-init")
            inner = [Store(copy.deepcopy(target), Const(self.reduce_init(op)))] + inner
        if inner_reduced:
            self.body += self.nest(kept, inner)
        else:
            if self.rng.random() < 0.5:  # zero it in a nest of its own first
                self.body += self.nest(kept, [Store(copy.deepcopy(target), Const(0))])
                self.features.add("reduce-init-nest")
            self.body += self.nest(reduced + kept, [store], tri)

    def reduced_expr(self, loops: list[Loop], reduced: list[Loop], avoid: set):
        """The reduced value: an expression that reads along every reduced loop (a term
        that does not would only be multiplied by a trip count)."""
        e = self.expr(loops, avoid, depth=self.rng.choice((1, 2)))
        used = {x.iv for n in walk_expr(e) if isinstance(n, Load) for x in n.access.index}
        if not {lp.iv for lp in reduced} <= used:
            extra = [lp for lp in loops if lp not in reduced and self.rng.random() < 0.5]
            load = Load(self.read_access(reduced + extra, avoid, rank=len(reduced) + len(extra)))
            small = expr_cost(e, len(loops)) <= 2 and not isinstance(e, Const)
            e = Binary(self.rng.choice(("mul", "add")), e, load) if small and self.rng.random() < 0.6 else load
        return e

    def construct_scalar_reduce(self):
        """A scalar reduction over 1-2 loops with iter_args: returned (-> T) or stored into
        a memref<T> argument."""
        loops = self.loops(self.rng.choice((1, 1, 2)), shifted=False)
        op = self.reduce_op()
        e = self.reduced_expr(loops, loops, set())
        sink = None
        if self.returns or self.rng.random() < 0.4:
            sink = Access(self.new_array(()), ())
            self.features.add("scalar-out-arg")
        else:
            self.returns += 1
            self.features.add("returns-scalar")
        self.features.add("iter-args")
        self.body.append(ScalarReduce([For(lp.iv, lp.dim, []) for lp in loops], op,
                                      self.reduce_init(op), e, sink))

    def construct_accumulate(self):
        """A memref<T> accumulator (a local alloca, returned as memref or as its value; or
        an argument) updated in a loop nest."""
        loops = self.loops(self.rng.choice((1, 2)), shifted=False)
        local = not self.returns and self.rng.random() < 0.7
        acc = self.new_array((), local=local)
        op = self.reduce_op()
        e = self.reduced_expr(loops, loops, {acc.name})
        result = None
        if local:
            result = self.rng.choice(("memref", "scalar"))
            self.returns += 1
            self.features.add(f"returns-{'alloca' if result == 'memref' else 'scalar'}")
        self.features.add("accumulator")
        nest = self.nest(loops, [Store(Access(acc, ()), e, reduce=op)])
        self.body.append(Accumulate(acc, self.reduce_init(op), nest, result))

    def construct_local_output(self):
        """w = f(...) into a memref.alloc the function returns (every element written)."""
        if self.returns:
            return self.construct_map()
        loops = self.loops(self.rng.choice((1, 2)), shifted=False)
        out = self.new_array(tuple((lp.dim, 1) for lp in loops), local=True)
        e = self.expr(loops, {out.name}, depth=2)
        self.returns += 1
        self.features.add("returns-alloc")
        self.body += self.nest(loops, [Store(Access(out, tuple(Index(lp.iv) for lp in loops)), e)])

    # inexpressible -----------------------------------------------------------------------

    def construct_recurrence(self):
        """x[i] = x[i-1] OP f(y[i]): a loop-carried dependence."""
        d = self.rng.choice(self.dims).name
        lp = Loop("i", d, 1, 0, False)
        x = self.new_array(((d, 1),))
        e = self.expr([Loop("i", d, 0, 0, False)], {x.name}, 1)
        op = self.rng.choice(("add", "mul", "max")) if self.elem != "i32" else self.rng.choice(("add", "max"))
        self.features.add("recurrence")
        body = Store(Access(x, (Index("i"),)), Binary(op, Load(Access(x, (Index("i", 1, -1),))), e))
        self.body += self.nest([lp], [body])

    def construct_timestep(self):
        """for t: B[i] = (A[i-1] + A[i] + A[i+1]) * c; A[i] = B[i] (a 1-D Jacobi)."""
        d = self.rng.choice(self.dims).name
        steps = Dim(f"t{len(self.dims)}", self.rng.choice((3, 4, 5)), steps=True)
        self.dims.append(steps)
        a, b = self.new_array(((d, 1),)), self.new_array(((d, 1),))
        at = lambda arr, o: Load(Access(arr, (Index("i", 1, o),)))  # noqa: E731
        c = Const(self.rng.choice((1, 2, 3)) if self.elem == "i32" else 0.33333)
        s1 = Store(Access(b, (Index("i"),)),
                   Binary("mul", Binary("add", Binary("add", at(a, -1), at(a, 0)), at(a, 1)), c))
        s2 = Store(Access(a, (Index("i"),)), at(b, 0))
        self.features.add("time-step")
        self.body.append(For("t", steps.name, [For("i", d, [s1], 1, 1), For("i", d, [s2], 1, 1)]))

    # malformed ---------------------------------------------------------------------------

    def construct_malformed(self) -> str:
        """Make the kernel malformed; returns the kind (see `Kernel.malformed`)."""
        kind = self.rng.choice(("syntax-op", "syntax-brace", "syntax-type", "undefined",
                                "scf", "call", "undef"))
        self.features.add(f"malformed-{kind}")
        loops = self.loops(self.rng.choice((1, 2)), shifted=False)
        target = Access(self.new_array(tuple((lp.dim, 1) for lp in loops)),
                        tuple(Index(lp.iv) for lp in loops))
        src = Load(Access(self.new_array(tuple((lp.dim, 1) for lp in loops)),
                          tuple(Index(lp.iv) for lp in loops)))
        e = Binary("add", src, Const(self.const()))
        if kind == "undefined":
            e = Binary("add", src, Undefined())
        elif kind == "call" and self.elem != "i32":
            e = Binary("mul", Call(src), Const(self.const()))
        elif kind == "undef":
            e = Binary("add", src, Undef())
        nest = self.nest(loops, [Store(target, e)])
        if kind == "scf":
            node = nest[0]
            while isinstance(node, For):
                node.scf = True
                node = node.body[0]
        self.body += nest
        return kind if not (kind == "call" and self.elem == "i32") else "syntax-op"


CONSTRUCTS = (  # (method, weight)
    ("construct_map", 5), ("construct_reduce", 4), ("construct_inplace", 1),
    ("construct_shift", 1), ("construct_step", 1),
    ("construct_scalar_reduce", 2), ("construct_accumulate", 1), ("construct_local_output", 1),
)


def generate(seed: int, k: int) -> Kernel:
    """Kernel k of the run with `seed` (deterministic)."""
    rng = random.Random(f"{seed}:{k}")
    g = Gen(rng, k, seed)
    r = rng.random()
    category = "malformed" if r < 0.1 else "inexpressible" if r < 0.2 else "normal"
    malformed = None
    if category == "malformed":
        g.memref_style = False
        malformed = g.construct_malformed()
    else:
        names, weights = zip(*CONSTRUCTS)
        if g.deep:  # one 4-deep reduction (doitgen-like)
            g.construct_reduce()
        else:
            for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
                getattr(g, rng.choices(names, weights)[0])()
            if rng.random() < 0.08:
                g.construct_return_argument()
        if category == "inexpressible":
            first = rng.random() < 0.5
            before = len(g.body)
            rng.choice((g.construct_recurrence, g.construct_timestep))()
            if first:  # put it before the rest
                g.body = g.body[before:] + g.body[:before]
    kernel = Kernel(k, seed, g.elem, g.dims, g.arrays, g.scalars, g.body, category, malformed,
                    set(), g.memref_style)
    kernel.features = {f for f in g.features if f not in EXPR_FEATURES} | tree_features(kernel)
    return kernel


EXPR_FEATURES = {"add", "sub", "mul", "max", "min", "div", "neg", "select", "sqrt", "exp",
                 "iv-value", "scalar-arg", "transpose", "broadcast", "stride", "offset-access"}


def select_programs(seed: int, count: int, features: set[str] | None) -> list[int]:
    """Programs 0, 1, ... of the seed; with `features`, only those having one of them."""
    if not features:
        return list(range(count))
    out, k = [], 0
    while len(out) < count and k < 200 * count:
        if features & generate(seed, k).features:
            out.append(k)
        k += 1
    return out
