"""Op families both dialects share: everything but the emitter (signature, attribute
domain, shape rule, semantics) in one place. A dialect's op is `class Reduce(ReduceFamily,
StablehloOp)` with its own `emit`."""

from __future__ import annotations

from itertools import permutations

import numpy as np

from synth.grammar.op import attr_dict, attrs
from synth.grammar.shapes import (EDGE_POSITIONS, check_insert_range, dot_general, dot_general_type,
                                  edge_domain, edge_index, insert_range, insert_range_domain, range_shape,
                                  range_slices, reduce_domain, reduce_type, slice_range_domain)
from synth.grammar.types import NUMERIC_DTYPES, TensorType


class ElementwiseFamily:
    """Unary / binary elementwise op on operands of one identical type in `dtypes`; its
    semantics is `fn` of the semantics namespace (op.NUMPY)."""

    attr_domain_kind = "none"

    def __init__(self, name: str, arity: int, fn: str, dtypes: tuple[str, ...] = NUMERIC_DTYPES):
        self.arity = arity
        super().__init__(name)
        self.fn = fn
        self.dtypes = dtypes

    def _fits(self, arg_types) -> bool:
        return (len(arg_types) == self.arity and len(set(arg_types)) == 1
                and arg_types[0].dtype in self.dtypes)

    def attribute_domain(self, arg_types, ctx):
        return ((),) if self._fits(arg_types) else ()

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if len(set(arg_types)) != 1:
            raise self.shape_error("operands must have identical types", arg_types)
        if arg_types[0].dtype not in self.dtypes:
            raise self.shape_error(f"element type must be one of {self.dtypes}", arg_types)
        return arg_types[0]

    def apply(self, sem, args, attrs):
        return getattr(sem, self.fn)(*args)


class DotGeneralFamily:
    """A contraction with stablehlo.dot_general's dims (lhs_batch, rhs_batch, lhs_contract,
    rhs_contract); each dialect says which dims it offers (`attribute_domain`)."""

    arity = 2
    attr_domain_kind = "dot_dims"

    def result_type(self, arg_types, attrs):
        return dot_general_type(self, arg_types, attrs, NUMERIC_DTYPES)

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return dot_general(sem, args[0], args[1], d["lhs_batch"], d["rhs_batch"],
                           d["lhs_contract"], d["rhs_contract"])

    def cost(self, arg_types, attrs, result_type):
        return contraction_cost(arg_types, attr_dict(attrs)["lhs_contract"], result_type)


class ReduceFamily:
    """A reduction (add, max, min) over one dimension, its identity as the init."""

    arity = 1
    attr_domain_kind = "reduce_dim"

    def __init__(self, name: str, kind: str):
        super().__init__(name)
        self.kind = kind

    def attribute_domain(self, arg_types, ctx):
        return reduce_domain(arg_types, NUMERIC_DTYPES)

    def result_type(self, arg_types, attrs):
        return reduce_type(self, arg_types, attrs, NUMERIC_DTYPES)

    def apply(self, sem, args, attrs):
        return sem.reduce(self.kind, args[0], attr_dict(attrs)["dim"])


class IotaFamily:
    """The index along one dim of a shape of interest, in a numeric element type."""

    arity = 0
    attr_domain_kind = "iota"

    def attribute_domain(self, arg_types, ctx):
        if arg_types:
            return ()
        return tuple(attrs(shape=tuple(s), dim=k, dtype=dt) for s in sorted(ctx.shapes) if s
                     for k in range(len(s)) for dt in ctx.dtypes if dt in NUMERIC_DTYPES)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        d = attr_dict(attrs)
        if not 0 <= d["dim"] < len(d["shape"]) or d["dtype"] not in NUMERIC_DTYPES:
            raise self.shape_error("dim out of range or not a numeric type", arg_types, attrs)
        return TensorType(tuple(d["shape"]), d["dtype"])

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return sem.iota(tuple(d["shape"]), d["dim"], d["dtype"])


