"""`synth verify ORIGINAL RAISED`: is a raised module equivalent to the affine original?

Two levels, the second including the first:

- "test": observational testing. The original runs through MLIR's ExecutionEngine, the
  raised function through XLA CPU (stablehlo, as `@main`) or the ExecutionEngine
  (linalg on tensors), on several input sets: uniform random, zeros, negatives, tiny
  (~1e-300), large (~1e+100) and mixed magnitudes, at two small size configurations and
  at the original sizes. Results agree when both are non-finite at the same place or
  |raised - original| <= RTOL * (|original| + max(1, max |original|)) with RTOL = 1e-9
  (synth.synthesis.solve's tolerance: reassociated f64 sums, nothing more). Differences far below
  1 in absolute value therefore pass, which is why the proof exists.
- "z3": a bounded proof. At small sizes (every dimension parameter >= 2, all distinct:
  2, 3, 4, ... and a second configuration with the values rotated; time-step parameters
  2 and 1), every array element and every scalar argument is a symbolic input (no scalar
  is fixed); the original is executed symbolically (synth.semantics.affine), the raised
  function interpreted (synth.semantics.raised), and Z3 checks that no input makes any
  written array element differ (the disjunction of all differences is unsat), over the
  REALS. So the proof covers exactly the sizes listed in the report, in exact real
  arithmetic: floating-point results may still differ by rounding and reassociation.

Sound by construction: "equivalent" is reported only on unsat. sqrt / exp / pow are
uninterpreted functions shared by both sides, and x/0 is z3's unspecified total
division, so an unsat proof holds for every value those could take. A sat model that
relies on such a value may be spurious: it is confirmed by evaluating both sides at the
model with the real functions (exactly where no such function or division occurs). An
unconfirmed model makes the next stage add, only as needed, (1) the true sqrt facts
(x >= 0 -> sqrt(x) >= 0 and sqrt(x)^2 = x), then (2) nonzero denominators, which is an
assumption: a proof that needed it says so in the report. Still unconfirmed, or a Z3
timeout: the verdict is "unknown" (exit 3), never "equivalent".

An array the raised function does not return (missing from `synth.outputs`) keeps its
input value; it is compared with the original's final value like any other, so a dropped
output is a difference with a counterexample, not a malformed input. A raised module
that breaks the contract (wrong argument types, result types, no `synth.outputs`) is an
InputError (exit 2).
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import z3

from synth.semantics import support as support
from synth.analysis.model import Kernel, load_kernel
from synth.errors import InputError
from synth.execution import NUMPY_DTYPES
from synth.semantics import z3sem
from synth.analysis.function import describe, list_functions
from synth.frontend.reader import SourceModule, load_source, read_text
from synth.numerics import RTOL as RTOLS
from synth.numerics import first_difference
from synth.semantics.raised import MIN_SIZE, RaisedFunction, Signature, load_raised, top_level_functions

RTOL = RTOLS["f64"]

LEVELS = ("test", "z3")
Sizes = dict[str, int]  # size symbol -> value

DEFAULT_Z3_TIMEOUT = 300.0  # seconds per solver call
MAX_PROOF_ELEMENTS = 4096  # proving at the original sizes (no re-instantiation) up to this


# results ----------------------------------------------------------------------------------


def _sizes_text(sizes: Sizes) -> str:
    return ", ".join(f"{n}={v}" for n, v in sorted(sizes.items())) or "no sizes"


def _element_text(key) -> str:
    """`arg5[1, 2]` for the key ("arg5", (1, 2)) of an output element."""
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], tuple):
        label, idx = key
        return f"{label}[{', '.join(map(str, idx))}]" if idx else f"{label}"
    return str(key)


@dataclass
class Counterexample:
    """Inputs on which the two functions differ, and the first differing element."""

    level: str  # "test" or "z3"
    sizes: Sizes
    output: str  # the output that differs: "arg5" or "result #0"
    index: tuple[int, ...]
    original: str  # the element's value in the original, as text
    raised: str
    inputs: dict[str, str]  # z3: the inputs the element depends on (others arbitrary); test: the input set

    def __str__(self) -> str:
        lines = [f"at sizes {_sizes_text(self.sizes)}: {_element_text((self.output, self.index))}: "
                 f"original {self.original}, "
                 f"raised {self.raised}"]
        if self.inputs:
            lines.append("inputs: " + ", ".join(f"{k} = {v}" for k, v in self.inputs.items()))
            if self.level == "z3":
                lines.append("(every other input: any value)")
        return "\n".join(lines)


@dataclass
class Report:
    function: str
    raised_function: str
    dialect: str
    verdict: str  # "equivalent", "not equivalent" or "unknown"
    level: str  # the level that decided: "test" or "z3"
    sizes_tested: list[Sizes] = field(default_factory=list)
    input_sets: int = 0  # input sets run at level "test"
    sizes_proven: list[Sizes] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    counterexample: Counterexample | None = None
    message: str = ""  # why, when the verdict is "unknown"
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)  # "test" / "z3" -> seconds

    @property
    def equivalent(self) -> bool:
        return self.verdict == "equivalent"

    def summary(self) -> str:
        head = f"@{self.raised_function} ({self.dialect}) vs @{self.function}: "
        lines = []
        if self.verdict == "equivalent":
            lines.append(head + f"EQUIVALENT (level {self.level})")
        elif self.verdict == "not equivalent":
            lines.append(head + f"NOT EQUIVALENT (found at level {self.level})")
        else:
            lines.append(head + f"UNKNOWN at level {self.level}: {self.message}")
        if self.sizes_tested:
            lines.append(f"  tested: {self.input_sets} input sets (random, zeros, negatives, tiny, "
                         f"large, mixed) at sizes " + "; ".join(map(_sizes_text, self.sizes_tested))
                         + f", tolerance rtol {RTOLS['f64']:g} (f64), {RTOLS['f32']:g} (f32), "
                         f"exact (integers)")
        if self.sizes_proven:
            lines.append("  proven by Z3 (unsat) at sizes " + "; ".join(map(_sizes_text, self.sizes_proven))
                         + ", every array element and scalar symbolic")
            lines.append("  covers: exactly these sizes, in exact real arithmetic (floating-point "
                         "results may differ by rounding and reassociation)")
        for a in self.assumptions:
            lines.append(f"  assuming: {a}")
        if self.counterexample is not None:
            lines.append("  counterexample " + str(self.counterexample).replace("\n", "\n    "))
        times = ", ".join(f"{k} {v:.2f} s" for k, v in self.timings.items())
        lines.append(f"  time: {self.seconds:.2f} s" + (f" ({times})" if times else ""))
        return "\n".join(lines)


# the contract -----------------------------------------------------------------------------


def _pick_function(source: SourceModule, raised_text: str, function: str | None) -> str:
    names = list_functions(source)
    if function is not None:
        if function not in names:
            raise InputError(f"no function @{function} with a body in the original module "
                             f"(functions: {', '.join('@' + n for n in names) or 'none'})", source.path)
        return function
    if len(names) == 1:
        return names[0]
    raised = {n for n, _, _ in top_level_functions(raised_text)}
    candidates = [n for n in names if f"{n}_raised" in raised]
    if len(candidates) != 1:
        raise InputError(f"the original module has several functions "
                         f"({', '.join('@' + n for n in names)}); choose one with --function",
                         source.path)
    return candidates[0]


@dataclass(frozen=True)
class Comparison:
    """One output: `label` (arg5, result #0), the normal-form argument holding its
    expected value after the original ran, and the raised function's result holding it
    (None: an array the raised function does not return keeps its input value)."""

    label: str
    argument: int
    result: int | None


def _check_contract(kernel: Kernel, raised: RaisedFunction, sig: Signature) -> list[Comparison]:
    """InputError unless `sig` follows the output contract; what to compare."""
    where = raised.path
    n = kernel.n_arguments
    values = kernel.sizes.original()
    if len(sig.arguments) != n:
        raise InputError(f"@{raised.name} takes {len(sig.arguments)} arguments; @{kernel.name} has "
                         f"{n} (one tensor per original argument)", where)
    for a, t in zip(kernel.function.arguments[:n], sig.arguments):
        want = kernel.tensor_type(a.index, values).mlir()
        # a scalar T may stay T in linalg (tensor<T> in stablehlo, which has no scalars)
        scalar_ok = raised.dialect == "linalg" and not a.is_array and f"tensor<{t.mlir()}>" == want
        if t.mlir() != want and not scalar_ok:
            also = f" or {want[7:-1]}" if raised.dialect == "linalg" and not a.is_array else ""
            raise InputError(f"argument #{a.index} of @{raised.name} is {t.mlir()}; for "
                             f"{a.mlir_type} the contract wants {want}{also}", where)
    if sig.outputs is None:
        raise InputError(f"@{raised.name} has no `synth.outputs` attribute listing the "
                         f"arguments its first results are the final contents of", where)
    results = kernel.interface.results
    if len(sig.results) != len(sig.outputs) + len(results):
        extra = f" and the {len(results)} value(s) @{kernel.name} returns" if results else ""
        raise InputError(f"@{raised.name} returns {len(sig.results)} values but synth.outputs "
                         f"lists {len(sig.outputs)} argument(s){extra}", where)
    if len(set(sig.outputs)) != len(sig.outputs):
        raise InputError(f"synth.outputs of @{raised.name} lists an argument twice", where)
    for k, (o, t) in enumerate(zip(sig.outputs, sig.results)):
        if not 0 <= o < n or not kernel.function.arguments[o].is_array:
            raise InputError(f"synth.outputs of @{raised.name} lists {o}, which is not an array "
                             f"argument of @{kernel.name}", where)
        want = kernel.tensor_type(o, values).mlir()
        if t.mlir() != want:
            raise InputError(f"result #{k} of @{raised.name} is {t.mlir()}; the final contents "
                             f"of argument #{o} are {want}", where)
    out = [Comparison(f"arg{a}", a, sig.outputs.index(a) if a in sig.outputs else None)
           for a in sorted(set(kernel.written) | set(sig.outputs))]
    for j, r in enumerate(results):
        k = len(sig.outputs) + j
        want = kernel.tensor_type(r.argument, values).mlir()
        if sig.results[k].mlir() != want:
            raise InputError(f"result #{k} of @{raised.name} is {sig.results[k].mlir()}; "
                             f"result #{j} of @{kernel.name} ({r.type}) is {want}", where)
        out.append(Comparison(f"result #{j}", r.argument, k))
    return out


# sizes -------------------------------------------------------------------------------------


class _SizePlan:
    """Original sizes, the small configurations for testing and proving, and the raised
    function at each.

    `raised_at(values) -> text`, when given (synth raise passes its program), builds the
    raised function at any sizes from the size symbols. Otherwise (a module written by
    hand or by another tool) the text is re-instantiated by mapping each original size
    value to its new one, which needs the original values distinct and >= MIN_SIZE."""

    def __init__(self, kernel: Kernel, raised: RaisedFunction, raised_at=None):
        self.kernel = kernel
        self.model = kernel.sizes
        self.original = self.model.original()
        self.raised = raised
        self.raised_at = raised_at
        values = list(self.original.values())
        self.rewritable = raised_at is not None or (
            len(set(values)) == len(values) and all(v >= MIN_SIZE for v in values))
        self._cache: dict = {}

    def _configs(self, first: int, stride: int) -> list[Sizes]:
        """Two configurations: ascending from `first` in the order of the original values,
        then the values rotated (one symbol: `first + 1`)."""
        out = []
        single = len(self.original) == 1
        for rotate in (0, 1):
            try:
                c = self.model.small_values(first + (rotate if single else 0), stride, 0 if single else rotate)
            except InputError:
                continue
            if c not in out and c != self.original:
                out.append(c)
        return out

    def test_configs(self) -> list[Sizes]:
        if not self.rewritable:
            return [self.original]
        return self._configs(3, 2) + [self.original]

    def proof_configs(self) -> list[Sizes]:
        if not self.rewritable:
            elements = sum(math.prod(int(d) for d in self.model.shape(i, self.original))
                           for i in self.model.arg_dims)
            if elements > MAX_PROOF_ELEMENTS:
                raise InputError(f"@{self.kernel.name} has sizes ({self.model.describe()}) that "
                                 f"cannot be told from other numbers in the raised text (they "
                                 f"must be distinct and at least {MIN_SIZE}), and is too large "
                                 f"({elements} array elements) to prove at its own sizes",
                                 self.kernel.location)
            return [self.original]
        configs = self._configs(2, 1)
        return configs or [self.original]

    def instances(self, values: Sizes) -> tuple[SourceModule, RaisedFunction]:
        """Original (normal form) and raised at `values` (the raised one verified by MLIR)."""
        key = tuple(sorted(values.items()))
        if key in self._cache:
            return self._cache[key]
        if values == self.original:
            out = (self.kernel.at(values) if self.kernel.sizes.arg_dims else self.kernel.normal, self.raised)
        else:
            original = self.kernel.at(values)
            if self.raised_at is not None:
                small = replace(self.raised, text=self.raised_at(values))
            else:
                small = self.raised.resized({self.original[n]: values[n] for n in self.original})
            try:
                small.signature()
            except InputError as e:
                raise InputError(f"cannot re-instantiate @{self.raised.name} at sizes "
                                 f"{_sizes_text(values)}: {e.message}", e.location) from None
            out = (original, small)
        self._cache[key] = out
        return out


# level "test" ------------------------------------------------------------------------------


# magnitudes of the "tiny" and "large" sets, per float type (within its range)
_EXTREMES = {"f64": (1e-300, 1e100), "f32": (1e-30, 1e15)}


def _mixed(rng: np.random.Generator, shape, elem: str = "f64") -> np.ndarray:
    tiny, large = _EXTREMES[elem]
    choices = np.stack([np.zeros(shape), np.sign(rng.uniform(-1, 1, shape)), rng.uniform(-1, 1, shape),
                        rng.uniform(-1, 1, shape) * tiny, rng.uniform(-1, 1, shape) * large])
    pick = rng.integers(0, len(choices), shape)
    return np.take_along_axis(choices, pick[None, ...], axis=0)[0] if shape else choices[int(pick)]


INPUT_SETS = {  # (rng, shape, float element type) -> values
    "random": lambda rng, shape, elem: rng.uniform(-1.0, 1.0, shape),
    "zeros": lambda rng, shape, elem: np.zeros(shape),
    "negatives": lambda rng, shape, elem: -rng.uniform(0.5, 2.0, shape),
    "tiny": lambda rng, shape, elem: rng.uniform(-1.0, 1.0, shape) * _EXTREMES[elem][0],
    "large": lambda rng, shape, elem: rng.uniform(-1.0, 1.0, shape) * _EXTREMES[elem][1],
    "mixed": _mixed,
}
SMALL_SETS = ("random", "random", "zeros", "negatives", "tiny", "large", "mixed")
ORIGINAL_SIZE_SETS = ("random",)  # the original sizes are large: one run


def _arguments(kernel: Kernel, sizes: Sizes, kind: str, rng: np.random.Generator) -> list:
    """run_function arguments at `sizes`, drawn from input set `kind`."""
    draw_float = INPUT_SETS[kind]

    def draw(shape, elem):
        dtype = NUMPY_DTYPES[elem]
        if elem.startswith("f"):
            return np.asarray(draw_float(rng, shape, elem), dtype=dtype)
        if kind == "zeros":
            return np.zeros(shape, dtype=dtype)
        if shape == ():
            return np.asarray(rng.integers(1, 10), dtype=dtype)
        return rng.integers(-50, 50, shape).astype(dtype)
    return kernel.arguments(sizes, draw)


def _raised_inputs(kernel: Kernel, sizes: Sizes, args: list) -> list[np.ndarray]:
    return [a if isinstance(a, np.ndarray) else
            np.asarray(a[1], dtype=kernel.tensor_type(i, sizes).numpy_dtype)
            for i, a in enumerate(args[: kernel.n_arguments])]


def _small_inputs(kernel: Kernel, args: list, limit: int = 36) -> dict[str, str]:
    """The input values of a counterexample, where they are few enough to print."""
    out = {}
    for i, a in enumerate(args[: kernel.n_arguments]):
        if isinstance(a, np.ndarray):
            if a.size <= limit:
                values = np.round(a, 6) if a.dtype.kind == "f" else a
                out[f"arg{i}"] = str(values.tolist())
        else:
            out[f"arg{i}"] = repr(a[1])
    return out


def _value_repr(v) -> str:
    v = np.asarray(v)
    return repr(float(v)) if v.dtype.kind == "f" else repr(v.item())


def _run_tests(kernel: Kernel, plan: _SizePlan, comparisons: list[Comparison], seed: int,
               report: Report) -> Counterexample | None:
    from synth.execution import run_function
    from synth.synthesis.solve import run_raised

    rng = np.random.default_rng(seed)
    configs = plan.test_configs()
    for sizes in configs:
        original, small = plan.instances(sizes)
        report.sizes_tested.append(sizes)
        sets = ORIGINAL_SIZE_SETS if sizes == plan.original and len(configs) > 1 else SMALL_SETS
        for kind in sets:
            args = _arguments(kernel, sizes, kind, rng)
            expected = run_function(original.text, kernel.name, args, opt_level=3).outputs
            inputs = _raised_inputs(kernel, sizes, args)
            got = run_raised(small.dialect, small.text, small.name, inputs)
            report.input_sets += 1
            for c in comparisons:
                have = got[c.result] if c.result is not None else inputs[c.argument]
                diff = first_difference(expected[c.argument], have)
                if diff is not None:
                    idx, want, value = diff
                    return Counterexample("test", sizes, c.label, idx, _value_repr(want), _value_repr(value),
                                          {"input set": f"{kind} (seed {seed}, set {report.input_sets})",
                                           **_small_inputs(kernel, args)})
    return None


# level "z3" ----------------------------------------------------------------------------------


def _free_constants(terms) -> list[z3.ExprRef]:
    seen, out, stack = set(), [], [t for t in terms if isinstance(t, z3.ExprRef)]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.append(t)
        else:
            stack.extend(t.children())
    return sorted(out, key=str)


def _has_partial_ops(terms) -> bool:
    """Whether `terms` apply an uninterpreted function (sqrt, exp, pow) or divide by a
    non-numeral: the ops whose z3 model values may be unlike the real functions'."""
    return bool(_divisors(terms)) or any(True for _ in _applications(terms))


def _applications(terms):
    seen, stack = set(), [t for t in terms if isinstance(t, z3.ExprRef)]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_app(t) and t.num_args() > 0 and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            yield t
        stack.extend(t.children())


def _divisors(terms) -> list[z3.ExprRef]:
    seen, out, stack = set(), {}, [t for t in terms if isinstance(t, z3.ExprRef)]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_app_of(t, z3.Z3_OP_DIV) or z3.is_app_of(t, z3.Z3_OP_IDIV):
            d = t.arg(1)
            if not (z3.is_rational_value(d) or z3.is_int_value(d)):
                out.setdefault(d.get_id(), d)
        stack.extend(t.children())
    return list(out.values())


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


def prove_equal(pairs: list[tuple], timeout: float) -> Proof:
    """Is `want == have` for every (key, want, have) in `pairs`, for all inputs?"""
    pairs = [p for p in pairs
             if not (isinstance(p[1], z3.ExprRef) and isinstance(p[2], z3.ExprRef) and p[1].eq(p[2]))]
    if not pairs:
        return Proof("proven")
    terms = [t for _, w, h in pairs for t in (w, h)]
    solver = z3.Solver()
    solver.set("timeout", int(timeout * 1000))
    solver.add(z3.Or([w != h for _, w, h in pairs]))
    stages = [("", [])]
    if any(True for a in _applications(terms) if a.decl().eq(z3sem.SQRT)):
        stages.append(("sqrt facts", z3sem.sqrt_facts(terms)))
    divisors = _divisors(terms)
    if divisors:
        stages.append(("nonzero denominators", [d != 0 for d in divisors]))
    assumptions: list[str] = []
    last = None
    for label, facts in stages:
        if facts:
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
                  message=f"Z3's counterexample at {_element_text(last[0])} relies on values of sqrt / exp / pow / "
                          f"division by zero that the real functions do not take")


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


