"""StableHLO to linalg on tensors, so that the raised stablehlo runs through the mlir-cpu
pipeline too (as IREE compiles its stablehlo input: legalize to linalg, then codegen).

`to_linalg(text)` takes a module holding the raised function (synth.backends.registry's
BackendEntry.text) and returns the same function over tensors in upstream dialects
(linalg, tensor, arith, math, scf), printed so that the `mlir` (xtc) context parses it:
- a boolean tensor used twice is computed once per use (`_one_use_masks`), so that
  elementwise fusion folds each mask into its select;
- a counted `stablehlo.while` (synth's time and step loops: a counter from a constant,
  `k < constant`, `k + 1`) becomes an `scf.for` over the counter, the other values its
  iter_args (written here: jaxlib's passes have no control flow legalization; the
  mlir-cpu pipeline's loop rewrites are written for scf.for). Any other while is an
  error: an `scf.while` bufferizes with a copy of every carried value per step and
  allocations whose deallocation MLIR's LLVM lowering rejects (an assertion);
- a select between x and y by `iota(d) < k` (or <=, >, >=; durbin's `i < k`, gramschmidt's
  columns right of k) becomes a call of linalg's counter select (the form linalg's grammar
  raises it in, k read outside the generic, zeros a fill), and a gather of a vector's
  elements at a vector of indices (durbin's flip y[k - 1 - i]) a call of a generic over
  the indices that reads the vector by tensor.extract; legalization would compute the
  select over the whole dim with k as a 0-d tensor operand, and keep the gather's indices
  in memory;
- a select that sets one row to a broadcast value, `select(iota(d) == c, broadcast(s), y)`
  (fdtd-2d's `ey[0][j] = fict[t]`), becomes a `dynamic_update_slice` of that row
  (`_row_selects_as_updates`), and a vector rotated by a concatenate of two of its slices
  (fdtd-2d's queue of source values) two of them (`_rotations_as_updates`): legalization
  writes generics over the whole array (a compare per element, an scf.if per element),
  where the updates lower to the inserts the linalg raise has, the form
  synth.backends.wavefront sweeps several steps of (fdtd-2d at LARGE on this backend,
  2026-11-27, one thread: 1.42-1.52 s -> 0.54 s, outputs bitwise equal); any other
  concatenate of static shapes becomes updates of its operands into a tensor.empty
  (`_concatenates_as_updates`; legalization picks each element's operand by a chain of
  scf.ifs: trisolv at LARGE, AMD EPYC host, 2026-11-28, one thread, old and new code in
  alternating processes, medians of 30 calls: 1.78, 1.77 -> 1.43, 1.49 ms, outputs equal);
- a left-side `stablehlo.triangular_solve` of a vector (trisolv's 50 x 50 blocks) becomes
  a call of linalg's loop form of the solve, the op linalg's grammar raises trisolv with
  (synth.grammar.linalg_library.TriangularSolve); of a matrix (LU's 50 x m panels), a call
  of a loop over the rows, each the row less a linalg.vecmat of the rows solved before
  (`_matrix_solve_body`). lu and ludcmp raised to stablehlo now run on mlir-cpu: at LARGE,
  one thread, 0.457 s and 0.448 s (XLA 0.208 and 0.220, their linalg raises 0.174 and
  0.227), values equal to the loops';
- jaxlib's `stablehlo-legalize-to-linalg` rewrites every other op; then, in the `mlir`
  context, the calls are inlined, the counter selects sliced where synth.backends.narrow
  slices linalg's own (so that the loop step computes the selected part only), linalg's
  elementwise fusion runs at once, the 0-d tensors generics read become scalars
  (`_scalar_operands`), an elementwise generic whose result is only collapsed to drop a
  unit dim computes the collapsed result (`_unit_dims_collapsed`), the generics that sum a
  vector times a matrix's rows, over a unit dim too, are named `linalg.vecmat` (`_vecmats`;
  gramschmidt's column q as a 6 x 1 slice made both a generic over 1000 x 1 x 1200, and
  the rank-1 update a temporary over all columns each step: at LARGE, AMD EPYC host,
  2026-11-28, one thread, 5.2-5.7 s -> 0.34-0.38 s, XLA 0.41 s), and a block less a
  matrix product, `X - L U` (LU's trailing update), becomes one matmul of -L and U accumulating into X
  (`_accumulating_matmuls`; the linalg raise's blocked LU has this form). At LARGE, AMD
  EPYC host, 2026-11-28, one thread, old and new code one after the other, two medians of
  5 calls each: lu 0.428, 0.418 -> 0.188, 0.187 s (XLA: 0.214 s), ludcmp 0.396, 0.458 ->
  0.201, 0.191 s (XLA: 0.239 s), outputs within the bench's tolerance of the loops'.
  Before fusion, an elementwise operand of a matrix product (symm's `select(j < i, A, 0)`)
  is kept out of it (synth.backends.contraction_operands): symm at LARGE, AMD EPYC host,
  2026-11-28, one thread, 2.8-3.8 s -> 0.14-0.17 s (XLA: 0.12 s), outputs equal.
An op that none covers (a triangular solve of a matrix, `stablehlo.sort`, ...) is an error
naming it: the backend reports the kernel as not compiled, it never guesses.

PolyBench LARGE raised to stablehlo, one thread, Intel Xeon host (2026-11-26), this backend
against XLA side by side (medians of 3 rounds of 5 calls): trisolv 6.34 -> 2.00 ms, bicg
3.72 -> 2.65 ms, mvt 5.59 -> 4.32 ms, atax 5.13 -> 2.97 ms, jacobi-1d 0.42 -> 0.37 ms (one
round); XLA stays faster on the contractions (gemm 0.045 against 0.100 s), doitgen,
gemver and cholesky; gramschmidt's step carries a buffer the deallocation lowering aborts
on (a backend error). durbin, with its selects sliced, its gathers fused and its counter a
scalar (2026-11-26, same host, 2 rounds of 5 calls): 25.6 ms in the bench before (XLA
13.5 ms, the loops 3.0 ms) -> 2.31 ms (XLA 11.4 ms, the loops 2.57 ms, linalg's raise on
this backend 2.20 ms); the other raised kernels within noise (15 of them see the scalar
operands only).
"""

from __future__ import annotations

import re
from functools import lru_cache

from synth.backends import contraction_operands, narrow
from synth.backends.ir_toolkit import all_parallel, generic_like, indexing_maps, is_identity_map, nested_ops, ops_named
from synth.errors import ExecutionError

_LEGALIZE = "builtin.module(func.func(stablehlo-legalize-to-linalg,canonicalize))"
_INLINE = "builtin.module(inline,canonicalize)"
_FUSE = "builtin.module(func.func(linalg-fuse-elementwise-ops),canonicalize)"


