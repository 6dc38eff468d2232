#!/usr/bin/env python3
"""Write grammars/stablehlo.json and grammars/linalg.json.

Each grammar op gets
  curated   (the tables below): name, MLIR op name, arity (tensor operands the search
            supplies), weight (program-size cost), commutative, attribute-domain kind,
            and `emitted`: the ODS operand groups the emitter fills itself (inits, outs);
  derived   from the dialect definitions shipped with the toolchain:
            - `ods`: from the ODS-generated Python classes
              (jaxlib.mlir.dialects._stablehlo_ops_gen, mlir.dialects._linalg_ops_gen):
              class name, operand groups (name, variadic), attributes (name, required),
              results (name, variadic), whether the builder infers result types, regions;
            - `operand_use`: how the grammar operands fill the ODS operand groups;
            - `opdsl` (linalg, where the op is in it): operands with kinds and shape maps,
              indexing maps, iterator types and the scalar functions of the body, from
              `python -m mlir.dialects.linalg.opdsl.dump_oplib .ops.core_named_ops`.

Usage: python scripts/derive_grammars.py [--check]
  --check: exit 1 if the files on disk differ from what would be written.
The conformance test imports this module and checks the same thing.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GRAMMAR_DIR = REPO / "grammars"

GENERATED_MODULES = {
    "stablehlo": "jaxlib.mlir.dialects._stablehlo_ops_gen",
    "linalg": "mlir.dialects._linalg_ops_gen",
}
# other dialects whose ops a grammar emits as its top op (linalg's range ops are
# tensor.extract_slice / tensor.insert_slice); such an op's entry names its module
EXTRA_MODULES = {
    "stablehlo": ("jaxlib.mlir.dialects._chlo_ops_gen",),
    "linalg": ("mlir.dialects._tensor_ops_gen", "mlir.dialects._scf_ops_gen"),
}


def _op(name, mlir_name, arity, *, weight=1, commutative=False, attr_domain="none", emitted=(),
        doc=""):
    return dict(name=name, mlir_name=mlir_name, arity=arity, weight=weight,
                commutative=commutative, attr_domain=attr_domain, emitted=list(emitted), doc=doc)


# --- curated ---------------------------------------------------------------------------------

CURATED = {
    "stablehlo": [
        _op("stablehlo.add", "stablehlo.add", 2, commutative=True),
        _op("stablehlo.subtract", "stablehlo.subtract", 2),
        _op("stablehlo.multiply", "stablehlo.multiply", 2, commutative=True),
        _op("stablehlo.divide", "stablehlo.divide", 2,
            doc="integers round toward zero; x/0 is -1 for integers"),
        _op("stablehlo.maximum", "stablehlo.maximum", 2, commutative=True),
        _op("stablehlo.minimum", "stablehlo.minimum", 2, commutative=True),
        _op("stablehlo.negate", "stablehlo.negate", 1),
        _op("stablehlo.abs", "stablehlo.abs", 1),
        _op("stablehlo.sqrt", "stablehlo.sqrt", 1),
        _op("stablehlo.exponential", "stablehlo.exponential", 1),
        _op("stablehlo.log", "stablehlo.log", 1),
        _op("stablehlo.power", "stablehlo.power", 2),
        # the math library's unary functions (synth.grammar.unary_math)
        _op("stablehlo.sine", "stablehlo.sine", 1),
        _op("stablehlo.cosine", "stablehlo.cosine", 1),
        _op("stablehlo.tan", "stablehlo.tan", 1),
        _op("stablehlo.tanh", "stablehlo.tanh", 1),
        _op("stablehlo.erf", "chlo.erf", 1, doc="stablehlo has no erf: chlo's (XLA compiles it)"),
        _op("stablehlo.floor", "stablehlo.floor", 1),
        _op("stablehlo.ceil", "stablehlo.ceil", 1),
        _op("stablehlo.remainder", "stablehlo.remainder", 2),
        _op("stablehlo.and", "stablehlo.and", 2, commutative=True),
        _op("stablehlo.or", "stablehlo.or", 2, commutative=True),
        _op("stablehlo.xor", "stablehlo.xor", 2, commutative=True),
        _op("stablehlo.shift_left", "stablehlo.shift_left", 2),
        _op("stablehlo.shift_right_arithmetic", "stablehlo.shift_right_arithmetic", 2),
        _op("stablehlo.shift_right_logical", "stablehlo.shift_right_logical", 2),
        _op("stablehlo.convert", "stablehlo.convert", 1, attr_domain="convert",
            doc="arith's extsi / extui / trunci / extf / truncf / sitofp / uitofp / fptosi / fptoui; "
                "extui is convert then and with the low-bit mask, uitofp goes through i64, "
                "fptosi / fptoui to char / short through i32"),
        _op("stablehlo.dot_general", "stablehlo.dot_general", 2, attr_domain="dot_dims",
            doc="at most one batching and one contracting dim pair, equal sizes"),
        _op("stablehlo.broadcast_in_dim", "stablehlo.broadcast_in_dim", 1,
            attr_domain="broadcast_in_dim",
            doc="target: a higher-rank shape of interest; every valid broadcast_dimensions"),
        _op("stablehlo.transpose", "stablehlo.transpose", 1, attr_domain="permutation",
            doc="non-identity permutations"),
        _op("stablehlo.reshape", "stablehlo.reshape", 1, attr_domain="reshape",
            doc="target: another shape of interest with the same element count"),
        _op("stablehlo.slice_edge", "stablehlo.slice", 1, attr_domain="slice_edge",
            doc="first or last index along a set of dims (position symbolic, index from the "
                "shape), all of the others; rank kept, size 1 along the dims"),
        _op("stablehlo.select_edge", "stablehlo.select", 2, attr_domain="slice_edge", emitted=["pred"],
            doc="select(iota == edge index, x, y) over the dims: the mask of a first / last row, "
                "column or element (position symbolic) fused with its use"),
        _op("stablehlo.reduce_add", "stablehlo.reduce", 1, attr_domain="reduce_dim",
            emitted=["init_values"], doc="one dimension, body stablehlo.add, init 0"),
        _op("stablehlo.reduce_max", "stablehlo.reduce", 1, attr_domain="reduce_dim",
            emitted=["init_values"], doc="one dimension, body stablehlo.maximum, init -inf"),
        _op("stablehlo.reduce_min", "stablehlo.reduce", 1, attr_domain="reduce_dim",
            emitted=["init_values"], doc="one dimension, body stablehlo.minimum, init +inf"),
        _op("stablehlo.compare", "stablehlo.compare", 2, attr_domain="comparison_direction",
            doc="GT GE LT LE EQ NE; result i1"),
        _op("stablehlo.select", "stablehlo.select", 3, doc="i1 pred of the branches' shape"),
        _op("stablehlo.iota", "stablehlo.iota", 0, attr_domain="iota",
            doc="a shape of interest, each dimension"),
        _op("stablehlo.constant", "stablehlo.constant", 0, attr_domain="constant",
            doc="rank 0, values from the search context"),
        _op("stablehlo.triangular_solve", "stablehlo.triangular_solve", 2, attr_domain="triangular",
            doc="left side; lower / upper, transposed or not, unit diagonal or not; a vector "
                "right-hand side is reshaped to a column and back"),
        _op("stablehlo.cholesky", "stablehlo.cholesky", 1,
            doc="lower = true; the implementation-defined upper triangle is zeroed by a select"),
        _op("stablehlo.lu", "stablehlo.while", 1,
            doc="no stablehlo op: LU without pivoting as a while over k (state k, a): the "
                "multipliers of column k (dynamic_slice, divide) and the update of the block "
                "below and right of (k, k), kept by iota masks (select); packed L\\U"),
        _op("stablehlo.take", "stablehlo.dynamic_slice", 2, attr_domain="counter_index",
            doc="(a, t): a at index t + offset along dim (a rank-0 i64 counter), that dim "
                "dropped (reshaped away); clamped into the dim; not searched (loop sketches)"),
        _op("stablehlo.flip", "stablehlo.gather", 2, attr_domain="counter_index",
            doc="(a, t): a reversed along dim about t + offset (element p is a[t + offset - p], "
                "0 outside a): a gather at t + offset - iota (clamped), selected against 0 where "
                "that index is outside the dim; not searched (loop sketches)"),
        _op("stablehlo.put", "stablehlo.dynamic_update_slice", 3, attr_domain="counter_index",
            doc="(a, v, t): a with its slice at t + offset along dim replaced by v (reshaped "
                "to a unit dim there); not searched (loop sketches)"),
        _op("stablehlo.counter_select", "stablehlo.select", 3, attr_domain="counter_compare",
            doc="(x, y, t): select(iota along dim <direction> t + offset, x, y); not searched "
                "(loop sketches)"),
        _op("stablehlo.slice_range", "stablehlo.slice", 1, attr_domain="range",
            doc="drops lo[k] elements at the start and hi[k] at the end of each dim k (offsets "
                "0..2, not all 0; the result a shape of interest); not searched by default"),
        _op("stablehlo.insert_range", "stablehlo.dynamic_update_slice", 2, attr_domain="range",
            emitted=["start_indices"],
            doc="(dest, update): dest with its range (lo, hi) replaced by update: a "
                "dynamic_update_slice at constant starts lo (below 5); at larger starts (a size "
                "minus an offset) select(mask, pad(update), dest), the mask a splat true padded "
                "with false; not searched by default"),
        _op("stablehlo.view", "stablehlo.slice", 1, attr_domain="view",
            doc="the box lo + [0, shape) * stride of each dim (sizes as expressions); never "
                "searched: the part of an array a kernel reaches (synth.synthesis.views)"),
        _op("stablehlo.insert_view", "stablehlo.dynamic_update_slice", 2, attr_domain="view",
            emitted=["start_indices"],
            doc="(dest, update): dest with its box replaced by update: a dynamic_update_slice "
                "at unit strides, else select(mask, pad(update, interior = stride - 1), dest); "
                "never searched"),
        *[_op(f"stablehlo.arg{k}", "stablehlo.reduce", 1, attr_domain="arg_reduce", emitted=["init_values"],
              doc=f"the index (i32 / i64) of the {'largest' if k == 'max' else 'smallest'} element along dim, "
                  "the first of equal ones: a reduce of the values and an iota together keeping the "
                  "better value, the smaller index on a tie; not searched (sketches of a local keeping "
                  "the index of the best term)") for k in ("max", "min")],
        _op("stablehlo.window", "stablehlo.gather", 1, attr_domain="window", emitted=["start_indices"],
            doc="a dim replaced by two (m, w): element (p, q) is a[p + q + offset] (reverse: "
                "a[p - q + offset]), 0 outside a: a gather at an index tensor built from "
                "iotas, clamped and selected against 0 where an index can leave a; not searched "
                "(sketches of reads at a sum of loop indices)"),
        _op("stablehlo.gather", "stablehlo.gather", 2,
            doc="(table, idx): rows of table at idx, clamped (C's table lookups: synth.grammar.gather)"),
        _op("stablehlo.reverse", "stablehlo.reverse", 1, attr_domain="reverse",
            doc="a read backwards along dim (out[p] = a[N - 1 - p]); not searched (sketches of "
                "a subscript with a loop index at coefficient -1)"),
        _op("stablehlo.select_affine", "stablehlo.select", 2, attr_domain="affine_mask", emitted=["pred"],
            doc="(x, y): x where every constraint sum(coeffs * index) >= bound holds, else y: "
                "iotas scaled and added, compared, and-ed; not searched (sketches of an "
                "affine.if's conditions)"),
    ],
    "linalg": [
        _op("linalg.add", "linalg.add", 2, commutative=True, emitted=["outputs"]),
        _op("linalg.sub", "linalg.sub", 2, emitted=["outputs"]),
        _op("linalg.mul", "linalg.mul", 2, commutative=True, emitted=["outputs"]),
        _op("linalg.div", "linalg.div", 2, emitted=["outputs"]),
        _op("linalg.max", "linalg.max", 2, commutative=True, emitted=["outputs"]),
        _op("linalg.min", "linalg.min", 2, commutative=True, emitted=["outputs"]),
        _op("linalg.negf", "linalg.negf", 1, emitted=["outputs"]),
        _op("linalg.abs", "linalg.abs", 1, emitted=["outputs"]),
        _op("linalg.sqrt", "linalg.sqrt", 1, emitted=["outputs"]),
        _op("linalg.exp", "linalg.exp", 1, emitted=["outputs"]),
        _op("linalg.log", "linalg.log", 1, emitted=["outputs"]),
        _op("linalg.powf", "linalg.powf", 2, emitted=["outputs"]),
        _op("linalg.remsi", "linalg.generic", 2, emitted=["outputs"], doc="generic: arith.remsi"),
        # the math library's unary functions (synth.grammar.unary_math)
        *(_op(f"linalg.{f}", "linalg.generic", 1, emitted=["outputs"], doc=f"generic: math.{f}")
          for f in ("sin", "cos", "tan", "tanh", "erf", "floor", "ceil")),
        _op("linalg.andi", "linalg.generic", 2, commutative=True, emitted=["outputs"],
            doc="generic: arith.andi"),
        _op("linalg.ori", "linalg.generic", 2, commutative=True, emitted=["outputs"],
            doc="generic: arith.ori"),
        _op("linalg.xori", "linalg.generic", 2, commutative=True, emitted=["outputs"],
            doc="generic: arith.xori"),
        _op("linalg.shli", "linalg.generic", 2, emitted=["outputs"], doc="generic: arith.shli"),
        _op("linalg.shrsi", "linalg.generic", 2, emitted=["outputs"], doc="generic: arith.shrsi"),
        _op("linalg.shrui", "linalg.generic", 2, emitted=["outputs"], doc="generic: arith.shrui"),
        _op("linalg.convert", "linalg.generic", 1, attr_domain="convert", emitted=["outputs"],
            doc="generic: one arith.extsi / extui / trunci / extf / truncf / sitofp / uitofp / fptosi / "
                "fptoui (C's promotions and casts)"),
        _op("linalg.matmul", "linalg.matmul", 2, emitted=["outputs"]),
        _op("linalg.matvec", "linalg.matvec", 2, emitted=["outputs"]),
        _op("linalg.vecmat", "linalg.vecmat", 2, emitted=["outputs"]),
        _op("linalg.batch_matmul", "linalg.batch_matmul", 2, emitted=["outputs"]),
        _op("linalg.dot", "linalg.dot", 2, emitted=["outputs"]),
        _op("linalg.dot_general", "linalg.generic", 2, weight=2, attr_domain="dot_dims",
            emitted=["outputs"],
            doc="generic contraction with stablehlo.dot_general's dims (at most one batch and "
                "one contracting pair), mulf + addf over a zero fill; forms of the named "
                "contractions, linalg.outer and rank-0 operands are left to those ops; weight 2, "
                "as a transpose + named contraction, so the search prefers the named ops"),
        _op("linalg.transpose", "linalg.transpose", 1, attr_domain="permutation",
            emitted=["init"], doc="non-identity permutations"),
        _op("linalg.broadcast", "linalg.broadcast", 1, attr_domain="broadcast", emitted=["init"],
            doc="target: a higher-rank shape of interest; operand dims keep their order"),
        _op("linalg.slice_edge", "linalg.generic", 1, attr_domain="slice_edge", emitted=["outputs"],
            doc="generic: first or last index along a set of dims (constant results in the "
                "input map, computed from the shape), all of the others; drops the dims"),
        _op("linalg.select_edge", "linalg.generic", 2, attr_domain="slice_edge", emitted=["outputs"],
            doc="generic: out = (linalg.index == edge index along the dims) ? x : y"),
        _op("linalg.reduce_add", "linalg.reduce", 1, attr_domain="reduce_dim", emitted=["inits"],
            doc="one dimension, arith.addf, init 0"),
        _op("linalg.reduce_max", "linalg.reduce", 1, attr_domain="reduce_dim", emitted=["inits"],
            doc="one dimension, arith.maximumf, init -inf"),
        _op("linalg.reduce_min", "linalg.reduce", 1, attr_domain="reduce_dim", emitted=["inits"],
            doc="one dimension, arith.minimumf, init +inf"),
        _op("linalg.fill", "linalg.fill", 0, attr_domain="fill", emitted=["inputs", "outputs"],
            doc="a context constant into a shape of interest or rank 0"),
        _op("linalg.select_cmp", "linalg.generic", 4, weight=2, attr_domain="comparison_direction",
            emitted=["outputs"],
            doc="generic: out = (a <dir> b) ? x : y (no i1 tensors: they cannot be lowered)"),
        _op("linalg.select_index", "linalg.generic", 2, attr_domain="index_comparison",
            emitted=["outputs"],
            doc="generic: out = (index a <dir> index b) ? x : y (a non-rectangular domain's mask)"),
        _op("linalg.scalar_mul", "linalg.generic", 2, emitted=["outputs"],
            doc="generic: rank-0 s times tensor x"),
        _op("linalg.scalar_add", "linalg.generic", 2, emitted=["outputs"],
            doc="generic: rank-0 s plus tensor x"),
        _op("linalg.outer", "linalg.generic", 2, emitted=["outputs"],
            doc="generic: out[i, j] = u[i] * v[j]"),
        _op("linalg.iota", "linalg.generic", 0, attr_domain="iota", emitted=["outputs"],
            doc="generic: out = the index along one dim (linalg.index, converted to the element "
                "type), over a shape of interest"),
        _op("linalg.triangular_solve", "scf.for", 2, attr_domain="triangular",
            emitted=["lowerBound", "upperBound", "step"],
            doc="stablehlo.triangular_solve's loop form (vector right-hand side): scf.for over the "
                "rows, iter_args (a, x = b); per row a linalg.dot of dynamic-size slices, then "
                "x[i] = (b[i] - dot) / a[i, i]"),
        _op("linalg.cholesky", "scf.for", 1, emitted=["lowerBound", "upperBound", "step"],
            doc="stablehlo.cholesky's loop form: scf.for over the columns, iter_args (L = a), "
                "left-looking: a linalg.matvec of dynamic-size slices per column (at sizes with "
                "a panel width: panels of columns, each first updated by one linalg.matmul); "
                "zeros above the diagonal"),
        _op("linalg.lu", "scf.for", 1, emitted=["lowerBound", "upperBound", "step"],
            doc="LU without pivoting (no linalg op): scf.for over k, iter_args (a), right-looking: "
                "a linalg.generic divides column k below the pivot, another updates the block "
                "below and right of (k, k) in place, on dynamic-size slices; packed L\\U"),
        _op("linalg.take", "tensor.extract_slice", 2, attr_domain="counter_index",
            emitted=["sizes", "strides"],
            doc="(a, t): extract_slice of extent 1 at t + offset along dim (a rank-0 i64 counter, "
                "extracted and clamped into the dim), rank-reduced; not searched (loop sketches)"),
        _op("linalg.flip", "linalg.generic", 2, attr_domain="counter_index", emitted=["outputs"],
            doc="(a, t): a reversed along dim about t + offset (element p is a[t + offset - p], "
                "0 outside a): a generic over the result whose body reads a (tensor.extract) at "
                "t + offset - p clamped into the dim, selected against 0 outside it (a and t are "
                "read in the body, not passed as ins); not searched (loop sketches)"),
        _op("linalg.put", "tensor.insert_slice", 3, attr_domain="counter_index",
            emitted=["sizes", "strides"],
            doc="(a, v, t): insert_slice of v at t + offset along dim; not searched (loop sketches)"),
        _op("linalg.counter_select", "linalg.generic", 3, attr_domain="counter_compare",
            emitted=["outputs"],
            doc="generic: out = (linalg.index dim <direction> t + offset) ? x : y; not searched "
                "(loop sketches)"),
        _op("linalg.extract_range", "tensor.extract_slice", 1, attr_domain="range",
            emitted=["offsets", "sizes", "strides"],
            doc="static slice dropping lo[k] elements at the start and hi[k] at the end of each "
                "dim k (offsets 0..2, not all 0; unit strides, rank kept); not searched by default"),
        _op("linalg.insert_range", "tensor.insert_slice", 2, attr_domain="range",
            emitted=["offsets", "sizes", "strides"],
            doc="(dest, update): static insert_slice of update into dest's range (lo, hi); not "
                "searched by default"),
        _op("linalg.view", "tensor.extract_slice", 1, attr_domain="view",
            emitted=["offsets", "sizes", "strides"],
            doc="the box lo + [0, shape) * stride of each dim (static, strided); never searched: "
                "the part of an array a kernel reaches (synth.synthesis.views)"),
        _op("linalg.insert_view", "tensor.insert_slice", 2, attr_domain="view",
            emitted=["offsets", "sizes", "strides"],
            doc="(dest, update): strided insert_slice of update into dest's box; never searched"),
        *[_op(f"linalg.arg{k}", "linalg.generic", 1, attr_domain="arg_reduce", emitted=["outputs"],
              doc=f"the index (i32 / i64) of the {'largest' if k == 'max' else 'smallest'} element along dim, "
                  "the first of equal ones: a generic with the value and the index as outputs, a "
                  "reduction keeping the element where it is strictly better; not searched (sketches "
                  "of a local keeping the index of the best term)") for k in ("max", "min")],
        _op("linalg.window", "linalg.generic", 1, attr_domain="window", emitted=["outputs"],
            doc="a dim replaced by two (m, w): element (p, q) is a[p + q + offset] (reverse: "
                "a[p - q + offset]), 0 outside a: a generic whose input map is "
                "(p, q) -> (p + q + offset) where every index lies in a, else one reading a "
                "(tensor.extract) at the clamped index, selected against 0; not searched "
                "(sketches of reads at a sum of loop indices)"),
        _op("linalg.gather", "linalg.generic", 2, emitted=["outputs"],
            doc="(table, idx): rows of table at idx, clamped; tensor.extract in the body (synth.grammar.gather)"),
        _op("linalg.reverse", "linalg.generic", 1, attr_domain="reverse", emitted=["outputs"],
            doc="a read backwards along dim (out[p] = a[N - 1 - p]): a generic whose input map is "
                "p -> N - 1 - p at static sizes, else one reading a (tensor.extract) there; not "
                "searched (sketches of a subscript with a loop index at coefficient -1)"),
        _op("linalg.select_affine", "linalg.generic", 2, attr_domain="affine_mask", emitted=["outputs"],
            doc="(x, y): x where every constraint sum(coeffs * index) >= bound holds, else y: a "
                "generic computing them from linalg.index; not searched (sketches of an "
                "affine.if's conditions)"),
    ],
}


# --- ODS-generated classes -------------------------------------------------------------------


@lru_cache(maxsize=None)
def generated_classes(dialect: str) -> dict[str, type]:
    """OPERATION_NAME -> ODS-generated OpView class (the dialect's module, then
    EXTRA_MODULES)."""
    out = {}
    for module_name in (GENERATED_MODULES[dialect], *EXTRA_MODULES[dialect]):
        module = importlib.import_module(module_name)
        opview = module._ods_ir.OpView
        for value in vars(module).values():
            name = getattr(value, "OPERATION_NAME", None)
            if isinstance(value, type) and issubclass(value, opview) and isinstance(name, str):
                out.setdefault(name, value)
    return out


def _call_name(node) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None


@lru_cache(maxsize=None)
def _class_asts(module_name: str) -> dict[str, ast.ClassDef]:
    """The top-level class definitions of a module's source, parsed once."""
    source = inspect.getsource(sys.modules[module_name])
    return {n.name: n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)}


