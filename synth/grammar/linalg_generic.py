"""The linalg grammar's `linalg.generic` forms: what the named ops cannot say (a general
contraction, compare + select fused, index masks, scalar broadcasts, outer products,
edges, index ramps), each a generic with its indexing maps and scalar body."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

from synth.grammar.dims import has_dynamic, is_dynamic
from synth.grammar.op import Attrs, Emitter, NUMPY, attr_dict, attrs
from synth.grammar.shapes import (check_edge_attrs, dot_domain, dot_general, edge_domain,
                                  edge_index, edge_slices)
from synth.grammar.stablehlo_base import DIRECTIONS
from synth.grammar.types import FLOAT_DTYPES, NUMERIC_DTYPES, STORED_DTYPES, TensorType


from synth.grammar.linalg_base import LinalgOp, ins_clause, scalar_op
from synth.grammar.families import DotGeneralFamily, SelectEdgeFamily, IotaFamily


# --- linalg.generic forms ----------------------------------------------------------------------


def _affine_map(ndims: int, results) -> str:
    """`affine_map<(d0, ...) -> (...)>`: an int result k is the dim d<k>, a str is
    written as is (a constant index)."""
    dims = ", ".join(f"d{i}" for i in range(ndims))
    exprs = ", ".join(r if isinstance(r, str) else f"d{r}" for r in results)
    return f"affine_map<({dims}) -> ({exprs})>"


def emit_structured(em: Emitter, operands, arg_types, maps: list[str], iterators: list[str],
                    init: str, result_type: TensorType, body) -> str:
    """A `linalg.generic` with the given indexing maps (inputs, then the output) and
    iterator types, writing into `init`; `body(em, block_args, out_arg) -> ssa` emits
    the scalar code."""
    iters = ", ".join(f'"{t}"' for t in iterators)
    r = em.fresh()
    bargs = [em.fresh("b") for _ in operands]
    bout = em.fresh("o")
    ins = f"{ins_clause(operands, arg_types)} " if operands else ""
    em.line(f"{r} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iters}]}} "
            f"{ins}outs({init} : {result_type.mlir()}) {{")
    params = [f"{b}: {t.dtype}" for b, t in zip(bargs, arg_types)] + [f"{bout}: {result_type.dtype}"]
    em.line(f"^bb0({', '.join(params)}):")
    lines_before = len(em.lines)
    value = body(em, bargs, bout)
    em.lines[lines_before:] = ["  " + ln for ln in em.lines[lines_before:]]
    em.line(f"  linalg.yield {value} : {result_type.dtype}")
    em.line(f"}} -> {result_type.mlir()}")
    return r


def emit_generic(em: Emitter, operands, arg_types, in_dims: list[tuple], result_type: TensorType,
                 body) -> str:
    """A parallel `linalg.generic` over the result's index space into a `tensor.empty`:
    input i is read at `in_dims[i]` (result dims, or constant indices as str);
    `body(em, block_args) -> ssa` emits the scalar code."""
    n = result_type.rank
    maps = [_affine_map(n, d) for d in in_dims] + [_affine_map(n, tuple(range(n)))]
    return emit_structured(em, operands, arg_types, maps, ["parallel"] * n, em.empty(result_type),
                           result_type, lambda em, b, _out: body(em, b))


_CMPF = {"GT": "ogt", "GE": "oge", "LT": "olt", "LE": "ole", "EQ": "oeq", "NE": "une"}  # NE: true on NaN, as NumPy and stablehlo


class SelectCmp(LinalgOp):
    """linalg.generic: out = (a <direction> b) ? x : y, all four of one float type."""

    arity = 4
    attr_domain_kind = "comparison_direction"

    def _fits(self, arg_types) -> bool:
        return len(arg_types) == 4 and len(set(arg_types)) == 1 and arg_types[0].dtype in NUMERIC_DTYPES

    def attribute_domain(self, arg_types, ctx):
        return tuple(attrs(direction=d) for d in DIRECTIONS) if self._fits(arg_types) else ()

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if not self._fits(arg_types):
            raise self.shape_error("operands must have one identical numeric type", arg_types, attrs)
        return arg_types[0]

    def apply(self, sem, args, attrs):
        a, b, x, y = args
        return sem.select(sem.compare(attr_dict(attrs)["direction"], a, b), x, y)

    def emit(self, em, operands, arg_types, attrs, result_type):
        dt = result_type.dtype
        direction = attr_dict(attrs)["direction"]
        cmp = f"arith.cmpf {_CMPF[direction]}" if dt in FLOAT_DTYPES else f"arith.cmpi {_CMPI[direction]}"

        def body(em, b):
            p, s = em.fresh("p"), em.fresh("s")
            em.line(f"{p} = {cmp}, {b[0]}, {b[1]} : {dt}")
            em.line(f"{s} = arith.select {p}, {b[2]}, {b[3]} : {dt}")
            return s

        n = result_type.rank
        return emit_generic(em, operands, arg_types, [tuple(range(n))] * 4, result_type, body)


_CMPI = {"GT": "sgt", "GE": "sge", "LT": "slt", "LE": "sle", "EQ": "eq", "NE": "ne"}


class SelectIndex(LinalgOp):
    """linalg.generic: out = (index a <direction> index b) ? x : y.

    The mask of a non-rectangular iteration domain (j <= i, k > i ...) fused with its use:
    linalg has no iota, and i1 tensors cannot be lowered here (MemRefToLLVM asserts), so
    the index comparison lives inside the generic's body (linalg.index + arith.cmpi)."""

    arity = 2
    attr_domain_kind = "index_comparison"

    def _fits(self, arg_types) -> bool:
        return (len(arg_types) == 2 and arg_types[0] == arg_types[1] and arg_types[0].rank >= 2
                and arg_types[0].dtype in STORED_DTYPES)

    def attribute_domain(self, arg_types, ctx):
        if not self._fits(arg_types):
            return ()
        n = arg_types[0].rank
        return tuple(attrs(dims=(a, b), direction=d) for a, b in combinations(range(n), 2)
                     for d in DIRECTIONS)

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if not self._fits(arg_types):
            raise self.shape_error("needs two tensors of one numeric type, rank >= 2", arg_types, attrs)
        return arg_types[0]

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        x, y = args
        a, b = d["dims"]
        grid = np.indices(np.shape(x))
        return sem.select(NUMPY.compare(d["direction"], grid[a], grid[b]), x, y)

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        dt = result_type.dtype

        def body(em, blk):
            ia, ib, p, s = em.fresh("i"), em.fresh("i"), em.fresh("p"), em.fresh("s")
            em.line(f"{ia} = linalg.index {d['dims'][0]} : index")
            em.line(f"{ib} = linalg.index {d['dims'][1]} : index")
            em.line(f"{p} = arith.cmpi {_CMPI[d['direction']]}, {ia}, {ib} : index")
            em.line(f"{s} = arith.select {p}, {blk[0]}, {blk[1]} : {dt}")
            return s

        n = result_type.rank
        return emit_generic(em, operands, arg_types, [tuple(range(n))] * 2, result_type, body)


