"""The op a loop over hyperplanes is (synth.synthesis.wavefront): its shape rule, NumPy
semantics and its emitters in linalg and stablehlo.

`Wavefront` (operands: the written array, the other arrays the statement reads, of the
same shape, then its scalars as rank-0 tensors; attributes a, lo, hi, w, arrays, body:
synth.synthesis.wavefront) is the whole sweep. Emitted:

  linalg:    the array collapsed to one dim; scf.for over d, the array an iter_arg; per
             read a strided tensor.extract_slice (stride N1 - a, one lane per row that has
             a point on d), the statement a linalg.generic over the lanes (its payload the
             statement's scalar ops in order), inserted back with a strided
             tensor.insert_slice (synth.synthesis.wavefront_linalg).
  stablehlo: the array flattened, padded to P*s elements and reshaped to P x s (s = N1 - a):
             a strided line of the flat array is then a column segment, so each read is a
             stablehlo.dynamic_slice of L x 1 at (base / s, base mod s) (never clamped: P
             leaves a row after the last), the statement elementwise ops on vectors in the
             original order, the write a dynamic_update_slice; a stablehlo.while over d.

Shape-generic too: linalg's sizes are index values in either case, stablehlo's generic
form is synth.synthesis.wavefront_stablehlo. Static stablehlo has a fixed number of lanes
(static shapes: the most points a hyperplane has, min(rows, (columns - 1) // a + 1)) from
the hyperplane's first row on, the lanes past its last point keeping their old value (a
select); the generic one too, its lane count a value.
"""

from __future__ import annotations

import numpy as np

from synth.grammar.op import Op
from synth.grammar.types import TensorType
from synth.synthesis.wavefront import SCALAR_OPS

_NUMPY = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
          "arith.divf": np.divide, "arith.negf": np.negative, "arith.maximumf": np.maximum,
          "arith.minimumf": np.minimum, "math.sqrt": np.sqrt, "math.absf": np.abs, "math.exp": np.exp}


class Wavefront(Op):
    """A sweep in place over one array, computed hyperplane by hyperplane."""

    arity = -1

    def __init__(self, dialect: str):
        self.dialect = dialect
        self.name = self.mlir_name = f"{dialect}.wavefront"
        self.weight, self.commutative = 1, False

    def __reduce__(self):
        return (Wavefront, (self.dialect,))

    def result_type(self, arg_types, attrs) -> TensorType:
        d = dict(attrs)
        a = arg_types[0]
        if a.rank != 2 or any(t.shape != a.shape for t in arg_types[1:d["arrays"]]) or \
                any(t.rank != 0 for t in arg_types[d["arrays"]:]):
            raise self.shape_error("needs arrays of one rank-2 shape and rank-0 scalars", arg_types, attrs)
        return a

    def cost(self, arg_types, attrs, result_type) -> int:
        return 3 * result_type.size

    # NumPy semantics: hyperplane by hyperplane, as emitted ----------------------------------
    def apply(self, sem, args, attrs):
        d = dict(attrs)
        out = np.array(args[0])
        a, (l0, l1), (u0, u1), (w0, w1) = d["a"], d["lo"], d["hi"], d["w"]
        arrays = [out] + [np.asarray(x) for x in args[1:d["arrays"]]]
        scalars = {k: np.asarray(x) for k, x in enumerate(args) if k >= d["arrays"]}
        i = np.arange(l0, u0)
        for hp in range(a * l0 + l1, a * (u0 - 1) + u1) if u0 > l0 and u1 > l1 else ():
            j = hp - a * i
            ok = (j >= l1) & (j < u1)
            ii, jj = i[ok], j[ok]

            def value(t):
                if t[0] == "read":
                    return arrays[t[1]][ii + t[2][0], jj + t[2][1]]
                if t[0] == "scalar":
                    return scalars[t[1]]
                if t[0] == "const":
                    return np.asarray(float(t[1]), dtype=out.dtype)
                return _NUMPY[t[1]](*[value(k) for k in t[2]])
            out[ii + w0, jj + w1] = value(d["body"])
        return out

    # emitters ----------------------------------------------------------------------------
    def emit(self, em, operands, arg_types, attrs, result_type) -> str:
        d = dict(attrs)
        (l0, l1), (u0, u1) = d["lo"], d["hi"]
        n1 = int(arg_types[0].shape[1])
        if self.dialect == "linalg":
            from synth.synthesis.wavefront_linalg import emit_linalg

            return emit_linalg(em, operands, arg_types, d, _reads(d["body"]))
        if em.generic:
            from synth.synthesis.wavefront_stablehlo import emit_stablehlo_generic

            return emit_stablehlo_generic(em, operands, arg_types, d, _reads(d["body"]), d["w"])
        if u0 <= l0 or u1 <= l1:  # nothing to compute at these sizes
            return operands[0]
        if n1 - d["a"] <= 0:
            raise self.shape_error(f"rows of {n1} elements are too short for the hyperplane a*i + j with a = {d['a']}",
                                   arg_types, attrs)
        return _emit_stablehlo(em, operands, arg_types, d)


