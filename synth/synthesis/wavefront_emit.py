"""The op a loop over hyperplanes is (synth.synthesis.wavefront): its shape rule, NumPy
semantics and its emitters in linalg and stablehlo.

`Wavefront` (operands: the written array, the other arrays the statement reads, of the
same shape, then its scalars as rank-0 tensors; attributes a, lo, hi, w, arrays, body:
synth.synthesis.wavefront) is the whole sweep. Emitted:

  linalg:    the array collapsed to one dim; scf.for over d, the array an iter_arg; per
             read a strided tensor.extract_slice (stride N1 - a, one lane per i), the
             statement a linalg.generic over the lanes (its payload the statement's scalar
             ops in order, then a select of the old value where the lane's j is outside the
             range), inserted back with a strided tensor.insert_slice; expanded back.
  stablehlo: the array flattened, padded to P*s elements and reshaped to P x s (s = N1 - a):
             a strided line of the flat array is then a column segment, so each read is a
             stablehlo.dynamic_slice of L x 1 at (base / s, base mod s) (never clamped: P
             leaves a row after the last), the statement elementwise ops on vectors in the
             original order, the write a dynamic_update_slice; a stablehlo.while over d.

Shape-generic too: linalg's sizes as index values (`_emit_linalg_generic`), stablehlo's in
synth.synthesis.wavefront_stablehlo.
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
        if em.generic and self.dialect == "linalg":
            return _emit_linalg_generic(em, operands, arg_types, d)
        if em.generic:
            from synth.synthesis.wavefront_stablehlo import emit_stablehlo_generic

            return emit_stablehlo_generic(em, operands, arg_types, d, _reads(d["body"]), d["w"])
        if u0 <= l0 or u1 <= l1:  # nothing to compute at these sizes
            return operands[0]
        if n1 - d["a"] <= 0:
            raise self.shape_error(f"rows of {n1} elements are too short for the hyperplane a*i + j with a = {d['a']}",
                                   arg_types, attrs)
        if self.dialect == "linalg":
            return _emit_linalg(em, operands, arg_types, d)
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
    """(n0, n1, s, L, first d, count of d, T, reads: [(array, flat offset at d = 0)], the
    write's flat offset at d = 0)."""
    (l0, l1), (u0, u1), (w0, w1), a = d["lo"], d["hi"], d["w"], d["a"]
    n0, n1 = (int(x) for x in arg_types[0].shape)
    s = n1 - a
    reads = []

    def collect(t):
        if t[0] == "read" and (t[1], t[2]) not in [(k, r) for k, r, _ in reads]:
            reads.append((t[1], t[2], l0 * s + t[2][0] * n1 + t[2][1]))
        elif t[0] == "op":
            for k in t[2]:
                collect(k)
    collect(d["body"])
    first = a * int(l0) + int(l1)
    count = a * (int(u0) - 1) + int(u1) - first
    return n0, n1, s, int(u0) - int(l0), first, count, arg_types[0].dtype, reads, l0 * s + w0 * n1 + w1


def _emit_linalg(em, operands, arg_types, d) -> str:
    n0, n1, s, lanes, first, count, t, reads, wbase = _plan(arg_types, d)
    m = n0 * n1
    flat, vec = f"tensor<{m}x{t}>", f"tensor<{lanes}x{t}>"
    full = arg_types[0].mlir()
    flats = []
    for k in range(d["arrays"]):
        f = em.fresh("flat")
        em.line(f"{f} = tensor.collapse_shape {operands[k]} [[0, 1]] : {full} into {flat}")
        flats.append(f)
    scalars = {}
    for k in range(d["arrays"], len(operands)):
        v = em.fresh("s")
        em.line(f"{v} = tensor.extract {operands[k]}[] : tensor<{t}>")
        scalars[k] = v
    lo, hi, one, hp, g, loop = (em.fresh(x) for x in ("c", "c", "c", "d", "g", "sweep"))
    em.line(f"{lo} = arith.constant {first} : index")
    em.line(f"{hi} = arith.constant {first + count} : index")
    em.line(f"{one} = arith.constant 1 : index")
    em.line(f"{loop} = scf.for {hp} = {lo} to {hi} step {one} iter_args({g} = {flats[0]}) -> ({flat}) {{")
    indent = em.indent
    em.indent = indent + "  "

    def at(offset: int) -> str:
        c, o = em.fresh("c"), em.fresh("o")
        em.line(f"{c} = arith.constant {offset} : index")
        em.line(f"{o} = arith.addi {hp}, {c} : index")
        return o
    slices = []
    for k, _, base in reads + [(0, None, wbase)]:
        x = em.fresh("x")
        em.line(f"{x} = tensor.extract_slice {g if k == 0 else flats[k]}[{at(base)}] [{lanes}] [{s}] : "
                f"{flat} to {vec}")
        slices.append(x)
    e, new, wo = em.fresh("e"), em.fresh("new"), at(wbase)
    em.line(f"{e} = tensor.empty() : {vec}")
    ids = ", ".join(["affine_map<(d0) -> (d0)>"] * (len(slices) + 1))
    em.line(f"{new} = linalg.generic {{indexing_maps = [{ids}], iterator_types = [\"parallel\"]}} "
            f"ins({', '.join(slices)} : {', '.join([vec] * len(slices))}) outs({e} : {vec}) {{")
    ins = [em.fresh("in") for _ in slices]
    em.line(f"^bb0({', '.join(f'{x}: {t}' for x in ins)}, {em.fresh('out')}: {t}):")
    em.indent = indent + "    "
    names = {(k, r): ins[q] for q, (k, r, _) in enumerate(reads)}

    def value(tree) -> str:
        if tree[0] == "read":
            return names[(tree[1], tree[2])]
        if tree[0] == "scalar":
            return scalars[tree[1]]
        v = em.fresh("v")
        if tree[0] == "const":
            em.line(f"{v} = arith.constant {tree[1]} : {tree[2]}")
            return v
        em.line(f"{v} = {tree[1]} {', '.join(value(k) for k in tree[2])} : {t}")
        return v
    result = value(d["body"])
    (l0, l1), (u0, u1), a = d["lo"], d["hi"], d["a"]
    p, i, ai, j, c0, ca, c1, c2, ge, lt, ok, out = (em.fresh(x) for x in (
        "p", "i", "ai", "j", "c", "c", "c", "c", "ge", "lt", "ok", "r"))
    em.line(f"{p} = linalg.index 0 : index")
    em.line(f"{c0} = arith.constant {int(l0)} : index")
    em.line(f"{ca} = arith.constant {a} : index")
    em.line(f"{c1} = arith.constant {int(l1)} : index")
    em.line(f"{c2} = arith.constant {int(u1)} : index")
    em.line(f"{i} = arith.addi {p}, {c0} : index")
    em.line(f"{ai} = arith.muli {i}, {ca} : index")
    em.line(f"{j} = arith.subi {hp}, {ai} : index")
    em.line(f"{ge} = arith.cmpi sge, {j}, {c1} : index")
    em.line(f"{lt} = arith.cmpi slt, {j}, {c2} : index")
    em.line(f"{ok} = arith.andi {ge}, {lt} : i1")
    em.line(f"{out} = arith.select {ok}, {result}, {ins[-1]} : {t}")
    em.line(f"linalg.yield {out} : {t}")
    em.indent = indent + "  "
    em.line(f"}} -> {vec}")
    g2 = em.fresh("g")
    em.line(f"{g2} = tensor.insert_slice {new} into {g}[{wo}] [{lanes}] [{s}] : {vec} into {flat}")
    em.line(f"scf.yield {g2} : {flat}")
    em.indent = indent
    em.line("}")
    back = em.fresh("swept")
    em.line(f"{back} = tensor.expand_shape {loop} [[0, 1]] output_shape [{n0}, {n1}] : {flat} into {full}")
    return back


def _emit_stablehlo(em, operands, arg_types, d) -> str:
    from synth.grammar.stablehlo_loops import while_loop

    n0, n1, s, lanes, first, count, t, reads, wbase = _plan(arg_types, d)
    m = n0 * n1
    rows = -(-m // s) + 1
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

        def take(k: int, base: int) -> tuple[str, str, str]:
            b = line(f"stablehlo.add {hp}, {const(base, i64)} : {i64}")
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
        i = line(f"stablehlo.add {iota}, {const(int(l0), ivec)} : {ivec}")
        ai = line(f"stablehlo.multiply {i}, {const(a, ivec)} : {ivec}")
        hb = line(f"stablehlo.broadcast_in_dim {hp}, dims = [] : ({i64}) -> {ivec}")
        j = line(f"stablehlo.subtract {hb}, {ai} : {ivec}")
        ge = line(f"stablehlo.compare GE, {j}, {const(int(l1), ivec)} : ({ivec}, {ivec}) -> {bvec}")
        lt = line(f"stablehlo.compare LT, {j}, {const(int(u1), ivec)} : ({ivec}, {ivec}) -> {bvec}")
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


def _payload(em, d, t: str, names: dict, scalars: dict, result_of) -> str:
    """The statement's scalar ops in order inside a linalg.generic payload; its value."""
    def value(tree) -> str:
        if tree[0] == "read":
            return names[(tree[1], tree[2])]
        if tree[0] == "scalar":
            return scalars[tree[1]]
        v = em.fresh("v")
        if tree[0] == "const":
            em.line(f"{v} = arith.constant {tree[1]} : {tree[2]}")
            return v
        em.line(f"{v} = {tree[1]} {', '.join(value(k) for k in tree[2])} : {t}")
        return v
    return value(d["body"])


def _emit_linalg_generic(em, operands, arg_types, d) -> str:
    """The linalg sweep at sizes known at run time: every extent, stride and offset an
    index value computed from the arguments' dims and the loop bounds (synth.grammar.dims)."""
    (l0, l1), (u0, u1), (w0, w1), a = d["lo"], d["hi"], d["w"], d["a"]
    t = arg_types[0].dtype
    full = arg_types[0].mlir()
    flat, vec = f"tensor<?x{t}>", f"tensor<?x{t}>"

    def line(rhs: str, hint: str = "v") -> str:
        name = em.fresh(hint)
        em.line(f"{name} = {rhs}")
        return name

    def const(v: int) -> str:
        return line(f"arith.constant {v} : index", "c")

    def plus(x: str, y: str) -> str:
        return line(f"arith.addi {x}, {y} : index")

    def times(x: str, y: str) -> str:
        return line(f"arith.muli {x}, {y} : index")
    c0, c1 = const(0), const(1)
    n0 = line(f"tensor.dim {operands[0]}, {c0} : {full}", "n")
    n1 = line(f"tensor.dim {operands[0]}, {c1} : {full}", "n")
    ca = const(a)
    s = line(f"arith.subi {n1}, {ca} : index", "stride")
    lo0, lo1, hi0, hi1 = (em.size(x) for x in (l0, l1, u0, u1))
    lanes = line(f"arith.subi {hi0}, {lo0} : index", "lanes")
    first = plus(times(lo0, ca), lo1)
    last = plus(times(line(f"arith.subi {hi0}, {c1} : index"), ca), hi1)
    # no hyperplane where either range is empty (the slices would leave the array)
    empty = line(f"arith.ori {line(f'arith.cmpi sle, {hi0}, {lo0} : index')}, "
                 f"{line(f'arith.cmpi sle, {hi1}, {lo1} : index')} : i1")
    last = line(f"arith.select {empty}, {first}, {last} : index")
    flats = []
    for k in range(d["arrays"]):
        flats.append(line(f"tensor.collapse_shape {operands[k]} [[0, 1]] : {full} into {flat}", "flat"))
    scalars = {k: line(f"tensor.extract {operands[k]}[] : tensor<{t}>", "s")
               for k in range(d["arrays"], len(operands))}
    reads = []

    def collect(tree):
        if tree[0] == "read" and (tree[1], tree[2]) not in [(k, r) for k, r in reads]:
            reads.append((tree[1], tree[2]))
        elif tree[0] == "op":
            for k in tree[2]:
                collect(k)
    collect(d["body"])
    start = times(lo0, s)

    def base(r0: int, r1: int) -> str:
        return plus(plus(start, times(n1, const(r0))), const(r1))
    bases = [base(*r) for _, r in reads] + [base(w0, w1)]
    hp, g, loop = em.fresh("d"), em.fresh("g"), em.fresh("sweep")
    em.line(f"{loop} = scf.for {hp} = {first} to {last} step {c1} iter_args({g} = {flats[0]}) -> ({flat}) {{")
    indent = em.indent
    em.indent = indent + "  "
    slices = []
    for (k, _), b in zip(reads + [(0, None)], bases):
        o = plus(hp, b)
        slices.append(line(f"tensor.extract_slice {g if k == 0 else flats[k]}[{o}] [{lanes}] [{s}] : "
                           f"{flat} to {vec}", "x"))
    wo = line(f"arith.addi {hp}, {bases[-1]} : index")
    e = line(f"tensor.empty({lanes}) : {vec}", "e")
    ids = ", ".join(["affine_map<(d0) -> (d0)>"] * (len(slices) + 1))
    new = em.fresh("new")
    em.line(f"{new} = linalg.generic {{indexing_maps = [{ids}], iterator_types = [\"parallel\"]}} "
            f"ins({', '.join(slices)} : {', '.join([vec] * len(slices))}) outs({e} : {vec}) {{")
    ins = [em.fresh("in") for _ in slices]
    em.line(f"^bb0({', '.join(f'{x}: {t}' for x in ins)}, {em.fresh('out')}: {t}):")
    em.indent = indent + "    "
    result = _payload(em, d, t, {r: ins[q] for q, r in enumerate(reads)}, scalars, None)
    p = line("linalg.index 0 : index", "p")
    j = line(f"arith.subi {hp}, {times(plus(p, lo0), ca)} : index", "j")
    ge = line(f"arith.cmpi sge, {j}, {lo1} : index", "ge")
    lt = line(f"arith.cmpi slt, {j}, {hi1} : index", "lt")
    ok = line(f"arith.andi {ge}, {lt} : i1", "ok")
    out = line(f"arith.select {ok}, {result}, {ins[-1]} : {t}", "r")
    em.line(f"linalg.yield {out} : {t}")
    em.indent = indent + "  "
    em.line(f"}} -> {vec}")
    g2 = line(f"tensor.insert_slice {new} into {g}[{wo}] [{lanes}] [{s}] : {vec} into {flat}", "g")
    em.line(f"scf.yield {g2} : {flat}")
    em.indent = indent
    em.line("}")
    # back to rows by a copy (out[i][j] = flat[i*N1 + j]), not tensor.expand_shape:
    # expanding one dynamic dim into two aborts MLIR 22's expand-strided-metadata (an
    # assertion), which the drop-in runs; nor tensor.reshape, whose result the shape
    # refinement of a specialized text leaves dynamic
    e = line(f"tensor.empty({n0}, {n1}) : {full}", "e")
    back = em.fresh("swept")
    maps = "affine_map<(d0, d1) -> (d0, d1)>"
    em.line(f"{back} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [\"parallel\", \"parallel\"]}} "
            f"outs({e} : {full}) {{")
    em.line(f"^bb0({em.fresh('out')}: {t}):")
    em.indent = indent + "  "
    r, c = line("linalg.index 0 : index", "i"), line("linalg.index 1 : index", "j")
    x = line(f"tensor.extract {loop}[{plus(times(r, n1), c)}] : {flat}", "x")
    em.line(f"linalg.yield {x} : {t}")
    em.indent = indent
    em.line(f"}} -> {full}")
    return back
