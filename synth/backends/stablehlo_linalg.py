"""StableHLO to linalg on tensors, so that the raised stablehlo runs through the mlir-cpu
pipeline too (as IREE compiles its stablehlo input: legalize to linalg, then codegen).

In three modules: this one (the rewrites on stablehlo and the legalization),
synth.backends.stablehlo_calls (ops lowered as calls of linalg functions) and
synth.backends.linalg_cleanup (the legalized module cleaned up in the upstream context).

`to_linalg(text)` takes a module holding the raised function (synth.backends.registry's
BackendEntry.text) and returns the same function over tensors in upstream dialects
(linalg, tensor, arith, math, scf), printed so that the `mlir` (xtc) context parses it:
- a boolean tensor used twice is computed once per use (`_one_use_masks`), so that
  elementwise fusion folds each mask into its select;
- a counted `stablehlo.while` (synth's time and step loops; a generic raise's loops to
  `n - 1` read from tensor dims: synth.backends.stablehlo_whiles says which are) becomes an
  `scf.for` over the counter, the other values its iter_args (jaxlib's passes have no
  control flow legalization; the mlir-cpu pipeline's loop rewrites are written for
  scf.for). Any other while is an error: an `scf.while` bufferizes with a copy of every
  carried value per step and allocations whose deallocation MLIR's LLVM lowering rejects
  (an assertion);
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
- LU (the `stablehlo.while` marked `synth.library = "lu"`) and `stablehlo.cholesky` become
  calls of the linalg grammar's ops of the same meaning, loops marked `synth.library`
  (stablehlo_calls.factorizations_as_calls), which mlir-cpu then blocks as it does the
  linalg raise's (synth.backends.library_linalg: the panels an scf.for with SSA offsets);
- a left-side `stablehlo.triangular_solve` of a vector (trisolv's 50 x 50 blocks) becomes
  a call of linalg's loop form of the solve, the op linalg's grammar raises trisolv with
  (synth.grammar.linalg_library.TriangularSolve); of a matrix (LU's 50 x m panels), a call
  of a loop over the rows, each the row less a linalg.vecmat of the rows solved before
  (`_matrix_solve_body`). lu and ludcmp raised to stablehlo now run on mlir-cpu: at LARGE,
  one thread, 0.457 s and 0.448 s (XLA 0.208 and 0.220, their linalg raises 0.174 and
  0.227), values equal to the loops';
- the dynamic ops of a shape-generic raise (dynamic_broadcast_in_dim, dynamic_update_slice,
  dynamic_reshape, dynamic_gather) are put in forms legalization lowers, or rewritten to
  tensor ops (synth.backends.stablehlo_dynamic);
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

from synth.backends.ir_toolkit import defining_named, nested_ops, ops_named
from synth.backends.linalg_cleanup import in_upstream
from synth.backends.stablehlo_dynamic import dynamic_ops_lowerable
from synth.backends.stablehlo_whiles import counted, while_to_for
from synth.backends.stablehlo_calls import (
    counter_selects_as_calls, compare_direction, factorizations_as_calls, gathers_as_calls, solves_as_calls)
from synth.errors import ExecutionError
from synth.grammar.verifier import stablehlo_context

# chlo.erf (C's erf: synth.grammar.unary_math) expanded first, as XLA does
_LEGALIZE = "builtin.module(func.func(chlo-legalize-to-stablehlo,stablehlo-legalize-to-linalg,canonicalize))"


@lru_cache(maxsize=1)
def _register_passes() -> None:
    from jaxlib.mlir.dialects import stablehlo

    stablehlo.register_stablehlo_passes()


def _context():
    """grammar.verifier's jaxlib context, with stablehlo's passes registered (its
    legalization to linalg)."""
    _register_passes()
    return stablehlo_context()[1]


def _splat_int(value) -> int | None:
    """The integer every element of `value` holds (a splat integer constant or a broadcast
    of a 0-d one), else None."""
    broadcast = defining_named(value, "stablehlo.broadcast_in_dim")
    constant = defining_named(value if broadcast is None else broadcast.operands[0], "stablehlo.constant")
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


def _slice_gathers_as_slices(module) -> int:
    """Each `stablehlo.gather` of one slice (a vector of start indices, one per dim of
    `start_index_map`; no batch dims) as the `stablehlo.dynamic_slice` it is, reshaped to
    drop the collapsed dims. A shape-generic raise reads a column or row at the counter so
    (`dynamic_gather`: a dynamic_slice's sizes are static), made a gather of static sizes
    when specialized (deriche's sweeps); legalization would make the gather a generic that
    reads each element by tensor.extract, where a dynamic_slice becomes a tensor.extract_slice
    (the form the static raise has, the one synth.backends.lane_blocks runs by blocks of
    lanes). Both clamp each start index to [0, dim - size]; a dim outside `start_index_map`
    starts at 0."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    count = 0
    for op in ops_named(module, ("stablehlo.gather",)):
        dims = stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
        a_type, i_type = (ir.RankedTensorType(v.type) for v in op.operands)
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        kept = [d for d in range(a_type.rank) if d not in dims.collapsed_slice_dims]
        if i_type.rank != 1 or dims.index_vector_dim != 0 or list(dims.operand_batching_dims) or \
                list(dims.start_indices_batching_dims) or not i_type.has_static_shape or \
                i_type.shape[0] != len(dims.start_index_map) or \
                list(dims.offset_dims) != list(range(len(kept))) or \
                any(sizes[d] != 1 for d in dims.collapsed_slice_dims):
            continue
        ip = ir.InsertionPoint(op)
        with op.location:
            scalar = ir.RankedTensorType.get([], i_type.element_type)
            zero = ir.Operation.create("stablehlo.constant", results=[scalar], ip=ip, attributes={
                "value": ir.DenseElementsAttr.get_splat(scalar, ir.IntegerAttr.get(i_type.element_type, 0))}).result
            starts = [zero] * a_type.rank
            for k, d in enumerate(dims.start_index_map):
                one = stablehlo.SliceOp(op.operands[1], [k], [k + 1], [1], ip=ip).result
                starts[d] = stablehlo.ReshapeOp(scalar, one, ip=ip).result
            piece = stablehlo.DynamicSliceOp(op.operands[0], starts, sizes, ip=ip).result
            result = stablehlo.ReshapeOp(op.results[0].type, piece, ip=ip).result
        op.results[0].replace_all_uses_with(result)
        op.erase()
        count += 1
    return count


def _row_selects_as_updates(module) -> int:
    """Each `select(iota(d) == c, broadcast(s), y)` whose broadcast does not vary along d
    (fdtd-2d's `ey[0][j] = fict[t]`, as the stablehlo grammar sets a row) becomes
    `dynamic_update_slice(y, broadcast(s) over that one row, c at d)`: legalization would
    write a generic over the whole array, where the update is an insert of the row (the form
    of the linalg raise, which synth.backends.wavefront takes). Returns how many."""
    from jaxlib.mlir import ir

    count = 0
    for op in nested_ops(module):
        compare = defining_named(op.operands[0], "stablehlo.compare") if op.name == "stablehlo.select" else None
        if compare is None or compare_direction(compare) != "EQ":
            continue
        found = None
        for at in (0, 1):
            iota, c = defining_named(compare.operands[at], "stablehlo.iota"), _splat_int(compare.operands[1 - at])
            if iota is not None and c is not None:
                found = ir.IntegerAttr(iota.attributes["iota_dimension"]).value, c
        x = defining_named(op.operands[1], "stablehlo.broadcast_in_dim")
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
        parts = [defining_named(v, "stablehlo.slice") for v in op.operands]
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
        calls = factorizations_as_calls(module)  # first: the LU's own selects stay in it
        calls.update({**counter_selects_as_calls(module), **gathers_as_calls(module)})
        _slice_gathers_as_slices(module)
        _row_selects_as_updates(module)
        _rotations_as_updates(module)
        _concatenates_as_updates(module)
        _one_use_masks(module)
        _transposed_rhs_copied(module)
        calls.update(solves_as_calls(module))
        dynamic_ops_lowerable(module)  # after the solves: they take trisolv's ?x1 reshapes
        # outer ones first; a nested while moves into its parent's scf.for and is rewritten there
        for op in ops_named(module, ("stablehlo.while",)):
            loop = counted(op)
            if loop is None:
                raise ExecutionError(f"stablehlo to linalg: {_where(op)}: a stablehlo.while that is not "
                                     "a counted loop (an integer k carried from any start while k < b, <= b, "
                                     "> b or >= b, b fixed while it runs, k stepped by a constant towards b) "
                                     "has no lowering here")
            while_to_for(op, loop)
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
    return in_upstream(text)
