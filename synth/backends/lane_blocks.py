"""synth-lane-blocks: a counter loop whose step works on whole vectors, lane by lane (a
recurrence interchanged by synth.synthesis.recurrence: deriche's four sweeps), runs by
blocks of LANES lanes, each block through every step, its state in vector registers.

The raised step of such a loop reads and writes one slice of each array per step (a
column of a row-major array for deriche's row sweeps, a row for its column sweeps) and
carries its state as vectors of the array's extent N:

    scf.for %j iter_args(%y = %y0, %s = %zeros) {            // s: tensor<N>
      %x = tensor.extract_slice %in[0, %j] [N, 1] [1, 1]      // element i: in[i][j]
      %v = linalg.generic {parallel} ins(%x, %s, %scalars...)  // lane i from lane i only
      %y' = tensor.insert_slice %v into %y[0, %j] [N, 1] [1, 1]
      scf.yield %y', %v

Every lane i of every vector depends on lane i of the others alone, and lane i of a slice
of an array is the array's element at i along one dim (the same dim for every slice of a
carried array): lanes do not meet. So the loop over j of all N lanes equals, for each block
of lanes, the loop over j of that block:

    scf.for %ib = 0 to N - N mod B step B iter_args(%y = %y0) {
      %s = vector.transfer_read %zeros[%ib]                    // vector<B>
      scf.for %j iter_args(%y, %s) {
        %x = vector.transfer_read %in[%ib, %j] (d0, d1) -> (d0)
        %v = arith/math ops of the generic's body on vector<B>
        %y' = vector.transfer_write %v, %y[%ib, %j] (d0, d1) -> (d0)
        scf.yield %y', %v
    (and the last N mod B lanes as one more block)

The state is a few vector registers, not N-element buffers allocated and copied each
step; deriche's row sweeps walk the cache lines of B rows (each line used for 8 steps), not
a column of all N rows per step. The step's scalars that do not depend on the counter
(deriche's coefficients: exp, pow of alpha) are computed once, before the loops.

Taken: an scf.for whose body holds only scalar arithmetic, rank-0 tensor ops, all-parallel
lane-shaped (one dim N, the others 1) linalg.generic / fill / named elementwise ops reading
lanes through identity maps or rank-0 tensors, reshapes of lanes, and slices of static
arrays at a static offset along their lane dim (adi's inner lanes 1 .. N-2, as
synth-lane-slices gives them); whose iter_args are arrays updated by such slices or lanes
(their final values unused). Anything else (a reduction, an element read across lanes, an
array the loop writes sliced at two lane dims or offsets, an unknown op) is left alone.
"""

from __future__ import annotations

import math

from synth.backends.ir_toolkit import (all_parallel, defining, indexing_maps, is_identity_map, mixed, operation,
                                       ops_named, static_values)
from synth.backends.lane_slices import same_offsets

# lanes per block: deriche at PolyBench LARGE raised to linalg on mlir-cpu, one thread, AMD
# EPYC (AVX-512), a busy host, scripts/compare_pipelines.py (2 rounds of 5 calls): 8 lanes
# 0.125 s, 16 0.122, 32 0.111, 64 0.167 (without the pass 0.34-0.40 s; the loops 0.24 s)
LANES = 16

# named elementwise linalg ops on floats -> the scalar op of their body
_NAMED = {"linalg.add": "arith.addf", "linalg.sub": "arith.subf", "linalg.mul": "arith.mulf",
          "linalg.div": "arith.divf", "linalg.max": "arith.maximumf", "linalg.min": "arith.minimumf",
          "linalg.exp": "math.exp", "linalg.log": "math.log", "linalg.negf": "arith.negf",
          "linalg.abs": "math.absf", "linalg.sqrt": "math.sqrt", "linalg.powf": "math.powf",
          "linalg.floor": "math.floor", "linalg.tanh": "math.tanh"}
# integer ops that may trap: never moved out of the loop
_TRAPPING = ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.ceildivsi",
             "arith.ceildivui", "arith.floordivsi")
_SCALAR_OPS = ("arith.", "math.")


class _Skip(Exception):
    """The loop is not one this pass takes (why, for debugging)."""


def _ranked(t):
    from mlir import ir
    return ir.RankedTensorType(t) if isinstance(t, ir.RankedTensorType) else None


def _is_scalar(t) -> bool:
    from mlir import ir
    return not isinstance(t, ir.ShapedType) and not isinstance(t, ir.VectorType)


