"""Counted stablehlo.while loops become scf.for (synth.backends.stablehlo_whiles, run by
stablehlo_linalg.to_linalg): a condition `k <= b`, `k >= b` or `k < b` written either way
round, b computed from tensor dims outside the while or inside its condition region, or a
carried value the body keeps; a start computed from dims; steps of 1, -2 and 3; the final
count read after the loop. One shape-generic function holding four such loops is run on
XLA (the same text at static shapes) and compiled through synth cc's tiled lowering at
two shapes, against NumPy's loops. A while whose counter is not stepped by a constant stays
an error naming its line."""

import shutil

import numpy as np
import pytest

from synth.driver.check import differs, run_object
from synth.driver.native import RUNTIME_C, compile_module

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a system C compiler")

# x: prefix sums, k from 1 while k <= n - 1 (the bound computed outside);
# y: y[k] += y[k + 1] / 2 for k = n - 2, n - 4, ... while -1 < k (counting down by 2);
# z: z[k] *= 2 for k = n / 4, n / 4 + 3, ... while k < n (n carried, unchanged), then z[0] =
#    the final k;
# w: w[m - 1] = the sum of w[0 .. m - 3], k from 0 while k < m - 2 (m - 2 computed in the
#    condition region)
RAISED = """
  func.func @k_raised(%x0: tensor<Nxf64>, %y0: tensor<Nxf64>, %z0: tensor<Nxf64>, %w0: tensor<Mxf64>)
      -> (tensor<Nxf64>, tensor<Nxf64>, tensor<Nxf64>, tensor<Mxf64>) {
    %n32 = stablehlo.get_dimension_size %x0, dim = 0 : (tensor<Nxf64>) -> tensor<i32>
    %n = stablehlo.convert %n32 : (tensor<i32>) -> tensor<i64>
    %m32 = stablehlo.get_dimension_size %w0, dim = 0 : (tensor<Mxf64>) -> tensor<i32>
    %m = stablehlo.convert %m32 : (tensor<i32>) -> tensor<i64>
    %c0 = stablehlo.constant dense<0> : tensor<i64>
    %c1 = stablehlo.constant dense<1> : tensor<i64>
    %c2 = stablehlo.constant dense<2> : tensor<i64>
    %c4 = stablehlo.constant dense<4> : tensor<i64>
    %half = stablehlo.constant dense<0.5> : tensor<1xf64>
    %two = stablehlo.constant dense<2.0> : tensor<1xf64>
    %nm1 = stablehlo.subtract %n, %c1 : tensor<i64>
    %a:2 = stablehlo.while(%k = %c1, %x = %x0) : tensor<i64>, tensor<Nxf64>
    cond {
      %p = stablehlo.compare LE, %k, %nm1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %km1 = stablehlo.subtract %k, %c1 : tensor<i64>
      %prev = stablehlo.dynamic_slice %x, %km1, sizes = [1] : (tensor<Nxf64>, tensor<i64>) -> tensor<1xf64>
      %here = stablehlo.dynamic_slice %x, %k, sizes = [1] : (tensor<Nxf64>, tensor<i64>) -> tensor<1xf64>
      %s = stablehlo.add %here, %prev : tensor<1xf64>
      %x1 = stablehlo.dynamic_update_slice %x, %s, %k : (tensor<Nxf64>, tensor<1xf64>, tensor<i64>) -> tensor<Nxf64>
      %k1 = stablehlo.add %k, %c1 : tensor<i64>
      stablehlo.return %k1, %x1 : tensor<i64>, tensor<Nxf64>
    }
    %nm2 = stablehlo.subtract %n, %c2 : tensor<i64>
    %b:2 = stablehlo.while(%k = %nm2, %y = %y0) : tensor<i64>, tensor<Nxf64>
    cond {
      %minus1 = stablehlo.constant dense<-1> : tensor<i64>
      %p = stablehlo.compare LT, %minus1, %k, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %kp1 = stablehlo.add %k, %c1 : tensor<i64>
      %next = stablehlo.dynamic_slice %y, %kp1, sizes = [1] : (tensor<Nxf64>, tensor<i64>) -> tensor<1xf64>
      %here = stablehlo.dynamic_slice %y, %k, sizes = [1] : (tensor<Nxf64>, tensor<i64>) -> tensor<1xf64>
      %h = stablehlo.multiply %next, %half : tensor<1xf64>
      %s = stablehlo.add %here, %h : tensor<1xf64>
      %y1 = stablehlo.dynamic_update_slice %y, %s, %k : (tensor<Nxf64>, tensor<1xf64>, tensor<i64>) -> tensor<Nxf64>
      %k1 = stablehlo.subtract %k, %c2 : tensor<i64>
      stablehlo.return %k1, %y1 : tensor<i64>, tensor<Nxf64>
    }
    %start = stablehlo.divide %n, %c4 : tensor<i64>
    %c:3 = stablehlo.while(%k = %start, %bound = %n, %z = %z0) : tensor<i64>, tensor<i64>, tensor<Nxf64>
    cond {
      %p = stablehlo.compare LT, %k, %bound : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %here = stablehlo.dynamic_slice %z, %k, sizes = [1] : (tensor<Nxf64>, tensor<i64>) -> tensor<1xf64>
      %d = stablehlo.multiply %here, %two : tensor<1xf64>
      %z1 = stablehlo.dynamic_update_slice %z, %d, %k : (tensor<Nxf64>, tensor<1xf64>, tensor<i64>) -> tensor<Nxf64>
      %three = stablehlo.constant dense<3> : tensor<i64>
      %k1 = stablehlo.add %three, %k : tensor<i64>
      stablehlo.return %k1, %bound, %z1 : tensor<i64>, tensor<i64>, tensor<Nxf64>
    }
    %last = stablehlo.convert %c#0 : (tensor<i64>) -> tensor<f64>
    %last1 = stablehlo.reshape %last : (tensor<f64>) -> tensor<1xf64>
    %z2 = stablehlo.dynamic_update_slice %c#2, %last1, %c0
      : (tensor<Nxf64>, tensor<1xf64>, tensor<i64>) -> tensor<Nxf64>
    %zero = stablehlo.constant dense<0.0> : tensor<1xf64>
    %d:2 = stablehlo.while(%k = %c0, %s = %zero) : tensor<i64>, tensor<1xf64>
    cond {
      %mm2 = stablehlo.subtract %m, %c2 : tensor<i64>
      %p = stablehlo.compare LT, %k, %mm2 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %here = stablehlo.dynamic_slice %w0, %k, sizes = [1] : (tensor<Mxf64>, tensor<i64>) -> tensor<1xf64>
      %s1 = stablehlo.add %s, %here : tensor<1xf64>
      %k1 = stablehlo.add %k, %c1 : tensor<i64>
      stablehlo.return %k1, %s1 : tensor<i64>, tensor<1xf64>
    }
    %mm1 = stablehlo.subtract %m, %c1 : tensor<i64>
    %w1 = stablehlo.dynamic_update_slice %w0, %d#1, %mm1 : (tensor<Mxf64>, tensor<1xf64>, tensor<i64>) -> tensor<Mxf64>
    return %a#1, %b#1, %z2, %w1 : tensor<Nxf64>, tensor<Nxf64>, tensor<Nxf64>, tensor<Mxf64>
  }
"""

