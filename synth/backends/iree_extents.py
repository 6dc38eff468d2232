"""Which `stablehlo.dynamic_broadcast_in_dim` of a dynamic-length vector provably does not
expand (the vector's length is the target dim's extent at every size), read from the SSA
text of a shape-generic stablehlo raise; used by synth.backends.iree_dynamic, which marks
those `known_nonexpanding_dimensions` rather than gathering the vector at iota first.

Why: IREE fuses that gather into the broadcast's consumer as one indirect load per element
(clamped index read from the iota), and then collapses the consumer's dims into one, each
element's row and column computed by a division and a remainder by the dynamic extent:
floyd-warshall's generic raise at MEDIUM (n = 500, one core, local-sync) ran 1.22 s per
call where the same text compiled per input shapes ran 0.08 s; with its four broadcasts
marked, the consumer is the 2-d elementwise dispatch of the static compile.

An extent is a symbol `("const", n)` or `("arg", k, d)` (dim d of the function's argument
k), both fixed for the whole call, or None where the text does not tell. A value's extent
follows elementwise ops (same shapes by stablehlo's rules), a while's carried value (the
init's extent where the body yields the same extent, by induction on the iterations), a
dynamic_gather of whole lines (its slice sizes), a dynamic broadcast / iota / reshape (its
shape operand), and a shape tensor's element through concatenate, reshape, convert,
constant and get_dimension_size. Anything else: None (left to the gather)."""

from __future__ import annotations

from synth.backends.iree_dynamic import DYNAMIC

_SAME_SHAPE = {"stablehlo." + n for n in (
    "add", "subtract", "multiply", "divide", "remainder", "minimum", "maximum", "power", "and",
    "or", "xor", "not", "negate", "abs", "sign", "exponential", "log", "sqrt", "rsqrt", "floor",
    "ceil", "round_nearest_even", "round_nearest_afz", "tanh", "logistic", "cosine", "sine",
    "compare", "convert", "shift_left", "shift_right_arithmetic", "shift_right_logical")}
_SHAPED_BY_OPERAND = {"stablehlo.dynamic_broadcast_in_dim": 1, "stablehlo.dynamic_iota": 0,
                      "stablehlo.dynamic_reshape": 1}


def nonexpanding(ir, op) -> bool:
    """Whether `op`, a dynamic_broadcast_in_dim of a rank-1 operand, maps it onto a target
    dim of the same extent, at every size."""
    a, b = broadcast_extents(ir, op)
    return a is not None and a == b


def broadcast_extents(ir, op) -> tuple:
    """(the vector's extent, the target dim's extent) of `op`, a dynamic_broadcast_in_dim
    of a rank-1 operand: symbols as below, or None where the text does not tell."""
    x, shape = op.operands[0], op.operands[1]
    target = ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])[0]
    mine = _Extents(ir)
    return mine.extent(x, 0), mine.element(shape, target)


