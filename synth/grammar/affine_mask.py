"""select_affine of both grammars: a select on linear conditions of the element's index.

    select_affine(x, y; constraints)[p] = x[p] if every sum(coeffs[d] * p[d]) >= bound
                                          else y[p]

`constraints` is a tuple of (coeffs, bound) pairs, one coefficient per dim of x, the bound
an int or a Size (a size expression: the program re-instantiates at other sizes). It is
what an `affine.if` around a statement or an accumulation reads as (a zero-padded tap of a
window, `if (j < 0 || j >= n) continue;`, a border kept as it is): its integer set's
constraints, each a linear form of loop indices and sizes, over the loops' positions.

Emitters: stablehlo: iotas of the index space (dynamic_iota in a shape-generic body),
scaled and added, compared GE against the bound (broadcast from its value there),
the predicates and-ed, then a select; linalg: a generic over the result whose body
computes the same from linalg.index in i64 (the bound a value computed before it where
it is a size known at run time). Only the sketch tactic builds it (synth.synthesis.opset
leaves it out of the search).
"""

from __future__ import annotations

import numpy as np

from synth.grammar.dims import is_dynamic
from synth.grammar.linalg_base import LinalgOp
from synth.grammar.linalg_generic import emit_generic
from synth.grammar.op import attr_dict, attrs
from synth.grammar.stablehlo_base import StablehloOp, broadcast_to, iota_op, splat
from synth.grammar.types import STORED_DTYPES, TensorType


def holds(shape, constraints) -> np.ndarray:
    """The boolean array over `shape` of the elements whose index meets every constraint."""
    grid = np.indices(tuple(int(n) for n in shape), dtype=np.int64)
    ok = np.ones(tuple(int(n) for n in shape), dtype=bool)
    for coeffs, bound in constraints:
        total = sum((int(c) * grid[d] for d, c in enumerate(coeffs) if c), np.zeros_like(ok, dtype=np.int64))
        ok &= total >= int(bound)
    return ok


class SelectAffineFamily:
    """See the module docstring. Attribute: constraints."""

    arity = 2
    attr_domain_kind = "affine_mask"
    shape_generic = True

    def _fits(self, arg_types) -> bool:
        return (len(arg_types) == 2 and arg_types[0] == arg_types[1] and arg_types[0].rank >= 1
                and arg_types[0].dtype in STORED_DTYPES)

    def attribute_domain(self, arg_types, ctx):
        """A bound on one index, a band on the sum of the first two, and both together
        (the conformance test's instances; never searched)."""
        if not self._fits(arg_types):
            return ()
        t = arg_types[0]
        r = t.rank
        one = tuple(1 if d == 0 else 0 for d in range(r))
        band = tuple(-1 if d < 2 else 0 for d in range(r))
        first = ((one, 1),)
        second = ((band, -int(t.shape[0])),)
        return (attrs(constraints=first), attrs(constraints=second), attrs(constraints=first + second))

    def result_type(self, arg_types, a):
        self.check_arity(arg_types)
        d = attr_dict(a)
        if not self._fits(arg_types) or set(d) != {"constraints"} or not d["constraints"] or any(
                len(coeffs) != arg_types[0].rank for coeffs, _ in d["constraints"]):
            raise self.shape_error("needs two tensors of one type (rank >= 1) and constraints with a "
                                   "coefficient per dim", arg_types, a)
        return arg_types[0]

    def apply(self, sem, args, a):
        x, y = args
        return sem.select(holds(np.shape(x), attr_dict(a)["constraints"]), x, y)

    def cost(self, arg_types, a, result_type):
        return 2 * result_type.size


def _i64_fill(em, value, t: TensorType) -> str:
    """A tensor of type `t` (i64) whose every element is `value` (an int, or a Size
    computed at run time in a shape-generic body)."""
    if is_dynamic(value):
        return broadcast_to(em, em.size(value), TensorType((), "i64"), (), t)
    return splat(em, int(value), t)


def linear_form(coeffs, index, scale, add):
    """sum(coeffs[d] * index(d)) emitted term by term in the order of d (None when every
    coefficient is 0): `index(d)` gives dim d's index value, `scale(v, c)` emits v * c for
    c != 1, `add(a, b)` emits a + b. The one order both dialects' emitters build in."""
    total = None
    for d, c in enumerate(coeffs):
        if not c:
            continue
        term = index(d)
        if c != 1:
            term = scale(term, c)
        total = term if total is None else add(total, term)
    return total


