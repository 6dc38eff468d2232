"""Symbolic execution of an affine function: the original side of an equivalence proof.

The function is compiled once into Python closures (one per op), then run with every
loop unrolled at concrete bounds. What values are:

- index and integer values computed from constants, loop indices and size parameters
  stay Python ints (bools for i1): loop bounds, `affine.if` conditions and every memory
  index are evaluated concretely, and an index that depends on data is an error;
- data values are z3 terms: Real for f32/f64, exact real arithmetic (f32/f64 rounding
  is NOT modelled), Int for i32/i64 (mathematical integers: no wrap-around), Bool for i1;
- a memref is a NumPy object array of such values. Function arguments are copied, local
  `memref.alloca`/`alloc` start empty, and reading an element never written gives a
  fresh symbolic constant `undef_<name>!k` (remembered, so re-reads agree).

max / min / select / division / sqrt / exp / comparisons use the shared encodings of
`synth.semantics.z3sem` (the raised side uses the very same uninterpreted functions);
powf and integer division come from `synth.semantics.support`. Unsupported ops raise
`InputError` at the op's FILE:LINE:COL when the function is compiled, before anything
runs.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import numpy as np
import z3
from mlir import ir

from synth.semantics import support as support
from synth.errors import ExecutionError, InputError
from synth.semantics import z3sem
from synth.analysis.function import KernelFunction, find_function
from synth.frontend.reader import SourceModule, diagnostic_location
from synth.analysis.affine_expr import compile_map, integer_set
from synth.semantics.affine_scalar import SCALAR_HANDLERS
from synth.semantics.handlers import handles, table
from synth.semantics.interpreter import by_cases

Env = list  # slot -> value, one slot per SSA value of the function
Step = Callable[[Env], None]

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")


# inputs -------------------------------------------------------------------------------


def symbolic_inputs(kf: KernelFunction, prefix: str = "", sizes: dict[int, int] | None = None) -> list:
    """One entry per argument of `kf`, for `execute`.

    Memrefs (of static shape): object arrays of fresh z3 constants named
    `{prefix}arg{i}[j,k]` (Real for float, Int for integer elements). Float scalars: a z3
    Real `{prefix}arg{i}`. Size arguments (`sizes`: argument index -> value) are Python
    ints; those not in `sizes` and bound to an array dimension take its extent, the
    others bounding loops None (to be filled in before `execute`). Other integer
    scalars: a z3 Int."""
    known = {**kf.inferred_sizes(), **(sizes or {})}
    size_params = kf.loop_params | set(kf.inferred_sizes()) | set(sizes or {})
    out: list = []
    for a in kf.arguments:
        name = f"{prefix}arg{a.index}"
        if a.is_array:
            sort = z3sem.sort_for(a.type)
            arr = np.empty(a.shape, dtype=object)
            for idx in np.ndindex(*a.shape):
                arr[idx] = z3.Const(f"{name}[{','.join(map(str, idx))}]", sort)
            out.append(arr)
        elif a.index in size_params:
            out.append(known.get(a.index))
        elif a.type in FLOAT_TYPES:
            out.append(z3.Real(name))
        else:
            out.append(z3.Int(name))
    return out


# memory -------------------------------------------------------------------------------


class OutsideAtSizes(ExecutionError):
    """A load at an index the kernel computes (not data) falls outside its array at the
    sizes it runs at (the proofs skip those sizes)."""


class _Buffer:
    """A memref's contents; None marks an element never written."""

    __slots__ = ("data", "dtype", "name")

    def __init__(self, data: np.ndarray, dtype: str, name: str):
        self.data, self.dtype, self.name = data, dtype, name

    def undefined(self, idx: tuple) -> z3.ExprRef:
        value = z3.FreshConst(z3sem.sort_for(self.dtype), prefix=f"undef_{self.name}")
        self.data[idx] = value
        return value



# affine maps and sets -----------------------------------------------------------------



# the compiler -------------------------------------------------------------------------

Handler = Callable[["Compiler", ir.OpView], "Step | None"]


