"""The library ops' blocked forms: a lowering below the raised IR (synth.backends.
library_stablehlo, synth.backends.library_linalg).

The raise emits one algorithm per library op at every size (stablehlo.cholesky,
stablehlo.triangular_solve, LU's unblocked while; linalg's row, column and step loops),
which validation proves. The backends run its lowering: at sizes with a panel width the
blocked forms. Checked here at sizes the panel width divides (96: panels of 48; 130: of
26; 240: of 60 or two levels of 120 by 60) and at sizes it does not (the op is kept), each
against NumPy and against the op form through the same compiler; and a raise's text at
its own sizes is the same algorithm as at the sizes its proof covers. A shape-generic
raise's library loops made static are blocked as the static text's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from synth.backends import library_linalg, library_stablehlo
from synth.grammar import TensorType, ops_for
from synth.grammar.op import attrs as make_attrs
from synth.grammar.op import emit_op_function
from synth.grammar.shapes import cholesky, lu, triangular_solve

from test_grammar_conformance import assert_same, run_compiled


def _op(dialect: str, name: str):
    return next(o for o in ops_for(dialect) if o.name == f"{dialect}.{name}")


@pytest.mark.parametrize("dialect, unrolled", [("stablehlo", True), ("stablehlo", False), ("linalg", True)])
@pytest.mark.parametrize("n", [96, 130, 240])
def test_lu_blocked_lowering(dialect, n, unrolled, monkeypatch):
    """LU lowered at a size with a panel width: stablehlo updates the trailing block by a
    dot_general per panel (the panel's products summed before they are subtracted: equal
    to NumPy's row-by-row LU within the tolerance), its panels unrolled on static slices
    (U12 by unit triangular solves) or, beyond MAX_UNROLLED_PANELS, a while over them;
    unrolled at 240 the panels are two levels: outer panels of 120 (families.
    lu_outer_panel) factored by sub-panels of 60, each a while over its columns, and U12
    solved by blocks of 60 rows. linalg updates by a linalg.matmul accumulating into the
    block in order of k, its panels factored by sub-panels the same way (bitwise equal
    through the ExecutionEngine). The raised form is one while (stablehlo) or one loop
    (linalg), marked synth.library. On mlir-cpu the stablehlo raise runs as linalg's
    blocked LU (test_stablehlo_library_ops_on_mlir_cpu_as_linalg_loops)."""
    from synth.backends.mlir_cpu import MlirCpuBackend

    op = _op(dialect, "lu")
    if dialect == "stablehlo":
        monkeypatch.setattr(library_stablehlo, "MAX_UNROLLED_PANELS", 64 if unrolled else 1)
    text = emit_op_function(op, [TensorType((n, n), "f64")], ())
    assert text.count('synth.library = "lu"') == 1
    lowering = library_stablehlo if dialect == "stablehlo" else library_linalg
    lowered, count = lowering.lower(text)
    assert count == 1
    if dialect == "stablehlo" and unrolled:
        # (whiles, dot_generals, triangular solves): one while per (sub-)panel; a solve and
        # a product per (sub-)panel but the last, and per block of U12's rows (the product
        # for all but the last block) and the trailing update per outer panel but the last
        counts = {96: (2, 1, 1), 130: (5, 4, 4), 240: (4, 4, 4)}[n]
        assert (lowered.count("stablehlo.while"), lowered.count("stablehlo.dot_general"),
                lowered.count("stablehlo.triangular_solve")) == counts
    elif dialect == "stablehlo":
        assert "stablehlo.dot_general" in lowered and lowered.count("stablehlo.while") == 2
    else:
        # panels, their sub-panels (24, 13 and 30 columns), the steps, the rest; a matmul per
        # panel and two per sub-panel
        assert lowered.count("scf.for") == 4 and lowered.count("linalg.matmul") == 3
    a = np.random.default_rng(n).uniform(-1, 1, (n, n)) + n * np.eye(n)
    (got,) = run_compiled(op, lowered, [a])
    (unblocked,) = run_compiled(op, text, [a])
    want = lu(a)
    assert_same(got, want, f"{dialect}.lu at {n}x{n}, lowered")
    assert_same(unblocked, want, f"{dialect}.lu at {n}x{n}, as raised")
    if dialect == "linalg":
        assert np.array_equal(got, want) and np.array_equal(unblocked, want)
    if dialect == "stablehlo" and unrolled and n == 240:
        prepared = MlirCpuBackend(target="stablehlo").prepare(
            text.replace(") {", ") attributes {synth.outputs = [0]} {", 1), "main")
        assert_same(prepared.run([a])[0], want, "stablehlo.lu at 240x240 on mlir-cpu")
        assert prepared.pipeline_name == "tiled", prepared.fallback_reason


@pytest.mark.parametrize("lower,unit", [(True, False), (True, True), (False, False), (False, True)])
@pytest.mark.parametrize("n, unrolled", [(96, 64), (144, 64), (144, 1)])
def test_stablehlo_triangular_solve_of_a_vector_lowered_by_panels(lower, unit, n, unrolled, monkeypatch):
    """stablehlo.triangular_solve of one vector lowered at a size with a panel width (96:
    2 panels of 48; 144: 3) goes panel by panel from the top for a lower triangle, from
    the bottom for an upper one: unrolled (static slices of the triangle), or a while over
    the panels where they are more than MAX_UNROLLED_PANELS: equal to the substitution
    within the tolerance. Unrolled, each panel's solution is written over the right-hand
    side (a dynamic_update_slice at a constant offset), not concatenated with the others."""
    from synth.backends.xla import run_stablehlo

    rng = np.random.default_rng(5)
    op = _op("stablehlo", "triangular_solve")
    monkeypatch.setattr(library_stablehlo, "MAX_UNROLLED_PANELS", unrolled)
    a = rng.uniform(-1, 1, (n, n)) / n + np.diag(rng.uniform(1, 2, n))
    b = rng.uniform(-1, 1, n)
    attrs = make_attrs(lower=lower, unit_diagonal=unit, transpose_a=False)
    text = emit_op_function(op, [TensorType((n, n), "f64"), TensorType((n,), "f64")], attrs)
    assert text.count("stablehlo.triangular_solve") == 1 and "stablehlo.while" not in text
    lowered, count = library_stablehlo.lower(text)
    assert count == 1 and "stablehlo.dot_general" in lowered
    assert ("stablehlo.while" in lowered) == (unrolled == 1)
    assert lowered.count("stablehlo.triangular_solve") == (1 if unrolled == 1 else n // 48)
    if unrolled > 1:
        assert "stablehlo.concatenate" not in lowered and lowered.count("stablehlo.dynamic_update_slice") == n // 48
    want = triangular_solve(a, b, lower, unit, False)
    for module in (lowered, text):
        (got,) = run_stablehlo(module, [a, b])
        assert_same(got, want, f"triangular_solve {dict(attrs)}")


@pytest.mark.parametrize("lower,unit,transpose", [(True, False, False), (True, True, False), (False, False, False),
                                                   (False, False, True)])
@pytest.mark.parametrize("n", [96, 130])
def test_linalg_forward_substitution_lowered_by_panels(lower, unit, transpose, n):
    """linalg's triangular_solve of a vector with a lower, untransposed a, lowered at a
    size with a panel width (96: 2 panels of 48; 130: 5 of 26), goes by panels of rows:
    each panel's right-hand side less one linalg.matvec with the rows solved before it,
    then the panel's rows; the row loop after the panels is empty. Other triangles stay
    the row loop. Equal to the substitution within the tolerance (the sums split)."""
    rng = np.random.default_rng(n)
    op = _op("linalg", "triangular_solve")
    a = rng.uniform(-1, 1, (n, n)) / n + np.diag(rng.uniform(1, 2, n))
    b = rng.uniform(-1, 1, n)
    attrs = make_attrs(lower=lower, unit_diagonal=unit, transpose_a=transpose)
    text = emit_op_function(op, [TensorType((n, n), "f64"), TensorType((n,), "f64")], attrs)
    assert text.count("scf.for") == 1 and "linalg.matvec" not in text
    lowered, count = library_linalg.lower(text)
    blocked = lower and not transpose
    assert count == int(blocked)
    assert lowered.count("linalg.matvec") == (1 if blocked else 0)
    assert lowered.count("scf.for") == (3 if blocked else 1)  # panels, their rows, the rest
    (got,) = run_compiled(op, lowered, [a, b])
    assert_same(got, triangular_solve(a, b, lower, unit, transpose), f"linalg.triangular_solve {dict(attrs)}")


def test_linalg_forward_substitution_lowered_where_the_matrix_is_not_carried():
    """canonicalize drops the matrix the solve's loop carries unchanged (a shape-generic
    raise made static runs it): the loop carries the vector only, reads the matrix from
    above, and is still lowered by panels, to the same values."""
    from mlir import ir, passmanager

    n = 96
    rng = np.random.default_rng(3)
    op = _op("linalg", "triangular_solve")
    a = rng.uniform(-1, 1, (n, n)) / n + np.diag(rng.uniform(1, 2, n))
    b = rng.uniform(-1, 1, n)
    text = emit_op_function(op, [TensorType((n, n), "f64"), TensorType((n,), "f64")],
                            make_attrs(lower=True, unit_diagonal=False, transpose_a=False))
    with ir.Context():
        module = ir.Module.parse(text)
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        folded = str(module)
    assert re.search(r"iter_args\(%\w+ = %\w+\) -> \(tensor<96xf64>\)", folded), folded
    lowered, count = library_linalg.lower(folded)
    assert count == 1 and lowered.count("linalg.matvec") == 1
    (got,) = run_compiled(op, lowered, [a, b])
    assert_same(got, triangular_solve(a, b, True, False, False), "linalg.triangular_solve, matrix from above")


@pytest.mark.parametrize("dialect", ["stablehlo", "linalg"])
@pytest.mark.parametrize("n", [96, 130, 97])
def test_cholesky_lowered_by_panels(dialect, n):
    """cholesky lowered at a size with a panel width (96: panels of 48; 130: of 26) goes
    by panels of columns: stablehlo unrolls them, left-looking (each panel less the
    columns left of it by one dot_general, then a while over its columns, each less a
    matrix-vector dot_general of the panel's columns before it); linalg loops over them
    (each panel updated from the columns left of it by one linalg.matmul, then factored
    column by column; then the column loop after the last full panel: empty here). At 97
    (a prime: no panel width) the op stays as raised. Equal to PolyBench's factor within
    the tolerance, zeros above the diagonal, the input's upper triangle never read."""
    op = _op(dialect, "cholesky")
    text = emit_op_function(op, [TensorType((n, n), "f64")], ())
    lowering = library_stablehlo if dialect == "stablehlo" else library_linalg
    lowered, count = lowering.lower(text)
    assert count == (0 if n == 97 else 1)
    if n == 97:
        assert lowered == text
    elif dialect == "stablehlo":
        panels = n // (48 if n == 96 else 26)
        assert "stablehlo.cholesky" not in lowered and lowered.count("stablehlo.while") == panels
        assert lowered.count("stablehlo.dot_general") == 2 * panels - 1
    else:
        assert lowered.count("linalg.matmul") == 1 and lowered.count("scf.for") == 3  # panels, columns, the rest
    rng = np.random.default_rng(n)
    g = rng.uniform(-1, 1, (n, n))
    a = g @ g.T + n * np.eye(n)
    garbage = np.tril(a) + np.triu(rng.uniform(-1e3, 1e3, (n, n)), 1)
    for module in (lowered, text):
        (got,) = run_compiled(op, module, [garbage])
        assert_same(got, cholesky(a), f"{dialect}.cholesky at {n}x{n}")
        assert not np.any(np.triu(got, 1))


def _shape_of_ops(text: str) -> list[str]:
    """The op names of a function body in order, constants left out: the algorithm's
    shape, whatever the sizes it is written at."""
    ops = re.findall(r"= ((?:stablehlo|linalg|scf|tensor)\.\w+)", text)
    return [o for o in ops if o not in ("stablehlo.constant",)]


@pytest.mark.parametrize("kernel", ["lu", "ludcmp", "cholesky", "trisolv"])
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_what_ships_is_what_is_proven(kernel, target):
    """At the kernel's own sizes (n = 2000, where the blocked forms applied before) the
    raised function is the same algorithm as at the sizes its proof covers: the same ops
    in the same order, only the sizes differ; no panels in the raised text."""
    from synth.analysis.model import load_kernel
    from synth.codegen.raised import raised_function_text
    from synth.frontend.reader import load_source
    from synth.pipeline import RaiseOptions
    from synth.synthesis.search import SearchSettings
    from synth.synthesis.solve import search_kernel

    from conftest import ROOT

    source = load_source(ROOT / "benchmarks" / "polybench" / f"{kernel}.mlir", warn=False)
    k = load_kernel(source, f"kernel_{kernel}")
    result = search_kernel(k, target, SearchSettings(timeout=120), seed=RaiseOptions().seed)
    shipped = raised_function_text(result, k.sizes.original())
    proven = raised_function_text(result, k.sizes.small_values(2))
    assert "__synth_library" not in shipped
    assert _shape_of_ops(shipped) == _shape_of_ops(proven)


def _on_mlir_cpu(text: str, inputs: list, outputs: list[int]):
    """`text` (a stablehlo function @main) run on mlir-cpu (its tiled pipeline, no fallback)."""
    from synth.backends.mlir_cpu import MlirCpuBackend

    marked = text.replace(") {", f") attributes {{synth.outputs = {outputs}}} {{", 1)
    prepared = MlirCpuBackend(target="stablehlo").prepare(marked, "main")
    got = prepared.run(inputs)
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    return got


@pytest.mark.parametrize("kind, n", [("lu", 96), ("lu", 97), ("cholesky", 96), ("cholesky", 97),
                                     ("solve", 96), ("solve", 97)])
def test_stablehlo_library_ops_on_mlir_cpu_as_linalg_loops(kind, n):
    """On mlir-cpu a stablehlo library op becomes the linalg grammar's op of the same meaning
    (stablehlo_calls.factorizations_as_calls: LU's marked while and stablehlo.cholesky;
    _solves_as_calls: a triangular solve of a vector), a loop marked synth.library that
    library_linalg then blocks as the linalg raise's: the panels an scf.for with SSA offsets
    (at 96: panels), or the unblocked loop (97, a prime: no panel width; stablehlo's
    own lowering kept stablehlo.cholesky there, which mlir-cpu could not compile). So the
    lowered module has no stablehlo op left and as many loops at any n, not n / b unrolled
    panels. Equal to NumPy and to XLA's run of the raised op within the tolerance."""
    from synth.backends.mlir_cpu import library_forms
    from synth.backends.xla import run_stablehlo

    rng = np.random.default_rng(n)
    if kind == "solve":
        cases = [make_attrs(lower=lo, unit_diagonal=unit, transpose_a=False) for lo in (True, False)
                 for unit in (False, True)]
        a = rng.uniform(-1, 1, (n, n)) / n + np.diag(rng.uniform(1, 2, n))
        b = rng.uniform(-1, 1, n)
        for attrs in cases:
            text = emit_op_function(_op("stablehlo", "triangular_solve"),
                                    [TensorType((n, n), "f64"), TensorType((n,), "f64")], attrs)
            d = dict(attrs)
            want = triangular_solve(a, b, d["lower"], d["unit_diagonal"], False)
            (got,) = _on_mlir_cpu(text, [a, b], [])
            assert_same(got, want, f"triangular_solve {d} at {n} on mlir-cpu")
            assert_same(run_stablehlo(text, [a, b])[0], want, "on XLA")
        return
    op = _op("stablehlo", kind)
    text = emit_op_function(op, [TensorType((n, n), "f64")], ())
    lowered = library_forms(text.replace(") {", ") attributes {synth.outputs = [0]} {", 1), "stablehlo")
    assert "stablehlo." not in lowered
    fors = lowered.count("scf.for")
    if kind == "lu":
        # panels (of 48), their sub-panels, the steps, the rest after the panels; 97: the steps
        assert fors == (1 if n == 97 else 4)
        a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n)
        want = lu(a)
    else:
        assert fors == (1 if n == 97 else 3)  # panels, their columns, the rest
        g = rng.uniform(-1, 1, (n, n))
        a = g @ g.T + n * np.eye(n)
        want = cholesky(a)
    (got,) = _on_mlir_cpu(text, [a], [0])
    assert_same(got, want, f"stablehlo.{kind} at {n}x{n} on mlir-cpu")
    assert_same(run_stablehlo(text, [a])[0], want, f"stablehlo.{kind} at {n}x{n} on XLA")