def _lane_dim(t, n: int) -> int | None:
    """The dim of `t` of extent `n` where all its others are 1 (lane-shaped); else None."""
    r = _ranked(t)
    if r is None or not r.has_static_shape or r.rank == 0:
        return None
    shape = list(r.shape)
    if shape.count(n) != 1 or math.prod(shape) != n:
        return None
    return shape.index(n)


def _lanes_of(loop) -> int:
    """N: the one extent of the lane-shaped results of the step's linalg ops."""
    extents = set()
    for op in loop.regions[0].blocks[0].operations:
        op = operation(op)
        if op.name.startswith("linalg.") and len(op.results):
            r = _ranked(op.results[0].type)
            if r is not None and r.rank:
                if not r.has_static_shape:
                    raise _Skip("a dynamic shape")
                non_unit = [d for d in r.shape if d != 1]
                if len(non_unit) != 1:
                    raise _Skip(f"a linalg op of shape {list(r.shape)}")
                extents.add(non_unit[0])
    if len(extents) != 1:
        raise _Skip(f"lane extents {sorted(extents)}")
    return extents.pop()


class _Plan:
    """What the body's values are: "s" scalar (an index, a float, a rank-0 tensor: its
    element), "v" lanes (a lane-shaped tensor), "a" an array (sliced by lanes), "e" a
    tensor.empty (never read). `invariant`: scalars that do not depend on the counter or
    the state; `dims`: the lane dim of each array's slices, by root (the iter_arg or the
    value from outside)."""

    def __init__(self, loop):
        self.loop = operation(loop)
        self.body = self.loop.regions[0].blocks[0]
        self.n = _lanes_of(self.loop)
        self.kind: dict = {}
        self.root: dict = {}
        self.dims: dict = {}
        self.at: dict = {}  # (lane dim, offset) of each slice, by its result
        self.invariant: set = set()
        self.carried: list[str] = []  # per iter_arg: "a" or "v"
        iv = self.body.arguments[0]
        self.kind[iv] = "s"
        for k, arg in enumerate(list(self.body.arguments)[1:]):
            t = arg.type
            if _lane_dim(t, self.n) is not None:
                self.kind[arg] = "v"
                if len(list(self.loop.results[k].uses)):
                    raise _Skip("the final state is used after the loop")
            elif _ranked(t) is not None and _ranked(t).has_static_shape and _ranked(t).rank:
                self.kind[arg], self.root[arg] = "a", ("iter", k)
            else:
                raise _Skip(f"an iter_arg of type {t}")
            self.carried.append(self.kind[arg])
        if "a" not in self.carried:
            raise _Skip("no array carried")
        for op in self.body.operations:
            self._take(operation(op))

    def outside(self, value) -> bool:
        """Whether `value` is defined outside the loop."""
        op = defining(value)
        if op is None and value.owner == self.body:
            return False
        node = operation(value.owner.owner) if op is None else op
        while node is not None:
            if node == self.loop:
                return False
            node = operation(node.parent) if node.parent is not None else None
        return True

    def kind_of(self, value) -> str:
        if value in self.kind:
            return self.kind[value]
        if not self.outside(value):
            raise _Skip("a value of the step used before it is known")
        t = value.type
        if _is_scalar(t) or (_ranked(t) is not None and _ranked(t).rank == 0):
            k = "s"
            self.invariant.add(value)
        elif _lane_dim(t, self.n) is not None:
            k = "v"
        elif _ranked(t) is not None and _ranked(t).has_static_shape:
            k = "a"
            self.root[value] = ("outside", value)
        else:
            raise _Skip(f"a value of type {t} from outside")
        self.kind[value] = k
        return k

    def _scalar(self, op, hoistable: bool = True) -> None:
        for v in op.operands:
            if self.kind_of(v) != "s":
                raise _Skip(f"{op.name} on lanes")
        for r in op.results:
            self.kind[r] = "s"
        if hoistable and op.name not in _TRAPPING and all(v in self.invariant for v in op.operands):
            self.invariant.update(op.results)

    def _slice_dim(self, op, array) -> None:
        """Note the lane (dim, offset) of a slice of `array` (sizes N along one dim, 1 along the
        others, unit strides); a carried array's slices at one (lane i meets element i only)."""
        from mlir import ir
        sizes, strides = static_values(op, "sizes"), static_values(op, "strides")
        if sizes is None or strides is None or any(s != 1 for s in strides):
            raise _Skip("a slice of dynamic sizes or strides")
        if math.prod(sizes) != self.n or sizes.count(self.n) != 1:
            raise _Skip(f"a slice of sizes {sizes}")
        d = sizes.index(self.n)
        o = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))[d]
        if o < 0 or o + self.n > _ranked(array.type).shape[d]:
            raise _Skip("a slice at a dynamic offset along the lanes")
        key = self.root[array]
        if self.dims.setdefault(key, (d, o)) != (d, o) and key[0] == "iter":
            raise _Skip("an array the loop writes sliced at two lane dims or offsets")
        self.at[op.results[0]] = (d, o)

    def _generic_body(self, op) -> None:
        block = op.regions[0].blocks[0]
        n_in = len(op.opview.inputs)
        for arg in list(block.arguments)[n_in:]:
            if len(list(arg.uses)):
                raise _Skip("a generic that reads its output")
        for inner in block.operations:
            inner = operation(inner)
            if inner.name == "linalg.yield":
                continue
            if not inner.name.startswith(_SCALAR_OPS) or len(inner.regions):
                raise _Skip(f"{inner.name} in a generic")
            for v in inner.operands:
                if not _local(v, op) and self.kind_of(v) != "s":
                    raise _Skip("a generic capturing lanes")

    def _take(self, op) -> None:
        name = op.name
        if name == "scf.yield":
            for k, v in enumerate(op.operands):
                want = self.carried[k]
                if self.kind_of(v) != want or (want == "a" and self.root[v] != ("iter", k)):
                    raise _Skip("a yield that is not the state's next value")
            return
        if name.startswith(_SCALAR_OPS):
            if len(op.regions) or not all(_is_scalar(v.type) for v in list(op.operands) + list(op.results)):
                raise _Skip(f"{name} with a region or on tensors")
            self._scalar(op)
            return
        if name == "tensor.empty":
            self.kind[op.results[0]] = "e"
            return
        if name == "tensor.extract":
            if _ranked(op.operands[0].type).rank != 0:
                raise _Skip("an element of a tensor")
            self._scalar(op)
            return
        if name in ("tensor.expand_shape", "tensor.collapse_shape"):
            if self.kind_of(op.operands[0]) != "v" or _lane_dim(op.results[0].type, self.n) is None:
                raise _Skip(f"{name} of other than lanes")
            self.kind[op.results[0]] = "v"
            return
        if name == "tensor.extract_slice":
            src = op.operands[0]
            if self.kind_of(src) != "a" or _lane_dim(op.results[0].type, self.n) is None:
                raise _Skip("a slice of other than lanes")
            for v in list(op.operands)[1:]:
                if self.kind_of(v) != "s":
                    raise _Skip("a slice at lanes")
            self._slice_dim(op, src)
            self.kind[op.results[0]] = "v"
            return
        if name == "tensor.insert_slice":
            part, dest = op.operands[0], op.operands[1]
            if self.kind_of(part) != "v" or self.kind_of(dest) != "a" or self.root[dest][0] != "iter":
                raise _Skip("an insert of other than lanes into a carried array")
            for v in list(op.operands)[2:]:
                if self.kind_of(v) != "s":
                    raise _Skip("a slice at lanes")
            self._slice_dim(op, dest)
            self.kind[op.results[0]], self.root[op.results[0]] = "a", self.root[dest]
            return
        if name == "linalg.fill":
            value, out = op.operands[0], op.operands[1]
            if self.kind_of(value) != "s":
                raise _Skip("a fill with lanes")
            rank = _ranked(out.type).rank
            if rank and _lane_dim(out.type, self.n) is None:
                raise _Skip("a fill of other than lanes")
            self.kind[op.results[0]] = "v" if rank else "s"
            if not rank and value in self.invariant:
                self.invariant.add(op.results[0])
            return
        if name == "linalg.generic" or name in _NAMED:
            if len(op.results) == 0 or (name == "linalg.generic" and not all_parallel(op)):
                raise _Skip("a linalg op that is not elementwise")
            rank = _ranked(op.results[0].type).rank
            ins = list(op.opview.inputs)
            # a named op's operands all have its shape (its maps are identities)
            maps = indexing_maps(op) if name == "linalg.generic" else [None] * len(ins)
            for v, amap in zip(ins, maps):
                k = self.kind_of(v)
                same = _ranked(v.type).shape == _ranked(op.results[0].type).shape
                if k == "v" and same and (amap is None or is_identity_map(amap)):
                    continue
                if k == "s" and _ranked(v.type) is not None and _ranked(v.type).rank == 0:
                    continue
                raise _Skip(f"{name} reading {k} through {amap}")
            if name == "linalg.generic":
                self._generic_body(op)
            elif not all(str(_ranked(v.type).element_type).startswith(("f", "bf")) for v in ins):
                raise _Skip(f"{name} on integers")
            if rank == 0:
                for r in op.results:
                    self.kind[r] = "s"
                if all(v in self.invariant for v in ins) and (name != "linalg.generic" or self._closed(op)):
                    self.invariant.update(op.results)
            else:
                if _lane_dim(op.results[0].type, self.n) is None:
                    raise _Skip(f"{name} of other than lanes")
                for r in op.results:
                    self.kind[r] = "v"
            return
        raise _Skip(f"{name} in the step")

    def _closed(self, generic) -> bool:
        """Whether the values a generic's body captures are invariant."""
        for inner in generic.regions[0].blocks[0].operations:
            for v in operation(inner).operands:
                if not _local(v, generic) and v not in self.invariant:
                    return False
        return True