def _reads(body) -> list:
    """The statement's distinct reads (array, offsets), in order."""
    out = []

    def collect(t):
        if t[0] == "read" and (t[1], t[2]) not in out:
            out.append((t[1], t[2]))
        elif t[0] == "op":
            for k in t[2]:
                collect(k)
    collect(body)
    return out


def _plan(arg_types, d):
    """(n0, n1, s, L lanes, first d, count of d, T, reads: [(array, offsets, flat shift)], the
    write's flat shift): lane p of hyperplane d is row i_first(d) + p, at flat index
    d + i_first(d) * s + p * s + shift."""
    (l0, l1), (u0, u1), (w0, w1), a = d["lo"], d["hi"], d["w"], d["a"]
    n0, n1 = (int(x) for x in arg_types[0].shape)
    s = n1 - a
    reads = []

    def collect(t):
        if t[0] == "read" and (t[1], t[2]) not in [(k, r) for k, r, _ in reads]:
            reads.append((t[1], t[2], t[2][0] * n1 + t[2][1]))
        elif t[0] == "op":
            for k in t[2]:
                collect(k)
    collect(d["body"])
    first = a * int(l0) + int(l1)
    count = a * (int(u0) - 1) + int(u1) - first
    # the most points a hyperplane has: rows of the range, and one per a columns of it
    lanes = min(int(u0) - int(l0), (int(u1) - int(l1) - 1) // a + 1)
    return n0, n1, s, lanes, first, count, arg_types[0].dtype, reads, w0 * n1 + w1


def _emit_stablehlo(em, operands, arg_types, d) -> str:
    from synth.grammar.stablehlo_loops import while_loop

    n0, n1, s, lanes, first, count, t, reads, wbase = _plan(arg_types, d)
    m = n0 * n1
    rows = -(-m // s) + lanes + 2  # (lanes past the hyperplane's last row stay in the grid)
    full = arg_types[0].mlir()
    flat, padded, grid = f"tensor<{m}x{t}>", f"tensor<{rows * s}x{t}>", f"tensor<{rows}x{s}x{t}>"
    vec, col, i64, ivec, bvec = (f"tensor<{lanes}x{t}>", f"tensor<{lanes}x1x{t}>", "tensor<i64>",
                                 f"tensor<{lanes}xi64>", f"tensor<{lanes}xi1>")

    def line(rhs: str, hint: str = "v") -> str:
        name = em.fresh(hint)
        em.line(f"{name} = {rhs}")
        return name

    def const(value, ty: str) -> str:
        return line(f"stablehlo.constant dense<{value}> : {ty}", "c")
    grids = []
    zero = const("0.000000e+00", f"tensor<{t}>")
    for k in range(d["arrays"]):
        f = line(f"stablehlo.reshape {operands[k]} : ({full}) -> {flat}")
        p = line(f"stablehlo.pad {f}, {zero}, low = [0], high = [{rows * s - m}], interior = [0] : "
                 f"({flat}, tensor<{t}>) -> {padded}")
        grids.append(line(f"stablehlo.reshape {p} : ({padded}) -> {grid}", "grid"))
    state = [(em.fresh("it"), const(0, i64), i64)]
    state += [(em.fresh("g"), g, grid) for g in grids]
    state += [(em.fresh("s"), operands[k], f"tensor<{t}>") for k in range(d["arrays"], len(operands))]
    (l0, l1), (u0, u1), a = d["lo"], d["hi"], d["a"]

    def body(names: list[str]) -> list[str]:
        it, gs, ss = names[0], names[1:1 + len(grids)], names[1 + len(grids):]
        hp = line(f"stablehlo.add {it}, {const(first, i64)} : {i64}", "d")
        stride = const(s, i64)
        # the hyperplane's first row, max(l0, ceil((d - u1 + 1) / a)), its numerator made
        # non-negative (+ a*u1) for the truncating divide
        up = line(f"stablehlo.add {hp}, {const(1 - int(u1) + a * int(u1) + a - 1, i64)} : {i64}")
        i_first = line(f"stablehlo.subtract {line(f'stablehlo.divide {up}, {const(a, i64)} : {i64}')}, "
                       f"{const(int(u1), i64)} : {i64}")
        i_first = line(f"stablehlo.maximum {i_first}, {const(int(l0), i64)} : {i64}", "first")
        start = line(f"stablehlo.add {hp}, {line(f'stablehlo.multiply {i_first}, {stride} : {i64}')} : {i64}")

        def take(k: int, base: int) -> tuple[str, str, str]:
            b = line(f"stablehlo.add {start}, {const(base, i64)} : {i64}")
            row = line(f"stablehlo.divide {b}, {stride} : {i64}")
            col_at = line(f"stablehlo.subtract {b}, {line(f'stablehlo.multiply {row}, {stride} : {i64}')} : {i64}")
            x = line(f"stablehlo.dynamic_slice {gs[k]}, {row}, {col_at}, sizes = [{lanes}, 1] : "
                     f"({grid}, {i64}, {i64}) -> {col}")
            return line(f"stablehlo.reshape {x} : ({col}) -> {vec}"), row, col_at
        names_at = {(k, r): take(k, base)[0] for k, r, base in reads}
        old, wrow, wcol = take(0, wbase)

        def value(tree) -> str:
            if tree[0] == "read":
                return names_at[(tree[1], tree[2])]
            if tree[0] == "scalar":
                return line(f"stablehlo.broadcast_in_dim {ss[tree[1] - d['arrays']]}, dims = [] : "
                            f"(tensor<{t}>) -> {vec}")
            if tree[0] == "const":
                return const(tree[1], vec)
            kids = [value(k) for k in tree[2]]
            return line(f"{SCALAR_OPS[tree[1]]} {', '.join(kids)} : {vec}")
        result = value(d["body"])
        iota = line(f"stablehlo.iota dim = 0 : {ivec}")
        fb = line(f"stablehlo.broadcast_in_dim {i_first}, dims = [] : ({i64}) -> {ivec}")
        i = line(f"stablehlo.add {iota}, {fb} : {ivec}")
        ai = line(f"stablehlo.multiply {i}, {const(a, ivec)} : {ivec}")
        hb = line(f"stablehlo.broadcast_in_dim {hp}, dims = [] : ({i64}) -> {ivec}")
        j = line(f"stablehlo.subtract {hb}, {ai} : {ivec}")
        # a lane is a point where its j is in the range (j < u1 from i >= i_first) and its
        # row is
        ge = line(f"stablehlo.compare GE, {j}, {const(int(l1), ivec)} : ({ivec}, {ivec}) -> {bvec}")
        lt = line(f"stablehlo.compare LT, {i}, {const(int(u0), ivec)} : ({ivec}, {ivec}) -> {bvec}")
        ok = line(f"stablehlo.and {ge}, {lt} : {bvec}")
        new = line(f"stablehlo.select {ok}, {result}, {old} : {bvec}, {vec}")
        upd = line(f"stablehlo.reshape {new} : ({vec}) -> {col}")
        g2 = line(f"stablehlo.dynamic_update_slice {gs[0]}, {upd}, {wrow}, {wcol} : "
                  f"({grid}, {col}, {i64}, {i64}) -> {grid}", "g")
        nxt = line(f"stablehlo.add {it}, {const(1, i64)} : {i64}", "it")
        return [nxt, g2, *gs[1:], *ss]
    loop = while_loop(em, state, count, body)
    p = line(f"stablehlo.reshape {loop}#1 : ({grid}) -> {padded}")
    f = line(f"stablehlo.slice {p} [0:{m}] : ({padded}) -> {flat}")
    return line(f"stablehlo.reshape {f} : ({flat}) -> {full}", "swept")
