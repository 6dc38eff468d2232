"""Operation grammars for the synthesizer (stablehlo and linalg on tensors).

    from synth.grammar import ops_for, TensorType, SearchContext
    ops = ops_for("stablehlo")            # tuple of Op, one per grammar op

Modules: types (TensorType, ShapeError, SearchContext), op (Op base, Emitter,
emit_function, ops_for), stablehlo / linalg (the ops),
verifier (the real MLIR verifier as a cached oracle). The grammar data derived from the
dialect definitions lives in grammars/<dialect>.json (scripts/derive_grammars.py).
"""

from synth.grammar.op import (
    Attrs,
    Emitter,
    GrammarError,
    Op,
    OpSpec,
    attr_dict,
    attrs,
    emit_function,
    emit_op_function,
    op_by_name,
    ops_for,
)
from synth.grammar.types import SearchContext, ShapeError, TensorType
from synth.grammar.verifier import Verifier, verify

__all__ = [
    "Attrs", "Emitter", "GrammarError", "Op", "OpSpec", "SearchContext", "ShapeError",
    "TensorType", "Verifier", "attr_dict", "attrs", "emit_function", "emit_op_function", "op_by_name",
    "ops_for", "verify",
]
