"""IREE's stage below a raise on the CPU: each f64 matrix product as IREE's own data tiling
would write it, had it tiles for f64: the operands packed into tiles of static extents
(`linalg.pack`, padded with zeros), the product of the tiles (`linalg.mmt4d`) and the
result unpacked (`linalg.unpack`). Used by synth.backends.iree for llvm-cpu, both targets,
a static raise and a generic one compiled as it is: a stablehlo raise's
`stablehlo.dot_general` (M x K times K x N, the form synth.backends.iree_dynamic leaves
every other matrix product in at dynamic extents; at static extents also with a transposed
operand, and a static p x q x K array times K x N, doitgen's, as (p q) x K by
`stablehlo.reshape`), a linalg raise's `linalg.matmul` (default maps) and a
`linalg.generic` that is a matrix product in any spelling (synth.backends.iree_contraction:
doitgen's 4-loop A[r, q, p] C4[p, s], transposed operands, the init's dims in any order).

Why: at dynamic extents IREE 3.13's CPU codegen tiles a matmul [64, 64] with vectors of
[4, 4] x 16 and masks every one of them (peeling its remainder fails: "operations with
large vector sizes"), and its data tiling resolves f64 to no tiles; syrk's generic raise at
LARGE (1200 x 1000) took 0.24-0.27 s of CPU a call where the static raise takes 0.075 s
(the same single dispatch: the product, A A^T, fused with the masked update). Packed, the
inner tiles are static: the mmt4d's micro kernel is unmasked, only the packs pad (0.068 s
stablehlo, 0.046 s linalg; README, "Matrix products of a generic raise packed"). Each
element is the sum of the same products over k (the padding adds zero products), in the
order of k.

An operand given by a 2-d transpose (`stablehlo.transpose`, as iree_dynamic writes a
transposed product at dynamic extents, or `linalg.transpose`: syr2k's A B^T) is packed from
the transpose's input by the pack's permutation, as a transposed `dot_general` operand
(`_untransposed`). At dynamic extents each pack is split into its full tiles and strips of
partial tiles (synth.backends.iree_split_pack: IREE reads a padded pack's every tile masked,
element by element); syr2k's generic stablehlo raise at LARGE: its packs and transposes
13.2 ms a call, 6.9 ms split and untransposed (static 3.6 ms; perf, README).

The product becomes a call of a private function holding that form (IREE inlines it), one
per kind: `@synth_packed_product_f64(a, b)` (zero init; stablehlo) and
`@synth_packed_accumulate_f64(a, b, c)` (c + a b; linalg.matmul's `outs`), `_at` / `_bt`
in the name where a / b is given transposed (the pack permutes it). A product with a static
extent calls a private wrapper named for its types, which casts the operands to the dynamic
types, calls that function and casts the result back; IREE inlines both and folds the
casts into static packs. Static, the packed form is the faster too: IREE tiles a static
f64 matmul [8, 8] unmasked but with no data tiling (gemm at LARGE, 1 core: 0.17-0.18 s of
CPU a call, packed 0.03 s; README). Only at a function's top level: a static product in a
loop (the library ops' blocked forms, synth.backends.solve_loops) is left to IREE. The tiles
follow the host's vectors (synth.backends.host): M0 x N0 x K0 = 8 x 16 x 1 with AVX-512
(two vectors of 8 lanes per row: 16 accumulators of its 32 registers; 8 x 8 took 1.6x that
time, 16 x 8 1.3x), else 8 x 4 x 1 (one vector of 4 per row: 8 of 16 registers, the
register budget of IREE's own f32 tile for AVX2, 8 x 8; not measured here). At dynamic
extents the split packs (above) also spare IREE's slow padded 8 x 1 tile (doitgen's A:
14 ms a call padded, 3 ms split); a product with a static extent behind a dynamic type
(`_static_behind`) keeps its packs whole. Conformance tests:
tests/test_iree_packed.py (real IREE against NumPy, extents 1, primes, tile multiples and
off by one; dynamic, static and mixed extents; both targets) and
tests/test_iree_contraction.py (the generics, also bit for bit against IREE's own compile
of them)."""

