"""Level z3: bounded proofs (every input symbolic, the original executed symbolically,
the raised function interpreted), staged assumptions, confirmed counterexamples."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import z3
from z3 import z3core as Z3core
from z3.z3 import _to_expr_ref as _expr

from synth.semantics import support as support
from synth.analysis.model import Kernel
from synth.budget import ms_left
from synth.errors import InputError
from synth.semantics import z3sem
from synth.analysis.function import describe
from synth.validation.common import MAX_PROOF_ELEMENTS, RTOL, Counterexample, Report, Sizes, element_text, sizes_text
from synth.validation.contract import Comparison
from synth.validation.plan import SizePlan


# level "z3" ----------------------------------------------------------------------------------


def _free_constants(terms) -> list[z3.ExprRef]:
    return sorted((t for t in z3sem.subterms(terms)
                   if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED), key=str)


def _has_partial_ops(terms) -> bool:
    """Whether `terms` apply an uninterpreted function (sqrt, exp, pow) or divide by a
    non-numeral: the ops whose z3 model values may be unlike the real functions'."""
    applications, divisors = _partial_ops(terms)
    return bool(divisors) or bool(applications)


def _partial_ops(terms) -> tuple[list, list[z3.ExprRef]]:
    """(the applications of uninterpreted functions among `terms`' subterms, the distinct
    denominators that are not numerals), in the order of one walk of the term DAG."""
    applications, divisors = [], {}
    ctx = next((t.ctx for t in terms if isinstance(t, z3.ExprRef)), None)
    for c, a in z3sem.raw_subterms(terms):  # wrapper objects only for what is returned
        if Z3core.Z3_get_ast_kind(c, a) != z3.Z3_APP_AST:
            continue
        app = Z3core.Z3_to_app(c, a)
        kind = Z3core.Z3_get_decl_kind(c, Z3core.Z3_get_app_decl(c, app))
        if kind == z3.Z3_OP_UNINTERPRETED:
            if Z3core.Z3_get_app_num_args(c, app) > 0:
                applications.append(_expr(a, ctx))
        elif kind in (z3.Z3_OP_DIV, z3.Z3_OP_IDIV):
            d = Z3core.Z3_get_app_arg(c, app, 1)
            if not Z3core.Z3_is_numeral_ast(c, d):  # a rational or integer numeral
                divisors.setdefault(Z3core.Z3_get_ast_id(c, d), _expr(d, ctx))
    return applications, list(divisors.values())


def _value_text(v: z3.ExprRef) -> str:
    if z3.is_true(v) or z3.is_false(v):
        return str(v).lower()
    if z3.is_int_value(v):
        return str(v.as_long())
    if z3.is_rational_value(v):
        fr = Fraction(v.numerator_as_long(), v.denominator_as_long())
        f = float(fr)
        if Fraction(f) == fr:
            return repr(f)
        if fr.denominator < 10 ** 12:
            return f"{f!r} (exactly {fr})"
        return f"~{f!r}"  # a rational no float represents: its nearest float
    if z3.is_algebraic_value(v):
        return f"~{v.approx(17).as_decimal(17).rstrip('?')}"
    return str(v)


def _python_value(v: z3.ExprRef):
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    if z3.is_int_value(v):
        return v.as_long()
    if z3.is_rational_value(v):
        return float(Fraction(v.numerator_as_long(), v.denominator_as_long()))
    if z3.is_algebraic_value(v):
        return float(Fraction(v.approx(20).as_fraction()))
    raise ValueError(f"no value for {v}")


def _confirmed(model: z3.ModelRef, want, have) -> bool:
    """Whether `want != have` holds at the model's inputs with the real sqrt / exp / pow and
    defined divisions (exact in the model where none of those occurs)."""
    if not _has_partial_ops([want, have]):
        return True
    bindings = {c.get_id(): _python_value(model.eval(c, model_completion=True))
                for c in _free_constants([want, have])}
    try:
        w, h = support.evaluate([want, have], bindings)
    except (ZeroDivisionError, ValueError, OverflowError, KeyError):
        return False
    if isinstance(w, bool) or isinstance(h, bool):
        return w != h
    if math.isnan(w) or math.isnan(h):
        return False
    return not math.isclose(w, h, rel_tol=RTOL, abs_tol=0.0)


@dataclass
class Proof:
    """The outcome of `prove_equal`."""

    verdict: str  # "proven", "refuted", "unknown"
    assumptions: list[str] = field(default_factory=list)
    counterexample: tuple | None = None  # (pair, model)
    message: str = ""


ABSTRACT_STAGE_TIMEOUT = 3.0  # seconds for the query with non-linear parts uninterpreted (linear: fast)
FACT_STAGE_TIMEOUT = 10.0  # seconds for each query after the first (sqrt facts, nonzero denominators) at most