def ods_signature(cls: type) -> dict:
    """Operand groups, attributes, results and builder facts of one generated class,
    read from the AST of its source."""
    klass = _class_asts(cls.__module__)[cls.__name__]
    init = next(n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")

    operands, attributes, results = [], [], []
    explicit_results = False

    def visit(stmts, optional: bool):
        nonlocal explicit_results
        for st in stmts:
            if isinstance(st, ast.If):
                visit(st.body, True)
                visit(st.orelse, True)
                continue
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) \
                    and isinstance(st.value.func, ast.Attribute) \
                    and isinstance(st.value.func.value, ast.Name):
                target, method = st.value.func.value.id, st.value.func.attr
                (arg,) = st.value.args
                wrapped = _call_name(arg) == "_get_op_results_or_values"
                inner = arg.args[0] if wrapped else arg
                name = inner.id if isinstance(inner, ast.Name) else ast.unparse(inner)
                if target == "operands":
                    operands.append(dict(name=name, variadic=wrapped or method == "extend"))
                elif target == "results":
                    explicit_results = True
                    results.append(dict(name=name, variadic=method == "extend"))
            elif isinstance(st, ast.Assign) and len(st.targets) == 1 \
                    and isinstance(st.targets[0], ast.Subscript) \
                    and isinstance(st.targets[0].value, ast.Name) \
                    and st.targets[0].value.id == "attributes":
                key = st.targets[0].slice
                if isinstance(key, ast.Constant):
                    attributes.append(dict(name=key.value, required=not optional))

    visit(init.body, False)
    kwonly = {a.arg for a in init.args.kwonlyargs}
    infers = not explicit_results and "results" in kwonly
    if not explicit_results:
        # result names from the properties that read self.operation.results
        for node in klass.body:
            if isinstance(node, ast.FunctionDef) and "self.operation.results" in ast.unparse(node) \
                    and any("property" in ast.unparse(d) for d in node.decorator_list):
                results.append(dict(name=node.name, variadic=":" in ast.unparse(node).split("results")[-1]))
        if not results:
            results.append(dict(name="result", variadic=False))
    return dict(
        class_name=cls.__name__,
        operands=operands,
        attributes=attributes,
        results=results,
        infers_result_type=infers,
        regions=cls._ODS_REGIONS[0],
    )