@lru_cache(maxsize=1)
def _registry():
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import stablehlo

    stablehlo.register_stablehlo_passes()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    return registry


def _context():
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    ctx = ir.Context()
    ctx.append_dialect_registry(_registry())
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    return ctx


def _constant_int(value) -> int | None:
    """The integer of a 0-d `stablehlo.constant`, else None."""
    owner = value.owner
    if getattr(owner, "name", None) != "stablehlo.constant":
        return None
    match = re.fullmatch(r"dense<(-?\d+)> : tensor<i(?:32|64)>", str(owner.attributes["value"]))
    return int(match.group(1)) if match else None


def _counted(op) -> tuple[int, int, int] | None:
    """(position, start, stop) when the while `op` counts one of its values from a
    constant start up to a constant stop by 1 (`k < stop`, `k + 1`: synth's time and step
    loops); None otherwise."""
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    flag = list(cond.operations)[-1].operands[0].owner
    if getattr(flag, "name", None) != "stablehlo.compare" or \
            "comparison_direction LT" not in str(flag.attributes["comparison_direction"]):
        return None
    counter, stop = flag.operands[0], _constant_int(flag.operands[1])
    args = list(cond.arguments)
    position = next((i for i, a in enumerate(args) if a == counter), None)
    if position is None or stop is None:
        return None
    start = _constant_int(op.operands[position])
    step = list(body.operations)[-1].operands[position].owner
    if start is None or getattr(step, "name", None) != "stablehlo.add" or \
            any(True for _ in op.results[position].uses):  # the final count is not read
        return None
    terms = list(step.operands)
    if body.arguments[position] not in terms or 1 not in [_constant_int(t) for t in terms]:
        return None
    return position, start, stop


def _while_to_for(op, position: int, start: int, stop: int) -> None:
    """The counted while `op` replaced by an `scf.for` over [start, stop): the counter
    becomes the induction variable (a 0-d tensor built from it where the body reads it),
    the other values its iter_args. The mlir-cpu pipeline's loop rewrites (in place updates,
    narrowing) are written for scf.for."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import arith, scf

    index = ir.IndexType.get()
    carried = [v for i, v in enumerate(op.operands) if i != position]
    counter_type = op.operands[position].type
    element = ir.RankedTensorType(counter_type).element_type
    with ir.Location.unknown():
        ip = ir.InsertionPoint(op)
        bounds = [arith.ConstantOp(index, ir.IntegerAttr.get(index, v), ip=ip).result for v in (start, stop, 1)]
        loop = scf.ForOp(*bounds, iter_args=carried, ip=ip)
        body = op.regions[1].blocks[0]
        mark = scf.YieldOp(list(loop.inner_iter_args), ip=ir.InsertionPoint(loop.body))
        inner = ir.InsertionPoint(mark)
        k = arith.IndexCastOp(element, loop.induction_variable, ip=inner).result
        k_tensor = ir.Operation.create("tensor.from_elements", results=[counter_type], operands=[k], ip=inner)
        others = iter(loop.inner_iter_args)
        for i, arg in enumerate(body.arguments):
            arg.replace_all_uses_with(k_tensor.result if i == position else next(others))
        for inner_op in list(body.operations):
            inner_op.move_before(mark)
        ret = _last_before(mark)
        scf.YieldOp([v for i, v in enumerate(ret.operands) if i != position], ip=ir.InsertionPoint(mark))
        mark.operation.erase()
        ret.erase()
    results = iter(loop.results)
    for i, old in enumerate(op.results):
        if i != position:
            old.replace_all_uses_with(next(results))
    op.erase()


def _last_before(mark):
    """The op just before `mark` in its block (the moved `stablehlo.return`)."""
    ops = list(mark.operation.block.operations)
    index = next(i for i, o in enumerate(ops) if o == mark.operation)
    return ops[index - 1].operation

_SOLVE = "__synth_triangular_solve_{}"


def _solves_as_calls(module) -> dict[str, str]:
    """Each left-side `stablehlo.triangular_solve` of a vector (or an n x 1 matrix, as the
    stablehlo emitter writes one) replaced by a call of a private function, declared here;
    {its name: its definition}, the loop form of linalg's grammar (linalg_library's
    TriangularSolve, the op linalg raises trisolv with), defined after legalization and
    inlined; of a matrix by A itself (not transposed), a call of `_matrix_solve_body`'s
    function. Other solves are left (and named as not lowered)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func, stablehlo

    from synth.grammar.linalg_library import TriangularSolve
    from synth.grammar.op import attrs, emit_op_function
    from synth.grammar.types import TensorType

    defined: dict[tuple, str] = {}
    bodies: dict[str, str] = {}
    for op in nested_ops(module):
        if op.name != "stablehlo.triangular_solve" or str(op.attributes["left_side"]) != "true":
            continue
        a_type, b_type = (ir.RankedTensorType(v.type) for v in op.operands)
        n, dtype = a_type.shape[0], str(a_type.element_type)
        lower, unit = str(op.attributes["lower"]) == "true", str(op.attributes["unit_diagonal"]) == "true"
        transposed = "NO_TRANSPOSE" not in str(op.attributes["transpose_a"])
        if dtype not in ("f32", "f64"):
            continue
        with ir.Location.unknown():
            if list(b_type.shape) in ([n], [n, 1]):  # solved as a vector
                solved = ir.RankedTensorType.get([n], a_type.element_type)
                key = ("vector", n, dtype, lower, unit, transposed)
            elif len(b_type.shape) == 2 and b_type.shape[0] == n and not transposed:
                solved = b_type
                key = ("matrix", n, b_type.shape[1], dtype, lower, unit)
            else:
                continue
            if key not in defined:
                name = defined[key] = _SOLVE.format(len(defined))
                if key[0] == "vector":
                    text = emit_op_function(TriangularSolve("linalg.triangular_solve"),
                                            [TensorType((n, n), dtype), TensorType((n,), dtype)],
                                            attrs(lower=lower, unit_diagonal=unit, transpose_a=transposed), name=name)
                    bodies[name] = text.replace("func.func @", "func.func private @", 1)
                else:
                    bodies[name] = _matrix_solve_body(name, *key[1:])
                func.FuncOp(name, ([a_type, solved], [solved]), visibility="private",
                            ip=ir.InsertionPoint(module.body))
            ip = ir.InsertionPoint(op)
            b = op.operands[1]
            if solved != b_type:
                b = stablehlo.ReshapeOp(solved, b, ip=ip).result
            x = func.CallOp([solved], ir.FlatSymbolRefAttr.get(defined[key]), [op.operands[0], b], ip=ip).result
            if solved != b_type:
                x = stablehlo.ReshapeOp(b_type, x, ip=ip).result
        op.results[0].replace_all_uses_with(x)
        op.erase()
    return bodies


