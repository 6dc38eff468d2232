"""The dynamic stablehlo ops of a shape-generic raise (tensor<?x...>) lower to linalg
(synth.backends.stablehlo_dynamic, in stablehlo_linalg.to_linalg): dynamic_broadcast_in_dim,
dynamic_update_slice (starts clamped as stablehlo defines), dynamic_reshape and a
dynamic_gather of one column. The module
runs through synth cc's tiled lowering at two shapes and computes what NumPy and XLA (the
same stablehlo made static) compute."""

import shutil

import numpy as np
import pytest

from synth.driver.check import differs, run_object
from synth.driver.native import RUNTIME_C, compile_module

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a system C compiler")

# c = a + v broadcast along the rows; row 2 set to v (start -7 clamps to 0), then the last
# column set to w (starts 5, 99 clamp to 0, n - 1), then column 1 to a's column 99 (a
# dynamic_gather, 99 clamped to n - 1)
RAISED = """
  func.func @k_raised(%a: tensor<MxNxf64>, %v: tensor<Nxf64>, %w: tensor<Mxf64>) -> tensor<MxNxf64> {
    %m0 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<MxNxf64>) -> tensor<i32>
    %m1 = stablehlo.convert %m0 : (tensor<i32>) -> tensor<i64>
    %m = stablehlo.reshape %m1 : (tensor<i64>) -> tensor<1xi64>
    %n0 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<MxNxf64>) -> tensor<i32>
    %n1 = stablehlo.convert %n0 : (tensor<i32>) -> tensor<i64>
    %n = stablehlo.reshape %n1 : (tensor<i64>) -> tensor<1xi64>
    %one = stablehlo.constant dense<1> : tensor<1xi64>
    %mn = stablehlo.concatenate %m, %n, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %m_1 = stablehlo.concatenate %m, %one, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %one_n = stablehlo.concatenate %one, %n, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %b = stablehlo.dynamic_broadcast_in_dim %v, %mn, dims = [1] : (tensor<Nxf64>, tensor<2xi64>) -> tensor<MxNxf64>
    %c = stablehlo.add %a, %b : tensor<MxNxf64>
    %row = stablehlo.dynamic_reshape %v, %one_n : (tensor<Nxf64>, tensor<2xi64>) -> tensor<1xNxf64>
    %col = stablehlo.dynamic_reshape %w, %m_1 : (tensor<Mxf64>, tensor<2xi64>) -> tensor<Mx1xf64>
    %i2 = stablehlo.constant dense<2> : tensor<i64>
    %i5 = stablehlo.constant dense<5> : tensor<i64>
    %im7 = stablehlo.constant dense<-7> : tensor<i64>
    %i99 = stablehlo.constant dense<99> : tensor<i64>
    %u = stablehlo.dynamic_update_slice %c, %row, %i2, %im7 : (tensor<MxNxf64>, tensor<1xNxf64>, tensor<i64>, tensor<i64>) -> tensor<MxNxf64>
    %r = stablehlo.dynamic_update_slice %u, %col, %i5, %i99 : (tensor<MxNxf64>, tensor<Mx1xf64>, tensor<i64>, tensor<i64>) -> tensor<MxNxf64>
    %c99 = stablehlo.constant dense<99> : tensor<1xi64>
    %m_1_sizes = stablehlo.concatenate %m, %one, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %g = "stablehlo.dynamic_gather"(%a, %c99, %m_1_sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [0],
        collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false}>
        : (tensor<MxNxf64>, tensor<1xi64>, tensor<2xi64>) -> tensor<Mxf64>
    %gc = stablehlo.dynamic_reshape %g, %m_1 : (tensor<Mxf64>, tensor<2xi64>) -> tensor<Mx1xf64>
    %i1 = stablehlo.constant dense<1> : tensor<i64>
    %i0 = stablehlo.constant dense<0> : tensor<i64>
    %r2 = stablehlo.dynamic_update_slice %r, %gc, %i0, %i1 : (tensor<MxNxf64>, tensor<Mx1xf64>, tensor<i64>, tensor<i64>) -> tensor<MxNxf64>
    return %r2 : tensor<MxNxf64>
  }
"""

WRAPPER = """
  func.func @k(%a: memref<MxNxf64>, %v: memref<Nxf64>, %w: memref<Mxf64>, %o: memref<MxNxf64>) {
    %av = memref.cast %a : memref<MxNxf64> to memref<?x?xf64>
    %vv = memref.cast %v : memref<Nxf64> to memref<?xf64>
    %wv = memref.cast %w : memref<Mxf64> to memref<?xf64>
    %ov = memref.cast %o : memref<MxNxf64> to memref<?x?xf64>
    %0 = bufferization.to_tensor %av restrict : memref<?x?xf64> to tensor<?x?xf64>
    %1 = bufferization.to_tensor %vv restrict : memref<?xf64> to tensor<?xf64>
    %2 = bufferization.to_tensor %wv restrict : memref<?xf64> to tensor<?xf64>
    %3 = func.call @k_raised(%0, %1, %2) : (tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>) -> tensor<?x?xf64>
    bufferization.materialize_in_destination %3 in restrict writable %ov : (tensor<?x?xf64>, memref<?x?xf64>) -> ()
    return
  }
"""


