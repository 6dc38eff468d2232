"""The window op of both grammars: an array read at a sum of two loop indices.

`window(a; dim, shape=(m, w), offset=c, reverse=r)` replaces dim `dim` of `a` (extent N)
by two dims of extents m and w:

    out[..., p, q, ...] = a[..., p + q + c, ...]            (reverse false)
    out[..., p, q, ...] = a[..., p - q + c, ...]            (reverse true)

and 0 where that index lies outside [0, N). It is what a FIR filter's `x[n + k]` reads
over its (n, k) loops (a convolution's input windows; `in[i - j + c]` reversed),
and with the zeros what a correlation's `y[i + lag]` over `i < n - lag` reads (the bound
of the sum is the array's end). The extents m, w are attributes (Sizes: the program
re-instantiates at other sizes); the operand's extent N comes from its type.

Emitters: linalg.generic whose input indexing map is
`(.., p, q, ..) -> (.., p + q + c, ..)` where every index lies inside the array at these
sizes, else a generic over the result whose body reads `a` (tensor.extract) at the index
clamped into the dim, selected against 0 outside it; stablehlo.gather at an index tensor
built from iotas (clamped, then a select against 0 where the index can leave the array).
In a shape-generic body (sizes known at run time) the same, with the extents as values
(dims.py): the indexing map only where the window lies in the array at every size, else
the clamped form, whose bounds are the dim's extent read at run time; stablehlo's gather
is a dynamic_gather (its slice sizes a value) on dynamic_iotas.
The interpreter of raised programs (synth.semantics.interpreter) runs both forms, over
numbers or z3 terms: that is the semantics the proofs use. Only the sketch tactic
builds it (synth.synthesis.opset leaves it out of the search).
"""

from __future__ import annotations

import numpy as np

from synth.analysis.symbols import SizeExpr
from synth.grammar.dims import has_dynamic, is_dynamic
from synth.grammar.linalg_base import LinalgOp, clamped_index
from synth.grammar.op import attr_dict, attrs
from synth.grammar.stablehlo_base import (StablehloOp, broadcast_to, iota_op, plus, reshaped, splat,
                                          tensor_constant)
from synth.grammar.types import STORED_DTYPES, TensorType


def window_indices(m: int, w: int, offset: int, reverse: bool) -> np.ndarray:
    """The (m, w) array of indices read along the windowed dim."""
    p = np.arange(int(m)).reshape(-1, 1)
    q = np.arange(int(w)).reshape(1, -1)
    return p + (-q if reverse else q) + int(offset)


def window_inside(n: int, m: int, w: int, offset: int, reverse: bool) -> bool:
    """Whether every index of the window lies in [0, n) (no zeros at these sizes)."""
    lo, hi = (offset - int(w) + 1, int(m) - 1 + offset) if reverse else (offset, int(m) + int(w) - 2 + offset)
    return lo >= 0 and hi <= int(n) - 1


class WindowFamily:
    """See the module docstring. Attributes: dim, shape (m, w), offset, reverse."""

    arity = 1
    attr_domain_kind = "window"
    shape_generic = True  # extents known at run time: values computed in the body (dims.py)

    def attribute_domain(self, arg_types, ctx):
        """The windows of width 2 that cover each dim exactly (m + 1 = N), forwards and
        reversed, and one whose last row reaches past the end (zeros there). Only the
        conformance test enumerates them: the search never takes this op."""
        if len(arg_types) != 1 or arg_types[0].rank == 0 or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        a = arg_types[0]
        out = []
        for d, n in enumerate(a.shape):
            if int(n) < 2:
                continue
            for reverse in (False, True):
                out.append(attrs(dim=d, shape=(int(n) - 1, 2), offset=int(reverse), reverse=reverse))
            out.append(attrs(dim=d, shape=(int(n), 2), offset=0, reverse=False))
        return tuple(out)

    def result_type(self, arg_types, a):
        self.check_arity(arg_types)
        d = attr_dict(a)
        t = arg_types[0]
        if set(d) != {"dim", "shape", "offset", "reverse"} or not 0 <= d["dim"] < t.rank \
                or len(d["shape"]) != 2 or any(int(e) < 1 for e in d["shape"]):
            raise self.shape_error("needs dim (of a tensor of rank >= 1), shape (m, w) >= 1, offset "
                                   "and reverse", arg_types, a)
        k = d["dim"]
        return t.with_shape(tuple(t.shape[:k]) + tuple(d["shape"]) + tuple(t.shape[k + 1:]))

    def apply(self, sem, args, a):
        d = attr_dict(a)
        x = np.asarray(args[0])
        k, (m, w) = d["dim"], d["shape"]
        n = x.shape[k]
        index = window_indices(m, w, d["offset"], d["reverse"])
        inside = (index >= 0) & (index < n)
        taken = np.take(x, np.clip(index, 0, n - 1), axis=k)  # dims: .., m, w, ..
        shape = [1] * taken.ndim
        shape[k], shape[k + 1] = int(m), int(w)
        return np.where(inside.reshape(shape), taken, np.zeros((), x.dtype))

    def cost(self, arg_types, a, result_type):
        return 2 * result_type.size


