"""The proof for every size on a loop bounded by a min (`j < min(i, m)`, tri_rowsum of
benchmarks/c-libs/bounds.c): a raise wrong only where the cap applies (i >= m, which
needs n > m) is never "proven for every size", whichever order the test sizes put m and
n in (before the size analysis ordered them, m >= n: the cap never applied at the test
sizes and only runs at other shapes caught a raise that ignored it); the correct raise is."""

from __future__ import annotations

from dataclasses import replace

import pytest

from synth.analysis.model import load_kernel
from synth.frontend.reader import load_source
from synth.semantics.raised import load_raised
from synth.validation.allsizes import prove_all_sizes
from synth.validation.contract import check_contract
from synth.validation.verify import _generic_instances

ORIGINAL = """
#map = affine_map<(d0)[s0] -> (d0, s0)>
func.func @tri_rowsum(%n: i32, %m: i32, %A: memref<?x?xf32>, %y: memref<?xf32>) {
  %N = arith.index_cast %n : i32 to index
  %M = arith.index_cast %m : i32 to index
  %s = memref.alloca() : memref<f32>
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to %N {
    affine.store %zero, %s[] : memref<f32>
    affine.for %j = 0 to min #map(%i)[%M] {
      %a = affine.load %s[] : memref<f32>
      %b = affine.load %A[%i, %j] : memref<?x?xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %s[] : memref<f32>
    }
    %r = affine.load %s[] : memref<f32>
    affine.store %r, %y[%i] : memref<?xf32>
  }
  return
}
"""

HEAD = """func.func @tri_rowsum_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<?x?xf32>,
    %arg3: tensor<?xf32>) -> tensor<?xf32> attributes {synth.outputs = [3]} {
  %n = stablehlo.get_dimension_size %arg2, dim = 0 : (tensor<?x?xf32>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %nv = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %m = stablehlo.get_dimension_size %arg2, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %m64 = stablehlo.convert %m : (tensor<i32>) -> tensor<i64>
  %mv = stablehlo.reshape %m64 : (tensor<i64>) -> tensor<1xi64>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
"""

# sum of A[i, j] over j < i (and j < m: the row's width): the raise synth makes
TAIL = """  %ii = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi64>) -> tensor<?x?xf32>
  %jj = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi64>) -> tensor<?x?xf32>
  %below = stablehlo.compare GT, %ii, %jj : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
{KEEP}
  %zeros = stablehlo.dynamic_broadcast_in_dim %zero, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %kept = stablehlo.select %keep, %src, %zeros : tensor<?x?xi1>, tensor<?x?xf32>
  %sum = stablehlo.reduce(%kept init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %sum : tensor<?xf32>
}
"""

CORRECT = HEAD + """  %shape = stablehlo.concatenate %nv, %mv, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %src = stablehlo.add %arg2, %zeros0 : tensor<?x?xf32>
""" + TAIL.replace("{KEEP}", "  %keep = stablehlo.and %below, %below : tensor<?x?xi1>")

# wrong only where the cap applies: j < min(i, m - 1), so column m - 1 is left out of
# the rows i >= m (the same as the original wherever i < m, i.e. at every size m >= n)
OFF_BY_ONE_CAP = HEAD + """  %shape = stablehlo.concatenate %nv, %mv, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %src = stablehlo.add %arg2, %zeros0 : tensor<?x?xf32>
""" + TAIL.replace("{KEEP}", """  %mf = stablehlo.convert %m : (tensor<i32>) -> tensor<f32>
  %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %mm1 = stablehlo.subtract %mf, %one : tensor<f32>
  %mb = stablehlo.dynamic_broadcast_in_dim %mm1, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %capped = stablehlo.compare LT, %jj, %mb : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %keep = stablehlo.and %below, %capped : tensor<?x?xi1>""")

# ignores the cap: the strict lower triangle of A's first n - 1 columns (what a raise
# tested only at m >= n may take; within A only where n - 1 <= m)
IGNORES_CAP = HEAD + """  %one = stablehlo.constant dense<1> : tensor<i64>
  %nm1 = stablehlo.subtract %n64, %one : tensor<i64>
  %nm1v = stablehlo.reshape %nm1 : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %nv, %nm1v, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %lo = stablehlo.constant dense<0> : tensor<2xi64>
  %step = stablehlo.constant dense<1> : tensor<2xi64>
  %src = stablehlo.real_dynamic_slice %arg2, %lo, %shape, %step : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
""" + TAIL.replace("{KEEP}", "  %keep = stablehlo.and %below, %below : tensor<?x?xi1>")


