"""The real MLIR verifier as an oracle for single op instances.

`verify(op, arg_types, attrs)` emits a tiny function applying just this op to its
arguments (`op.emit_op_function`), parses it and runs the dialect's verifier:
stablehlo in a jaxlib.mlir context with jax's dialects and stablehlo registered, linalg
in an upstream (`mlir`, xtc wheels) context. It returns None when MLIR accepts the op,
else the diagnostics. The verdict depends only on (op.name, arg_types, attrs[, result
type]), so it is cached; hits and misses are counted (`stats()`).

One long-lived context per dialect is created on first use and never entered, so no
context stays entered at interpreter exit. Parsed modules are dropped right away.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from synth.grammar.op import Attrs, Op, emit_op_function
from synth.grammar.types import ShapeError, TensorType


def stablehlo_context():
    """A new jaxlib MLIR context with jax's dialects (stablehlo, chlo, func, ...) loaded:
    synth's one factory of such contexts (the verifier's, codegen's, the proofs' shared
    one and the stablehlo-to-linalg backend's). Returns (the ir module, the context)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, stablehlo

    ctx = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)  # chlo.erf
    return ir, ctx


def _linalg_context():
    from mlir import ir

    ctx = ir.Context()
    ctx.load_all_available_dialects()
    return ir, ctx


_CONTEXT_FACTORIES = {"stablehlo": stablehlo_context, "linalg": _linalg_context}


def _diagnostics(e) -> str:
    parts = []
    for d in getattr(e, "error_diagnostics", ()) or ():
        parts.append(f"{d.location}: {d.message}")
        parts.extend(f"  note: {n.message}" for n in d.notes)
    return "\n".join(parts) or str(e)


@dataclass
class Verifier:
    """Parses + verifies op instances with the real dialects; caches verdicts."""

    hits: int = 0
    misses: int = 0
    _cache: dict = field(default_factory=dict, repr=False)
    _contexts: dict = field(default_factory=dict, repr=False)

    def context(self, dialect: str):
        """(ir module, Context) for a dialect, created on first use."""
        if dialect not in self._contexts:
            self._contexts[dialect] = _CONTEXT_FACTORIES[dialect]()
        return self._contexts[dialect]

    def verify_text(self, dialect: str, text: str) -> str | None:
        """Parse and verify MLIR text in the dialect's context: None or the diagnostics."""
        ir, ctx = self.context(dialect)
        try:
            module = ir.Module.parse(text, context=ctx)
            module.operation.verify()
        except ir.MLIRError as e:
            return _diagnostics(e)
        del module
        return None

    def verify(self, op: Op, arg_types: tuple[TensorType, ...], attrs: Attrs,
               result_type: TensorType | None = None) -> str | None:
        """None if MLIR accepts `op` on `arg_types` with `attrs`, else why not. The result
        type is the op's shape rule unless given (to test that a wrong one is caught); a
        shape-rule failure is returned as the message without asking MLIR."""
        arg_types = tuple(arg_types)
        key = (op.dialect, op.name, arg_types, attrs, result_type)
        if key in self._cache:
            self.hits += 1
            return self._cache[key]
        self.misses += 1
        try:
            text = emit_op_function(op, arg_types, attrs, result_type=result_type)
            verdict = self.verify_text(op.dialect, text)
        except ShapeError as e:
            verdict = f"shape rule: {e}"
        self._cache[key] = verdict
        return verdict

    def infer_result_type(self, op: Op, arg_types: tuple[TensorType, ...], attrs: Attrs) -> str | None:
        """The result type MLIR itself infers for this instance (the op rebuilt from the
        parsed operands and attributes with type inference), or None when the op's
        builder does not infer result types (then the verifier checks the stated one)."""
        if not op.spec.entry["ods"]["infers_result_type"]:
            return None
        ir, ctx = self.context(op.dialect)
        text = emit_op_function(op, arg_types, attrs)
        module = ir.Module.parse(text, context=ctx)
        func = module.body.operations[0]
        target = next((o for o in func.regions[0].blocks[0].operations if o.operation.name == op.mlir_name), None)
        if target is None:  # this instance is emitted by other ops (insert_view at strides: pad, select)
            return None
        o = target.operation
        with ctx, ir.Location.unknown():
            rebuilt = ir.Operation.create(o.name, operands=list(o.operands),
                                          attributes={k: o.attributes[k] for k in o.attributes},
                                          infer_type=True, ip=ir.InsertionPoint(o))
            inferred = str(rebuilt.results[0].type)
            rebuilt.erase()
            stated = str(o.results[0].type)
            returned = str(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).results[0])
        del module
        # an op emitted with reshapes around it (triangular_solve of a vector): when MLIR
        # agrees with the type the text states for the op, the function's result is the
        # grammar op's result (the reshapes are verified with the function)
        return returned if inferred == stated else inferred

    def stats(self) -> dict:
        return dict(hits=self.hits, misses=self.misses, cached=len(self._cache))

    def clear(self) -> None:
        self._cache.clear()
        self.hits = self.misses = 0


DEFAULT = Verifier()


def verify(op: Op, arg_types: tuple[TensorType, ...], attrs: Attrs,
           result_type: TensorType | None = None) -> str | None:
    """`Verifier.verify` on the process-wide verifier (`DEFAULT`)."""
    return DEFAULT.verify(op, arg_types, attrs, result_type)


def stats() -> dict:
    return DEFAULT.stats()
