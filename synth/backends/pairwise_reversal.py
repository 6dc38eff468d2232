"""A vector updated from its own reversal, in place, a pair of elements at a time (mlir-cpu
backend).

durbin's step k sets y[i] = y[i] + alpha * y[k - 1 - i] for every i < k. Raised and
bufferized, the step computes the new y[0:k] into a new buffer (a linalg.generic whose
payload reads y again at k - 1 - i, clamped into y and zero outside it) and copies that
buffer back into y: at PolyBench LARGE the update was 32% of durbin's run and the copy back
26% (perf, AMD EPYC host).

`reverse_in_place` (after bufferization) takes each rank-1 buffer B = memref.alloc(n) whose
only uses are

- one linalg.generic G over [0, n), all parallel, B its only output (the payload does not
  read B's element), its inputs a view V of a buffer Y at [0, n) read at i (element Y[i]),
  and scalars (a 1-element buffer read at 0, not Y);
- then one copy (memref.copy or linalg.copy) of B into a view of Y at [0, n), with only ops
  without memory effects between G and it;

and whose payload reads Y otherwise by memref.load at an index e equal to n - 1 - i for
every i in [0, n). e may be clamped into Y and the load guarded by a select on e's range
check: `AffineForms` proves those no-ops from the value ranges (affine forms in the loop
counters, with constant loop bounds), and any other integer the payload computes must be
a constant to it. The payload is then a function f of (Y[i], Y[n-1-i]), and new Y[i] =
f(Y[i], Y[n-1-i]): the pairs (i, n-1-i) are independent. B, G and the copy become a loop
over the first half that reads both elements of a pair, computes f both ways and writes
both back, a vector of pairs at a time (the back's vector reversed by a shuffle), the rest
(and the middle element, its own partner) a pair at a time. Same operations on the same
values: outputs are bitwise equal. One store per element instead of two, no buffer.
"""

from __future__ import annotations

from synth.backends.ir_toolkit import (
    POSITION, SIGNED_ORDER, AffineForms, defining, indexing_maps, op_within, operation, ops_named, plus_forms)

_VECTOR_BYTES = 64  # one AVX-512 register; LLVM splits it where the host's are narrower
_FLOAT_OPS = ("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
              "arith.maximumf", "arith.minimumf")
_SIGNED = SIGNED_ORDER  # arith.cmpi predicates (signed)


def _root(view) -> tuple | None:
    """(the buffer, the size Value or int) of a rank-1 view at offset 0 with unit stride,
    through memref.subviews of other such views; None for any other."""
    from mlir import ir

    t = ir.MemRefType(view.type)
    if t.rank != 1:
        return None
    size = t.shape[0] if not t.is_dynamic_dim(0) else None
    op = defining(view)
    while op is not None and op.name == "memref.subview":
        v = op.opview
        if list(v.static_offsets) != [0] or list(v.static_strides) != [1]:
            return None
        if size is None:
            size = list(v.sizes)[0] if len(v.sizes) else v.static_sizes[0]
        view = op.operands[0]
        op = defining(view)
    if op is not None and op.name not in ("memref.alloc", "memref.alloca"):
        return None
    if size is None:
        return None
    return view, size


def _same_size(a, b, forms: AffineForms) -> bool:
    fa = {1: a} if isinstance(a, int) else forms.form(a)
    fb = {1: b} if isinstance(b, int) else forms.form(b)
    return fa is not None and fb is not None and plus_forms(fa, fb, -1) == {}


def _payload(generic, y, forms: AffineForms):
    """The payload of `generic` as a tree over ("a",) (its element of Y), ("b",) (Y at the
    reversed position), ("in", k) (the k-th input's element, a scalar), ("value", v) (a
    value from outside) and ("op", op, [operands]); None if it is not such a function."""
    from mlir import ir

    body = generic.regions[0].blocks[0]
    n_inputs = len(generic.opview.inputs)
    reversed_index = plus_forms(plus_forms(forms.n, {1: -1}, 1), {POSITION: 1}, -1)  # n - 1 - j
    memo: dict = {}

    def tree(value, depth=0):
        if depth > 64:
            return None
        if value in memo:
            return memo[value]
        owner = value.owner
        if isinstance(owner, ir.Block):
            if operation(owner.owner) != generic:
                return ("value", value)
            k = ir.BlockArgument(value).arg_number
            if k >= n_inputs:
                return None  # the output's element
            result = ("a",) if k == 0 else ("in", k)
        else:
            op = operation(owner)
            if not op_within(op, generic):
                result = ("value", value)
            elif op.name == "memref.load":
                if op.operands[0] != y or len(op.operands) != 2:
                    return None
                index = forms.form(op.operands[1])
                result = ("b",) if index is not None and plus_forms(index, reversed_index, -1) == {} else None
            elif op.name == "arith.select":
                condition = _truth(op.operands[0], forms)
                result = None if condition is None else tree(op.operands[1 if condition else 2], depth + 1)
            elif op.name in _FLOAT_OPS:
                operands = [tree(v, depth + 1) for v in op.operands]
                result = None if any(o is None for o in operands) else ("op", op, operands)
            else:
                return None
        memo[value] = result
        return result

    terminator = operation(list(body.operations)[-1])
    if terminator.name != "linalg.yield" or len(terminator.operands) != 1:
        return None
    return tree(terminator.operands[0])