def _factor_and_solve(name: str, shapes, generic: bool) -> str:
    """@main(a, b) -> (f(a), the forward substitution of b by f(a)) for the linalg library
    op `name` (lu, cholesky) as ludcmp's raise is made: the factorization's loop, then the
    solve's reading its result; with `?` dims as a shape-generic raise emits it (n read
    from the matrix by tensor.dim), or static at `shapes`."""
    from synth.analysis.symbols import SizeExpr
    from synth.grammar.dims import GenericSizes, find_sources
    from synth.grammar.op import emit_function

    from test_generic import _generic_instance

    factor, solve = _op("linalg", name), _op("linalg", "triangular_solve")
    attrs = make_attrs(lower=True, unit_diagonal=name == "lu", transpose_a=False)
    types, sizes = tuple(TensorType(s, "f64") for s in shapes), None
    if generic:
        types, attrs, values = _generic_instance(solve, types, attrs)
        dims = {i: tuple(SizeExpr.of(d) for d in t.shape) for i, t in enumerate(types)}
        sources = find_sources(set(values), dims, {})
        sizes = GenericSizes("linalg", sources, {})

    def build(em, args):
        f = em.apply(factor, args[:1], types[:1], ())
        return [f, em.apply(solve, [f[0], args[1]], types, attrs)]
    text = emit_function("main", types, build, sizes=sizes)  # the results: a and b's final contents
    return text.replace(") {", ") attributes {synth.outputs = [0, 1]} {", 1)