def _sized(text, m, n):
    return text.replace("M", str(m)).replace("N", str(n))


def test_dynamic_ops_lowered():
    from synth.backends.stablehlo_linalg import to_linalg
    from synth.driver.native import dimension_sizes

    lowered = to_linalg(dimension_sizes("module {" + _sized(RAISED, "?", "?").replace("?x?x?", "?x?") + "}"))
    assert "stablehlo" not in lowered
    assert lowered.count("tensor.insert_slice") >= 3 and "tensor.reshape" in lowered, lowered
    assert "tensor.extract_slice" in lowered, lowered


@pytest.mark.parametrize("m,n", [(9, 6), (4, 13)])
def test_dynamic_ops_equal_numpy_and_xla(tmp_path, m, n):
    from synth.backends.xla import run_stablehlo

    rng = np.random.default_rng(m * n)
    a, v, w = rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, n), rng.uniform(-1, 1, m)
    want = a + v[None, :]
    want[2, :] = v
    want[:, n - 1] = w
    want[:, 1] = a[:, n - 1]
    static = _sized(RAISED, m, n).replace("@k_raised", "@main")
    (xla,) = run_stablehlo("module {" + static + "}", [a, v, w])
    assert not differs(want, xla)
    text = "module {" + _sized(RAISED, "?", "?").replace("?x?x?", "?x?") + _sized(WRAPPER, m, n) + "}"
    obj = tmp_path / "k.o"
    native = compile_module(text, "k", "__t", "stablehlo", obj, None, "tiled")
    assert native["pipeline"] == "tiled"
    memref = [{"kind": "memref", "element": "f64", "shape": list(s), "c_shape": None}
              for s in [(m, n), (n,), (m,), (m, n)]]
    arrays, _ = run_object(obj, native["entry"], memref, [], [a, v, w, np.zeros((m, n))], RUNTIME_C)
    assert not differs(want, arrays[3])


# durbin's flip as its generic raise writes it: the elements of v at n - 1 - i, a
# dynamic_gather of constant slice sizes at a ?x1 of indices
FLIP = """
  func.func @k_raised(%v: tensor<?xf64>) -> tensor<?xf64> {
    %n0 = stablehlo.get_dimension_size %v, dim = 0 : (tensor<?xf64>) -> tensor<i32>
    %n1 = stablehlo.convert %n0 : (tensor<i32>) -> tensor<i64>
    %n = stablehlo.reshape %n1 : (tensor<i64>) -> tensor<1xi64>
    %one = stablehlo.constant dense<1> : tensor<1xi64>
    %n_1 = stablehlo.concatenate %n, %one, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %io = stablehlo.dynamic_iota %n_1, dim = 0 : (tensor<2xi64>) -> tensor<?x1xi64>
    %c1 = stablehlo.constant dense<1> : tensor<i64>
    %last = stablehlo.subtract %n1, %c1 : tensor<i64>
    %b = stablehlo.dynamic_broadcast_in_dim %last, %n_1, dims = [] : (tensor<i64>, tensor<2xi64>) -> tensor<?x1xi64>
    %idx = stablehlo.subtract %b, %io : tensor<?x1xi64>
    %g = "stablehlo.dynamic_gather"(%v, %idx, %one) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
        start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false}>
        : (tensor<?xf64>, tensor<?x1xi64>, tensor<1xi64>) -> tensor<?xf64>
    return %g : tensor<?xf64>
  }
  func.func @k(%v: memref<Nxf64>, %o: memref<Nxf64>) {
    %vv = memref.cast %v : memref<Nxf64> to memref<?xf64>
    %ov = memref.cast %o : memref<Nxf64> to memref<?xf64>
    %0 = bufferization.to_tensor %vv restrict : memref<?xf64> to tensor<?xf64>
    %1 = func.call @k_raised(%0) : (tensor<?xf64>) -> tensor<?xf64>
    bufferization.materialize_in_destination %1 in restrict writable %ov : (tensor<?xf64>, memref<?xf64>) -> ()
    return
  }
"""


@pytest.mark.parametrize("n", [7, 12])
def test_dynamic_point_gather_flips(tmp_path, n):
    v = np.random.default_rng(n).uniform(-1, 1, n)
    obj = tmp_path / "k.o"
    native = compile_module("module {" + FLIP.replace("N", str(n)) + "}", "k", "__t", "stablehlo", obj, None, "tiled")
    memref = [{"kind": "memref", "element": "f64", "shape": [n], "c_shape": None}] * 2
    arrays, _ = run_object(obj, native["entry"], memref, [], [v, np.zeros(n)], RUNTIME_C)
    assert not differs(v[::-1], arrays[1])
