"""The linalg sweep over hyperplanes (synth.synthesis.wavefront_emit's Wavefront), static or
shape-generic.

The array collapsed to one dim; an scf.for over d = a*i + j carrying it; on hyperplane d
the rows i that have a point in the range, i from max(l0, ceil((d - u1 + 1) / a)) to
min(u0 - 1, floor((d - l1) / a)), L of them (a number known at run time: the slices'
sizes are index values); each read a strided tensor.extract_slice (stride N1 - a) at
d + i_first * (N1 - a) + r0 * N1 + r1; the statement one linalg.generic over the L lanes
whose payload is its scalar ops in the original's order; a strided tensor.insert_slice at
the write's offset. Only the hyperplane's own points are read and written: no mask.
The loop is marked `synth.hyperplane = a` (a discardable attribute: the mlir-cpu backend
runs its hyperplanes by bands of rows, synth.backends.hyperplane_bands). Back to rows by
tensor.expand_shape where the shape is static, by a copy
(out[i][j] = flat[i * N1 + j]) where it is not: expanding one dynamic dim into two aborts
MLIR 22's expand-strided-metadata (an assertion), which the drop-in runs, and the shape
refinement of a specialized text leaves a tensor.reshape's result dynamic."""

from __future__ import annotations


def emit_linalg(em, operands, arg_types, d, reads: list) -> str:
    (l0, l1), (u0, u1), (w0, w1), a = d["lo"], d["hi"], d["w"], d["a"]
    t = arg_types[0].dtype
    full = arg_types[0].mlir()
    static = not em.generic
    n0_s, n1_s = arg_types[0].shape
    flat = f"tensor<{int(n0_s) * int(n1_s)}x{t}>" if static else f"tensor<?x{t}>"
    vec = f"tensor<?x{t}>"

    def line(rhs: str, hint: str = "v") -> str:
        name = em.fresh(hint)
        em.line(f"{name} = {rhs}")
        return name

    def const(v: int) -> str:
        return line(f"arith.constant {v} : index", "c")

    def size(x) -> str:
        return em.size(x) if em.generic else const(int(x))

    def ar(name: str, x: str, y: str) -> str:
        return line(f"arith.{name} {x}, {y} : index")
    c0, c1, ca = const(0), const(1), const(a)
    n0 = line(f"tensor.dim {operands[0]}, {c0} : {full}", "n")
    n1 = line(f"tensor.dim {operands[0]}, {c1} : {full}", "n")
    # a point (i, d - a*i) is at d + i*(N1 - a) in the flat array; the slices' stride is
    # at least 1 (where a >= N1 a hyperplane has at most one point, and the stride is moot)
    step = ar("subi", n1, ca)
    s = line(f"arith.maxsi {step}, {c1} : index", "stride")
    lo0, lo1, hi0, hi1 = (size(x) for x in (l0, l1, u0, u1))
    first = ar("addi", ar("muli", lo0, ca), lo1)
    last = ar("addi", ar("muli", ar("subi", hi0, c1), ca), hi1)
    # no hyperplane where either range is empty
    empty = line(f"arith.ori {line(f'arith.cmpi sle, {hi0}, {lo0} : index')}, "
                 f"{line(f'arith.cmpi sle, {hi1}, {lo1} : index')} : i1")
    last = line(f"arith.select {empty}, {first}, {last} : index")
    flats = [line(f"tensor.collapse_shape {operands[k]} [[0, 1]] : {full} into {flat}", "flat")
             for k in range(d["arrays"])]
    scalars = {k: line(f"tensor.extract {operands[k]}[] : tensor<{t}>", "s")
               for k in range(d["arrays"], len(operands))}
    shifts = [ar("addi", ar("muli", n1, const(r0)), const(r1)) for _, (r0, r1) in reads]
    wshift = ar("addi", ar("muli", n1, const(w0)), const(w1))
    hp, g, loop = em.fresh("d"), em.fresh("g"), em.fresh("sweep")
    em.line(f"{loop} = scf.for {hp} = {first} to {last} step {c1} iter_args({g} = {flats[0]}) -> ({flat}) {{")
    indent = em.indent
    em.indent = indent + "  "
    top = ar("subi", hp, ar("subi", hi1, c1))  # the rows of the hyperplane's points
    i_first = line(f"arith.maxsi {lo0}, {line(f'arith.ceildivsi {top}, {ca} : index')} : index", "first")
    below = ar("subi", hp, lo1)
    i_last = line(f"arith.minsi {ar('subi', hi0, c1)}, {line(f'arith.floordivsi {below}, {ca} : index')} : index",
                  "last")
    lanes = line(f"arith.maxsi {ar('addi', ar('subi', i_last, i_first), c1)}, {c0} : index", "lanes")
    start = ar("addi", hp, ar("muli", i_first, step))
    slices = []
    for (k, _), shift in zip(reads, shifts):
        slices.append(line(f"tensor.extract_slice {g if k == 0 else flats[k]}[{ar('addi', start, shift)}] "
                           f"[{lanes}] [{s}] : {flat} to {vec}", "x"))
    wo = ar("addi", start, wshift)
    e = line(f"tensor.empty({lanes}) : {vec}", "e")
    ids = ", ".join(["affine_map<(d0) -> (d0)>"] * (len(slices) + 1))
    new = em.fresh("new")
    em.line(f"{new} = linalg.generic {{indexing_maps = [{ids}], iterator_types = [\"parallel\"]}} "
            f"ins({', '.join(slices)} : {', '.join([vec] * len(slices))}) outs({e} : {vec}) {{")
    ins = [em.fresh("in") for _ in slices]
    em.line(f"^bb0({', '.join(f'{x}: {t}' for x in ins)}, {em.fresh('out')}: {t}):")
    em.indent = indent + "    "
    names = {r: ins[q] for q, r in enumerate(reads)}

    def value(tree) -> str:
        if tree[0] == "read":
            return names[(tree[1], tree[2])]
        if tree[0] == "scalar":
            return scalars[tree[1]]
        if tree[0] == "const":
            return line(f"arith.constant {tree[1]} : {tree[2]}", "k")
        return line(f"{tree[1]} {', '.join(value(k) for k in tree[2])} : {t}")
    em.line(f"linalg.yield {value(d['body'])} : {t}")
    em.indent = indent + "  "
    em.line(f"}} -> {vec}")
    g2 = line(f"tensor.insert_slice {new} into {g}[{wo}] [{lanes}] [{s}] : {vec} into {flat}", "g")
    em.line(f"scf.yield {g2} : {flat}")
    em.indent = indent
    # the mark names the sweep for the mlir-cpu backend's banding (synth-hyperplane-bands):
    # a discardable attribute, the loop's meaning unchanged
    em.line(f"}} {{synth.hyperplane = {a} : i64}}")
    if static:
        return line(f"tensor.expand_shape {loop} [[0, 1]] output_shape [{int(n0_s)}, {int(n1_s)}] : "
                    f"{flat} into {full}", "swept")
    e = line(f"tensor.empty({n0}, {n1}) : {full}", "e")
    back = em.fresh("swept")
    maps = "affine_map<(d0, d1) -> (d0, d1)>"
    em.line(f"{back} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [\"parallel\", \"parallel\"]}} "
            f"outs({e} : {full}) {{")
    em.line(f"^bb0({em.fresh('out')}: {t}):")
    em.indent = indent + "  "
    r, c = line("linalg.index 0 : index", "i"), line("linalg.index 1 : index", "j")
    x = line(f"tensor.extract {loop}[{ar('addi', ar('muli', r, n1), c)}] : {flat}", "x")
    em.line(f"linalg.yield {x} : {t}")
    em.indent = indent
    em.line(f"}} -> {full}")
    return back
