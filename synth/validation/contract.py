"""The output contract a raised module must follow, and what to compare."""

from __future__ import annotations

from dataclasses import dataclass


from synth.semantics import support as support
from synth.analysis.model import Kernel
from synth.errors import InputError
from synth.analysis.function import list_functions
from synth.frontend.reader import SourceModule
from synth.semantics.raised import RaisedFunction, Signature, top_level_functions


# the contract -----------------------------------------------------------------------------


def pick_function(source: SourceModule, raised_text: str, function: str | None) -> str:
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


def check_contract(kernel: Kernel, raised: RaisedFunction, sig: Signature) -> list[Comparison]:
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