def prove_equal(pairs: list[tuple], timeout: float, facts=()) -> Proof:
    """Is `want == have` for every (key, want, have) in `pairs`, for all inputs (that
    satisfy `facts`: the value ranges of integer inputs)? Every stage within `timeout`
    seconds in all (the stages after the first within FACT_STAGE_TIMEOUT each too)."""
    until = time.monotonic() + timeout
    pairs = [p for p in pairs
             if not (isinstance(p[1], z3.ExprRef) and isinstance(p[2], z3.ExprRef) and p[1].eq(p[2]))]
    if not pairs:
        return Proof("proven")
    terms = [t for _, w, h in pairs for t in (w, h)]
    if _equal_abstracted(pairs, timeout):
        return Proof("proven")
    solver = z3.Solver()
    solver.set("timeout", max(1, int((until - time.monotonic()) * 1000)))
    solver.add(z3.Or([w != h for _, w, h in pairs]))
    solver.add(*facts)
    stages = [("", [])]
    applications, divisors = _partial_ops(terms)
    if any(True for a in applications if a.decl().eq(z3sem.SQRT)):
        stages.append(("sqrt facts", z3sem.sqrt_facts(terms)))
    if divisors:
        stages.append(("nonzero denominators", [d != 0 for d in divisors]))
    assumptions: list[str] = []
    last = None
    for label, facts in stages:
        if facts:
            # a model the first query found only by giving sqrt / division values the real
            # functions do not take: the facts that exclude those make the query non-linear,
            # where z3 rarely decides in more time than this
            ms = ms_left(until, int(min(timeout, FACT_STAGE_TIMEOUT) * 1000))
            if ms is None:
                return Proof("unknown", assumptions, message=f"Z3 gave up (the {timeout:g} s timeout ran out "
                                                             f"before the {label} stage)")
            solver.set("timeout", ms)
            solver.add(*facts)
            if label == "nonzero denominators":
                assumptions.append(f"every denominator is nonzero ({len(divisors)} distinct "
                                   f"denominator terms); inputs dividing by zero are not covered")
        result = solver.check()
        if result == z3.unsat:
            return Proof("proven", assumptions)
        if result == z3.unknown:
            return Proof("unknown", assumptions, message=f"Z3 gave up ({solver.reason_unknown()})")
        model = solver.model()
        first = next(p for p in pairs if z3.is_true(model.eval(p[1] != p[2], model_completion=True)))
        if _confirmed(model, first[1], first[2]):
            return Proof("refuted", assumptions, (first, model))
        last = first
    return Proof("unknown", assumptions,
                  message=f"Z3's counterexample at {element_text(last[0])} relies on values of sqrt / exp / pow / "
                          f"division by zero that the real functions do not take")


def _equal_abstracted(pairs: list[tuple], timeout: float) -> bool:
    """Whether every pair is equal with their non-linear subterms abstracted
    (z3sem.abstract_nonlinear): unsat there is unsat for the terms themselves, and such a
    query is linear; only tried where some subterm is non-linear."""
    terms = [t for _, w, h in pairs for t in (w, h)]
    abstract = z3sem.abstract_nonlinear(terms)
    if all(a is t or (isinstance(a, z3.ExprRef) and a.eq(t)) for a, t in zip(abstract, terms)):
        return False
    solver = z3.Solver()
    solver.set("timeout", int(min(timeout, ABSTRACT_STAGE_TIMEOUT) * 1000))
    solver.add(z3.Or([abstract[2 * k] != abstract[2 * k + 1] for k in range(len(pairs))]))
    return solver.check() == z3.unsat


def _input_ranges(kernel: Kernel, sym: list) -> list:
    """`lo <= x <= hi` for each integer input element x of an iN argument: the proof's
    integers do not wrap around, but its inputs are iN values (a max reduction that starts
    from the smallest iN is the max of its elements only for such inputs)."""
    facts = []
    for a, v in zip(kernel.function.arguments[: kernel.n_arguments], sym):
        bits = a.type[1:]
        if not (a.type.startswith("i") and bits.isdigit() and int(bits) > 1):
            continue
        lo, hi = -2 ** (int(bits) - 1), 2 ** (int(bits) - 1) - 1
        for t in np.asarray(v, dtype=object).ravel():
            if isinstance(t, z3.ArithRef) and t.is_int() and z3.is_const(t) and \
                    t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                facts += [t >= lo, t <= hi]
    return facts


def _number(v: z3.ExprRef):
    if z3.is_int_value(v):
        return v.as_long()
    if z3.is_rational_value(v):
        return float(Fraction(v.numerator_as_long(), v.denominator_as_long()))
    return None  # true / false, or an irrational algebraic number


