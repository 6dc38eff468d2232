"""The part of each array argument a kernel reaches: a box with strides.

A kernel may read and write only part of an array: the first n of lda columns
(`A[i * lda + j]`, j < n < lda), the first half of a vector (`i < LEN / 2`), every other
element (`x[2 * i]`). For each array argument this module finds the box every access
lies in, per dim `lo + stride * [0, count)`:

- `boxes(source, name, params)`: at the sizes the module is written at, by interval
  arithmetic over the loop nest (each loop index ranges over its bounds' hull, an
  affine.if's condition is ignored: the box may be larger than what is reached, never
  smaller); the stride is the gcd of the index's steps and of the offsets between
  accesses. An access this cannot follow (a non-affine index) makes the box the array.
- `reached_views(kernel)`: the boxes as size expressions (found at three choices of the
  size symbols and matched to the expressions the size model knows, each plus at most
  MAX_OFFSET), for the arguments whose box is not the whole array;
- `view_source(source, name, boxes)`: the module with those arguments replaced by their
  boxes (memref types, and each access's index (i - lo) / stride).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Mapping

from mlir import ir

from synth.analysis.sizes import MAX_OFFSET
from synth.analysis.symbols import SizeExpr
from synth.errors import InputError
from synth.frontend.reader import SourceModule


@dataclass(frozen=True)
class Box:
    """Per dim: the first index, how many, and the step between them."""

    lo: tuple
    count: tuple
    stride: tuple[int, ...]

    def at(self, values: Mapping[str, int]) -> "Box":
        return Box(tuple(e.at(values) if isinstance(e, SizeExpr) else e for e in self.lo),
                   tuple(e.at(values) if isinstance(e, SizeExpr) else e for e in self.count), self.stride)


class _Lin:
    """An affine form of loop indices: {iv key: coefficient} + constant; None: unknown."""

    def __init__(self, terms: dict | None = None, const: int = 0):
        self.terms, self.const = dict(terms or {}), const

    def __add__(self, o):
        t = dict(self.terms)
        for k, c in o.terms.items():
            t[k] = t.get(k, 0) + c
        return _Lin({k: c for k, c in t.items() if c}, self.const + o.const)

    def scale(self, c: int):
        return _Lin({k: v * c for k, v in self.terms.items() if v * c}, self.const * c)


def _map_results(amap, operands: list) -> list:
    """Each result of an affine map applied to operand forms (symbols follow dims)."""
    out = []
    for r in amap.results:
        out.append(_map_expr(r, operands, amap.n_dims))
    return out


def _map_expr(e, operands: list, n_dims: int):
    if isinstance(e, ir.AffineSymbolExpr):
        return operands[n_dims + e.position]
    if isinstance(e, ir.AffineDimExpr):
        return operands[e.position]
    if isinstance(e, ir.AffineConstantExpr):
        return _Lin({}, e.value)
    if isinstance(e, (ir.AffineAddExpr, ir.AffineMulExpr)):
        a, b = _map_expr(e.lhs, operands, n_dims), _map_expr(e.rhs, operands, n_dims)
        if a is None or b is None:
            return None
        if isinstance(e, ir.AffineAddExpr):
            return a + b
        if not b.terms:
            return a.scale(b.const)
        if not a.terms:
            return b.scale(a.const)
    return None


class _Walker:
    def __init__(self, block, params: Mapping[int, int]):
        self.entry = block
        self.params = params
        self.ranges: dict = {}  # iv key -> (lo, hi inclusive, base, unit)
        self.values: dict = {}  # ir.Value -> _Lin
        self.access: dict[int, list] = {}  # argument -> [per dim (lo, hi, base, unit) | None]

    def value(self, v) -> _Lin | None:
        if v in self.values:
            return self.values[v]
        if isinstance(v.owner, ir.Block):
            if v.owner == self.entry:
                k = ir.BlockArgument(v).arg_number
                return _Lin({}, self.params[k]) if k in self.params else None
            return None
        op = v.owner
        if op.name == "arith.constant" and isinstance(op.attributes["value"], ir.IntegerAttr):
            return _Lin({}, ir.IntegerAttr(op.attributes["value"]).value)
        if op.name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci"):
            return self.value(op.operands[0])
        if op.name == "affine.apply":
            r = _map_results(ir.AffineMapAttr(op.attributes["map"]).value, [self.value(x) for x in op.operands])
            return r[0] if None not in r and r[0] is not None and not any(x is None for x in op.operands) else None
        return None

    def interval(self, f: _Lin) -> tuple[int, int, int, int]:
        """(min, max, base, unit): f's values lie in [min, max] and in base + unit * Z."""
        lo = hi = base = f.const
        unit = 0
        for k, c in f.terms.items():
            a, b, kb, ku = self.ranges[k]
            lo += min(c * a, c * b)
            hi += max(c * a, c * b)
            base += c * kb
            unit = gcd(unit, abs(c * ku))
        return lo, hi, base, unit

    def bound(self, amap, operands, upper: bool):
        forms = [self.value(x) for x in operands]
        if any(f is None for f in forms):
            return None
        results = _map_results(amap, forms)
        if any(r is None for r in results):
            return None
        ivs = [self.interval(r) for r in results]
        # lower bound: the max of its results; upper: the min
        if upper:
            return min(i[0] for i in ivs), min(i[1] for i in ivs), results
        return max(i[0] for i in ivs), max(i[1] for i in ivs), results

    def walk(self, block) -> bool:
        for op in block.operations:
            name = op.operation.name
            if name == "affine.for":
                if not self.loop(op.opview if hasattr(op, "opview") else op):
                    return False
            elif name in ("affine.load", "affine.store"):
                self.record(op)
            elif name in ("memref.load", "memref.store"):
                m = op.operands[0] if name == "memref.load" else op.operands[1]
                if self.argument(m) is not None:
                    return False
            else:
                for region in op.regions:
                    for b in region.blocks:
                        if not self.walk(b):
                            return False
        return True

    def argument(self, m) -> int | None:
        if isinstance(m.owner, ir.Block) and m.owner == self.entry:
            return ir.BlockArgument(m).arg_number
        return None

    def loop(self, f) -> bool:
        nl = f.lowerBoundMap.value.n_dims + f.lowerBoundMap.value.n_symbols
        ops = list(f.operands)
        nu = f.upperBoundMap.value.n_dims + f.upperBoundMap.value.n_symbols
        lb = self.bound(f.lowerBoundMap.value, ops[:nl], False)
        ub = self.bound(f.upperBoundMap.value, ops[nl:nl + nu], True)
        if lb is None or ub is None:
            return False
        step = int(ir.IntegerAttr(f.attributes["step"]).value) if "step" in f.attributes else 1
        lo, hi = lb[0], ub[1] - 1
        if hi < lo:
            return True  # never runs
        constant_lb = len(lb[2]) == 1 and not lb[2][0].terms
        key = len(self.ranges)
        self.ranges[key] = (lo, lo + (hi - lo) // step * step if constant_lb else hi,
                            lo if constant_lb else 0, step if constant_lb else 1)
        self.values[f.induction_variable] = _Lin({key: 1})
        return self.walk(f.regions[0].blocks[0])

    def record(self, op) -> None:
        m = op.operands[0] if op.name == "affine.load" else op.operands[1]
        k = self.argument(m)
        if k is None:
            return
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        start = 1 if op.name == "affine.load" else 2
        forms = [self.value(x) for x in list(op.operands)[start:]]
        results = _map_results(amap, forms) if None not in forms else [None] * amap.n_results
        self.access.setdefault(k, []).append([None if r is None else self.interval(r) for r in results])


