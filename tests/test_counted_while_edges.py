"""Edge cases of counted whiles (synth.backends.stablehlo_whiles): `<=` stepped by 2,
`>=` counting down by 3 written `2 <= k`, a start already past the bound (zero trips, the
final count read), an i32 counter to a bound computed in the condition region from a
value outside (`k <= 2 * n`, step 5, written `b >= k`). Each loop's trip count and final
counter, run on XLA at static shapes and through synth cc's tiled lowering at every
shape, against Python's loops."""

import shutil

import numpy as np
import pytest

from synth.driver.check import differs, run_object
from synth.driver.native import RUNTIME_C, compile_module

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a system C compiler")

RAISED = """
  func.func @e_raised(%x0: tensor<Nxf64>) -> tensor<8xf64> {
    %n32 = stablehlo.get_dimension_size %x0, dim = 0 : (tensor<Nxf64>) -> tensor<i32>
    %n = stablehlo.convert %n32 : (tensor<i32>) -> tensor<i64>
    %c0 = stablehlo.constant dense<0> : tensor<i64>
    %c1 = stablehlo.constant dense<1> : tensor<i64>
    %c2 = stablehlo.constant dense<2> : tensor<i64>
    %c3 = stablehlo.constant dense<3> : tensor<i64>
    %c5 = stablehlo.constant dense<5> : tensor<i64>
    %one = stablehlo.constant dense<1.0> : tensor<f64>
    %zero = stablehlo.constant dense<0.0> : tensor<f64>
    %nm1 = stablehlo.subtract %n, %c1 : tensor<i64>
    %a:2 = stablehlo.while(%k = %c0, %t = %zero) : tensor<i64>, tensor<f64>
    cond {
      %p = stablehlo.compare LE, %k, %nm1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %t1 = stablehlo.add %t, %one : tensor<f64>
      %k1 = stablehlo.add %k, %c2 : tensor<i64>
      stablehlo.return %k1, %t1 : tensor<i64>, tensor<f64>
    }
    %b:2 = stablehlo.while(%k = %n, %t = %zero) : tensor<i64>, tensor<f64>
    cond {
      %p = stablehlo.compare LE, %c2, %k, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %t1 = stablehlo.add %t, %one : tensor<f64>
      %k1 = stablehlo.subtract %k, %c3 : tensor<i64>
      stablehlo.return %k1, %t1 : tensor<i64>, tensor<f64>
    }
    %np5 = stablehlo.add %n, %c5 : tensor<i64>
    %c:2 = stablehlo.while(%k = %np5, %t = %zero) : tensor<i64>, tensor<f64>
    cond {
      %p = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %t1 = stablehlo.add %t, %one : tensor<f64>
      %k1 = stablehlo.add %k, %c1 : tensor<i64>
      stablehlo.return %k1, %t1 : tensor<i64>, tensor<f64>
    }
    %s1 = stablehlo.constant dense<1> : tensor<i32>
    %d:2 = stablehlo.while(%k = %s1, %t = %zero) : tensor<i32>, tensor<f64>
    cond {
      %two32 = stablehlo.constant dense<2> : tensor<i32>
      %bb = stablehlo.multiply %n32, %two32 : tensor<i32>
      %p = stablehlo.compare GE, %bb, %k : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %t1 = stablehlo.add %t, %one : tensor<f64>
      %five = stablehlo.constant dense<5> : tensor<i32>
      %k1 = stablehlo.add %k, %five : tensor<i32>
      stablehlo.return %k1, %t1 : tensor<i32>, tensor<f64>
    }
    %fa = stablehlo.convert %a#0 : (tensor<i64>) -> tensor<f64>
    %fb = stablehlo.convert %b#0 : (tensor<i64>) -> tensor<f64>
    %fc = stablehlo.convert %c#0 : (tensor<i64>) -> tensor<f64>
    %fd = stablehlo.convert %d#0 : (tensor<i32>) -> tensor<f64>
    %v0 = stablehlo.reshape %a#1 : (tensor<f64>) -> tensor<1xf64>
    %v1 = stablehlo.reshape %fa : (tensor<f64>) -> tensor<1xf64>
    %v2 = stablehlo.reshape %b#1 : (tensor<f64>) -> tensor<1xf64>
    %v3 = stablehlo.reshape %fb : (tensor<f64>) -> tensor<1xf64>
    %v4 = stablehlo.reshape %c#1 : (tensor<f64>) -> tensor<1xf64>
    %v5 = stablehlo.reshape %fc : (tensor<f64>) -> tensor<1xf64>
    %v6 = stablehlo.reshape %d#1 : (tensor<f64>) -> tensor<1xf64>
    %v7 = stablehlo.reshape %fd : (tensor<f64>) -> tensor<1xf64>
    %r = stablehlo.concatenate %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, dim = 0
      : (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>,
         tensor<1xf64>, tensor<1xf64>) -> tensor<8xf64>
    return %r : tensor<8xf64>
  }
"""