class TransposeFamily:
    """A non-identity permutation of the dims of a tensor of rank >= 2."""

    arity = 1
    attr_domain_kind = "permutation"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1 or arg_types[0].rank < 2 or arg_types[0].dtype not in NUMERIC_DTYPES:
            return ()
        r = arg_types[0].rank
        return tuple(attrs(permutation=p) for p in permutations(range(r)) if p != tuple(range(r)))

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        perm = attr_dict(attrs)["permutation"]
        if sorted(perm) != list(range(arg_types[0].rank)):
            raise self.shape_error("permutation must permute the operand dims", arg_types, attrs)
        return arg_types[0].with_shape(tuple(arg_types[0].shape[p] for p in perm))

    def apply(self, sem, args, attrs):
        return np.ascontiguousarray(np.transpose(args[0], attr_dict(attrs)["permutation"]))


class SelectEdgeFamily:
    """out = x where every dim in `dims` is at its `position` (first / last index), y
    elsewhere: the mask of an edge row, column or element (corr[n-1][n-1] = 1) fused with
    its use. As slice_edge, the position is symbolic: the index (0 or size - 1) comes from
    the shape, so the attributes hold no sizes."""

    arity = 2
    attr_domain_kind = "slice_edge"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 2 or arg_types[0] != arg_types[1] or arg_types[0].rank == 0 \
                or arg_types[0].dtype not in NUMERIC_DTYPES:
            return ()
        return edge_domain(arg_types[0].shape)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if arg_types[0] != arg_types[1]:
            raise self.shape_error("both operands must have one type", arg_types, attrs)
        d = attr_dict(attrs)
        dims, rank = tuple(d["dims"]), arg_types[0].rank
        if not dims or list(dims) != sorted(set(dims)) or any(not 0 <= k < rank for k in dims) \
                or d["position"] not in EDGE_POSITIONS:
            raise self.shape_error("dims must be distinct dims in increasing order, position "
                                   f"one of {EDGE_POSITIONS}", arg_types, attrs)
        return arg_types[0]

    def mask(self, shape, attrs) -> np.ndarray:
        d = attr_dict(attrs)
        grid = np.indices(shape)
        m = np.ones(shape, dtype=bool)
        for k in d["dims"]:
            m &= grid[k] == edge_index(shape[k], d["position"])
        return m

    def apply(self, sem, args, attrs):
        x, y = args
        return sem.select(self.mask(np.shape(x), attrs), x, y)


class SliceRangeFamily:
    """An array less lo[k] elements at the start and hi[k] at the end of each dim k (a
    stencil's shifted neighbourhood, or the interior it writes): a[lo0:n0-hi0, ...]. The
    offsets are the attributes; the extents come from the operand's shape (size
    expressions, so the program re-instantiates). Emitters: stablehlo.slice,
    tensor.extract_slice."""

    arity = 1
    attr_domain_kind = "range"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1 or arg_types[0].dtype not in NUMERIC_DTYPES:
            return ()
        return slice_range_domain(arg_types[0].shape, ctx.shapes)

    def result_type(self, arg_types, attrs):
        return arg_types[0].with_shape(range_shape(self, arg_types, attrs))

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        a = np.asarray(args[0])
        return np.array(a[range_slices(a.shape, d["lo"], d["hi"])])


class InsertRangeFamily:
    """(dest, update): dest with its range (lo, hi) replaced by update, whose shape is that
    range's (a stencil writing the interior of an array)."""

    arity = 2
    attr_domain_kind = "range"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 2 or arg_types[0].dtype != arg_types[1].dtype \
                or arg_types[0].dtype not in NUMERIC_DTYPES:
            return ()
        return insert_range_domain(arg_types[0].shape, arg_types[1].shape)

    def result_type(self, arg_types, attrs):
        check_insert_range(self, arg_types, attrs)
        return arg_types[0]

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        return insert_range(args[0], args[1], d["lo"], d["hi"])


def contraction_cost(arg_types, lhs_contract, result_type) -> int:
    """Elements read and written plus two operations per multiply-add."""
    depth = 1
    for k in lhs_contract:
        depth *= arg_types[0].shape[k]
    return 2 * result_type.size * depth + result_type.size + sum(t.size for t in arg_types)