class ScalarBinary(LinalgOp):
    """linalg.generic: s <fn> x for a rank-0 s and a tensor x of rank >= 1."""

    arity = 2
    attr_domain_kind = "none"

    def __init__(self, name: str, fn: str):
        super().__init__(name)
        self.fn = fn

    def _fits(self, arg_types) -> bool:
        return (len(arg_types) == 2 and arg_types[0].rank == 0 and arg_types[1].rank >= 1
                and arg_types[0].dtype == arg_types[1].dtype and arg_types[0].dtype in NUMERIC_DTYPES)

    def attribute_domain(self, arg_types, ctx):
        return ((),) if self._fits(arg_types) else ()

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if not self._fits(arg_types):
            raise self.shape_error("needs a rank-0 tensor and a tensor of its type", arg_types)
        return arg_types[1]

    def apply(self, sem, args, attrs):
        return getattr(sem, self.fn)(args[0], args[1])

    def emit(self, em, operands, arg_types, attrs, result_type):
        dt = result_type.dtype

        def body(em, b):
            s = em.fresh("s")
            em.line(f"{s} = {scalar_op(self.fn, dt)} {b[0]}, {b[1]} : {dt}")
            return s

        n = result_type.rank
        return emit_generic(em, operands, arg_types, [(), tuple(range(n))], result_type, body)


class Outer(LinalgOp):
    """linalg.generic: out[i, j] = u[i] * v[j]."""

    arity = 2
    attr_domain_kind = "none"
    ATTRS = attrs(lhs_batch=(), rhs_batch=(), lhs_contract=(), rhs_contract=())  # as dot_general

    def _fits(self, arg_types) -> bool:
        return (len(arg_types) == 2 and arg_types[0].rank == 1 and arg_types[1].rank == 1
                and arg_types[0].dtype == arg_types[1].dtype and arg_types[0].dtype in NUMERIC_DTYPES)

    def attribute_domain(self, arg_types, ctx):
        return ((),) if self._fits(arg_types) else ()

    def result_type(self, arg_types, attrs):
        self.check_arity(arg_types)
        if not self._fits(arg_types):
            raise self.shape_error("needs two vectors of one element type", arg_types)
        return TensorType((arg_types[0].shape[0], arg_types[1].shape[0]), arg_types[0].dtype)

    def apply(self, sem, args, attrs):
        return dot_general(sem, args[0], args[1], (), (), (), ())

    def emit(self, em, operands, arg_types, attrs, result_type):
        dt = result_type.dtype

        def body(em, b):
            s = em.fresh("s")
            em.line(f"{s} = {scalar_op('mul', dt)} {b[0]}, {b[1]} : {dt}")
            return s

        return emit_generic(em, operands, arg_types, [(0,), (1,)], result_type, body)


