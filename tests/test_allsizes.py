"""The all-size proof (synth verify --level all): the canonical form of sums, the
original summarised at symbolic sizes, and where it stops (recurrences fall back to the
bounded proof with the reason). The mutants wrong only at sizes >= 5 are in
test_verify.py."""

import time

import z3
import pytest

from conftest import DATA, POLYBENCH
from synth.analysis.model import load_kernel
from synth.frontend.reader import load_source
from synth.semantics.affine_parametric import ParametricOriginal
from synth.semantics.parametric import NotParametric, empty_sum_facts, fresh_index, make_sum, query_ms
from synth.semantics.canonical import canonical

i, j, n = z3.Ints("i j n")
A = z3.Function("A", z3.IntSort(), z3.IntSort(), z3.RealSort())
B = z3.Function("B", z3.IntSort(), z3.IntSort(), z3.RealSort())
alpha, beta = z3.Reals("alpha beta")


def _equal(a, b, *context) -> bool:
    a, b = canonical(a), canonical(b)
    s = z3.Solver()
    s.add(empty_sum_facts([a, b]) + list(context) + [a != b])
    return s.check() == z3.unsat


def _sum(lo, hi, body):
    k = fresh_index()
    return make_sum(lo, hi, k, body(k))


def test_constants_move_out_of_sums_and_sums_split():
    gemm = beta * A(i, j) + _sum(0, n, lambda k: alpha * A(i, k) * B(k, j))
    other = _sum(0, n, lambda k: B(k, j) * (alpha * A(i, k))) + A(i, j) * beta
    assert _equal(gemm, other)
    split = _sum(0, n, lambda k: A(i, k) + B(k, j))
    assert _equal(split, _sum(0, n, lambda k: A(i, k)) + _sum(0, n, lambda k: B(k, j)))
    assert not _equal(gemm, other + 1)


def test_masks_become_bounds():
    """A triangular loop (k from i + 1) equals a masked full sum (k > i), not k >= i."""
    ctx = (i >= 0, i < n)
    tri = _sum(i + 1, n, lambda k: A(k, i) * B(k, j))
    assert _equal(tri, _sum(0, n, lambda k: z3.If(k > i, A(k, i), 0) * B(k, j)), *ctx)
    assert not _equal(tri, _sum(0, n, lambda k: z3.If(k >= i, A(k, i), 0) * B(k, j)), *ctx)


def test_a_point_guard_picks_one_term():
    assert _equal(A(i, j), _sum(0, n, lambda k: z3.If(k == j, A(i, k), 0)), j >= 0, j < n)
    assert not _equal(A(i, j), _sum(0, n, lambda k: z3.If(k == j, A(i, k), 0)), j >= 0)  # j may be >= n


def test_sums_over_a_box_commute():
    """Two sums over a box in either order are one term (fubini); the triangle below the
    diagonal summed row-first and its mirror are not, nor is the box with its ranges
    swapped. The fuzzer's mutant that reduced a 32x32x24 box in another order sent z3
    into an unbounded search before (tests/data/fuzz/verify_hang_2511_11)."""
    m = z3.Int("m")
    ij = _sum(0, n, lambda a: _sum(0, m, lambda b: A(a, b)))
    assert canonical(ij).eq(canonical(_sum(0, m, lambda b: _sum(0, n, lambda a: A(a, b)))))
    C = z3.Function("C", z3.IntSort(), z3.IntSort(), z3.IntSort(), z3.RealSort())
    three = _sum(0, n, lambda a: _sum(0, m, lambda b: _sum(0, 3, lambda c: 2 * C(b, a, c))))
    assert canonical(three).eq(canonical(_sum(0, 3, lambda c: _sum(0, n, lambda a: _sum(
        0, m, lambda b: C(b, a, c) * 2)))))
    swapped = _sum(0, m, lambda a: _sum(0, n, lambda b: A(a, b)))
    tri = _sum(0, n, lambda a: _sum(0, a, lambda b: A(a, b)))
    mirror = _sum(0, n, lambda b: _sum(0, b, lambda a: A(a, b)))
    for x, y in ((ij, swapped), (tri, mirror)):
        assert not canonical(x).eq(canonical(y))


