"""The output module: `@NAME_raised` (target dialect only, printed by MLIR) and the
drop-in `@NAME` with the original signature, which converts its arguments to tensors,
calls `@NAME_raised` and writes the results back into the output memrefs.

The raised stablehlo function is parsed, verified and printed in a jaxlib context (which
has stablehlo); the drop-in wrapper, which needs bufferization, in the upstream MLIR
context against a declaration of `@NAME_raised`. A linalg module is verified whole.
"""

from __future__ import annotations

from synth.analysis.model import Kernel
from synth.errors import SynthError


def _stablehlo_context():
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import stablehlo

    ctx = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx.append_dialect_registry(registry)
    stablehlo.register_dialect(ctx)
    ctx.load_all_available_dialects()
    return ir, ctx


def print_verified(text: str, dialect: str) -> str:
    """Parse + verify with the dialect's real MLIR, return MLIR's printed form."""
    if dialect == "stablehlo":
        ir, ctx = _stablehlo_context()
    else:
        from mlir import ir

        ctx = ir.Context()
    with ctx:
        try:
            module = ir.Module.parse(text)
            module.operation.verify()
        except ir.MLIRError as e:  # a bug in synth's emitter, not bad input
            raise SynthError(f"emitted {dialect} does not verify: {e}") from None
        return str(module)


def _func_body(printed_module: str) -> str:
    """The functions of a printed `module { ... }` without the module wrapper."""
    lines = printed_module.strip().splitlines()
    if lines and lines[0].startswith("module") and lines[-1] == "}":
        lines = [ln[2:] if ln.startswith("  ") else ln for ln in lines[1:-1]]
    return "\n".join(lines)


def wrapper_text(kernel: Kernel) -> tuple[str, str]:
    """(declaration of `@NAME_raised`, the drop-in `@NAME` with the original signature).

    Array arguments become tensors (a dynamic one through a `memref.cast` to its extent),
    scalars rank-0 tensors; the written arrays are materialized back into the arguments;
    returned arrays into fresh buffers, returned scalars extracted."""
    values = kernel.sizes.original()
    lines, operands, in_types = [], [], []
    memrefs: dict[int, tuple[str, str]] = {}  # argument -> (SSA name, static memref type)
    for a in kernel.function.arguments[: kernel.n_arguments]:
        t = kernel.tensor_type(a.index, values)
        in_types.append(t.mlir())
        if a.is_array:
            static = f"memref<{''.join(f'{d}x' for d in t.shape)}{a.type}>"
            name = f"%arg{a.index}"
            if static != a.mlir_type:
                lines.append(f"  %m{a.index} = memref.cast %arg{a.index} : {a.mlir_type} to {static}")
                name = f"%m{a.index}"
            memrefs[a.index] = (name, static)
            lines.append(f"  %t{a.index} = bufferization.to_tensor {name} restrict : "
                         f"{static} to {t.mlir()}")
        elif a.type == "index":
            lines.append(f"  %i{a.index} = arith.index_cast %arg{a.index} : index to i64")
            lines.append(f"  %t{a.index} = tensor.from_elements %i{a.index} : {t.mlir()}")
        else:
            lines.append(f"  %t{a.index} = tensor.from_elements %arg{a.index} : {t.mlir()}")
        operands.append(f"%t{a.index}")
    outs = kernel.outputs
    out_types = [kernel.tensor_type(o, values).mlir() for o in outs]
    sig = f"({', '.join(in_types)}) -> ({', '.join(out_types)})"
    results = [f"%r#{k}" for k in range(len(outs))] if len(outs) > 1 else ["%r"]
    lines.append(f"  {'%r:' + str(len(outs)) if len(outs) > 1 else '%r'} = call "
                 f"@{kernel.name}_raised({', '.join(operands)}) : {sig}")
    for k, o in enumerate(kernel.written):
        name, static = memrefs[o]
        lines.append(f"  bufferization.materialize_in_destination {results[k]} in restrict writable "
                     f"{name} : ({out_types[k]}, {static}) -> ()")
    returned, ret_types = [], []
    for j, r in enumerate(kernel.interface.results):
        k = len(kernel.written) + j
        if r.kind == "alias":
            returned.append(f"%arg{r.argument}")
        elif r.kind == "array":
            lines.append(f"  %o{j} = memref.alloc() : {r.type}")
            lines.append(f"  bufferization.materialize_in_destination {results[k]} in restrict writable "
                         f"%o{j} : ({out_types[k]}, {r.type}) -> ()")
            returned.append(f"%o{j}")
        else:
            elem = "i64" if r.type == "index" else r.type
            lines.append(f"  %o{j} = tensor.extract {results[k]}[] : tensor<{elem}>")
            if r.type == "index":
                lines.append(f"  %x{j} = arith.index_cast %o{j} : i64 to index")
                returned.append(f"%x{j}")
            else:
                returned.append(f"%o{j}")
        ret_types.append(r.type)
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(kernel.interface.argument_types))
    decl = f"func.func private @{kernel.name}_raised{sig}"
    head = f"func.func @{kernel.name}({params})"
    if ret_types:
        head += f" -> ({', '.join(ret_types)})"
        lines.append(f"  return {', '.join(returned)} : {', '.join(ret_types)}")
    else:
        lines.append("  return")
    func = head + " {\n" + "\n".join(lines) + "\n}\n"
    return decl, func


def output_module(kernel: Kernel, raised_text: str, dialect: str) -> str:
    """Module text holding @NAME_raised and the drop-in @NAME, each verified by MLIR."""
    decl, wrapper = wrapper_text(kernel)
    if dialect == "linalg":
        return print_verified(raised_text + wrapper, "linalg")
    raised = _func_body(print_verified(raised_text, "stablehlo"))
    wrapper_printed = _func_body(print_verified(decl + "\n" + wrapper, "linalg"))
    wrapper_only = wrapper_printed.split("\n", 1)[1] if wrapper_printed.startswith("func.func private") else wrapper_printed
    return "module {\n" + _indent(raised) + "\n" + _indent(wrapper_only) + "\n}\n"


def _indent(text: str) -> str:
    return "\n".join("  " + ln if ln else ln for ln in text.splitlines())


def combine(modules: list[str]) -> str:
    """One module from several output modules (one per raised function)."""
    bodies = [_func_body(m) for m in modules]
    return "module {\n" + "\n".join(_indent(b) for b in bodies) + "\n}\n"
