"""Normal form of a kernel function: what the rest of synth reads.

Polygeist and hand-written loop code say the same things in several ways. Before any
analysis, one function is rewritten (on a parsed copy; the input file is never touched)
into the form the analysis, the dependence model and the symbolic executor expect:

- `llvm.mlir.undef`: an uninitialised local. Storing undef into a buffer is the same as
  not storing, so those stores are dropped; any other use of an undef value is refused
  (exit 2) at its location. A read of a buffer element that was never written is caught
  later, where the original is executed symbolically.
- `memref.load` / `memref.store` whose indices are affine functions of loop indices,
  constants and size arguments become `affine.load` / `affine.store`.
- `affine.parallel` (without reductions) becomes a nest of `affine.for`: its iterations
  are independent, so any order is the same.
- A loop unrolled by hand (step k, its body k shifted copies of one block) becomes the
  unit-step loop it was unrolled from, fused with an adjacent loop of the same body (its
  clean-up loop) (synth.frontend.reroll).
- A loop that sums into a one-element local buffer (Polygeist's C locals: loaded and
  stored back each iteration) carries the sum as an iter_arg instead
  (synth.frontend.scalars).
- `memref.dim` of an argument: of a static dim, the constant; of a dynamic one, a new
  trailing `index` argument that holds it (`Interface.dims`: the size analysis makes that
  dim's extent the argument's symbol, so the two always agree).
- A loop bound that is the min (max) of size arguments alone (`j < MIN(k, n)`): a new
  trailing `index` argument that holds it (`Interface.extremes`; the drop-in computes it,
  synth.frontend.size_extremes).
- Returned values become trailing out-parameters: a returned `memref.alloca`/`alloc` is
  replaced by a new argument of its type, a returned scalar is stored into a new
  `memref<T>` argument before the return, a returned argument is an alias of it. The
  `Interface` records how the results map back, so that the raised function and the
  drop-in can return them.

The output text is printed with locations, so FILE:LINE:COL messages of later stages
still point into the input file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import affine as affine_d

from synth.errors import InputError
from synth.frontend.reader import SourceModule, diagnostic_location
from synth.frontend.reader import walk_ops
from synth.frontend.reroll import reroll_loops
from synth.frontend.scalars import accumulators_as_iter_args, temporaries_forwarded
from synth.frontend.size_extremes import extremes_as_arguments

SCALAR_RESULT_TYPES = ("f64", "f32", "i64", "i32", "index")


@dataclass(frozen=True)
class Result:
    """One value the function returns."""

    type: str  # MLIR type as written (memref<...> or a scalar type)
    argument: int  # the argument of the normal form that holds it after the call
    kind: str  # "array" (a returned local buffer), "scalar" (stored into memref<T>), "alias" (an input argument)


@dataclass
class Interface:
    """How the normal form relates to the function as written."""

    name: str
    n_arguments: int  # arguments as written; out-parameters follow them
    argument_types: list[str]  # as written
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was rewritten
    # (normal-form argument, array argument, dim): a size the original reads with
    # memref.dim, passed as an index argument after the out-parameters
    dims: list[tuple[int, int, int]] = field(default_factory=list)
    # a loop bound that is the min (max) of size arguments alone, passed as an index
    # argument after those (synth.frontend.size_extremes)
    extremes: list = field(default_factory=list)

    @property
    def out_parameters(self) -> list[int]:
        return [r.argument for r in self.results if r.kind != "alias"]


@dataclass
class NormalForm:
    source: SourceModule  # the module with the function rewritten (same path, for messages)
    interface: Interface


_walk = walk_ops  # pre-order, as every analysis numbers ops


def _where(source: SourceModule, op) -> str:
    return diagnostic_location(source.path, op.location)


# --- llvm.mlir.undef ------------------------------------------------------------------------


def _drop_undef(source: SourceModule, block: ir.Block, iface: Interface) -> None:
    undefs = [op for op in _walk(block) if op.name == "llvm.mlir.undef"]
    for op in undefs:
        value = op.results[0]
        stores = []
        for use in value.uses:
            user = use.owner
            if user.name in ("affine.store", "memref.store") and use.operand_number == 0:
                stores.append(user)
            else:
                raise InputError(f"an uninitialised value (llvm.mlir.undef) is used by "
                                 f"'{user.name}'; synth accepts undef only as the initial "
                                 f"content of a local buffer (a store that is later "
                                 f"overwritten)", _where(source, op))
        for s in stores:
            s.erase()
        op.erase()
    if undefs:
        iface.notes.append(f"dropped {len(undefs)} store(s) of llvm.mlir.undef (uninitialised locals)")


# --- memref.load / memref.store with affine indices ------------------------------------------


class _NotAffine(Exception):
    pass


class _IndexBuilder:
    """Affine expressions of index values over dims (loop indices) and symbols (size
    arguments, as `index`); constants fold in."""

    def __init__(self, func_block: ir.Block, entry_ip: ir.InsertionPoint):
        self.func_block = func_block
        self.entry_ip = entry_ip
        self.dims: list[ir.Value] = []
        self.syms: list[ir.Value] = []
        self._casts: dict[int, ir.Value] = {}

    def _dim(self, v: ir.Value) -> ir.AffineExpr:
        for k, d in enumerate(self.dims):
            if d == v:
                return ir.AffineDimExpr.get(k)
        self.dims.append(v)
        return ir.AffineDimExpr.get(len(self.dims) - 1)

    def _sym(self, v: ir.Value) -> ir.AffineExpr:
        for k, s in enumerate(self.syms):
            if s == v:
                return ir.AffineSymbolExpr.get(k)
        self.syms.append(v)
        return ir.AffineSymbolExpr.get(len(self.syms) - 1)

    def _argument(self, arg: ir.BlockArgument) -> ir.AffineExpr:
        if str(arg.type) == "index":
            return self._sym(arg)
        if str(arg.type) not in ("i32", "i64"):
            raise _NotAffine
        k = arg.arg_number
        if k not in self._casts:  # a valid affine symbol: an index_cast at the function's top
            with self.entry_ip, arg.location:
                from mlir.dialects import arith

                self._casts[k] = arith.index_cast(ir.IndexType.get(), arg)
        return self._sym(self._casts[k])

    def expr(self, v: ir.Value) -> ir.AffineExpr:
        if isinstance(v, ir.BlockArgument):
            if v.owner == self.func_block:
                return self._argument(v)
            parent = v.owner.owner
            if parent is not None and parent.name in ("affine.for", "affine.parallel"):
                if parent.name == "affine.for" and v.arg_number != 0:
                    raise _NotAffine  # an iter_arg, not the induction variable
                return self._dim(v)
            raise _NotAffine
        owner = v.owner
        name = owner.name
        if name == "arith.constant":
            attr = owner.attributes["value"]
            if isinstance(attr, ir.IntegerAttr):
                return ir.AffineConstantExpr.get(ir.IntegerAttr(attr).value)
            raise _NotAffine
        if name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.trunci"):
            return self.expr(owner.operands[0])
        if name in ("arith.addi", "arith.subi", "arith.muli"):
            a, b = self.expr(owner.operands[0]), self.expr(owner.operands[1])
            if name == "arith.addi":
                return a + b
            if name == "arith.subi":
                return a - b
            if isinstance(a, ir.AffineConstantExpr) or isinstance(b, ir.AffineConstantExpr):
                return a * b
            raise _NotAffine
        if name == "affine.apply":
            amap = owner.opview.map.value
            ops = [self.expr(x) for x in owner.operands]
            return _substitute(amap.results[0], ops[: amap.n_dims], ops[amap.n_dims:])
        raise _NotAffine


def _substitute(e: ir.AffineExpr, dims: list, syms: list) -> ir.AffineExpr:
    if isinstance(e, ir.AffineConstantExpr):
        return e
    if isinstance(e, ir.AffineDimExpr):
        return dims[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return syms[e.position]
    lhs, rhs = _substitute(e.lhs, dims, syms), _substitute(e.rhs, dims, syms)
    if isinstance(e, ir.AffineAddExpr):
        return lhs + rhs
    if isinstance(e, ir.AffineMulExpr):
        return lhs * rhs
    if isinstance(e, ir.AffineModExpr):
        return lhs % rhs
    if isinstance(e, ir.AffineFloorDivExpr):
        return ir.AffineFloorDivExpr.get(lhs, rhs)
    if isinstance(e, ir.AffineCeilDivExpr):
        return ir.AffineCeilDivExpr.get(lhs, rhs)
    raise _NotAffine


def _affine_accesses(block: ir.Block) -> int:
    """memref.load/store with affine indices -> affine.load/store; returns how many."""
    first = next(iter(block.operations)).operation
    converted = 0
    for op in list(_walk(block)):
        if op.name not in ("memref.load", "memref.store"):
            continue
        operands = list(op.operands)
        is_store = op.name == "memref.store"
        memref, indices = (operands[1], operands[2:]) if is_store else (operands[0], operands[1:])
        if "nontemporal" in op.attributes and ir.BoolAttr(op.attributes["nontemporal"]).value:
            continue
        builder = _IndexBuilder(block, ir.InsertionPoint(first))
        try:
            exprs = [builder.expr(v) for v in indices]
        except _NotAffine:
            continue
        amap = ir.AffineMap.get(len(builder.dims), len(builder.syms), exprs)
        map_operands = builder.dims + builder.syms
        with ir.InsertionPoint(op), op.location:
            if is_store:
                affine_d.AffineStoreOp(operands[0], memref, map_operands, ir.AffineMapAttr.get(amap))
            else:
                new = affine_d.AffineLoadOp(op.results[0].type, memref, map_operands,
                                            ir.AffineMapAttr.get(amap))
                op.results[0].replace_all_uses_with(new.result)
        op.erase()
        converted += 1
    return converted


# --- affine.parallel -------------------------------------------------------------------------


def _group_maps(amap: ir.AffineMap, groups: list[int]) -> list[ir.AffineMap]:
    out, start = [], 0
    results = list(amap.results)
    for g in groups:
        out.append(ir.AffineMap.get(amap.n_dims, amap.n_symbols, results[start:start + g]))
        start += g
    return out


def _parallel_to_for(source: SourceModule, block: ir.Block) -> int:
    count = 0
    for op in list(_walk(block)):
        if op.name != "affine.parallel":
            continue
        if len(op.results):
            raise InputError("affine.parallel with reductions is not supported; write the "
                             "reduction as affine.for with iter_args", _where(source, op))
        attrs = op.attributes
        lbm = ir.AffineMapAttr(attrs["lowerBoundsMap"]).value
        ubm = ir.AffineMapAttr(attrs["upperBoundsMap"]).value
        lbg = [int(x) for x in ir.DenseIntElementsAttr(attrs["lowerBoundsGroups"])]
        ubg = [int(x) for x in ir.DenseIntElementsAttr(attrs["upperBoundsGroups"])]
        steps = [int(x) for x in ir.ArrayAttr(attrs["steps"])] if isinstance(attrs["steps"], ir.ArrayAttr) \
            else [int(ir.IntegerAttr(x).value) for x in attrs["steps"]]
        operands = list(op.operands)
        lbs, ubs = _group_maps(lbm, lbg), _group_maps(ubm, ubg)
        body = op.regions[0].blocks[0]
        ip = ir.InsertionPoint(op)
        ivs = []
        loops = []
        with op.location:
            for k, (lb, ub, st) in enumerate(zip(lbs, ubs, steps)):
                # every group's map keeps the parallel op's dims and symbols: same operands
                loop = affine_d.AffineForOp(lb, ub, st, lower_bound_operands=operands,
                                            upper_bound_operands=operands, ip=ip)
                loops.append(loop)
                ivs.append(loop.induction_variable)
                ip = ir.InsertionPoint(loop.body)
            with ip:
                affine_d.AffineYieldOp([])
        innermost = loops[-1].body
        terminator = list(innermost.operations)[-1]
        for old, new in zip(body.arguments, ivs):
            old.replace_all_uses_with(new)
        for inner in list(body.operations):
            if inner.operation.name == "affine.yield":
                continue
            inner.operation.move_before(terminator)
        # the nested loops were built outermost first at `op`; inner loops need yields
        for loop in loops[:-1]:
            b = loop.body
            ops = list(b.operations)
            if not ops or ops[-1].operation.name != "affine.yield":
                with ir.InsertionPoint(b):
                    affine_d.AffineYieldOp([])
        op.erase()
        count += 1
    return count


# --- results -> out-parameters --------------------------------------------------------------


def _results_to_out_params(source: SourceModule, func, iface: Interface) -> None:
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    if not len(ftype.results):
        return
    block = func.regions[0].blocks[0]
    returns = [op for op in _walk(block) if op.name == "func.return"]
    last = list(block.operations)[-1].operation
    if len(returns) != 1 or returns[0] != last:
        raise InputError("a function that returns values must have one `return` at the end "
                         "of its body", _where(source, func))
    ret = returns[0]
    new_inputs = list(ftype.inputs)
    for k, (value, t) in enumerate(zip(list(ret.operands), ftype.results)):
        ts = str(t)
        if ts.startswith("memref<"):
            if isinstance(value, ir.BlockArgument) and value.owner == block:
                iface.results.append(Result(ts, value.arg_number, "alias"))
                continue
            owner = value.owner if isinstance(value, ir.OpResult) else None
            if owner is None or owner.name not in ("memref.alloca", "memref.alloc") \
                    or len(owner.operands) or owner.parent.name != "func.func":
                raise InputError(f"result #{k} is not a local buffer of static shape allocated "
                                 f"in the function body (memref.alloca / memref.alloc) nor an "
                                 f"argument; synth cannot tell what it holds", _where(source, ret))
            if not ir.MemRefType(t).has_static_shape:
                raise InputError(f"result #{k} has dynamic shape {ts}", _where(source, ret))
            arg = block.add_argument(t, owner.location)
            value.replace_all_uses_with(arg)
            owner.erase()
            new_inputs.append(t)
            iface.results.append(Result(ts, arg.arg_number, "array"))
        elif ts in SCALAR_RESULT_TYPES:
            mt = ir.MemRefType.get([], t)
            arg = block.add_argument(mt, ret.location)
            with ir.InsertionPoint(ret), ret.location:
                affine_d.AffineStoreOp(value, arg, [], ir.AffineMapAttr.get(ir.AffineMap.get_empty()))
            new_inputs.append(mt)
            iface.results.append(Result(ts, arg.arg_number, "scalar"))
        else:
            raise InputError(f"result #{k} has type {ts}; supported results: memrefs and "
                             f"{'/'.join(SCALAR_RESULT_TYPES)} scalars", _where(source, ret))
    with ir.InsertionPoint(ret), ret.location:
        from mlir.dialects import func as func_d

        func_d.ReturnOp([])
    ret.erase()
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(new_inputs, []))
    # argument attributes (if any) must cover the new arguments
    if "arg_attrs" in func.attributes:
        old = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
        old += [ir.DictAttr.get({})] * (len(new_inputs) - len(old))
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(old)
    if "res_attrs" in func.attributes:
        del func.attributes["res_attrs"]
    iface.notes.append(f"returned values became out-parameters #{iface.n_arguments}..")


def _dims_as_arguments(source: SourceModule, func, iface: Interface) -> None:
    """`memref.dim %argK, %c` as a constant (a static dim) or a new trailing index argument
    (a dynamic one; one per (K, dim)); anything else a memref.dim reads is refused."""
    block = func.regions[0].blocks[0]
    ops = [op for op in _walk(block) if op.name == "memref.dim"]
    if not ops:
        return
    made: dict[tuple[int, int], ir.Value] = {}
    inputs = list(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
    for op in ops:
        array, index = op.operands
        owner = index.owner if isinstance(index, ir.OpResult) else None
        if not (isinstance(array, ir.BlockArgument) and array.owner == block) or owner is None \
                or owner.name != "arith.constant":
            raise InputError("memref.dim is read only of an argument at a constant dim", _where(source, op))
        k, d = array.arg_number, ir.IntegerAttr(owner.attributes["value"]).value
        mt = ir.MemRefType(array.type)
        if not mt.is_dynamic_dim(d):
            with ir.InsertionPoint(op), op.location:
                from mlir.dialects import arith

                value = arith.ConstantOp(ir.IndexType.get(), mt.shape[d]).result
        else:
            if (k, d) not in made:
                made[(k, d)] = block.add_argument(ir.IndexType.get(), op.location)
                inputs.append(ir.IndexType.get())
                iface.dims.append((made[(k, d)].arg_number, k, d))
            value = made[(k, d)]
        op.results[0].replace_all_uses_with(value)
        op.erase()
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, []))
    if "arg_attrs" in func.attributes:
        old = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
        old += [ir.DictAttr.get({})] * (len(inputs) - len(old))
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(old)
    if made:
        iface.notes.append(f"the dynamic dims read by memref.dim became index arguments "
                           f"#{min(a for a, _, _ in iface.dims)}..")


# --- entry point -------------------------------------------------------------------------------


def normalize(source: SourceModule, name: str) -> NormalForm:
    """The normal form of @name (other functions are kept as they are)."""
    module = source.copy()
    with source.context, ir.Location.unknown():
        func = next((op for op in module.body.operations if op.operation.name == "func.func"
                     and op.attributes["sym_name"].value == name), None)
        if func is None:
            raise InputError(f"no function @{name} in the module", source.path)
        if len(func.regions[0].blocks) == 0:
            raise InputError(f"@{name} is a declaration without a body", _where(source, func))
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        iface = Interface(name, len(ftype.inputs), [str(t) for t in ftype.inputs])
        block = func.regions[0].blocks[0]
        _drop_undef(source, block, iface)
        n = _parallel_to_for(source, block)
        if n:
            iface.notes.append(f"rewrote {n} affine.parallel as affine.for nests")
        n = _affine_accesses(block)
        if n:
            iface.notes.append(f"rewrote {n} memref.load/store with affine indices as affine.load/store")
        rerolled, fused = reroll_loops(block)
        if rerolled:
            iface.notes.append(f"read {rerolled} loop(s) unrolled by hand as unit-step loops"
                               + (f", fused {fused} with the loop(s) before them over the adjacent range"
                                  if fused else ""))
        n = accumulators_as_iter_args(block)
        if n:
            iface.notes.append(f"rewrote {n} loop(s) accumulating into a one-element local buffer "
                               f"with an iter_arg")
        n = temporaries_forwarded(block)
        if n:
            iface.notes.append(f"read {n} local temporar{'y' if n == 1 else 'ies'} as the values stored into "
                               f"{'it' if n == 1 else 'them'}")
        _results_to_out_params(source, func, iface)
        _dims_as_arguments(source, func, iface)
        iface.extremes = extremes_as_arguments(func)
        if iface.extremes:
            iface.notes.append(f"loop bounds that are the min or max of size arguments alone became index "
                               f"arguments #{iface.extremes[0].argument}..")
        try:
            module.operation.verify()
        except ir.MLIRError as e:  # a bug here, not the input's fault
            raise InputError(f"normalizing @{name} produced invalid IR: {e}", _where(source, func)) from None
        text = module.operation.get_asm(enable_debug_info=True)
    return NormalForm(SourceModule(source.path, text, list(source.notes)), iface)