def _matrix_solve_body(name: str, n: int, m: int, dtype: str, lower: bool, unit: bool) -> str:
    """A private function solving A X = B for X (A n x n, triangular; B n x m), row by row:
    row i of X is (B[i] - A[i, known] X[known]) / A[i, i], where the known rows are those
    before i (lower) or after it (upper), summed in order by a linalg.vecmat."""
    a, b, v = f"tensor<{n}x{n}x{dtype}>", f"tensor<{n}x{m}x{dtype}>", f"tensor<{m}x{dtype}>"
    if lower:
        rows = "    %i = arith.addi %s, %c0 : index\n    %k0 = arith.addi %c0, %c0 : index\n"
    else:
        rows = ("    %i = arith.subi %clast, %s : index\n"
                "    %k0 = arith.addi %i, %c1 : index\n")
    divide = "" if unit else (f"    %d = tensor.extract %a[%i, %i] : {a}\n")
    value = "%r" if unit else "%w"
    return (
        f"func.func private @{name}(%a: {a}, %b: {b}) -> {b} {{\n"
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        f"  %cn = arith.constant {n} : index\n  %clast = arith.constant {n - 1} : index\n"
        f"  %zero = arith.constant 0.0 : {dtype}\n"
        f"  %x = scf.for %s = %c0 to %cn step %c1 iter_args(%x0 = %b) -> ({b}) {{\n"
        f"{rows}"
        f"    %l = tensor.extract_slice %a[%i, %k0] [1, %s] [1, 1] : {a} to tensor<?x{dtype}>\n"
        f"    %xs = tensor.extract_slice %x0[%k0, 0] [%s, {m}] [1, 1] : {b} to tensor<?x{m}x{dtype}>\n"
        f"    %e = tensor.empty() : {v}\n"
        f"    %z = linalg.fill ins(%zero : {dtype}) outs(%e : {v}) -> {v}\n"
        f"    %acc = linalg.vecmat ins(%l, %xs : tensor<?x{dtype}>, tensor<?x{m}x{dtype}>) outs(%z : {v}) -> {v}\n"
        f"    %row = tensor.extract_slice %x0[%i, 0] [1, {m}] [1, 1] : {b} to {v}\n"
        f"{divide}"
        f"    %e2 = tensor.empty() : {v}\n"
        "    %new = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>, "
        "affine_map<(j) -> (j)>], iterator_types = [\"parallel\"]} "
        f"ins(%row, %acc : {v}, {v}) outs(%e2 : {v}) {{\n"
        f"    ^bb0(%p: {dtype}, %q: {dtype}, %o: {dtype}):\n"
        f"      %r = arith.subf %p, %q : {dtype}\n"
        + ("" if unit else f"      %w = arith.divf %r, %d : {dtype}\n")
        + f"      linalg.yield {value} : {dtype}\n"
        f"    }} -> {v}\n"
        f"    %x1 = tensor.insert_slice %new into %x0[%i, 0] [1, {m}] [1, 1] : {v} into {b}\n"
        f"    scf.yield %x1 : {b}\n"
        "  }\n"
        f"  return %x : {b}\n"
        "}\n")


_SELECT = "__synth_counter_select_{}"
_GATHER = "__synth_gather_{}"
_FLIPPED = {"LT": "sgt", "LE": "sge", "GT": "slt", "GE": "sle"}  # k <dir> i is i <flipped> k
_DIRECT = {"LT": "slt", "LE": "sle", "GT": "sgt", "GE": "sge"}


def _defining_named(value, name: str):
    """The op defining `value` when it is named `name`, else None."""
    owner = value.owner
    return owner if getattr(owner, "name", None) == name else None


def _direction(compare) -> str:
    return re.search(r"comparison_direction (\w+)", str(compare.attributes["comparison_direction"])).group(1)


def _counter_compare(compare):
    """(dim, predicate, k) when `compare` is `iota(dim) <dir> broadcast(k)` (either side,
    k a 0-d integer tensor, <dir> an order), the mask of a counter select; else None."""
    from jaxlib.mlir import ir

    if "compare_type" in compare.attributes and "SIGNED" not in str(compare.attributes["compare_type"]):
        return None
    direction = _direction(compare)
    if direction not in _DIRECT:
        return None
    for iota_at, table in ((0, _DIRECT), (1, _FLIPPED)):
        iota = _defining_named(compare.operands[iota_at], "stablehlo.iota")
        broadcast = _defining_named(compare.operands[1 - iota_at], "stablehlo.broadcast_in_dim")
        if iota is None or broadcast is None or ir.RankedTensorType(broadcast.operands[0].type).rank != 0:
            continue
        k_type = ir.RankedTensorType(broadcast.operands[0].type).element_type
        if str(k_type) not in ("i32", "i64"):
            continue
        return ir.IntegerAttr(iota.attributes["iota_dimension"]).value, table[direction], broadcast.operands[0]
    return None


def _zero_splat(value) -> bool:
    """Whether `value` is a float tensor of zeros: a splat constant or a broadcast of 0."""
    broadcast = _defining_named(value, "stablehlo.broadcast_in_dim")
    if broadcast is not None:
        value = broadcast.operands[0]
    constant = _defining_named(value, "stablehlo.constant")
    return constant is not None and re.match(r"dense<-?0\.0*(e[+-]\d+)?> : tensor<(\d+x)*f(32|64)>$",
                                             str(constant.attributes["value"])) is not None


def _select_body(name: str, shape: list[int], dtype: str, bound: str, dim: int, predicate: str, zeros: bool) -> str:
    """linalg's counter select (as the linalg grammar writes it, the form synth.backends.narrow
    slices): `index(dim) <predicate> k ? x : y` over the whole tensor, k read outside."""
    tensor = f"tensor<{'x'.join(map(str, shape))}x{dtype}>"
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    identity = f"affine_map<({dims}) -> ({dims})>"
    y_arg = "" if zeros else f", %y: {tensor}"
    y_def = (f"    %zero = arith.constant 0.0 : {dtype}\n    %y_empty = tensor.empty() : {tensor}\n"
             f"    %y = linalg.fill ins(%zero : {dtype}) outs(%y_empty : {tensor}) -> {tensor}\n") if zeros else ""
    widen = "    %b = arith.extsi %k0 : i32 to i64\n" if bound == "i32" else ""
    b = "%b" if bound == "i32" else "%k0"
    parallel = ", ".join(['"parallel"'] * rank)
    return (f"  func.func private @{name}(%x: {tensor}{y_arg}, %k: tensor<{bound}>) -> {tensor} {{\n"
            f"    %k0 = tensor.extract %k[] : tensor<{bound}>\n{widen}{y_def}"
            f"    %e = tensor.empty() : {tensor}\n"
            f"    %r = linalg.generic {{indexing_maps = [{identity}, {identity}, {identity}], "
            f"iterator_types = [{parallel}]}} ins(%x, %y : {tensor}, {tensor}) outs(%e : {tensor}) {{\n"
            f"    ^bb0(%a: {dtype}, %c: {dtype}, %o: {dtype}):\n"
            f"      %i = linalg.index {dim} : index\n"
            f"      %j = arith.index_cast %i : index to i64\n"
            f"      %p = arith.cmpi {predicate}, %j, {b} : i64\n"
            f"      %s = arith.select %p, %a, %c : {dtype}\n"
            f"      linalg.yield %s : {dtype}\n"
            f"    }} -> {tensor}\n"
            f"    return %r : {tensor}\n  }}")