class StablehloSelectAffine(SelectAffineFamily, StablehloOp):
    """iotas scaled and added, compare GE the bound, and-ed, select."""

    def emit(self, em, operands, arg_types, a, result_type):
        it, pt = result_type.with_dtype("i64"), result_type.with_dtype("i1")
        iotas: dict[int, str] = {}

        def index(d):
            if d not in iotas:
                iotas[d] = iota_op(em, d, it)
            return iotas[d]

        def scale(v, c):
            r = em.fresh()
            em.line(f"{r} = stablehlo.multiply {v}, {_i64_fill(em, c, it)} : {it.mlir()}")
            return r

        def add(x, y):
            r = em.fresh()
            em.line(f"{r} = stablehlo.add {x}, {y} : {it.mlir()}")
            return r

        predicate = None
        for coeffs, bound in attr_dict(a)["constraints"]:
            total = linear_form(coeffs, index, scale, add)
            if total is None:
                total = splat(em, 0, it)
            p = em.fresh()
            em.line(f"{p} = stablehlo.compare GE, {total}, {_i64_fill(em, bound, it)} : "
                    f"({it.mlir()}, {it.mlir()}) -> {pt.mlir()}")
            if predicate is not None:
                p, q = em.fresh(), p
                em.line(f"{p} = stablehlo.and {predicate}, {q} : {pt.mlir()}")
            predicate = p
        r = em.fresh()
        em.line(f"{r} = stablehlo.select {predicate}, {operands[0]}, {operands[1]} : "
                f"{pt.mlir()}, {result_type.mlir()}")
        return r


class LinalgSelectAffine(SelectAffineFamily, LinalgOp):
    """linalg.generic over x and y whose body computes the constraints from linalg.index."""

    def emit(self, em, operands, arg_types, a, result_type):
        constraints = attr_dict(a)["constraints"]
        dt = result_type.dtype
        # constants and run-time sizes before the generic (its body may use them)
        numbers = {int(c) for coeffs, _ in constraints for c in coeffs if c not in (0, 1)}
        numbers |= {int(b) for _, b in constraints if not is_dynamic(b)}
        constant = {v: em.scalar_constant(v, "i64") for v in sorted(numbers)}
        bounds = []
        for _, b in constraints:
            if is_dynamic(b):
                v = em.fresh()
                em.line(f"{v} = arith.index_cast {em.size(b)} : index to i64")
                bounds.append(v)
            else:
                bounds.append(constant[int(b)])
        used = sorted({d for coeffs, _ in constraints for d, c in enumerate(coeffs) if c})

        def body(em, blk):
            index = {}
            for d in used:
                i, j = em.fresh("i"), em.fresh("j")
                em.line(f"{i} = linalg.index {d} : index")
                em.line(f"{j} = arith.index_cast {i} : index to i64")
                index[d] = j

            def scale(v, c):
                r = em.fresh()
                em.line(f"{r} = arith.muli {v}, {constant[int(c)]} : i64")
                return r

            def add(x, y):
                r = em.fresh()
                em.line(f"{r} = arith.addi {x}, {y} : i64")
                return r

            predicate = None
            for (coeffs, _), bound in zip(constraints, bounds):
                total = linear_form(coeffs, index.__getitem__, scale, add)
                if total is None:
                    total = constant.get(0) or em.fresh()
                    if total not in constant.values():
                        em.line(f"{total} = arith.constant 0 : i64")
                p = em.fresh("p")
                em.line(f"{p} = arith.cmpi sge, {total}, {bound} : i64")
                if predicate is not None:
                    p, q = em.fresh("p"), p
                    em.line(f"{p} = arith.andi {predicate}, {q} : i1")
                predicate = p
            s = em.fresh("s")
            em.line(f"{s} = arith.select {predicate}, {blk[0]}, {blk[1]} : {dt}")
            return s

        n = result_type.rank
        return emit_generic(em, operands, arg_types, [tuple(range(n))] * 2, result_type, body)