WRAPPER = """
  func.func @e(%x: memref<Nxf64>, %o: memref<8xf64>) {
    %xv = memref.cast %x : memref<Nxf64> to memref<?xf64>
    %0 = bufferization.to_tensor %xv restrict : memref<?xf64> to tensor<?xf64>
    %r = func.call @e_raised(%0) : (tensor<?xf64>) -> tensor<8xf64>
    bufferization.materialize_in_destination %r in restrict writable %o : (tensor<8xf64>, memref<8xf64>) -> ()
    return
  }
"""


def _sized(text: str, n) -> str:
    return text.replace("tensor<Nx", f"tensor<{n}x").replace("memref<Nx", f"memref<{n}x")


def _loops(n: int) -> np.ndarray:
    out = []
    for start, cond, step in ((0, lambda k: k <= n - 1, 2), (n, lambda k: 2 <= k, -3),
                              (n + 5, lambda k: k < n, 1), (1, lambda k: 2 * n >= k, 5)):
        k, t = start, 0
        while cond(k):
            k, t = k + step, t + 1
        out += [t, k]
    return np.array(out, dtype=np.float64)


@pytest.mark.parametrize("n", [1, 2, 5, 6])
def test_edge_whiles_equal_python_and_xla(tmp_path, n):
    from synth.backends.xla import run_stablehlo

    x = np.arange(n, dtype=np.float64)
    want = _loops(n)
    static = "module {" + _sized(RAISED, n).replace("@e_raised", "@main") + "}"
    (got,) = run_stablehlo(static, [x])
    assert np.array_equal(got, want), (got, want)
    text = "module {" + _sized(RAISED, "?") + _sized(WRAPPER, n) + "}"
    obj = tmp_path / "e.o"
    native = compile_module(text, "e", "__t", "stablehlo", obj, None, "tiled")
    meta = [{"kind": "memref", "element": "f64", "shape": list(s), "c_shape": None} for s in ((n,), (8,))]
    arrays, _ = run_object(obj, native["entry"], meta, [], [x, np.zeros(8)], RUNTIME_C)
    assert np.array_equal(arrays[1], want), (arrays[1], want)


@pytest.mark.parametrize("old,new", [
    ("%k1 = stablehlo.add %k, %c2", "%k1 = stablehlo.subtract %k, %c2"),  # `k <= b` stepped down
    ("%k1 = stablehlo.subtract %k, %c3", "%k1 = stablehlo.add %k, %c3"),  # `k >= 2` stepped up
    ("%k1 = stablehlo.add %k, %c1", "%k1 = stablehlo.add %k, %c0"),  # a step of 0
    ("compare LT, %k, %n", "compare NE, %k, %n"),  # `k != n`: no count
    ("compare LT, %k, %n", "compare LT, %k, %n, UNSIGNED"),
    ("%bb = stablehlo.multiply %n32, %two32", "%bb = stablehlo.multiply %k, %two32"),  # a bound of k
])
def test_a_while_counted_the_wrong_way_is_named(old, new):
    """A counter stepped away from its bound (or not at all), a comparison that is no order
    of signed integers, a bound computed from the counter: no counted loop, an error."""
    from synth.backends.stablehlo_linalg import to_linalg
    from synth.driver.native import dimension_sizes
    from synth.errors import ExecutionError

    text = dimension_sizes("module {" + _sized(RAISED, "?") + "}")
    assert to_linalg(text).count("scf.for") == 4
    changed = text.replace(old, new, 1)
    assert changed != text
    with pytest.raises(ExecutionError, match="not a counted loop"):
        to_linalg(changed)
