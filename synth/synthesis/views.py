"""A kernel raised over the parts of its arrays it reaches (synth.analysis.regions).

Where an array argument is reached only in part (a box with strides: the first n of lda
columns, half a vector, every other element), the problems of the kernel are posed over
the boxes (build_specification rewrites the stand-in kernel with each such argument
replaced by its box, and its examples are the boxes of the drawn arrays), so sketches and
search see the arrays as the loops do. `widen` turns the programs found back into
programs over the whole arguments: each box read is a `view` of its argument, each
array written gets its box back by `insert_view` into its previous value (the elements
outside the box are kept)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from synth.analysis.regions import Box, Views
from synth.analysis.symbols import SizeExpr, size
from synth.grammar.op import attrs, op_by_name
from synth.grammar.types import TensorType
from synth.synthesis.program import Expr


def _dim(e, values: Mapping[str, int]):
    return size(e, values) if isinstance(e, SizeExpr) else int(e)


def view_type(full: TensorType, box: Box, values: Mapping[str, int]) -> TensorType:
    return full.with_shape(tuple(_dim(e, values) for e in box.count))


def view_attrs(box: Box, values: Mapping[str, int]):
    return attrs(lo=tuple(_dim(e, values) for e in box.lo), shape=tuple(_dim(e, values) for e in box.count),
                 stride=tuple(box.stride))


def _take(array, box: Box, values: Mapping[str, int]) -> np.ndarray:
    b = box.at(values)
    index = tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(b.lo, b.count, b.stride))
    return np.ascontiguousarray(np.asarray(array)[index])


def in_views(state: list, views: Views, added: Mapping[int, tuple], values: Mapping[str, int]) -> list:
    """Kernel arguments (whole arrays at `values`) with each viewed argument its box, and
    the boxes of elements only read (`added`: new argument -> (its array, which of its
    extra boxes)) appended."""
    out = list(state)
    for k, box in views.main.items():
        out[k] = _take(state[k], box, values)
    for i in sorted(added):
        assert i == len(out), "the added arguments follow the kernel's"
        k, j = added[i]
        out.append(_take(state[k], views.extra[k][j], values))
    return out


def widen(programs: dict[int, Expr], views: Views, added: Mapping[int, tuple],
          full_types: Mapping[int, TensorType], values: Mapping[str, int], dialect: str) -> dict[int, Expr]:
    """Programs over the boxes -> programs over the whole arguments (`full_types`, at the
    stand-in `values`): a leaf of a box is a view of its array."""
    if not views:
        return programs
    view_op, insert_op = op_by_name(dialect, f"{dialect}.view"), op_by_name(dialect, f"{dialect}.insert_view")
    leaves: dict[int, Expr] = {}
    memo: dict[int, Expr] = {}

    def leaf(k: int) -> Expr:
        if k not in leaves:
            array = added[k][0] if k in added else k
            whole = Expr(full_types[array], leaf=array)
            a = view_attrs(views.extra[array][added[k][1]] if k in added else views.main[k], values)
            leaves[k] = Expr(view_op.result_type((whole.type,), a), view_op, a, (whole,))
        return leaves[k]

    def rebuild(e: Expr) -> Expr:
        if id(e) in memo:
            return memo[id(e)]
        if e.op is None:
            out = leaf(e.leaf) if e.leaf in views.main or e.leaf in added else e
        else:
            args = tuple(rebuild(a) for a in e.args)
            out = e if all(a is b for a, b in zip(args, e.args)) else \
                Expr(e.op.result_type(tuple(a.type for a in args), e.attrs), e.op, e.attrs, args)
        memo[id(e)] = out
        return out

    out = {}
    for k, p in programs.items():
        body = rebuild(p)
        if k in views.main:
            dest = Expr(full_types[k], leaf=k)
            a = view_attrs(views.main[k], values)
            body = Expr(insert_op.result_type((dest.type, body.type), a), insert_op, a, (dest, body))
        out[k] = body
    return out