def _model_arguments(kernel: Kernel, sym: list, model, relevant) -> list:
    """The counterexample's input values, one entry per argument of the kernel: an
    (array, mask) pair for arrays (the mask marks the elements the differing element
    depends on; the others are arbitrary), a number for scalars, None where a value is
    not a number z3 can name."""
    relevant = {t.get_id() for t in relevant}
    out = []
    for a, v in zip(kernel.function.arguments[: kernel.n_arguments], sym):
        if a.is_array and isinstance(v, np.ndarray):
            values = np.zeros(v.shape)
            mask = np.zeros(v.shape, dtype=bool)
            for idx in np.ndindex(*v.shape):
                t = v[idx]
                if isinstance(t, z3.ExprRef) and t.get_id() in relevant:
                    n = _number(model.eval(t, model_completion=True))
                    if n is not None:
                        values[idx], mask[idx] = n, True
            out.append((values, mask))
        elif isinstance(v, z3.ExprRef) and v.get_id() in relevant:
            out.append(_number(model.eval(v, model_completion=True)))
        else:
            out.append(None)
    return out


def _symbolic_raised_args(kernel: Kernel, sizes: Sizes, sym: list) -> list:
    args = []
    for a, v in zip(kernel.function.arguments[: kernel.n_arguments], sym):
        if a.is_array:
            args.append(v)
        else:
            v = z3sem.numeral(v, kernel.tensor_type(a.index, sizes).dtype) if isinstance(v, int) else v
            out = np.empty((), dtype=object)
            out[()] = v
            args.append(out)
    return args


class Undecided(Exception):
    """Z3 did not tell within the caller's time whether an output element depends on
    memory the original never wrote (the proof's verdict is then unknown, not bad input)."""


def _uninitialised(kernel: Kernel, sym: list, want: list, comparisons: list[Comparison],
                   until: float | None = None) -> str | None:
    """The output element, if any, that depends on memory the original never wrote: a
    local's element read before written (`undef_*`), or the initial content of an
    out-parameter (a returned buffer). Z3's questions end by `until` (a time.monotonic()
    value: the proof's --z3-timeout); Undecided where Z3 cannot tell by then."""
    out_params = set(kernel.interface.out_parameters)
    initial = set()
    for i in out_params:
        initial |= {t.get_id() for t in np.asarray(sym[i], dtype=object).ravel() if isinstance(t, z3.ExprRef)}

    def unwritten(t) -> bool:  # the constant's name, not str(t): z3's printer costs ~0.1 ms a term
        return z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED and \
            (t.get_id() in initial or t.decl().name().startswith("undef_"))

    walked: set = set()  # subterms of earlier elements: none of them was such memory
    elements = [(c, idx, np.asarray(want[c.argument], dtype=object)[idx]) for c in comparisons
                for idx in np.ndindex(*np.asarray(want[c.argument], dtype=object).shape)]
    if not any(_unwritten_raw(ctx, a, initial) for _, _, e in elements
               for ctx, a in z3sem.raw_subterms([e], walked)):
        return None
    # such memory is in a term: an element depends on it unless the term takes the same
    # value whatever it holds (`select(c, t * a, old)` where t is written under c: C's
    # `if (c) { t = ...; x += t * a; }` if-converted), which Z3 decides
    reach = _unwritten_reach([e for _, _, e in elements], unwritten)
    for c, idx, e in elements:
        if isinstance(e, z3.ExprRef) and reach.get(e.get_id()):
            independent = _independent(e, reach[e.get_id()], until)
            if independent is None:
                raise Undecided(f"Z3 could not tell in time whether {c.label}{list(idx)} depends on memory "
                                f"the original never wrote")
            if not independent:
                return f"{c.label}{list(idx)}"
    return None


def _unwritten_raw(c, a, initial: set) -> bool:
    """_uninitialised's `unwritten` on a raw term (z3sem.raw_subterms): a constant that is
    an out-parameter's initial element (its id in `initial`) or a local's `undef_*`."""
    if Z3core.Z3_get_ast_kind(c, a) != z3.Z3_APP_AST:
        return False
    app = Z3core.Z3_to_app(c, a)
    if Z3core.Z3_get_app_num_args(c, app):
        return False
    decl = Z3core.Z3_get_app_decl(c, app)
    if Z3core.Z3_get_decl_kind(c, decl) != z3.Z3_OP_UNINTERPRETED:
        return False
    name = Z3core.Z3_get_decl_name(c, decl)
    return Z3core.Z3_get_ast_id(c, a) in initial or (
        Z3core.Z3_get_symbol_kind(c, name) == z3.Z3_STRING_SYMBOL
        and Z3core.Z3_get_symbol_string(c, name).startswith("undef_"))


