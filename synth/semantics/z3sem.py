"""The z3 encodings under both sides of a proof (the scalar table of
synth.semantics.scalar is built on them), and z3 terms back to numbers.

A tensor is a NumPy object array (0-d for rank 0) of z3 terms: Real for float element
types, Int for integer ones, Bool for i1. The encodings:

- maximum / minimum: `z3.If` (no NaN: reals have none).
- compare: exact comparison of reals / ints, giving Bool terms.
- select: `z3.If`.
- sqrt, exp (and log, sin, cos, tan, tanh, erf, floor, ceil): uninterpreted functions declared once (`SQRT`, `EXP`). Equal arguments give
  equal results (congruence), which is all an equivalence proof between two programs
  that apply them to the same terms needs. `sqrt_facts` returns optional side
  conditions (sqrt(x)^2 == x and sqrt(x) >= 0 for x >= 0) for a caller that wants them.
- divide: real division. Caveat: z3 makes x/0 a total but unspecified function (one
  value per x, possibly different from IEEE inf/nan), so a proof that relies on an
  equation like x/0 == y/0 is not meaningful for floats; kernels dividing by data
  that can be zero need a side condition.
- integers are mathematical integers (no wrap-around on overflow).

`concrete_value` evaluates a closed term (inputs substituted by numerals) back to a
Python number, mapping SQRT/EXP to math.sqrt/math.exp, so tests can compare the proofs'
semantics with the NumPy reference and with compiled code at points.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from itertools import product

import numpy as np
import z3
from z3 import z3core as Z3core
from z3.z3 import _to_expr_ref as _expr  # a raw term wrapped as its ExprRef subclass

from synth.grammar.unary_math import UNARY_MATH

# Z3's own allocation cap for this process, in MB: past it a query ends as unknown ("out of
# memory") instead of growing until the OS kills the process. Query timeouts do not bound
# every phase: an all-size query on a fuzzed mutant (tests/data/fuzz/verify_hang_2511_11)
# ignored its 20 s timeout and grew by about 130 MB/s until the machine ran out of memory
# (killed after 205 s); with this cap it gives up after about 25 s.
MEMORY_MAX_MB = 3072
z3.set_param("memory_max_size", MEMORY_MAX_MB)

SQRT = z3.Function("sqrt", z3.RealSort(), z3.RealSort())
EXP = z3.Function("exp", z3.RealSort(), z3.RealSort())
LOG = z3.Function("log", z3.RealSort(), z3.RealSort())

# sin, cos, tan, tanh, erf, floor, ceil (synth.grammar.unary_math): one function each
UNARY = {f.name: z3.Function(f.name, z3.RealSort(), z3.RealSort()) for f in UNARY_MATH}

_UNINTERPRETED = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log, **{f.name: f.python for f in UNARY_MATH}}
_INT_UNINTERPRETED = {"shrs": lambda a, k: a >> k, "shl": lambda a, k: a << k}  # support.SHRS / SHL


class NoRealValue(ValueError):
    """A constant (inf, nan) that real-number arithmetic has no value for."""


def sort_for(dtype: str) -> z3.SortRef:
    if dtype in ("f32", "f64"):
        return z3.RealSort()
    if dtype in ("i32", "i64", "i16", "i8"):
        return z3.IntSort()
    if dtype == "i1":
        return z3.BoolSort()
    raise ValueError(f"no z3 sort for element type {dtype!r}")


def numeral(value, dtype: str) -> z3.ExprRef:
    """The exact z3 numeral of a Python / NumPy scalar (floats as exact rationals)."""
    if dtype == "i1":
        return z3.BoolVal(bool(value))
    if dtype in ("i32", "i64", "i16", "i8"):
        return z3.IntVal(int(value))
    v = float(value)
    if not math.isfinite(v):
        raise NoRealValue(f"the constant {v} has no real-number value")
    fr = Fraction(v)
    return z3.RealVal(f"{fr.numerator}/{fr.denominator}") if fr.denominator != 1 else z3.RealVal(fr.numerator)


def symbols(prefix: str, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """An object array of fresh z3 constants `prefix_i_j`, 0-d for rank 0."""
    sort = sort_for(dtype)
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = z3.Const("_".join([prefix, *map(str, idx)]), sort)
    return out


def numerals(array: np.ndarray, dtype: str) -> np.ndarray:
    """A concrete NumPy array as an object array of z3 numerals."""
    array = np.asarray(array)
    out = np.empty(array.shape, dtype=object)
    for idx in np.ndindex(*array.shape):
        out[idx] = numeral(array[idx], dtype)
    return out


def elementwise(fn: Callable, *arrays: np.ndarray) -> np.ndarray:
    """Apply a scalar function of z3 terms elementwise over equally shaped object arrays."""
    shape = np.shape(arrays[0])
    arrays = [np.asarray(a, dtype=object) for a in arrays]
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = fn(*(a[idx] for a in arrays))
    return out


# scalar semantics ---------------------------------------------------------------------


def maximum(a, b):
    return z3.If(a >= b, a, b)


def minimum(a, b):
    return z3.If(a <= b, a, b)


COMPARE = {
    "GT": lambda a, b: a > b,
    "GE": lambda a, b: a >= b,
    "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b,
    "EQ": lambda a, b: a == b,
    "NE": lambda a, b: a != b,
}


def select(p, a, b):
    return z3.If(p, a, b)


def sqrt(a):
    return SQRT(a)


def exp(a):
    return EXP(a)


def log(a):
    return LOG(a)


def unary(name: str) -> Callable:
    """The uninterpreted function `name` of synth.grammar.unary_math (sin ... ceil)."""
    fn = UNARY[name]
    return lambda a: fn(a)


def div(a, b):
    """Real division; x/0 is unspecified in z3 (see the module docstring). Integers
    divide rounding toward zero (arith.divsi, stablehlo.divide on integers)."""
    if _is_int(a) and _is_int(b):
        from synth.semantics.support import trunc_div

        return trunc_div(a, b)
    return a / b


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) or (isinstance(x, z3.ArithRef) and x.is_int())


def subterms(terms, seen: set | None = None):
    """Each distinct subterm of the z3 terms among `terms` once (a term DAG, such as a chain
    of max / min that shares its operands, costs its size, not its tree size); `seen`: the
    ids of terms already walked (by an earlier call), left out with their subterms."""
    seen = set() if seen is None else seen
    stack = [t for t in terms if isinstance(t, z3.ExprRef)]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        yield t
        stack.extend(t.children())


def raw_subterms(terms, seen: set | None = None):
    """`subterms` through z3's C API: (the context's reference, each distinct subterm as
    a raw AST), in the same order, no wrapper object made (wrap one with `_expr(ast, ctx)`)."""
    seen = set() if seen is None else seen
    exprs = [t for t in terms if isinstance(t, z3.ExprRef)]
    if not exprs:
        return
    c = exprs[0].ctx.ref()
    stack = [t.as_ast() for t in exprs]
    while stack:
        a = stack.pop()
        i = Z3core.Z3_get_ast_id(c, a)
        if i in seen:
            continue
        seen.add(i)
        yield c, a
        if Z3core.Z3_get_ast_kind(c, a) == z3.Z3_APP_AST:
            app = Z3core.Z3_to_app(c, a)
            stack.extend(Z3core.Z3_get_app_arg(c, app, k) for k in range(Z3core.Z3_get_app_num_args(c, app)))


def sqrt_facts(terms) -> list[z3.BoolRef]:
    """Side conditions for SQRT applications among `terms`: for each argument x found,
    x >= 0 implies sqrt(x) >= 0 and sqrt(x) * sqrt(x) == x."""
    args = [t.arg(0) for t in subterms(terms) if z3.is_app(t) and t.decl().eq(SQRT)]
    return [z3.Implies(x >= 0, z3.And(SQRT(x) >= 0, SQRT(x) * SQRT(x) == x)) for x in args]


# evaluating closed terms ------------------------------------------------------------------

_BINARY = {
    z3.Z3_OP_SUB: lambda a, b: a - b,
    z3.Z3_OP_DIV: lambda a, b: a / b,
    z3.Z3_OP_GT: lambda a, b: a > b,
    z3.Z3_OP_GE: lambda a, b: a >= b,
    z3.Z3_OP_LT: lambda a, b: a < b,
    z3.Z3_OP_LE: lambda a, b: a <= b,
    z3.Z3_OP_EQ: lambda a, b: a == b,
    z3.Z3_OP_IMPLIES: lambda a, b: (not a) or b,
}


def concrete_value(expr: z3.ExprRef):
    """Evaluate a closed z3 term to a Python float / int / bool (SQRT, EXP by math)."""
    expr = z3.simplify(expr)
    return _eval(expr, {})


def _eval(e: z3.ExprRef, memo: dict):
    """The value of a closed term; `memo` (term id -> value) makes a DAG cost its size."""
    key = e.get_id()
    if key not in memo:
        memo[key] = _eval_node(e, memo)
    return memo[key]


def _eval_node(e: z3.ExprRef, memo: dict):
    if z3.is_true(e):
        return True
    if z3.is_false(e):
        return False
    if z3.is_int_value(e):
        return e.as_long()
    if z3.is_rational_value(e):
        return Fraction(e.numerator_as_long(), e.denominator_as_long())
    if z3.is_algebraic_value(e):
        return float(Fraction(e.approx(20).as_fraction()))
    if not z3.is_app(e):
        raise ValueError(f"cannot evaluate {e}")
    kind = e.decl().kind()
    args = [_eval(c, memo) for c in e.children()]
    if kind == z3.Z3_OP_UNINTERPRETED:
        if e.decl().name() in _INT_UNINTERPRETED and e.num_args() == 2:
            return _INT_UNINTERPRETED[e.decl().name()](int(args[0]), int(args[1]))
        if e.decl().name() == "pow" and e.num_args() == 2:  # math.powf (synth.semantics.support.POW)
            return math.pow(float(args[0]), float(args[1]))
        fn = _UNINTERPRETED.get(e.decl().name())
        if fn is None or e.num_args() != 1:
            raise ValueError(f"free symbol or unknown function in {e}")
        return fn(float(args[0]))
    if kind == z3.Z3_OP_ADD:
        return sum(args[1:], args[0])
    if kind == z3.Z3_OP_MUL:
        acc = args[0]
        for a in args[1:]:
            acc = acc * a
        return acc
    if kind == z3.Z3_OP_UMINUS:
        return -args[0]
    if kind == z3.Z3_OP_ITE:
        return args[1] if args[0] else args[2]
    if kind == z3.Z3_OP_NOT:
        return not args[0]
    if kind == z3.Z3_OP_AND:
        return all(args)
    if kind == z3.Z3_OP_OR:
        return any(args)
    if kind == z3.Z3_OP_DISTINCT:
        return len(set(args)) == len(args)
    if kind in (z3.Z3_OP_TO_REAL, z3.Z3_OP_TO_INT):
        return args[0] if kind == z3.Z3_OP_TO_REAL else math.floor(args[0])
    if kind == z3.Z3_OP_POWER:
        return float(args[0]) ** float(args[1])
    if kind in _BINARY and len(args) == 2:
        return _BINARY[kind](args[0], args[1])
    raise ValueError(f"cannot evaluate operator {e.decl().name()} in {e}")


def substitute(array: np.ndarray, pairs: list[tuple[z3.ExprRef, z3.ExprRef]]) -> np.ndarray:
    """Substitute (symbol, value) pairs in every element of an object array."""
    return elementwise(lambda t: z3.substitute(t, *pairs) if isinstance(t, z3.ExprRef) else t, array)


def concrete_array(array: np.ndarray, dtype) -> np.ndarray:
    """Evaluate an object array of closed terms into a NumPy array of `dtype`."""
    array = np.asarray(array, dtype=object)
    out = np.empty(array.shape, dtype=dtype)
    for idx in np.ndindex(*array.shape):
        v = array[idx]
        out[idx] = concrete_value(v) if isinstance(v, z3.ExprRef) else v
    return out


def bind(symbolic_inputs: list[np.ndarray], concrete_inputs: list[np.ndarray]) -> list[tuple]:
    """Pairs (symbol, numeral) binding each symbol of `symbolic_inputs` to the matching
    element of `concrete_inputs` (for `substitute`)."""
    pairs = []
    for sym, val in zip(symbolic_inputs, concrete_inputs):
        val = np.asarray(val)
        for idx in product(*(range(d) for d in val.shape)):
            s = sym[idx]
            dtype = "i1" if z3.is_bool(s) else ("i64" if z3.is_int(s) else "f64")
            pairs.append((s, numeral(val[idx], dtype)))
    return pairs


# abstracting what z3 decides badly ---------------------------------------------------------


def _numeral(t: z3.ExprRef) -> bool:
    return z3.is_rational_value(t) or z3.is_int_value(t) or z3.is_algebraic_value(t)


_ABSTRACT_OPS = {z3.Z3_OP_MUL: "mul", z3.Z3_OP_DIV: "div", z3.Z3_OP_IDIV: "idiv", z3.Z3_OP_MOD: "mod",
                 z3.Z3_OP_REM: "rem", z3.Z3_OP_POWER: "power"}


def _nonlinear(t: z3.ExprRef) -> bool:
    """A division by a non-numeral, a product of two non-numerals, a power, on reals
    (integer products are left to z3: subscripts multiply sizes by indices)."""
    if not z3.is_arith(t) or not t.is_real():
        return False
    kind = t.decl().kind()
    if kind in (z3.Z3_OP_DIV, z3.Z3_OP_IDIV, z3.Z3_OP_MOD, z3.Z3_OP_REM):
        return not _numeral(t.arg(1))
    if kind == z3.Z3_OP_MUL:
        return sum(1 for c in t.children() if not _numeral(c)) > 1
    return kind == z3.Z3_OP_POWER


def _uninterpreted(t: z3.ExprRef, kids: list) -> z3.ExprRef:
    """The non-linear `t` over `kids` as an application of an uninterpreted function of
    the same name (a product of several: nested, left to right)."""
    name = _ABSTRACT_OPS[t.decl().kind()]
    sorts = [k.sort() for k in kids]
    f = z3.Function(f"{name}!{sorts[0]}", sorts[0], sorts[1], t.sort())
    out = kids[0]
    for k in kids[1:]:
        out = f(out, k)
    return out


def abstract_nonlinear(terms: list) -> list:
    """`terms` with each non-linear real operation (a product of two non-numerals, a
    division by a non-numeral, a power) replaced by an uninterpreted function of its arguments, as
    sqrt / exp / log already are: what the terms can take only widens, so a formula over
    them that is unsatisfiable is unsatisfiable over `terms`, and the query is one of
    linear arithmetic with uninterpreted functions, which z3 decides by congruence (an
    equality of two terms that compute the same products of the same values under
    differently nested selects: a select on `a || b` against two nested selects)."""
    exprs = [t for t in terms if isinstance(t, z3.ExprRef)]
    if not exprs:
        return list(terms)
    # walked through z3's C API on the raw terms: a wrapper object is made only for a term
    # that changes (z3's Python children() wraps and reference-counts every child anew, most
    # of a proof's time on a kernel of a few hundred elements)
    ctx = exprs[0].ctx
    c = ctx.ref()
    new: dict[int, z3.ExprRef] = {}  # ast id -> the term that replaces it, where one does
    expanded: set[int] = set()
    stack = [(t.as_ast(), False) for t in exprs]
    while stack:  # post-order without recursion (sums over many elements nest deeply)
        a, ready = stack.pop()
        if not ready:
            i = Z3core.Z3_get_ast_id(c, a)
            if i in expanded or Z3core.Z3_get_ast_kind(c, a) != z3.Z3_APP_AST:
                continue
            expanded.add(i)
            app = Z3core.Z3_to_app(c, a)
            n = Z3core.Z3_get_app_num_args(c, app)
            if n:
                stack.append((a, True))
                stack.extend((Z3core.Z3_get_app_arg(c, app, k), False) for k in range(n))
            continue
        app = Z3core.Z3_to_app(c, a)
        kids = [Z3core.Z3_get_app_arg(c, app, k) for k in range(Z3core.Z3_get_app_num_args(c, app))]
        changed = [new.get(Z3core.Z3_get_ast_id(c, k)) for k in kids]
        if _nonlinear_raw(c, a, app, kids):
            t = _expr(a, ctx)
            new[Z3core.Z3_get_ast_id(c, a)] = _uninterpreted(
                t, [x if x is not None else _expr(k, ctx) for x, k in zip(changed, kids)])
        elif any(x is not None for x in changed):
            args = (z3.Ast * len(kids))(*[x.as_ast() if x is not None else k for x, k in zip(changed, kids)])
            made = Z3core.Z3_mk_app(c, Z3core.Z3_get_app_decl(c, app), len(kids), args)
            new[Z3core.Z3_get_ast_id(c, a)] = _expr(made, ctx)
    return [new.get(t.get_id(), t) if isinstance(t, z3.ExprRef) else t for t in terms]


_DIVISIONS = (z3.Z3_OP_DIV, z3.Z3_OP_IDIV, z3.Z3_OP_MOD, z3.Z3_OP_REM)


def _numeral_raw(c, a) -> bool:
    return Z3core.Z3_is_numeral_ast(c, a) or Z3core.Z3_is_algebraic_number(c, a)


def _nonlinear_raw(c, a, app, kids) -> bool:
    """_nonlinear on a raw application `a` (`app`) with arguments `kids`."""
    if Z3core.Z3_get_sort_kind(c, Z3core.Z3_get_sort(c, a)) != z3.Z3_REAL_SORT:
        return False
    kind = Z3core.Z3_get_decl_kind(c, Z3core.Z3_get_app_decl(c, app))
    if kind in _DIVISIONS:
        return not _numeral_raw(c, kids[1])
    if kind == z3.Z3_OP_MUL:
        return sum(1 for k in kids if not _numeral_raw(c, k)) > 1
    return kind == z3.Z3_OP_POWER