class DotGeneral(DotGeneralFamily, LinalgOp):
    """linalg.generic contraction with stablehlo.dot_general's dims (at most one batch
    pair, at most one contracting pair; result dims: batch, lhs free, rhs free):
    loops d0..d(n-1) over the result, d(n) over the contracted dim ("reduction");
    body out + a * b (arith.mulf, arith.addf) over a zero-filled init.

    The forms a named grammar op computes (`covered`: matmul, matvec, vecmat,
    batch_matmul, dot, outer, given as (lhs rank, rhs rank, attrs)) and products with a
    rank-0 operand (scalar_mul) are left out of the domain: the search would only find
    the same value twice. Its weight (2, in the JSON spec) is that of a transpose + a
    named contraction: the search tries the named ops first, which keeps searches that
    need no general contraction (gemm, mvt, atax) as fast as without it."""

    def __init__(self, name: str, covered: frozenset = frozenset()):
        super().__init__(name)
        self.covered = covered

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 2:
            return ()
        return _dot_generic_domain(tuple(arg_types), self.covered)

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a, b = arg_types
        lb, rb, lc, rc = d["lhs_batch"], d["rhs_batch"], d["lhs_contract"], d["rhs_contract"]
        n = result_type.rank
        lhs_free = [k for k in range(a.rank) if k not in lb + lc]
        rhs_free = [k for k in range(b.rank) if k not in rb + rc]

        def operand_map(rank, batch, contract, free, first_free):
            loops = {k: 0 for k in batch} | {k: n for k in contract}
            loops |= {k: first_free + i for i, k in enumerate(free)}
            return tuple(loops[k] for k in range(rank))

        nloops = n + len(lc)
        maps = [_affine_map(nloops, operand_map(a.rank, lb, lc, lhs_free, len(lb))),
                _affine_map(nloops, operand_map(b.rank, rb, rc, rhs_free, len(lb) + len(lhs_free))),
                _affine_map(nloops, tuple(range(n)))]
        iterators = ["parallel"] * n + ["reduction"] * len(lc)
        dt = result_type.dtype

        def body(em, bargs, out):
            m, s = em.fresh("m"), em.fresh("s")
            em.line(f"{m} = {scalar_op('mul', dt)} {bargs[0]}, {bargs[1]} : {dt}")
            em.line(f"{s} = {scalar_op('add', dt)} {out}, {m} : {dt}")
            return s

        return emit_structured(em, operands, arg_types, maps, iterators,
                               em.filled(result_type, 0.0), result_type, body)


def _swapped(a: Attrs) -> Attrs:
    d = attr_dict(a)
    return attrs(lhs_batch=d["rhs_batch"], rhs_batch=d["lhs_batch"],
                 lhs_contract=d["rhs_contract"], rhs_contract=d["lhs_contract"])


@lru_cache(maxsize=4096)
def _dot_generic_domain(arg_types, covered: frozenset) -> tuple[Attrs, ...]:
    """dot_domain less the values other grammar ops give: a rank-0 operand (scalar_mul,
    mul), a `covered` form, or a covered form with the operands swapped when one
    operand has no free dims (then the swap gives the same value)."""
    a, b = arg_types
    if a.rank == 0 or b.rank == 0:
        return ()
    out = []
    for x in dot_domain(arg_types, NUMERIC_DTYPES):
        d = attr_dict(x)
        no_free = (len(d["lhs_batch"] + d["lhs_contract"]) == a.rank
                   or len(d["rhs_batch"] + d["rhs_contract"]) == b.rank)
        if (a.rank, b.rank, x) in covered or (no_free and (b.rank, a.rank, _swapped(x)) in covered):
            continue
        out.append(x)
    return tuple(out)


