"""The base of the linalg grammar's ops and the scalar ops of their regions."""

from __future__ import annotations



from synth.grammar.op import (Op)
from synth.grammar.types import FLOAT_DTYPES


class LinalgOp(Op):
    dialect = "linalg"


_SCALAR_OPS = {  # (float op, integer op) inside linalg regions
    "add": ("arith.addf", "arith.addi"), "mul": ("arith.mulf", "arith.muli"),
    "max": ("arith.maximumf", "arith.maxsi"), "min": ("arith.minimumf", "arith.minsi"),
}


def scalar_op(kind: str, dtype: str) -> str:
    """The arith op computing `kind` on scalars of `dtype` (add, mul, max, min)."""
    return _SCALAR_OPS[kind][0 if dtype in FLOAT_DTYPES else 1]


def _ins(operands, arg_types) -> str:
    return f"ins({', '.join(operands)} : {', '.join(t.mlir() for t in arg_types)})"