def _truth(value, forms: AffineForms) -> bool | None:
    """The constant truth of an i1 in the payload: arith.cmpi (signed) the ranges decide,
    arith.andi / ori of such, an i1 constant; None otherwise."""
    from mlir import ir

    op = defining(value)
    if op is None:
        return None
    if op.name == "arith.constant" and isinstance(op.attributes["value"], ir.IntegerAttr):
        return bool(ir.IntegerAttr(op.attributes["value"]).value)
    if op.name in ("arith.andi", "arith.ori"):
        a, b = (_truth(v, forms) for v in op.operands)
        if a is None or b is None:
            return None
        return (a and b) if op.name == "arith.andi" else (a or b)
    if op.name != "arith.cmpi":
        return None
    kind = _SIGNED.get(ir.IntegerAttr(op.attributes["predicate"]).value)
    a, b = (forms.form(v) for v in op.operands)
    if kind is None or a is None or b is None:
        return None
    bounds = forms.bounds(plus_forms(a, b, -1))
    if bounds is None:
        return None
    lo, hi = bounds
    holds = {"slt": hi < 0, "sle": hi <= 0, "sgt": lo > 0, "sge": lo >= 0}[kind]
    fails = {"slt": lo >= 0, "sle": lo > 0, "sgt": hi <= 0, "sge": hi < 0}[kind]
    return True if holds else (False if fails else None)


def _match(alloc):
    """(generic, copy, Y, n, the payload tree, the scalar inputs {k: buffer}) for a buffer of
    the form in the module's docstring; None otherwise."""
    from mlir import ir

    t = ir.MemRefType(alloc.results[0].type)
    if t.rank != 1 or not isinstance(t.element_type, (ir.F64Type, ir.F32Type)):
        return None
    users = [operation(u.owner) for u in alloc.results[0].uses]
    generics = [u for u in users if u.name == "linalg.generic"]
    copies = [u for u in users if u.name in ("memref.copy", "linalg.copy")]
    if len(users) != 2 or len(generics) != 1 or len(copies) != 1:
        return None
    generic, copy = generics[0], copies[0]
    view = generic.opview
    if (len(view.outputs) != 1 or view.outputs[0] != alloc.results[0] or len(view.inputs) < 1
            or copy.operands[0] != alloc.results[0] or generic.block != copy.block
            or "reduction" in str(generic.attributes["iterator_types"])):
        return None
    if len(list(generic.regions[0].blocks[0].arguments[len(view.inputs)].uses)):
        return None
    between, seen = [], False  # G, then only ops without memory effects, then the copy
    for o in generic.block.operations:
        o = operation(o)
        if o == generic:
            seen = True
        elif o == copy:
            break
        elif seen:
            between.append(o)
    if any(o.name not in ("memref.subview", "arith.constant", "arith.index_cast", "arith.addi",
                          "arith.subi", "arith.maxsi", "arith.minsi") for o in between):
        return None
    n = t.shape[0] if not t.is_dynamic_dim(0) else alloc.operands[0]
    forms = AffineForms(generic, {})
    n_form = {1: n} if isinstance(n, int) else forms.form(n)
    if n_form is None:
        return None
    forms.n = n_form
    source, target = _root(view.inputs[0]), _root(copy.operands[1])
    if source is None or target is None or source[0] != target[0]:
        return None
    y = source[0]
    if not (_same_size(source[1], n, forms) and _same_size(target[1], n, forms)):
        return None
    maps = indexing_maps(generic)
    if maps[0] != ir.AffineMap.get_identity(1) or maps[-1] != ir.AffineMap.get_identity(1):
        return None
    scalars = {}
    for k in range(1, len(view.inputs)):
        s = view.inputs[k]
        st = ir.MemRefType(s.type)
        zero = ir.AffineMap.get(1, 0, [ir.AffineConstantExpr.get(0)] * st.rank)
        if st.rank > 1 or (st.rank == 1 and st.shape[0] != 1) or maps[k] != zero:
            return None
        root = _root(s)
        if root is not None and root[0] == y:
            return None
        scalars[k] = s
    tree = _payload(generic, y, forms)
    if tree is None or not _uses(tree, "b"):
        return None
    return generic, copy, copy.operands[1], n, tree, scalars