def operand_use(entry: dict, ods: dict) -> dict[str, int]:
    """How the grammar's `arity` operands fill the ODS operand groups: emitted groups take
    none, fixed groups one each, the (single) variadic group the rest."""
    groups = [g for g in ods["operands"] if g["name"] not in entry["emitted"]]
    unknown = set(entry["emitted"]) - {g["name"] for g in ods["operands"]}
    if unknown:
        raise ValueError(f"{entry['name']}: emitted groups {sorted(unknown)} are not ODS operands")
    fixed = [g for g in groups if not g["variadic"]]
    variadic = [g for g in groups if g["variadic"]]
    use = {g["name"]: 0 for g in ods["operands"]}
    for g in fixed:
        use[g["name"]] = 1
    rest = entry["arity"] - len(fixed)
    if len(variadic) > 1 or rest < 0 or (rest > 0 and not variadic):
        raise ValueError(f"{entry['name']}: arity {entry['arity']} does not fit the ODS operands "
                         f"{ods['operands']} (emitted: {entry['emitted']})")
    if variadic:
        use[variadic[0]["name"]] = rest
    return use


# --- OpDSL -----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def opdsl_ops() -> dict[str, dict]:
    """name -> config from the OpDSL YAML of the core named ops."""
    import yaml

    text = subprocess.run(
        [sys.executable, "-m", "mlir.dialects.linalg.opdsl.dump_oplib", ".ops.core_named_ops"],
        check=True, capture_output=True, text=True,
    ).stdout

    class Loader(yaml.SafeLoader):
        pass

    def untagged(loader, suffix, node):
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)

    Loader.add_multi_constructor("!", untagged)
    return {d["metadata"]["name"]: d for d in yaml.load_all(text, Loader=Loader) if d}