class _Extents:
    def __init__(self, ir):
        self.ir = ir
        self.assumed: dict[tuple, tuple | None] = {}  # (while op, k, d) being read: the init's extent

    def extent(self, value, d: int, depth: int = 0):
        ir = self.ir
        if depth > 200:
            return None
        t = ir.RankedTensorType(value.type)
        if t.shape[d] != DYNAMIC:
            return ("const", t.shape[d])
        value = value.maybe_downcast()
        if isinstance(value, ir.BlockArgument):
            arg = value
            owner = arg.owner.owner.operation  # (a FuncOp's `name` is its symbol)
            if owner.name == "func.func":  # the entry block's: the function's arguments
                return ("arg", arg.arg_number, d) if arg.owner == owner.regions[0].blocks[0] else None
            if owner.name == "stablehlo.while":
                return self._carried(owner, arg.arg_number, d, depth)
            return None
        result = value
        op = result.owner
        name = op.name
        if name == "stablehlo.while":
            return self._carried(op, result.result_number, d, depth)
        if name in ("stablehlo.select", "stablehlo.clamp"):  # its first operand may be a scalar
            return self.extent(op.operands[1], d, depth + 1)
        if name in _SAME_SHAPE:
            return self.extent(op.operands[0], d, depth + 1)
        if name in _SHAPED_BY_OPERAND:
            return self.element(op.operands[_SHAPED_BY_OPERAND[name]], d, depth + 1)
        if name == "stablehlo.dynamic_gather":
            return self._gathered(op, d, depth)
        return None

    def _carried(self, loop, k: int, d: int, depth: int):
        key = (hash(getattr(loop, "operation", loop)), k, d)
        if key in self.assumed:
            return self.assumed[key]
        init = self.extent(loop.operands[k], d, depth + 1)
        if init is None:
            return None
        self.assumed[key] = init  # the induction hypothesis, while the body is read
        body = loop.regions[1].blocks[0]
        done = list(body.operations)[-1]
        step = self.extent(done.operands[k], d, depth + 1)
        del self.assumed[key]
        return init if step == init else None

    def _gathered(self, op, d: int, depth: int):
        """A dynamic_gather of whole lines (one index, offset_dims the kept dims in order):
        result dim d is the slice size of the d-th dim not collapsed."""
        text = str(op.attributes["dimension_numbers"])
        rank = self.ir.RankedTensorType(op.operands[0].type).rank
        collapsed = _field(text, "collapsed_slice_dims")
        index = self.ir.RankedTensorType(op.operands[1].type)
        if index.rank != 1 or ("index_vector_dim" in text and "index_vector_dim = 0" not in text):
            return None  # batch dims
        if _field(text, "offset_dims") != list(range(rank - len(collapsed))) or "operand_batching" in text:
            return None
        kept = [k for k in range(rank) if k not in collapsed]
        return self.element(op.operands[2], kept[d], depth + 1) if d < len(kept) else None

    def element(self, shape, k: int, depth: int = 0):
        """The extent element `k` of the 1-d integer tensor `shape` holds."""
        ir = self.ir
        shape = shape.maybe_downcast()
        if depth > 200 or isinstance(shape, ir.BlockArgument):
            return None
        op = shape.owner
        name = op.name
        if name == "stablehlo.concatenate":
            for piece in op.operands:
                n = ir.RankedTensorType(piece.type).shape[0]
                if n == DYNAMIC:
                    return None
                if k < n:
                    return self.element(piece, k, depth + 1)
                k -= n
            return None
        if name in ("stablehlo.reshape", "stablehlo.convert") and ir.RankedTensorType(op.operands[0].type).rank == 0:
            return self.scalar(op.operands[0], depth + 1) if k == 0 else None
        if name == "stablehlo.convert":
            return self.element(op.operands[0], k, depth + 1)
        if name == "stablehlo.constant":
            return _constant(ir, op, k)
        return None

    def scalar(self, value, depth: int):
        """The extent a 0-d integer tensor holds."""
        ir = self.ir
        value = value.maybe_downcast()
        if depth > 200 or isinstance(value, ir.BlockArgument):
            return None
        op = value.owner
        if op.name in ("stablehlo.convert", "stablehlo.reshape"):
            return self.scalar(op.operands[0], depth + 1)
        if op.name == "stablehlo.get_dimension_size":
            return self.extent(op.operands[0], ir.IntegerAttr(op.attributes["dimension"]).value, depth + 1)
        if op.name == "stablehlo.constant":
            return _constant(ir, op, 0)
        return None


def _field(text: str, name: str) -> list[int]:
    key = f"{name} = ["
    if key not in text:
        return []
    return [int(v) for v in text.split(key)[1].split("]")[0].replace(" ", "").split(",") if v]


def _constant(ir, op, k: int):
    attr = ir.DenseIntElementsAttr(op.attributes["value"])
    values = [attr[0]] * max(1, len(attr)) if attr.is_splat else list(attr)
    return ("const", int(values[k])) if k < len(values) else None