def _local(value, generic) -> bool:
    """Whether `value` is defined in the body of `generic` (an argument or an op of it)."""
    block = generic.regions[0].blocks[0]
    op = defining(value)
    return value.owner == block if op is None else operation(op.parent) == generic


class _Emitter:
    """The rewritten loops: values of the original step mapped to new ones per block
    (`mapping`), invariant scalars computed once before the loops (`hoisted`, at the
    anchor `hoist`: an op put before the loop first)."""

    def __init__(self, plan: _Plan):
        from mlir import ir
        from mlir.dialects import arith
        self.plan, self.ir = plan, ir
        self.loop = plan.loop
        self.index = ir.IndexType.get()
        with ir.InsertionPoint(self.loop), self.loop.location:
            self.anchor = arith.ConstantOp(self.index, 0).operation
        self.hoist = ir.InsertionPoint(self.anchor)
        self.hoisted: dict = {}

    # scalars and constants ---------------------------------------------------------------

    def const_index(self, value: int):
        from mlir.dialects import arith
        with self.hoist, self.loop.location:
            return arith.ConstantOp(self.index, value).result

    def padding(self, element):
        from mlir.dialects import arith
        ir = self.ir
        attr = ir.FloatAttr.get(element, 0.0) if isinstance(element, ir.FloatType) else ir.IntegerAttr.get(element, 0)
        with self.hoist, self.loop.location:
            return arith.ConstantOp(element, attr).result

    def scalar(self, value, mapping):
        """The scalar of a value of kind "s" (a rank-0 tensor: its element)."""
        if value in mapping:
            return mapping[value]
        if value in self.hoisted:
            return self.hoisted[value]
        if not self.plan.outside(value):
            raise KeyError(f"no value for {value}")
        if _ranked(value.type) is None:
            return value
        from mlir.dialects import tensor
        with self.hoist, self.loop.location:
            self.hoisted[value] = tensor.ExtractOp(value, []).result
        return self.hoisted[value]

    def create(self, name: str, op, operands, result_types, width: int = 0):
        """`op` (one scalar op) named `name` on `operands`; on `width` lanes where any
        operand is a vector (the scalar ones splat)."""
        ir = self.ir
        if any(isinstance(v.type, ir.VectorType) for v in operands):
            operands = [v if isinstance(v.type, ir.VectorType) else self.splat(v, width) for v in operands]
            result_types = [ir.VectorType.get([width], t) for t in result_types]
        attributes = {a: op.attributes[a] for a in op.attributes} if name == op.name else {}
        return ir.Operation.create(name, results=result_types, operands=operands, attributes=attributes,
                                   loc=op.location).results

    def scalar_op(self, op, mapping) -> None:
        """Clone a scalar op of the step (operands through `mapping`), before the loops
        (once) where it is invariant."""
        if all(r in self.plan.invariant for r in op.results):
            if op.results[0] not in self.hoisted:
                operands = [self.scalar(v, mapping) for v in op.operands]
                with self.hoist:
                    new = self.create(op.name, op, operands, [r.type for r in op.results])
                self.hoisted.update(zip(op.results, new))
            return
        new = self.create(op.name, op, [self.scalar(v, mapping) for v in op.operands], [r.type for r in op.results])
        mapping.update(zip(op.results, new))

    # lanes -------------------------------------------------------------------------------

    def splat(self, scalar, width: int):
        from mlir.dialects import vector
        return vector.BroadcastOp(self.ir.VectorType.get([width], scalar.type), scalar).result

    def access(self, array_type, d: int, offsets, ib, mapping, lane0: int = 0):
        """(indices, permutation map, in_bounds) of lanes along dim `d` at `ib` + `lane0`,
        the other dims at `offsets` (None: 0)."""
        from mlir.dialects import arith
        ir = self.ir
        ib = arith.AddIOp(ib, self.const_index(lane0)).result if lane0 else ib
        rank = _ranked(array_type).rank
        indices = []
        for k in range(rank):
            if k == d:
                indices.append(ib)
            elif offsets is None or isinstance(offsets[k], int):
                indices.append(self.const_index(0 if offsets is None else offsets[k]))
            else:
                indices.append(self.scalar(offsets[k], mapping))
        pmap = ir.AffineMapAttr.get(ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d)]))
        return indices, pmap, ir.ArrayAttr.get([ir.BoolAttr.get(True)])

    def read(self, source, d: int, offsets, ib, width: int, mapping, lane0: int = 0):
        from mlir.dialects import vector
        t = _ranked(source.type)
        indices, pmap, in_bounds = self.access(t, d, offsets, ib, mapping, lane0)
        return vector.TransferReadOp(self.ir.VectorType.get([width], t.element_type), source, indices, pmap,
                                     self.padding(t.element_type), in_bounds).result

    def lanes(self, value, ib, width: int, mapping):
        """The vector of a value of kind "v" (one from outside the loop: read here)."""
        if value in mapping:
            return mapping[value]
        if not self.plan.outside(value):
            raise KeyError(f"no lanes for {value}")
        mapping[value] = self.read(value, _lane_dim(value.type, self.plan.n), None, ib, width, mapping)
        return mapping[value]

    def linalg(self, op, ib, width: int, mapping) -> None:
        """A generic or named elementwise op: its scalar body on lanes (vectors where an
        operand is lanes); its ops whose operands are invariant, once before the loops."""
        plan = self.plan
        ins = list(op.opview.inputs)
        values = [self.lanes(v, ib, width, mapping) if plan.kind_of(v) == "v" else self.scalar(v, mapping)
                  for v in ins]
        if op.name in _NAMED:  # one op on the inputs themselves
            keys = ins
            body = [(_NAMED[op.name], op, ins, [op.results[0]]), ("linalg.yield", op, [op.results[0]], [])]
        else:
            block = op.regions[0].blocks[0]
            keys = list(block.arguments)[:len(ins)]
            body = [(operation(i).name, operation(i), list(operation(i).operands), list(operation(i).results))
                    for i in block.operations]
        local = dict(zip(keys, values))
        steady = {k for k, v in zip(keys, ins) if v in plan.invariant}  # the body's invariant values

        def get(v):
            return local[v] if v in local else self.scalar(v, mapping)

        for name, inner, operands, results in body:
            if name == "linalg.yield":
                for r, v in zip(op.results, operands):
                    got = get(v)
                    if plan.kind_of(r) == "v" and not isinstance(got.type, self.ir.VectorType):
                        got = self.splat(got, width)
                    mapping[r] = got
                continue
            operands_in = [get(v) for v in operands]
            types = [_ranked(r.type).element_type if _ranked(r.type) is not None else r.type for r in results]
            if name not in _TRAPPING and all(v in steady if v in local else v in plan.invariant for v in operands):
                if results[0] not in self.hoisted:
                    with self.hoist:
                        self.hoisted.update(zip(results, self.create(name, inner, operands_in, types)))
                new = [self.hoisted[r] for r in results]
                steady.update(results)
            else:
                new = self.create(name, inner, operands_in, types, width)
            local.update(zip(results, new))

    # the step ----------------------------------------------------------------------------

    def step(self, ib, width: int, mapping) -> list:
        """The original step's ops for `width` lanes at `ib` (at the current insertion
        point: the new inner loop's body); the values it yields."""
        from mlir.dialects import vector
        plan = self.plan
        for op in plan.body.operations:
            op = operation(op)
            name = op.name
            if name == "scf.yield":
                return [mapping[v] if plan.kind_of(v) == "a" else self.lanes(v, ib, width, mapping)
                        for v in op.operands]
            if name.startswith(_SCALAR_OPS):
                self.scalar_op(op, mapping)
            elif name == "tensor.empty":
                continue
            elif name == "tensor.extract":
                mapping[op.results[0]] = self.scalar(op.operands[0], mapping)
            elif name in ("tensor.expand_shape", "tensor.collapse_shape"):
                mapping[op.results[0]] = self.lanes(op.operands[0], ib, width, mapping)
            elif name == "tensor.extract_slice":
                src = op.operands[0]
                d, o = plan.at[op.results[0]]
                written = defining(src)
                if written is not None and written.name == "tensor.insert_slice" and \
                        same_offsets(mixed(op, "offsets"), mixed(written, "offsets")):
                    # the lanes just written: forwarded, not read back
                    mapping[op.results[0]] = self.lanes(written.operands[0], ib, width, mapping)
                    continue
                mapping[op.results[0]] = self.read(mapping.get(src, src), d, mixed(op, "offsets"), ib, width, mapping, o)
            elif name == "tensor.insert_slice":
                part, dest = op.operands[0], op.operands[1]
                d, o = plan.at[op.results[0]]
                indices, pmap, in_bounds = self.access(dest.type, d, mixed(op, "offsets"), ib, mapping, o)
                mapping[op.results[0]] = vector.TransferWriteOp(
                    dest.type, self.lanes(part, ib, width, mapping), mapping[dest], indices, pmap, in_bounds).result
            elif name == "linalg.fill":
                value = self.scalar(op.operands[0], mapping)
                mapping[op.results[0]] = self.splat(value, width) if plan.kind_of(op.results[0]) == "v" else value
            else:
                self.linalg(op, ib, width, mapping)
        raise AssertionError("a loop body without its yield")

    def block(self, ib, width: int, arrays: dict) -> list:
        """The loop of every step for `width` lanes at `ib` (at the current insertion
        point), the carried arrays starting at `arrays` (by iter_arg); its results."""
        from mlir.dialects import scf
        plan, loop = self.plan, self.loop
        inits, reads = [], {}
        for k, init in enumerate(list(loop.opview.initArgs)):
            inits.append(arrays[k] if plan.carried[k] == "a" else
                         self.read(init, _lane_dim(init.type, plan.n), None, ib, width, reads))
        view = loop.opview
        inner = scf.ForOp(view.lowerBound, view.upperBound, view.step, inits)
        mapping = {plan.body.arguments[0]: inner.induction_variable}
        for k, arg in enumerate(list(plan.body.arguments)[1:]):
            mapping[arg] = inner.inner_iter_args[k]
        with self.ir.InsertionPoint(inner.body), loop.location:
            scf.YieldOp(self.step(ib, width, mapping))
        return list(inner.results)


