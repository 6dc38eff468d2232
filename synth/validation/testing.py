"""Level test: the original and the raised function on input sets at several sizes."""

from __future__ import annotations

import re

import numpy as np

from synth.semantics import support as support
from synth.analysis.model import Kernel
from synth.errors import ExecutionError, InputError
from synth.execution import NUMPY_DTYPES
from synth.grammar.types import NARROW_INT_DTYPES, full_range
from synth.numerics import amplification, first_difference, in_layout_of, mismatches, perturbed, undetermined
from synth.synthesis.spec import GROWTH, diagonally_dominant, finite_outputs, grown, scaled_down
from synth.validation.common import Counterexample, Report, Sizes, element_text, sizes_text
from synth.validation.contract import Comparison
from synth.validation.plan import SizePlan


# level "test" ------------------------------------------------------------------------------


# magnitudes of the "tiny" and "large" sets, per float type (within its range)
_EXTREMES = {"f64": (1e-300, 1e100), "f32": (1e-30, 1e15)}


def _mixed(rng: np.random.Generator, shape, elem: str = "f64") -> np.ndarray:
    tiny, large = _EXTREMES[elem]
    choices = np.stack([np.zeros(shape), np.sign(rng.uniform(-1, 1, shape)), rng.uniform(-1, 1, shape),
                        rng.uniform(-1, 1, shape) * tiny, rng.uniform(-1, 1, shape) * large])
    pick = rng.integers(0, len(choices), shape)
    return np.take_along_axis(choices, pick[None, ...], axis=0)[0] if shape else choices[int(pick)]


# NaN and infinities among random values: for an original that tells them apart (C's
# isnan / isinf: `arith.cmpf uno`, a comparison with an infinity), which the proofs' real
# arithmetic does not model; its differences are never excused as outside the domain
_NONFINITE = (np.nan, np.inf, -np.inf)
_UNORDERED = re.compile(r"arith\.cmpf (uno|ord),")
_INFINITE = re.compile(r"(%[\w#]+) = arith\.constant (0x7FF0000000000000|0xFFF0000000000000|"
                       r"0x7F800000|0xFF800000) :")


def _nonfinite(rng: np.random.Generator, shape, elem: str = "f64") -> np.ndarray:
    values = rng.uniform(-1.0, 1.0, shape)
    pick = rng.integers(0, 6, shape)  # half of them NaN, +inf or -inf
    return np.where(pick < 3, np.take(_NONFINITE, np.minimum(pick, 2)), values)


_LOAD = re.compile(r"(%[\w#]+) = (?:affine|memref)\.load (%[\w#]+)\[([^\]]*)\]")
_CMPF = re.compile(r"arith\.cmpf \w+, (%[\w#]+), (%[\w#]+)")
# fmax / fmin as C defines them (a NaN operand gives the other one): the targets' maximum /
# minimum give NaN, which the proofs' real arithmetic does not tell apart
_NUM_MAXMIN = re.compile(r"arith\.(maxnumf|minnumf)\b")
NUM_MAXMIN_NOTE = ("no input is NaN where the original's fmax / fmin (arith.maxnumf / minnumf: a NaN "
                   "operand gives the other one) are raised as maximum / minimum (a NaN operand gives "
                   "NaN); the proofs' real arithmetic has no NaN")


def classifies(text: str) -> bool:
    """The function tells NaN or infinities apart from numbers: `cmpf uno` (isnan), a
    value compared with itself (`x != x`, also as two loads of one element), or a
    comparison with an infinity (isinf, isfinite; not a maximum started at -inf)."""
    if _UNORDERED.search(text):
        return True
    loads = {m.group(1): (m.group(2), m.group(3)) for m in _LOAD.finditer(text)}
    if any(a == b or (a in loads and loads[a] == loads.get(b)) for a, b in
           (m.groups() for m in _CMPF.finditer(text))):
        return True
    names = {m.group(1) for m in _INFINITE.finditer(text)}
    return any(re.search(rf"arith\.cmpf \w+, %[\w#]+, {re.escape(n)}\b|arith\.cmpf \w+, "
                         rf"{re.escape(n)}, ", text) for n in names)