class Compiler:
    """Compiles an affine function body into slot-numbered steps, each op through its handler."""
    def __init__(self, path: str, handlers=None):
        self.path = path
        self.handlers = HANDLERS if handlers is None else handlers  # op name -> handler
        self.slots: dict[ir.Value, int] = {}

    def define(self, value: ir.Value) -> int:
        slot = len(self.slots)
        self.slots[value] = slot
        return slot

    def use(self, value: ir.Value) -> int:
        return self.slots[value]

    def where(self, op) -> str:
        return diagnostic_location(self.path, op.location)

    def block(self, block: ir.Block) -> tuple[list[Step], list[int]]:
        """Steps of a block's ops, and the slots its terminator yields."""
        steps: list[Step] = []
        yielded: list[int] = []
        for op in block.operations:
            name = op.operation.name
            if name in ("affine.yield", "func.return"):
                yielded = [self.use(v) for v in op.operands]
                continue
            handler = self.handlers.get(name)
            if handler is None:
                raise InputError(f"symbolic execution does not support '{name}'", self.where(op))
            step = handler(self, op)
            if step is not None:
                steps.append(step)
        return steps, yielded

    def indices(self, amap: ir.AffineMap, operands, op) -> Callable[[Env], list[int]]:
        """Evaluates a map's results on its (concrete) operands; a memref.load's own
        indices may be symbolic (a table lookup at an index read from data: by cases)."""
        fns = compile_map(amap)
        slots = [self.use(v) for v in operands]
        where, op_name = self.where(op), op.operation.name
        lookup = op_name == "memref.load"  # (its map is the identity: _identity_indices)

        def evaluate(env: Env) -> list[int]:
            vals = [env[s] for s in slots]
            if lookup and any(isinstance(v, z3.ExprRef) for v in vals):
                return vals
            for v in vals:
                if not isinstance(v, int):
                    term = str(v) if len(str(v)) <= 60 else str(v)[:57] + "..."
                    raise InputError(f"'{op_name}': an index or bound depends on symbolic data "
                                     f"({term}); only concrete index computations are supported",
                                     where)
            return [f(vals) for f in fns]
        return evaluate


def _run(steps: list[Step], env: Env) -> None:
    for step in steps:
        step(env)


# affine control flow ------------------------------------------------------------------


@handles("affine.for")
def _affine_for(c: Compiler, op) -> Step:
    lower = c.indices(op.lowerBoundMap.value, op.lowerBoundOperands, op)
    upper = c.indices(op.upperBoundMap.value, op.upperBoundOperands, op)
    stride = ir.IntegerAttr(op.step).value
    body = op.regions[0].blocks[0]
    iv = c.define(body.arguments[0])
    carried = [c.define(a) for a in list(body.arguments)[1:]]
    inits = [c.use(v) for v in op.inits]
    results = [c.define(r) for r in op.results]
    steps, yielded = c.block(body)

    def step(env: Env) -> None:
        values = [env[s] for s in inits]
        for i in range(max(lower(env)), min(upper(env)), stride):
            env[iv] = i
            for s, v in zip(carried, values):
                env[s] = v
            for st in steps:
                st(env)
            values = [env[s] for s in yielded]
        for s, v in zip(results, values):
            env[s] = v
    return step


@handles("affine.if")
def _affine_if(c: Compiler, op) -> Step:
    try:
        amap, eqs = integer_set(op.attributes["condition"])
    except (ValueError, ir.MLIRError) as e:
        raise InputError(f"'affine.if': {e}", c.where(op)) from None
    constraints = c.indices(amap, op.operands, op)
    then_steps, then_yield = c.block(op.regions[0].blocks[0])
    else_steps, else_yield = ([], [])
    if len(op.regions[1].blocks):
        else_steps, else_yield = c.block(op.regions[1].blocks[0])
    results = [c.define(r) for r in op.results]

    def step(env: Env) -> None:
        holds = all(v == 0 if eq else v >= 0 for v, eq in zip(constraints(env), eqs))
        steps, yielded = (then_steps, then_yield) if holds else (else_steps, else_yield)
        for st in steps:
            st(env)
        values = [env[s] for s in yielded]
        for s, v in zip(results, values):
            env[s] = v
    return step