def _rewrite(plan: _Plan, lanes: int) -> None:
    from mlir import ir
    from mlir.dialects import scf
    emit = _Emitter(plan)
    loop = plan.loop
    n = plan.n
    full = n - n % lanes
    arrays = {k: v for k, v in enumerate(list(loop.opview.initArgs)) if plan.carried[k] == "a"}
    keys = sorted(arrays)
    at_loop = ir.InsertionPoint(loop)
    if full:
        lo, hi, step = emit.const_index(0), emit.const_index(full), emit.const_index(lanes)
        with at_loop, loop.location:
            outer = scf.ForOp(lo, hi, step, [arrays[k] for k in keys])
            with ir.InsertionPoint(outer.body):
                got = emit.block(outer.induction_variable, lanes, dict(zip(keys, outer.inner_iter_args)))
                scf.YieldOp([got[k] for k in keys])
        arrays = dict(zip(keys, outer.results))
    if n % lanes:
        with at_loop, loop.location:
            got = emit.block(emit.const_index(full), n % lanes, arrays)
        arrays = {k: got[k] for k in keys}
    for k in keys:
        loop.results[k].replace_all_uses_with(arrays[k])
    loop.erase()


def lane_blocks(module, lanes: int = LANES) -> int:
    """Run each counter loop of `module` whose step works lane by lane as blocks of
    `lanes` lanes (module docstring); the number of loops rewritten."""
    from mlir import passmanager

    count = 0
    for loop in ops_named(module, ("scf.for",)):
        try:
            plan = _Plan(loop)
        except _Skip:
            continue
        if plan.n < 2:
            continue
        _rewrite(plan, lanes)
        count += 1
    if count:
        passmanager.PassManager.parse("builtin.module(canonicalize,cse)").run(module.operation)
    return count