def _with_zeros(text: str) -> str:
    # %zeros0: a zero tensor of A's shape, for `A + 0` (the source the select reads)
    return text.replace("  %src = stablehlo.add %arg2, %zeros0", "  %zeros0 = stablehlo.dynamic_broadcast_in_dim "
                        "%zero, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>\n"
                        "  %src = stablehlo.add %arg2, %zeros0")


def _all_sizes(tmp_path, raised: str, n: int | None = None, m: int | None = None):
    """The proof for every size of `raised` (skipping the tests that would catch a wrong
    raise first), at the size model's test values or at n, m (the other order)."""
    path = tmp_path / "tri.mlir"
    path.write_text(ORIGINAL)
    kernel = load_kernel(load_source(path), "tri_rowsum")
    kernel.sizes.with_test_values()
    if n is not None:
        for name, v in zip(kernel.sizes.params.values(), (n, m)):
            kernel.sizes.symbols[name] = replace(kernel.sizes.symbols[name], value=v)
    static, _ = _generic_instances(kernel, raised)
    contract = check_contract(kernel, load_raised("raised.mlir", "tri_rowsum_raised", static),
                              load_raised("raised.mlir", "tri_rowsum_raised", static).signature())
    return prove_all_sizes(kernel, load_raised("raised.mlir", "tri_rowsum_raised", raised), contract, 20.0)


def test_the_correct_raise_is_proven_for_every_size(tmp_path):
    assert _all_sizes(tmp_path, _with_zeros(CORRECT)).verdict == "proven"


@pytest.mark.parametrize("order", [None, (64, 96)])  # the analysis' m < n, and the old m >= n
def test_a_raise_wrong_where_the_cap_applies_is_not_proven(tmp_path, order):
    out = _all_sizes(tmp_path, _with_zeros(OFF_BY_ONE_CAP), *(order or ()))
    assert out.verdict != "proven", out
    # the sizes handed to the bounded proof include some with n > m, where it differs
    assert any(s["arg0"] > s["arg1"] for s in out.suspect_sizes), out.suspect_sizes


def test_a_raise_that_ignores_the_cap_is_not_proven(tmp_path):
    """Tested only at m >= n (the order before the size analysis' caps), a raise reading
    the first n - 1 columns is right at every test; the proof does not take it for every
    size: its slice leaves A where m < n - 1."""
    out = _all_sizes(tmp_path, IGNORES_CAP, 64, 96)
    assert out.verdict == "not applicable" and "real_dynamic_slice: within its operand" in out.message, out


def test_verify_finds_the_difference(tmp_path):
    from synth.cli import main

    (tmp_path / "tri.mlir").write_text(ORIGINAL)
    (tmp_path / "raised.mlir").write_text(_with_zeros(OFF_BY_ONE_CAP))
    (tmp_path / "ok.mlir").write_text(_with_zeros(CORRECT))
    assert main(["verify", str(tmp_path / "tri.mlir"), str(tmp_path / "raised.mlir")]) == 4
    assert main(["verify", str(tmp_path / "tri.mlir"), str(tmp_path / "ok.mlir")]) == 0



def test_the_proofs_alone_refute_it(tmp_path):
    """Without the tests first: the proof for every size declines, and the bounded proof
    at the sizes it hands on finds the difference (a row i >= m, so n > m)."""
    from synth.frontend.reader import load_source as load
    from synth.validation.verify import verify_text

    path = tmp_path / "tri.mlir"
    path.write_text(ORIGINAL)
    report = verify_text(load(path), _with_zeros(OFF_BY_ONE_CAP), "raised.mlir", test_first=False)
    assert report.verdict == "not equivalent" and report.counterexample.level == "z3", report.summary()
    sizes = report.counterexample.sizes
    assert sizes["arg0"] > sizes["arg1"] and report.counterexample.index[0] >= sizes["arg1"], report.summary()
    assert verify_text(load(path), _with_zeros(CORRECT), "ok.mlir", test_first=False).level == "all"


