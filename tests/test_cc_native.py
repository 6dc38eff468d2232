"""synth cc's native code (synth/driver/native.py: mlir-cpu's tiled pipeline on the drop-in
module) on small hand-written drop-ins, called through the C entry point and compared with
NumPy, and the object check's tolerance (synth/driver/check.py). Each case is a bug the
check found at PolyBench LARGE."""

import numpy as np
import pytest

from synth.driver.check import differs, run_object
from synth.driver.native import RUNTIME_C, compile_module

# doitgen's raise and drop-in at R x Q x P = 3 x 2 x 8: A (in-out) = A . C4 for every
# (r, q), sum (out) = A[R-1, Q-1, :] . C4 computed from the original A
DOITGEN = """
module {
  func.func @k_raised(%a: tensor<3x2x8xf64>, %c: tensor<8x8xf64>, %s: tensor<8xf64>) -> (tensor<3x2x8xf64>, tensor<8xf64>) {
    %cst = arith.constant 0.000000e+00 : f64
    %0 = tensor.empty() : tensor<3x2x8xf64>
    %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<3x2x8xf64>) -> tensor<3x2x8xf64>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %c : tensor<3x2x8xf64>, tensor<8x8xf64>) outs(%1 : tensor<3x2x8xf64>) {
    ^bb0(%in: f64, %in_0: f64, %out: f64):
      %8 = arith.mulf %in, %in_0 : f64
      %9 = arith.addf %out, %8 : f64
      linalg.yield %9 : f64
    } -> tensor<3x2x8xf64>
    %3 = tensor.empty() : tensor<8xf64>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (2, 1, d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<3x2x8xf64>) outs(%3 : tensor<8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<8xf64>
    %5 = tensor.empty() : tensor<8xf64>
    %6 = linalg.fill ins(%cst : f64) outs(%5 : tensor<8xf64>) -> tensor<8xf64>
    %7 = linalg.vecmat ins(%4, %c : tensor<8xf64>, tensor<8x8xf64>) outs(%6 : tensor<8xf64>) -> tensor<8xf64>
    return %2, %7 : tensor<3x2x8xf64>, tensor<8xf64>
  }
  func.func @k(%a: memref<3x2x8xf64>, %c: memref<8x8xf64>, %s: memref<8xf64>) {
    %5 = bufferization.to_tensor %a restrict : memref<3x2x8xf64> to tensor<3x2x8xf64>
    %6 = bufferization.to_tensor %c restrict : memref<8x8xf64> to tensor<8x8xf64>
    %7 = bufferization.to_tensor %s restrict : memref<8xf64> to tensor<8xf64>
    %8:2 = func.call @k_raised(%5, %6, %7) : (tensor<3x2x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> (tensor<3x2x8xf64>, tensor<8xf64>)
    bufferization.materialize_in_destination %8#0 in restrict writable %a : (tensor<3x2x8xf64>, memref<3x2x8xf64>) -> ()
    bufferization.materialize_in_destination %8#1 in restrict writable %s : (tensor<8xf64>, memref<8xf64>) -> ()
    return
  }
}
"""


def _memref(shape):
    return {"kind": "memref", "element": "f64", "shape": list(shape), "c_shape": None}


def test_in_out_argument_is_read_before_it_is_written(tmp_path):
    """doitgen: eliminate-empty-tensors computed the new A in A's own buffer while the
    contraction still read A, every element wrong (synth-one-view-per-buffer)."""
    rng = np.random.default_rng(0)
    a, c, s = rng.uniform(-1, 1, (3, 2, 8)), rng.uniform(-1, 1, (8, 8)), np.zeros(8)
    obj = tmp_path / "k.o"
    native = compile_module(DOITGEN, "k", "__t", "linalg", obj, None, "tiled")
    assert native["pipeline"] == "tiled"
    arrays, _ = run_object(obj, native["entry"], [_memref(a.shape), _memref(c.shape), _memref(s.shape)], [],
                           [a, c, s], RUNTIME_C)
    assert not differs(a @ c, arrays[0])
    assert not differs(a[2, 1] @ c, arrays[2])


def test_tolerance_follows_the_rounding_the_kernel_amplifies():
    """durbin's recursion moves y by 2e-7 of its size under rounding alone: the check
    accepts a difference within 10 times that move (check.tolerances), not a larger one."""
    expected = np.linspace(1.0, 2.0, 50)
    rounded = expected * (1 + 2e-7)
    assert differs(expected, rounded)
    assert not differs(expected, rounded, 2.3e-6)
    assert differs(expected, expected * 1.01, 2.3e-6)