from __future__ import annotations

import re

from synth.backends.iree_contraction import Contraction, contraction
from synth.backends.iree_contraction import wrapper as contraction_wrapper
from synth.backends.ir_toolkit import operation, ops_named
from synth.backends.iree_dynamic import DYNAMIC
from synth.backends.iree_split_pack import pack_lines, whole_pack

PRODUCT, ACCUMULATE = "synth_packed_product", "synth_packed_accumulate"
FLAT = "flat"  # the form of a static (p x q x K) times (K x N) dot_general


def tiles() -> tuple[int, int, int]:
    """(M0, N0, K0) of this host (above)."""
    from synth.backends.host import has_avx512

    return (8, 16, 1) if has_avx512() else (8, 4, 1)


def lower_stablehlo(text: str, tile: tuple[int, int, int] | None = None) -> tuple[str, int]:
    """Each f64 `stablehlo.dot_general` M x K times K x N of `text` (static: also with a
    transposed operand, or p x q x K times K x N) as the packed product; (module text, how
    many)."""
    if "stablehlo.dot_general" not in text:
        return text, 0
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    with jax_mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        return _lower(ir, module, {"stablehlo.dot_general"}, _is_dot_product, PRODUCT, tile or tiles())


def lower_linalg(text: str, tile: tuple[int, int, int] | None = None) -> tuple[str, int]:
    """Each f64 `linalg.matmul` (default maps, no cast) of `text` as the packed product
    accumulated into its `outs`; (module text, how many)."""
    if "linalg.matmul" not in text and "linalg.generic" not in text:
        return text, 0
    from mlir import ir

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        return _lower(ir, module, {"linalg.matmul", "linalg.generic"}, _is_matmul, ACCUMULATE, tile or tiles())


def _lower(ir, module, names: set, accept, kind: str, tile) -> tuple[str, int]:
    # a product with a static extent only at a function's top level: the library ops'
    # blocked forms and the substitution loops (static blocks in loops) keep IREE's own
    found = [(op, form) for op in ops_named(module, names) if (form := accept(ir, op)) is not None
             and (_all_dynamic(ir, op) or op.parent.name == "func.func")]
    if not found:
        return str(module), 0
    operands = 2 if kind == PRODUCT else 3
    matrix = str(ir.RankedTensorType.get([DYNAMIC, DYNAMIC], ir.F64Type.get()))
    callees = {}  # callee -> (its types, operands then result; its definition)
    for op, form in found:
        args, result_type = list(op.operands)[:operands], op.results[0].type
        if isinstance(form, str) and form != FLAT:  # an operand given by a transpose: its input,
            # packed by the permutation
            at, bt = "_at" in form, "_bt" in form
            for pos in (0, 1):
                source = _untransposed(ir, args[pos])
                if source is not None and not (at, bt)[pos]:
                    args[pos] = source
                    at, bt = (True, bt) if pos == 0 else (at, True)
            form = ("_at" if at else "") + ("_bt" if bt else "")
        with ir.InsertionPoint(op), op.location:
            if isinstance(form, Contraction):  # a linalg.generic: through a function of its own
                generic = _packed(callees, matrix, kind, tile, form.form(),
                                  _all_dynamic(ir, op) and not _static_behind(ir, args))
                callee, text = contraction_wrapper(ir, op, form, generic)
                callees.setdefault(callee, ([*(str(v.type) for v in args), str(result_type)], text))
                call = ir.Operation.create("func.call", results=[result_type], operands=args,
                                           attributes={"callee": ir.FlatSymbolRefAttr.get(callee)})
                op.results[0].replace_all_uses_with(call.results[0])
                op.erase()
                continue
            if form == FLAT:  # (p x q x K) times (K x N) as (p q x K) times (K x N), reshaped back
                p, q, k = ir.RankedTensorType(args[0].type).shape
                args[0] = _reshape(ir, args[0], [p * q, k])
                result_type = ir.RankedTensorType.get([p * q, ir.RankedTensorType(result_type).shape[2]],
                                                      ir.F64Type.get())
                form = ""
            types = [*(str(v.type) for v in args), str(result_type)]
            callee = generic = _packed(callees, matrix, kind, tile, form,
                                       set(types) == {matrix} and not _static_behind(ir, args))
            if set(types) != {matrix}:  # static extents: a wrapper casting to the generic one's types
                callee = f"{kind}{form}_f64_" + "_".join(_extents(t) for t in types)
                callees.setdefault(callee, (types, wrapper(generic, callee, types)))
            call = ir.Operation.create("func.call", results=[result_type], operands=args,
                                       attributes={"callee": ir.FlatSymbolRefAttr.get(callee)})
            value = call.results[0]
            if value.type != op.results[0].type:
                value = _reshape(ir, value, ir.RankedTensorType(op.results[0].type).shape)
        op.results[0].replace_all_uses_with(value)
        op.erase()
    # declared here, each declaration replaced by its definition once printed (the
    # definitions' linalg and tensor ops are not in a stablehlo context's dialects)
    for callee, (types, _) in callees.items():
        declaration = ir.Module.parse(f"func.func private @{callee}({', '.join(types[:-1])}) -> {types[-1]}")
        module.body.append(declaration.body.operations[0])
    module.operation.verify()
    printed = str(module)
    for callee, (_, text) in callees.items():
        head = re.compile(rf"^\s*func\.func private @{callee}\(.*$", re.M)
        if len(head.findall(printed)) != 1:
            raise AssertionError(f"the declaration of @{callee} is not one line of the printed module")
        printed = head.sub(lambda _: text, printed, count=1)
    return printed, len(found)