def _counter_selects_as_calls(module) -> dict[str, str]:
    """Each `select(iota(d) <order> broadcast(k), x, y)` (a loop step that updates the part of
    a dim its counter selects: durbin's `i < k`, gramschmidt's columns right of k) replaced by
    a call of a private function declared here; {its name: its definition}, linalg's counter
    select with k read outside the generic and y zeros made by a fill where they are zeros,
    the form the mlir-cpu pipeline computes over the selected part only (synth.backends.narrow)
    where legalization would write a generic over the whole dim with the bound as an operand."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func

    defined: dict[tuple, str] = {}
    bodies: dict[str, str] = {}
    for op in nested_ops(module):
        if op.name != "stablehlo.select":
            continue
        compare = _defining_named(op.operands[0], "stablehlo.compare")
        found = None if compare is None else _counter_compare(compare)
        if found is None:
            continue
        dim, predicate, k = found
        x, y = op.operands[1], op.operands[2]
        t = ir.RankedTensorType(x.type)
        if not t.has_static_shape or str(t.element_type) not in ("f32", "f64") or t.rank == 0:
            continue
        zeros = _zero_splat(y)
        bound = str(ir.RankedTensorType(k.type).element_type)
        key = (tuple(t.shape), str(t.element_type), bound, dim, predicate, zeros)
        with ir.Location.unknown():
            if key not in defined:
                name = defined[key] = _SELECT.format(len(defined))
                bodies[name] = _select_body(name, list(t.shape), str(t.element_type), bound, dim, predicate, zeros)
                arguments = [x.type] + ([] if zeros else [y.type]) + [k.type]
                func.FuncOp(name, (arguments, [x.type]), visibility="private", ip=ir.InsertionPoint(module.body))
            operands = [x] + ([] if zeros else [y]) + [k]
            call = func.CallOp([x.type], ir.FlatSymbolRefAttr.get(defined[key]), operands, ip=ir.InsertionPoint(op))
        op.results[0].replace_all_uses_with(call.result)
        op.erase()
    return bodies


_POINT_GATHER = "#stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>"


def _gather_body(name: str, m: int, n: int, dtype: str, itype: str) -> str:
    """A gather of a vector's elements at n indices (clamped into it, as stablehlo's gather
    clamps start indices) as a generic over the indices that reads the vector by
    tensor.extract: the index computation fuses into it (legalization reads the indices by
    tensor.extract too, so theirs stays a tensor in memory)."""
    source, indices, result = f"tensor<{m}x{dtype}>", f"tensor<{n}x{itype}>", f"tensor<{n}x{dtype}>"
    identity = "affine_map<(d0) -> (d0)>"
    return (f"  func.func private @{name}(%a: {source}, %idx: {indices}) -> {result} {{\n"
            f"    %lo = arith.constant 0 : index\n    %hi = arith.constant {m - 1} : index\n"
            f"    %e = tensor.empty() : {result}\n"
            f"    %r = linalg.generic {{indexing_maps = [{identity}, {identity}], iterator_types = [\"parallel\"]}} "
            f"ins(%idx : {indices}) outs(%e : {result}) {{\n"
            f"    ^bb0(%i: {itype}, %o: {dtype}):\n"
            f"      %c = arith.index_cast %i : {itype} to index\n"
            f"      %c0 = arith.maxsi %c, %lo : index\n      %c1 = arith.minsi %c0, %hi : index\n"
            f"      %v = tensor.extract %a[%c1] : {source}\n"
            f"      linalg.yield %v : {dtype}\n"
            f"    }} -> {result}\n"
            f"    return %r : {result}\n  }}")


def _gathers_as_calls(module) -> dict[str, str]:
    """Each `stablehlo.gather` of single elements of a vector at a vector of indices (durbin's
    flips, y[k - 1 - i]) replaced by a call of a private function declared here; {its name:
    its definition} (_gather_body)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func, stablehlo

    defined: dict[tuple, str] = {}
    bodies: dict[str, str] = {}
    for op in nested_ops(module):
        if op.name != "stablehlo.gather" or str(op.attributes["dimension_numbers"]) != _POINT_GATHER:
            continue
        if str(op.attributes["slice_sizes"]) != "array<i64: 1>":
            continue
        a_type, i_type = (ir.RankedTensorType(v.type) for v in op.operands)
        if a_type.rank != 1 or i_type.rank != 2 or i_type.shape[1] != 1 or not a_type.has_static_shape \
                or not i_type.has_static_shape or str(a_type.element_type) not in ("f32", "f64") \
                or str(i_type.element_type) not in ("i32", "i64"):
            continue
        m, n, dtype, itype = a_type.shape[0], i_type.shape[0], str(a_type.element_type), str(i_type.element_type)
        key = (m, n, dtype, itype)
        with ir.Location.unknown():
            vector = ir.RankedTensorType.get([n], i_type.element_type)
            if key not in defined:
                name = defined[key] = _GATHER.format(len(defined))
                bodies[name] = _gather_body(name, m, n, dtype, itype)
                func.FuncOp(name, ([a_type, vector], [op.results[0].type]), visibility="private",
                            ip=ir.InsertionPoint(module.body))
            ip = ir.InsertionPoint(op)
            reshape = _defining_named(op.operands[1], "stablehlo.reshape")
            if reshape is not None and reshape.operands[0].type == vector:
                indices = reshape.operands[0]
            else:
                indices = stablehlo.ReshapeOp(vector, op.operands[1], ip=ip).result
            call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(defined[key]),
                               [op.operands[0], indices], ip=ip)
        op.results[0].replace_all_uses_with(call.result)
        op.erase()
    return bodies


def _splat_int(value) -> int | None:
    """The integer every element of `value` holds (a splat integer constant or a broadcast
    of a 0-d one), else None."""
    broadcast = _defining_named(value, "stablehlo.broadcast_in_dim")
    constant = _defining_named(value if broadcast is None else broadcast.operands[0], "stablehlo.constant")
    if constant is None:
        return None
    match = re.fullmatch(r"dense<(-?\d+)> : tensor<(?:\d+x)*i(?:32|64)>", str(constant.attributes["value"]))
    return int(match.group(1)) if match else None


