"""Views: the part of an array a kernel reaches, read and written as a box with strides.

A kernel may reach only part of an array: the first n of lda columns (`A[i * lda + j]`,
j < n < lda), the first half of a vector (TSVC's `i < LEN / 2`), every other element
(`x[2 * i]`). synth.synthesis.views raises such a kernel over the boxes it reaches;
these two ops take the boxes out of the whole arrays and write the results back:

  view(a)                 a[lo0 : lo0 + n0 * s0 : s0, ...]        (lo, shape, stride)
  insert_view(dest, v)    dest with that box replaced by v (v's shape is `shape`), the
                          elements outside the box kept as they were

`lo` and `shape` hold ints or `Size`s (size expressions: `n256 floordiv 2`), so the
programs re-instantiate at any sizes; `stride` holds ints. Neither is searched (their
attribute domain is empty): only the view raise builds them. Emitters:
tensor.extract_slice / tensor.insert_slice with strides (linalg); stablehlo.slice with
strides, and stablehlo.dynamic_update_slice at unit strides or else a select between
the update padded with `interior` padding and dest (stablehlo).

In a shape-generic body (a box whose corner or extent is a size known only at run
time) the same ops take those as values computed from the arguments (synth.grammar.
dims): extract_slice / insert_slice with SSA offsets and sizes; real_dynamic_slice (its
limit lo + (shape - 1) * stride + 1), dynamic_update_slice at a start that is a value,
and dynamic_pad for the strided update."""

from __future__ import annotations

import numpy as np

from synth.analysis.symbols import Size, SizeExpr
from synth.grammar.dims import GenericUnsupported, has_dynamic, is_dynamic
from synth.grammar.linalg_base import LinalgOp
from synth.grammar.op import attr_dict, attrs
from synth.grammar.shapes import same_dim
from synth.grammar.stablehlo_base import StablehloOp, splat, tensor_constant
from synth.grammar.types import STORED_DTYPES, TensorType


def view_box(op, a: TensorType, attrs, arg_types) -> tuple:
    """(lo, shape, stride) of a view of `a`, or the op's ShapeError: one entry per dim,
    shape >= 1, stride >= 1, the box inside a."""
    d = attr_dict(attrs)
    lo, shape, stride = d.get("lo"), d.get("shape"), d.get("stride")
    if lo is None or shape is None or stride is None or not len(lo) == len(shape) == len(stride) == a.rank:
        raise op.shape_error("needs lo, shape and stride, one per dim", arg_types, attrs)
    for k, (o, n, s, m) in enumerate(zip(lo, shape, stride, a.shape)):
        if int(o) < 0 or int(n) < 1 or int(s) < 1 or int(o) + (int(n) - 1) * int(s) >= int(m):
            raise op.shape_error(f"dim {k}: the box {o} + [0, {n}) * {s} is not inside {m}", arg_types, attrs)
    return tuple(lo), tuple(shape), tuple(int(s) for s in stride)


def box_index(lo, shape, stride) -> tuple:
    """The NumPy index of the box."""
    return tuple(slice(int(o), int(o) + (int(n) - 1) * s + 1, s) for o, n, s in zip(lo, shape, stride))


def _generic(attrs, *types) -> bool:
    """Whether the box or an operand has a size known only at run time."""
    d = attr_dict(attrs)
    return any(is_dynamic(v) for key in ("lo", "shape") for v in d[key]) or any(has_dynamic(t) for t in types)


def _limit(lo, n, s: int):
    """lo + (n - 1) * s + 1, a Size where lo or n is one known only at run time."""
    value = int(lo) + (int(n) - 1) * s + 1
    if not (is_dynamic(lo) or is_dynamic(n)):
        return value
    try:
        expr = SizeExpr.of(lo) + (SizeExpr.of(n) - 1) * s + 1
    except ValueError:  # a floordiv extent scaled: not linear
        raise GenericUnsupported("a strided box whose extent is a floordiv of sizes known at run time") from None
    dynamic = frozenset().union(*(x.dynamic for x in (lo, n) if isinstance(x, Size)))
    return Size(value, expr, dynamic)