def _scalar_fns(expr) -> list[str]:
    out = []
    if isinstance(expr, dict):
        fn = expr.get("scalar_fn")
        if fn:
            out.append(f"{fn['kind']}:{fn.get('fn_name') or fn.get('attr_name')}")
        for v in expr.values():
            out.extend(_scalar_fns(v))
    elif isinstance(expr, list):
        for v in expr:
            out.extend(_scalar_fns(v))
    return out


def opdsl_summary(short_name: str) -> dict | None:
    cfg = opdsl_ops().get(short_name)
    if cfg is None:
        return None
    so = cfg["structured_op"]
    args = [dict(name=a["name"], kind=a["kind"], shape_map=a.get("shape_map"))
            for a in so["args"] if a["kind"] in ("input_tensor", "output_tensor", "scalar")]
    return dict(
        cpp_class_name=cfg["metadata"]["cpp_class_name"],
        args=args,
        inputs=[a["name"] for a in args if a["kind"] == "input_tensor"],
        scalars=[a["name"] for a in args if a["kind"] == "scalar"],
        outputs=[a["name"] for a in args if a["kind"] == "output_tensor"],
        indexing_maps=so["indexing_maps"].get("static_indexing_maps"),
        iterator_types=so["iterator_types"],
        scalar_fns=_scalar_fns(so["assignments"]),
    )