def _update_slice(ip, operand, update, starts: list[int]):
    """`stablehlo.dynamic_update_slice` of `update` into `operand` at constant `starts`."""
    from jaxlib.mlir import ir

    i64 = ir.IntegerType.get_signless(64)
    scalar = ir.RankedTensorType.get([], i64)
    indices = [ir.Operation.create("stablehlo.constant", results=[scalar], ip=ip, attributes={
        "value": ir.DenseElementsAttr.get_splat(scalar, ir.IntegerAttr.get(i64, n))}).result for n in starts]
    return ir.Operation.create("stablehlo.dynamic_update_slice", results=[operand.type],
                               operands=[operand, update, *indices], ip=ip).result


def _row_selects_as_updates(module) -> int:
    """Each `select(iota(d) == c, broadcast(s), y)` whose broadcast does not vary along d
    (fdtd-2d's `ey[0][j] = fict[t]`, as the stablehlo grammar sets a row) becomes
    `dynamic_update_slice(y, broadcast(s) over that one row, c at d)`: legalization would
    write a generic over the whole array, where the update is an insert of the row (the form
    of the linalg raise, which synth.backends.wavefront takes). Returns how many."""
    from jaxlib.mlir import ir

    count = 0
    for op in nested_ops(module):
        compare = _defining_named(op.operands[0], "stablehlo.compare") if op.name == "stablehlo.select" else None
        if compare is None or _direction(compare) != "EQ":
            continue
        found = None
        for at in (0, 1):
            iota, c = _defining_named(compare.operands[at], "stablehlo.iota"), _splat_int(compare.operands[1 - at])
            if iota is not None and c is not None:
                found = ir.IntegerAttr(iota.attributes["iota_dimension"]).value, c
        x = _defining_named(op.operands[1], "stablehlo.broadcast_in_dim")
        t = ir.RankedTensorType(op.results[0].type)
        if found is None or x is None or not t.has_static_shape or not 0 <= found[1] < t.shape[found[0]] \
                or found[0] in list(ir.DenseI64ArrayAttr(x.attributes["broadcast_dimensions"])):
            continue
        dim, c = found
        ip = ir.InsertionPoint(op)
        with op.location:
            row = ir.Operation.create("stablehlo.broadcast_in_dim", operands=[x.operands[0]], ip=ip, results=[
                ir.RankedTensorType.get([1 if i == dim else n for i, n in enumerate(t.shape)], t.element_type)],
                attributes={"broadcast_dimensions": x.attributes["broadcast_dimensions"]}).result
            update = _update_slice(ip, op.operands[2], row, [c if i == dim else 0 for i in range(t.rank)])
        op.results[0].replace_all_uses_with(update)
        op.erase()
        count += 1
    return count


def _rotations_as_updates(module) -> int:
    """Each `concatenate(slice(v, [a:n]), slice(v, [0:a]))` of a vector v of n elements (v
    rotated left by a: fdtd-2d's queue of one source value per step) becomes
    `dynamic_update_slice(dynamic_update_slice(v, slice(v, [a:n]), 0), slice(v, [0:a]), n - a)`:
    legalization would write a generic that picks each element's part by an scf.if, where
    the updates are the linalg raise's inserts of the two parts (the rotation that
    synth.backends.wavefront reads as a queue). Returns how many."""
    from jaxlib.mlir import ir

    count = 0
    for op in nested_ops(module):
        if op.name != "stablehlo.concatenate" or len(op.operands) != 2:
            continue
        t = ir.RankedTensorType(op.results[0].type)
        parts = [_defining_named(v, "stablehlo.slice") for v in op.operands]
        if t.rank != 1 or not t.has_static_shape or any(p is None for p in parts) or parts[0].operands[0] != parts[1].operands[0] \
                or parts[0].operands[0].type != op.results[0].type:
            continue
        (start0, limit0, stride0), (start1, limit1, stride1) = (
            [list(ir.DenseI64ArrayAttr(p.attributes[a]))[0] for a in ("start_indices", "limit_indices", "strides")]
            for p in parts)
        n = t.shape[0]
        if not (0 < start0 < n and limit0 == n and start1 == 0 and limit1 == start0 and stride0 == stride1 == 1):
            continue
        ip = ir.InsertionPoint(op)
        with op.location:
            first = _update_slice(ip, parts[0].operands[0], op.operands[0], [0])
            rotated = _update_slice(ip, first, op.operands[1], [n - start0])
        op.results[0].replace_all_uses_with(rotated)
        op.erase()
        count += 1
    return count


def _concatenates_as_updates(module) -> int:
    """Each other `concatenate` of a static shape becomes `dynamic_update_slice`s of its
    operands, at their constant offsets along the dim, into a `tensor.empty`: legalization
    would write a generic that picks each element's operand by a chain of scf.ifs, one per
    operand (trisolv's solved panels, concatenated into the vector the next panel's
    matrix-vector product reads: 2 to 40 operands, 39 times per call), where the updates
    are inserts of each operand. Returns how many."""
    from jaxlib.mlir import ir

    count = 0
    for op in nested_ops(module):
        if op.name != "stablehlo.concatenate" or len(op.operands) < 2:
            continue
        t = ir.RankedTensorType(op.results[0].type)
        if not t.has_static_shape or not all(ir.RankedTensorType(v.type).has_static_shape for v in op.operands):
            continue
        dim = ir.IntegerAttr(op.attributes["dimension"]).value
        ip = ir.InsertionPoint(op)
        with op.location:
            whole = ir.Operation.create("tensor.empty", results=[t], ip=ip).result
            at = 0
            for part in op.operands:
                whole = _update_slice(ip, whole, part, [at if i == dim else 0 for i in range(t.rank)])
                at += ir.RankedTensorType(part.type).shape[dim]
        op.results[0].replace_all_uses_with(whole)
        op.erase()
        count += 1
    return count


MIN_TRANSPOSED_ROWS = 8  # the least lhs rows for which a transposed rhs is copied