class ViewFamily:
    arity = 1
    attr_domain_kind = "view"
    shape_generic = True  # the box's corner and extents as values where they are sizes

    def attribute_domain(self, arg_types, ctx):
        """Two boxes (all but the first element of each dim; every other element): the
        conformance test's instances. Never searched (synth.synthesis.opset)."""
        if len(arg_types) != 1 or arg_types[0].rank == 0 or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        shape = [int(n) for n in arg_types[0].shape]
        if min(shape) < 2:
            return ()
        r = len(shape)
        return (attrs(lo=(1,) * r, shape=tuple(n - 1 for n in shape), stride=(1,) * r),
                attrs(lo=(0,) * r, shape=tuple((n + 1) // 2 for n in shape), stride=(2,) * r))

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        a = arg_types[0]
        if a.dtype not in STORED_DTYPES:
            raise self.shape_error("needs a numeric tensor", arg_types, attrs)
        _, shape, _ = view_box(self, a, attrs, arg_types)
        return a.with_shape(shape)

    def apply(self, sem, args, attrs):
        lo, shape, stride = view_box(self, TensorType(np.shape(args[0]), "f64"), attrs, ())
        return np.array(np.asarray(args[0])[box_index(lo, shape, stride)])

    def cost(self, arg_types, attrs, result_type):
        return result_type.size


class InsertViewFamily:
    arity = 2
    attr_domain_kind = "view"
    shape_generic = True

    def attribute_domain(self, arg_types, ctx):
        """The update at the end of each dim of dest, at stride 2 where it fits so, else 1
        (the conformance test's instances; never searched)."""
        if len(arg_types) != 2 or arg_types[0].dtype != arg_types[1].dtype or arg_types[0].rank == 0 \
                or arg_types[0].rank != arg_types[1].rank or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        lo, stride = [], []
        for n, u in zip(arg_types[0].shape, arg_types[1].shape):
            s = 2 if (int(u) - 1) * 2 < int(n) else 1
            if (int(u) - 1) * s >= int(n):
                return ()
            lo.append(int(n) - (int(u) - 1) * s - 1)
            stride.append(s)
        if not any(lo) and all(s == 1 for s in stride):
            return ()
        return (attrs(lo=tuple(lo), shape=tuple(arg_types[1].shape), stride=tuple(stride)),)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        dest, update = arg_types
        if dest.dtype != update.dtype or dest.dtype not in STORED_DTYPES:
            raise self.shape_error("dest and update need one numeric element type", arg_types, attrs)
        _, shape, _ = view_box(self, dest, attrs, arg_types)
        if update.rank != dest.rank or not all(same_dim(u, n) for u, n in zip(update.shape, shape)):
            raise self.shape_error("update's shape is not the box's", arg_types, attrs)
        return dest

    def apply(self, sem, args, attrs):
        dest = np.asarray(args[0])
        lo, shape, stride = view_box(self, TensorType(dest.shape, "f64"), attrs, ())
        out = np.array(dest, copy=True)
        out[box_index(lo, shape, stride)] = args[1]
        return out

    def cost(self, arg_types, attrs, result_type):
        return 2 * arg_types[1].size


def _slice_operands(em, attrs) -> str:
    """[offsets][sizes][strides]: a size known only at run time as its value."""
    d = attr_dict(attrs)
    return "".join(f"[{', '.join(em.size(v) if is_dynamic(v) else str(int(v)) for v in d[k])}]"
                   for k in ("lo", "shape", "stride"))


class LinalgView(ViewFamily, LinalgOp):
    """tensor.extract_slice of the box (offsets and sizes values where they are sizes known
    at run time, static strides)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        r = em.fresh()
        em.line(f"{r} = tensor.extract_slice {operands[0]}{_slice_operands(em, attrs)} : "
                f"{arg_types[0].mlir()} to {result_type.mlir()}")
        return r


class LinalgInsertView(InsertViewFamily, LinalgOp):
    """tensor.insert_slice of the update into the box of dest."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        dest, update = arg_types
        r = em.fresh()
        em.line(f"{r} = tensor.insert_slice {operands[1]} into {operands[0]}{_slice_operands(em, attrs)} : "
                f"{update.mlir()} into {dest.mlir()}")
        return r


def _limits(attrs) -> list[tuple[int, int, int]]:
    d = attr_dict(attrs)
    return [(int(o), int(o) + (int(n) - 1) * int(s) + 1, int(s)) for o, n, s in zip(d["lo"], d["shape"], d["stride"])]


class StablehloView(ViewFamily, StablehloOp):
    """stablehlo.slice of the box, with strides (real_dynamic_slice where the box or the
    operand has a size known only at run time)."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        if _generic(attrs, arg_types[0]):
            d = attr_dict(attrs)
            strides = tuple(int(s) for s in d["stride"])
            limits = tuple(_limit(o, n, s) for o, n, s in zip(d["lo"], d["shape"], strides))
            a = arg_types[0]
            r = em.fresh()
            em.line(f"{r} = stablehlo.real_dynamic_slice {operands[0]}, {em.shape_value(tuple(d['lo']))}, "
                    f"{em.shape_value(limits)}, {em.shape_value(strides)} : ({a.mlir()}, "
                    f"{', '.join([f'tensor<{a.rank}xi64>'] * 3)}) -> {result_type.mlir()}")
            return r
        ranges = ", ".join(f"{a}:{b}" if s == 1 else f"{a}:{b}:{s}" for a, b, s in _limits(attrs))
        r = em.fresh()
        em.line(f"{r} = stablehlo.slice {operands[0]} [{ranges}] : ({arg_types[0].mlir()}) -> {result_type.mlir()}")
        return r


class StablehloInsertView(InsertViewFamily, StablehloOp):
    """At unit strides a stablehlo.dynamic_update_slice at the box's (constant) start;
    otherwise select(mask, pad(update), dest), pad spreading the update over the box
    (low = lo, interior = stride - 1), the mask a splat true padded the same way."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        dest, update = arg_types
        if _generic(attrs, dest, update):
            return self._generic(em, operands, dest, update, attr_dict(attrs))
        limits = _limits(attrs)
        if all(s == 1 for _, _, s in limits):
            starts = []
            for lo, _, _ in limits:
                c = em.fresh("c")
                em.line(f"{c} = stablehlo.constant dense<{lo}> : tensor<i64>")
                starts.append(c)
            r = em.fresh()
            em.line(f"{r} = stablehlo.dynamic_update_slice {operands[0]}, {operands[1]}, {', '.join(starts)} : "
                    f"({dest.mlir()}, {update.mlir()}, {', '.join(['tensor<i64>'] * dest.rank)}) -> {dest.mlir()}")
            return r
        low = [a for a, _, _ in limits]
        high = [int(n) - b for (_, b, _), n in zip(limits, dest.shape)]
        interior = [s - 1 for _, _, s in limits]
        pads = f"low = {low}, high = {high}, interior = {interior}"
        mask_t, whole_mask = update.with_dtype("i1"), dest.with_dtype("i1")
        ones, no, mask = em.fresh("cst"), em.fresh("cst"), em.fresh()
        em.line(f"{ones} = stablehlo.constant dense<true> : {mask_t.mlir()}")
        em.line(f"{no} = stablehlo.constant dense<false> : tensor<i1>")
        em.line(f"{mask} = stablehlo.pad {ones}, {no}, {pads} : ({mask_t.mlir()}, tensor<i1>) -> {whole_mask.mlir()}")
        zero = tensor_constant(em, 0, dest.dtype)
        padded = em.fresh()
        em.line(f"{padded} = stablehlo.pad {operands[1]}, {zero}, {pads} : "
                f"({update.mlir()}, tensor<{dest.dtype}>) -> {dest.mlir()}")
        r = em.fresh()
        em.line(f"{r} = stablehlo.select {mask}, {padded}, {operands[0]} : {whole_mask.mlir()}, {dest.mlir()}")
        return r

    @staticmethod
    def _generic(em, operands, dest: TensorType, update: TensorType, d: dict) -> str:
        """The same with the box's corner and extents as values: dynamic_update_slice at
        unit strides, else select(mask, dynamic_pad(update), dest)."""
        strides = [int(s) for s in d["stride"]]
        r = em.fresh()
        if all(s == 1 for s in strides):
            starts = [em.size(o) for o in d["lo"]]
            em.line(f"{r} = stablehlo.dynamic_update_slice {operands[0]}, {operands[1]}, {', '.join(starts)} : "
                    f"({dest.mlir()}, {update.mlir()}, {', '.join(['tensor<i64>'] * dest.rank)}) -> {dest.mlir()}")
            return r
        limits = [_limit(o, n, s) for o, n, s in zip(d["lo"], d["shape"], strides)]
        high = []
        for m, b in zip(dest.shape, limits):
            if is_dynamic(m) or is_dynamic(b):
                expr = SizeExpr.of(m) - SizeExpr.of(b)
                dynamic = frozenset().union(*(x.dynamic for x in (m, b) if isinstance(x, Size)))
                high.append(int(m) - int(b) if expr.is_constant else Size(int(m) - int(b), expr, dynamic))
            else:
                high.append(int(m) - int(b))
        vectors = ", ".join(em.shape_value(tuple(v)) for v in (d["lo"], high, [s - 1 for s in strides]))
        shapes = ", ".join([f"tensor<{dest.rank}xi64>"] * 3)
        mask_t, whole_mask = update.with_dtype("i1"), dest.with_dtype("i1")
        ones = splat(em, True, mask_t)
        no = tensor_constant(em, False, "i1")
        mask, padded = em.fresh(), em.fresh()
        em.line(f"{mask} = stablehlo.dynamic_pad {ones}, {no}, {vectors} : "
                f"({mask_t.mlir()}, tensor<i1>, {shapes}) -> {whole_mask.mlir()}")
        zero = tensor_constant(em, 0, dest.dtype)
        em.line(f"{padded} = stablehlo.dynamic_pad {operands[1]}, {zero}, {vectors} : "
                f"({update.mlir()}, tensor<{dest.dtype}>, {shapes}) -> {dest.mlir()}")
        em.line(f"{r} = stablehlo.select {mask}, {padded}, {operands[0]} : {whole_mask.mlir()}, {dest.mlir()}")
        return r