INPUT_SETS = {  # (rng, shape, float element type) -> values
    "random": lambda rng, shape, elem: rng.uniform(-1.0, 1.0, shape),
    "zeros": lambda rng, shape, elem: np.zeros(shape),
    "negatives": lambda rng, shape, elem: -rng.uniform(0.5, 2.0, shape),
    "tiny": lambda rng, shape, elem: rng.uniform(-1.0, 1.0, shape) * _EXTREMES[elem][0],
    # small but far from underflow: computed values cross thresholds (stddev <= 0.1)
    # without the inf / nan cascades of "tiny"
    "small": lambda rng, shape, elem: rng.uniform(-1.0, 1.0, shape) * 1e-3,
    "large": lambda rng, shape, elem: rng.uniform(-1.0, 1.0, shape) * _EXTREMES[elem][1],
    "mixed": _mixed,
    "nonfinite": _nonfinite,
}
SMALL_SETS = ("random", "random", "zeros", "negatives", "small", "tiny", "large", "mixed")
ORIGINAL_SIZE_SETS = ("random",)  # the original sizes are large: one run


def arguments(kernel: Kernel, sizes: Sizes, kind: str, rng: np.random.Generator) -> list:
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
        if elem in NARROW_INT_DTYPES:  # char / short: every value, 255 as an unsigned char too
            return rng.integers(*full_range(elem), shape).astype(dtype)
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


DOMAIN_NOTE = ("where the original's outputs on an input set hold NaN (an invalid operation: "
               "the square root of a negative number when factoring a matrix that is not "
               "positive definite) and the raised function differs only by NaN / inf in other "
               "places, the set is tested again with n added to the diagonal of each square "
               "matrix (n times its largest magnitude, if above 1), and skipped if the original's outputs still hold NaN")


GROWTH_NOTE = (f"where the original's outputs on an input set exceed its inputs' magnitude more "
               f"than {GROWTH:g} times (an elimination without pivoting of a random matrix: "
               f"rounding decides such elements) and the raised function differs, the set is "
               f"tested again with n added to the diagonal of each square matrix (n times its largest "
               f"magnitude, if above 1); at the largest sizes tested, where a run of the raise "
               f"costs most, the set is made so as soon as the original's outputs grow, before the "
               f"raise runs on it")


def _has_nan(arrays) -> bool:
    return any(np.isnan(a).any() for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind == "f")


def _mismatches(want, have) -> np.ndarray:
    """numerics.mismatches of an output, where a result of another shape differs everywhere."""
    want = np.asarray(want)
    laid_out = in_layout_of(want, np.asarray(have))
    return np.ones(want.shape, dtype=bool) if laid_out is None else mismatches(want, laid_out)


def _differs(comparisons: list[Comparison], expected: list, got: list, inputs: list) -> bool:
    return any(_mismatches(expected[c.argument], got[c.result] if c.result is not None else inputs[c.argument]).any()
               for c in comparisons)


def _outside_domain(comparisons: list[Comparison], expected: list, got: list, inputs: list) -> bool:
    """The original hit an invalid operation (NaN in its outputs) and every difference
    involves a non-finite value: a library op that gives up on the whole matrix where the
    loops go on. A difference between two finite values is never excused."""
    if not _has_nan(expected):
        return False
    differs = False
    for c in comparisons:
        want = np.asarray(expected[c.argument])
        have = in_layout_of(want, np.asarray(got[c.result] if c.result is not None else inputs[c.argument]))
        if have is None:  # another shape: not a difference of non-finite values
            return False
        bad = mismatches(want, have)
        if not bad.any():
            continue
        differs = True
        if want.dtype.kind == "f" and (np.isfinite(want) & np.isfinite(have) & bad).any():
            return False
    return differs