def _transposed_rhs_copied(module) -> int:
    """Each matrix product `stablehlo.dot_general` of two matrices whose rhs is contracted
    along its dim 1 (A B^T: syrk's and syr2k's A A^T, Cholesky's panel less L L^T) takes a
    `stablehlo.transpose` of the rhs, contracted along dim 0; the number rewritten.
    Legalized as it is, the product is a generic reading B[j, k], which mlir_cpu's schedule
    tiles as any contraction: each register tile's k step then gathers a column of 8
    elements of B from 8 rows. With B^T copied once (the linalg raise's own form: a
    linalg.transpose, then a matmul), the step loads them as one vector. Only products of
    at least MIN_TRANSPOSED_ROWS lhs rows, where the copy is repaid, and at least the
    matmul schedule's cache tile of columns (mlir_cpu.cache_tile: 64 with AVX-512): a
    narrower product as a matmul is one partial tile, which the schedule leaves to plain
    loops (Cholesky's panels of 40 columns, 2026-11-29, AMD EPYC host, one thread: 0.10 s
    as generics, 0.19 s as matmuls)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    from synth.backends.mlir_cpu import cache_tile

    columns = cache_tile()[1]
    count = 0
    for op in ops_named(module, ("stablehlo.dot_general",)):
        lhs, rhs = op.operands[0], op.operands[1]
        lt, rt = ir.RankedTensorType(lhs.type), ir.RankedTensorType(rhs.type)
        dims = stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
        if (lt.rank, rt.rank) != (2, 2) or list(dims.lhs_batching_dimensions) or list(dims.rhs_batching_dimensions):
            continue
        if list(dims.rhs_contracting_dimensions) != [1] or len(list(dims.lhs_contracting_dimensions)) != 1:
            continue
        if lt.shape[1 - list(dims.lhs_contracting_dimensions)[0]] < MIN_TRANSPOSED_ROWS or rt.shape[0] < columns:
            continue
        with op.location:
            ip = ir.InsertionPoint(op)
            flipped = ir.RankedTensorType.get([rt.shape[1], rt.shape[0]], rt.element_type)
            copied = stablehlo.TransposeOp(rhs, [1, 0], results=[flipped], ip=ip).result
            numbers = stablehlo.DotDimensionNumbers.get(
                lhs_batching_dimensions=[], rhs_batching_dimensions=[],
                lhs_contracting_dimensions=list(dims.lhs_contracting_dimensions), rhs_contracting_dimensions=[0])
            product = stablehlo.DotGeneralOp(op.results[0].type, lhs, copied, numbers, ip=ip).result
        op.results[0].replace_all_uses_with(product)
        op.erase()
        count += 1
    return count


def _one_use_masks(module) -> None:
    """Each boolean tensor computed once per use: elementwise fusion (linalg's default
    control, a producer with one use) then folds every mask into the select that reads it.
    A mask with two uses would stay a tensor of i1 in memory, whose stores MLIR's LLVM
    lowering rejects (an assertion in the worker). Recomputing a compare is cheap."""
    from jaxlib.mlir import ir

    for op in reversed(nested_ops(module)):
        if len(op.results) != 1 or op.name.split(".")[0] != "stablehlo" or op.regions:
            continue
        result = op.results[0]
        if not (isinstance(result.type, ir.RankedTensorType)
                and str(ir.RankedTensorType(result.type).element_type) == "i1"):
            continue
        uses = [(u.owner, u.operand_number) for u in result.uses]
        for user, index in uses[1:]:
            copy = op.clone(ip=ir.InsertionPoint(user))
            user.operands[index] = copy.results[0]


def _where(op) -> str:
    """`line:col` of `op` in the module text."""
    match = re.search(r":(\d+):(\d+)", str(op.location))
    return f"line {match.group(1)}:{match.group(2)}" if match else "a while"


def to_linalg(text: str) -> str:
    """The module `text` (stablehlo over tensors) in upstream dialects; ExecutionError
    naming the ops left over when some stablehlo op has no lowering here."""
    from jaxlib.mlir import ir, passmanager

    with _context():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise ExecutionError(f"stablehlo to linalg: the module does not parse: {e}") from None
        calls = {**_counter_selects_as_calls(module), **_gathers_as_calls(module)}
        _row_selects_as_updates(module)
        _rotations_as_updates(module)
        _concatenates_as_updates(module)
        _one_use_masks(module)
        _transposed_rhs_copied(module)
        calls.update(_solves_as_calls(module))
        # outer ones first; a nested while moves into its parent's scf.for and is rewritten there
        for op in ops_named(module, ("stablehlo.while",)):
            counted = _counted(op)
            if counted is None:
                raise ExecutionError(f"stablehlo to linalg: {_where(op)}: a stablehlo.while that is not "
                                     "a counted loop (k from a constant while k < a constant, k + 1 each "
                                     "step) has no lowering here")
            _while_to_for(op, *counted)
        try:
            passmanager.PassManager.parse(_LEGALIZE).run(module.operation)
        except ir.MLIRError as e:
            raise ExecutionError(f"stablehlo to linalg failed: {e}") from None
        left = sorted({op.name for op in nested_ops(module) if op.name.split(".")[0] in ("stablehlo", "chlo")})
        if left:
            why = (" (triangular solves are lowered for a vector right-hand side, or an n x 1 matrix)"
                   if "stablehlo.triangular_solve" in left else "")
            raise ExecutionError("stablehlo to linalg: no lowering for " + ", ".join(left) + why)
        text = str(module)
    for name, body in calls.items():  # the declarations become the definitions
        text = re.sub(rf"^ *func\.func private @{name}\(.*$", lambda _: body, text, count=1, flags=re.M)
    return _in_upstream(text)


def _in_upstream(text: str) -> str:
    """`text` parsed in the `mlir` context: the calls inlined, the counter selects sliced
    (narrow.slice_selects, before fusion folds them into their producers), the operands of
    matrix products kept out of them (contraction_operands), elementwise
    producers fused into their consumers at once (before anything, cse, merges the per-use
    masks again), 0-d operands made scalars, and the transposed matrix-vector products named
    (`_vecmats`)."""
    from mlir import ir, passmanager

    with ir.Context():
        module = ir.Module.parse(text)
        passmanager.PassManager.parse(_INLINE).run(module.operation)
        narrow.slice_selects(module)
        contraction_operands.keep_operands(module)
        passmanager.PassManager.parse(_FUSE).run(module.operation)
        if _scalar_operands(module):
            passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        _unit_dims_collapsed(module)
        _vecmats(module)
        _accumulating_matmuls(module)
        return str(module)


_VECMAT_MAPS = {  # the generic's maps (matrix, vector, result) -> the vecmat's operand order
    ("affine_map<(d0, d1) -> (d1, d0)>", "affine_map<(d0, d1) -> (d1)>", "affine_map<(d0, d1) -> (d0)>"): (1, 0),
    ("affine_map<(d0, d1) -> (d1)>", "affine_map<(d0, d1) -> (d1, d0)>", "affine_map<(d0, d1) -> (d0)>"): (0, 1),
}


def _vecmats(module) -> None:
    """A `linalg.generic` that sums A[k, j] * x[k] over k, as legalization writes the
    dot_general of a vector with a matrix's rows (y^T A: atax, mvt, gemver), replaced by
    the `linalg.vecmat` it is, which the mlir-cpu pipeline interchanges to walk A's rows
    and fuses with a matvec on the same matrix (row_passes). Same sum, same order. A sum
    over a second, unit dim as well (gramschmidt's `q^T A` with q a column, 1000 x 1, and A
    expanded to 1000 x 1 x 1200, which legalization wrote as a three-dim generic that
    walked A by columns) is taken with that dim collapsed out of its operands.

    gramschmidt raised to stablehlo, PolyBench LARGE, mlir-cpu, one thread, AMD EPYC host
    (medians of 3 calls): 4.0-4.3 s -> 1.25-1.43 s with the vecmat, 0.34-0.38 s with its
    rank-1 update narrowed as well (_unit_dims_collapsed); XLA 0.41 s."""
    from mlir import ir
    from mlir.dialects import linalg, tensor

    for op in ops_named(module, ("linalg.generic",)):
        if len(op.operands) != 3 or len(op.results) != 1:
            continue
        operands, maps, iterators = _unit_reduction_dropped(op)
        order = _VECMAT_MAPS.get(maps)
        if order is None or iterators != ["#linalg.iterator_type<parallel>", "#linalg.iterator_type<reduction>"]:
            continue
        block = op.regions[0].blocks[0]
        body = [o.operation for o in block.operations]
        if [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
            continue
        mul, add, done = body
        a, b, out = block.arguments
        if {v for v in mul.operands} != {a, b} or {v for v in add.operands} != {out, mul.result} or \
                done.operands[0] != add.result:
            continue
        with ir.Location.unknown(), ir.InsertionPoint(op):
            operands = [v if isinstance(v, ir.Value) else _collapse(*v) for v in operands]
            vec = linalg.vecmat(operands[order[0]], operands[order[1]], outs=[operands[2]])
        op.results[0].replace_all_uses_with(vec)
        op.erase()


def _unit_reduction_dropped(op) -> tuple[list, tuple, list]:
    """(operands, indexing maps as text, iterator types as text) of the generic `op`, a
    reduction dim whose extent is 1 (every operand indexed by it is 1 wide there) dropped,
    if it has one and no output is indexed by it: each operand indexed by it given as
    (the operand, the collapse_shape reassociation that removes that dim) instead."""
    from mlir import ir
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    iterators = [str(t) for t in op.attributes["iterator_types"]]
    operands = list(op.operands)
    n_in = len(op.opview.inputs)
    for d, kind in enumerate(iterators):
        if kind != "#linalg.iterator_type<reduction>":
            continue
        uses = [(k, p) for k, m in enumerate(maps) for p in _at(m, d)]
        if not uses or any(k >= n_in for k, _ in uses) or len({k for k, _ in uses}) != len(uses):
            continue
        shapes = {k: ir.RankedTensorType(operands[k].type).shape for k, _ in uses}
        if any(shapes[k][p] != 1 or len(shapes[k]) < 2 for k, p in uses):
            continue
        where = dict(uses)
        new_maps, new_operands = [], []
        for k, (m, v) in enumerate(zip(maps, operands)):
            new_maps.append(_without_dim(m, d))
            if k in where:
                new_operands.append((v, _merged(len(shapes[k]), where[k])))
            else:
                new_operands.append(v)
        return new_operands, tuple(new_maps), iterators[:d] + iterators[d + 1:]
    return operands, tuple(str(m) for m in op.attributes["indexing_maps"]), iterators


def _at(amap, d: int) -> list[int]:
    """The positions of `amap`'s results that are dim d."""
    from mlir import ir
    return [p for p, e in enumerate(amap.results) if isinstance(e, ir.AffineDimExpr) and ir.AffineDimExpr(e).position == d]


