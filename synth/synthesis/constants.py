"""Scalars computed from constants only, folded to the number they are (C's `float s =
1. / (2 * 9 - 1)`, in the types and roundings of its ops): what the statement sketches
read as a constant (synth.synthesis.sketch)."""

from __future__ import annotations

import numpy as np
from mlir import ir

_NUMPY_SCALARS = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "index": np.int64}
_FOLDS = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply, "arith.divf": np.divide,
          "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply, "arith.negf": np.negative}


def fold_constant(value: ir.Value):
    """The number a scalar computed from constants only is (C's `1. / (2 * 9 - 1)`,
    in the types and roundings of its ops), or None."""
    if isinstance(value.owner, ir.Block):
        return None
    op, t = value.owner, str(value.type)
    if t not in _NUMPY_SCALARS:
        return None
    cast = _NUMPY_SCALARS[t]
    if op.name == "arith.constant":
        attr = op.attributes["value"]
        if isinstance(attr, ir.FloatAttr):
            return cast(ir.FloatAttr(attr).value)
        if isinstance(attr, ir.IntegerAttr):
            return cast(ir.IntegerAttr(attr).value)
        return None
    args = [fold_constant(v) for v in op.operands]
    if not args or any(a is None for a in args):
        return None
    if op.name in _FOLDS:
        with np.errstate(all="ignore"):
            return cast(_FOLDS[op.name](*args))
    if op.name in ("arith.sitofp", "arith.truncf", "arith.extf", "arith.extsi", "arith.trunci",
                   "arith.index_cast"):
        return cast(args[0])
    return None
