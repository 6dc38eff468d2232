"""Level "all": equivalence for every value of the size symbols.

Both sides become one term per output array at a symbolic element index and symbolic
sizes: the original by summarising its loops (synth.semantics.affine_parametric), the
raised text by interpreting it with its sizes as symbols (synth.semantics.
raised_parametric). Both are put in the canonical form of synth.semantics.parametric,
and z3 decides, over the integers (sizes, indices) and the reals (data), that no sizes
in the domain, no element within the shape and no input make them differ. The domain
is where the original is defined: every size symbol >= 1 and every access of the
original within its array (the size model's constraints).

Sound: "proven" only on unsat, with SUM an uninterpreted function that satisfies only
congruence and "an empty sum is zero". Not complete: a sat answer may be an artefact of
that (two sums equal for a reason the canonical form misses), so it is never reported
as a difference by itself; sizes where it may hold (chosen in a fixed order by yes/no
queries, not read from a model: `suspects`) are handed to the bounded proof, which
confirms or rejects a difference there. Where the programs leave the model
(sequential recurrences, max reductions, library ops), the result says why and the
bounded level decides."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import z3

from synth.analysis.model import Kernel
from synth.semantics.affine_parametric import ParametricOriginal, size_term
from synth.semantics.parametric import NotParametric, empty_sum_facts, query_ms
from synth.semantics.canonical import canonical
from synth.semantics.raised_parametric import Sizes, Tensor, evaluate
from synth.semantics.scalar import Unsupported
from synth.semantics.z3sem import NoRealValue, abstract_nonlinear
from synth.validation.contract import Comparison


@dataclass
class AllSizes:
    verdict: str  # "proven", "not applicable", "unknown"
    message: str = ""
    suspect_sizes: list[dict] = field(default_factory=list)  # where z3 saw a difference
    seconds: float = 0.0
    near_read: bool = True  # a number of the text was read as a size plus an offset (n - 1)


MAX_SUSPECT_SIZE = 9  # a suspected difference is looked for with every size up to this
MAX_SUSPECTS = 2  # the least and the greatest sizes handed to the bounded proof, so many of each (4 >= the 3 models before)
SUSPECT_QUERIES = 60  # yes/no queries at most for looking: a hint to the bounded proof, which decides
SUSPECT_RLIMIT = 5_000_000  # z3 resource units per query (seen: 15e3 to 40e3 on polybench, 0.1 to 0.4 s)
ABSTRACT_MS = 3000  # the query with non-linear parts uninterpreted (linear: fast, or of no use)
LEVEL_TIMEOUT = 20.0  # seconds for the proofs at most, both readings and every query (it aims at seconds per kernel)


def prove_all_sizes(kernel: Kernel, raised, comparisons: list[Comparison], timeout: float) -> AllSizes:
    """The level on `raised` against the kernel's `comparisons`, within the caller's
    `timeout` seconds (its --z3-timeout): the proofs within LEVEL_TIMEOUT of it, and the
    look for suspect sizes after a failed proof (`suspects`) within what is left of it."""
    t0 = time.monotonic()
    deadline = t0 + min(timeout, LEVEL_TIMEOUT)  # for the proofs, both readings
    until = t0 + timeout  # for everything, the look for suspects included
    out = _attempt(kernel, raised, comparisons, deadline, until, near=True)
    if out.verdict != "proven" and out.near_read and time.monotonic() < deadline:
        # a number next to a size (47 beside 48) may be a number, not `n - 1`: the
        # family with only exact sizes symbolic is the other reading of the same text
        # (the same family where no number was read so: a shape-generic text)
        exact = _attempt(kernel, raised, comparisons, deadline, until, near=False)
        if exact.verdict == "proven" or (exact.suspect_sizes and not out.suspect_sizes):
            out = exact
    out.seconds = time.monotonic() - t0
    return out


def _attempt(kernel: Kernel, raised, comparisons: list[Comparison], deadline: float, until: float,
             near: bool) -> AllSizes:
    sizes = None
    try:
        sizes = Sizes(kernel.sizes.original(), near)  # raises where two sizes are equal
        out = _prove(kernel, raised, comparisons, deadline, until, sizes)
    except NotParametric as e:
        out = AllSizes("not applicable", str(e))
    except (NoRealValue, Unsupported) as e:  # infinities (a max from -inf), ops outside the scalar model
        out = AllSizes("not applicable", f"{e}; the proof is over the real numbers")
    except z3.Z3Exception as e:
        out = AllSizes("unknown", f"z3: {e}")
    out.near_read = sizes is not None and sizes.near_read  # else the other reading is the same
    return out


def _prove(kernel: Kernel, raised, comparisons: list[Comparison], deadline: float, until: float,
           sizes: Sizes) -> AllSizes:
    original = ParametricOriginal(kernel, deadline)
    want = original.outputs()
    model = kernel.sizes
    args = []
    signature = raised.signature(dynamic=True)  # a generic raise: its `?` dims computed, not read
    for a, t in zip(kernel.function.arguments[: kernel.n_arguments], signature.arguments):
        if a.is_array:
            shape = tuple(size_term(e) for e in model.arg_dims[a.index])
            args.append(Tensor(shape, kernel.tensor_type(a.index, model.original()).dtype,
                               original.inputs[a.index]))
        else:
            v = original.scalars[a.index]
            args.append(Tensor((), t.dtype, lambda idx, v=v: v) if t.is_tensor else v)
    domain = list(original.constraints)
    _check_argument_shapes(kernel, signature, domain, deadline)
    have, obligations = evaluate(raised, sizes, args)
    # the raised family is well-typed at every size of the domain: one query for all
    if obligations and _decide(domain, z3.Or([z3.Not(c) for c, _ in obligations]), deadline) != z3.unsat:
        what = next((w for c, w in obligations if _decide(domain, z3.Not(c), deadline) != z3.unsat), "?")
        raise NotParametric(f"the raised function is not well-typed at every size ({what})")
    for c in comparisons:  # one output at a time: the first that differs decides
        x, w = want[c.argument] if c.argument in want else original.final(c.argument)
        shape = tuple(size_term(e) for e in model.arg_dims[c.argument])
        if c.result is None:
            h = original.inputs[c.argument](x)
        else:
            r_shape, r_x, h = have[c.result]
            if len(r_shape) != len(shape):
                raise NotParametric(f"{c.label}: rank {len(r_shape)} where the original has {len(shape)}")
            same = _decide(domain, z3.Or([a != b for a, b in zip(r_shape, shape)] or [z3.BoolVal(False)]), deadline)
            if same != z3.unsat:
                raise NotParametric(f"{c.label}: the raised shape is not the original's at every size")
            h = z3.substitute(h, *zip(r_x, x)) if x else h
        inside = [z3.And(0 <= i, i < n) for i, n in zip(x, shape)]
        aw, ah = abstract_nonlinear([w, h])
        if not (aw.eq(w) and ah.eq(h)):  # first with the non-linear parts uninterpreted
            aw, ah = canonical(aw, deadline), canonical(ah, deadline)
            solver = z3.Solver()
            solver.set("timeout", query_ms(deadline, ABSTRACT_MS))
            solver.add(domain + empty_sum_facts([aw, ah]) + [z3.And(inside + [aw != ah])])
            if solver.check() == z3.unsat:
                continue
        w, h = canonical(w, deadline), canonical(h, deadline)
        solver = z3.Solver()
        solver.set("timeout", query_ms(deadline))
        solver.add(domain + empty_sum_facts([w, h]))
        solver.add(z3.And(inside + [w != h]))
        result = solver.check()
        if result == z3.unknown:
            return AllSizes("unknown", f"z3 gave up on {c.label} ({solver.reason_unknown()})")
        if result == z3.sat:
            return suspects(solver, [z3.Int(n) for n in model.symbols], until, c.label)
    return AllSizes("proven")


def suspects(solver: z3.Solver, symbols: list, until: float, label: str) -> AllSizes:
    """Sizes up to MAX_SUSPECT_SIZE where `solver`'s difference may be, for the bounded
    proof to confirm or reject: the MAX_SUSPECTS least, then the MAX_SUSPECTS greatest
    (`_in_order`). z3 is asked only yes/no questions (is there a difference at these
    sizes, or within these bounds?), never for a model's values, so the sizes do not
    depend on which model z3 picks (its internal term ids, which move with Python's
    garbage collection), and the budget is a number of queries, each bounded by z3's
    resource count, not the clock: the same input gives the same sizes, and the same
    emitted text. (The proofs' deadline does not cut it: a clock would.) `until` (a
    time.monotonic() value: the end of the caller's budget) is a safety net only: reached,
    the look stops with the sizes found so far, no more reproducible."""
    symbols = sorted(symbols, key=str)
    queries = _Queries(solver, [s <= MAX_SUSPECT_SIZE for s in symbols], until)
    suspects: list[dict] = []
    for least in (True, False):
        suspects += _in_order(queries, symbols, least, MAX_SUSPECTS, suspects)
    return AllSizes("unknown", f"the canonical forms of {label} differ" + (
        f"; sizes where they may: {', '.join(map(_text, suspects))}" if suspects else ""), suspects)


class _Queries:
    """Yes/no questions to `solver` in pushed scopes, at most SUSPECT_QUERIES, each
    bounded by SUSPECT_RLIMIT (z3's deterministic resource count) and the whole by the
    caller's budget, ending at `until` (time.monotonic()), a safety net only (reached, the
    answer is no more reproducible). None: no answer (z3 gave up, or the budget is spent)."""

    def __init__(self, solver: z3.Solver, facts: list, until: float):
        self.solver, self.facts, self.left, self.until = solver, facts, SUSPECT_QUERIES, until

    def sat(self, extra: list) -> bool | None:
        seconds = self.until - time.monotonic()
        if self.left <= 0 or seconds <= 0:
            return None
        self.left -= 1
        self.solver.push()
        try:
            self.solver.add(self.facts + extra)
            self.solver.set("rlimit", SUSPECT_RLIMIT)
            self.solver.set("timeout", max(1, int(seconds * 1000)))
            r = self.solver.check()
        finally:
            self.solver.pop()
        return None if r == z3.unknown else r == z3.sat


def _in_order(queries: _Queries, symbols: list, least: bool, count: int, taken: list[dict]) -> list[dict]:
    """The first `count` sizes (not in `taken`) where the difference may be, in a fixed
    order: least first by (the largest size, then the sizes in the order of `symbols`),
    or greatest first by (the smallest size, then the sizes, descending). A shell (the
    sizes whose largest, or smallest, is b) is looked into only where one query says it
    holds some. Stops at the first question without an answer."""
    found: list[dict] = []
    values = range(1, MAX_SUSPECT_SIZE + 1) if least else range(MAX_SUSPECT_SIZE, 0, -1)
    for b in values:
        inside = [s <= b if least else s >= b for s in symbols]
        r = queries.sat(inside + [z3.Or([s == b for s in symbols] or [z3.BoolVal(True)])])
        if r is None:
            return found
        if not r:
            continue
        for vs in itertools.product(values[: list(values).index(b) + 1], repeat=len(symbols)):
            if b not in vs and symbols:
                continue
            sizes = {str(s): v for s, v in zip(symbols, vs)}
            if sizes in taken or sizes in found:
                continue
            r = queries.sat([s == v for s, v in zip(symbols, vs)])
            if r is None:
                return found
            if r:
                found.append(sizes)
                if len(found) == count:
                    return found
        if not symbols:
            return found
    return found


def _check_argument_shapes(kernel: Kernel, signature, domain: list, deadline: float) -> None:
    """The raised text's argument dimensions, read as sizes, must be the original's at
    every size: otherwise the family of raised functions the proof is about would take
    inputs of other shapes than the original's."""
    from synth.semantics.raised_parametric import Sizes
    from synth.semantics.raised_values import is_dynamic_dim

    sizes = Sizes(kernel.sizes.original())
    for a, t in zip(kernel.function.arguments[: kernel.n_arguments], signature.arguments):
        if not a.is_array or not t.is_tensor:
            continue
        want = [size_term(e) for e in kernel.sizes.arg_dims[a.index]]
        # a `?` dim (a generic raise) is the argument's own: the original's by the contract
        have = [w if is_dynamic_dim(d) else sizes.term(int(d)) for w, d in zip(want, t.shape)]
        differ = z3.Or([x != y for x, y in zip(want, have)] or [z3.BoolVal(False)])
        if len(want) != len(have) or _decide(domain, differ, deadline) != z3.unsat:
            raise NotParametric(f"argument #{a.index} of the raised function has dimensions "
                                f"({', '.join(map(str, have))}) that are not the original's "
                                f"({', '.join(map(str, want))}) at every size")


def _text(sizes: dict) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in sorted(sizes.items())) + ")"


def _decide(domain: list, goal, deadline: float):
    s = z3.Solver()
    s.set("timeout", query_ms(deadline))
    s.add(domain + [goal])
    return s.check()


def domain_text(kernel: Kernel) -> str:
    """The sizes an all-size proof covers, in words."""
    m = kernel.sizes
    names = sorted(m.symbols)
    if not names:
        return "the kernel's own sizes (it has no size symbols)"
    text = f"{', '.join(names)} >= 1"
    if m.constraints:
        text += f" with every access of the original within its array ({len(m.constraints)} constraints)"
    return text