@handles("affine.apply", "affine.min", "affine.max")
def _affine_apply(c: Compiler, op) -> Step:
    results = c.indices(op.attributes["map"].value, op.operands, op)
    pick = {"affine.apply": lambda r: r[0], "affine.min": min, "affine.max": max}[op.operation.name]
    r = c.define(op.results[0])

    def step(env: Env) -> None:
        env[r] = pick(results(env))
    return step


# memory -------------------------------------------------------------------------------


def _access(c: Compiler, op, memref: ir.Value, index: Callable[[Env], list[int]],
            store: ir.Value | None) -> Step:
    """A load (store None) or a store of `store`, bounds-checked at the op."""
    m = c.use(memref)
    where, name = c.where(op), op.operation.name

    def locate(env: Env) -> tuple:
        idx = tuple(index(env))
        buf = env[m]
        if any(isinstance(i, z3.ExprRef) for i in idx):
            return buf, idx  # an index read from data (a table lookup): by cases, at the load
        if name == "memref.load" and len(idx) == buf.data.ndim and any(
                not 0 <= i < n for i, n in zip(idx, buf.data.shape)):
            # an index C computes from loop indices (`src[i / 2]`), kept inside its array at
            # the kernel's sizes (synth.frontend.c.computed) but not at every size synth
            # chose: C's behaviour is undefined there, and those sizes prove nothing
            raise OutsideAtSizes(f"'{name}' at {where}: the index {list(idx)} it computes is outside "
                                 f"{buf.name} (shape {list(buf.data.shape)}) at these sizes")
        if len(idx) != buf.data.ndim or any(not 0 <= i < n for i, n in zip(idx, buf.data.shape)):
            # the interpreter runs the kernel at sizes synth chose (proofs): an access past
            # its array there is synth's choice of sizes, not the input's fault
            raise ExecutionError(f"internal error (a bug in synth): '{name}' at {where}: index "
                                 f"{list(idx)} is out of bounds of {buf.name} (shape "
                                 f"{list(buf.data.shape)}) at the sizes synth chose; --size "
                                 f"NAME=VALUE gives them")
        return buf, idx

    if store is None:
        r = c.define(op.results[0])

        def element(buf, idx: tuple):
            v = buf.data[idx]
            return buf.undefined(idx) if v is None else v

        def load(env: Env) -> None:
            buf, idx = locate(env)
            if any(isinstance(i, z3.ExprRef) for i in idx):
                # an array select: the element at each value the index can take (clamped
                # into the array as the raise's gather reads it; the C reads outside only
                # where its behaviour is undefined, which the translation does not assume)
                env[r] = by_cases(list(idx), [(0, n - 1) for n in buf.data.shape],
                                  lambda ks: element(buf, tuple(ks)))[()]
                return
            env[r] = element(buf, idx)
        return load
    s = c.use(store)

    def write(env: Env) -> None:
        buf, idx = locate(env)
        if any(isinstance(i, z3.ExprRef) for i in idx):
            raise InputError(f"'{name}' at an index read from data (a scatter) is not supported", where)
        buf.data[idx] = env[s]
    return write


@handles("affine.load")
def _affine_load(c: Compiler, op) -> Step:
    return _access(c, op, op.memref, c.indices(op.map.value, op.indices, op), None)


@handles("affine.store")
def _affine_store(c: Compiler, op) -> Step:
    return _access(c, op, op.memref, c.indices(op.map.value, op.indices, op), op.value)


def _identity_indices(c: Compiler, values, op) -> Callable[[Env], list[int]]:
    n = len(values)
    amap = ir.AffineMap.get_identity(n) if n else ir.AffineMap.get_empty()
    return c.indices(amap, values, op)


@handles("memref.load")
def _memref_load(c: Compiler, op) -> Step:
    operands = list(op.operands)
    return _access(c, op, operands[0], _identity_indices(c, operands[1:], op), None)


@handles("memref.store")
def _memref_store(c: Compiler, op) -> Step:
    operands = list(op.operands)
    return _access(c, op, operands[1], _identity_indices(c, operands[2:], op), operands[0])