def _index_expr(d: dict, p: str, q: str) -> str:
    """The affine expression of the index read, in the names of the result dims p, q."""
    c = d["offset"]
    return f"{p} {'-' if d['reverse'] else '+'} {q}" + (f" + {c}" if c > 0 else f" - {-c}" if c < 0 else "")


def inside_at_every_size(n, m, w, offset: int, reverse: bool) -> bool:
    """Whether a forward window lies in the array at every value of the sizes (its last
    index, m + w - 2 + offset, is n - 1 less a constant >= 0)."""
    if reverse or offset < 0:
        return False
    try:
        slack = SizeExpr.of(n) - 1 - (SizeExpr.of(m) + SizeExpr.of(w) - 2 + offset)
    except ValueError:
        return False
    return slack.is_constant and slack.const >= 0


def _inside(t: TensorType, result_type: TensorType, d: dict) -> bool:
    """Whether the window lies in its array: at these sizes, or at every size in a
    shape-generic body."""
    n, (m, w) = t.shape[d["dim"]], d["shape"]
    if has_dynamic(t) or has_dynamic(result_type):
        return inside_at_every_size(n, m, w, d["offset"], d["reverse"])
    return window_inside(int(n), m, w, d["offset"], d["reverse"])


def _filled(em, value, t: TensorType) -> str:
    """A tensor of type `t` (i64) whose every element is `value`, a dimension (its value
    computed at run time where it is a size known only then)."""
    if is_dynamic(value):
        return broadcast_to(em, em.size(value), TensorType((), "i64"), (), t)
    return splat(em, int(value), t)


class LinalgWindow(WindowFamily, LinalgOp):
    """linalg.generic: the index as an indexing map where every index lies in the array,
    else tensor.extract at the clamped index in the body, selected against 0. In a
    shape-generic body (sizes known at run time) only the first form, where the window
    lies in the array at every size (a FIR filter's x of nout + ntaps - 1 samples), else
    the clamped form with the dim's extent as a value."""

    def emit(self, em, operands, arg_types, a, result_type):
        d = attr_dict(a)
        t = arg_types[0]
        k = d["dim"]
        rank = result_type.rank
        names = [f"d{j}" for j in range(rank)]
        dims = ", ".join(names)
        parallel = ", ".join('"parallel"' for _ in range(rank))
        out, o = em.fresh(), em.fresh("o")
        if not _inside(t, result_type, d):
            return self._clamped(em, operands, t, d, result_type, names, dims, parallel, out, o)
        source = names[:k] + [_index_expr(d, names[k], names[k + 1])] + names[k + 2:]
        b = em.fresh("b")
        em.line(f"{out} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({', '.join(source)})>, "
                f"affine_map<({dims}) -> ({dims})>], iterator_types = [{parallel}]}} "
                f"ins({operands[0]} : {t.mlir()}) outs({em.empty(result_type)} : {result_type.mlir()}) {{\n"
                f"^bb0({b}: {t.dtype}, {o}: {t.dtype}):\n  linalg.yield {b} : {t.dtype}\n"
                f"}} -> {result_type.mlir()}")
        return out

    @staticmethod
    def _clamped(em, operands, t, d, result_type, names, dims, parallel, out, o) -> str:
        k = d["dim"]
        rank = result_type.rank
        n = t.shape[k]
        zero = em.scalar_constant(0, t.dtype)
        reverse = d["reverse"]
        at = [em.fresh("i") for _ in range(rank)]
        p, q, s, j, *clamp, v, r = (em.fresh() for _ in range(12))
        body = []
        if is_dynamic(d["offset"]):  # an offset that is a size (a causal FIR's taps - 1)
            c = em.fresh()
            body.append(f"{c} = arith.index_cast {em.size(d['offset'])} : index to i64")
        else:
            c = em.scalar_constant(int(d["offset"]), "i64")
        if is_dynamic(n):  # the extent read at run time (a shape-generic body)
            zero_i, one = em.scalar_constant(0, "i64"), em.scalar_constant(1, "i64")
            extent, last = em.fresh(), em.fresh()
            body += [f"{extent} = arith.index_cast {em.size(n)} : index to i64",
                     f"{last} = arith.subi {extent}, {one} : i64"]
        else:
            zero_i, last, extent = (em.scalar_constant(v, "i64") for v in (0, int(n) - 1, int(n)))
        body += [f"{at[x]} = linalg.index {x} : index" for x in range(rank)]
        body += [f"{p} = arith.index_cast {at[k]} : index to i64",
                 f"{q} = arith.index_cast {at[k + 1]} : index to i64",
                 f"{s} = arith.{'subi' if reverse else 'addi'} {p}, {q} : i64",
                 f"{j} = arith.addi {s}, {c} : i64"]
        lines, inside, index = clamped_index(j, zero_i, extent, last, clamp)
        body += lines
        source = ", ".join(at[:k] + [index] + at[k + 2:])
        body += [f"{v} = tensor.extract {operands[0]}[{source}] : {t.mlir()}",
                 f"{r} = arith.select {inside}, {v}, {zero} : {t.dtype}",
                 f"linalg.yield {r} : {t.dtype}"]
        em.line(f"{out} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], "
                f"iterator_types = [{parallel}]}} outs({em.empty(result_type)} : {result_type.mlir()}) {{\n"
                f"^bb0({o}: {t.dtype}):\n" + "\n".join(f"  {ln}" for ln in body) + f"\n}} -> {result_type.mlir()}")
        return out