@pytest.mark.parametrize("kernel", ["gemm", "2mm", "covariance", "trmm", "syrk", "doitgen"])
def test_polybench_originals_summarise(kernel):
    """Sum reductions, parallel loops, a symmetric store (covariance), triangular loops."""
    k = load_kernel(load_source(POLYBENCH / f"{kernel}.mlir"), f"kernel_{kernel}")
    outputs = ParametricOriginal(k).outputs()
    assert set(outputs) == set(k.outputs)
    for x, term in outputs.values():
        assert len(x) >= 1 and isinstance(term, z3.ExprRef)


def test_gemm_original_is_the_formula():
    k = load_kernel(load_source(POLYBENCH / "gemm.mlir"), "kernel_gemm")
    (x, term), = ParametricOriginal(k).outputs().values()
    C, Am, Bm = (z3.Function(f"arg{a}", z3.IntSort(), z3.IntSort(), z3.RealSort()) for a in (5, 6, 7))
    ni, nj, nk = z3.Ints("arg0 arg1 arg2")
    want = z3.Real("arg4") * C(*x) + z3.Real("arg3") * _sum(0, nk, lambda k: Am(x[0], k) * Bm(k, x[1]))
    inside = [0 <= x[0], x[0] < ni, 0 <= x[1], x[1] < nj, ni >= 1, nj >= 1, nk >= 1]
    assert _equal(term, want, *inside)
    assert not _equal(term, want + C(*x), *inside)



def test_each_query_is_bounded_by_the_levels_deadline():
    """query_ms: the query's cap without a deadline or far from it, what is left of the
    deadline near it, and NotParametric (the level gives up) once it has passed."""
    now = time.monotonic()
    assert query_ms(None, 2000) == 2000
    assert query_ms(now + 3600, 2000) == 2000
    assert 1 <= query_ms(now + 0.5, 2000) <= 500
    assert 1 <= query_ms(now + 0.5) <= 500
    with pytest.raises(NotParametric, match="not done in the level's time"):
        query_ms(now - 1, 2000)


@pytest.mark.parametrize("kernel", ["gemm", "covariance"])
def test_the_summary_of_the_original_stops_at_the_levels_deadline(kernel):
    """The original's summary asks z3 (earlier writes, guards decided, pinned iterations):
    with the level's deadline passed it gives up instead of spending its per-query caps."""
    k = load_kernel(load_source(POLYBENCH / f"{kernel}.mlir"), f"kernel_{kernel}")
    with pytest.raises(NotParametric, match="not done in the level's time"):
        ParametricOriginal(k, deadline=time.monotonic() - 1)

@pytest.mark.parametrize("kernel", ["trisolv", "cholesky", "jacobi-1d"])
def test_recurrences_are_not_summarised(kernel):
    name = "kernel_" + kernel.replace("-", "_")
    k = load_kernel(load_source(POLYBENCH / f"{kernel}.mlir"), name)
    with pytest.raises(NotParametric, match=r"the loop at .*mlir:\d+:\d+ .*"):
        ParametricOriginal(k)


def test_gauss_seidel_sweep_is_a_recurrence():
    path = DATA / "gauss_seidel_1d.mlir"
    source = load_source(path)
    name = next(line.split("@")[1].split("(")[0] for line in source.text.splitlines() if "func.func @" in line)
    with pytest.raises(NotParametric):
        ParametricOriginal(load_kernel(source, name))


SPLIT4 = """
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg2: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> tensor<1500x1500xf64> attributes {synth.outputs = [3]} {
  %0 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  %1 = stablehlo.subtract %arg1, %0 : tensor<1500x1500xf64>
  %2 = stablehlo.slice %1 [0:4, 0:1500] : (tensor<1500x1500xf64>) -> tensor<4x1500xf64>
  %3 = stablehlo.slice %1 [4:1500, 0:1500] : (tensor<1500x1500xf64>) -> tensor<1496x1500xf64>
  %4 = stablehlo.concatenate %2, %3, dim = 0 : (tensor<4x1500xf64>, tensor<1496x1500xf64>) -> tensor<1500x1500xf64>
  return %4 : tensor<1500x1500xf64>
}
"""


