"""Matrix-vector products of a shape-generic stablehlo raise on IREE: IREE's stage
(synth.backends.iree_dynamic) writes each as the vector broadcast along the contracting
dim, a product and a sum over that dim, which IREE fuses into one reduction dispatch;
every orientation (the vector on either side, the matrix contracted on either dim), f64
and i32, at several shapes including extents of 1 and 0, against NumPy."""

import numpy as np
import pytest

from synth.backends import iree_dynamic
from synth.backends.iree import IreeBackend

# a is r x c, x has c elements, y r, m is r x c of i32, v c of i32:
# a @ x, y @ a, a.T @ y, m @ v
PROGRAM = """func.func @p_raised(%a: tensor<?x?xf64>, %x: tensor<?xf64>, %y: tensor<?xf64>, %m: tensor<?x?xi32>,
    %v: tensor<?xi32>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xi32>)
    attributes {synth.outputs = [2, 1, 1, 4]} {
  %ax = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : (tensor<?x?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %ya = stablehlo.dot_general %y, %a, contracting_dims = [0] x [0] : (tensor<?xf64>, tensor<?x?xf64>) -> tensor<?xf64>
  %aty = stablehlo.dot_general %a, %y, contracting_dims = [0] x [0] : (tensor<?x?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %mv = stablehlo.dot_general %m, %v, contracting_dims = [1] x [0] : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %ax, %ya, %aty, %mv : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xi32>
}
"""


def test_products_are_reductions():
    text, count = iree_dynamic.lower(PROGRAM)
    assert count == 4 and "dot_general" not in text and text.count("stablehlo.reduce") == 4
    assert text.count("known_nonexpanding_dimensions") == 4


def test_products_on_iree(tmp_path):
    backend = IreeBackend("stablehlo", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    prepared = backend.prepare(PROGRAM, "p")
    assert prepared.pipeline_name.startswith("dynamic")
    rng = np.random.default_rng(7)
    for r, c in [(3, 5), (1, 1), (1, 7), (6, 1), (33, 17), (4, 0)]:
        a, x, y = rng.uniform(-1, 1, (r, c)), rng.uniform(-1, 1, c), rng.uniform(-1, 1, r)
        m, v = rng.integers(-50, 50, (r, c)).astype(np.int32), rng.integers(-50, 50, c).astype(np.int32)
        got = prepared.run([a, x, y, m, v])
        for g, w in zip(got, [a @ x, y @ a, a.T @ y, m @ v]):
            assert g.dtype == w.dtype and g.shape == w.shape, (r, c)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14, err_msg=f"{(r, c)}")
