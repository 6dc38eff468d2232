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


def ins_clause(operands, arg_types) -> str:
    """A linalg `ins(%a, %b : t_a, t_b)` clause."""
    return f"ins({', '.join(operands)} : {', '.join(t.mlir() for t in arg_types)})"


def clamped_index(j: str, zero: str, extent: str, last: str, names) -> tuple[list[str], str, str]:
    """Region lines that read the i64 `j` as an index into a dim of `extent` elements
    (`zero`, `last` = extent - 1: i64 values): whether it lies in the dim, and the index
    clamped into it (a read there is in bounds; the caller selects against 0 outside).
    `names`: six fresh SSA names. Returns (lines, the i1 inside, the clamped index)."""
    ge, lt, inside, lo, hi, index = names
    return ([f"{ge} = arith.cmpi sge, {j}, {zero} : i64",
             f"{lt} = arith.cmpi slt, {j}, {extent} : i64",
             f"{inside} = arith.andi {ge}, {lt} : i1",
             f"{lo} = arith.maxsi {j}, {zero} : i64",
             f"{hi} = arith.minsi {lo}, {last} : i64",
             f"{index} = arith.index_cast {hi} : i64 to index"], inside, index)
