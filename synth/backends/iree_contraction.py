"""A linalg.generic that is a matrix product, for synth.backends.iree_packed: its reading as
(M x K) times (K x N) plus its init, and the private function that computes it so through
the packed product.

Taken (`contraction`): two f64 inputs and one f64 init; one reduction dim k, read by both
inputs and not by the init; every parallel dim read by the init once and by exactly one
input (no batch dim); each map a projected permutation (dims only, none twice); a body
`mulf(x, y)` of the two inputs, `addf` of the init and that product (either operand order:
both are commutative in IEEE arithmetic, bit for bit), yielded, no fast-math flags. The
input whose dims lead the init's is the left factor a, its parallel dims (in the init's
order) M, the other's N. doitgen's A[r, q, p] C4[p, s] into sum[r, q, s] is a = A (M = r q),
b = C4 (N = s).

The function (`wrapper`) takes the generic's operands as they are: an input whose dims are
not (M..., k) or (k, M...) (for b: (k, N...) or (N..., k)) is transposed to (M..., k)
(linalg.transpose, a copy), an init whose dims are not (M..., N...) likewise, and the
result transposed back; the M dims and the N dims are each collapsed into one
(tensor.collapse_shape, the result expanded back), then cast to dynamic extents for the
packed function of `form` (iree_packed.definition; "_at" where a is read k first, "_bt"
where b is read k last). Each element is then the init plus the same
products, summed in the order of k, as the generic's loop sums them (the packed product's
K0 is 1); transposes, collapses and casts move values without changing them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Contraction:
    """The dims of a matrix-product generic: the operand positions of a and b (0 / 1),
    each input's dims and the init's (as the maps read them), M, N and k."""
    a: int
    b: int
    dims: tuple  # (dims of operand 0, of operand 1, of the init)
    m: tuple
    n: tuple
    k: int

    def form(self) -> str:
        at = self.dims[self.a] == (self.k, *self.m)
        bt = self.dims[self.b] == (*self.n, self.k)
        return ("_at" if at else "") + ("_bt" if bt else "")


def contraction(ir, op) -> Contraction | None:
    """`op` (a linalg.generic) read as a matrix product (module doc), or None."""
    if len(op.operands) != 3 or len(op.results) != 1 or len(op.regions[0].blocks) != 1:
        return None
    if str(op.attributes["operandSegmentSizes"]) != "array<i32: 2, 1>":
        return None
    for v in [*op.operands, op.results[0]]:
        if not isinstance(v.type, ir.RankedTensorType) or str(ir.RankedTensorType(v.type).element_type) != "f64":
            return None
    if not _product_body(op.regions[0].blocks[0]):
        return None
    kinds = [str(k) for k in ir.ArrayAttr(op.attributes["iterator_types"])]
    reductions = [d for d, kind in enumerate(kinds) if "reduction" in kind]
    if len(reductions) != 1:
        return None
    k = reductions[0]
    dims = []
    for attr in ir.ArrayAttr(op.attributes["indexing_maps"]):
        amap = ir.AffineMapAttr(attr).value
        if not all(isinstance(e, ir.AffineDimExpr) for e in amap.results):
            return None
        read = tuple(ir.AffineDimExpr(e).position for e in amap.results)
        if len(set(read)) != len(read):
            return None
        dims.append(read)
    out = dims[2]
    parallel = [d for d in range(len(kinds)) if d != k]
    if sorted(out) != parallel or not out:
        return None
    a = 0 if out[0] in dims[0] else 1
    b = 1 - a
    m = tuple(d for d in out if d in dims[a])
    n = tuple(d for d in out if d in dims[b])
    if not m or not n or set(m) & set(n) or set(dims[a]) != {*m, k} or set(dims[b]) != {*n, k}:
        return None
    return Contraction(a, b, tuple(dims), m, n, k)


def _product_body(block) -> bool:
    """`%p = mulf(in0, in1)`, `%s = addf(out, %p)` (operands in either order), yield %s."""
    from synth.backends.ir_toolkit import operation

    ops = [operation(o) for o in block.operations]
    if [o.name for o in ops] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    x, y, acc = block.arguments
    mul, add, out = ops
    for o in (mul, add):
        if "fastmath" in o.attributes and str(o.attributes["fastmath"]) != "#arith.fastmath<none>":
            return False
    return (set(mul.operands) == {x, y} and len(set(mul.operands)) == 2
            and set(add.operands) == {acc, mul.results[0]} and len(set(add.operands)) == 2
            and len(out.operands) == 1 and out.operands[0] == add.results[0])


def _type(shape) -> str:
    return "tensor<" + "".join(("?" if e is None else str(e)) + "x" for e in shape) + "f64>"


def _shape(ir, t) -> list:
    shaped = ir.RankedTensorType(t)
    return [None if shaped.is_dynamic_dim(i) else e for i, e in enumerate(shaped.shape)]


class _Text:
    """The lines of a function body with fresh value names."""

    def __init__(self):
        self.lines, self.count = [], 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def dim(self, value: str, shape: list, i: int) -> str:
        """The extent of dim `i` of `value` (shape `shape`): a static one as an int."""
        if shape[i] is not None:
            return str(shape[i])
        c, d = self.fresh("i"), self.fresh("d")
        self.lines += [f"{c} = arith.constant {i} : index", f"{d} = tensor.dim {value}, {c} : {_type(shape)}"]
        return d

    def transpose(self, value: str, shape: list, have: tuple, want: tuple) -> tuple[str, list]:
        """`value` (dims `have`) with its dims in the order `want`."""
        if have == want:
            return value, shape
        perm = [have.index(d) for d in want]
        out = [shape[p] for p in perm]
        sizes = [self.dim(value, shape, p) for p in perm if shape[p] is None]
        empty, r = self.fresh("e"), self.fresh("t")
        self.lines += [f"{empty} = tensor.empty({', '.join(sizes)}) : {_type(out)}",
                       f"{r} = linalg.transpose ins({value} : {_type(shape)}) outs({empty} : {_type(out)})"
                       f" permutation = [{', '.join(map(str, perm))}]"]
        return r, out

    def collapse(self, value: str, shape: list, first: int) -> str:
        """`value` as a matrix of its first `first` dims by the others, at dynamic extents."""
        groups = [list(range(first)), list(range(first, len(shape)))]
        two = [None if any(shape[i] is None for i in g) else _product(shape[i] for i in g) for g in groups]
        if len(shape) != 2:
            r = self.fresh("m")
            self.lines.append(f"{r} = tensor.collapse_shape {value} {groups} : {_type(shape)} into {_type(two)}")
            value = r
        if two != [None, None]:
            r = self.fresh("d")
            self.lines.append(f"{r} = tensor.cast {value} : {_type(two)} to {_type([None, None])}")
            value = r
        return value

    def expand(self, value: str, like: str, shape: list, first: int) -> str:
        """The matrix `value` (dynamic extents) as `shape`, the extents of `like` (a value
        of that shape), its first `first` dims the rows."""
        groups = [list(range(first)), list(range(first, len(shape)))]
        two = [None if any(shape[i] is None for i in g) else _product(shape[i] for i in g) for g in groups]
        if two != [None, None]:
            r = self.fresh("s")
            self.lines.append(f"{r} = tensor.cast {value} : {_type([None, None])} to {_type(two)}")
            value = r
        if len(shape) != 2:
            sizes = [self.dim(like, shape, i) for i in range(len(shape))]
            r = self.fresh("x")
            self.lines.append(f"{r} = tensor.expand_shape {value} {groups} output_shape [{', '.join(sizes)}]"
                              f" : {_type(two)} into {_type(shape)}")
            value = r
        return value


def _product(extents) -> int:
    p = 1
    for e in extents:
        p *= e
    return p


def wrapper(ir, op, plan: Contraction, callee: str) -> tuple[str, str]:
    """(name, text) of the private function computing `op` (module doc) through `@callee`
    (the packed function of `plan.form()`: a, b, c at dynamic extents, c + a b)."""
    shapes = [_shape(ir, v.type) for v in op.operands]
    form, text = plan.form(), _Text()
    a_dims = plan.dims[plan.a]
    if "_at" in form:
        a, rows = "%p" + str(plan.a), 1
    else:
        a, shape = text.transpose("%p" + str(plan.a), shapes[plan.a], a_dims, (*plan.m, plan.k))
        shapes[plan.a], rows = shape, len(plan.m)
    a = text.collapse(a, shapes[plan.a], rows)
    b_dims = plan.dims[plan.b]
    if "_bt" in form:
        b, rows = "%p" + str(plan.b), len(plan.n)
    else:
        b, shape = text.transpose("%p" + str(plan.b), shapes[plan.b], b_dims, (plan.k, *plan.n))
        shapes[plan.b], rows = shape, 1
    b = text.collapse(b, shapes[plan.b], rows)
    c, c_shape = text.transpose("%p2", shapes[2], plan.dims[2], (*plan.m, *plan.n))
    flat = text.collapse(c, c_shape, len(plan.m))
    matrix = _type([None, None])
    r = text.fresh("r")
    text.lines.append(f"{r} = func.call @{callee}({a}, {b}, {flat}) : ({matrix}, {matrix}, {matrix}) -> {matrix}")
    r = text.expand(r, c, c_shape, len(plan.m))
    r, _ = text.transpose(r, c_shape, (*plan.m, *plan.n), plan.dims[2])
    types = [str(v.type) for v in op.operands]
    body = [*text.lines, f"return {r} : {types[2]}"]
    name = "synth_packed_contraction_" + hashlib.sha256("\n".join([*types, *body]).encode()).hexdigest()[:12]
    params = ", ".join(f"%p{i}: {t}" for i, t in enumerate(types))
    lines = [f"func.func private @{name}({params}) -> {types[2]} {{", *("  " + line for line in body), "}"]
    return name, "\n".join("  " + line for line in lines)
