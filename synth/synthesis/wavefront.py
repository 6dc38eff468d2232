"""Loops that carry dependences along both dims, kept as a loop over hyperplanes.

A nest that updates one array in place (a Gauss-Seidel sweep: seidel-2d's 9-point average)

    for i in [l0, u0):
      for j in [l1, u1):
        A[i + w0][j + w1] = f(A[i + r0][j + r1] ..., B[i + q0][j + q1] ..., s, constants)

reads, along both loops, elements that earlier iterations wrote (new values) and elements
that later ones will write (old values): neither loop is parallel, and no loop-free tensor
program computes it. Its iterations are ordered by the hyperplanes d = a*i + j instead
(`hyperplane`): for every read of A, the iteration that writes the element it reads lies
on an earlier hyperplane where the original reads the new value (a flow dependence of
distance delta = w - r, lexicographically positive: a*delta0 + delta1 >= 1) and on a
later one where it reads the old value (an anti dependence, delta lexicographically
negative: a*delta0 + delta1 <= -1). So no iteration reads what another iteration of its own
hyperplane writes, and every point of hyperplane d can be computed at once from the
array as the hyperplanes before d left it: the nest is a loop over d (kept as a loop of
the target) whose body is a vector statement over the points of d.

The points (i, d - a*i) of a hyperplane lie, in the row-major flattened array (N1
columns), at d + w0*N1 + w1 + i*(N1 - a): a strided line, stride s = N1 - a, one lane per
i in [l0, u0) (lanes whose j falls outside [l1, u1) keep their old value: a select). A read
at offset (r0, r1) is the same line shifted by r0*N1 + r1. Every slice stays inside the
array: the flat index grows with d and with i, and its extremes are the original's own
reads at the range's first and last points. The statement's scalar operations are applied
lane by lane in the original's order (f as written, no reassociation), so the values are
bit for bit the loops'.

`wavefront_solution(kernel, dialect)` recognises the form (a perfect 2-deep nest, one
store, affine reads at constant offsets, float arithmetic of synth.semantics.scalar's ops)
and returns the group solution: one op, `Wavefront` (synth.synthesis.wavefront_emit: its
NumPy semantics and its two emitters), applied to the written array and the other
arguments the statement reads. None where the kernel is not of that form or where the
loops do not carry dependences along both dims (the other kept loops are better there);
`NoWavefront` (a NoSolutionError) where it is of that form but the hyperplane would be
steeper than MAX_A. Constant distances always have a hyperplane (`hyperplane`); a true
recurrence along both loops is one whose distances vary (a transposed read `a[j][i]`, a
reversed one `a[i - 1][w - 1 - j]`): not of the form, it goes on to the search and exits 3
naming the recurrence.

Interface for other kept loops over hyperplanes (nussinov's diagonals): `hyperplane(deltas)`
picks a from the distance vectors (flow: w - r lexicographically positive; anti:
negative); `Wavefront`'s attributes (a, lo, hi, w, body) describe one statement's sweep.
"""

from __future__ import annotations

from mlir import ir

from synth.analysis.collect import loop_step
from synth.analysis.symbols import size
from synth.errors import NoSolutionError
from synth.frontend.reader import affine_linear, diagnostic_location

MAX_A = 64  # the steepest hyperplane a*i + j tried (rows shorter than a + 1 cannot be swept so)

# the scalar ops a statement may use (arith / math name -> stablehlo name)
SCALAR_OPS = {
    "arith.addf": "stablehlo.add", "arith.subf": "stablehlo.subtract", "arith.mulf": "stablehlo.multiply",
    "arith.divf": "stablehlo.divide", "arith.negf": "stablehlo.negate", "arith.maximumf": "stablehlo.maximum",
    "arith.minimumf": "stablehlo.minimum", "math.sqrt": "stablehlo.sqrt", "math.absf": "stablehlo.abs",
    "math.exp": "stablehlo.exponential",
}
FLOATS = ("f32", "f64")


class NoWavefront(NoSolutionError):
    pass