def boxes(source: SourceModule, name: str, params: Mapping[int, int]) -> dict[int, Box] | None:
    """Argument -> the box its accesses lie in, for the memref arguments of @name (at the
    sizes the module is written at); None where a loop bound cannot be followed."""
    with source.context:
        module = source.parsed()
        func = next(op for op in module.body.operations if op.operation.name == "func.func"
                    and op.attributes["sym_name"].value == name)
        block = func.regions[0].blocks[0]
        w = _Walker(block, params)
        if not w.walk(block):
            return None
        shapes = {a.arg_number: list(ir.MemRefType(a.type).shape) for a in block.arguments
                  if isinstance(a.type, ir.MemRefType)}
    out = {}
    for k, shape in shapes.items():
        dims = []
        for d, n in enumerate(shape):
            seen = [acc[d] for acc in w.access.get(k, []) if d < len(acc)]
            if not seen or any(s is None for s in seen):
                dims.append((0, n, 1))
                continue
            lo, hi = min(s[0] for s in seen), max(s[1] for s in seen)
            step = 0
            for s in seen:
                step = gcd(step, s[3])
                step = gcd(step, abs(s[2] - seen[0][2]))
            step = step or 1
            first = lo + (seen[0][2] - lo) % step  # the first value of the lattice in [lo, hi]
            if first < 0 or hi >= n or first > hi:
                dims.append((0, n, 1))
                continue
            dims.append((first, (hi - first) // step + 1, step))
        out[k] = Box(tuple(x[0] for x in dims), tuple(x[1] for x in dims), tuple(x[2] for x in dims))
    return out


def _candidates(model) -> list[SizeExpr]:
    basis: list[SizeExpr] = []
    seen = set()

    def add(e):
        if isinstance(e, SizeExpr) and not e.is_constant and e not in seen:
            seen.add(e)
            basis.append(e)
    for n in model.symbols:
        add(SizeExpr.symbol(n))
    for dims in model.arg_dims.values():
        for e in dims:
            add(e)
    for nest in model.statement_nests:
        for e in nest:
            add(e)
    for lo, hi in model.loop_ranges.values():
        add(lo)
        add(hi)
    for e in model.floordivs.values():
        add(e)
    out = []
    for c in sorted(range(-MAX_OFFSET, MAX_OFFSET + 1), key=abs):
        for e in basis:
            try:
                out.append(e + c if c else e)
            except ValueError:  # a floordiv takes no offset
                continue
    for c in sorted(range(-MAX_OFFSET, MAX_OFFSET + 1), key=abs):
        for s in (2, 3):  # the count of a strided box: (extent + c) floordiv stride
            out += [SizeExpr(e.terms, e.const + c, s) for e in basis if e.div == 1]
    return out


def _fit(values: list[int], configs: list, candidates: list[SizeExpr]):
    """The expression that takes `values` at `configs`: a constant where they agree, else
    the first candidate that does; None where none does."""
    if len(set(values)) == 1:
        return values[0]
    for e in candidates:
        try:
            if all(e.at(c) == v for c, v in zip(configs, values)):
                return e
        except KeyError:
            continue
    return None


def reached_views(kernel, standin: Mapping[str, int]) -> dict[int, Box]:
    """Argument (as written) -> its box as size expressions, where that is not the whole
    array at the stand-in sizes (and the box is the same expression at every choice of
    sizes tried)."""
    model = kernel.sizes
    configs = [dict(standin)]
    for first, stride in ((7, 2), (11, 3)):
        try:
            values = model.small_values(first, stride)
        except Exception:  # noqa: BLE001 - no other small sizes: the views are not told apart
            return {}
        if values not in configs:
            configs.append(values)
    try:  # the kernel's own sizes too: the boxes there are the ones the raise runs on
        values = model.original()
        if values not in configs:
            configs.append(values)
    except InputError:  # a size known only at run time
        pass
    if len(configs) < 3:
        return {}
    found = []
    for values in configs:
        b = boxes(kernel.at(values), kernel.name, model.param_values(values))
        if b is None:
            return {}
        found.append(b)
    candidates = _candidates(model)
    out = {}
    for k in found[0]:
        if k >= kernel.n_arguments or k not in model.arg_dims or any(k not in b for b in found):
            continue
        dims = model.arg_dims[k]
        lo, count, stride = [], [], []
        whole = True
        for d, e in enumerate(dims):
            per = [b[k] for b in found]
            if len({p.stride[d] for p in per}) != 1:
                break
            full = [e.at(c) for c in configs]
            if all(p.lo[d] == 0 and p.count[d] == n and p.stride[d] == 1 for p, n in zip(per, full)):
                lo.append(0)
                count.append(e)
                stride.append(1)
                continue
            whole = False
            lo_e = _fit([p.lo[d] for p in per], configs, candidates)
            n_e = _fit([p.count[d] for p in per], configs, candidates)
            if lo_e is None or n_e is None:
                break
            lo.append(lo_e)
            count.append(n_e)
            stride.append(per[0].stride[d])
        else:
            if not whole:
                out[k] = Box(tuple(lo), tuple(count), tuple(stride))
    return out


def view_source(source: SourceModule, name: str, boxes_at: Mapping[int, Box]) -> SourceModule:
    """The module with each argument of `boxes_at` (numeric boxes) replaced by its box:
    its memref type the box's shape, each access's index (index - lo) floordiv stride."""
    module = source.copy()
    with source.context, ir.Location.unknown():
        func = next(op for op in module.body.operations if op.operation.name == "func.func"
                    and op.attributes["sym_name"].value == name)
        block = func.regions[0].blocks[0]
        for value in block.arguments:
            b = boxes_at.get(value.arg_number)
            if b is not None:
                value.set_type(ir.MemRefType.get(list(b.count), ir.MemRefType(value.type).element_type))
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        func.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([a.type for a in block.arguments], list(ftype.results)))

        def visit(op):
            if op.name in ("affine.load", "affine.store"):
                m = op.operands[0] if op.name == "affine.load" else op.operands[1]
                if isinstance(m.owner, ir.Block) and m.owner == block and ir.BlockArgument(m).arg_number in boxes_at:
                    b = boxes_at[ir.BlockArgument(m).arg_number]
                    amap = ir.AffineMapAttr(op.attributes["map"]).value
                    results = []
                    for r, lo, s in zip(amap.results, b.lo, b.stride):
                        e = ir.AffineAddExpr.get(r, ir.AffineConstantExpr.get(-int(lo)))
                        if s != 1:
                            e = ir.AffineFloorDivExpr.get(e, ir.AffineConstantExpr.get(int(s)))
                        results.append(e)
                    new = ir.AffineMap.get(amap.n_dims, amap.n_symbols, results)
                    op.attributes["map"] = ir.AffineMapAttr.get(new)
            return ir.WalkResult.ADVANCE
        func.operation.walk(visit)
        module.operation.verify()
        return SourceModule(source.path, module.operation.get_asm(enable_debug_info=True), list(source.notes))