def _uninitialised(kernel: Kernel, sym: list, want: list, comparisons: list[Comparison]) -> str | None:
    """The output element, if any, that depends on memory the original never wrote: a
    local's element read before written (`undef_*`), or the initial content of an
    out-parameter (a returned buffer)."""
    out_params = set(kernel.interface.out_parameters)
    initial = set()
    for i in out_params:
        initial |= {t.get_id() for t in np.asarray(sym[i], dtype=object).ravel() if isinstance(t, z3.ExprRef)}
    for c in comparisons:
        w = np.asarray(want[c.argument], dtype=object)
        for idx in np.ndindex(*w.shape):
            for t in _free_constants([w[idx]]):
                if str(t).startswith("undef_") or t.get_id() in initial:
                    return f"{c.label}{list(idx)}"
    return None


def _run_proofs(kernel: Kernel, plan: _SizePlan, comparisons: list[Comparison], timeout: float,
                report: Report) -> None:
    from synth.semantics.affine import execute, symbolic_inputs

    for sizes in plan.proof_configs():
        original, small = plan.instances(sizes)
        kf = describe(original, kernel.name)
        sym = symbolic_inputs(kf, "", kernel.sizes.param_values(sizes))
        want = execute(original, kernel.name, sym)
        bad = _uninitialised(kernel, sym, want, comparisons)
        if bad is not None:
            raise InputError(f"@{kernel.name} reads memory it never wrote (an uninitialised "
                             f"local or returned buffer) to compute {bad}", kernel.location)
        have = small.evaluate(_symbolic_raised_args(kernel, sizes, sym))
        pairs = []
        for c in comparisons:
            w = want[c.argument]
            h = have[c.result] if c.result is not None else sym[c.argument]
            for idx in np.ndindex(*w.shape):
                pairs.append(((c.label, idx), w[idx], h[idx]))
        proof = prove_equal(pairs, timeout)
        for a in proof.assumptions:
            if a not in report.assumptions:
                report.assumptions.append(a)
        if proof.verdict == "proven":
            report.sizes_proven.append(sizes)
            continue
        report.level = "z3"
        if proof.verdict == "unknown":
            report.verdict, report.message = "unknown", f"at sizes {_sizes_text(sizes)}: {proof.message}"
            return
        ((label, idx), w, h), model = proof.counterexample
        inputs = {}
        scalars = [s for a, s in zip(kf.arguments, sym) if not a.is_array and isinstance(s, z3.ExprRef)]
        for c in _free_constants([w, h] + scalars):
            inputs[str(c)] = _value_text(model.eval(c, model_completion=True))
        report.verdict = "not equivalent"
        report.counterexample = Counterexample(
            "z3", sizes, label, idx, _value_text(model.eval(w, model_completion=True)),
            _value_text(model.eval(h, model_completion=True)), inputs)
        return
    report.verdict, report.level = "equivalent", "z3"


