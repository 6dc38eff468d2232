"""Stablehlo ops that stablehlo-legalize-to-linalg does not lower well, as calls of functions
written in linalg (synth.backends.stablehlo_linalg.to_linalg defines them after
legalization): triangular solves, Cholesky and LU factorizations, selects on a counter's
comparison, point gathers."""

from __future__ import annotations

import re

from synth.backends.ir_toolkit import defining_named, nested_ops, ops_named

_SOLVE = "__synth_triangular_solve_{}"


def solves_as_calls(module) -> dict[str, str]:
    """Each left-side `stablehlo.triangular_solve` of a vector (or an n x 1 matrix, as the
    stablehlo emitter writes one) replaced by a call of a private function, declared here;
    {its name: its definition}, the loop form of linalg's grammar (linalg_library's
    TriangularSolve, the op linalg raises trisolv with), defined after legalization and
    inlined; of a matrix by A itself (not transposed), a call of `_matrix_solve_body`'s
    function. A shape-generic raise's vector solve (tensor<?x?> by tensor<?>, or by a ?x1
    dynamic_reshape of one that every use reshapes back) calls the grammar's shape-generic
    body (`_generic_function`). Other solves are left (and named as not lowered)."""
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
        dyn = not a_type.has_static_shape or not b_type.has_static_shape
        if dyn:  # shape-generic: a vector solve of tensor<?x?> and tensor<?> (or ?x1 reshaped from one) only
            column = _dynamic_column(op, n)
            if a_type.rank != 2 or a_type.shape[1] != n or column is None:
                continue
            vector, back = column
            _dynamic_vector_solve(op, vector, back, defined, bodies, (n, dtype, lower, unit, transposed), module.body)
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


def _dynamic_column(op, n):
    """(the tensor<?> right-hand side, the ops reshaping the result back to tensor<?>) of a
    shape-generic vector solve: b a tensor<?> itself (no ops), or a dynamic_reshape of one
    to ?x1 whose result every use reshapes back; None otherwise."""
    from jaxlib.mlir import ir

    b = op.operands[1]
    b_type = ir.RankedTensorType(b.type)
    if list(b_type.shape) == [n]:
        return b, []
    if list(b_type.shape) != [n, 1]:
        return None
    src = b.owner
    if isinstance(src, ir.Block) or src.name != "stablehlo.dynamic_reshape" \
            or list(ir.RankedTensorType(src.operands[0].type).shape) != [n]:
        return None
    back = [use.owner for use in op.results[0].uses]
    if not back or any(u.name != "stablehlo.dynamic_reshape" or u.results[0].type != src.operands[0].type
                       for u in back):
        return None
    return src.operands[0], back


