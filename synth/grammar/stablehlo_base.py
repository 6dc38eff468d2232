"""Shared pieces of the stablehlo grammar (synth.grammar.stablehlo): the op base class,
constants and the small emitters the ops share."""

from __future__ import annotations



from synth.grammar.dims import has_dynamic, is_dynamic
from synth.grammar.op import Emitter, Op, format_scalar
from synth.grammar.types import TensorType
from synth.analysis.sizes import MIN_SIZE, NEAR as _NEAR

DIRECTIONS = ("GT", "GE", "LT", "LE", "EQ", "NE")
SMALL_OFFSET = MIN_SIZE - _NEAR - 1  # a constant below it is never read as a size by raised_text


def type_list(ts) -> str:
    """The MLIR types of `ts`, comma-separated."""
    return ", ".join(t.mlir() for t in ts)


def tensor_constant(em: Emitter, value, dtype: str) -> str:
    """`stablehlo.constant` of a rank-0 tensor."""
    name = em.fresh("cst")
    em.line(f"{name} = stablehlo.constant dense<{format_scalar(value, dtype)}> : tensor<{dtype}>")
    return name


def splat(em: Emitter, value, t: TensorType) -> str:
    """`stablehlo.constant` of a tensor with every element `value` (of a dynamic shape:
    a scalar constant broadcast to it)."""
    if has_dynamic(t):
        return broadcast_to(em, tensor_constant(em, value, t.dtype), TensorType((), t.dtype), (), t)
    name = em.fresh("cst")
    em.line(f"{name} = stablehlo.constant dense<{format_scalar(value, t.dtype)}> : {t.mlir()}")
    return name


def broadcast_to(em: Emitter, x: str, x_type: TensorType, dims, t: TensorType) -> str:
    """`x` broadcast to `t` along `dims`: broadcast_in_dim, or dynamic_broadcast_in_dim
    with t's shape as a value where t has a dynamic dim (a shape-generic body)."""
    r = em.fresh()
    if has_dynamic(t):
        em.line(f"{r} = stablehlo.dynamic_broadcast_in_dim {x}, {em.shape_value(t.shape)}, dims = {list(dims)} "
                f": ({x_type.mlir()}, tensor<{t.rank}xi64>) -> {t.mlir()}")
    else:
        em.line(f"{r} = stablehlo.broadcast_in_dim {x}, dims = {list(dims)} : ({x_type.mlir()}) -> {t.mlir()}")
    return r


def iota_op(em: Emitter, dim: int, t: TensorType) -> str:
    """iota along `dim` of type `t` (dynamic_iota where t has a dynamic dim)."""
    r = em.fresh()
    if has_dynamic(t):
        em.line(f"{r} = stablehlo.dynamic_iota {em.shape_value(t.shape)}, dim = {dim} : "
                f"(tensor<{t.rank}xi64>) -> {t.mlir()}")
    else:
        em.line(f"{r} = stablehlo.iota dim = {dim} : {t.mlir()}")
    return r


def dynamic_slice(em: Emitter, x: str, x_type: TensorType, starts, limits, result: TensorType) -> str:
    """real_dynamic_slice of `x` from `starts` to `limits` (ints or Sizes), unit strides:
    a slice whose bounds or operand depend on a size known at run time."""
    strides = em.shape_value((1,) * x_type.rank)
    r = em.fresh()
    em.line(f"{r} = stablehlo.real_dynamic_slice {x}, {em.shape_value(tuple(starts))}, "
            f"{em.shape_value(tuple(limits))}, {strides} : ({x_type.mlir()}, "
            f"{', '.join([f'tensor<{x_type.rank}xi64>'] * 3)}) -> {result.mlir()}")
    return r


def reshaped(em: Emitter, x: str, x_type: TensorType, t: TensorType) -> str:
    """reshape of `x` to `t` (dynamic_reshape where t has a dynamic dim)."""
    r = em.fresh()
    if has_dynamic(t) or has_dynamic(x_type):
        em.line(f"{r} = stablehlo.dynamic_reshape {x}, {em.shape_value(t.shape)} : "
                f"({x_type.mlir()}, tensor<{t.rank}xi64>) -> {t.mlir()}")
    else:
        em.line(f"{r} = stablehlo.reshape {x} : ({x_type.mlir()}) -> {t.mlir()}")
    return r


class StablehloOp(Op):
    dialect = "stablehlo"


def plus(n, k: int):
    """A dimension or index plus `k`: a Size keeps its expression (a generic body's value)."""
    return n.offset(k) if is_dynamic(n) else int(n) + k


# --- elementwise ---------------------------------------------------------------------------


