"""`synth resize`: a PolyBench kernel at another dataset size.

The kernel's size symbols (synth.analysis.sizes) are mapped to the dataset's values: a
size argument by its position among the kernel's size parameters, a constant size (as
Polygeist prints PolyBench) by the parameter whose value it has in the dataset the kernel
is written at. Everything that is an expression of the symbols is rewritten
(synth.analysis.instantiate); the function keeps its signature otherwise.
"""

from __future__ import annotations

from mlir import ir

from synth.analysis import polybench
from synth.analysis.instantiate import instantiate_function
from synth.analysis.size_analysis import analyze_sizes
from synth.analysis.sizes import SizeModel
from synth.errors import InputError
from synth.analysis.function import find_function
from synth.frontend.reader import SourceModule, diagnostic_location


def _size_arguments(func) -> list[int]:
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    return [i for i, t in enumerate(ftype.inputs) if str(t) in ("i32", "i64", "index")]


def dataset_values(model: SizeModel, name: str, size_args: list[int], dataset: str,
                   location: str, arguments: tuple[int, ...] | None = None) -> dict[str, int]:
    """Values of the size symbols at a PolyBench dataset (`arguments`: the size arguments'
    values instead of the dataset's, in argument order)."""
    kernel = polybench.kernel_of_function(name)
    if kernel is None or len(size_args) != len(polybench.size_parameters(kernel)):
        raise InputError(f"@{name} is not a PolyBench kernel (expected @kernel_<name> with the "
                         f"kernel's size parameters); dataset sizes are known only for PolyBench "
                         f"kernels", location)
    target = dict(zip(size_args, arguments or polybench.size_arguments(kernel, dataset)))
    original = {n: s.value for n, s in model.symbols.items()}
    # constant sizes: through the dataset the kernel is written at
    constants = {n: v for n, v in original.items() if n not in model.params.values()}

    def misses(ds: str) -> int:
        return sum(v not in polybench.size_arguments(kernel, ds) for v in constants.values())

    at = min(polybench.DATASET_NAMES, key=misses)
    by_value = {}
    for k, v in zip(size_args, polybench.size_arguments(kernel, at)):
        by_value.setdefault(v, k)
    values = {}
    for n, v in original.items():
        if n in model.params.values():
            k = next(k for k, m in model.params.items() if m == n)
            values[n] = target[k]
        else:
            # a parameter's value, or near it (a time loop `1 to tsteps + 1`)
            near = next(((v - k, k) for k in (0, 1, -1, 2, -2) if v - k in by_value), None)
            values[n] = target[by_value[near[0]]] + near[1] if near else v  # else a fixed count
    return values


def resize_module(source: SourceModule, names: list[str], dataset: str,
                  arguments: tuple[int, ...] | None = None) -> str:
    """Text of the module with each named function at a PolyBench dataset (`arguments`: at
    these values of its size arguments, in argument order, instead: sizes no dataset has)."""
    module = source.copy()
    with source.context, ir.Location.unknown():
        for name in names:
            func = find_function(module, name)
            location = diagnostic_location(source.path, func.location)
            model = analyze_sizes(source.path, func)
            size_args = _size_arguments(func)
            values = dataset_values(model, name, size_args, dataset, location, arguments)
            instantiate_function(func, model, values, keep_dynamic=True)
        module.operation.verify()
        return str(module)


def dataset_arguments(name: str, size_args: list[int], dataset: str) -> dict[int, int]:
    """Size argument index -> the dataset's value (for running a PolyBench kernel)."""
    kernel = polybench.kernel_of_function(name)
    return dict(zip(size_args, polybench.size_arguments(kernel, dataset)))
