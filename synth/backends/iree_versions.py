"""Two versions of a shape-generic stablehlo raise for IREE, chosen at entry on its
arguments' extents; used by synth.backends.iree_dynamic before its rewrites.

Why: a raise reads each size from one argument's dim (gemver: n as dim(A, 0)) while the
vectors it broadcasts against that size have their own dims (dim(u1, 0)), equal to it
only by the caller's precondition, which the text does not show. iree_extents cannot
prove such a broadcast non-expanding, so iree_dynamic gathers the vector at iota first,
and IREE fuses that gather into the broadcast's consumer as an indirect load per element
(gemver's generic raise at MEDIUM: its 2-d update one dispatch of four such loads).

What: where some vector broadcast's length and target extent are two different symbols
(dims of arguments, or a constant), the function `@f` becomes

    @f(args): if every such pair of extents is equal (compared at entry, on the host):
                  call @f__same(args)   -- each such argument's dim given the other
                                           extent by a `stablehlo.dynamic_reshape` of it
              else: call @f__any(args)  -- the function as it was

Under that test each reshape has its operand's own shape (the identity), so both versions
are the function as it was, for every call; in `@f__same` the equality is SSA-visible
(iree_extents reads a reshape's extents from its shape operand), so the broadcasts are
marked non-expanding and need no gather. The extents are merged into classes (one
representative each, a constant where the class has one, never itself reshaped), so no
reshape reads another reshape's extent."""

from __future__ import annotations


def split(ir, module) -> int:
    """Each public function of `module` with such broadcasts split as above; how many."""
    count = 0
    for op in list(module.body.operations):
        op = op.operation
        if op.name != "func.func" or "sym_visibility" in op.attributes or len(op.regions[0].blocks) != 1:
            continue
        classes = _classes(ir, op)
        if classes:
            _split(ir, module, op, classes)
            count += 1
    return count


def _classes(ir, func) -> dict:
    """{extent symbol: its class's representative} over the unproven vector broadcasts of
    `func` whose both extents are known symbols; only members other than their
    representative are listed."""
    from synth.backends.iree_extents import broadcast_extents

    found = []

    def visit(op):
        if op.name == "stablehlo.dynamic_broadcast_in_dim" and not any(
                k in op.attributes for k in ("known_expanding_dimensions", "known_nonexpanding_dimensions")):
            t = ir.RankedTensorType(op.operands[0].type)
            if t.rank == 1 and t.is_dynamic_dim(0):
                found.append(op)
        return ir.WalkResult.ADVANCE
    func.walk(visit)
    parent: dict = {}

    def find(s):
        while parent.get(s, s) != s:
            s = parent[s]
        return s
    for op in found:
        a, b = broadcast_extents(ir, op)
        if a is None or b is None or a == b:
            continue
        ra, rb = find(a), find(b)
        if ra == rb or (ra[0] == "const" and rb[0] == "const"):
            continue  # two constants: never equal, left to the gather
        if ra[0] == "const":
            parent[rb] = ra
        else:
            parent[ra] = rb
    return {s: find(s) for s in parent if find(s) != s}


def _split(ir, module, func, classes: dict) -> None:
    name = ir.StringAttr(func.attributes["sym_name"]).value
    versions = {}
    for tag in ("same", "any"):
        clone = func.clone(ir.InsertionPoint(module.body))
        clone.attributes["sym_name"] = ir.StringAttr.get(f"{name}__{tag}")
        clone.attributes["sym_visibility"] = ir.StringAttr.get("private")
        versions[tag] = clone
    _reshaped(ir, versions["same"], classes)
    entry = func.regions[0].blocks[0]
    for op in reversed(list(entry.operations)):
        op.operation.erase()
    results = list(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).results)
    same, other = entry.create_after(), entry.create_after()
    args = list(entry.arguments)
    with func.location:
        with ir.InsertionPoint(entry):
            test = None  # on the host: index arithmetic on the arguments' dims, no dispatch
            for member, rep in classes.items():
                eq = _op(ir, "arith.cmpi", [_dim(ir, args, member), _dim(ir, args, rep)], ir.IntegerType.get_signless(1),
                         {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
                test = eq if test is None else _op(ir, "arith.andi", [test, eq], eq.type)
            flag = test
            ir.Operation.create("cf.cond_br", operands=[flag], successors=[same, other],
                                attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, 0])})
        for block, tag in ((same, "same"), (other, "any")):
            with ir.InsertionPoint(block):
                call = ir.Operation.create("func.call", results=results, operands=args,
                                           attributes={"callee": ir.FlatSymbolRefAttr.get(f"{name}__{tag}")})
                ir.Operation.create("func.return", operands=list(call.results))


def _reshaped(ir, func, classes: dict) -> None:
    """In `func`, each argument holding a member extent reshaped, at entry, to its shape
    with that dim the representative's extent; every other use reads the reshape."""
    entry = func.regions[0].blocks[0]
    args = list(entry.arguments)
    first = list(entry.operations)[0]  # (a function's body ends in its return)
    by_arg: dict[int, dict[int, tuple]] = {}
    for member, rep in classes.items():
        if member[0] == "arg":
            by_arg.setdefault(member[1], {})[member[2]] = rep
    uses = {k: [(u.owner, u.operand_number) for u in args[k].uses] for k in by_arg}  # the body's, before ours
    with ir.InsertionPoint(first), func.location:
        for k, dims in sorted(by_arg.items()):
            x = args[k]
            t = ir.RankedTensorType(x.type)
            i64 = ir.IntegerType.get_signless(64)
            pieces = [_as_shape(ir, _extent(ir, args, dims.get(d, ("arg", k, d)))) for d in range(t.rank)]
            shape = pieces[0] if len(pieces) == 1 else _op(
                ir, "stablehlo.concatenate", pieces, ir.RankedTensorType.get([t.rank], i64),
                {"dimension": ir.IntegerAttr.get(i64, 0)})
            new = _op(ir, "stablehlo.dynamic_reshape", [x, shape], x.type)
            for owner, n in uses[k]:  # our shapes read the arguments themselves
                owner.operands[n] = new


def _extent(ir, args, symbol):
    """A tensor<i64> holding the extent `symbol`."""
    i64 = ir.IntegerType.get_signless(64)
    scalar = ir.RankedTensorType.get([], i64)
    if symbol[0] == "const":
        return _op(ir, "stablehlo.constant", [], scalar,
                   {"value": ir.DenseElementsAttr.get_splat(scalar, ir.IntegerAttr.get(i64, symbol[1]))})
    _, k, d = symbol
    size = _op(ir, "stablehlo.get_dimension_size", [args[k]], ir.RankedTensorType.get([], ir.IntegerType.get_signless(32)),
               {"dimension": ir.IntegerAttr.get(i64, d)})
    return _op(ir, "stablehlo.convert", [size], scalar)


def _dim(ir, args, symbol):
    """An index holding the extent `symbol`."""
    index = ir.IndexType.get()
    if symbol[0] == "const":
        return _op(ir, "arith.constant", [], index, {"value": ir.IntegerAttr.get(index, symbol[1])})
    d = _op(ir, "arith.constant", [], index, {"value": ir.IntegerAttr.get(index, symbol[2])})
    return _op(ir, "tensor.dim", [args[symbol[1]], d], index)


def _as_shape(ir, value):
    return _op(ir, "stablehlo.reshape", [value], ir.RankedTensorType.get([1], ir.IntegerType.get_signless(64)))


def _op(ir, name, operands, result, attributes=None):
    return ir.Operation.create(name, results=[result], operands=operands, attributes=attributes or {}).results[0]