class SliceEdge(LinalgOp):
    """linalg.generic taking the first or the last index along `dims` and every index
    along the other dims, dropping `dims` (rank-reducing, unlike stablehlo.slice_edge):
    the input map has constant results, e.g. `affine_map<(d0) -> (4, 5, d0)>`. The
    position is symbolic; the index (0 or size - 1) is computed from the operand shape
    when applied or emitted."""

    arity = 1
    attr_domain_kind = "slice_edge"

    def attribute_domain(self, arg_types, ctx):
        if len(arg_types) != 1 or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        return edge_domain(arg_types[0].shape)

    def result_type(self, arg_types, attrs):
        dims, _ = check_edge_attrs(self, arg_types, attrs)
        a = arg_types[0]
        if a.dtype not in STORED_DTYPES:
            raise self.shape_error("needs a numeric tensor", arg_types, attrs)
        return a.with_shape(tuple(s for k, s in enumerate(a.shape) if k not in dims))

    def apply(self, sem, args, attrs):
        d = attr_dict(attrs)
        a = np.asarray(args[0])
        return np.array(a[edge_slices(a.shape, d["dims"], d["position"], keep_dims=False)])

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        a = arg_types[0]
        if has_dynamic(a):  # the edge index may be a size value: a rank-reducing slice
            at = {k: edge_index(a.shape[k], d["position"]) for k in d["dims"]}
            return _edge_slice(em, operands[0], a, at, result_type)
        read, loop = [], 0
        for k, size in enumerate(a.shape):
            if k in d["dims"]:
                read.append(str(edge_index(size, d["position"])))
            else:
                read.append(loop)
                loop += 1
        return emit_generic(em, operands, arg_types, [tuple(read)], result_type,
                            lambda em, b: b[0])


class Iota(IotaFamily, LinalgOp):
    """linalg.generic: out = the index along `dim` (linalg.index, then arith.index_cast and
    arith.sitofp to the element type) over a shape of interest; stablehlo.iota's twin."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        dt = result_type.dtype

        def body(em, _b):
            i, c = em.fresh("i"), em.fresh("c")
            em.line(f"{i} = linalg.index {d['dim']} : index")
            if dt in FLOAT_DTYPES:
                k = em.fresh("k")
                em.line(f"{k} = arith.index_cast {i} : index to i64")
                em.line(f"{c} = arith.sitofp {k} : i64 to {dt}")
            else:
                em.line(f"{c} = arith.index_cast {i} : index to {dt}")
            return c

        return emit_generic(em, [], [], [], result_type, body)


class SelectEdge(SelectEdgeFamily, LinalgOp):
    """out = x where every dim in `dims` is at its edge index, y elsewhere: the edge of x
    (a linalg.generic over the edge alone, reading x at the edge index: a constant in its
    indexing map) inserted into y (tensor.insert_slice). Only the edge is computed and
    written; y's buffer is updated in place (a time loop's iter_arg stays its own buffer).
    A select over the whole of y (linalg.index compared with the edge in the body) wrote
    every element: fdtd-2d's row 0 of ey, one core, LARGE: 0.97 -> 0.92 s side by side."""

    def emit(self, em, operands, arg_types, attrs, result_type):
        d = attr_dict(attrs)
        t = result_type
        at = {k: edge_index(t.shape[k], d["position"]) for k in d["dims"]}
        edge_t = t.with_shape(tuple(1 if k in at else n for k, n in enumerate(t.shape)))
        if has_dynamic(t):  # the edge of x as a slice (its index may be a size value)
            edge = _edge_slice(em, operands[0], t, at, edge_t)
            r = em.fresh()
            em.line(f"{r} = tensor.insert_slice {edge} into {operands[1]}{_edge_operands(em, t, at)} : "
                    f"{edge_t.mlir()} into {t.mlir()}")
            return r
        read = tuple(str(at[k]) if k in at else k for k in range(t.rank))
        edge = emit_generic(em, operands[:1], arg_types[:1], [read], edge_t, lambda em, b: b[0])
        offsets = ", ".join(str(at.get(k, 0)) for k in range(t.rank))
        sizes = ", ".join(str(int(n)) for n in edge_t.shape)
        r = em.fresh()
        em.line(f"{r} = tensor.insert_slice {edge} into {operands[1]}[{offsets}] [{sizes}] "
                f"[{', '.join('1' for _ in t.shape)}] : {edge_t.mlir()} into {t.mlir()}")
        return r


def _edge_operands(em: Emitter, t: TensorType, at: dict) -> str:
    """`[offsets] [sizes] [strides]` of the slice of `t` at index at[k] along each dim k of
    `at` (extent 1), whole along the others; dynamic values as SSA (a generic body)."""
    def text(v):
        return em.size(v) if is_dynamic(v) else str(int(v))
    offsets = ", ".join(text(at[k]) if k in at else "0" for k in range(t.rank))
    sizes = ", ".join("1" if k in at else text(n) for k, n in enumerate(t.shape))
    return f"[{offsets}] [{sizes}] [{', '.join('1' for _ in t.shape)}]"


def _edge_slice(em: Emitter, x: str, t: TensorType, at: dict, result_type: TensorType) -> str:
    """tensor.extract_slice of `x` (of type t) at the edge `at`, to `result_type` (the
    unit dims kept or dropped: extract_slice reduces the rank to the result's)."""
    r = em.fresh()
    em.line(f"{r} = tensor.extract_slice {x}{_edge_operands(em, t, at)} : {t.mlir()} to {result_type.mlir()}")
    return r