def hyperplane(deltas: list[tuple[int, int]]) -> int | None:
    """The least a >= 1 with a*d0 + d1 >= 1 for every lexicographically positive distance
    (flow) and <= -1 for every negative one (anti); (0, 0), a read of the element the
    iteration itself writes, before it writes it, needs nothing. Uniform distances always
    have one (a distance (0, d1) holds for every a, one with d0 >= 1 bounds a below); None
    only where it would exceed MAX_A."""
    a = 1
    for d0, d1 in deltas:
        if (d0, d1) < (0, 0):  # anti: the same condition on the reversed distance
            d0, d1 = -d0, -d1
        if d0 > 0:
            a = max(a, -((d1 - 1) // d0))  # a*d0 >= 1 - d1
    return a if a <= MAX_A else None


def _linear(e, operands: list) -> tuple[dict, int] | None:
    """An affine map result as ({operand value: coefficient}, constant); None for a
    symbol, a multiplication of two non-constants, a div or a mod."""
    return affine_linear(e, dim=lambda p: ({operands[p]: 1}, 0), symbol=lambda p: None)

def _offsets(op, ivs: list) -> tuple[int, tuple[int, int]] | None:
    """(argument, (c0, c1)) of an access A[i + c0][j + c1] to a function argument."""
    view = op.opview
    memref = view.memref
    if not isinstance(memref.owner, ir.Block) or memref.owner.owner.operation.name != "func.func":
        return None
    amap = view.map.value
    operands = list(view.indices)
    if len(amap.results) != 2:
        return None
    out = []
    for k, e in enumerate(amap.results):
        lin = _linear(e, operands)
        if lin is None:
            return None
        terms = {v: c for v, c in lin[0].items() if c}
        if list(terms.items()) != [(ivs[k], 1)]:
            return None
        out.append(lin[1])
    return ir.BlockArgument(memref).arg_number, (out[0], out[1])


def _nest(func):
    """The two loops of the function's one perfect nest (loops of one trip, a time loop
    left running once, skipped) and the innermost body's ops; None otherwise."""
    body = func.regions[0].blocks[0]
    loops = []
    while True:
        ops = [op.operation for op in body.operations]
        fors = [op for op in ops if op.name == "affine.for"]
        others = [op for op in ops if op.name not in ("affine.for", "affine.yield", "func.return",
                                                        "arith.constant", "arith.index_cast")]
        if len(fors) != 1:
            break
        if others:
            return None
        loop = fors[0].opview
        if len(fors[0].results) or loop_step(loop) != 1:
            return None
        lb, ub = loop.lowerBoundMap.value, loop.upperBoundMap.value
        constant = all(len(m.results) == 1 and isinstance(m.results[0], ir.AffineConstantExpr) for m in (lb, ub))
        once = constant and ub.results[0].value - lb.results[0].value == 1
        if not once:
            loops.append(loop)
        body = loop.regions[0].blocks[0]
    if len(loops) != 2:
        return None
    return loops, [op.operation for op in body.operations]


def _tree(value, body_ops, ivs, reads: list, scalars: list):
    """The statement's expression (nested tuples) for `value`: ("read", argument, offsets),
    ("scalar", argument), ("const", literal text, type), ("op", name, children)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        if owner.owner.operation.name == "func.func" and str(value.type) in FLOATS:
            k = ir.BlockArgument(value).arg_number
            scalars.append(k)
            return ("scalar", k)
        return None
    op = owner
    if op.name == "affine.load":
        if op not in body_ops:
            return None
        got = _offsets(op, ivs)
        if got is None:
            return None
        reads.append(got)
        return ("read", got[0], got[1])
    if op.name == "arith.constant" and str(op.results[0].type) in FLOATS:
        return ("const", str(op.attributes["value"]).split(" : ")[0], str(op.results[0].type))
    if op.name in SCALAR_OPS and str(op.results[0].type) in FLOATS:
        if "fastmath" in op.attributes and str(op.attributes["fastmath"]) not in ("#arith.fastmath<none>",):
            return None
        kids = tuple(_tree(v, body_ops, ivs, reads, scalars) for v in op.operands)
        return None if any(k is None for k in kids) else ("op", op.name, kids)
    return None


def wavefront_solution(kernel, dialect: str):
    """The group solution (synth.synthesis.solve.GroupSolution) computing the kernel as a
    loop over hyperplanes; None where the kernel is not of the form (module docstring);
    NoWavefront where it is but no hyperplane orders its dependences."""
    from synth.synthesis.program import Expr
    from synth.synthesis.solve import GroupSolution
    from synth.synthesis.wavefront_emit import Wavefront

    source = kernel.normal
    sizes = kernel.sizes
    with source.context:
        module = source.parsed()
        from synth.analysis.function import find_function
        func = find_function(module, kernel.name)
        nest = _nest(func)
        if nest is None:
            return None
        loops, body_ops = nest
        stores = [op for op in body_ops if op.name in ("affine.store", "memref.store")]
        allowed = {"affine.load", "affine.store", "affine.yield", "arith.constant", *SCALAR_OPS}
        if len(stores) != 1 or stores[0].name != "affine.store" or \
                any(op.name not in allowed for op in body_ops):  # a call, an if, a vector op: not a sweep
            return None
        ivs = [loop.induction_variable for loop in loops]
        # a rectangle: bounds of one expression each, none of them of the nest's indices
        for loop in loops:
            if len(loop.lowerBoundMap.value.results) != 1 or len(loop.upperBoundMap.value.results) != 1 or \
                    any(v in ivs for v in [*loop.lowerBoundOperands, *loop.upperBoundOperands]):
                return None
        written = _offsets(stores[0], ivs)
        if written is None:
            return None
        out, w = written
        if kernel.function.arguments[out].type.split("x")[-1].rstrip(">") not in FLOATS:
            return None
        reads, scalars = [], []
        body = _tree(stores[0].opview.value, body_ops, ivs, reads, scalars)
        if body is None:
            return None
        ranges = [sizes.loop_ranges.get(diagnostic_location(source.path, loop.location)) for loop in loops]
        if any(r is None for r in ranges):
            return None
    deltas = [(w[0] - r[0], w[1] - r[1]) for arg, r in reads if arg == out]
    # only where both loops carry a dependence: the outer one (a read of another row it
    # writes) and the inner one (of another element of the same row); else a counter loop
    # or the interchange keeps the parallel dim as the vector
    if not any(d0 != 0 for d0, _ in deltas) or not any(d0 == 0 and d1 != 0 for d0, d1 in deltas):
        return None
    a = hyperplane(deltas)
    if a is None:
        raise NoWavefront(
            f"@{kernel.name}: the statement reads elements of arg{out} it writes at distances "
            f"{sorted(set(deltas))}: the hyperplanes a*i + j that put every element it reads new "
            f"before it and every element it reads old after it are steeper than a = {MAX_A} (a recurrence "
            f"along both loops that rows of these lengths do not sweep by hyperplanes)")
    arrays = [out] + sorted({arg for arg, _ in reads if arg != out})
    leaves = arrays + sorted(set(scalars))
    where = {arg: k for k, arg in enumerate(leaves)}

    def relabel(t):
        if t[0] == "read":
            return ("read", where[t[1]], t[2])
        if t[0] == "scalar":
            return ("scalar", where[t[1]])
        if t[0] == "op":
            return ("op", t[1], tuple(relabel(k) for k in t[2]))
        return t
    values = sizes.original()
    lo = tuple(size(r[0], values) for r in ranges)
    hi = tuple(size(r[1], values) for r in ranges)
    attrs = (("a", a), ("lo", lo), ("hi", hi), ("w", tuple(w)), ("arrays", len(arrays)), ("body", relabel(body)))
    op = Wavefront(dialect)
    types = {i: kernel.tensor_type(i, values) for i in leaves}
    args = tuple(Expr(types[i], leaf=i) for i in leaves)
    for i in arrays[1:]:
        if types[i].shape != types[out].shape:
            return None
    expr = Expr(op.result_type(tuple(x.type for x in args), attrs), op, attrs, args)
    return GroupSolution([0], {out: expr})  # the nest's one statement