def _note_domain(report: Report) -> None:
    if DOMAIN_NOTE not in report.assumptions:
        report.assumptions.append(DOMAIN_NOTE)


CONDITIONING_NOTE = ("elements whose value the original itself does not determine (they move by "
                     "more than the tolerance when its float inputs move by 1e-12 relative, 1e-6 in f32: "
                     "0/0-like rounding noise, e.g. gramschmidt's columns beyond its rank) are not "
                     "compared; every other element is")
DOMINANT_NOTE = ("where the original is ill-conditioned on an input set (it amplifies a 1e-12 "
                 "relative move of its float inputs more than 1000 times, a 1e-6 move in f32 10 times) and the "
                 "raised function differs, the set is tested again with n added to the diagonal "
                 "of each square matrix (n times its largest magnitude, if above 1), where the original is well-conditioned on that set")
SCALED_NOTE = ("where the original is ill-conditioned on an input set (it amplifies a 1e-12 "
               "relative move of its float inputs more than 1000 times, a 1e-6 move in f32 10 times) and the "
               "raised function differs, the set is tested again with its float inputs divided by "
               "the largest extent (durbin's recursion on a positive definite Toeplitz system), "
               "where the original is well-conditioned on that set")


ILL_CONDITIONED = 1e3  # a draw on which the original amplifies relative input changes this much


def _ill_conditioned(original, kernel: Kernel, args: list, expected: list, rng, opt: int = 3) -> list:
    """Per output array of the original: the elements it does not determine (numerics.
    undetermined: they move under a 1e-12 relative change of its float inputs)."""
    return _sensitivity(original, kernel, args, expected, rng, opt)[0]


def _sensitivity(original, kernel: Kernel, args: list, expected: list, rng, opt: int = 3) -> tuple[list, float]:
    """The elements the original does not determine on this draw, and how much it
    amplifies a relative change of its inputs (numerics.amplification)."""
    from synth.execution import run_function

    again = run_function(original.text, kernel.name, perturbed(args, rng), opt_level=opt).outputs
    return undetermined(expected, again), amplification(expected, again)


def _note_conditioning(report: Report) -> None:
    if CONDITIONING_NOTE not in report.assumptions:
        report.assumptions.append(CONDITIONING_NOTE)


def run_tests(kernel: Kernel, plan: SizePlan, comparisons: list[Comparison], seed: int,
               report: Report) -> Counterexample | None:
    """Test at the plan's sizes; the first counterexample. One found only in a text that
    synth verify re-instantiated by mapping sizes (not built by synth raise) counts only if
    the text at its own sizes differs too; otherwise the plan stops trusting the mapping
    (SizePlan.distrust) and the function is tested at its own sizes only."""
    rng = np.random.default_rng(seed)
    configs = plan.test_configs()
    _precompile(kernel, plan, configs)
    suspect = None  # why the text re-instantiated by mapping sizes is not trusted
    small = None  # its counterexample, reported if the text at its own sizes differs too
    for sizes in configs:
        if suspect is not None and not plan.is_original(sizes):
            continue
        textual = plan.raised_at is None and not plan.is_original(sizes)
        try:
            found = _test_at(kernel, plan, comparisons, seed, report, rng, sizes,
                             len(configs) > 1 and suspect is None)
        except ExecutionError as e:
            if not textual:
                raise
            # out-of-bounds slices of a blocked loop whose block no longer divides the size
            suspect = f"re-instantiated at {sizes_text(sizes)} it fails to run ({str(e).splitlines()[0]})"
            continue
        if found is None or not textual:
            if found is not None:  # at the user's own sizes: the smaller one, now confirmed, if any
                return small if small is not None else found
            continue
        small = found
        suspect = (f"re-instantiated at {sizes_text(found.sizes)} it differs from the original "
                   f"({element_text((found.output, found.index))}: original {found.original}, "
                   f"raised {found.raised})")
    if suspect is not None:
        # the text at its own sizes agrees on every input set: what fails is the textual
        # re-instantiation (a number it does not read as a size), not the user's file
        plan.distrust(f"{suspect} while at its own sizes it agrees, so the text depends on its sizes "
                      f"in a way the mapping of sizes does not follow")
        report.assumptions.append(f"tested at its own sizes only: {plan.not_rewritable}")
        report.sizes_tested = [s for s in report.sizes_tested if plan.is_original(s)]
    if plan.scaled and plan.scaled not in report.assumptions:
        report.assumptions.append(plan.scaled)
    if _NUM_MAXMIN.search(plan.kernel.normal.text) and not _NUM_MAXMIN.search(plan.raised.text) \
            and NUM_MAXMIN_NOTE not in report.assumptions:
        report.assumptions.append(NUM_MAXMIN_NOTE)
    if plan.largest_costs is not None and plan.is_largest(plan.large or plan.original) and \
            any(plan.is_largest(s) for s in report.sizes_tested):
        report.largest.append({"sizes": dict(plan.large or plan.original),
                               "statement_instances": plan.largest_costs[0],
                               "raise_element_operations": plan.largest_costs[1]})
    return None