def _packed(callees: dict, matrix: str, kind: str, tile, form: str, dynamic: bool) -> str:
    """The name of the packed function for `kind` and `form`, its definition added to
    `callees`: at dynamic extents with its packs split (iree_split_pack), else whole (a product
    with a static extent calls it through a wrapper of casts: IREE 3.13 folds the casts
    into the packs, but its dispatch formation fails on split packs of static pieces)."""
    name = f"{kind}{form}_f64" + ("" if dynamic else "_whole")
    operands = 2 if kind == PRODUCT else 3
    callees.setdefault(name, ([matrix] * (operands + 1), definition(kind, tile, form, dynamic, name)))
    return name


def _static_behind(ir, values) -> bool:
    """Whether a static extent stands behind one of `values` (dynamic themselves): a value
    that reshapes, casts or transposes one with a static extent (synth.backends.iree_dynamic
    writes a static operand of a transposed product so). IREE finds that extent again, and
    its conversion to flow fails on the casts it then puts around a concatenation of packs
    (`'tensor.cast' that was explicitly marked illegal`, a mixed extents test): such a
    product takes the packs whole."""
    seen, todo = set(), list(values)
    while todo:
        v = todo.pop()
        t = ir.RankedTensorType(v.type) if isinstance(v.type, ir.RankedTensorType) else None
        if t is not None and any(not t.is_dynamic_dim(i) for i in range(t.rank)):
            return True
        op = None if isinstance(v.owner, ir.Block) else operation(v.owner)
        if op is not None and op.name in THROUGH and op not in seen:
            seen.add(op)
            todo.append(op.operands[0])
    return False


THROUGH = {"tensor.reshape", "tensor.cast", "tensor.collapse_shape", "tensor.expand_shape",
           "stablehlo.transpose", "stablehlo.reshape", "stablehlo.dynamic_reshape", "linalg.transpose"}


