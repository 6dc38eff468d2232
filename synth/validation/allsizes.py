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
as a difference by itself; the sizes of its model are handed to the bounded proof,
which confirms or rejects a difference there. Where the programs leave the model
(sequential recurrences, max reductions, library ops), the result says why and the
bounded level decides."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from synth.analysis.model import Kernel
from synth.semantics.affine_parametric import ParametricOriginal, size_term
from synth.semantics.parametric import NotParametric, empty_sum_facts
from synth.semantics.canonical import canonical
from synth.semantics.raised_parametric import Sizes, Tensor, evaluate
from synth.semantics.scalar import Unsupported
from synth.semantics.z3sem import NoRealValue
from synth.validation.contract import Comparison


@dataclass
class AllSizes:
    verdict: str  # "proven", "not applicable", "unknown"
    message: str = ""
    suspect_sizes: list[dict] = field(default_factory=list)  # where z3 saw a difference
    seconds: float = 0.0
    near_read: bool = True  # a number of the text was read as a size plus an offset (n - 1)


MAX_SUSPECT_SIZE = 9  # a suspected difference is looked for with every size up to this
MAX_SUSPECTS = 3  # the least and the greatest sizes handed to the bounded proof, so many of each at most
SUSPECT_SECONDS = 2.0  # at most for looking: a hint to the bounded proof, which decides
LEVEL_TIMEOUT = 20.0  # seconds for the whole level at most, both readings and every query (it aims at seconds per kernel)


def prove_all_sizes(kernel: Kernel, raised, comparisons: list[Comparison], timeout: float) -> AllSizes:
    t0 = time.monotonic()
    deadline = t0 + min(timeout, LEVEL_TIMEOUT)  # for the whole level, both readings
    out = _attempt(kernel, raised, comparisons, deadline, near=True)
    if out.verdict != "proven" and out.near_read and time.monotonic() < deadline:
        # a number next to a size (47 beside 48) may be a number, not `n - 1`: the
        # family with only exact sizes symbolic is the other reading of the same text
        # (the same family where no number was read so: a shape-generic text)
        exact = _attempt(kernel, raised, comparisons, deadline, near=False)
        if exact.verdict == "proven" or (exact.suspect_sizes and not out.suspect_sizes):
            out = exact
    out.seconds = time.monotonic() - t0
    return out


def _attempt(kernel: Kernel, raised, comparisons: list[Comparison], deadline: float, near: bool) -> AllSizes:
    sizes = None
    try:
        sizes = Sizes(kernel.sizes.original(), near)  # raises where two sizes are equal
        out = _prove(kernel, raised, comparisons, deadline, sizes)
    except NotParametric as e:
        out = AllSizes("not applicable", str(e))
    except (NoRealValue, Unsupported) as e:  # infinities (a max from -inf), ops outside the scalar model
        out = AllSizes("not applicable", f"{e}; the proof is over the real numbers")
    except z3.Z3Exception as e:
        out = AllSizes("unknown", f"z3: {e}")
    out.near_read = sizes is not None and sizes.near_read  # else the other reading is the same
    return out


def _prove(kernel: Kernel, raised, comparisons: list[Comparison], deadline: float, sizes: Sizes) -> AllSizes:
    original = ParametricOriginal(kernel)
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
        w, h = canonical(w, deadline), canonical(h, deadline)
        solver = z3.Solver()
        solver.set("timeout", _remaining_ms(deadline))
        solver.add(domain + empty_sum_facts([w, h]))
        solver.add(z3.And(inside + [w != h]))
        result = solver.check()
        if result == z3.unknown:
            return AllSizes("unknown", f"z3 gave up on {c.label} ({solver.reason_unknown()})")
        if result == z3.sat:
            return _suspects(solver, [z3.Int(n) for n in model.symbols], deadline, c.label)
    return AllSizes("proven")


def _suspects(solver: z3.Solver, symbols: list, deadline: float, label: str) -> AllSizes:
    """Sizes up to MAX_SUSPECT_SIZE where `solver`'s difference may be, for the bounded
    proof to confirm or reject: the MAX_SUSPECTS least and the MAX_SUSPECTS greatest
    (`_extreme`), alternately. z3 is asked only yes/no questions (is there a difference
    within these bounds?), never for a model's values, so the sizes do not depend on
    which model z3 picks (its internal term ids, which move with Python's garbage
    collection): the same input gives the same sizes, and the same emitted text."""
    symbols = sorted(symbols, key=str)
    suspects: list[dict] = []
    looking = min(deadline, time.monotonic() + SUSPECT_SECONDS)
    solver.add([s <= MAX_SUSPECT_SIZE for s in symbols])
    for least in [True, False] * MAX_SUSPECTS:
        sizes = _extreme(solver, symbols, looking, least)
        if sizes is None:
            break
        suspects.append(sizes)
        solver.add(z3.Or([s != sizes[str(s)] for s in symbols] or [z3.BoolVal(False)]))
    return AllSizes("unknown", f"the canonical forms of {label} differ" + (
        f"; sizes where they may: {', '.join(map(_text, suspects))}" if suspects else ""), suspects)


def _extreme(solver: z3.Solver, symbols: list, looking: float, least: bool) -> dict | None:
    """The least (or greatest) sizes, every symbol <= MAX_SUSPECT_SIZE, where `solver`
    is sat: least by (the largest size, then each symbol in the order of `symbols`),
    greatest by (the smallest size, then each symbol): a binary search on each with
    yes/no queries in pushed scopes. None when there are none, or when z3 gives up or
    the time is out before they are known (a partial answer would depend on the time)."""
    def sat(extra) -> bool | None:
        left = looking - time.monotonic()
        if left <= 0:
            return None
        solver.push()
        try:
            solver.add(extra)
            solver.set("timeout", max(1, int(left * 1000)))
            r = solver.check()
        finally:
            solver.pop()
        return None if r == z3.unknown else r == z3.sat

    def search(bound, lo: int, hi: int) -> int | None:
        """The least v in [lo, hi] with sat(bound(v)) knowing sat(bound(hi)), or
        the greatest knowing sat(bound(lo))."""
        while lo < hi:
            mid = (lo + hi) // 2 if least else (lo + hi + 1) // 2
            r = sat(bound(mid))
            if r is None:
                return None
            if least:
                lo, hi = (lo, mid) if r else (mid + 1, hi)
            else:
                lo, hi = (mid, hi) if r else (lo, mid - 1)
        return lo

    def within(s, v):
        return s <= v if least else s >= v

    if sat([]) is not True:
        return None
    if not symbols:
        return {}
    edge = search(lambda b: [within(s, b) for s in symbols], 1, MAX_SUSPECT_SIZE)
    if edge is None:
        return None
    fixed = [within(s, edge) for s in symbols]
    sizes = {}
    for s in symbols:
        v = search(lambda v: fixed + [within(s, v)], *((1, edge) if least else (edge, MAX_SUSPECT_SIZE)))
        if v is None:
            return None
        sizes[str(s)] = v
        fixed.append(s == v)
    return sizes


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


def _remaining_ms(deadline: float) -> int:
    """What is left of the level's time for one more query, in ms; NotParametric when
    nothing is (the level gives up, the bounded proof decides)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise NotParametric("the proof is not done in the level's time")
    return max(1, int(left * 1000))


def _decide(domain: list, goal, deadline: float):
    s = z3.Solver()
    s.set("timeout", _remaining_ms(deadline))
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
