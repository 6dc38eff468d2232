"""Which grammar ops a kernel licenses, inferred from the ops in its loop body.

No per-kernel hints: an elementwise grammar op is searched only if the kernel computes
that scalar operation somewhere; contractions only if it multiplies and adds; a triangular
solve only if a non-rectangular loop nest multiplies and subtracts (a unit diagonal divides
by nothing), an LU factorization only if it also divides (Cholesky: and takes square
roots); structural
ops (broadcast, transpose, reshape, constants) always; a conversion only if the kernel
converts (an integer cast, or extf / truncf / sitofp / fptosi ...)."""

from __future__ import annotations

from collections import Counter

from synth.grammar.op import Op, ops_for
from synth.grammar.unary_math import UNARY_MATH, linalg_name, stablehlo_name

_ADD = {"arith.addf", "arith.addi"}
_SUB = {"arith.subf", "arith.subi"}
_MUL = {"arith.mulf", "arith.muli"}
_DIV = {"arith.divf", "arith.divsi", "arith.divui"}
_CMP = {"arith.cmpf", "arith.cmpi", "arith.select", "arith.maxnumf", "arith.minnumf",
        "arith.maximumf", "arith.minimumf", "arith.maxsi", "arith.minsi"}
_NEG = {"arith.negf"} | _SUB
_SQRT = {"math.sqrt"}
_ABS = {"math.absf", "math.absi"}
_EXP = {"math.exp"}
_LOG = {"math.log"}
_TO_FLOAT = {"arith.sitofp", "arith.uitofp"}
_INT_CAST = {"arith.extsi", "arith.extui", "arith.trunci"}
# float conversions: the convert op's attribute domain offers only the kinds between the
# element types of the problem (ConvertFamily), so the types prune what is tried
_FLOAT_CAST = {"arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui"}
_AND, _OR, _XOR = {"arith.andi"}, {"arith.ori"}, {"arith.xori"}
_SHL, _SHRS, _SHRU, _REM = {"arith.shli"}, {"arith.shrsi"}, {"arith.shrui"}, {"arith.remsi"}

# grammar ops that are library routines (a factorisation or solve in one op), by name
# after the dialect prefix: a raise using one is a "library op" raise, and a kernel that
# licenses one gets a search for it before a counter loop is kept (synth.synthesis.solve)
LIBRARY_OPS = ("triangular_solve", "lu", "cholesky")


def is_library_op(name: str) -> bool:
    """Whether a grammar op name ("stablehlo.cholesky", "linalg.lu") is a library op."""
    return name.split(".", 1)[-1] in LIBRARY_OPS


# grammar op (name after the dialect prefix) -> kernel ops, any of which licenses it
_LICENSES: dict[str, set[str]] = {
    "add": _ADD, "subtract": _SUB, "sub": _SUB, "multiply": _MUL, "mul": _MUL,
    "divide": _DIV, "div": _DIV, "maximum": _CMP, "minimum": _CMP, "max": _CMP, "min": _CMP,
    "negate": _NEG, "negf": _NEG, "sqrt": _SQRT, "exponential": _EXP, "exp": _EXP, "log": _LOG, "abs": _ABS,
    "compare": _CMP, "select": _CMP, "reduce_max": _CMP, "reduce_min": _CMP,
    "reduce_add": _ADD, "iota": _TO_FLOAT,
    "scalar_mul": _MUL, "scalar_add": _ADD, "outer": _MUL, "convert": _INT_CAST | _FLOAT_CAST,
    "and": _AND, "andi": _AND, "or": _OR, "ori": _OR, "xor": _XOR, "xori": _XOR,
    "remainder": _REM, "remsi": _REM, "shift_left": _SHL, "shli": _SHL, "shift_right_arithmetic": _SHRS, "shrsi": _SHRS,
    "shift_right_logical": _SHRU, "shrui": _SHRU,
    # sin, cos, tan, tanh, erf, floor, ceil: licensed by the math op itself
    **{stablehlo_name(f).split(".", 1)[1]: {f.math_op} for f in UNARY_MATH},
    **{linalg_name(f).split(".", 1)[1]: {f.math_op} for f in UNARY_MATH},
}
_CONTRACTIONS = ("dot_general", "matmul", "matvec", "vecmat", "batch_matmul", "dot")


# a non-rectangular iteration domain (triangular loops, affine.if) needs index masks
_MASKS = ("iota", "compare", "select")


# ranges with offsets (stencils): never in the default search set; the stencil sketch
# tactic (synth.synthesis.sketch) builds programs with them directly
_SKETCH_ONLY = ("slice_range", "extract_range", "insert_range", "take", "flip", "put", "counter_select",
                "view", "insert_view", "window", "argmax", "argmin", "reverse", "gather",
                "select_affine")


def licensed(op: Op, kernel_ops: Counter, non_rectangular: bool = False, diagonal: bool = False,
             edge_store: bool = False) -> bool:
    short = op.name.split(".", 1)[1]
    if short in _SKETCH_ONLY:
        return False
    present = {name for name, n in kernel_ops.items() if n}
    if short == "select_edge":
        return edge_store or non_rectangular  # an edge row / element, or a domain ending before it
    if diagonal and short == "reduce_add":
        return True  # reading a diagonal is a masked sum over one of its dims
    if op.name == "linalg.iota":  # linalg's masks are select_index: iota is for data only
        return bool(present & _TO_FLOAT)
    if non_rectangular and any(key in short for key in _MASKS):
        return True
    if short == "triangular_solve":  # substitution: a triangular loop that multiplies and subtracts
        return non_rectangular and all(present & k for k in (_MUL, _SUB))  # (divides unless unit diagonal)
    if short == "lu":  # elimination: the same, no square root
        return non_rectangular and all(present & k for k in (_MUL, _SUB, _DIV)) and not present & _SQRT
    if short == "cholesky":  # ... and takes square roots
        return non_rectangular and all(present & k for k in (_MUL, _SUB, _DIV, _SQRT))
    if short in _CONTRACTIONS:
        return bool(present & _MUL) and bool(present & _ADD)
    if short in _LICENSES:
        return bool(present & _LICENSES[short])
    for key in ("select", "compare", "cmp"):
        if key in short:
            return bool(present & _CMP)
    return True


def select_ops(dialect: str, kernel_ops: Counter, non_rectangular: bool = False,
               diagonal: bool = False, edge_store: bool = False) -> tuple[Op, ...]:
    return tuple(op for op in ops_for(dialect)
                 if licensed(op, kernel_ops, non_rectangular, diagonal, edge_store))
