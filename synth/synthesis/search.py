"""Bottom-up enumerative search over a grammar (TF-Coder style).

Values are enumerated by program size (number of ops; inputs, constants and broadcasts of
scalars are leaves of size 0). For each op and each split of the size among its operands,
operands are chosen by type: the attribute choices, shape rule and dialect verifier are
evaluated once per operand-type signature and cached. Each new value is computed on every
example; observational equivalence keeps one program per distinct value. A value equal
to the target output on all examples is a solution. After the first, the search goes on
for `SearchSettings.alternatives` more candidates of the same size (a count, so the
outcome does not depend on the machine's speed), collecting every solution, equivalent
ones that observational equivalence would drop included, and returns the cheapest by
`SearchSettings.cost` (estimated work at the original sizes, synth.synthesis.program.cost):
(A B) C and A (B C) have the same size, not the same cost.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from synth.grammar import verifier
from synth.grammar.op import NUMPY, Op
from synth.grammar.types import SearchContext, ShapeError, TensorType
from synth.numerics import equal, fingerprint, rtol
from synth.synthesis.program import Expr, cost as program_cost, evaluate
from synth.synthesis.branches import SPLIT_AFTER, BranchSplits
from synth.synthesis.inverse import INVERSE_OPERAND_SIZE, InverseTargets



@dataclass(frozen=True)
class SearchSettings:
    max_size: int = 6
    timeout: float = 60.0
    equivalence_pruning: bool = True
    verifier_pruning: bool = True
    inverse_targets: bool = True
    sketches: bool = True  # take a statement's own program where it is right (synth.synthesis.sketch)
    keep_nonfinite: bool = False  # keep values with inf / nan (a select may discard them)
    # called as progress(problem name, size reached, candidates enumerated) about once a second
    progress: object = field(default=None, compare=False, repr=False)
    # the dialect verifier and its cache of verdicts (None: the process-wide one)
    verifier: verifier.Verifier | None = field(default=None, compare=False, repr=False)
    # candidates a search enumerates at most, like running out of time (None: no bound)
    max_candidates: int | None = None
    # candidates enumerated after the first solution, looking for a cheaper one (0: none)
    alternatives: int = 20000
    # Expr -> estimated work, to choose among solutions (None: program.cost at the
    # search's stand-in sizes; synth.synthesis.solve passes it at the original sizes)
    cost: object = field(default=None, compare=False, repr=False)


@dataclass
class SearchStats:
    enumerated: int = 0  # operand/attribute combinations considered
    rejected_type: int = 0  # operand types that no attribute choice / shape rule accepts
    rejected_verifier: int = 0  # signatures the dialect verifier rejected
    rejected_equivalence: int = 0  # values equal to one already kept
    rejected_nonfinite: int = 0  # values with inf/nan on an example
    evaluated: int = 0  # programs run on the examples
    values: int = 0  # distinct values kept
    size_reached: int = 0
    seconds: float = 0.0
    solution_size: int | None = None
    solutions_compared: int = 0  # equivalent solutions found, the cheapest kept
    solution_cost: float | None = None  # its estimated work (SearchSettings.cost)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Problem:
    """Find f with f(inputs) == output on every example."""

    name: str
    input_types: dict[int, TensorType]  # argument index -> type at stand-in sizes
    examples_in: list[dict[int, np.ndarray]]
    examples_out: list[np.ndarray]
    output_type: TensorType
    context: SearchContext
    ops: tuple[Op, ...]
    output: int | None = None  # argument index of the output array, when it is also an input


class SearchTimeout(Exception):
    pass


@dataclass
class _Value:
    expr: Expr
    data: tuple[np.ndarray, ...]
    index: int = 0


def _squeezed(t: TensorType) -> tuple:
    """A type with its unit dims dropped."""
    return (t.dtype, tuple(d for d in t.shape if d != 1))


def _fingerprint(t: TensorType, data: tuple[np.ndarray, ...]) -> tuple:
    return (t, fingerprint(list(data)))


# how far apart two f64 values of magnitude at most FIRST_KEY_MAGNITUDE may be that a
# fingerprint rounds alike (to 1e-9: synth.numerics.FINGERPRINT_DECIMALS), with room
ROUNDING_MARGIN = 2e-9
FIRST_KEY_MAGNITUDE = 1e3


@dataclass
class Enumerator(InverseTargets, BranchSplits):
    problem: Problem
    settings: SearchSettings
    stats: SearchStats = field(default_factory=SearchStats)
    care_mask: tuple | None = None  # a branch of a select split: only these positions, per example
    splits: bool = True  # try splitting the target by a comparison (not inside a branch)
    seeds: tuple = ()  # programs over the inputs, kept as first-level values (see search)

    def __post_init__(self):
        self.pools: dict[int, dict[TensorType, list[_Value]]] = defaultdict(lambda: defaultdict(list))
        self.seen: set[tuple] = set()
        self.signatures: dict[tuple, list] = {}
        self.deadline = time.monotonic() + self.settings.timeout
        self.verifier = self.settings.verifier or verifier.DEFAULT
        self.next_report = time.monotonic() + 1.0
        self.count = 0
        out = self.problem.examples_out
        self.target = tuple(np.asarray(o) for o in out)
        # positions the program must get right, one mask per example (None: all)
        self.care: tuple | None = self.care_mask
        self.wrap = None  # update Expr -> the whole output's Expr (a masked select)
        # inverse targets: fingerprint of a value that would solve the problem once
        # wrapped in a few ops -> how to wrap it (see _invert)
        self.derived: dict[tuple, list] = {}
        self.derived_count = 0
        self.inverse_ops: list | None = None
        self.best: Expr | None = None  # smallest solution through an inverse target so far
        self.values_of: dict[Expr, tuple] = {}  # expression -> its value on the examples
        # a value that is the target with unit dims added or dropped solves it reshaped
        # (stablehlo's slice_edge keeps the rank: the last row of a 3-d array is 1x1xN)
        self.reshape_op = next((op for op in self.problem.ops if op.name.split(".", 1)[1] == "reshape"), None)
        self.squeezed_output = _squeezed(self.problem.output_type)
        self.solutions: list[Expr] = []  # solutions of the current size, cheapest chosen
        self.solution_fp: tuple | None = None  # their value's fingerprint
        self.solution_first: tuple | None = None  # after the first: _far_bounds
        self.stop_at: int | None = None  # enumerated count at which collecting them ends
        # intermediate values never need a higher rank than the problem's own values and
        # the iteration spaces of its statements
        self.max_rank = max([t.rank for t in self.problem.input_types.values()]
                            + [self.problem.output_type.rank]
                            + [len(s) for s in self.problem.context.shapes])

    # -- checks ---------------------------------------------------------------------------
    def _signature(self, op: Op, types: tuple[TensorType, ...]) -> list:
        key = (op, types)
        cached = self.signatures.get(key)
        if cached is not None:
            return cached
        choices = []
        for attrs in op.attribute_domain(types, self.problem.context):
            try:
                rt = op.result_type(types, attrs)
            except ShapeError:
                self.stats.rejected_type += 1
                continue
            if rt.rank > self.max_rank:
                self.stats.rejected_type += 1
                continue
            if self.settings.verifier_pruning and self.verifier.verify(op, types, attrs) is not None:
                self.stats.rejected_verifier += 1
                continue
            choices.append((attrs, rt))
        if not choices:
            self.stats.rejected_type += 1
        self.signatures[key] = choices
        return choices

    def _matches(self, t: TensorType, data) -> bool:
        if t != self.problem.output_type:
            return False
        for e, (got, want) in enumerate(zip(data, self.target)):
            if self.care is not None:
                got, want = got[self.care[e]], want[self.care[e]]
            if not equal(want, got):
                return False
        return True

    def _add(self, size: int, expr: Expr, data) -> Expr | None:
        """Keep a new value (unless equivalent to a kept one); return it if it solves."""
        self.stats.evaluated += 1
        if not self.settings.keep_nonfinite and any(d.dtype.kind == "f" and not np.isfinite(d).all()
                                                    for d in data):
            self.stats.rejected_nonfinite += 1
            return None
        if self.settings.equivalence_pruning:
            fp = _fingerprint(expr.type, data)
            if fp in self.seen:
                self.stats.rejected_equivalence += 1
                if self.solutions and fp == self.solution_fp:
                    self.solutions.append(expr)  # another program for the solution's value
                return None
            self.seen.add(fp)
        pool = self.pools[size][expr.type]
        pool.append(_Value(expr, data, len(pool)))
        self.values_of[expr] = data
        self.stats.values += 1
        if self._matches(expr.type, data):
            return expr
        if self.derived and expr.type == self.problem.output_type:
            for wrap in self.derived.get(self._target_fingerprint(data), ()):
                candidate = wrap(expr)
                if (self.best is None or candidate.size() < self.best.size()) \
                        and self._matches(candidate.type, self._evaluate(candidate)):
                    self.best = candidate  # kept until this size is done: a direct match wins
        if self.reshape_op is not None and expr.type != self.problem.output_type \
                and _squeezed(expr.type) == self.squeezed_output:
            self._reshaped(expr)
        return None

    def _reshaped(self, expr: Expr) -> None:
        """reshape(expr) as the best solution so far where it is one (one op larger than
        expr, found at expr's size like an inverse target)."""
        out = self.problem.output_type
        if self.best is not None and self.best.size() <= expr.size() + 1:
            return
        for attrs, rt in self._signature(self.reshape_op, (expr.type,)):
            if rt == out:
                candidate = Expr(out, self.reshape_op, attrs, (expr,))
                if self._matches(out, self._evaluate(candidate)):
                    self.best = candidate
                return

    def _target_fingerprint(self, data) -> tuple:
        """Fingerprint of a value on the positions that must be right."""
        if self.care is not None:
            data = tuple(np.where(c, d, 0) for c, d in zip(self.care, data))
        return _fingerprint(self.problem.output_type, data)

    def _tick(self):
        self.count += 1
        if self.count & 255 == 0:
            now = time.monotonic()
            if now > self.deadline or (self.settings.max_candidates is not None
                                       and self.count > self.settings.max_candidates):
                raise SearchTimeout
            if self.settings.progress is not None and now >= self.next_report:
                self.next_report = now + 1.0
                self.settings.progress(self.problem.name, self.stats.size_reached, self.stats.enumerated)

    def _apply(self, op: Op, attrs, rt: TensorType, args: tuple[_Value, ...]):
        # op.evaluate without its errstate: run() holds one around the whole search
        dtype = rt.numpy_dtype
        data = tuple(np.asarray(op.apply(NUMPY, [a.data[e] for a in args], attrs), dtype=dtype)
                     for e in range(len(self.target)))
        return Expr(rt, op, attrs, tuple(a.expr for a in args)), data

    # -- leaves ---------------------------------------------------------------------------
    def _leaves(self) -> Expr | None:
        p = self.problem
        n = len(p.examples_in)
        for i, t in sorted(p.input_types.items()):
            found = self._add(0, Expr(t, leaf=i), tuple(np.asarray(p.examples_in[e][i]) for e in range(n)))
            if found:
                return found
        for seed in self.seeds:
            try:
                data = tuple(np.asarray(v) for v in evaluate(seed, p.examples_in))
            except (KeyError, ValueError, IndexError):
                continue
            if found := self._add(0, seed, data):
                return found
        for op in p.ops:
            if op.arity == 0:
                for attrs, rt in self._signature(op, ()):
                    expr, data = self._apply(op, attrs, rt, ())
                    if found := self._add(0, expr, data):
                        return found
        # comparisons of two index grids (iota along different dims of one shape) are the
        # masks of non-rectangular iteration domains (j <= i, k > i ...): leaves too
        for op in p.ops:
            if op.arity != 2 or "compare" not in op.name:
                continue
            grids = [v for t, vs in self.pools[0].items() for v in vs
                     if v.expr.op is not None and "iota" in v.expr.op.name and not v.expr.args]
            for a, b in itertools.permutations(grids, 2):
                if a.expr.type == b.expr.type and a.expr.attrs < b.expr.attrs:
                    for attrs, rt in self._signature(op, (a.expr.type, b.expr.type)):
                        expr, data = self._apply(op, attrs, rt, (a, b))
                        if found := self._add(0, expr, data):
                            return found
        # scalars broadcast to the shapes of the problem are leaves too
        for op in p.ops:
            if op.arity != 1 or "broadcast" not in op.name:
                continue
            scalars = [v for t, vs in self.pools[0].items() if t.rank == 0 for v in vs]
            for v in scalars:
                for attrs, rt in self._signature(op, (v.expr.type,)):
                    if rt.shape in p.context.shapes:
                        expr, data = self._apply(op, attrs, rt, (v,))
                        if found := self._add(0, Expr(rt, op, attrs, (v.expr,)), data):
                            return found
        return None

    # -- enumeration ----------------------------------------------------------------------
    def _splits(self, total: int, arity: int):
        if arity == 1:
            yield (total,)
            return
        for first in range(total + 1):
            for rest in self._splits(total - first, arity - 1):
                yield (first,) + rest

    def _grow(self, size: int) -> Expr | None:
        """All values of `size`. Candidates of the output type go first: when the solution
        has this size it is found before the rest of the (largest) level is built."""
        for output_typed in (True, False):
            found = self._grow_pass(size, output_typed)
            if found is not None:
                return found
            if self._best_final(size):
                return self.best
        return None

    def _best_final(self, size: int) -> bool:
        """Whether the best solution through an inverse target or a reshape is one op
        larger than the level: the values of other types than the output's, the rest of
        the level, give none smaller (they are no direct match, and wrapped they are
        larger again)."""
        return self.best is not None and self.best.size() <= size + 1

    def _grow_pass(self, size: int, output_typed: bool) -> Expr | None:
        out_type = self.problem.output_type
        for op in self.problem.ops:
            if op.arity == 0:
                continue
            remaining = size - op.weight
            if remaining < 0:
                continue
            for split in self._splits(remaining, op.arity):
                if op.commutative and list(split) != sorted(split):
                    continue  # the mirrored split gives the same values
                type_lists = [list(self.pools[s].keys()) for s in split]
                for types in itertools.product(*type_lists):
                    choices = [(a, rt) for a, rt in self._signature(op, types)
                               if (rt == out_type) == output_typed]
                    if not choices:
                        continue
                    pools = [self.pools[s][t] for s, t in zip(split, types)]
                    same = op.commutative and op.arity == 2 and split[0] == split[1] and types[0] == types[1]
                    int_div = op.name.split(".", 1)[1] in ("divide", "div", "remainder", "remsi") \
                        and types[-1].is_int
                    for args in itertools.product(*pools):
                        if same and args[1].index < args[0].index:
                            continue
                        if int_div and any(np.any(d == 0) for d in args[-1].data):
                            self.stats.rejected_nonfinite += 1
                            continue  # integer x/0: a trap (arith.divsi) or -1 (XLA)
                        for attrs, rt in choices:
                            self.stats.enumerated += 1
                            self._tick()
                            if not (self.solution_first is not None and self._no_alternative(op, attrs, rt, args)):
                                expr, data = self._apply(op, attrs, rt, args)
                                if (found := self._add(size, expr, data)) and not self._collect(found, data):
                                    return found
                                if not output_typed and self.best is not None and self._best_final(size):
                                    return self.best
                            if self.stop_at is not None and self.stats.enumerated >= self.stop_at:
                                return self._cheapest()
        return self._cheapest()

    def _no_alternative(self, op: Op, attrs, rt: TensorType, args: tuple[_Value, ...]) -> bool:
        """Whether a candidate enumerated after the first solution (the rest of the
        search's last level, run for a cheaper solution only) is no solution, told from
        its value on the first example: at some position that must be right, farther
        from the target than the tolerance plus the fingerprints' rounding cell (see
        _far_bounds). Then it does not match, its fingerprint is not the solution's (the
        solution is within the tolerance there), and no value with its fingerprint
        matches either. Such a candidate is neither run on the other examples nor kept:
        the level is the search's last, and what it would add to the pools and the
        equivalence classes serves only to tell later candidates are no solution."""
        if rt != self.problem.output_type:
            return False
        lo, hi = self.solution_first
        got = np.asarray(op.apply(NUMPY, [a.data[0] for a in args], attrs), dtype=rt.numpy_dtype)
        if hi is None:  # integers: any other value at a position that must be right
            far = ((got != self.target[0]) & lo).any()
        else:
            d = np.abs(got - self.target[0])
            far = ((d > lo) & (d < hi)).any()
        if far:
            self.stats.evaluated += 1
        return bool(far)

    def _far_bounds(self) -> tuple | None:
        """(lo, hi) per position of the first example: a candidate's distance d from the
        target there with lo < d < hi is far (_no_alternative). lo is the tolerance
        (synth.numerics.mismatches) plus ROUNDING_MARGIN, more than the fingerprints'
        rounding cell where the values are at most FIRST_KEY_MAGNITUDE (d < hi keeps the
        candidate's there); infinite where the position need not be right or the target
        is not such a value. Integers (hi None): lo is where the position must be right.
        None for other types (f32), which take the full check."""
        want = np.asarray(self.target[0])
        care = np.ones(want.shape, bool) if self.care is None else np.asarray(self.care[0], bool)
        if want.dtype.kind in "iub":
            return care, None
        if want.dtype != np.float64:
            return None
        w = np.where(care, want, 0.0)  # mismatches' scale: over the positions compared
        finite = np.isfinite(w)
        scale = max(1.0, float(np.max(np.abs(w[finite]))) if finite.any() else 1.0)
        with np.errstate(all="ignore"):
            lo = rtol("f64") * (np.abs(want) + scale) + ROUNDING_MARGIN
            hi = FIRST_KEY_MAGNITUDE - np.abs(want)
        usable = care & np.isfinite(want) & (np.abs(want) <= FIRST_KEY_MAGNITUDE)
        return np.where(usable, lo, np.inf), np.where(usable, hi, -np.inf)

    def _collect(self, solution: Expr, data) -> bool:
        """Keep a solution and go on looking for cheaper ones (False: stop at this one)."""
        if self.settings.alternatives <= 0:
            return False
        if not self.solutions:
            self.solution_fp = _fingerprint(solution.type, data)
            self.solution_first = self._far_bounds()
            self.stop_at = self.stats.enumerated + self.settings.alternatives
        self.solutions.append(solution)
        return True

    def _cheapest(self) -> Expr | None:
        """The cheapest solution collected (the first found among equally cheap ones)."""
        if not self.solutions:
            return None
        cost = self.settings.cost or program_cost
        costs = [cost(e) for e in self.solutions]
        best = min(range(len(costs)), key=lambda k: (costs[k], k))
        self.stats.solutions_compared = len(self.solutions)
        self.stats.solution_cost = costs[best]
        return self.solutions[best]

    def _masked_update(self) -> None:
        """When the output is an input array changed only at the positions of an index
        mask (a triangular update, say), the program need only be right there: the search
        looks for the update on those positions and wraps it as select(mask, update, old)."""
        p = self.problem
        if p.output is None or p.input_types.get(p.output) != p.output_type or p.output_type.rank == 0:
            return
        out = p.output_type
        old = next((v for v in self.pools[0][out] if v.expr.leaf == p.output), None)
        if old is None:
            return
        changed = np.zeros(out.shape, dtype=bool)
        for before, after in zip(old.data, self.target):
            changed |= before != after
        if changed.all() or not changed.any():
            return
        for op in p.ops:
            if "select" not in op.name:
                continue
            if op.arity == 3:  # select(mask, x, y) with an index-grid comparison leaf as mask
                masks = [v for t, vs in self.pools[0].items() if t.dtype == "i1" and t.shape == out.shape
                         for v in vs if all(np.array_equal(d, changed) for d in v.data)]
                for mask in masks:
                    for attrs, rt in self._signature(op, (mask.expr.type, out, out)):
                        self.care = (changed,) * len(self.target)
                        self.wrap = lambda f, op=op, a=attrs, m=mask.expr: Expr(out, op, a, (m, f, old.expr))
                        return
            elif op.arity == 2:  # a mask fused into the op: select_index(x, y)
                ones, zeros = np.ones(out.shape, out.numpy_dtype), np.zeros(out.shape, out.numpy_dtype)
                for attrs, rt in self._signature(op, (out, out)):
                    if np.array_equal(op.evaluate([ones, zeros], attrs) != 0, changed):
                        self.care = (changed,) * len(self.target)
                        self.wrap = lambda f, op=op, a=attrs: Expr(out, op, a, (f, old.expr))
                        return

    def run(self) -> Expr | None:
        t0 = time.monotonic()
        try:
            with np.errstate(all="ignore"):
                found = self._leaves()
                if found is None and self.care_mask is None:
                    self._masked_update()
                    if self.care is not None:  # a leaf may be the update itself
                        found = next((v.expr for vs in self.pools[0].values() for v in vs
                                      if self._matches(v.expr.type, v.data)), None)
                if found is None:
                    self._inverse_targets(0)
                    found = self.best
                size = 0
                while found is None and size < self.settings.max_size:
                    size += 1
                    self.stats.size_reached = size
                    found = self._grow(size) or self.best
                    if found is None and size <= INVERSE_OPERAND_SIZE:
                        self._inverse_targets(size)
                    if found is None and size == SPLIT_AFTER and self.splits:
                        found = self._select_split()
        except SearchTimeout:
            found = self._cheapest() or self.best
        finally:
            self.stats.seconds = time.monotonic() - t0
        if found is not None and self.wrap is not None:
            found = self.wrap(found)
        if found is not None:
            self.stats.solution_size = found.size()
        return found


def search(problem: Problem, settings: SearchSettings, seeds: tuple = ()) -> tuple[Expr | None, SearchStats]:
    """The smallest program for the problem (bottom-up); `seeds`: programs over its
    inputs (the solutions of a group's earlier problems) that join its inputs as values of
    the first level, so a program built on them is reached at its size less theirs."""
    e = Enumerator(problem, settings, seeds=seeds)
    return e.run(), e.stats