@pytest.mark.parametrize("name, panel", [("lu", "linalg"), ("cholesky", "linalg-cholesky")])
@pytest.mark.parametrize("n", [96, 130, 97])
def test_generic_library_loops_made_static_are_blocked(name, panel, n):
    """A shape-generic raise's library loops, made static at n (synth.semantics.specialize,
    as the backends run it), carry the matrix as a cast of the static one to
    tensor<?x?xf64> where the loop's result has another use than the return (ludcmp: the
    solve reads the LU). synth-library-loops gives them their static types first
    (synth-static-iter-args, through tensor.insert_slice and tensor.insert) and blocks them
    as it blocks the static raise's (96: panels of 48; 130: 65 for LU, 26 for the others),
    or keeps them at 97 (no panel width): the same loops as the static text's lowering, the
    same values (the factorization bitwise: the same operations in the same order), equal
    to NumPy within the tolerance."""
    from synth.grammar.families import lu_panel
    from synth.semantics.specialize import specialize

    rng = np.random.default_rng(n)
    shapes = [(n, n), (n,)]
    static_text = _factor_and_solve(name, shapes, generic=False)
    made_static = specialize(_factor_and_solve(name, shapes, generic=True), "main", "linalg", shapes)
    assert "-> (tensor<?x?xf64>)" in made_static  # what the loop carries, before the pass
    lowered, count = library_linalg.lower(made_static)
    static_lowered, static_count = library_linalg.lower(static_text)
    assert count == static_count == 2 * int(lu_panel(n, panel) is not None)
    for form in ("scf.for", "linalg.matmul", "linalg.matvec"):
        assert lowered.count(form) == static_lowered.count(form), form
    if name == "lu":
        a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n)
        factored = lu(a)
        lower = np.tril(factored, -1) + np.eye(n)
    else:
        g = rng.uniform(-1, 1, (n, n))
        a = g @ g.T + n * np.eye(n)
        factored = cholesky(a)
        lower = np.tril(factored)
    b = rng.uniform(-1, 1, n)
    from synth.execution import run_tensor_function

    got = run_tensor_function(lowered, "main", [a, b])
    static_got = run_tensor_function(static_lowered, "main", [a, b])
    assert np.array_equal(got[0], static_got[0]), f"linalg.{name} at {n}: generic and static lowerings differ"
    assert_same(got[0], factored, f"linalg.{name} at {n}, generic made static, lowered")
    assert_same(got[1], static_got[1], f"the solve after linalg.{name} at {n}: generic and static")
    assert_same(got[1], np.linalg.solve(lower, b), f"the solve after linalg.{name} at {n}")
