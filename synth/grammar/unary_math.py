"""The math library's unary functions beyond sqrt / exp / log / abs, in one place: C's
`sinf` ... `erff` (and their double forms) as the C front end emits them (`math.sin` ...),
the op of each target that computes the same function, and their NumPy reference.

Each is one grammar op per target: stablehlo's own op (`stablehlo.sine`, `cosine`, `tan`,
`tanh`, `floor`, `ceil`; erf is `chlo.erf`, which XLA compiles and the stablehlo-to-linalg
lowering expands first), and in linalg a `linalg.generic` whose body is the `math` op. The
proofs read each as an uninterpreted function of its exact argument (a real): two programs
that apply the same function to the same terms are equal by congruence, which is all a
raise that keeps the C's calls needs (synth.semantics.z3sem); the values of the functions
themselves are decided by the tests, against the compiled C at the float tolerance of
synth.numerics (libm, XLA and LLVM compute them to within a few ulp of one another)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np


class UnaryMath(NamedTuple):
    name: str  # the semantics' name (op.NUMPY's method, the z3 function's name)
    math_op: str  # the op the C front end emits, and linalg's generic body
    stablehlo_op: str  # stablehlo's op (chlo's where stablehlo has none)
    python: object  # the function on one Python float (for evaluating terms at a point)


UNARY_MATH: tuple[UnaryMath, ...] = (
    UnaryMath("sin", "math.sin", "stablehlo.sine", math.sin),
    UnaryMath("cos", "math.cos", "stablehlo.cosine", math.cos),
    UnaryMath("tan", "math.tan", "stablehlo.tan", math.tan),
    UnaryMath("tanh", "math.tanh", "stablehlo.tanh", math.tanh),
    UnaryMath("erf", "math.erf", "chlo.erf", math.erf),
    UnaryMath("floor", "math.floor", "stablehlo.floor", lambda x: float(math.floor(x))),
    UnaryMath("ceil", "math.ceil", "stablehlo.ceil", lambda x: float(math.ceil(x))),
)
BY_NAME = {f.name: f for f in UNARY_MATH}
BY_MATH_OP = {f.math_op: f for f in UNARY_MATH}


def stablehlo_name(f: UnaryMath) -> str:
    """The stablehlo grammar op's name (`stablehlo.erf` emits chlo.erf)."""
    return "stablehlo." + f.stablehlo_op.split(".", 1)[1]


def linalg_name(f: UnaryMath) -> str:
    """The linalg grammar op's name (a generic with the math op as its body)."""
    return f"linalg.{f.name}"


def numpy_function(name: str):
    """The NumPy reference of `name` on an array (in the array's float type)."""
    if name == "erf":  # NumPy has no erf: math.erf elementwise, rounded to the type
        def erf(a):
            a = np.asarray(a)
            return np.vectorize(math.erf, otypes=[a.dtype])(a) if a.size else a.copy()
        return erf
    return getattr(np, name)