WINDOW = """
#lb = affine_map<(d0)[s0] -> (d0 - s0, 0)>
#ub = affine_map<(d0) -> (d0 + 1)>
func.func @win(%n: i32, %k: i32, %x: memref<?xf32>, %y: memref<?xf32>) {
  %N = arith.index_cast %n : i32 to index
  %K = arith.index_cast %k : i32 to index
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to %N {
    affine.store %zero, %y[%i] : memref<?xf32>
    affine.for %j = max #lb(%i)[%K] to #ub(%i) {
      %a = affine.load %y[%i] : memref<?xf32>
      %b = affine.load %x[%j] : memref<?xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %y[%i] : memref<?xf32>
    }
  }
  return
}
"""

# y[i] = x[max(i - k, 0)] + ... + x[i]: the mask i - k <= j <= i over an n x n broadcast
WINDOW_RAISED = """func.func @win_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<?xf32>,
    %arg3: tensor<?xf32>) -> tensor<?xf32> attributes {synth.outputs = [3]} {
  %n = stablehlo.get_dimension_size %arg2, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %nv = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %nv, %nv, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %ii = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi64>) -> tensor<?x?xf32>
  %jj = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi64>) -> tensor<?x?xf32>
  %kf = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
  %kb = stablehlo.dynamic_broadcast_in_dim %kf, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %lo = stablehlo.subtract %ii, %kb : tensor<?x?xf32>
  %c1 = stablehlo.compare GE, %jj, %lo : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %c2 = stablehlo.compare LE, %jj, %ii : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %keep = stablehlo.and %c1, %c2 : tensor<?x?xi1>
  %xb = stablehlo.dynamic_broadcast_in_dim %arg2, %shape, dims = [1] : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %zeros = stablehlo.dynamic_broadcast_in_dim %zero, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %kept = stablehlo.select %keep, %xb, %zeros : tensor<?x?xi1>, tensor<?x?xf32>
  %sum = stablehlo.reduce(%kept init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %sum : tensor<?xf32>
}
"""

# wrong only where the max takes 0 (rows i <= k): x[0] is left out there (j >= 1)
WINDOW_WRONG = WINDOW_RAISED.replace("  %keep = stablehlo.and %c1, %c2 : tensor<?x?xi1>\n", """\
  %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %ones = stablehlo.dynamic_broadcast_in_dim %one, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %c3 = stablehlo.compare GE, %jj, %ones : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %keep0 = stablehlo.and %c1, %c2 : tensor<?x?xi1>
  %keep = stablehlo.and %keep0, %c3 : tensor<?x?xi1>
""")


def test_a_max_lower_bound_the_same_way(tmp_path):
    """`j` from max(i - k, 0): the correct raise is proven for every size; one wrong only
    where the max takes 0 is not (the bounded proof gets sizes with i <= k), and verify
    finds its difference."""
    from synth.cli import main

    path = tmp_path / "win.mlir"
    path.write_text(WINDOW)
    kernel = load_kernel(load_source(path), "win")
    kernel.sizes.with_test_values()

    def prove(text):
        static, _ = _generic_instances(kernel, text)
        contract = check_contract(kernel, load_raised("r.mlir", "win_raised", static),
                                  load_raised("r.mlir", "win_raised", static).signature())
        return prove_all_sizes(kernel, load_raised("r.mlir", "win_raised", text), contract, 20.0)

    assert prove(WINDOW_RAISED).verdict == "proven"
    out = prove(WINDOW_WRONG)
    assert out.verdict != "proven" and out.suspect_sizes, out
    (tmp_path / "wrong.mlir").write_text(WINDOW_WRONG)
    assert main(["verify", str(path), str(tmp_path / "wrong.mlir")]) == 4


# a loop to the min of two run-time sizes (bounds.c's copy_prefix, `j < MIN(k, n)`): the
# normal form runs it to an index argument of its own, which the drop-in computes
PREFIX = """
#min = affine_map<()[s0, s1] -> (s0, s1)>
func.func @prefix(%n: i32, %k: i32, %x: memref<?xf32>, %y: memref<?xf32>) {
  %N = arith.index_cast %n : i32 to index
  %K = arith.index_cast %k : i32 to index
  %two = arith.constant 2.0 : f32
  affine.for %j = 0 to min #min()[%K, %N] {
    %a = affine.load %x[%j] : memref<?xf32>
    %b = arith.mulf %two, %a : f32
    affine.store %b, %y[%j] : memref<?xf32>
  }
  return
}
"""

