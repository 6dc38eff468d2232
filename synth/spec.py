"""From a function to synthesis problems.

1. Stand-in sizes: each size parameter that bounds an array dimension gets a small
   distinct value (>= MIN_STANDIN_SIZE, so sizes never look like dimension numbers);
   other size parameters (time steps) get TIME_STEPS_STANDIN.
2. Statement groups: the dependence analysis (synth.dependences) splits the function
   into groups of statements that may run one after another; each group becomes a
   function of its own (`@<name>_part<k>`).
3. Examples: the parts run one after another through the ExecutionEngine on random
   inputs; the array states before and after each part are the examples.
4. One problem per array a group writes: its final value as a function of the state
   before the group (the arrays the group reads or writes, and the scalars it uses).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .dependences import split_function, statement_groups
from .errors import NoSolutionError
from .execution import run_function
from .grammar.types import SearchContext, TensorType
from .inputs import kernel_arguments
from .kernel import KernelFunction, describe
from .mlir_input import SourceModule
from .opset import select_ops
from .resize import resize_module
from .search import Problem

MIN_STANDIN_SIZE = 5
TIME_STEPS_STANDIN = 2
N_EXAMPLES = 2  # random example sets; the final checks use fresh inputs

_TENSOR_DTYPE = {"f64": "f64", "f32": "f32", "i32": "i32", "i64": "i64", "index": "i64"}


def tensor_type(kf: KernelFunction, index: int) -> TensorType:
    a = kf.arguments[index]
    return TensorType(a.shape if a.is_array else (), _TENSOR_DTYPE[a.type])


def standin_sizes(kf: KernelFunction, base: int = MIN_STANDIN_SIZE, stride: int = 1) -> dict[int, int]:
    """Small distinct sizes for the dimension parameters, in argument order."""
    dim_params = sorted(set(kf.dim_params.values()))
    sizes = {p: base + k * stride for k, p in enumerate(dim_params)}
    for p in kf.size_params:
        if p not in sizes:
            sizes[p] = TIME_STEPS_STANDIN if p in kf.loop_params else 0
    return sizes


@dataclass
class GroupSpec:
    index: int
    part: str  # function name of this group in `Specification.split_text`
    statements: list[int]
    reads: list[int]
    writes: list[int]
    problems: list[Problem] = field(default_factory=list)


@dataclass
class Specification:
    source: SourceModule
    function: KernelFunction  # at the original sizes
    standin: dict[int, int]  # size parameter -> stand-in value
    standin_function: KernelFunction
    split_text: str
    groups: list[GroupSpec]


def _as_example(value, t: TensorType) -> np.ndarray:
    return np.asarray(value[1] if isinstance(value, tuple) else value, dtype=t.numpy_dtype)


def build_specification(source: SourceModule, name: str, dialect: str, *,
                        n_examples: int = N_EXAMPLES, seed: int = 0) -> Specification:
    kf = describe(source, name)
    time_loops = sorted(p for p in kf.loop_params if p not in set(kf.dim_params.values()))
    if time_loops:
        raise NoSolutionError(
            f"@{name}: loops run a number of times given by size parameter(s) "
            f"{', '.join('#' + str(p) for p in time_loops)}, which bound no array dimension "
            f"(time steps): a tensor program of fixed size cannot express a run-time iteration "
            f"count, so no equivalent program exists in the grammar")
    standin = standin_sizes(kf)
    small = SourceModule(source.path, resize_module(source, {name: standin}))
    ks = describe(small, name)
    groups = statement_groups(small, name, standin)
    split_text, parts = split_function(small, name, groups)
    split_source = SourceModule(source.path, split_text)

    rng = np.random.default_rng(seed)
    states = [kernel_arguments(ks, standin, rng) for _ in range(n_examples)]
    specs: list[GroupSpec] = []
    for k, (statements, part) in enumerate(zip(groups, parts)):
        kp = describe(split_source, part)
        g = GroupSpec(k, part, statements, sorted(kp.reads), sorted(kp.writes))
        after = []
        for state in states:
            result = run_function(split_text, part, state)
            after.append([o if o is not None else s for o, s in zip(result.outputs, state)])
        inputs = sorted(set(kp.reads) | set(kp.writes) | kp.scalars_used)
        ops = select_ops(dialect, kp.ops, kp.non_rectangular)
        constants = tuple(sorted({0.0, 1.0} | kp.float_constants))
        for out in g.writes:
            types = {i: tensor_type(ks, i) for i in inputs}
            out_type = tensor_type(ks, out)
            shapes = frozenset(t.shape for t in types.values()) | {out_type.shape}
            dtypes = tuple(sorted({t.dtype for t in types.values()} | {out_type.dtype}))
            g.problems.append(Problem(
                name=f"@{name} group {k} arg{out}",
                input_types=types,
                examples_in=[{i: _as_example(s[i], types[i]) for i in inputs} for s in states],
                examples_out=[np.asarray(a[out]) for a in after],
                output_type=out_type,
                context=SearchContext(shapes, constants, dtypes),
                ops=ops,
                output=out,
            ))
        specs.append(g)
        states = after
    return Specification(source, kf, standin, ks, split_text, specs)