def _unwritten_reach(roots: list, unwritten) -> dict:
    """Term id -> {id: const} of the `unwritten` constants among its subterms (one walk of
    the DAG, bottom-up)."""
    memo: dict = {}
    stack = [(t, False) for t in roots if isinstance(t, z3.ExprRef)]
    while stack:
        t, ready = stack.pop()
        if t.get_id() in memo:
            continue
        if not ready:
            stack.append((t, True))
            stack.extend((k, False) for k in t.children() if k.get_id() not in memo)
            continue
        found = {t.get_id(): t} if unwritten(t) else {}
        for k in t.children():
            found.update(memo[k.get_id()])
        memo[t.get_id()] = found
    return memo


INDEPENDENT_MS = 10_000  # Z3's time for one element's question at most


def _independent(term, consts: dict, until: float | None = None) -> bool | None:
    """Whether `term` has one value whatever the constants `consts` hold (Z3: it equals
    itself with each replaced by a fresh constant); None where Z3 cannot tell within
    INDEPENDENT_MS and before `until` (a time.monotonic() value, the caller's deadline)."""
    ms = ms_left(until, INDEPENDENT_MS)
    if ms is None:
        return None
    other = z3.substitute(term, *[(k, z3.FreshConst(k.sort())) for k in consts.values()])
    solver = z3.Solver()
    solver.set("timeout", ms)
    solver.add(term != other)
    verdict = solver.check()
    return None if verdict == z3.unknown else verdict == z3.unsat


def run_proofs(kernel: Kernel, plan: SizePlan, comparisons: list[Comparison], timeout: float,
                report: Report, extra: list | None = None) -> None:
    """The bounded proof at the plan's configurations, then at `extra` ones (sizes where
    the all-size proof saw a possible difference) that the size model accepts."""
    from synth.semantics.affine import execute, OutsideAtSizes, symbolic_inputs

    configs = plan.proof_configs()
    if not configs:
        report.level, report.verdict = "z3", "unknown"
        report.message = plan.why_no_proof()
        return
    if plan.rewritable:
        # (a loop step's at each value of its counter, as the plan's own: none where the
        # counter has no value at those sizes)
        configs += [s for s in plan.with_counter([s for s in extra or [] if kernel.sizes.valid(s)])
                    if s not in configs]
    skipped = []  # sizes where an index the kernel computes leaves its array (C's UB there)
    for sizes in configs:
        original, small = plan.instances(sizes)
        kf = describe(original, kernel.name)
        sym = symbolic_inputs(kf, "", kernel.sizes.param_values(sizes))
        try:
            want = execute(original, kernel.name, sym)
            bad = _uninitialised(kernel, sym, want, comparisons, time.monotonic() + timeout)
            have = None if bad is not None else small.evaluate(_symbolic_raised_args(kernel, sizes, sym))
        except OutsideAtSizes as e:
            skipped.append(f"at sizes {sizes_text(sizes)}: {e}")
            continue
        except z3sem.NoRealValue as e:  # e.g. a max reduction that starts from -inf
            report.level = "z3"
            report.verdict, report.message = "unknown", f"{e}; the proof is over the real numbers"
            return
        except Undecided as e:
            report.level = "z3"
            report.verdict, report.message = "unknown", f"at sizes {sizes_text(sizes)}: {e} (Z3 gave up)"
            return
        if bad is not None:
            raise InputError(f"@{kernel.name} reads memory it never wrote (an uninitialised "
                             f"local or returned buffer) to compute {bad}", kernel.location)
        pairs = []
        for c in comparisons:
            w = want[c.argument]
            h = have[c.result] if c.result is not None else sym[c.argument]
            for idx in np.ndindex(*w.shape):
                pairs.append(((c.label, idx), w[idx], h[idx]))
        proof = prove_equal(pairs, timeout, _input_ranges(kernel, sym))
        for a in proof.assumptions:
            if a not in report.assumptions:
                report.assumptions.append(a)
        if proof.verdict == "proven":
            report.sizes_proven.append(sizes)
            continue
        report.level = "z3"
        if proof.verdict == "unknown":
            report.verdict, report.message = "unknown", f"at sizes {sizes_text(sizes)}: {proof.message}"
            return
        ((label, idx), w, h), model = proof.counterexample
        inputs = {}
        scalars = [s for a, s in zip(kf.arguments, sym) if not a.is_array and isinstance(s, z3.ExprRef)]
        for c in _free_constants([w, h] + scalars):
            inputs[str(c)] = _value_text(model.eval(c, model_completion=True))
        report.verdict = "not equivalent"
        report.counterexample = Counterexample(
            "z3", sizes, label, idx, _value_text(model.eval(w, model_completion=True)),
            _value_text(model.eval(h, model_completion=True)), inputs,
            kind="z3", args=_model_arguments(kernel, sym, model, _free_constants([w, h] + scalars)))
        return
    if not report.sizes_proven:  # every configuration skipped
        report.level = "z3"
        report.verdict, report.message = "unknown", "no size to prove at: " + "; ".join(skipped)
        return
    report.verdict, report.level = "equivalent", "z3"