WRAPPER = """
  func.func @k(%x: memref<Nxf64>, %y: memref<Nxf64>, %z: memref<Nxf64>, %w: memref<Mxf64>,
               %xo: memref<Nxf64>, %yo: memref<Nxf64>, %zo: memref<Nxf64>, %wo: memref<Mxf64>) {
    %xv = memref.cast %x : memref<Nxf64> to memref<?xf64>
    %yv = memref.cast %y : memref<Nxf64> to memref<?xf64>
    %zv = memref.cast %z : memref<Nxf64> to memref<?xf64>
    %wv = memref.cast %w : memref<Mxf64> to memref<?xf64>
    %xov = memref.cast %xo : memref<Nxf64> to memref<?xf64>
    %yov = memref.cast %yo : memref<Nxf64> to memref<?xf64>
    %zov = memref.cast %zo : memref<Nxf64> to memref<?xf64>
    %wov = memref.cast %wo : memref<Mxf64> to memref<?xf64>
    %0 = bufferization.to_tensor %xv restrict : memref<?xf64> to tensor<?xf64>
    %1 = bufferization.to_tensor %yv restrict : memref<?xf64> to tensor<?xf64>
    %2 = bufferization.to_tensor %zv restrict : memref<?xf64> to tensor<?xf64>
    %3 = bufferization.to_tensor %wv restrict : memref<?xf64> to tensor<?xf64>
    %r:4 = func.call @k_raised(%0, %1, %2, %3)
      : (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>)
      -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>)
    bufferization.materialize_in_destination %r#0 in restrict writable %xov : (tensor<?xf64>, memref<?xf64>) -> ()
    bufferization.materialize_in_destination %r#1 in restrict writable %yov : (tensor<?xf64>, memref<?xf64>) -> ()
    bufferization.materialize_in_destination %r#2 in restrict writable %zov : (tensor<?xf64>, memref<?xf64>) -> ()
    bufferization.materialize_in_destination %r#3 in restrict writable %wov : (tensor<?xf64>, memref<?xf64>) -> ()
    return
  }
"""