# entry points ----------------------------------------------------------------------------------


def verify(original_path, raised_path, function: str | None = None, level: str = "z3", *,
           seed: int = 0, test_first: bool = True, z3_timeout: float = DEFAULT_Z3_TIMEOUT) -> Report:
    """Check `@NAME_raised` in `raised_path` against `@NAME` in `original_path`.

    level "test": observational testing only; "z3": testing first (a cheap refutation;
    `test_first=False` skips it), then the bounded Z3 proof. Returns a Report whose verdict
    is "equivalent", "not equivalent" (with a counterexample) or "unknown"; raises
    InputError for unreadable or unsupported input or a raised module that breaks the
    output contract."""
    source = load_source(original_path, warn=False)
    return verify_text(source, read_text(raised_path), str(raised_path), function, level,
                       seed=seed, test_first=test_first, z3_timeout=z3_timeout)


def verify_text(source: SourceModule, raised_text: str, raised_path: str, function: str | None = None,
                level: str = "z3", *, seed: int = 0, test_first: bool = True,
                z3_timeout: float = DEFAULT_Z3_TIMEOUT, kernel: Kernel | None = None,
                raised_at=None) -> Report:
    """`verify` on raised module text (`raised_path` names it in messages). `kernel` is the
    original already loaded; `raised_at(values) -> text` builds the raised function at
    other sizes (synth raise passes its program: no textual re-instantiation)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    t0 = time.monotonic()
    name = kernel.name if kernel is not None else _pick_function(source, raised_text, function)
    if kernel is None:
        kernel = load_kernel(source, name)
    raised = load_raised(raised_path, f"{name}_raised", raised_text)
    sig = raised.signature()
    comparisons = _check_contract(kernel, raised, sig)
    plan = _SizePlan(kernel, raised, raised_at)
    report = Report(name, raised.name, raised.dialect, "equivalent", "test")
    if level == "test" or test_first:
        t = time.monotonic()
        cex = _run_tests(kernel, plan, comparisons, seed, report)
        report.timings["test"] = time.monotonic() - t
        if cex is not None:
            report.verdict, report.counterexample = "not equivalent", cex
    if report.verdict == "equivalent" and level == "z3":
        t = time.monotonic()
        _run_proofs(kernel, plan, comparisons, z3_timeout, report)
        report.timings["z3"] = time.monotonic() - t
    report.seconds = time.monotonic() - t0
    return report


EXIT_CODES = {"equivalent": 0, "not equivalent": 4, "unknown": 3}


def cmd_verify(args) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = verify(args.original, args.raised, args.function, args.level, seed=args.seed,
                        z3_timeout=args.z3_timeout)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    print(report.summary())
    return EXIT_CODES[report.verdict]


def register(subparsers) -> None:
    """Add `synth verify` to the CLI's subcommands."""
    p = subparsers.add_parser(
        "verify", help="check that a raised module is equivalent to the original kernel",
        description="Test (level test) and prove with Z3 at small sizes (level z3) that "
                    "@NAME_raised in RAISED computes what @NAME in ORIGINAL writes. Exit codes: "
                    "0 equivalent, 4 not equivalent (counterexample printed), 3 undecided, "
                    "2 bad input.")
    p.add_argument("original", help="the affine kernel (.mlir)")
    p.add_argument("raised", help="the raised module with @NAME_raised (.mlir)")
    p.add_argument("--function", help="function name (default: the only one, or the one raised)")
    p.add_argument("--level", choices=LEVELS, default="z3", help="test only, or test then prove (default)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random input sets")
    p.add_argument("--z3-timeout", type=float, default=DEFAULT_Z3_TIMEOUT,
                   help="seconds per Z3 query (a timeout gives exit 3)")
    p.set_defaults(run=cmd_verify)
