"""From a kernel to synthesis problems.

1. Stand-in sizes: small values for the kernel's size symbols (synth.analysis.sizes),
   and the kernel instantiated at them. Types carry the symbols (`Size` dims), so the
   programs found re-instantiate at any sizes.
2. Statement groups: the dependence analysis (synth.analysis.dependences) splits the function
   into groups of statements that may run one after another; each group becomes a
   function of its own (`@<name>_part<k>`).
3. Examples: the parts run one after another through the ExecutionEngine on random
   inputs; the array states before and after each part are the examples.
4. One problem per array a group writes: its final value as a function of the state
   before the group (the arrays the group reads or writes, and the scalars it uses). The
   out-parameters that hold returned values (synth.frontend.normalize) are never inputs
   before a group has written them: their first contents are undefined.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from synth.analysis.model import Kernel
from synth.analysis.sizes import COUNTER
from synth.analysis.symbols import size
from synth.analysis.dependences import dependence_graph, order_groups
from synth.analysis.distribution import split_function
from synth.errors import NoSolutionError
from synth.execution import NUMPY_DTYPES, precompile, run_function
from synth.grammar.types import NARROW_INT_DTYPES, SearchContext, TensorType, computed_dtypes, full_range
from synth.analysis.function import describe
from synth.frontend.reader import SourceModule
from synth.synthesis.opset import select_ops
from synth.synthesis.search import Problem
from synth.synthesis.views import in_views, view_type
from synth.analysis.regions import NO_VIEWS, Views, reached_views
from synth.analysis.view_rewrite import view_source

N_EXAMPLES = 2  # random example sets; the final checks use fresh inputs


EXAMPLE_KINDS = ("random", "negative", "positive", "small", "boundary")
_RANGES = {  # kind -> ((float low, high), (int low, high)) for arrays
    "random": ((-1.0, 1.0), (-50, 50)),
    "negative": ((-2.0, -0.5), (-50, 0)),
    "positive": ((0.5, 2.0), (1, 51)),
    "small": ((-1e-3, 1e-3), (-5, 5)),  # computed values cross the kernel's thresholds
}


def random_draw(rng: np.random.Generator, kind: str = "random", constants=()):
    """`draw(shape, element type)` for Kernel.arguments. Arrays: floats uniform in
    [-1, 1], integers in [-50, 50) ("negative" / "positive": one sign only; "boundary":
    a third of the elements are the kernel's own `constants`, so comparisons with them
    and divisions by differences from them take every branch). Scalars: floats in
    [0.5, 2], integers in [1, 10) (random) or [-10, 10) otherwise."""
    (flo, fhi), (ilo, ihi) = _RANGES["random" if kind == "boundary" else kind]
    special = np.asarray(sorted({0.0, *constants}), dtype=np.float64)

    def boundary(values):
        pick = rng.random(values.shape) < 1 / 3
        return np.where(pick, rng.choice(special, size=values.shape), values)

    def draw(shape, elem):
        dtype = NUMPY_DTYPES[elem]
        if elem.startswith("f"):
            if shape == ():
                return np.asarray(rng.uniform(0.5, 2.0), dtype=dtype)
            values = rng.uniform(flo, fhi, size=shape)
            return (boundary(values) if kind == "boundary" else values).astype(dtype)
        if shape == ():
            return np.asarray(rng.integers(1, 10) if kind == "random" else rng.integers(-10, 10), dtype=dtype)
        values = rng.integers(*full_range(elem), size=shape) if elem in NARROW_INT_DTYPES \
            else rng.integers(ilo, ihi, size=shape)
        if kind == "boundary":
            values = boundary(values).round()
        return values.astype(dtype)
    return draw


@dataclass
class GroupSpec:
    index: int
    part: str  # function name of this group in `Specification.split_text`
    statements: list[int]
    reads: list[int]
    writes: list[int]
    problems: list[Problem] = field(default_factory=list)
    # output argument -> the statement that stores to it last (execution order: solving
    # the problems in this order, each found program seeds the later ones' searches)
    last_store: dict[int, int] = field(default_factory=dict)

    def solving_order(self) -> list[tuple[Problem, int]]:
        pairs = list(zip(self.problems, self.writes))
        return sorted(pairs, key=lambda pw: self.last_store.get(pw[1], -1))


@dataclass
class Specification:
    kernel: Kernel
    standin: dict[str, int]  # size symbol -> stand-in value
    standin_source: SourceModule
    split_text: str
    groups: list[GroupSpec]
    # argument -> the box of it the kernel reaches, where that is not the whole array: the
    # problems are posed over the boxes (synth.synthesis.views)
    views: Views = NO_VIEWS
    view_inputs: dict = field(default_factory=dict)  # argument after the kernel's -> (the array it is a box of, which box)
    dialect: str = ""


def _as_example(value, t: TensorType) -> np.ndarray:
    return np.asarray(value[1] if isinstance(value, tuple) else value, dtype=t.numpy_dtype)


def finite_outputs(arrays) -> bool:
    """Whether every float array among `arrays` (None entries allowed) is finite."""
    return all(np.all(np.isfinite(a)) for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind == "f")


def diagonally_dominant(args: list) -> list:
    """The inputs with n added to the diagonal of every square float matrix, as PolyBench
    initialises the matrices of its solvers: on uniform random data a forward substitution
    overflows long before row 2000 (trisolv) and a Cholesky factorisation takes the square
    root of a negative number (cholesky). Used only where the original's outputs on the
    plain draw are not finite, grow or are ill-conditioned. n times the matrix's largest
    magnitude where that exceeds 1 (synth verify's draw of magnitude 1e100: adding n
    to it changed nothing, and a blocked LU then differed from the loops by rounding)."""
    out = []
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.ndim == 2 and a.shape[0] == a.shape[1]:
            scale = max(1.0, float(np.max(np.abs(a)))) if a.size and np.all(np.isfinite(a)) else 1.0
            a = a + (a.shape[0] * scale) * np.eye(a.shape[0], dtype=a.dtype)
        out.append(a)
    return out


def scaled_down(args: list) -> list:
    """The inputs with every float array divided by the largest extent among them: a draw
    on which a recurrence that multiplies its inputs into its state stays well
    conditioned (durbin's Levinson recursion on r of sum below 1: a positive definite
    Toeplitz system). Used only where the original itself is ill-conditioned on a draw
    (its outputs move beyond the tolerance when its inputs move by 1e-12 relative)."""
    n = max([max(np.shape(a)) for a in args if isinstance(a, np.ndarray) and np.ndim(a)] or [1])
    return [np.asarray(a / n, dtype=a.dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
            for a in args]


GROWTH = 1e4  # outputs this many times the inputs' magnitude: an elimination without pivoting


def grown(args: list, outputs) -> bool:
    """Whether the finite float outputs exceed the float inputs' largest magnitude (at
    least 1) more than GROWTH times: LU without pivoting of a uniform random 2000x2000
    matrix grows its elements to ~6e4, and then rounding (an FMA where the loops multiply
    and subtract) decides them beyond the comparison's tolerance. Such a draw is made
    diagonally dominant too, as PolyBench initialises the matrices of its solvers."""
    def peak(arrays) -> float:
        top = 0.0
        for a in arrays:
            if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size:
                # one pass where every element is finite (the max is then finite: a NaN or
                # an infinity makes it NaN or inf), the finite elements' otherwise
                largest = float(np.max(np.abs(a)))
                if not np.isfinite(largest):
                    finite = a[np.isfinite(a)]
                    largest = float(np.max(np.abs(finite))) if finite.size else 0.0
                top = max(top, largest)
        return top
    return peak(outputs) > GROWTH * max(1.0, peak(args))


def check_time_loops(kernel: Kernel) -> None:
    if kernel.sizes.time_loops:
        raise NoSolutionError(
            f"@{kernel.name}: the loop at {kernel.sizes.time_loops[0]} repeats a computation "
            f"that reads what its previous iteration wrote (a time-step loop); a tensor program "
            f"without loops cannot express it, so no equivalent program exists in the grammar")


def build_specification(kernel: Kernel, dialect: str, *, n_examples: int = N_EXAMPLES,
                        seed: int = 0, kinds: tuple[str, ...] = ("random",),
                        extra: tuple = ()) -> Specification:
    """The problems of a kernel; examples drawn `n_examples` at a time from each of the
    input `kinds` (EXAMPLE_KINDS), then the states `extra` (Kernel.arguments at the
    stand-in sizes: inputs of the kinds that refuted an earlier program)."""
    check_time_loops(kernel)
    name = kernel.name
    standin = kernel.sizes.standin()
    small = kernel.at(standin)
    params = kernel.sizes.param_values(standin)
    # arrays reached in part: the kernel over their boxes (not in a counter loop's step,
    # whose sketches take and put whole rows at the counter)
    views = reached_views(kernel, standin) if kernel.sizes.counter is None else NO_VIEWS
    n_args = len(kernel.function.arguments)
    # new argument -> (its array, which of the array's extra boxes)
    added = {n_args + j: slot for j, slot in enumerate((k, i) for k in sorted(views.extra)
                                                       for i in range(len(views.extra[k])))}
    if views:
        try:
            small = view_source(small, name, {k: b.at(standin) for k, b in views.main.items()},
                                {k: tuple(b.at(standin) for b in bs) for k, bs in views.extra.items()},
                                views.roles, n_args)
        except ValueError:  # an access the rewrite cannot follow: the kernel as it is
            views, added = NO_VIEWS, {}
    graph = dependence_graph(small, name, params)
    groups = order_groups(len(graph.statements), graph.edges)
    last_store = {st.array: st.id for st in graph.statements if st.array is not None}
    split_text, parts = split_function(small, name, groups)
    split_source = SourceModule(small.path, split_text)

    rng = np.random.default_rng(seed)
    constants = sorted(kernel.function.float_constants)
    # a loop counter (synth.synthesis.steps) takes each of its values in turn
    counters = kernel.sizes.counter_values(standin) or [None]
    n_draws = max(n_examples, len(counters))
    at = [standin if c is None else {**standin, COUNTER: c} for c in counters]
    states = [kernel.arguments(at[k % len(at)], random_draw(rng, kind, constants))
              for kind in kinds for k in range(n_draws)] + list(extra)
    states = [in_views(state, views, added, standin) for state in states]
    # at the stand-in sizes the runs take microseconds and the compiles most of the time:
    # -O0 (no fast-math flags: the values are the same at every level), the kernel and its
    # split parts compiled as one module (one engine instead of two; the same functions)
    precompile("memref", [(small.text, name), (split_text, parts[0])] if parts else [], opt_level=0)
    states = [state if finite_outputs(run_function(small.text, name, state, opt_level=0).outputs)
              else diagonally_dominant(state) for state in states]
    undefined = set(kernel.interface.out_parameters)  # results not yet written
    specs: list[GroupSpec] = []
    for k, (statements, part) in enumerate(zip(groups, parts)):
        kp = describe(split_source, part)
        g = GroupSpec(k, part, statements, sorted(kp.reads), sorted(kp.writes),
                      last_store={a: last_store[a] for a in kp.writes if a in last_store})
        after = []
        for state in states:
            result = run_function(split_text, part, state, opt_level=0)
            after.append([o if o is not None else s for o, s in zip(result.outputs, state)])
        inputs = sorted((set(kp.reads) | set(kp.writes) | kp.scalars_used) - undefined)
        if kernel.sizes.counter is not None:  # the step's counter: a rank-0 i64 input
            inputs = sorted(set(inputs) | {kernel.sizes.counter})
        ops = select_ops(dialect, kp.ops, kp.non_rectangular, kp.diagonal, kp.edge_store)
        constants = tuple(sorted({0.0, 1.0} | kp.float_constants))
        types = {i: kernel.tensor_type(i, standin) for i in range(n_args)}
        types.update({i: view_type(types[i], b, standin) for i, b in views.main.items()})
        types.update({i: view_type(types[k], views.extra[k][j], standin) for i, (k, j) in added.items()})
        # the iteration spaces of the group's statements are shapes of interest too (a
        # value repeated m times is a broadcast over m, then a reduction)
        nests = {tuple(size(e, standin) for e in kernel.sizes.statement_nests[st])
                 for st in statements if st < len(kernel.sizes.statement_nests)}
        for out in g.writes:
            in_types = {i: types[i] for i in inputs}
            out_type = types[out]
            shapes = frozenset(t.shape for t in in_types.values()) | {out_type.shape} | \
                {n for n in nests if n and all(int(d) > 0 for d in n)}
            dtypes = computed_dtypes({t.dtype for t in in_types.values()} | {out_type.dtype})
            g.problems.append(Problem(
                name=f"@{name} group {k} arg{out}",
                input_types=in_types,
                examples_in=[{i: _as_example(s[i], in_types[i]) for i in inputs} for s in states],
                examples_out=[np.asarray(a[out]) for a in after],
                output_type=out_type,
                context=SearchContext(shapes, constants, dtypes),
                ops=ops,
                output=out if out in inputs else None,
            ))
        undefined -= set(g.writes)
        specs.append(g)
        states = after
    return Specification(kernel, standin, small, split_text, specs, views, added, dialect)