def _reassociation(op) -> list[list[int]]:
    """The reassociation of a tensor.collapse_shape or tensor.expand_shape, as lists."""
    from mlir import ir
    return [[ir.IntegerAttr(j).value for j in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]


def _merged(rank: int, p: int) -> list[list[int]]:
    """The reassociation of `rank` dims that merges dim p into its neighbour (the one before
    it, or after it for dim 0)."""
    groups = [[j] for j in range(rank) if j != p]
    groups[max(p - 1, 0)].insert(0 if p == 0 else len(groups[max(p - 1, 0)]), p)
    return groups


def _without_dim(amap, d: int) -> str:
    """`amap` (an ir.AffineMap) with dim d dropped from its results and the later dims
    renumbered, as text."""
    from mlir import ir
    results = []
    for e in amap.results:
        if isinstance(e, ir.AffineDimExpr):
            position = ir.AffineDimExpr(e).position
            if position == d:
                continue
            e = ir.AffineDimExpr.get(position - (position > d))
        results.append(e)
    return str(ir.AffineMapAttr.get(ir.AffineMap.get(amap.n_dims - 1, 0, results)))


def _unit_dims_collapsed(module) -> int:
    """An elementwise linalg.generic whose result is only collapsed (tensor.collapse_shape)
    to drop a unit dim of it computes the collapsed result itself, over one dim less, its
    operands collapsed the same way (see _collapse). Legalization leaves such a generic where
    stablehlo reshaped a column (gramschmidt's rank-1 update `A - q r^T` over 1000 x 1 x 1199):
    the collapse between it and the slice of it that is kept stops narrow.narrow_producers,
    and the update was computed over all columns each step, into a temporary. The number
    rewritten."""
    from mlir import ir
    done = 0
    for collapse in ops_named(module, ("tensor.collapse_shape",)):
        generic = _defining_named(collapse.operands[0], "linalg.generic")
        if generic is None or len(generic.results) != 1 or len(list(generic.results[0].uses)) != 1:
            continue
        if not all_parallel(generic) or ops_named(generic, ("linalg.index",)):
            continue
        source = ir.RankedTensorType(collapse.operands[0].type)
        groups = _reassociation(collapse)
        units = [j for g in groups if len(g) == 2 for j in g if source.shape[j] == 1]
        if len(groups) != source.rank - 1 or not units or groups != _merged(source.rank, units[0]):
            continue
        d = units[0]
        maps = [ir.AffineMapAttr(a).value for a in generic.attributes["indexing_maps"]]
        if maps[-1] != ir.AffineMap.get_identity(source.rank):
            continue
        positions = [_at(m, d) for m in maps]
        if any(len(at) > 1 for at in positions):
            continue  # an operand read at (.., d, .., d, ..): one collapse would not remove both
        n_in = len(generic.opview.inputs)
        with ir.Location.unknown(), ir.InsertionPoint(generic):
            operands = [_collapse(v, _merged(len(m.results), at[0])) if at else v
                        for v, m, at in zip(generic.operands, maps, positions)]
            new_maps = [ir.Attribute.parse(_without_dim(m, d)) for m in maps]
            iterators = ir.ArrayAttr(generic.attributes["iterator_types"])
            new = generic_like(generic, operands, n_in, new_maps)
        new.attributes["iterator_types"] = ir.ArrayAttr.get([iterators[j] for j in range(len(iterators)) if j != d])
        new.results[0].set_type(collapse.results[0].type)
        generic.regions[0].blocks[0].append_to(new.regions[0])
        collapse.results[0].replace_all_uses_with(new.results[0])
        collapse.erase()
        generic.erase()
        done += 1
    return done


def _collapse(value, groups):
    """`value` collapsed by `groups` (a reassociation, which merges a unit dim): the source
    of the tensor.expand_shape that defines it by the same groups, the tensor.extract_slice
    that defines it taken rank-reduced, a new tensor.empty for a static one, else a
    tensor.collapse_shape (elementwise fusion folds a reshape into the vecmat, which makes it
    a generic over the unit dim again)."""
    from mlir.dialects import tensor
    expand = _defining_named(value, "tensor.expand_shape")
    if expand is not None and _reassociation(expand) == groups:
        return expand.operands[0]
    result = _collapsed_type(value, groups)
    empty = _defining_named(value, "tensor.empty")
    if empty is not None and len(empty.operands) == 0:
        return tensor.empty(result.shape, result.element_type)
    extract = _defining_named(value, "tensor.extract_slice")
    if extract is not None:  # the slice taken rank-reduced (a collapse would be fused into the vecmat too)
        view = extract.opview
        return tensor.ExtractSliceOp(result, view.source, view.offsets, view.sizes, view.strides,
                                     view.static_offsets, view.static_sizes, view.static_strides).result
    return tensor.collapse_shape(result, value, groups)


def _collapsed_type(value, groups):
    """The type of `value` (a ranked tensor) collapsed by `groups` (a reassociation)."""
    from mlir import ir
    t = ir.RankedTensorType(value.type)
    shape = []
    for group in groups:
        size = 1
        for j in group:
            size *= t.shape[j]
        shape.append(size)
    return ir.RankedTensorType.get(shape, t.element_type)


def _zero_fill(value) -> bool:
    """Whether `value` is a `linalg.fill` of 0.0 into a tensor.empty, used once."""
    from mlir import ir
    fill = _defining_named(value, "linalg.fill")
    if fill is None or len(list(value.uses)) != 1:
        return False
    constant = _defining_named(fill.operands[0], "arith.constant")
    empty = _defining_named(fill.operands[1], "tensor.empty")
    return constant is not None and empty is not None and \
        ir.FloatAttr(constant.attributes["value"]).value == 0.0


def _accumulating_matmuls(module) -> int:
    """`X - matmul(L, U)` (a linalg.matmul into zeros, then an elementwise subtraction; LU's
    trailing block less L21 U12, as legalization writes stablehlo's dot_general and
    subtract) becomes `matmul(-L, U)` accumulating into X: the product is added to the
    block where it lies (bufferized in place, as the linalg raise's blocked LU does) rather
    than written to a temporary that a second pass over the block subtracts and copies
    back. The sums are the same but for rounding (X + sum(-l u) term by term, against X
    less the whole sum). Returns how many."""
    from mlir import ir
    from mlir.dialects import linalg, tensor

    count = 0
    for op in ops_named(module, ("linalg.generic",)):
        if len(op.operands) != 3 or len(op.results) != 1 or not all_parallel(op) \
                or not all(map(is_identity_map, indexing_maps(op))):
            continue
        block = op.regions[0].blocks[0]
        body = [o.operation for o in block.operations]
        if [o.name for o in body] != ["arith.subf", "linalg.yield"] or \
                list(body[0].operands) != list(block.arguments)[:2] or body[1].operands[0] != body[0].result:
            continue
        x, product = op.operands[0], op.operands[1]
        matmul = _defining_named(product, "linalg.matmul")
        if matmul is None or len(list(product.uses)) != 1 or not _zero_fill(matmul.operands[2]) \
                or x.type != product.type:
            continue
        lhs, rhs = matmul.operands[0], matmul.operands[1]
        t = ir.RankedTensorType(lhs.type)
        if not t.has_static_shape:
            continue
        with op.location, ir.InsertionPoint(op):
            negated = linalg.negf(lhs, outs=[tensor.empty(t.shape, t.element_type)])
            accumulated = linalg.matmul(negated, rhs, outs=[x])
        op.results[0].replace_all_uses_with(accumulated)
        fill = _defining_named(matmul.operands[2], "linalg.fill")
        op.erase()
        matmul.erase()
        fill.erase()
        count += 1
    return count


def _rank0(value) -> bool:
    from mlir import ir
    return isinstance(value.type, ir.RankedTensorType) and ir.RankedTensorType(value.type).rank == 0


def _scalar_operands(module) -> int:
    """Legalization computes scalars (loop counters, durbin's alpha and beta) as 0-d tensors:
    each 0-d input of a generic becomes a `tensor.extract` before it that the payload uses,
    and a generic over 0-d tensors alone becomes its payload on scalars. A bound read from
    memory in every iteration of a generic that also stores (durbin's flips) is loaded again
    per element; a scalar stays in a register, as in linalg's own raise. The number of
    generics rewritten."""
    from mlir import ir
    from mlir.dialects import tensor

    done = 0
    for generic in ops_named(module, ("linalg.generic",)):
        view = generic.opview
        inputs, outputs = list(view.inputs), list(view.outputs)
        drop = [i for i, v in enumerate(inputs) if _rank0(v)]
        scalar = all(_rank0(v) for v in inputs + outputs) and len(generic.results) == len(outputs)
        if not drop and not scalar:
            continue
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(generic), generic.location:
            for i in drop:
                block.arguments[i].replace_all_uses_with(tensor.extract(inputs[i], []))
            if scalar:
                for k, init in enumerate(outputs):
                    argument = block.arguments[len(inputs) + k]
                    if list(argument.uses):
                        argument.replace_all_uses_with(tensor.extract(init, []))
                body = [o.operation for o in block.operations]
                for o in body[:-1]:
                    o.move_before(generic)
                values = [tensor.from_elements(r.type, [v]) for r, v in zip(generic.results, body[-1].operands)]
                for r, v in zip(generic.results, values):
                    r.replace_all_uses_with(v)
                generic.erase()
                done += 1
                continue
            keep = [i for i in range(len(inputs) + len(outputs)) if i not in drop]
            maps = list(generic.attributes["indexing_maps"])
            new = generic_like(generic, [generic.operands[i] for i in keep], len(inputs) - len(drop),
                               [maps[i] for i in keep])
        block.append_to(new.regions[0])
        for i in reversed(drop):
            block.erase_argument(i)
        for old, r in zip(generic.results, new.results):
            old.replace_all_uses_with(r)
        generic.erase()
        done += 1
    return done
