"""Shape-generic raises (`--shapes generic`): sizes read from the arguments at run time.

- Every grammar op with a generic emitter (`Op.shape_generic`), on the conformance
  test's instances with their dims made size symbols: the emitted function has `?`
  dims, MLIR verifies it, and made static at other sizes by the compilers' own shape
  refinement (synth.semantics.specialize) it computes what NumPy does there.
- Raises: the emitted text runs at sizes other than the ones it was raised at and
  matches the original there; loop counts that are arguments are taken at run time;
  the drop-in serves every size; a static raise's drop-in runs the original loops at
  other sizes.
- synth verify reads a hand-written generic raise, and rejects a mutant wrong only at
  sizes >= 5.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from synth.analysis.symbols import GenericValues, Size, SizeExpr, reinstantiate_value
from synth.grammar import ShapeError, TensorType, ops_for
from synth.grammar.dims import GenericSizes, GenericUnsupported, find_sources
from synth.grammar.op import emit_function
from synth.semantics.specialize import specialize

from test_grammar_conformance import assert_same, instances, random_inputs, run_compiled

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = Path(__file__).parent / "data" / "mutants"
GENERIC = Path(__file__).parent / "data" / "generic"


# --- every op's generic emitter --------------------------------------------------------------


def _symbolic(value: int, values: dict) -> int:
    """A dim of the conformance universe as a size symbol (n<value>, run-time), 1 kept."""
    if value <= 1:
        return value
    name = f"n{value}"
    values[name] = value
    return Size(value, SizeExpr.symbol(name), frozenset({name}))


def _generic_instance(op, arg_types, a):
    """The instance with its dims as size symbols (one per distinct value); where the
    shape rule relates dims by offsets (an inserted range), a later operand's dim is an
    earlier symbol less its offset. A view's box is an expression of its array's dims
    (_view_instance)."""
    values: dict[str, int] = {}
    types = tuple(TensorType(tuple(_symbolic(int(d), values) for d in t.shape), t.dtype) for t in arg_types)
    if op.attr_domain_kind == "view":
        return types, _view_instance(types, a), values
    attrs = tuple((k, tuple(_symbolic(int(d), values) for d in v) if k == "shape" else v) for k, v in a)
    try:
        op.result_type(types, attrs)
    except ShapeError:
        first = types[0]
        related = [first] + [TensorType(tuple(_offset_of(int(d), first) for d in t.shape), t.dtype)
                             for t in types[1:]]
        types = tuple(related)
        values = {n: v for n, v in values.items() if any(n in SizeExpr.of(d).symbols for t in types for d in t.shape)}
    return types, attrs, values


def _view_instance(types, a):
    """The box of a view / insert_view instance in the symbols of its array (the first
    operand): a view's extent n - 1 (from 1) or (n + 1) floordiv 2 (every other element);
    an update's corner n - (u - 1) * stride - 1 at the end of dest (u: the update's dim)."""
    d = dict(a)
    full = types[0].shape

    def expr_size(value: int, expr: SizeExpr):
        names = frozenset(expr.symbols)
        return Size(value, expr, names) if names else value

    if len(types) == 1:
        shape = []
        for n, v, o, st in zip(full, d["shape"], d["lo"], d["stride"]):
            e = SizeExpr.of(n)
            if st == 1:
                shape.append(expr_size(int(v), e - int(o)) if int(n) - int(o) == int(v) else v)
            else:
                shape.append(expr_size(int(v), SizeExpr(e.terms, e.const + st - 1, st)))
        d["shape"] = tuple(shape)
    else:
        update = types[1].shape
        d["lo"] = tuple(expr_size(int(o), SizeExpr.of(n) - SizeExpr.of(u) * st + st - 1)
                        for n, u, o, st in zip(full, update, d["lo"], d["stride"]))
        d["shape"] = tuple(update)
    return tuple(d.items())


def _offset_of(value: int, t: TensorType):
    """`value` as a dim of `t` less a small offset (0 to 2), where one matches."""
    for k in range(3):
        for d in t.shape:
            if isinstance(d, Size) and int(d) - k == value:
                return d.offset(-k)
    return value


GENERIC_OPS = [op for d in ("stablehlo", "linalg") for op in ops_for(d) if op.shape_generic]


@pytest.mark.parametrize("op", GENERIC_OPS, ids=lambda op: op.name)
def test_generic_emitter_at_other_sizes(op):
    checked = 0
    for arg_types, a in instances(op):
        types, attrs, values = _generic_instance(op, arg_types, a)
        if not values:
            continue  # nothing to make generic (rank 0, unit dims)
        op.result_type(types, attrs)
        shown = {n for t in types for d in t.shape for n in SizeExpr.of(d).symbols}
        # a size only an attribute holds (iota's shape): an extra argument shows it, as a
        # raised function's array arguments show the sizes its iotas take
        extra = [TensorType(tuple(_symbolic(values[n], {}) for n in sorted(set(values) - shown)), "f64")] \
            if set(values) - shown else []
        fn_types = types + tuple(extra)
        sources = find_sources(set(values), {i: tuple(SizeExpr.of(d) for d in t.shape)
                                             for i, t in enumerate(fn_types)}, {})
        assert set(sources) == set(values)
        sizes = GenericSizes(op.dialect, sources, {})
        try:
            text = emit_function("main", fn_types, lambda em, args: [em.apply(op, args[:len(types)], types, attrs)],
                                 sizes=sizes)
        except GenericUnsupported:  # an instance the op says it has no generic form for (a window
            continue  # that may leave its array): a raise falls back to static sizes there
        assert "?" in text.split("{", 1)[0], text
        for shift in (2, 5):  # two other sizes: every symbol moved, distinct from each other
            at = GenericValues({n: values[n] + shift + k for k, n in enumerate(sorted(values))}, ())
            new_types = [TensorType(tuple(int(reinstantiate_value(d, at)) for d in t.shape), t.dtype) for t in types]
            new_attrs = tuple((k, reinstantiate_value(v, at)) for k, v in attrs)
            extra_at = [TensorType(tuple(int(reinstantiate_value(d, at)) for d in t.shape), t.dtype) for t in extra]
            static = specialize(text, "main", op.dialect, [t.shape for t in new_types + extra_at])
            assert "?" not in static.split("{", 1)[0], static
            inputs = random_inputs(op, new_types, seed=shift)
            expected = op.evaluate(inputs, new_attrs)
            got = run_compiled(op, static, inputs + [np.zeros(t.shape) for t in extra_at])
            assert_same(got[0], expected, f"{op.name} {dict(new_attrs)} at {dict(at)}")
        checked += 1
    if op.name.split(".", 1)[1] not in ("constant", "fill", "take", "put", "counter_select"):
        assert checked, f"{op.name}: no instance with a size to make generic"


@pytest.mark.parametrize("dialect", ["stablehlo", "linalg"])
@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_a_size_as_a_value_is_read_at_run_time(dialect, dtype):
    """A constant whose value is a size (rmsnorm's `ss /= size`), in a generic body: the
    size read from an argument, converted to the element type; made static at other sizes
    it is that size."""
    from synth.grammar.op import attrs

    op = next(o for o in ops_for(dialect) if o.name in ("stablehlo.constant", "linalg.fill"))
    n = Size(4, SizeExpr.symbol("n"), frozenset({"n"}))
    a = attrs(value=n, dtype=dtype) if dialect == "stablehlo" else attrs(value=n, shape=(), dtype=dtype)
    arg = TensorType((n,), "f64")
    sizes = GenericSizes(dialect, find_sources({"n"}, {0: (SizeExpr.of(n),)}, {}), {})
    text = emit_function("main", (arg,), lambda em, args: [em.apply(op, [], (), a)], sizes=sizes)
    assert "?" in text.split("{", 1)[0] and "constant dense<4>" not in text, text
    for value in (3, 7):
        static = specialize(text, "main", dialect, [(value,)])
        got = run_compiled(op, static, [np.zeros(value)])
        assert_same(got[0], np.asarray(value, dtype=TensorType((), dtype).numpy_dtype), f"{dialect} at {value}")


def test_a_size_only_a_combination_of_dims_shows_is_solved_from_it():
    """moving_average's out has n - w + 1 elements and in n: w is read from the shapes
    (out's extent less in's, plus 1), not from its scalar argument, so the compilers'
    shape refinement sees it."""
    n, w = SizeExpr.symbol("n"), SizeExpr.symbol("w")
    sources = find_sources({"n", "w"}, {0: (n,), 1: (n - w + 1,)}, {"w": (3, "i32")})
    assert sources["n"].kind == "dim" and sources["w"].kind == "solved" and sources["w"].coeff == -1
    for dialect in ("stablehlo", "linalg"):
        sizes = GenericSizes(dialect, sources, {})
        at = {"n": Size(9, n, frozenset({"n", "w"})), "w": Size(4, w, frozenset({"n", "w"}))}
        types = (TensorType((at["n"],), "f64"), TensorType((Size(6, n - w + 1, frozenset({"n", "w"})),), "f64"),
                 TensorType((), "i32"))
        op = next(o for o in ops_for(dialect) if o.name in ("stablehlo.constant", "linalg.fill"))
        a = (("value", at["w"]), ("dtype", "i64")) if dialect == "stablehlo" else \
            (("value", at["w"]), ("shape", ()), ("dtype", "i64"))
        text = emit_function("main", types, lambda em, args: [em.apply(op, [], (), a)], sizes=sizes)
        static = specialize(text, "main", dialect, [(11,), (5,), ()])
        got = run_compiled(op, static, [np.zeros(11), np.zeros(5), np.asarray(0, np.int32)])
        assert int(np.asarray(got[0])) == 7, (dialect, text)


@pytest.mark.parametrize("dialect", ["stablehlo", "linalg"])
def test_a_window_whose_offset_is_a_size(dialect):
    """fir_causal's in[i + taps - 1 - j]: a reversed window whose offset is its width less
    1, a size; emitted generic and made static at other sizes it reads what NumPy does."""
    op = next(o for o in ops_for(dialect) if o.name.endswith(".window"))
    names = frozenset({"m", "w"})
    m = Size(3, SizeExpr.symbol("m"), names)
    w = Size(4, SizeExpr.symbol("w"), names)
    n = Size(6, SizeExpr.symbol("m") + SizeExpr.symbol("w") - 1, names)
    a = (("dim", 0), ("shape", (m, w)), ("offset", w.offset(-1)), ("reverse", True))
    arg = TensorType((n,), "f64")
    extra = TensorType((m, w), "f64")  # shows m and w as dims
    sources = find_sources(set(names), {0: (SizeExpr.of(n),), 1: (SizeExpr.of(m), SizeExpr.of(w))}, {})
    text = emit_function("main", (arg, extra), lambda em, args: [em.apply(op, args[:1], (arg,), a)],
                         sizes=GenericSizes(dialect, sources, {}))
    rng = np.random.default_rng(0)
    for mv, wv in ((5, 2), (2, 7)):
        at = GenericValues({"m": mv, "w": wv}, ())
        x = rng.standard_normal(mv + wv - 1)
        static = specialize(text, "main", dialect, [(mv + wv - 1,), (mv, wv)])
        got = run_compiled(op, static, [x, np.zeros((mv, wv))])
        expected = op.evaluate([x], tuple((k, reinstantiate_value(v, at)) for k, v in a))
        assert_same(got[0], expected, f"{dialect} at m={mv}, w={wv}")


@pytest.mark.parametrize("dialect", ["stablehlo", "linalg"])
def test_an_affine_mask_whose_bound_is_a_size(dialect):
    """conv1d_same's `if (j < 0 || j >= w) continue` over (i, k), j = i + k - 1: the bound
    i + k <= w a size; emitted generic and made static at other sizes it selects what
    NumPy does."""
    op = next(o for o in ops_for(dialect) if o.name.endswith(".select_affine"))
    w = Size(6, SizeExpr.symbol("w"), frozenset({"w"}))
    a = (("constraints", (((1, 1), 1), ((-1, -1), Size(-6, -SizeExpr.symbol("w"), frozenset({"w"}))))),)
    t = TensorType((w, 3), "f64")
    sources = find_sources({"w"}, {0: (SizeExpr.of(w), SizeExpr.constant(3))}, {})
    text = emit_function("main", (t, t), lambda em, args: [em.apply(op, args, (t, t), a)],
                         sizes=GenericSizes(dialect, sources, {}))
    assert "?" in text.split("{", 1)[0], text
    rng = np.random.default_rng(0)
    for wv in (2, 9):
        at = GenericValues({"w": wv}, ())
        x, y = rng.standard_normal((wv, 3)), rng.standard_normal((wv, 3))
        static = specialize(text, "main", dialect, [(wv, 3), (wv, 3)])
        got = run_compiled(op, static, [x, y])
        expected = op.evaluate([x, y], tuple((k, reinstantiate_value(v, at)) for k, v in a))
        inside = (np.arange(wv)[:, None] + np.arange(3)[None, :] - 1)
        np.testing.assert_array_equal(expected, np.where((inside >= 0) & (inside < wv), x, y))
        assert_same(got[0], expected, f"{dialect} at w={wv}")


# --- raises --------------------------------------------------------------------------------


def _raise(tmp_path, kernel: str, target: str, *extra) -> str:
    from synth.cli import main

    src = kernel if Path(kernel).exists() else str(ROOT / "benchmarks" / "polybench" / f"{kernel}.mlir")
    out = tmp_path / f"{Path(src).stem}.{target}.mlir"
    assert main(["raise", src, "--target", target, "-o", str(out), "-q", *extra]) == 0
    return out.read_text()


def _signature(text: str, name: str) -> str:
    return re.search(rf"func\.func @{name}\((.*?)\) ->", text).group(1)


def _run_raised_at(text: str, name: str, dialect: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    from synth.backends.run import run_raised
    from synth.semantics.raised_text import keep_functions

    static = specialize(keep_functions(text, name), name, dialect, [np.shape(a) for a in inputs])
    return run_raised(dialect, static, name, inputs)


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_gemm_generic_runs_at_other_sizes(tmp_path, target):
    """One raise at LARGE serves three other size configurations (non-square, odd, a
    prime, a size of 1): the original at those sizes is the reference."""
    from synth.execution import run_function

    text = _raise(tmp_path, "gemm", target, "--shapes", "generic", "--verify", "test")
    assert "tensor<?x?xf64>" in _signature(text, "kernel_gemm_raised")
    original = (ROOT / "benchmarks/polybench/gemm.mlir").read_text()
    rng = np.random.default_rng(1)
    for ni, nj, nk in ((7, 5, 3), (13, 1, 4), (1, 6, 11)):
        c, a, b = rng.uniform(-1, 1, (1000, 1100)), rng.uniform(-1, 1, (1000, 1200)), rng.uniform(-1, 1, (1200, 1100))
        args = [("i32", ni), ("i32", nj), ("i32", nk), ("f64", 1.5), ("f64", -0.5), c.copy(), a, b]
        want = run_function(original, "kernel_gemm", args, opt_level=2).outputs[5][:ni, :nj]
        inputs = [np.asarray(ni, np.int32), np.asarray(nj, np.int32), np.asarray(nk, np.int32),
                  np.asarray(1.5), np.asarray(-0.5), c[:ni, :nj].copy(), a[:ni, :nk].copy(), b[:nk, :nj].copy()]
        got = _run_raised_at(text, "kernel_gemm_raised", target, inputs)[0]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _dropin(text: str, name: str, args: list) -> list:
    from synth.execution import DROPIN_PIPELINE, run_function

    return run_function(text, name, args, opt_level=2, pipeline=DROPIN_PIPELINE).outputs


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_jacobi_1d_steps_are_an_argument(tmp_path, target):
    """The step count is the raise's run-time value (no PolyBench table): called with 3
    or 7 steps, @NAME_raised gives the original's result; the linalg drop-in too."""
    from synth.execution import run_function

    text = _raise(tmp_path, "jacobi-1d", target)  # auto: its sizes are arguments, so generic
    assert "dense<500>" not in text and "constant 500" not in text
    original = (ROOT / "benchmarks/polybench/jacobi-1d.mlir").read_text()
    rng = np.random.default_rng(2)
    for steps, n in ((3, 2000), (7, 37)):
        a, b = rng.uniform(-1, 1, 2000), rng.uniform(-1, 1, 2000)
        want = run_function(original, "kernel_jacobi_1d", [("i32", steps), ("i32", n), a.copy(), b.copy()],
                            opt_level=2).outputs
        got = _run_raised_at(text, "kernel_jacobi_1d_raised", target,
                             [np.asarray(steps, np.int32), np.asarray(n, np.int32), a[:n].copy(), b[:n].copy()])
        np.testing.assert_allclose(got[0], want[2][:n], rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(got[1], want[3][:n], rtol=1e-13, atol=1e-13)
        if target == "linalg":
            dropped = _dropin(text, "kernel_jacobi_1d", [("i32", steps), ("i32", n), a.copy(), b.copy()])
            np.testing.assert_allclose(dropped[2], want[2], rtol=1e-13, atol=1e-13)
            np.testing.assert_allclose(dropped[3], want[3], rtol=1e-13, atol=1e-13)
    if target == "linalg":  # outside the proven domain (n = 1: an empty interior; n = 0; -1 steps)
        for steps, n in ((4, 1), (5, 0), (-1, 50)):  # the drop-in runs the original loops there
            a, b = rng.uniform(-1, 1, 2000), rng.uniform(-1, 1, 2000)
            args = [("i32", steps), ("i32", n), a, b]
            want = run_function(original, "kernel_jacobi_1d", [x.copy() if isinstance(x, np.ndarray) else x
                                                               for x in args], opt_level=2).outputs
            got = _dropin(text, "kernel_jacobi_1d", [x.copy() if isinstance(x, np.ndarray) else x for x in args])
            assert np.array_equal(got[2], want[2]) and np.array_equal(got[3], want[3])


def test_static_dropin_runs_the_loops_at_other_sizes(tmp_path):
    """--shapes static fixes the sizes: they are recorded, and the drop-in compares its
    size arguments with them, running the original loops (kept as @NAME_loops) where
    they differ."""
    from synth.execution import run_function

    text = _raise(tmp_path, "jacobi-1d", "linalg", "--shapes", "static", "--verify", "test")
    assert "tensor<2000xf64>" in _signature(text, "kernel_jacobi_1d_raised")
    assert "@kernel_jacobi_1d_loops" in text and "scf.if" in text
    assert "the drop-in runs the original loops (@kernel_jacobi_1d_loops) for other values" in text
    original = (ROOT / "benchmarks/polybench/jacobi-1d.mlir").read_text()
    rng = np.random.default_rng(3)
    for steps in (3, 500):
        a, b = rng.uniform(-1, 1, 2000), rng.uniform(-1, 1, 2000)
        args = [("i32", steps), ("i32", 2000), a, b]
        want = run_function(original, "kernel_jacobi_1d", [x.copy() if isinstance(x, np.ndarray) else x
                                                         for x in args], opt_level=2).outputs
        got = _dropin(text, "kernel_jacobi_1d", [x.copy() if isinstance(x, np.ndarray) else x for x in args])
        np.testing.assert_allclose(got[2], want[2], rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(got[3], want[3], rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_a_repeat_count_is_taken_at_run_time(tmp_path, target):
    """A loop count that bounds no array (`reps`) is a run-time value of the raise: the
    repeated in-place update stays a loop of the target, its count the argument."""
    kernel = GENERIC / "scale_reps.mlir"
    text = _raise(tmp_path, str(kernel), target)
    assert "synth.validation" in text
    rng = np.random.default_rng(4)
    for reps, n in ((3, 10), (7, 4), (0, 5)):
        a, s = rng.uniform(-1, 1, n), 0.75
        got = _run_raised_at(text, "scale_reps_raised", target,
                             [np.asarray(n), np.asarray(reps), a.copy(), np.asarray(s)])[0]
        np.testing.assert_allclose(got, a * s ** reps, rtol=1e-14)


# --- synth verify on generic text --------------------------------------------------------------


@pytest.mark.parametrize("name,verdict", [("diff.ok.generic.stablehlo.mlir", "equivalent"),
                                          ("diff.farrows.generic.stablehlo.mlir", "not equivalent")])
def test_verify_reads_a_generic_raise(name, verdict):
    from synth.validation.verify import verify

    report = verify(MUTANTS / "diff.mlir", GENERIC / name, level="all", test_first=False)
    assert report.verdict == verdict, report.summary()
    if verdict == "equivalent":  # the proof read the generic text itself: its sizes are its SSA values
        assert report.level == "all"
    else:  # wrong only from n = 5 on: the proof finds it where testing was skipped
        assert report.counterexample is not None and min(report.counterexample.sizes.values()) >= 5


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_sizes_read_with_memref_dim(tmp_path, target):
    """A kernel that reads its sizes with memref.dim of a dynamic argument raises generic
    (the dims are run-time values; a static raise cannot tell them, exit 2), proven for
    every size; its drop-in serves any shape (linalg: run at 7 x 5 and 3 x 9)."""
    from synth.cli import main
    from synth.execution import DROPIN_PIPELINE, run_function

    kernel = GENERIC / "matvec_dims.mlir"
    text = _raise(tmp_path, str(kernel), target)
    assert 'synth.validation = "all"' in text and "tensor<?x?xf64>" in text
    assert main(["raise", str(kernel), "--target", target, "--shapes", "static", "-q",
                 "-o", str(tmp_path / "static.mlir")]) == 2
    if target == "linalg":
        rng = np.random.default_rng(5)
        for m, n in ((7, 5), (3, 9)):
            a, x = rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, n)
            out = run_function(text, "matvec", [a, x, np.zeros(m)], pipeline=DROPIN_PIPELINE).outputs
            np.testing.assert_allclose(out[2], a @ x, rtol=1e-13)


def test_durbin_generic_linalg_runs_through_the_reference_lowering(tmp_path):
    """durbin raised generic to linalg: its loop yields buffers it may have allocated, so
    the ownership-based deallocation keeps flags in memrefs of i1, whose stores MLIR 22's
    memref-to-LLVM conversion aborts on; the tensor pipeline that validation runs makes
    them bytes first (synth-bools-as-bytes), so the raise validates instead of crashing."""
    text = _raise(tmp_path, "durbin", "linalg", "--shapes", "generic", "--verify", "test")
    assert "tensor<?xf64>" in _signature(text, "kernel_durbin_raised")


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_nothing_observable_is_the_empty_program(tmp_path, target):
    """A function whose loops only compute a local it neither returns nor stores raises
    to the empty program (it was an unparsable module, exit 2 at synth's own text), and
    says so."""
    text = _raise(tmp_path, str(GENERIC / "local_only.mlir"), target)
    assert "synth.outputs = []" in text and "nothing observable" in text


def test_stand_in_sizes_respect_a_loop_step():
    """A loop unrolled by hand (step 5, accesses i .. i + 4) runs whole steps only where
    its span is a multiple of 5: the sizes synth picks (stand-ins, tests, proofs) keep it
    so, where they ran past the arrays (exit 2, 'index out of bounds', blamed on the
    input)."""
    from synth.analysis.model import load_kernel
    from synth.frontend.reader import load_source

    k = load_kernel(load_source(GENERIC / "unrolled_copy.mlir", warn=False), "unrolled")
    k.sizes.with_test_values()
    assert [step for _, step, _ in k.sizes.congruences] == [5]
    for values in (k.sizes.standin(), k.sizes.small_values(2), k.sizes.small_values(3, 2)):
        assert values["arg0"] % 5 == 0 and k.sizes.valid(values)


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["jacobi-2d", "heat-3d", "fdtd-2d"])
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_time_step_counts_are_arguments(tmp_path, kernel, target):
    """The stencils' step counts are run-time values of their generic raises: at 3 steps
    (PolyBench's LARGE has 500 or 1000) and at sizes other than LARGE's, @NAME_raised
    gives the original's result (fdtd-2d's rotated input too)."""
    from synth.analysis.model import load_kernel
    from synth.execution import run_function
    from synth.frontend.reader import load_source
    from synth.synthesis.spec import random_draw

    text = _raise(tmp_path, kernel, target, "--verify", "test")
    name = "kernel_" + kernel.replace("-", "_")
    k = load_kernel(load_source(ROOT / "benchmarks" / "polybench" / f"{kernel}.mlir", warn=False), name)
    values = k.sizes.small_values(6, 3)
    (steps,) = k.sizes.time_trips[0].symbols  # the time loop's trip count
    values[steps] = 3
    assert k.sizes.valid(values)
    args = k.arguments(values, random_draw(np.random.default_rng(9)))
    want = run_function(k.at(values).text, name, [a.copy() if isinstance(a, np.ndarray) else a for a in args],
                        opt_level=2).outputs
    inputs = [a if isinstance(a, np.ndarray) else np.asarray(a[1], dtype=k.tensor_type(i, values).numpy_dtype)
              for i, a in enumerate(args[: k.n_arguments])]
    got = _run_raised_at(text, f"{name}_raised", target, inputs)
    for r, o in enumerate(k.outputs):
        np.testing.assert_allclose(got[r], want[o], rtol=1e-12, atol=1e-12)


def test_the_proof_reads_a_generic_raise_s_sizes_from_its_ssa_values():
    """The all-size proof of a generic raise reads the generic text itself: an argument's
    `?` dims are the original's sizes, get_dimension_size and the arithmetic on it are
    terms, and a dynamic op's result dims are what it computes: here a slice that drops
    the last row has n - 1 rows, from get_dimension_size less 1 (no integer of the text is
    read as a size), and its element (i, j) is the input's."""
    import z3

    from synth.semantics.raised import load_raised
    from synth.semantics.raised_parametric import Tensor, evaluate

    text = """
func.func @f_raised(%a: tensor<?x?xf64>) -> tensor<?x?xf64> attributes {synth.outputs = [0]} {
  %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
  %m = stablehlo.get_dimension_size %a, dim = 1 : (tensor<?x?xf64>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %m64 = stablehlo.convert %m : (tensor<i32>) -> tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %last = stablehlo.subtract %n64, %one : tensor<i64>
  %l1 = stablehlo.reshape %last : (tensor<i64>) -> tensor<1xi64>
  %m1 = stablehlo.reshape %m64 : (tensor<i64>) -> tensor<1xi64>
  %limit = stablehlo.concatenate %l1, %m1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %zero = stablehlo.constant dense<0> : tensor<2xi64>
  %ones = stablehlo.constant dense<1> : tensor<2xi64>
  %s = stablehlo.real_dynamic_slice %a, %zero, %limit, %ones : (tensor<?x?xf64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf64>
  return %s : tensor<?x?xf64>
}
"""
    raised = load_raised("<generic>", "f_raised", text)
    n, m = z3.Int("n"), z3.Int("m")
    a = z3.Function("A", z3.IntSort(), z3.IntSort(), z3.RealSort())
    (result,), obligations = evaluate(raised, {"n": 1000, "m": 1100}, [Tensor((n, m), "f64", lambda idx: a(*idx))])
    shape, x, term = result
    solver = z3.Solver()
    solver.add(z3.Or(shape[0] != n - 1, shape[1] != m, term != a(x[0], x[1])))
    assert solver.check() == z3.unsat


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_a_constant_step_count_stays_a_constant_of_a_generic_raise(tmp_path, target):
    """Polygeist's jacobi-1d has static arrays and 500 steps as a constant: raised
    --shapes generic, the arrays' extent is read at run time and the 500 steps stay a
    constant (validation holds them at 500 where it varies the extent); at n = 37 the
    raise gives the original's result at n = 37."""
    path = ROOT / "benchmarks/polybench-polygeist/jacobi-1d.mlir"
    text = _raise(tmp_path, str(path), target, "--shapes", "generic")
    assert "tensor<?xf64>" in _signature(text, "kernel_jacobi_1d_raised")
    n = 37
    rng = np.random.default_rng(4)
    a, b = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    want_a, want_b = a.copy(), b.copy()
    for _ in range(500):  # the original's loops, at n (NumPy, in the original's order)
        for i in range(1, n - 1):
            want_b[i] = 0.33333 * (want_a[i - 1] + want_a[i] + want_a[i + 1])
        for i in range(1, n - 1):
            want_a[i] = 0.33333 * (want_b[i - 1] + want_b[i] + want_b[i + 1])
    got = _run_raised_at(text, "kernel_jacobi_1d_raised", target,
                         [np.asarray(500, np.int32), np.asarray(n, np.int32), a.copy(), b.copy()])
    np.testing.assert_allclose(got[0], want_a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[1], want_b, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["polybench", "polybench-polygeist", "polybench-c", "loops"])
def test_generic_raises_of_a_corpus_match_the_original_at_other_sizes(tmp_path, corpus):
    """Every kernel of the corpus raised --shapes generic to both targets and run at three
    size configurations other than its own against the original resized
    (scripts/generic_sizes.py, which exits 1 on any difference); 20 min to 2 h each."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "generic_sizes.py"),
                           str(ROOT / "benchmarks" / corpus), "--json", str(tmp_path / "rows.json")],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_a_generic_raise_that_falls_back_to_static_sizes_says_so(tmp_path, capsys):
    """half_copy reads x[2 * i] over half of x: a strided view whose extent is
    n floordiv 2, whose end stablehlo's real_dynamic_slice cannot take as a linear size
    expression. Asked for --shapes generic, the raise is made at the kernel's own sizes,
    and the message and synth.assumptions say so (not a silent static raise)."""
    from synth.cli import main

    out = tmp_path / "half.mlir"
    assert main(["raise", str(GENERIC / "half_copy.mlir"), "--target", "stablehlo",
                 "--shapes", "generic", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    why = "a strided box whose extent is a floordiv of sizes known at run time"
    assert f"at the kernel's own sizes, not for every size: {why}" in err
    text = out.read_text()
    assert f"shapes static: {why}" in text
    assert "tensor<?" not in text


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_a_strided_view_raises_for_every_size(tmp_path, target):
    """darknet_copy reads x[2 * i] (a view with stride 2): raised --shapes generic, its
    box is computed from the arguments, and at other sizes it copies every other element."""
    text = _raise(tmp_path, str(ROOT / "benchmarks" / "loops" / "darknet_copy.mlir"), target, "--shapes", "generic")
    assert "?" in _signature(text, "darknet_copy_raised")
    rng = np.random.default_rng(3)
    for n in (1, 7):
        x, y = rng.standard_normal(2 * n), rng.standard_normal(n)
        (got,) = _run_raised_at(text, "darknet_copy_raised", target, [x, y])
        np.testing.assert_allclose(got, x[::2])