@handles("memref.alloca", "memref.alloc")
def _alloc(c: Compiler, op) -> Step:
    t = ir.MemRefType(op.results[0].type)
    if len(op.operands) or not t.has_static_shape:
        raise InputError(f"'{op.operation.name}' with dynamic sizes is not supported", c.where(op))
    shape, dtype = tuple(t.shape), str(t.element_type)
    z3sem.sort_for(dtype)  # element types without a z3 sort fail here, at compile time
    r = c.define(op.results[0])
    loc = op.location
    name = f"{op.operation.name.split('.')[1]}_line{loc.start_line if loc.is_a_file() else '?'}"

    def step(env: Env) -> None:
        env[r] = _Buffer(np.full(shape, None, dtype=object), dtype, name)
    return step


@handles("memref.dealloc")
def _dealloc(c: Compiler, op) -> None:
    return None


# running ------------------------------------------------------------------------------


class SymbolicFunction:
    """A function compiled for symbolic execution (reusable across calls)."""

    def __init__(self, source: SourceModule, func_name: str):
        with source.context:
            module = source.parsed()
            func = find_function(module, func_name)
            if func is None:
                raise InputError(f"no function @{func_name} in the module", source.path)
            where = diagnostic_location(source.path, func.location)
            if len(func.regions[0].blocks) == 0:
                raise InputError(f"@{func_name} is a declaration without a body", where)
            c = Compiler(source.path)
            block = func.regions[0].blocks[0]
            self.name, self.location = func_name, where
            self.arg_types = []
            for a in block.arguments:
                c.define(a)
                if isinstance(a.type, ir.MemRefType):
                    t = ir.MemRefType(a.type)
                    self.arg_types.append((str(t.element_type), tuple(t.shape)))
                else:
                    self.arg_types.append((str(a.type), None))
            self.steps, returned = c.block(block)
            if returned:
                raise InputError(f"@{func_name} returns values; symbolic execution handles "
                                 f"functions that write their results into memrefs", where)
            self.n_slots = len(c.slots)

    def run(self, args: list) -> list:
        if len(args) != len(self.arg_types):
            raise InputError(f"@{self.name} takes {len(self.arg_types)} arguments, got {len(args)}",
                             self.location)
        env: Env = [None] * self.n_slots
        for i, (arg, (dtype, shape)) in enumerate(zip(args, self.arg_types)):
            if shape is None:
                if arg is None:
                    raise InputError(f"argument #{i} of @{self.name} ({dtype}) has no value: "
                                     f"pass a Python int for a size parameter", self.location)
                env[i] = arg
                continue
            data = np.asarray(arg, dtype=object)
            if data.shape != shape:
                raise InputError(f"argument #{i} of @{self.name} has shape {list(data.shape)}, "
                                 f"the function expects {list(shape)}", self.location)
            env[i] = _Buffer(data.copy(), dtype, f"arg{i}")
        _run(self.steps, env)
        out = []
        for i, (arg, (dtype, shape)) in enumerate(zip(args, self.arg_types)):
            if shape is None:
                out.append(arg)
                continue
            data = env[i].data
            for idx in np.ndindex(*shape):
                if not isinstance(data[idx], z3.ExprRef):
                    data[idx] = support.numeral_like(data[idx], dtype)
            out.append(data)
        return out


_CACHE: OrderedDict[tuple[str, str, str], SymbolicFunction] = OrderedDict()
_CACHE_SIZE = 32


def compile_function(source: SourceModule, func_name: str) -> SymbolicFunction:
    """The compiled function, cached by (path, text, name)."""
    key = (source.path, source.text, func_name)
    fn = _CACHE.get(key)
    if fn is None:
        fn = SymbolicFunction(source, func_name)
        _CACHE[key] = fn
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return fn


def execute(source: SourceModule, func_name: str, args: list) -> list:
    """Symbolically run @func_name on `args` (as from `symbolic_inputs`; size parameters
    are Python ints and every loop is unrolled at those concrete bounds).

    Returns the final contents of each argument: object arrays of z3 terms for memrefs
    (the inputs are not modified), the unchanged value for scalars."""
    return compile_function(source, func_name).run(args)


HANDLERS = table(
    _affine_for, _affine_if, _affine_apply, _affine_load, _affine_store, _memref_load,
    _memref_store, _alloc, _dealloc,
    base=SCALAR_HANDLERS,
)
