"""The output module: `@NAME_raised` (target dialect only, printed by MLIR) and the
drop-in `@NAME` with the original signature, which converts its arguments to tensors,
calls `@NAME_raised` and writes the results back into the output memrefs.

The raised stablehlo function is parsed, verified and printed in a jaxlib context (which
has stablehlo); the drop-in wrapper, which needs bufferization, in the upstream MLIR
context against a declaration of `@NAME_raised`. A linalg module is verified whole.
"""

from __future__ import annotations

from .errors import SynthError
from .kernel import KernelFunction
from .spec import tensor_type


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


def wrapper_text(kf: KernelFunction) -> tuple[str, str]:
    """(declaration of `@NAME_raised`, the drop-in `@NAME` with the original signature)."""
    lines, operands, in_types = [], [], []
    for a in kf.arguments:
        t = tensor_type(kf, a.index)
        in_types.append(t.mlir())
        if a.is_array:
            lines.append(f"  %t{a.index} = bufferization.to_tensor %arg{a.index} restrict : "
                         f"{a.mlir_type} to {t.mlir()}")
        elif a.type == "index":
            lines.append(f"  %i{a.index} = arith.index_cast %arg{a.index} : index to i64")
            lines.append(f"  %t{a.index} = tensor.from_elements %i{a.index} : {t.mlir()}")
        else:
            lines.append(f"  %t{a.index} = tensor.from_elements %arg{a.index} : {t.mlir()}")
        operands.append(f"%t{a.index}")
    outs = kf.outputs
    out_types = [tensor_type(kf, o).mlir() for o in outs]
    sig = f"({', '.join(in_types)}) -> ({', '.join(out_types)})"
    lines.append(f"  %r:{len(outs)} = call @{kf.name}_raised({', '.join(operands)}) : {sig}")
    for k, o in enumerate(outs):
        lines.append(f"  bufferization.materialize_in_destination %r#{k} in restrict writable "
                     f"%arg{o} : ({out_types[k]}, {kf.arguments[o].mlir_type}) -> ()")
    params = ", ".join(f"%arg{a.index}: {a.mlir_type}" for a in kf.arguments)
    decl = f"func.func private @{kf.name}_raised{sig}"
    func = f"func.func @{kf.name}({params}) {{\n" + "\n".join(lines) + "\n  return\n}\n"
    return decl, func


def output_module(kf: KernelFunction, raised_text: str, dialect: str) -> str:
    """Module text holding @NAME_raised and the drop-in @NAME, each verified by MLIR."""
    decl, wrapper = wrapper_text(kf)
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