def _precompile(kernel: Kernel, plan: SizePlan, configs: list) -> None:
    """Compile the original and the raised function at every small test size as one module
    each (synth.execution.precompile), before the tests run them one by one: the same
    functions, compiled once instead of once per size. Only for a raise synth built (its
    text at other sizes is known to be right; a text re-instantiated by mapping sizes is
    compiled at its call, where a failure is handled)."""
    _precompile_all([(kernel, _small_instances(plan, configs), _largest_raised(plan, configs))])


def precompile_plans(prepared: list) -> None:
    """_precompile for several functions at once (synth.validation.verify.Prepared each:
    the parts of a function raised nest by nest, validated one after the other): every
    original at its small test sizes as one module, every raised function as one (XLA
    compiles one executable instead of one per part), before their tests. The same
    functions, compiled at the same levels: only the time changes."""
    _precompile_all([(p.kernel, _small_instances(p.plan, configs), _largest_raised(p.plan, configs))
                     for p in prepared for configs in [p.plan.test_configs()]])


def _small_instances(plan: SizePlan, configs: list) -> list:
    """(original, raised) at the sizes of `configs` tested at -O0, in order, up to the first
    that does not instantiate; none for a raise synth did not build."""
    if plan.raised_at is None:
        return []
    small = []
    for c in configs:
        if opt_level(plan, c) == 0:
            try:
                small.append(plan.instances(c))
            except InputError:  # left to the test at that size, after the sizes before it
                break
    return small


def _largest_raised(plan: SizePlan, configs: list) -> list:
    """The raised function at the largest sizes among `configs` (those tested at -O3), where
    synth built it and it instantiates: what compile_ahead may start compiling."""
    if plan.raised_at is None:
        return []
    out = []
    for c in configs:
        if opt_level(plan, c) == 3:
            try:
                raised = plan.instances(c)[1]
            except InputError:  # left to the test at that size
                continue
            if raised not in out:
                out.append(raised)
    return out


def _precompile_all(items: list) -> None:
    """items: (kernel, its small (original, raised) instances, its raised functions at the
    largest sizes). The originals compile in the execution worker while the raised ones
    compile here (XLA, outside Python's lock) or queue behind them (linalg, in the same
    worker); then the raised functions at the largest sizes start compiling beside the
    tests (reference.compile_ahead: stablehlo), which run them last."""
    from synth import background
    from synth.execution import precompile, prestart_worker
    from synth.validation.reference import compile_ahead, precompile_reference

    prestart_worker()  # on this thread: the one worker both threads' requests go to
    originals = background.start(precompile, "memref", [(o.text, kernel.name) for kernel, small, _ in items
                                                        for o, _ in small], opt_level=0)
    try:
        raised = [r for _, small, _ in items for _, r in small]
        for dialect in dict.fromkeys(r.dialect for r in raised):
            precompile_reference(dialect, [(r.text, r.name) for r in raised if r.dialect == dialect], opt_level=0)
    finally:
        originals.result()
    for _, _, largest in items:
        for r in largest:
            compile_ahead(r.dialect, r.text, r.name)