def test_a_family_that_is_ill_typed_at_small_sizes_is_not_proven(tmp_path):
    """Rows 0:4 and 4:n joined: right wherever it type-checks, but a slice of 4 rows of
    an n-row matrix does not for n < 4, inside the domain (n >= 1): no all-size claim."""
    from synth.semantics.raised import load_raised
    from synth.validation.allsizes import prove_all_sizes
    from synth.validation.contract import check_contract

    k = load_kernel(load_source(DATA / "mutants" / "diff.mlir"), "kernel_diff")
    path = tmp_path / "split4.mlir"
    path.write_text(SPLIT4)
    raised = load_raised(str(path), "kernel_diff_raised", SPLIT4)
    result = prove_all_sizes(k, raised, check_contract(k, raised, raised.signature()), 60)
    assert result.verdict == "not applicable" and "not well-typed at every size (slice" in result.message


def test_the_level_ends_within_the_callers_timeout(tmp_path):
    """prove_all_sizes' `timeout` (the caller's --z3-timeout) bounds every query: with
    none left, the level gives up (the bounded proof decides) instead of asking z3."""
    from synth.semantics.raised import load_raised
    from synth.validation.allsizes import prove_all_sizes
    from synth.validation.contract import check_contract

    k = load_kernel(load_source(DATA / "mutants" / "diff.mlir"), "kernel_diff")
    path = tmp_path / "split4.mlir"
    path.write_text(SPLIT4)
    raised = load_raised(str(path), "kernel_diff_raised", SPLIT4)
    result = prove_all_sizes(k, raised, check_contract(k, raised, raised.signature()), 1e-9)
    assert result.verdict == "not applicable" and result.message == "the proof is not done in the level's time"


def test_a_guard_on_integer_data_is_no_sum_bound():
    """k == F(k) with F an integer input: not a point of the sum (its solution holds k)."""
    F = z3.Function("F", z3.IntSort(), z3.IntSort())
    a = z3.Function("a", z3.IntSort(), z3.RealSort())
    fixed_points = _sum(0, n, lambda k: z3.If(k == F(k), a(k), 0))
    c = z3.Int("sum!0")
    assert not _equal(fixed_points, z3.If(z3.And(F(c) >= 0, F(c) < n), a(F(c)), 0), n >= 1)
    assert "F(sum!0)" in str(canonical(_sum(0, n, lambda k: z3.If(k < F(k), a(k), 0))))


# wrong raised modules that an early version proved for every size (a review of level
# all found them; tests/data/allsizes/): original, raised, right?
REVIEWED = [
    ("move.mlir", "move.zero.stablehlo.mlir", False),  # a loop read another array's post-loop contents
    ("move.mlir", "move.ok.stablehlo.mlir", True),
    ("acc.mlir", "acc.multi.mlir", False),  # a 2-output generic reduction reading the running other output
    ("rowsum.mlir", "rowsum.diag.linalg.mlir", False),  # an output map (i, i)
    ("row.mlir", "row.slice.linalg.mlir", False),  # a rank-reducing slice keeping a unit dim
    ("../mutants/diff.mlir", "empty2.mlir", False),  # two tensor.empty given one name
    ("../mutants/diff.mlir", "diff.extra.mlir", False),  # returns an array the original never writes
]


@pytest.mark.parametrize("original,raised,right", REVIEWED, ids=[r[1] for r in REVIEWED])
def test_reviewed_cases(original, raised, right):
    from synth.validation.verify import verify

    report = verify(DATA / "allsizes" / original, DATA / "allsizes" / raised, level="all", test_first=False)
    assert report.equivalent == right, report.summary()
    if right:
        assert report.level == "all"
