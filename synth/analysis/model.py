"""A kernel as the rest of synth sees it: its normal form, what it reads and writes, and
its size model. Parsed once; instantiated at any sizes from there.

    kernel = load_kernel(source, "kernel_gemm")
    small = kernel.at(kernel.sizes.standin())      # SourceModule at stand-in sizes
    kernel.tensor_type(5, values)                  # tensor type of argument 5, with Size dims
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from synth.frontend.normalize import Interface, normalize
from synth.analysis.tensor_type import TensorType
from synth.analysis.function import KernelFunction, analyze_function
from synth.frontend.reader import SourceModule
from synth.analysis.instantiate import instantiate
from synth.analysis.size_analysis import analyze_sizes
from synth.analysis.sizes import SizeModel

_TENSOR_DTYPE = {"f64": "f64", "f32": "f32", "i32": "i32", "i64": "i64", "i16": "i16", "i8": "i8",
                 "index": "i64"}


@dataclass
class Kernel:
    name: str
    source: SourceModule  # as read (legacy syntax upgraded)
    normal: SourceModule  # the normal form (synth.frontend.normalize)
    interface: Interface
    function: KernelFunction  # of the normal form, at the kernel's own sizes
    sizes: SizeModel

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def location(self) -> str:
        return self.function.location

    @property
    def n_arguments(self) -> int:
        """Arguments as written (the normal form's out-parameters follow them)."""
        return self.interface.n_arguments

    @property
    def written(self) -> list[int]:
        """Arguments as written that the kernel writes, in order."""
        return [i for i in self.function.outputs if i < self.n_arguments]

    @property
    def outputs(self) -> list[int]:
        """Normal-form arguments whose final contents the raised function returns, in
        order: the written arguments, then one per result (aliases included)."""
        return self.written + [r.argument for r in self.interface.results]

    def at(self, values: Mapping[str, int]) -> SourceModule:
        return instantiate(self.normal, self.name, self.sizes, values)

    def tensor_type(self, index: int, values: Mapping[str, int]) -> TensorType:
        a = self.function.arguments[index]
        if not a.is_array:
            return TensorType((), _TENSOR_DTYPE[a.type])
        return TensorType(self.sizes.shape(index, values), _TENSOR_DTYPE[a.type])

    def arguments(self, values: Mapping[str, int], draw) -> list:
        """run_function arguments at `values`: `draw(shape, element type)` makes each
        array; size arguments get their values; data scalars `draw((), type)`."""
        params = self.sizes.param_values(values)
        out = []
        for a in self.function.arguments:
            if a.is_array:
                shape = tuple(int(d) for d in self.sizes.shape(a.index, values))
                array = draw(shape, a.type)
                if self.function.int_divides_by_data and array.dtype.kind == "i":
                    array = np.where(array == 0, np.ones_like(array), array)  # no x / 0 (a trap)
                ranged = self.function.index_ranges
                if a.index in self.function.index_dims:  # ... of a table of run-time extent
                    table, d = self.function.index_dims[a.index]
                    n = int(self.sizes.shape(table, values)[d])
                    ranged = {**ranged, a.index: min(ranged.get(a.index, n), n)}
                if a.index in ranged:  # indices of a table: inside it
                    n = ranged[a.index]
                    if array.dtype.kind in "iu":  # a signed char into 256 rows: what the type holds
                        n = min(n, int(np.iinfo(array.dtype).max) + 1)
                    array = np.mod(array.astype(np.int64), n).astype(array.dtype)
                out.append(np.require(array, requirements="C"))
            elif a.index in params:
                out.append((a.type, params[a.index]))
            else:
                out.append((a.type, draw((), a.type).item()))
        return out


def load_kernel(source: SourceModule, name: str, extents=None) -> Kernel:
    """The kernel `name` of `source`; `extents`: the SizeModel of a kernel it is a part
    of (synth.analysis.size_analysis.analyze_sizes)."""
    nf = normalize(source, name)
    with nf.source.context:
        module = nf.source.parsed()
        kf = analyze_function(nf.source, module, name)
        func = next(op for op in module.body.operations if op.operation.name == "func.func"
                    and op.attributes["sym_name"].value == name)
        model = analyze_sizes(nf.source.path, func, extents)
    model = _dims_read(model, nf.interface)
    model.extremes = {e.argument: e for e in nf.interface.extremes}
    _polybench_values(model, kf)
    return Kernel(name, source, nf.source, nf.interface, kf, model)


def _dims_read(model: SizeModel, iface: Interface) -> SizeModel:
    """A dim the original reads with memref.dim (the normal form's index argument for it,
    Interface.dims) is that argument's size symbol, named `arg<K>_dim<D>`: the array's
    extent there is it."""
    from dataclasses import replace

    from synth.analysis.symbols import SizeExpr

    mapping, symbols, params = {}, {}, dict(model.params)
    for arg, array, dim in iface.dims:
        old = model.params.get(arg)
        if old is None or array not in model.arg_dims:
            continue
        new = f"arg{array}_dim{dim}"
        mapping[old] = SizeExpr.symbol(new)
        symbols[new] = replace(model.symbols[old], name=new, origin=f"dim {dim} of argument #{array} (memref.dim)")
        params[arg] = new
    if not mapping:
        return model
    model = model.renamed(mapping, symbols)
    model.params = params
    for arg, array, dim in iface.dims:
        if arg in params and array in model.arg_dims:
            dims = list(model.arg_dims[array])
            dims[dim] = SizeExpr.symbol(params[arg])
            model.arg_dims[array] = tuple(dims)
    return model


def _polybench_values(model: SizeModel, kf: KernelFunction) -> None:
    """Size arguments whose value the shapes do not tell (a time-step count) take the
    value of the PolyBench dataset closest to the others, for a PolyBench kernel."""
    from dataclasses import replace

    from synth.analysis import polybench

    unknown = [k for k, n in model.params.items() if model.symbols[n].value < 0]
    kernel = polybench.kernel_of_function(kf.name)
    int_args = [a.index for a in kf.arguments if not a.is_array and a.type in ("i32", "i64", "index")]
    if not unknown or kernel is None or len(int_args) != len(polybench.size_parameters(kernel)):
        return
    known = {k: model.symbols[n].value for k, n in model.params.items() if k not in unknown}

    def distance(dataset: str) -> float:
        table = dict(zip(int_args, polybench.size_arguments(kernel, dataset)))
        return sum(abs(table[k] - v) / max(v, 1) for k, v in known.items())

    best = min(polybench.DATASET_NAMES, key=distance)
    table = dict(zip(int_args, polybench.size_arguments(kernel, best)))
    for k in unknown:
        n = model.params[k]
        model.symbols[n] = replace(model.symbols[n], value=table[k],
                                   origin=f"argument #{k} (PolyBench {best} dataset)")
