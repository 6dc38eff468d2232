"""The stablehlo sweep over hyperplanes at sizes known only at run time (a shape-generic
raise; synth.synthesis.wavefront_emit has the static one and the layout: the array
flattened, padded to P*s, viewed as P x s, each hyperplane's lanes a column segment).

Every extent is an i64 value computed from the arguments' dims and the loop bounds; the
reads are `dynamic_gather`s whose slice sizes (L x 1) are a value (dynamic_slice's are
static), the write a dynamic_update_slice, the shapes of reshapes and broadcasts values;
a text specialized at static shapes (synth.semantics.specialize) refines them all to the
static ops."""

from __future__ import annotations

from synth.synthesis.wavefront import SCALAR_OPS

I64 = "tensor<i64>"


def emit_stablehlo_generic(em, operands, arg_types, d, reads, wbase) -> str:
    """`reads`: [(array, (r0, r1))] in order; `wbase`: the write's offset (w0, w1)."""
    (l0, l1), (u0, u1), a = d["lo"], d["hi"], d["a"]
    t = arg_types[0].dtype
    full = arg_types[0].mlir()
    flat, grid, vec, col = (f"tensor<?x{t}>", f"tensor<?x?x{t}>", f"tensor<?x{t}>", f"tensor<?x1x{t}>")
    ivec, bvec = "tensor<?xi64>", "tensor<?xi1>"

    def line(rhs: str, hint: str = "v") -> str:
        name = em.fresh(hint)
        em.line(f"{name} = {rhs}")
        return name

    def const(v, ty: str = I64) -> str:
        return line(f"stablehlo.constant dense<{v}> : {ty}", "c")

    def op(name: str, x: str, y: str, ty: str = I64) -> str:
        return line(f"stablehlo.{name} {x}, {y} : {ty}")

    def shape(*xs: str) -> str:
        ones = [line(f"stablehlo.reshape {x} : ({I64}) -> tensor<1xi64>") for x in xs]
        if len(ones) == 1:
            return ones[0]
        return line(f"stablehlo.concatenate {', '.join(ones)}, dim = 0 : "
                    f"({', '.join(['tensor<1xi64>'] * len(ones))}) -> tensor<{len(ones)}xi64>", "shape")

    def spread(x: str, ty: str, lanes_shape: str, out: str) -> str:
        return line(f"stablehlo.dynamic_broadcast_in_dim {x}, {lanes_shape}, dims = [] : "
                    f"({ty}, tensor<1xi64>) -> {out}")
    n0, n1 = em.size(arg_types[0].shape[0]), em.size(arg_types[0].shape[1])
    lo0, lo1, hi0, hi1 = (em.size(x) for x in (l0, l1, u0, u1))
    one, ca = const(1), const(a)
    step = op("subtract", n1, ca)  # a point (i, d - a*i) is at d + i*(N1 - a) in the flat array
    # the grid's row length: at least 1 (where a >= N1 a hyperplane has one point at most)
    s = line(f"stablehlo.maximum {step}, {one} : {I64}", "stride")
    m = op("multiply", n0, n1)
    # lanes: the most points a hyperplane has, min(rows, (columns - 1) / a + 1), from its
    # first row on (static shapes once specialized); the grid keeps a row per lane past
    # the array, so that no lane's index is clamped
    lanes = line(f"stablehlo.minimum {op('subtract', hi0, lo0)}, "
                 f"{op('add', op('divide', op('subtract', op('subtract', hi1, lo1), one), ca), one)} : {I64}")
    lanes = line(f"stablehlo.maximum {lanes}, {const(0)} : {I64}", "lanes")
    rows = op("add", op("add", op("divide", op("add", m, op("subtract", s, one)), s), lanes), const(2))
    total = op("multiply", rows, s)
    first = op("add", op("multiply", lo0, ca), lo1)
    last = op("add", op("multiply", op("subtract", hi0, one), ca), hi1)
    empty = line(f"stablehlo.or {line(f'stablehlo.compare LE, {hi0}, {lo0} : ({I64}, {I64}) -> tensor<i1>')}, "
                 f"{line(f'stablehlo.compare LE, {hi1}, {lo1} : ({I64}, {I64}) -> tensor<i1>')} : tensor<i1>")
    zero_i = const(0)
    count = line(f"stablehlo.select {empty}, {zero_i}, {op('subtract', last, first)} : tensor<i1>, {I64}", "count")
    zero = const("0.000000e+00", f"tensor<{t}>")
    lane_shape = shape(lanes)
    grids = []
    for k in range(d["arrays"]):
        f = line(f"stablehlo.dynamic_reshape {operands[k]}, {shape(m)} : ({full}, tensor<1xi64>) -> {flat}")
        pad = spread(zero, f"tensor<{t}>", shape(op("subtract", total, m)), flat)
        p = line(f"stablehlo.concatenate {f}, {pad}, dim = 0 : ({flat}, {flat}) -> {flat}")
        grids.append(line(f"stablehlo.dynamic_reshape {p}, {shape(rows, s)} : ({flat}, tensor<2xi64>) -> {grid}",
                          "grid"))
    bases = [op("add", op("multiply", n1, const(r0)), const(r1)) for _, (r0, r1) in reads]
    wb = op("add", op("multiply", n1, const(wbase[0])), const(wbase[1]))
    ceil_shift = op("add", op("add", op("subtract", one, hi1), op("multiply", ca, hi1)), op("subtract", ca, one))
    sizes = shape(lanes, one)
    state = [(em.fresh("it"), zero_i, I64)] + [(em.fresh("g"), g, grid) for g in grids] + \
        [(em.fresh("s"), operands[k], f"tensor<{t}>") for k in range(d["arrays"], len(operands))]
    out = em.fresh("sweep")
    em.line(f"{out}:{len(state)} = stablehlo.while(" + ", ".join(f"{x} = {v}" for x, v, _ in state)
            + ") : " + ", ".join(ty for _, _, ty in state))
    em.line("cond {")
    c = em.fresh("p")
    em.line(f"  {c} = stablehlo.compare LT, {state[0][0]}, {count} : ({I64}, {I64}) -> tensor<i1>")
    em.line(f"  stablehlo.return {c} : tensor<i1>")
    em.line("} do {")
    indent = em.indent
    em.indent = indent + "  "
    it, gs = state[0][0], [x for x, _, _ in state[1:1 + len(grids)]]
    ss = [x for x, _, _ in state[1 + len(grids):]]
    hp = op("add", it, first)
    # the hyperplane's first row, max(l0, ceil((d - u1 + 1) / a)) (numerator made >= 0)
    i_first = line(f"stablehlo.maximum {op('subtract', op('divide', op('add', hp, ceil_shift), ca), hi1)}, "
                   f"{lo0} : {I64}", "first")
    start = op("add", hp, op("multiply", i_first, step))
    iota = line(f"stablehlo.dynamic_iota {lane_shape}, dim = 0 : (tensor<1xi64>) -> {ivec}")
    strided = op("multiply", iota, spread(s, I64, lane_shape, ivec), ivec)
    views = {}

    def take(k: int, base: str) -> tuple[str, str, str]:
        """The lanes at flat offsets d + i_first * s + base + p*s: a gather of one index
        per lane from the grid viewed flat (the proofs' gathers take one index per position along one dim);
        the (row, column) of the first, where the write's update goes."""
        b = op("add", start, base)
        row = op("divide", b, s)
        at = op("subtract", b, op("multiply", row, s))
        if k not in views:
            views[k] = line(f"stablehlo.dynamic_reshape {gs[k]}, {shape(total)} : ({grid}, tensor<1xi64>) -> {flat}")
        index = op("add", strided, spread(b, I64, lane_shape, ivec), ivec)
        index = line(f"stablehlo.dynamic_reshape {index}, {sizes} : ({ivec}, tensor<2xi64>) -> tensor<?x1xi64>")
        x = line(f'"stablehlo.gather"({views[k]}, {index}) {{dimension_numbers = #stablehlo.gather<'
                 f"offset_dims = [], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
                 f"indices_are_sorted = false, slice_sizes = array<i64: 1>}} : ({flat}, tensor<?x1xi64>) -> {vec}")
        return x, row, at
    names = {(k, r): take(k, b)[0] for (k, r), b in zip(reads, bases)}
    old, wrow, wcol = take(0, wb)

    def value(tree) -> str:
        if tree[0] == "read":
            return names[(tree[1], tree[2])]
        if tree[0] == "scalar":
            return spread(ss[tree[1] - d["arrays"]], f"tensor<{t}>", lane_shape, vec)
        if tree[0] == "const":
            return spread(const(tree[1], f"tensor<{t}>"), f"tensor<{t}>", lane_shape, vec)
        return line(f"{SCALAR_OPS[tree[1]]} {', '.join(value(k) for k in tree[2])} : {vec}")
    result = value(d["body"])

    def lanes_of(x: str) -> str:
        return spread(x, I64, lane_shape, ivec)
    i = op("add", iota, lanes_of(i_first), ivec)
    j = op("subtract", lanes_of(hp), op("multiply", i, lanes_of(ca), ivec), ivec)
    # a point where its j is in the range (below u1 from i >= the first row) and its row is
    ge = line(f"stablehlo.compare GE, {j}, {lanes_of(lo1)} : ({ivec}, {ivec}) -> {bvec}")
    lt = line(f"stablehlo.compare LT, {i}, {lanes_of(hi0)} : ({ivec}, {ivec}) -> {bvec}")
    new = line(f"stablehlo.select {line(f'stablehlo.and {ge}, {lt} : {bvec}')}, {result}, {old} : {bvec}, {vec}")
    upd = line(f"stablehlo.dynamic_reshape {new}, {sizes} : ({vec}, tensor<2xi64>) -> {col}")
    g2 = line(f"stablehlo.dynamic_update_slice {gs[0]}, {upd}, {wrow}, {wcol} : "
              f"({grid}, {col}, {I64}, {I64}) -> {grid}", "g")
    nxt = op("add", it, one)
    em.line(f"stablehlo.return {', '.join([nxt, g2, *gs[1:], *ss])} : " + ", ".join(ty for _, _, ty in state))
    em.indent = indent
    em.line("}")
    p = line(f"stablehlo.dynamic_reshape {out}#1, {shape(total)} : ({grid}, tensor<1xi64>) -> {flat}")
    f = line(f"stablehlo.real_dynamic_slice {p}, {shape(zero_i)}, {shape(m)}, {shape(one)} : "
             f"({flat}, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> {flat}")
    return line(f"stablehlo.dynamic_reshape {f}, {shape(n0, n1)} : ({flat}, tensor<2xi64>) -> {full}", "swept")
