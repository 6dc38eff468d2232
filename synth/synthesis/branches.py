"""Branch splits: kernels that choose per element (`b == 1 ? 1 : a / (1 - b)`, blend
modes, clamps) need a select over branches that may each take several ops. The target
is split by a comparison of two leaves and each branch searched on its own positions
only, smaller. A mixin of the Enumerator."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from synth.grammar.op import NUMPY
from synth.numerics import equal
from synth.synthesis.program import Expr

SPLIT_AFTER = 2  # sizes searched whole before the target is split by a comparison
SPLIT_BRANCH_SIZE = 4  # largest branch searched
SPLIT_BRANCH_SECONDS = 1.5  # budget of one branch: most splits tried are wrong
MAX_SPLITS = 12  # comparisons tried


class BranchSplits:
    """Enumerator methods: splitting the target by a comparison."""

    def _split_ops(self):
        """How this grammar writes `m ? x : y` for a comparison m of two values: the
        select + compare pair (stablehlo) or the fused select_cmp (linalg)."""
        names = {op.name.split(".", 1)[1]: op for op in self.problem.ops}
        out = self.problem.output_type
        if "select_cmp" in names:
            op = names["select_cmp"]

            def build(a, b, direction, x, y):
                return Expr(out, op, (("direction", direction),), (a, b, x, y))
            return build
        if "select" in names and "compare" in names:
            sel, cmp = names["select"], names["compare"]

            def build(a, b, direction, x, y):
                attrs = self._signature(cmp, (a.type, b.type))
                choice = next((c for c in attrs if dict(c[0])["direction"] == direction), None)
                if choice is None:
                    return None
                mask = Expr(choice[1], cmp, choice[0], (a, b))
                sel_attrs = self._signature(sel, (choice[1], out, out))
                return Expr(out, sel, sel_attrs[0][0], (mask, x, y)) if sel_attrs else None
            return build
        return None

    def _select_split(self) -> Expr | None:
        """Kernels that choose per element (`b == 1 ? 1 : a / (1 - b)`, blend modes, clamps)
        need a select over two branches that may each take several ops. When no program
        of SPLIT_AFTER ops exists, the target is split by a comparison of two leaves (an
        input or a broadcast constant, compared GT, GE or EQ), and each branch is searched
        on its own positions only, smaller; `m ? x : y` joins them. Comparisons that
        leave one branch to a value already built (the constant of `b == 1 ? 1 : ...`)
        go first, then comparisons with a constant."""
        build = self._split_ops()
        out = self.problem.output_type
        if build is None or out.rank == 0:
            return None
        leaves = [v for v in self.pools[0].get(out, [])]
        constant = [v for v in leaves if v.expr.leaf is None]
        pairs = [(a, b) for a in leaves for b in constant] + \
                [(a, b) for a in leaves for b in leaves if a.expr.leaf is not None and b.expr.leaf is not None
                 and a.expr.leaf < b.expr.leaf]
        base = self.care or tuple(np.ones(out.shape, dtype=bool) for _ in self.target)
        small = [v for size in range(min(SPLIT_AFTER, 1) + 1) for v in self.pools[size].get(out, [])]

        def explained(masks) -> Expr | None:
            """A value already built (size <= 1) that is right on `masks`."""
            for v in small:
                if all(equal(t[m], d[m]) for t, d, m in zip(self.target, v.data, masks)):
                    return v.expr
            return None

        seen, ranked = set(), []
        for a, b in pairs:
            for direction in ("GE", "GT", "EQ"):
                masks = tuple(np.asarray(NUMPY.compare(direction, x, y)) & c
                              for x, y, c in zip(a.data, b.data, base))
                rest = tuple(c & ~m for m, c in zip(masks, base))
                key = b"".join(m.tobytes() for m in masks)
                if key in seen or all(not m.any() for m in masks) or all(not r.any() for r in rest):
                    continue
                seen |= {key, b"".join(r.tobytes() for r in rest)}
                then, other = explained(masks), explained(rest)
                if then is not None and other is not None:
                    joined = build(a.expr, b.expr, direction, then, other)
                    if joined is not None and self._matches(joined.type, self._evaluate(joined)):
                        return joined
                ranked.append((then is None and other is None, len(ranked), a, b, direction,
                               masks, rest, then, other))
        ranked.sort(key=lambda r: r[:2])
        for blind, _, a, b, direction, masks, rest, then, other in ranked[:MAX_SPLITS]:
            if time.monotonic() > self.deadline:
                return None
            then = then or self._branch(masks)
            if then is None:
                continue
            other = other or self._branch(rest)
            if other is None:
                continue
            joined = build(a.expr, b.expr, direction, then, other)
            if joined is not None and self._matches(joined.type, self._evaluate(joined)):
                return joined
        return None

    def _branch(self, masks: tuple) -> Expr | None:
        """A program right on `masks` (one per example), searched with a smaller bound."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            return None
        # a branch takes its first solution: up to MAX_SPLITS branches are searched, and
        # going on for cheaper ones in each would multiply the cost of a split
        settings = replace(self.settings, max_size=min(SPLIT_BRANCH_SIZE, self.settings.max_size),
                           timeout=min(left, SPLIT_BRANCH_SECONDS), alternatives=0)
        sub = type(self)(self.problem, settings, care_mask=masks, splits=False)
        found = sub.run()
        self.stats.enumerated += sub.stats.enumerated
        self.stats.evaluated += sub.stats.evaluated
        return found

