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
  The reads of a written array that no write can reach (another lattice, another range:
  `a[i] = a[i - 1] + b[i]` at step 2, `a[i + m] = a[i]`) form a box of their own. An
  array only read at interleaved lattices (`p[3 * i + c]`, `x[2 * i]` with `x[2 * i + 2]`
  beside `x[2 * i + 1]`), or at a stride beside reads at unit stride (`x[2 * i] + x[i]`),
  gets a box per lattice, each an input of its own.
- `reached_views(kernel)`: the boxes as size expressions (found at four choices of the
  size symbols and matched to the expressions the size model knows, each plus at most
  MAX_OFFSET, or such a sum floordiv a stride), where they are not the whole array.

synth.analysis.view_rewrite rewrites the kernel over them.
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


class Walker:
    """Follows a function body at given parameter values and records, for every access of
    an argument in program order, the box of elements it touches."""
    def __init__(self, block, params: Mapping[int, int]):
        self.entry = block
        self.params = params
        self.ranges: dict = {}  # iv key -> (lo, hi inclusive, base, unit)
        self.values: dict = {}  # ir.Value -> _Lin
        # every access of an argument in program order: (argument, writes?, per dim
        # (lo, hi, base, unit) or None where not followed; dims None in a loop that never runs)
        self.accesses: list[tuple[int, bool, list | None]] = []
        self.dead = 0

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
        if op.name in ("arith.divsi", "arith.divui", "arith.floordivsi"):  # a quotient of sizes (n / 2)
            a, b = self.value(op.operands[0]), self.value(op.operands[1])
            if a is not None and b is not None and not a.terms and not b.terms and b.const > 0 and a.const >= 0:
                return _Lin({}, a.const // b.const)
        if op.name == "arith.muli":  # a product of sizes (n * k)
            a, b = self.value(op.operands[0]), self.value(op.operands[1])
            if a is not None and b is not None and not a.terms and not b.terms:
                return _Lin({}, a.const * b.const)
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
        if self.dead:
            return self.walk(f.regions[0].blocks[0])
        nl = f.lowerBoundMap.value.n_dims + f.lowerBoundMap.value.n_symbols
        ops = list(f.operands)
        nu = f.upperBoundMap.value.n_dims + f.upperBoundMap.value.n_symbols
        lb = self.bound(f.lowerBoundMap.value, ops[:nl], False)
        ub = self.bound(f.upperBoundMap.value, ops[nl:nl + nu], True)
        if lb is None or ub is None:
            return False
        step = int(ir.IntegerAttr(f.attributes["step"]).value) if "step" in f.attributes else 1
        lo, hi = lb[0], ub[1] - 1
        if hi < lo:  # never runs: its accesses reach nothing
            self.dead += 1
            ok = self.walk(f.regions[0].blocks[0])
            self.dead -= 1
            return ok
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
        if self.dead:
            self.accesses.append((k, op.name == "affine.store", None))
            return
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        start = 1 if op.name == "affine.load" else 2
        forms = [self.value(x) for x in list(op.operands)[start:]]
        results = _map_results(amap, forms) if None not in forms else [None] * amap.n_results
        self.accesses.append((k, op.name == "affine.store",
                              [None if r is None else self.interval(r) for r in results]))


@dataclass(frozen=True)
class Reach:
    """The boxes of one function at one choice of sizes: per argument its box (`main`:
    every write, and every read of an element the function may write), the box of the
    reads of an array written elsewhere only (`extra`: elements only read, so always the
    values the function was given; a stride-2 loop `a[i] = a[i - 1] + ...` reads the even
    elements and writes the odd ones), and the role of each access in program order."""

    main: dict
    extra: dict
    roles: tuple
    written: frozenset = frozenset()  # the arguments the function writes


def _box(dims_list: list, shape) -> Box:
    """The box around the accesses `dims_list` (each per dim (lo, hi, base, unit) or None)."""
    out = []
    for d, n in enumerate(shape):
        seen = [acc[d] for acc in dims_list if d < len(acc)]
        if not seen or any(s is None for s in seen):
            out.append((0, n, 1))
            continue
        lo, hi = min(s[0] for s in seen), max(s[1] for s in seen)
        step = 0
        for s in seen:
            step = gcd(gcd(step, s[3]), abs(s[2] - seen[0][2]))
        step = step or 1
        first = lo + (seen[0][2] - lo) % step  # the first value of the lattice in [lo, hi]
        if first < 0 or hi >= n or first > hi:
            out.append((0, n, 1))
            continue
        out.append((first, (hi - first) // step + 1, step))
    return Box(tuple(x[0] for x in out), tuple(x[1] for x in out), tuple(x[2] for x in out))


def disjoint(a: Box, b: Box) -> bool:
    """Whether no element lies in both boxes: in some dim their ranges do not overlap, or
    their lattices never meet."""
    for lo1, n1, s1, lo2, n2, s2 in zip(a.lo, a.count, a.stride, b.lo, b.count, b.stride):
        if lo1 + (n1 - 1) * s1 < lo2 or lo2 + (n2 - 1) * s2 < lo1 or (lo1 - lo2) % gcd(s1, s2):
            return True
    return False


def _same_lattice(a: Box, b: Box) -> bool:
    """Whether two boxes are parts of one lattice: the same strides, first elements a
    whole number of strides apart (`x[2 * i]` and `x[2 * i + 2]`), so that one box of
    that lattice holds both (each read at its own offset)."""
    return a.stride == b.stride and all(s >= 2 and (p - q) % s == 0 or (s == 1 and p == q and n == m)
                                        for p, q, n, m, s in zip(a.lo, b.lo, a.count, b.count, a.stride))


def _interleaved(dims_list: list, shape) -> tuple[tuple[Box, ...], list[int]] | None:
    """Reads of one array that fall in k >= 2 interleaved lattices (an array of structures
    read field by field: `p[3 * i]`, `p[3 * i + 1]`, `p[3 * i + 2]`): (the box of each
    lattice, by its first element; the lattice of each access), where the lattices have
    the same counts and strides and differ only in their first element along one dim, by
    less than the stride (interleaved), or by more than the few elements the sketches
    slice themselves (blocks side by side: the two halves of a row). None otherwise (one
    box for them all, as before)."""
    own = [_box([acc], shape) for acc in dims_list]
    members: list[list[int]] = []  # the accesses of each lattice
    for j, b in enumerate(own):
        meets = [c for c, m in enumerate(members) if not all(disjoint(b, own[i]) for i in m)]
        if not meets:
            members.append([j])
            continue
        if len(meets) > 1 or not _same_lattice(b, own[members[meets[0]][0]]):
            return None  # overlapping lattices that differ: not a field-by-field read
        members[meets[0]].append(j)
    if len(members) < 2:
        return None
    classes = [_box([dims_list[i] for i in m], shape) for m in members]
    of = [next(c for c, m in enumerate(members) if j in m) for j in range(len(own))]
    first = classes[0]
    moved = {d for c in classes for d in range(len(shape)) if c.lo[d] != first.lo[d]}
    if len(moved) != 1 or any(c.stride != first.stride for c in classes):
        return None
    d = next(iter(moved))
    if any(c.count[e] != first.count[e] for c in classes for e in range(len(shape)) if e != d) or (
            first.stride[d] < 2 and any(c.count != first.count for c in classes)):
        return None
    los = sorted(c.lo[d] for c in classes)
    interleaved = first.stride[d] >= 2 and los[-1] - los[0] < first.stride[d]
    # or blocks side by side beyond what the sketches slice (q[i][j], q[i][j + 16], j < 16)
    blocked = los[0] > MAX_OFFSET or los[1] - los[0] > MAX_OFFSET
    if not (interleaved or blocked):
        return None
    order = sorted(range(len(classes)), key=lambda c: classes[c].lo[d])
    rank = {c: r for r, c in enumerate(order)}
    return tuple(classes[c] for c in order), [rank[c] for c in of]


def _strided_apart(dims_list: list, shape) -> tuple[tuple[Box, ...], list[int]] | None:
    """Reads of one array at a stride beside reads at unit stride (`x[2 * i] + x[i]`),
    whose one box would lose the stride: (a box per lattice of the strided reads, one for
    the others; the box of each access), where each is a box of its own. None where no
    read is strided, or their one box keeps the strides."""
    own = [_box([acc], shape) for acc in dims_list]
    union = _box(dims_list, shape).stride
    if not any(s > u for b in own for s, u in zip(b.stride, union)):
        return None
    keys = []  # per access: its class (unit strides: one class; else stride and residues)
    for b in own:
        keys.append(None if all(s == 1 for s in b.stride) else
                    (b.stride, tuple(o % s for o, s in zip(b.lo, b.stride))))
    order = list(dict.fromkeys(keys))
    classes = [_box([acc for acc, k in zip(dims_list, keys) if k == key], shape) for key in order]
    for key, box in zip(order, classes):
        if key is not None and box.stride != key[0]:
            return None  # the lattice leaves the array: no box of it
    return tuple(classes), [order.index(k) for k in keys]


def boxes(source: SourceModule, name: str, params: Mapping[int, int]) -> Reach | None:
    """The Reach of @name's memref arguments at the sizes the module is written at; None
    where a loop bound or an access cannot be followed."""
    with source.context:
        module = source.parsed()
        func = next(op for op in module.body.operations if op.operation.name == "func.func"
                    and op.attributes["sym_name"].value == name)
        block = func.regions[0].blocks[0]
        w = Walker(block, params)
        if not w.walk(block):
            return None
        shapes = {a.arg_number: list(ir.MemRefType(a.type).shape) for a in block.arguments
                  if isinstance(a.type, ir.MemRefType)}
    main, extra = {}, {}
    roles = ["main"] * len(w.accesses)
    for k, shape in shapes.items():
        live = [j for j, (a, _, dims) in enumerate(w.accesses) if a == k and dims is not None]
        writes = [j for j in live if w.accesses[j][1]]
        inside, outside = list(writes), [j for j in live if j not in writes]
        if not writes:
            lattices = _interleaved([w.accesses[j][2] for j in live], shape) or \
                _strided_apart([w.accesses[j][2] for j in live], shape)
            if lattices is not None:  # rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]: a box each
                boxes_, classes = lattices
                extra[k] = boxes_
                for j, c in zip(live, classes):
                    roles[j] = f"extra:{c}"
                continue
            inside, outside = live, []
        while outside:
            box = _box([w.accesses[j][2] for j in inside], shape)
            moved = [j for j in outside if not disjoint(_box([w.accesses[j][2]], shape), box)]
            if not moved:
                break
            inside += moved
            outside = [j for j in outside if j not in moved]
        box = _box([w.accesses[j][2] for j in inside], shape)
        if outside:
            other = _box([w.accesses[j][2] for j in outside], shape)
            if disjoint(other, box):
                extra[k] = (other,)
                for j in outside:
                    roles[j] = "extra:0"
            else:
                box = _box([w.accesses[j][2] for j in live], shape)
        main[k] = box
    written = frozenset(a for a, writes, _ in w.accesses if writes)
    return Reach(main, extra, tuple(roles), written)


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


@dataclass(frozen=True)
class Views:
    """The boxes of a kernel as size expressions: `main` (argument -> box, where not the
    whole array), `extra` (argument -> the boxes of its elements only read, each taken as
    an input of its own: one, or one per lattice of an array read field by field),
    `roles` (per access in program order: "main", or "extra:J" for the J-th extra box)."""

    main: dict
    extra: dict
    roles: tuple

    def __bool__(self) -> bool:
        return bool(self.main or self.extra)


NO_VIEWS = Views({}, {}, ())


def _fit_box(per: list[Box], full: list, configs: list, candidates: list) -> Box | None:
    """The box whose values at `configs` are `per` (dims of the array `full`, SizeExprs):
    a dim the boxes cover whole is the array's own dim expression."""
    lo, count, stride = [], [], []
    for d, e in enumerate(full):
        if len({p.stride[d] for p in per}) != 1:
            return None
        if all(p.lo[d] == 0 and p.count[d] == e.at(c) and p.stride[d] == 1 for p, c in zip(per, configs)):
            lo.append(0)
            count.append(e)
            stride.append(1)
            continue
        lo_e = _fit([p.lo[d] for p in per], configs, candidates)
        n_e = _fit([p.count[d] for p in per], configs, candidates)
        if lo_e is None or n_e is None:
            return None
        lo.append(lo_e)
        count.append(n_e)
        stride.append(per[0].stride[d])
    return Box(tuple(lo), tuple(count), tuple(stride))


def _whole(box: Box, full: list) -> bool:
    return all(isinstance(o, int) and o == 0 and n == e and s == 1
               for o, n, s, e in zip(box.lo, box.count, box.stride, full))


def _trim(box: Box, full: list, written: bool = False) -> bool:
    """Whether the box is its array less at most MAX_OFFSET elements at each end of each
    dim, at unit strides: what the statement sketches slice themselves (a stencil's
    interior) or read at its first or last element (an edge, as durbin's r[0]), so no view
    is needed for it. A written array at one index inside a dim (a channel of interleaved
    pixels, `dst[3 * i + 1] = g[i]`) needs its view: the sketches store at an edge only."""
    for o, n, s, e in zip(box.lo, box.count, box.stride, full):
        if n == 1 and not isinstance(n, SizeExpr) and (o == 0 or o == e - 1):
            continue
        if written and n == 1 and not isinstance(n, SizeExpr):
            return False
        if s != 1 or not isinstance(o, int) or not 0 <= o <= MAX_OFFSET:
            return False
        try:
            gap = e - SizeExpr.of(n) if isinstance(n, int) else e - n
        except ValueError:  # a floordiv
            return False
        if not gap.is_constant or gap.div != 1 or not 0 <= gap.const - o <= MAX_OFFSET:
            return False
    return True


def reached_views(kernel, standin: Mapping[str, int]) -> Views:
    """The kernel's boxes as size expressions (the same at every choice of sizes tried:
    the stand-in sizes, two other small choices and the kernel's own), for the arguments
    as written; NO_VIEWS where every argument is reached whole or less a few elements at
    its ends (a stencil's interior, which the sketches slice), or the boxes cannot be told."""
    model = kernel.sizes
    configs = [dict(standin)]
    order = sorted(model.symbols, key=lambda n: (model.symbols[n].value, n))
    for first, stride in ((7, 2), (11, 3), (6, 5), (13, 4)):  # other small sizes, in the same order
        values = {n: first + stride * r for r, n in enumerate(order)}
        if len(configs) < 3 and values not in configs and model.valid(values):
            configs.append(values)
    for scale in (2, 3):  # sizes tied to each other (a row pitch of at least 2 * n): the stand-in scaled
        values = {n: v * scale for n, v in standin.items()}
        if len(configs) < 3 and values not in configs and model.valid(values):
            configs.append(values)
    try:  # the kernel's own sizes too: the boxes there are the ones the raise runs on
        values = model.original()
        if values not in configs:
            configs.append(values)
    except InputError:  # a size known only at run time
        pass
    if len(configs) < 3:
        return NO_VIEWS
    configs = [model.with_quotients(c) for c in configs]  # (quotient symbols an extent holds)
    found = []
    for values in configs:
        b = boxes(kernel.at(values), kernel.name, model.param_values(values))
        if b is None or (found and b.roles != found[0].roles):
            return NO_VIEWS
        found.append(b)
    candidates = _candidates(model)
    main, extra = {}, {}
    roles = list(found[0].roles)
    for k in sorted(set(found[0].main) | set(found[0].extra)):
        if k >= kernel.n_arguments or k not in model.arg_dims:
            continue
        full = list(model.arg_dims[k])
        box = _fit_box([b.main[k] for b in found], full, configs, candidates) if k in found[0].main else None
        other = None
        if k in found[0].extra and all(len(b.extra.get(k, ())) == len(found[0].extra[k]) for b in found):
            other = tuple(_fit_box([b.extra[k][j] for b in found], full, configs, candidates)
                          for j in range(len(found[0].extra[k])))
            other = None if None in other else other
        if (k in found[0].main and box is None) or (k in found[0].extra and other is None):
            return NO_VIEWS  # the accesses were rewritten by roles that no longer hold
        if box is not None and not _whole(box, full):
            main[k] = box
        if other is not None:
            extra[k] = other
    if not extra and all(_trim(b, list(model.arg_dims[k]), k in found[0].written) for k, b in main.items()):
        return NO_VIEWS  # nothing the sketches do not slice themselves: the kernel as it is
    return Views(main, extra, tuple(roles))