def opt_level(plan: SizePlan, sizes) -> int:
    """LLVM's optimization level for running the original and the raised function at
    `sizes`: 0 at the small test sizes (compiling at -O0 takes a third of the time, on
    functions that run microseconds: deriche's raise compiles ~90 of them), 3 at the largest
    (the kernel's own or those scaled down, where the run takes longer than the compile).
    Neither changes a value: no fast-math flags, so LLVM keeps IEEE semantics at each level."""
    return 3 if plan.is_largest(sizes) else 0


def _test_at(kernel: Kernel, plan: SizePlan, comparisons: list[Comparison], seed: int, report: Report,
             rng, sizes, several: bool) -> Counterexample | None:
    """Test the raised function at `sizes` on each input set; the first counterexample."""
    from functools import partial

    from synth.execution import run_function as run
    from synth.validation.reference import run_reference

    opt = opt_level(plan, sizes)
    run_function = partial(run, opt_level=opt)
    run_raised = partial(run_reference, opt_level=opt)
    original, small = plan.instances(sizes)
    report.sizes_tested.append(sizes)
    # the original sizes are large: one draw; an edge size (a size at 1) tests the program's
    # structure on ordinary values (extreme magnitudes there test IEEE corner cases of 0/0,
    # which a reordered but exact program may meet differently: gramschmidt with one row)
    sets = ORIGINAL_SIZE_SETS if (plan.is_largest(sizes) and several) or plan.is_edge(sizes) else SMALL_SETS
    if classifies(original.text):
        sets = sets + ("nonfinite",)
    largest = plan.is_largest(sizes)
    for kind in sets:
        args = arguments(kernel, sizes, kind, rng)
        expected = run_function(original.text, kernel.name, args).outputs
        if largest and kind != "nonfinite" and grown(args, expected):
            # at the largest sizes a run of the raise costs most (seconds): a draw whose
            # outputs grow is made diagonally dominant before the raise runs on it, not
            # after it differed (rounding decides the grown elements: a comparison there
            # tells nothing either way)
            dominant = diagonally_dominant(args)
            if _changed(dominant, args):
                args = dominant
                expected = run_function(original.text, kernel.name, args).outputs
                if GROWTH_NOTE not in report.assumptions:
                    report.assumptions.append(GROWTH_NOTE)
        inputs = _raised_inputs(kernel, sizes, args)
        got = run_raised(small.dialect, small.text, small.name, inputs)
        report.input_sets += 1
        if kind != "nonfinite" and grown(args, expected) and \
                _differs(comparisons, expected, got, inputs):
            dominant = diagonally_dominant(args)  # rounding decides the grown elements
            if _changed(dominant, args):  # else the same draw: its runs are those above
                args = dominant
                expected = run_function(original.text, kernel.name, args).outputs
                inputs = _raised_inputs(kernel, sizes, args)
                got = run_raised(small.dialect, small.text, small.name, inputs)
            if GROWTH_NOTE not in report.assumptions:
                report.assumptions.append(GROWTH_NOTE)
        if kind != "nonfinite" and _outside_domain(comparisons, expected, got, inputs):
            # outside the original's domain (a factorisation of a matrix that is not
            # positive definite): the same draw, made diagonally dominant (no square
            # matrix: the same draw, whose outputs above hold NaN, so it is skipped)
            dominant = diagonally_dominant(args)
            if _changed(dominant, args):
                args = dominant
                expected = run_function(original.text, kernel.name, args).outputs
                inputs = _raised_inputs(kernel, sizes, args)
                got = run_raised(small.dialect, small.text, small.name, inputs)
            _note_domain(report)
            if _has_nan(expected):
                continue
        found = _compare(comparisons, original, kernel, args, expected, got, inputs, kind, rng, report, opt)
        if found is not None and kind not in ("zeros", "nonfinite") and \
                _sensitivity(original, kernel, args, expected, rng, opt)[1] > _ill(args):
            # the original amplifies rounding on this draw (a recurrence whose state
            # grows, an elimination without pivoting): a better-conditioned draw
            calmer = _calmer(original, kernel, args, rng, opt)
            if calmer is not None:
                (args, expected), note = calmer
                inputs = _raised_inputs(kernel, sizes, args)
                got = run_raised(small.dialect, small.text, small.name, inputs)
                found = _compare(comparisons, original, kernel, args, expected, got, inputs, kind,
                                 rng, report, opt)
                if note not in report.assumptions:
                    report.assumptions.append(note)
        if found is not None:
            c, (idx, want, value) = found
            return Counterexample("test", sizes, c.label, idx, _value_repr(want), _value_repr(value),
                                  {"input set": f"{kind} (seed {seed}, set {report.input_sets})",
                                   **_small_inputs(kernel, args)}, kind=kind, args=args)
    return None


