"""A loop of a shape-generic stablehlo raise on IREE (synth.backends.iree_dynamic): kept
as a `stablehlo.while` unless it holds another while or a matrix product, so that IREE
runs its counter and test on the host (nor carries an array of two or more dynamic dims,
which IREE 3.13 gets wrong kept) (as blocks of branches it reads the test back from
the device every step: 2 to 3 times the static raise's time a step on durbin and
trisolv); a dot of two vectors as a reduce, no packed product in the loop. The rule's
output, IREE's stream program of it (no read back to the host), and its values on IREE
against NumPy at several sizes."""

import subprocess
import sys

import numpy as np
import pytest

from synth.backends import iree_dynamic
from synth.backends.iree import IreeBackend

# y[k] = 0.5 * x . y for k = 0 .. n-1 (n = len(x)): a counter and a dynamic vector
# carried, a dot of two dynamic vectors and an update at the counter in the step
LOOP = """func.func @f_raised(%x: tensor<?xf64>, %y0: tensor<?xf64>) -> tensor<?xf64> attributes {synth.outputs = [1]} {
  %n32 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf64>) -> tensor<i32>
  %n = stablehlo.convert %n32 : (tensor<i32>) -> tensor<i64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%k = %zero, %y = %y0) : tensor<i64>, tensor<?xf64>
  cond {
    %go = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %next = stablehlo.add %k, %one : tensor<i64>
    %s = stablehlo.dot_general %x, %y, contracting_dims = [0] x [0] : (tensor<?xf64>, tensor<?xf64>) -> tensor<f64>
    %half = stablehlo.constant dense<0.5> : tensor<f64>
    %t = stablehlo.multiply %s, %half : tensor<f64>
    %u = stablehlo.reshape %t : (tensor<f64>) -> tensor<1xf64>
    %w = stablehlo.dynamic_update_slice %y, %u, %k : (tensor<?xf64>, tensor<1xf64>, tensor<i64>) -> tensor<?xf64>
    stablehlo.return %next, %w : tensor<i64>, tensor<?xf64>
  }
  return %r#1 : tensor<?xf64>
}"""

# the same loop, its step a matrix product a @ a (iree_packed's call: kept as branches)
PRODUCT_LOOP = """func.func @g_raised(%a0: tensor<?x?xf64>, %n: tensor<i64>) -> tensor<?x?xf64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%k = %zero, %a = %a0) : tensor<i64>, tensor<?x?xf64>
  cond {
    %go = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %next = stablehlo.add %k, %one : tensor<i64>
    %p = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
    stablehlo.return %next, %p : tensor<i64>, tensor<?x?xf64>
  }
  return %r#1 : tensor<?x?xf64>
}"""


# a = a + b, b = b + a, n times, over two r x c arrays (IREE 3.13 runs it as a kept
# while wrong, b getting the new a's values: made branches; right over r x 1 arrays)
ARRAYS_LOOP = """func.func @h_raised(%a0: tensor<?x?xf64>, %b0: tensor<?x?xf64>, %n: tensor<i64>) -> tensor<?x?xf64> attributes {synth.outputs = [0]} {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r:3 = stablehlo.while(%k = %zero, %a = %a0, %b = %b0) : tensor<i64>, tensor<?x?xf64>, tensor<?x?xf64>
  cond {
    %go = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %next = stablehlo.add %k, %one : tensor<i64>
    %w = stablehlo.add %a, %b : tensor<?x?xf64>
    %b2 = stablehlo.add %b, %w : tensor<?x?xf64>
    stablehlo.return %next, %w, %b2 : tensor<i64>, tensor<?x?xf64>, tensor<?x?xf64>
  }
  return %r#1 : tensor<?x?xf64>
}"""


def _reference(x, y):
    y = y.copy()
    for k in range(len(x)):
        y[k] = 0.5 * (x @ y)
    return y


def test_a_loop_without_inner_loops_or_products_stays_a_while():
    text, count = iree_dynamic.lower(LOOP)
    assert count >= 2  # the dot and the update
    assert "stablehlo.while" in text and "cf.cond_br" not in text  # kept: its test on the host
    assert "stablehlo.dot_general" not in text and "stablehlo.reduce" in text  # the dot of vectors
    assert iree_dynamic.BRANCHES not in text
    product, _ = iree_dynamic.lower(PRODUCT_LOOP)
    assert "cf.cond_br" in product and "stablehlo.while" not in product  # a call to come: branches
    arrays, _ = iree_dynamic.lower(ARRAYS_LOOP)
    assert "cf.cond_br" in arrays and "stablehlo.while" not in arrays  # arrays carried: branches


def test_iree_keeps_the_loop_test_on_the_host():
    """IREE's stream program of the lowered loop reads nothing back from the device
    (`stream.resource.load`: the loop's test, the update's start, each step, where the
    loop is blocks of branches)."""
    backend = IreeBackend("stablehlo")
    if not backend.available():
        pytest.skip("IREE is not installed")
    text, _ = iree_dynamic.lower(LOOP)
    proc = subprocess.run([sys.executable, "-m", "iree.compiler.tools.scripts.iree_compile", "-",
                           "--compile-to=stream", *backend.flags()],
                          input=text, capture_output=True, text=True, check=True)
    assert "stream.cmd.dispatch" in proc.stdout
    assert "stream.resource.load" not in proc.stdout


def test_a_kept_loop_on_iree_computes_what_it_means(tmp_path):
    backend = IreeBackend("stablehlo", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    prepared = backend.prepare(LOOP, "f")
    assert prepared.pipeline_name.startswith("dynamic")  # compiled once, as it is
    rng = np.random.default_rng(11)
    for n in (1, 2, 7, 13, 64):
        x, y = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
        got = prepared.run([x, y.copy()])[0]
        np.testing.assert_allclose(got, _reference(x, y), rtol=1e-12, atol=1e-14, err_msg=str(n))


@pytest.mark.parametrize("dims", ["?x?", "?x1"])
def test_a_loop_carrying_arrays_on_iree_computes_what_it_means(tmp_path, dims):
    """Over ? x ? arrays the loop is blocks of branches, over ? x 1 ones (trisolv's
    column) kept; both give NumPy's values on IREE."""
    text = ARRAYS_LOOP.replace("?x?", dims)
    lowered, _ = iree_dynamic.lower(text)
    assert ("stablehlo.while" in lowered) == (dims == "?x1")
    backend = IreeBackend("stablehlo", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    prepared = backend.prepare(text, "h")
    assert prepared.pipeline_name.startswith("dynamic")
    rng = np.random.default_rng(13)
    cases = ((1, 3), (2, 1), (7, 4), (13, 2))  # (rows, steps); columns 1 or as below
    for rows, n in cases:
        shape = (rows, 1 if dims == "?x1" else rows % 5 + 1)
        a, b = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape)
        want, other = a.copy(), b.copy()
        for _ in range(n):
            want = want + other
            other = other + want
        got = prepared.run([a, b, np.int64(n)])[0]
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=str((shape, n)))
