"""Bottom-up enumerative search over a grammar (TF-Coder style).

Values are enumerated by program size (number of ops; inputs, constants and broadcasts of
scalars are leaves of size 0). For each op and each split of the size among its operands,
operands are chosen by type: the attribute choices, shape rule and dialect verifier are
evaluated once per operand-type signature and cached. Each new value is computed on every
example; observational equivalence keeps one program per distinct value. The first value
equal to the target output on all examples is the solution.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from .grammar import verifier
from .grammar.op import Op
from .grammar.types import SearchContext, ShapeError, TensorType
from .program import Expr

ROUND_DECIMALS = 9  # values equal to this many decimals are observationally equivalent


@dataclass(frozen=True)
class SearchSettings:
    max_size: int = 6
    timeout: float = 60.0
    equivalence_pruning: bool = True
    verifier_pruning: bool = True


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


def _fingerprint(t: TensorType, data: tuple[np.ndarray, ...]) -> tuple:
    parts = []
    for d in data:
        if d.dtype.kind == "f":
            d = np.round(d, ROUND_DECIMALS) + 0.0  # + 0.0 folds -0.0 into 0.0
        parts.append(d.tobytes())
    return (t, hashlib.blake2b(b"".join(parts), digest_size=16).digest())


@dataclass
class Enumerator:
    problem: Problem
    settings: SearchSettings
    stats: SearchStats = field(default_factory=SearchStats)

    def __post_init__(self):
        self.pools: dict[int, dict[TensorType, list[_Value]]] = defaultdict(lambda: defaultdict(list))
        self.seen: set[tuple] = set()
        self.signatures: dict[tuple, list] = {}
        self.deadline = time.monotonic() + self.settings.timeout
        self.count = 0
        out = self.problem.examples_out
        self.target = tuple(np.asarray(o) for o in out)
        self.care: np.ndarray | None = None  # positions the program must get right
        self.wrap = None  # update Expr -> the whole output's Expr (a masked select)
        self.residuals: dict[tuple, tuple] = {}  # fingerprint of target - leaf -> (add, attrs, leaf)
        # intermediate values never need a higher rank than the problem's own values
        self.max_rank = max([t.rank for t in self.problem.input_types.values()]
                            + [self.problem.output_type.rank])

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
            if self.settings.verifier_pruning and verifier.verify(op, types, attrs) is not None:
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
        for got, want in zip(data, self.target):
            if self.care is not None:
                got, want = got[self.care], want[self.care]
            if want.dtype.kind == "f":
                if not np.allclose(got, want, rtol=1e-9, atol=1e-12):
                    return False
            elif not np.array_equal(got, want):
                return False
        return True

    def _add(self, size: int, expr: Expr, data) -> Expr | None:
        """Keep a new value (unless equivalent to a kept one); return it if it solves."""
        self.stats.evaluated += 1
        if any(d.dtype.kind == "f" and not np.all(np.isfinite(d)) for d in data):
            self.stats.rejected_nonfinite += 1
            return None
        if self.settings.equivalence_pruning:
            fp = _fingerprint(expr.type, data)
            if fp in self.seen:
                self.stats.rejected_equivalence += 1
                return None
            self.seen.add(fp)
        pool = self.pools[size][expr.type]
        pool.append(_Value(expr, data, len(pool)))
        self.stats.values += 1
        if self._matches(expr.type, data):
            return expr
        if self.residuals and expr.type == self.problem.output_type:
            base = self.residuals.get(self._target_fingerprint(data))
            if base is not None:  # target = base + this value
                add, attrs, old = base
                return Expr(expr.type, add, attrs, (old, expr))
        return None

    def _target_fingerprint(self, data) -> tuple:
        """Fingerprint of a value on the positions that must be right."""
        if self.care is not None:
            data = tuple(np.where(self.care, d, 0.0) for d in data)
        return _fingerprint(self.problem.output_type, data)

    def _residual_targets(self) -> None:
        """Most updates are `old + delta`: for every leaf L of the output type, a value equal
        to target - L solves the problem as add(L, value). Looked up by fingerprint, so
        solutions one op larger than the value are found at the value's size."""
        out = self.problem.output_type
        add = next((op for op in self.problem.ops if op.name.split(".", 1)[1] == "add"), None)
        if add is None or out.dtype not in ("f64", "f32"):
            return
        choices = self._signature(add, (out, out))
        if not choices:
            return
        for v in self.pools[0][out]:
            residual = tuple(t - d for t, d in zip(self.target, v.data))
            self.residuals.setdefault(self._target_fingerprint(residual), (add, choices[0][0], v.expr))

    def _tick(self):
        self.count += 1
        if self.count & 255 == 0 and time.monotonic() > self.deadline:
            raise SearchTimeout

    def _apply(self, op: Op, attrs, rt: TensorType, args: tuple[_Value, ...]):
        data = tuple(
            np.asarray(op.evaluate([a.data[e] for a in args], attrs), dtype=rt.numpy_dtype)
            for e in range(len(self.target))
        )
        return Expr(rt, op, attrs, tuple(a.expr for a in args)), data

    # -- leaves ---------------------------------------------------------------------------
    def _leaves(self) -> Expr | None:
        p = self.problem
        n = len(p.examples_in)
        for i, t in sorted(p.input_types.items()):
            found = self._add(0, Expr(t, leaf=i), tuple(np.asarray(p.examples_in[e][i]) for e in range(n)))
            if found:
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
        return None

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
                    for args in itertools.product(*pools):
                        if same and args[1].index < args[0].index:
                            continue
                        for attrs, rt in choices:
                            self.stats.enumerated += 1
                            self._tick()
                            expr, data = self._apply(op, attrs, rt, args)
                            if found := self._add(size, expr, data):
                                return found
        return None

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
                        self.care = changed
                        self.wrap = lambda f, op=op, a=attrs, m=mask.expr: Expr(out, op, a, (m, f, old.expr))
                        return
            elif op.arity == 2:  # a mask fused into the op: select_index(x, y)
                ones, zeros = np.ones(out.shape, out.numpy_dtype), np.zeros(out.shape, out.numpy_dtype)
                for attrs, rt in self._signature(op, (out, out)):
                    if np.array_equal(op.evaluate([ones, zeros], attrs) != 0, changed):
                        self.care = changed
                        self.wrap = lambda f, op=op, a=attrs: Expr(out, op, a, (f, old.expr))
                        return

    def run(self) -> Expr | None:
        t0 = time.monotonic()
        try:
            with np.errstate(all="ignore"):
                found = self._leaves()
                if found is None:
                    self._masked_update()
                    if self.care is not None:  # a leaf may be the update itself
                        found = next((v.expr for vs in self.pools[0].values() for v in vs
                                      if self._matches(v.expr.type, v.data)), None)
                    self._residual_targets()
                size = 0
                while found is None and size < self.settings.max_size:
                    size += 1
                    self.stats.size_reached = size
                    found = self._grow(size)
        except SearchTimeout:
            found = None
        finally:
            self.stats.seconds = time.monotonic() - t0
        if found is not None and self.wrap is not None:
            found = self.wrap(found)
        if found is not None:
            self.stats.solution_size = found.size()
        return found


def search(problem: Problem, settings: SearchSettings) -> tuple[Expr | None, SearchStats]:
    e = Enumerator(problem, settings)
    return e.run(), e.stats