def _changed(derived: list, args: list) -> bool:
    """Whether diagonally_dominant changed a draw (it returns the very arrays it leaves
    as they are: a draw with no square float matrix comes back unchanged). Where it did
    not, the original and the raise are not run again: on the same inputs they give the
    outputs they gave (2 runs of deriche's original and 2 of its raise at 2048x1080)."""
    return any(a is not b for a, b in zip(derived, args))


def _ill(args: list) -> float:
    """ILL_CONDITIONED for the float type of the inputs: f32's tolerance leaves 100x less
    room for amplified rounding than f64's."""
    f32 = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)
    return ILL_CONDITIONED / 100 if f32 else ILL_CONDITIONED


def _calmer(original, kernel: Kernel, args: list, rng, opt: int = 3):
    """((args, the original's outputs), the note to report) for the first draw derived
    from `args` on which the original is well-conditioned (finite outputs, amplification
    at most _ill, no undetermined element): made diagonally dominant, then scaled down;
    None where neither is."""
    from synth.execution import run_function

    for derive, note in ((diagonally_dominant, DOMINANT_NOTE), (scaled_down, SCALED_NOTE)):
        other = derive(args)
        if all(np.array_equal(a, b) for a, b in zip(other, args) if isinstance(a, np.ndarray)):
            continue
        expected = run_function(original.text, kernel.name, other, opt_level=opt).outputs
        if not finite_outputs(expected):
            continue
        masks, gain = _sensitivity(original, kernel, other, expected, rng, opt)
        if gain <= _ill(other) and not _any(masks):
            return (other, expected), note
    return None


def _any(masks: list) -> bool:
    return any(m is not None and bool(np.any(m)) for m in masks)


def _compare(comparisons: list[Comparison], original, kernel: Kernel, args: list, expected: list,
             got: list, inputs: list, kind: str, rng, report: Report, opt: int = 3):
    """(comparison, first difference) of the first output the raised function gets wrong,
    or None. The elements the original does not determine are not compared."""
    unstable = None  # per output: where the original's own value is not reproducible
    for c in comparisons:
        have = got[c.result] if c.result is not None else inputs[c.argument]
        # on NaN and infinities (an original that tells them apart): only the same non-finite value
        exact = kind == "nonfinite"
        diff = first_difference(expected[c.argument], have, exact)
        if diff is not None and in_layout_of(expected[c.argument], np.asarray(have)) is None:
            return c, diff  # a result of another shape
        if diff is not None and kind not in ("zeros", "nonfinite"):
            if unstable is None:
                unstable = _ill_conditioned(original, kernel, args, expected, rng, opt)
            stable = ~unstable[c.argument] if unstable[c.argument] is not None else True
            have = in_layout_of(expected[c.argument], np.asarray(have))
            diff = first_difference(np.where(stable, expected[c.argument], 0), np.where(stable, have, 0))
            if diff is None:
                _note_conditioning(report)
        if diff is not None:
            return c, diff
    return None