def _untransposed(ir, value):
    """The input of the 2-d transpose (`stablehlo.transpose` or `linalg.transpose`,
    permutation [1, 0]) that gives `value`, else None. Packed from it by the pack's
    permutation, the transpose is not written out (syr2k's A B^T: at dynamic extents IREE
    3.13 runs it as a dispatch of its own, 3.2 ms a call at LARGE)."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name not in ("stablehlo.transpose", "linalg.transpose"):
        return None
    if str(owner.attributes["permutation"]) != "array<i64: 1, 0>":
        return None
    return owner.operands[0]


def _reshape(ir, value, shape: list[int]):
    t = ir.RankedTensorType.get(shape, ir.F64Type.get())
    return ir.Operation.create("stablehlo.reshape", results=[t], operands=[value]).results[0]


def _extents(t: str) -> str:
    """`tensor<1000x?xf64>` as `1000xd` (a part of a wrapper's name)."""
    return t.removeprefix("tensor<").removesuffix("xf64>").replace("?", "d")


def _all_dynamic(ir, op) -> bool:
    return all(ir.RankedTensorType(v.type).is_dynamic_dim(k) for v in [*op.operands, op.results[0]]
               for k in range(ir.RankedTensorType(v.type).rank))


def _f64_matrices(ir, values) -> bool:
    for v in values:
        t = ir.RankedTensorType(v.type)
        if t.rank != 2 or str(t.element_type) != "f64":
            return False
    return True


def _is_dot_product(ir, op) -> str | None:
    """The form of a matrix product `op` (None: another dot_general): "" for a (M x K)
    times b (K x N), "_at" where a is given K x M, "_bt" where b is N x K, "_at_bt" (the
    transposed forms only at static extents: iree_dynamic writes them as M x K times K x N
    at dynamic ones)."""
    from synth.backends.iree_dynamic import dims_field

    numbers = str(op.attributes["dot_dimension_numbers"])
    if dims_field(numbers, "lhs_batching_dimensions") or dims_field(numbers, "rhs_batching_dimensions"):
        return None
    lhs, rhs = dims_field(numbers, "lhs_contracting_dimensions"), dims_field(numbers, "rhs_contracting_dimensions")
    a, b, r = (ir.RankedTensorType(v.type) for v in [*op.operands, op.results[0]])
    if (a.rank == 3 and b.rank == 2 and lhs == [2] and rhs == [0] and a.has_static_shape
            and b.has_static_shape and str(a.element_type) == str(b.element_type) == "f64"):
        return FLAT  # doitgen's A[r, q, :] C4 (at dynamic extents iree_dynamic reshapes it)
    if not _f64_matrices(ir, [*op.operands, op.results[0]]):
        return None
    if lhs not in ([0], [1]) or rhs not in ([0], [1]):
        return None
    return ("_at" if lhs == [0] else "") + ("_bt" if rhs == [1] else "")


def _is_matmul(ir, op) -> "str | Contraction | None":
    """"" for a linalg.matmul (default maps, no cast), a Contraction for a linalg.generic
    that is a matrix product (synth.backends.iree_contraction), else None."""
    if op.name == "linalg.generic":
        return contraction(ir, op)
    head = str(op).split(" ins(")[0]  # maps or a cast other than the default are printed there
    if (len(op.operands) == 3 and "indexing_maps" not in head and "cast" not in head
            and _f64_matrices(ir, [*op.operands, op.results[0]])):
        return ""
    return None


def definition(kind: str, tile: tuple[int, int, int], form: str = "", split: bool = True,
               name: str | None = None) -> str:
    """The private function `@{kind}{form}_f64` (or `name`): a (M x K, or K x M with "_at"
    in `form`) times b (K x N, or N x K with "_bt"), plus c for ACCUMULATE, packed into
    M0 x K0, N0 x K0 and M0 x N0 tiles (a transposed operand by the pack's permutation),
    each pack as its full tiles and strips of partial tiles (synth.backends.iree_split_pack)
    where `split` (dynamic extents), else one padded pack (`@..._f64_whole`)."""
    m0, n0, k0 = tile
    at, bt = "_at" in form, "_bt" in form
    m = "tensor<?x?xf64>"
    pa, pb, pc = (f"tensor<?x?x{x}x{y}xf64>" for x, y in ((m0, k0), (n0, k0), (m0, n0)))
    params = f"%a: {m}, %b: {m}" + (f", %c: {m}" if kind == ACCUMULATE else "")
    lines = [
        f"func.func private @{name or kind + form + '_f64'}({params}) -> {m} {{",
        "  %i0 = arith.constant 0 : index",
        "  %i1 = arith.constant 1 : index",
        "  %zero = arith.constant 0.000000e+00 : f64",
        f"  %m = tensor.dim %a, %i{1 if at else 0} : {m}",
        f"  %k = tensor.dim %a, %i{0 if at else 1} : {m}",
        f"  %n = tensor.dim %b, %i{0 if bt else 1} : {m}",
        f"  %mt = affine.apply affine_map<()[s0] -> (s0 ceildiv {m0})>()[%m]",
        f"  %nt = affine.apply affine_map<()[s0] -> (s0 ceildiv {n0})>()[%n]",
        f"  %kt = affine.apply affine_map<()[s0] -> (s0 ceildiv {k0})>()[%k]",
        f"  %ec = tensor.empty(%mt, %nt) : {pc}"]
    # each operand's pack (`split`: as its full tiles and its strips of partial tiles,
    # iree_split_pack; else one padded pack)
    packs = [("pa", "%a", ("%k", "%m") if at else ("%m", "%k"), (1, 0) if at else (0, 1), (m0, k0),
              (1, 0) if at else None),
             ("pb", "%b", ("%n", "%k") if bt else ("%k", "%n"), (0, 1) if bt else (1, 0), (n0, k0),
              None if bt else (1, 0))]
    if kind == ACCUMULATE:
        packs.append(("pc", "%c", ("%m", "%n"), (0, 1), (m0, n0), None))
    for packed, source, extents, inner, inner_tiles, perm in packs:
        lines += ["  " + x for x in (pack_lines if split else whole_pack)(packed, source, extents, inner, inner_tiles,
                                                                          perm, "%zero")]
    if kind != ACCUMULATE:
        lines.append(f"  %pc = linalg.fill ins(%zero : f64) outs(%ec : {pc}) -> {pc}")
    lines += [
        f"  %pr = linalg.mmt4d ins(%pa, %pb : {pa}, {pb}) outs(%pc : {pc}) -> {pc}",
        f"  %er = tensor.empty(%m, %n) : {m}",
        f"  %r = linalg.unpack %pr inner_dims_pos = [0, 1] inner_tiles = [{m0}, {n0}] into %er : {pc} -> {m}",
        f"  return %r : {m}",
        "}"]
    return "\n".join("  " + line for line in lines)


def wrapper(generic: str, name: str, types: list[str]) -> str:
    """The private function `@name` of `types` (operands, then the result), some extents
    static: its operands cast to dynamic extents, `@generic` of them, cast back. IREE
    inlines both and folds the casts into the packs: static tiles counts, one padding."""
    matrix = "tensor<?x?xf64>"
    params = [f"%{x}: {t}" for x, t in zip("abc", types[:-1])]
    lines = [f"func.func private @{name}({', '.join(params)}) -> {types[-1]} {{"]
    args = []
    for x, t in zip("abc", types[:-1]):
        if t == matrix:
            args.append(f"%{x}")
        else:
            lines.append(f"  %d{x} = tensor.cast %{x} : {t} to {matrix}")
            args.append(f"%d{x}")
    lines.append(f"  %r = func.call @{generic}({', '.join(args)}) : ({', '.join([matrix] * len(args))}) -> {matrix}")
    if types[-1] == matrix:
        lines.append(f"  return %r : {matrix}")
    else:
        lines += [f"  %s = tensor.cast %r : {matrix} to {types[-1]}", f"  return %s : {types[-1]}"]
    lines.append("}")
    return "\n".join("  " + line for line in lines)