class StablehloWindow(WindowFamily, StablehloOp):
    """stablehlo.gather at the index tensor iota(p) + iota(q) + c (or iota(p) - iota(q) +
    c), of shape (m, w, 1); clamped and selected against 0 where an index can
    lie outside the array at these sizes."""

    def emit(self, em, operands, arg_types, a, result_type):
        d = attr_dict(a)
        t = arg_types[0]
        k, (m, w) = d["dim"], d["shape"]
        it = TensorType((m, w), "i64")
        ps, qs = iota_op(em, 0, it), iota_op(em, 1, it)
        reverse = d["reverse"]
        s = em.fresh()
        em.line(f"{s} = stablehlo.{'subtract' if reverse else 'add'} {ps}, {qs} : {it.mlir()}")
        c = d["offset"]
        index = s
        if is_dynamic(c) or c:
            index = em.fresh()
            em.line(f"{index} = stablehlo.add {s}, {_filled(em, c, it)} : {it.mlir()}")
        n = t.shape[k]
        inside = _inside(t, result_type, d)
        mask_t = it.with_dtype("i1")
        if not inside:
            zero = splat(em, 0, it)
            last, extent = (_filled(em, e, it) for e in (plus(n, -1), n))
            ge, lt, ok, clamped = (em.fresh() for _ in range(4))
            em.line(f"{ge} = stablehlo.compare GE, {index}, {zero} : ({it.mlir()}, {it.mlir()}) -> {mask_t.mlir()}")
            em.line(f"{lt} = stablehlo.compare LT, {index}, {extent} : ({it.mlir()}, {it.mlir()}) -> {mask_t.mlir()}")
            em.line(f"{ok} = stablehlo.and {ge}, {lt} : {mask_t.mlir()}")
            em.line(f"{clamped} = stablehlo.clamp {zero}, {index}, {last} : {it.mlir()}")
            index = clamped
        column_t = TensorType((m, w, 1), "i64")
        column = reshaped(em, index, it, column_t)
        gathered = em.fresh()
        offsets = ", ".join(str(x if x < k else x + 1) for x in range(t.rank) if x != k)
        numbers = (f"#stablehlo.gather<offset_dims = [{offsets}], collapsed_slice_dims = [{k}], "
                   f"start_index_map = [{k}], index_vector_dim = 2>, indices_are_sorted = false")
        if has_dynamic(t) or has_dynamic(result_type):  # slice sizes as a value
            sizes = em.shape_value(tuple(1 if x == k else e for x, e in enumerate(t.shape)))
            em.line(f'{gathered} = "stablehlo.dynamic_gather"({operands[0]}, {column}, {sizes}) '
                    f"{{dimension_numbers = {numbers}}} : ({t.mlir()}, {column_t.mlir()}, "
                    f"tensor<{t.rank}xi64>) -> {result_type.mlir()}")
        else:
            sizes = ", ".join("1" if x == k else str(int(e)) for x, e in enumerate(t.shape))
            em.line(f'{gathered} = "stablehlo.gather"({operands[0]}, {column}) {{dimension_numbers = '
                    f"{numbers}, slice_sizes = array<i64: {sizes}>}} : ({t.mlir()}, {column_t.mlir()}) "
                    f"-> {result_type.mlir()}")
        if inside:
            return gathered
        predicate = result_type.with_dtype("i1")
        mask = broadcast_to(em, ok, mask_t, (k, k + 1), predicate)
        zeros = broadcast_to(em, tensor_constant(em, 0, t.dtype), TensorType((), t.dtype), (), result_type)
        r = em.fresh()
        em.line(f"{r} = stablehlo.select {mask}, {gathered}, {zeros} : {predicate.mlir()}, {result_type.mlir()}")
        return r
