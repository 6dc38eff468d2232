"""A stablehlo.gather of one slice (a vector of start indices, no batch dims) lowers as the
dynamic_slice it is (synth.backends.stablehlo_linalg._slice_gathers_as_slices): a
shape-generic raise reads deriche's columns by `dynamic_gather`, a gather of static sizes
once made static. The lowered module slices (tensor.extract_slice), no generic reads
elements by tensor.extract; the values, start indices out of range included (both clamp
them to [0, dim - size]), are NumPy's and XLA's."""

from __future__ import annotations

import numpy as np
import pytest

from synth.backends.mlir_cpu import MlirCpuBackend

GATHERS = """
func.func @f(%a: tensor<4x8xf64>, %rc: tensor<2xi64>, %c: tensor<1xi64>)
    -> (tensor<5xf64>, tensor<4xf64>, tensor<2x3xf64>) attributes {synth.outputs = [0, 1, 2]} {
  %row = "stablehlo.gather"(%a, %rc) <{dimension_numbers = #stablehlo.gather<offset_dims = [0],
      collapsed_slice_dims = [0], start_index_map = [0, 1]>, indices_are_sorted = false, slice_sizes = array<i64: 1, 5>}>
      : (tensor<4x8xf64>, tensor<2xi64>) -> tensor<5xf64>
  %col = "stablehlo.gather"(%a, %c) <{dimension_numbers = #stablehlo.gather<offset_dims = [0],
      collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}>
      : (tensor<4x8xf64>, tensor<1xi64>) -> tensor<4xf64>
  %blk = "stablehlo.gather"(%a, %rc) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1],
      start_index_map = [1, 0]>, indices_are_sorted = false, slice_sizes = array<i64: 2, 3>}>
      : (tensor<4x8xf64>, tensor<2xi64>) -> tensor<2x3xf64>
  return %row, %col, %blk : tensor<5xf64>, tensor<4xf64>, tensor<2x3xf64>
}
"""


def _reference(a, rc, c):
    def clamp(x, n, size):
        return int(min(max(x, 0), n - size))
    r0, r1 = clamp(rc[0], 4, 1), clamp(rc[1], 8, 5)
    row = a[r0, r1:r1 + 5]
    col = a[:, clamp(c[0], 8, 1)]
    b0, b1 = clamp(rc[1], 4, 2), clamp(rc[0], 8, 3)  # start_index_map [1, 0]: rc[0] starts dim 1
    return [row, col, a[b0:b0 + 2, b1:b1 + 3]]


def test_slice_gathers_lowered_as_slices():
    from synth.backends.stablehlo_linalg import to_linalg

    lowered = to_linalg(GATHERS)
    assert "stablehlo" not in lowered and "linalg.index" not in lowered
    assert lowered.count("tensor.extract_slice %arg0[") == 3, lowered


@pytest.mark.parametrize("rc,c", [((2, 1), (5,)), ((3, 7), (0,)), ((-4, 9), (12,)), ((0, -1), (-3,))])
def test_slice_gathers_equal_numpy_and_xla(rc, c):
    from synth.backends.xla import run_stablehlo

    rng = np.random.default_rng(sum(rc) + c[0] + 20)
    a = rng.uniform(-1, 1, (4, 8))
    inputs = [a, np.asarray(rc, dtype=np.int64), np.asarray(c, dtype=np.int64)]
    want = _reference(*inputs)
    prepared = MlirCpuBackend(target="stablehlo").prepare(GATHERS, "f")
    got = prepared.run(inputs)
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    xla = run_stablehlo(GATHERS.replace("@f(", "@main("), inputs)
    for g, x, w in zip(got, xla, want):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(x, w)