def _dynamic_vector_solve(op, vector, back, defined: dict, bodies: dict, key: tuple, body) -> None:
    """Replace the shape-generic solve `op` by a call of `_generic_function`'s solve
    on `vector` (its uses: the reshapes `back`, erased with the reshape feeding it), declared
    in `body` (the module's)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func

    from synth.grammar.linalg_library import TriangularSolve
    from synth.grammar.op import attrs

    n, dtype, lower, unit, transposed = key
    key = ("vector", *key)
    a_type, solved = op.operands[0].type, vector.type
    with ir.Location.unknown():
        if key not in defined:
            name = defined[key] = _SOLVE.format(len(defined))
            text = _generic_function(TriangularSolve("linalg.triangular_solve"),
                                     attrs(lower=lower, unit_diagonal=unit, transpose_a=transposed), 2, 1, dtype, name)
            bodies[name] = text.replace("func.func @", "func.func private @", 1)
            func.FuncOp(name, ([a_type, solved], [solved]), visibility="private",
                        ip=ir.InsertionPoint(body))
        x = func.CallOp([solved], ir.FlatSymbolRefAttr.get(defined[key]), [op.operands[0], vector],
                        ip=ir.InsertionPoint(op)).result
    if not back:
        op.results[0].replace_all_uses_with(x)
    for u in back:
        u.results[0].replace_all_uses_with(x)
        u.erase()
    feed = op.operands[1].owner
    op.erase()
    if back and not list(feed.results[0].uses):
        feed.erase()


def _generic_function(op, op_attrs, *ranks_and_dtype_and_name) -> str:
    """The function of the linalg grammar's `op` on n x n (rank 2) and n (rank 1) operands
    of a shape-generic raise (tensor<?x?>, tensor<?>), its shape-generic body: n read by
    tensor.dim of the first operand. `ranks_and_dtype_and_name`: the operands' ranks (0:
    none), the element type, the function's name. GenericUnsupported where the op has no
    such body."""
    from synth.analysis.symbols import Size, SizeExpr
    from synth.grammar.dims import GenericSizes, SizeSource
    from synth.grammar.op import emit_function
    from synth.grammar.types import TensorType

    *ranks, dtype, name = ranks_and_dtype_and_name
    n = Size(2, SizeExpr.symbol("n"), frozenset({"n"}))  # (2: a placeholder; the body reads n)
    types = [TensorType((n,) * r, dtype) for r in ranks if r]
    sizes = GenericSizes("linalg", {"n": SizeSource("n", "dim", 0, 0)}, {})
    return emit_function(name, types, lambda em, args: [em.apply(op, args, types, op_attrs)], sizes=sizes)


_LIBRARY = "__synth_factor_{}"


def factorizations_as_calls(module) -> dict[str, str]:
    """Each `stablehlo.cholesky` (lower, a static square matrix of f32 / f64) and each LU
    (the `stablehlo.while` marked `synth.library = "lu"`, its matrix the state after the
    counter) replaced by a call of a private function, declared here; {its name: its
    definition}: the linalg grammar's op of the same meaning (synth.grammar.linalg_library:
    Cholesky's column loop, zeros above the diagonal, where stablehlo leaves them
    implementation-defined and the raise zeroes them; Lu's elimination steps), an scf.for
    marked `synth.library` that the linalg library lowering (synth.backends.library_linalg)
    then blocks by panels as it does the linalg raise's own: panels in an scf.for with
    offsets as SSA values, so the compiled code is a loop, not n / b unrolled panels of
    static slices (each a copy of the code: ludcmp's stablehlo raise took 221-247 s to
    compile on mlir-cpu at LARGE)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func

    from synth.grammar.dims import GenericUnsupported
    from synth.grammar.op import attrs, emit_op_function, op_by_name
    from synth.grammar.types import TensorType

    found = []  # (op, which op, its matrix operand, the result it replaces), before any is erased
    for op in ops_named(module, ("stablehlo.cholesky", "stablehlo.while")):
        if op.name == "stablehlo.cholesky":
            if "lower" in op.attributes and str(op.attributes["lower"]) == "true":
                found.append((op, "cholesky", 0, 0))
        elif "synth.library" in op.attributes and ir.StringAttr(op.attributes["synth.library"]).value == "lu" \
                and len(op.operands) == 2:
            found.append((op, "lu", 1, 1))
    defined: dict[tuple, str] = {}
    bodies: dict[str, str] = {}
    for op, kind, at, result in found:
        a_type = ir.RankedTensorType(op.operands[at].type)
        if a_type.rank != 2 or a_type.shape[0] != a_type.shape[1] or str(a_type.element_type) not in ("f32", "f64"):
            continue  # (a shape-generic raise's tensor<?x?>: both dims dynamic, read as n by tensor.dim)
        n, dtype = a_type.shape[0], str(a_type.element_type)
        key = (kind, n, dtype)
        with ir.Location.unknown():
            if key not in defined:
                name = _LIBRARY.format(len(defined))
                library = op_by_name("linalg", f"linalg.{kind}")
                if a_type.has_static_shape:
                    text = emit_op_function(library, [TensorType((n, n), dtype)], attrs(), name=name)
                else:
                    try:
                        text = _generic_function(library, attrs(), 2, 0, dtype, name)
                    except GenericUnsupported:
                        continue
                defined[key] = name
                bodies[name] = text.replace("func.func @", "func.func private @", 1)
                func.FuncOp(name, ([a_type], [a_type]), visibility="private", ip=ir.InsertionPoint(module.body))
            call = func.CallOp([a_type], ir.FlatSymbolRefAttr.get(defined[key]), [op.operands[at]],
                               ip=ir.InsertionPoint(op))
        op.results[result].replace_all_uses_with(call.result)
        if all(not list(r.uses) for r in op.results):
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


def compare_direction(compare) -> str:
    """The comparison_direction of a stablehlo.compare (EQ, LT, ...)."""
    return re.search(r"comparison_direction (\w+)", str(compare.attributes["comparison_direction"])).group(1)


def _counter_compare(compare):
    """(dim, predicate, k) when `compare` is `iota(dim) <dir> broadcast(k)` (either side,
    k a 0-d integer tensor, <dir> an order), the mask of a counter select; else None."""
    from jaxlib.mlir import ir

    if "compare_type" in compare.attributes and "SIGNED" not in str(compare.attributes["compare_type"]):
        return None
    direction = compare_direction(compare)
    if direction not in _DIRECT:
        return None
    for iota_at, table in ((0, _DIRECT), (1, _FLIPPED)):
        iota = defining_named(compare.operands[iota_at], "stablehlo.iota")
        broadcast = defining_named(compare.operands[1 - iota_at], "stablehlo.broadcast_in_dim")
        if iota is None or broadcast is None or ir.RankedTensorType(broadcast.operands[0].type).rank != 0:
            continue
        k_type = ir.RankedTensorType(broadcast.operands[0].type).element_type
        if str(k_type) not in ("i32", "i64"):
            continue
        return ir.IntegerAttr(iota.attributes["iota_dimension"]).value, table[direction], broadcast.operands[0]
    return None


def _zero_splat(value) -> bool:
    """Whether `value` is a float tensor of zeros: a splat constant or a broadcast of 0."""
    broadcast = defining_named(value, "stablehlo.broadcast_in_dim")
    if broadcast is not None:
        value = broadcast.operands[0]
    constant = defining_named(value, "stablehlo.constant")
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


def counter_selects_as_calls(module) -> dict[str, str]:
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
        compare = defining_named(op.operands[0], "stablehlo.compare")
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


def gathers_as_calls(module) -> dict[str, str]:
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
            reshape = defining_named(op.operands[1], "stablehlo.reshape")
            if reshape is not None and reshape.operands[0].type == vector:
                indices = reshape.operands[0]
            else:
                indices = stablehlo.ReshapeOp(vector, op.operands[1], ip=ip).result
            call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(defined[key]),
                               [op.operands[0], indices], ip=ip)
        op.results[0].replace_all_uses_with(call.result)
        op.erase()
    return bodies
