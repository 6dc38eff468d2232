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
- a left-side `stablehlo.triangular_solve` of a vector (trisolv's 50 x 50 blocks) becomes
  a call of linalg's loop form of the solve, the op linalg's grammar raises trisolv with
  (synth.grammar.linalg_library.TriangularSolve), inlined after legalization;
- jaxlib's `stablehlo-legalize-to-linalg` rewrites every other op; then, in the `mlir`
  context, the solves are inlined, linalg's elementwise fusion runs at once, and the
  generics that sum a vector times a matrix's rows are named `linalg.vecmat` (`_vecmats`).
An op that none covers (a triangular solve of a matrix, `stablehlo.sort`, ...) is an error
naming it: the backend reports the kernel as not compiled, it never guesses.

PolyBench LARGE raised to stablehlo, one thread, Intel Xeon host (2026-11-26), this backend
against XLA side by side (medians of 3 rounds of 5 calls): trisolv 6.34 -> 2.00 ms, bicg
3.72 -> 2.65 ms, mvt 5.59 -> 4.32 ms, atax 5.13 -> 2.97 ms, jacobi-1d 0.42 -> 0.37 ms (one
round); XLA stays faster on the contractions (gemm 0.045 against 0.100 s), doitgen,
gemver, cholesky and durbin (its masked whole-vector steps and gathers are not in the forms
the pipeline narrows: 13 ms against XLA's 7.9 ms); gramschmidt's step carries a buffer the
deallocation lowering aborts on (a backend error).
"""

from __future__ import annotations

import re
from functools import lru_cache

from synth.backends.in_place import nested_ops, ops_named
from synth.errors import ExecutionError

_LEGALIZE = "builtin.module(func.func(stablehlo-legalize-to-linalg,canonicalize))"
_FUSE = "builtin.module(inline,func.func(linalg-fuse-elementwise-ops),canonicalize)"


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
    inlined. Solves of wider matrices are left (and named as not lowered)."""
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
        if list(b_type.shape) not in ([n], [n, 1]) or dtype not in ("f32", "f64"):
            continue
        key = (n, dtype, str(op.attributes["lower"]) == "true", str(op.attributes["unit_diagonal"]) == "true",
               "NO_TRANSPOSE" not in str(op.attributes["transpose_a"]))
        with ir.Location.unknown():
            vector = ir.RankedTensorType.get([n], a_type.element_type)
            if key not in defined:
                name = defined[key] = _SOLVE.format(len(defined))
                text = emit_op_function(TriangularSolve("linalg.triangular_solve"),
                                        [TensorType((n, n), dtype), TensorType((n,), dtype)],
                                        attrs(lower=key[2], unit_diagonal=key[3], transpose_a=key[4]), name=name)
                bodies[name] = text.replace("func.func @", "func.func private @", 1)
                func.FuncOp(name, ([a_type, vector], [vector]), visibility="private",
                            ip=ir.InsertionPoint(module.body))
            name = defined[key]
            ip = ir.InsertionPoint(op)
            b = op.operands[1]
            if len(b_type.shape) == 2:
                b = stablehlo.ReshapeOp(vector, b, ip=ip).result
            x = func.CallOp([vector], ir.FlatSymbolRefAttr.get(name), [op.operands[0], b], ip=ip).result
            if len(b_type.shape) == 2:
                x = stablehlo.ReshapeOp(op.results[0].type, x, ip=ip).result
        op.results[0].replace_all_uses_with(x)
        op.erase()
    return bodies


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
        _one_use_masks(module)
        solves = _solves_as_calls(module)
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
    for name, body in solves.items():  # the declarations become the definitions
        text = re.sub(rf"^ *func\.func private @{name}\(.*$", lambda _: body, text, count=1, flags=re.M)
    return _in_upstream(text)


def _in_upstream(text: str) -> str:
    """`text` parsed in the `mlir` context: the solves inlined, elementwise producers fused
    into their consumers at once (before anything, cse, merges the per-use masks again), and
    the transposed matrix-vector products named (`_vecmats`)."""
    from mlir import ir, passmanager

    with ir.Context():
        module = ir.Module.parse(text)
        passmanager.PassManager.parse(_FUSE).run(module.operation)
        _vecmats(module)
        return str(module)


_VECMAT_MAPS = {  # the generic's maps (matrix, vector, result) -> the vecmat's operand order
    ("affine_map<(d0, d1) -> (d1, d0)>", "affine_map<(d0, d1) -> (d1)>", "affine_map<(d0, d1) -> (d0)>"): (1, 0),
    ("affine_map<(d0, d1) -> (d1)>", "affine_map<(d0, d1) -> (d1, d0)>", "affine_map<(d0, d1) -> (d0)>"): (0, 1),
}


def _vecmats(module) -> None:
    """A `linalg.generic` that sums A[k, j] * x[k] over k, as legalization writes the
    dot_general of a vector with a matrix's rows (y^T A: atax, mvt, gemver), replaced by
    the `linalg.vecmat` it is, which the mlir-cpu pipeline interchanges to walk A's rows
    and fuses with a matvec on the same matrix (row_passes). Same sum, same order."""
    from mlir import ir
    from mlir.dialects import linalg

    for op in ops_named(module, ("linalg.generic",)):
        if len(op.operands) != 3 or len(op.results) != 1:
            continue
        maps = tuple(str(m) for m in op.attributes["indexing_maps"])
        order = _VECMAT_MAPS.get(maps)
        iterators = [str(t) for t in op.attributes["iterator_types"]]
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
            vec = linalg.vecmat(op.operands[order[0]], op.operands[order[1]], outs=[op.operands[2]])
        op.results[0].replace_all_uses_with(vec)
        op.erase()