def _uses(tree, kind: str) -> bool:
    if tree[0] == kind:
        return True
    return tree[0] == "op" and any(_uses(t, kind) for t in tree[2])


def _emit(tree, a, b, memo: dict, vector_type=None):
    """The value of `tree` at the insertion point, ("a",) and ("b",) being `a` and `b`;
    scalars broadcast to `vector_type` where it is given (`memo` keeps them, per width)."""
    from mlir import ir

    kind = tree[0]
    if kind == "a":
        return a
    if kind == "b":
        return b
    if kind in ("in", "value"):
        key = (tree, vector_type is None)
        if key not in memo:
            raise KeyError(tree)
        return memo[key]
    op, operands = tree[1], [_emit(t, a, b, memo, vector_type) for t in tree[2]]
    attributes = {op.attributes[i].name: op.attributes[i].attr for i in range(len(op.attributes))}
    result_type = vector_type if vector_type is not None else op.results[0].type
    return ir.Operation.create(op.name, results=[result_type], operands=operands,
                               attributes=attributes).results[0]


def _leaves(tree, found: list) -> list:
    if tree[0] in ("in", "value") and tree not in found:
        found.append(tree)
    elif tree[0] == "op":
        for t in tree[2]:
            _leaves(t, found)
    return found


def _rewrite(alloc, found) -> None:
    from mlir import ir
    from mlir.dialects import arith, memref, scf, vector

    generic, copy, target, n, tree, scalars = found
    element = ir.MemRefType(alloc.results[0].type).element_type
    width = _VECTOR_BYTES // (8 if isinstance(element, ir.F64Type) else 4)
    with ir.InsertionPoint(copy), copy.location:
        vtype = ir.VectorType.get([width], element)
        index = ir.IndexType.get()
        c0, c1, c2, cw = (arith.constant(index, k) for k in (0, 1, 2, width))
        n_value = arith.constant(index, n) if isinstance(n, int) else n
        memo: dict = {}
        for leaf in _leaves(tree, []):
            if leaf[0] == "in":
                buffer = scalars[leaf[1]]
                rank = ir.MemRefType(buffer.type).rank
                scalar = memref.load(buffer, [c0] * rank)
            else:
                scalar = leaf[1]
            memo[(leaf, True)] = scalar
            memo[(leaf, False)] = vector.broadcast(vtype, scalar)
        half = arith.divui(n_value, c2)
        vectors = arith.muli(arith.divui(half, cw), cw)
        last = arith.subi(n_value, c1)
        reverse = list(range(width - 1, -1, -1))
        loop = scf.ForOp(c0, vectors, cw)
        with ir.InsertionPoint(loop.body):
            i = loop.induction_variable
            back = arith.subi(arith.subi(n_value, cw), i)
            a = vector.load(vtype, target, [i])
            b = vector.shuffle(*(2 * [vector.load(vtype, target, [back])]), reverse)
            new_a = _emit(tree, a, b, memo, vtype)
            new_b = _emit(tree, b, a, memo, vtype)
            vector.store(new_a, target, [i])
            vector.store(vector.shuffle(new_b, new_b, reverse), target, [back])
            scf.YieldOp([])
        rest = scf.ForOp(vectors, arith.subi(n_value, half), c1)
        with ir.InsertionPoint(rest.body):
            i = rest.induction_variable
            partner = arith.subi(last, i)
            a = memref.load(target, [i])
            b = memref.load(target, [partner])
            new_a = _emit(tree, a, b, memo)
            new_b = _emit(tree, b, a, memo)
            memref.store(new_b, target, [partner])
            memref.store(new_a, target, [i])
            scf.YieldOp([])
    copy.erase()
    generic.erase()
    alloc.erase()


def reverse_in_place(module) -> int:
    """Rewrite each buffer of the form in the module's docstring; the number rewritten."""
    count = 0
    for alloc in ops_named(module, ("memref.alloc",)):
        found = _match(alloc)
        if found is not None:
            _rewrite(alloc, found)
            count += 1
    return count
