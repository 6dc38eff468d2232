"""synth-broadcasts-per-use: a cheap elementwise producer that several ops use is computed
once per use, before elementwise fusion.

MLIR's linalg-fuse-elementwise-ops fuses a producer only into its single consumer. A
shape-generic raise made static runs canonicalize and cse (synth.semantics.specialize), and
CSE merges equal producers that the static raise computes once per consumer:

- a broadcast of a scalar (an all-parallel linalg.generic that yields the element of its
  one rank-0 input, into a tensor.empty): a raise that multiplies two updates by the same
  constant reads one broadcast twice; the broadcast then stays a tensor of its own, both
  updates read it from memory, and the stencil passes after fusion (synth-wavefront) do not
  recognise the updates (jacobi-2d's generic raise at PolyBench LARGE ran 9x slower than
  its static raise);
- index vectors (computed from nothing but the iteration indices and scalars: an iota, a
  constant vector, `k - iota` clamped): two gathers by the same indices (durbin's two
  reversed reads, `stablehlo.gather` by `clamp(0, k - 1 - iota, n - 1)`) share the index
  vectors, each a tensor of its own filled at every step of the loop, and the gathers are
  not one generic each: the loop-invariant reversal (synth-hoist-flips) is not found, and
  durbin's generic raise ran 16x slower than its static raise at PolyBench LARGE.

Copied, per use: an all-parallel linalg.generic with one result into a tensor.empty, whose
inputs are rank-0 tensors or, read with its own indices, results of such copyable generics,
and whose payload is a few arith ops and linalg.index (no memory read: a generic gathering
its elements, a flip say, is not copied, that would double its work). A broadcast of a
scalar is copied for every use; the others only for the linalg.generic ops that read them
as inputs (what fusion folds them into: elsewhere a copy would be computed in full again). A copy
per use is fused into each consumer, as in the static raise (synth-payload-cse then merges
what two copies fused into one payload repeat). The values are the same: the copies compute
the same elements."""

from __future__ import annotations

from synth.backends.ir_toolkit import all_parallel, defining, indexing_maps, is_identity_map, nested_ops, operation

# the payload of a copied generic: this many ops at most, of these kinds
_MAX_PAYLOAD = 16
_PAYLOAD_OPS = ("linalg.index", "linalg.yield")


def _scalar_broadcast(op) -> bool:
    """Whether `op` (a copyable linalg.generic) only broadcasts its one rank-0 input."""
    from mlir import ir

    inputs = op.opview.inputs
    if len(inputs) != 1:
        return False
    source = inputs[0]
    if not (isinstance(source.type, ir.RankedTensorType) and ir.RankedTensorType(source.type).rank == 0):
        return False
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    return len(body) == 1 and body[0].operands[0] == block.arguments[0]


def _copyable(op, memo: dict) -> bool:
    """Whether `op` is a linalg.generic cheap to compute again inside each consumer (module
    docstring)."""
    from mlir import ir

    if op in memo:
        return memo[op]
    memo[op] = False
    if op.name != "linalg.generic" or len(op.results) != 1 or not all_parallel(op):
        return False
    view = op.opview
    if len(view.outputs) != 1:
        return False
    empty = defining(view.outputs[0])
    if empty is None or empty.name != "tensor.empty":
        return False
    maps = indexing_maps(op)
    if not is_identity_map(maps[-1]):
        return False
    for value, amap in zip(view.inputs, maps):
        if not isinstance(value.type, ir.RankedTensorType):
            return False
        if ir.RankedTensorType(value.type).rank == 0:
            continue
        producer = defining(value)
        if not is_identity_map(amap) or producer is None or not _copyable(producer, memo):
            return False
    body = [operation(o) for o in op.regions[0].blocks[0].operations]
    if len(body) > _MAX_PAYLOAD or not all(o.name.startswith("arith.") or o.name in _PAYLOAD_OPS for o in body):
        return False
    memo[op] = True
    return True


def _fusable_input(user, number: int) -> bool:
    """Whether operand `number` of `user` is an input of a linalg.generic (what elementwise
    fusion folds a producer into; an init is not)."""
    return user.name == "linalg.generic" and number < len(user.opview.inputs)


def broadcasts_per_use(module) -> int:
    """Give each use of every copyable producer in `module` that is used several times its
    own copy (the generic and its tensor.empty, cloned just before the user; module
    docstring), consumers first, so that a producer of a copied one is copied for every
    copy; the original goes where no use is left to it. The number of copies less one per
    original erased (the ops added)."""
    from mlir import ir

    copies, memo = 0, {}
    generics = [op for op in nested_ops(module) if op.name == "linalg.generic"]
    for op in reversed(generics):
        if not _copyable(op, memo):
            continue
        uses = [(operation(use.owner), use.operand_number) for use in op.results[0].uses]
        if len(uses) < 2:
            continue
        every_use = _scalar_broadcast(op)
        taken = [(user, number) for user, number in uses if every_use or _fusable_input(user, number)]
        if not taken:
            continue
        empty = defining(op.opview.outputs[0])
        for user, number in taken:
            at = ir.InsertionPoint(user)
            fresh = empty.clone(at)
            clone = op.clone(at)
            clone.operands[len(clone.operands) - 1] = fresh.results[0]
            user.operands[number] = clone.results[0]
            memo[clone] = True
            copies += 1
        if len(taken) == len(uses):  # every use has its copy (one outside a loop, say, a copy inside it)
            op.erase()
            if not list(empty.results[0].uses):
                empty.erase()
            copies -= 1
    return copies