def _sized(text: str, n, m) -> str:
    for name, size in (("N", n), ("M", m)):
        text = text.replace(f"tensor<{name}x", f"tensor<{size}x").replace(f"memref<{name}x", f"memref<{size}x")
    return text


def _loops(x, y, z, w):
    """The four loops in NumPy, as written."""
    x, y, z, w = x.copy(), y.copy(), z.copy(), w.copy()
    n, m = len(x), len(w)
    for k in range(1, n):
        x[k] += x[k - 1]
    for k in range(n - 2, -1, -2):
        y[k] += y[k + 1] * 0.5
    k = n // 4
    while k < n:
        z[k] *= 2.0
        k += 3
    z[0] = k
    s = 0.0
    for k in range(m - 2):
        s += w[k]
    w[m - 1] = s
    return [x, y, z, w]


def test_each_while_becomes_a_for():
    from synth.backends.stablehlo_linalg import to_linalg
    from synth.driver.native import dimension_sizes

    lowered = to_linalg(dimension_sizes("module {" + _sized(RAISED, "?", "?") + "}"))
    assert "stablehlo" not in lowered and "scf.while" not in lowered
    assert lowered.count("scf.for") == 4, lowered
    assert "arith.ceildivsi" in lowered  # z's final count, computed from the bounds


@pytest.mark.parametrize("n,m", [(9, 6), (14, 11)])
def test_counted_whiles_equal_the_loops_and_xla(tmp_path, n, m):
    from synth.backends.xla import run_stablehlo

    rng = np.random.default_rng(n * m)
    args = [rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.uniform(-1, 1, m)]
    want = _loops(*args)
    static = "module {" + _sized(RAISED, n, m).replace("@k_raised", "@main") + "}"
    for got, expected in zip(run_stablehlo(static, args), want):
        assert not differs(expected, got)
    text = "module {" + _sized(RAISED, "?", "?") + _sized(WRAPPER, n, m) + "}"
    obj = tmp_path / "k.o"
    native = compile_module(text, "k", "__t", "stablehlo", obj, None, "tiled")
    assert native["pipeline"] == "tiled"
    shapes = [(n,), (n,), (n,), (m,)] * 2
    meta = [{"kind": "memref", "element": "f64", "shape": list(s), "c_shape": None} for s in shapes]
    arrays, _ = run_object(obj, native["entry"], meta, [], args + [np.zeros(s) for s in shapes[4:]], RUNTIME_C)
    for got, expected in zip(arrays[4:], want):
        assert not differs(expected, got)
    assert all(np.array_equal(a, b) for a, b in zip(arrays[:4], args))  # the inputs as they were


def test_a_while_not_stepped_by_a_constant_is_named():
    """A counter doubled each step, and a bound the body changes, are no counted loops."""
    from synth.backends.stablehlo_linalg import to_linalg
    from synth.driver.native import dimension_sizes
    from synth.errors import ExecutionError

    text = dimension_sizes("module {" + _sized(RAISED, "?", "?") + "}")
    doubled = text.replace("%k1 = stablehlo.add %k, %c1 : tensor<i64>\n      stablehlo.return %k1, %x1",
                           "%k1 = stablehlo.multiply %k, %c2 : tensor<i64>\n      stablehlo.return %k1, %x1")
    assert doubled != text
    with pytest.raises(ExecutionError, match=r"line \d+:\d+: a stablehlo.while that is not a counted loop"):
        to_linalg(doubled)
    moved = text.replace("stablehlo.return %k1, %bound, %z1", "stablehlo.return %k1, %k, %z1")
    assert moved != text
    with pytest.raises(ExecutionError, match="not a counted loop"):
        to_linalg(moved)
