"""Resizing kernels: rewrite array shapes (arguments and local allocations) and
size-dependent constant loop bounds for new values of the size parameters, and find the
values of the size parameters that go with a function's current shapes."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import memref as memref_d

from . import polybench
from .errors import InputError
from .kernel import KernelFunction, analyze_function, find_function, walk
from .mlir_input import SourceModule, parse_module

_MAX_BOUND_OFFSET = 2  # a constant bound n-2 .. n+2 of a size n counts as depending on it
# ... but only for constants this large: small bounds (0, 1, 2) are loop starts and
# stencil offsets, never sizes, even when a kernel is already small
_MIN_SIZE_CONSTANT = 8


def _match_value(old: int, old_values: dict[int, int], new_values: dict[int, int]) -> int | None:
    """New value for a constant that equals (or is within a small offset of) exactly one
    parameter's old value; None when it matches none or several."""
    if old < _MIN_SIZE_CONSTANT:
        return None
    for offset in range(_MAX_BOUND_OFFSET + 1):
        for sign in ((0,) if offset == 0 else (-1, 1)):
            hits = {p for p, v in old_values.items() if v + sign * offset == old}
            if len(hits) == 1:
                p = hits.pop()
                return new_values[p] + sign * offset if p in new_values else None
            if len(hits) > 1:
                return None
    return None


def _resized_shape(shape, dims_param, old_values, new_values) -> tuple[int, ...]:
    out = []
    for d, size in enumerate(shape):
        p = dims_param.get(d)
        if p is not None and p in new_values:
            out.append(new_values[p])
        else:
            exact = {q for q, v in old_values.items() if v == size}
            out.append(new_values[exact.pop()] if len(exact) == 1 and next(iter(exact)) in new_values
                       else size)
    return tuple(out)


def resize_function(module: ir.Module, kf: KernelFunction, new_values: dict[int, int]) -> None:
    """Rewrite @kf.name in `module` (in place, current context) for new size-parameter values."""
    func = find_function(module, kf.name)
    block = func.regions[0].blocks[0]
    old_values = size_values(kf)
    new_inputs = []
    for arg in kf.arguments:
        value = block.arguments[arg.index]
        if arg.is_array:
            dims = {d: p for (a, d), p in kf.dim_params.items() if a == arg.index}
            shape = _resized_shape(arg.shape, dims, old_values, new_values)
            t = ir.MemRefType.get(list(shape), ir.MemRefType(value.type).element_type)
            value.set_type(t)
        new_inputs.append(value.type)
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(new_inputs, list(ftype.results)))

    ops = list(walk(block))
    allocs = [op for op in ops if op.name in ("memref.alloca", "memref.alloc")]
    loops = [op for op in ops if op.name == "affine.for"]
    for op in allocs:
        t = ir.MemRefType(op.results[0].type)
        shape = _resized_shape(tuple(t.shape), {}, old_values, new_values)
        if shape != tuple(t.shape):
            new_t = ir.MemRefType.get(list(shape), t.element_type)
            with ir.InsertionPoint(op), op.location:
                builder = memref_d.alloca if op.name == "memref.alloca" else memref_d.alloc
                new = builder(new_t, [], [])
            for name in ("alignment",):
                if name in op.attributes:
                    new.owner.attributes[name] = op.attributes[name]
            op.results[0].replace_all_uses_with(new)
            op.erase()
    for op in loops:
        for attr in ("lowerBoundMap", "upperBoundMap"):
            amap = ir.AffineMapAttr(op.attributes[attr]).value
            results = list(amap.results)
            changed = False
            for i, expr in enumerate(results):
                if isinstance(expr, ir.AffineConstantExpr):
                    new = _match_value(expr.value, old_values, new_values)
                    if new is not None and new != expr.value:
                        results[i] = ir.AffineConstantExpr.get(new)
                        changed = True
            if changed:
                op.attributes[attr] = ir.AffineMapAttr.get(
                    ir.AffineMap.get(amap.n_dims, amap.n_symbols, results))


def resize_module(source: SourceModule, new_values: dict[str, dict[int, int]]) -> str:
    """Text of the module with each named function resized (function -> {param index: value})."""
    with ir.Context(), ir.Location.unknown():
        module = parse_module(source)
        for name, values in new_values.items():
            kf = analyze_function(source, module, name)
            resize_function(module, kf, values)
        module.operation.verify()
        return str(module)


def polybench_kernel(kf: KernelFunction) -> str | None:
    """The PolyBench kernel this function is, if its name and size parameters say so."""
    kernel = polybench.kernel_of_function(kf.name)
    if kernel is None or len(kf.size_params) != len(polybench.size_parameters(kernel)):
        return None
    return kernel


def dataset_values(kf: KernelFunction, dataset: str) -> dict[int, int]:
    kernel = polybench_kernel(kf)
    if kernel is None:
        raise InputError(f"@{kf.name} is not a PolyBench kernel (expected @kernel_<name> with "
                         f"the kernel's size parameters); dataset sizes are known only for "
                         f"PolyBench kernels", kf.location)
    return dict(zip(kf.size_params, polybench.size_arguments(kernel, dataset)))


def size_values(kf: KernelFunction) -> dict[int, int]:
    """Values of all size parameters consistent with the function's current shapes.

    Parameters bound to array dimensions take the dimension's size. The others (a time
    step count, say) come from the PolyBench dataset whose sizes are closest, for a
    PolyBench kernel; for any other function they must be bound to a dimension."""
    values = kf.inferred_sizes()
    missing = [p for p in kf.size_params if p not in values]
    if not missing:
        return values
    kernel = polybench_kernel(kf)
    if kernel is None:
        # a parameter that bounds no loop has no effect on the computation
        values.update({p: 0 for p in missing if p not in kf.loop_params})
        missing = [p for p in missing if p not in values]
    if not missing:
        return values
    if kernel is None:
        raise InputError(f"cannot tell the value of size parameter(s) "
                         f"{', '.join('#' + str(p) for p in missing)} of @{kf.name}: they "
                         f"bound no array dimension", kf.location)

    dims = [d for a in kf.arguments if a.is_array for d in a.shape]

    def distance(dataset: str) -> float:
        table = dataset_values(kf, dataset)
        bound = sum(abs(table[p] - v) / max(v, 1) for p, v in values.items())
        # with nothing bound structurally (constant loop bounds), match shapes by value
        unmatched = sum(d not in table.values() for d in dims) / max(len(dims), 1)
        return bound + unmatched

    best = min(polybench.DATASET_NAMES, key=distance)
    table = dataset_values(kf, best)
    # keep the dataset's ratio between unbound and bound parameters (e.g. tsteps vs n)
    return {**{p: table[p] for p in missing}, **values}