# --- assembling ------------------------------------------------------------------------------


def toolchain_versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("jaxlib", "xtc-mlir-python-bindings"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def derive(dialect: str) -> dict:
    classes = generated_classes(dialect)
    ops = []
    for entry in CURATED[dialect]:
        if entry["mlir_name"] not in classes:
            raise ValueError(f"{entry['name']}: no generated class for {entry['mlir_name']}")
        ods = ods_signature(classes[entry["mlir_name"]])
        derived = dict(ods=ods, operand_use=operand_use(entry, ods))
        if classes[entry["mlir_name"]].__module__ != GENERATED_MODULES[dialect]:
            derived["ods_module"] = classes[entry["mlir_name"]].__module__
        if dialect == "linalg":
            short = entry["mlir_name"].split(".", 1)[1]
            derived["opdsl"] = opdsl_summary(short) if entry["mlir_name"].startswith("linalg.") else None
            if derived["opdsl"] is not None and len(derived["opdsl"]["inputs"]) != entry["arity"]:
                raise ValueError(f"{entry['name']}: arity {entry['arity']} != OpDSL inputs "
                                 f"{derived['opdsl']['inputs']}")
        ops.append({**entry, **derived})
    return dict(
        dialect=dialect,
        generated_by="scripts/derive_grammars.py",
        sources=dict(ods_module=GENERATED_MODULES[dialect],
                     opdsl="mlir.dialects.linalg.opdsl.ops.core_named_ops" if dialect == "linalg" else None,
                     versions=toolchain_versions()),
        ops=ops,
    )


def render(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the files on disk")
    args = parser.parse_args(argv)
    stale = []
    for dialect in CURATED:
        path = GRAMMAR_DIR / f"{dialect}.json"
        text = render(derive(dialect))
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            GRAMMAR_DIR.mkdir(exist_ok=True)
            path.write_text(text)
            print(f"wrote {path} ({len(CURATED[dialect])} ops)")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run scripts/derive_grammars.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