PREFIX_HEAD = """func.func @prefix_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<?xf32>,
    %arg3: tensor<?xf32>) -> tensor<?xf32> attributes {synth.outputs = [3]} {
  %m = stablehlo.get_dimension_size %arg2, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %m64 = stablehlo.convert %m : (tensor<i32>) -> tensor<i64>
  %mv = stablehlo.reshape %m64 : (tensor<i64>) -> tensor<1xi64>
  %c2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
  %twos = stablehlo.dynamic_broadcast_in_dim %c2, %mv, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %good = stablehlo.multiply %twos, %arg2 : tensor<?xf32>
"""

PREFIX_CORRECT = PREFIX_HEAD + "  return %good : tensor<?xf32>\n}\n"

# right where the min is k (k <= n), 3 * x where it is n (n < k): wrong only where the
# min picks the other side
PREFIX_OTHER_SIDE = PREFIX_HEAD + """  %c3 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
  %threes = stablehlo.dynamic_broadcast_in_dim %c3, %mv, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  %bad = stablehlo.multiply %threes, %arg2 : tensor<?xf32>
  %n_below_k = stablehlo.compare LT, %arg0, %arg1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %which = stablehlo.dynamic_broadcast_in_dim %n_below_k, %mv, dims = [] : (tensor<i1>, tensor<1xi64>) -> tensor<?xi1>
  %out = stablehlo.select %which, %bad, %good : tensor<?xi1>, tensor<?xf32>
  return %out : tensor<?xf32>
}
"""


def test_a_min_of_two_sizes_is_a_size_argument_of_the_normal_form(tmp_path):
    path = tmp_path / "prefix.mlir"
    path.write_text(PREFIX)
    kernel = load_kernel(load_source(path), "prefix")
    (e,) = kernel.interface.extremes
    assert (e.argument, e.kind, e.arguments) == (4, "min", (1, 0))
    m = kernel.sizes.params[4]
    assert kernel.sizes.arg_dims[2] == kernel.sizes.arg_dims[3] and str(kernel.sizes.arg_dims[2][0]) == m
    assert 0 not in kernel.sizes.params and 1 not in kernel.sizes.params
    # the arguments as written give the drop-in the bound: each side the smaller at some size
    sides = set()
    for v in (3, 5, 6, 8):
        params = kernel.sizes.param_values({m: v})
        assert min(params[0], params[1]) == v == params[4]
        sides.add(params[0] < params[1])
    assert sides == {True, False}


@pytest.mark.parametrize("test_first", [True, False])
def test_a_raise_wrong_where_the_min_is_the_other_size_is_refuted(tmp_path, test_first):
    """Validation (the tests, or the proofs alone: k and n symbolic, m = If(k < n, k, n))
    refutes a raise that is right wherever k is the smaller and wrong where n is; the
    correct one is proven for every size."""
    from synth.validation.verify import verify_text

    path = tmp_path / "prefix.mlir"
    path.write_text(PREFIX)
    report = verify_text(load_source(path), PREFIX_OTHER_SIDE, "raised.mlir", test_first=test_first)
    assert report.verdict == "not equivalent", report.summary()
    good = verify_text(load_source(path), PREFIX_CORRECT, "ok.mlir", test_first=test_first)
    assert good.verdict == "equivalent" and good.level == "all", good.summary()


def test_the_proof_for_every_size_reads_the_min_as_either_size(tmp_path):
    path = tmp_path / "prefix.mlir"
    path.write_text(PREFIX)
    kernel = load_kernel(load_source(path), "prefix")
    kernel.sizes.with_test_values()
    raised = lambda text: load_raised("raised.mlir", "prefix_raised", text)  # noqa: E731
    static, _ = _generic_instances(kernel, PREFIX_CORRECT)
    contract = check_contract(kernel, raised(static), raised(static).signature())
    assert prove_all_sizes(kernel, raised(PREFIX_CORRECT), contract, 20.0).verdict == "proven"
    assert prove_all_sizes(kernel, raised(PREFIX_OTHER_SIDE), contract, 20.0).verdict != "proven"
