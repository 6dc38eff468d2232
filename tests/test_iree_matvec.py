"""Matrix-vector products of a shape-generic raise on IREE. stablehlo: IREE's stage
(synth.backends.iree_dynamic) writes each as the vector broadcast along the contracting
dim, a product and a sum over that dim, which IREE fuses into one reduction dispatch;
every orientation (the vector on either side, the matrix contracted on either dim), f64
and i32, at several shapes including extents of 1 and 0, against NumPy. linalg: the
products and a rank-1 update compiled at dynamic shapes with the vector remainders
peeled (synth.backends.iree.DYNAMIC_FLAGS), at extents 0, 1 and odd ones."""

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


# the same products and a rank-1 update in linalg at dynamic shapes (a generic linalg raise,
# compiled as it is: IreeBackend's DYNAMIC_FLAGS, vector remainders peeled off): a + x y^T,
# x @ a, a @ y for a r x c, x of r, y of c
LINALG = """func.func @q_raised(%a: tensor<?x?xf64>, %x: tensor<?xf64>, %y: tensor<?xf64>)
    -> (tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>) attributes {synth.outputs = [0, 2, 1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %a, %c0 : tensor<?x?xf64>
  %c = tensor.dim %a, %c1 : tensor<?x?xf64>
  %e0 = tensor.empty(%r, %c) : tensor<?x?xf64>
  %bx = linalg.broadcast ins(%x : tensor<?xf64>) outs(%e0 : tensor<?x?xf64>) dimensions = [1]
  %e1 = tensor.empty(%r, %c) : tensor<?x?xf64>
  %by = linalg.broadcast ins(%y : tensor<?xf64>) outs(%e1 : tensor<?x?xf64>) dimensions = [0]
  %e2 = tensor.empty(%r, %c) : tensor<?x?xf64>
  %xy = linalg.mul ins(%bx, %by : tensor<?x?xf64>, tensor<?x?xf64>) outs(%e2 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %e3 = tensor.empty(%r, %c) : tensor<?x?xf64>
  %up = linalg.add ins(%a, %xy : tensor<?x?xf64>, tensor<?x?xf64>) outs(%e3 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %zero = arith.constant 0.0 : f64
  %e4 = tensor.empty(%c) : tensor<?xf64>
  %f4 = linalg.fill ins(%zero : f64) outs(%e4 : tensor<?xf64>) -> tensor<?xf64>
  %xa = linalg.vecmat ins(%x, %a : tensor<?xf64>, tensor<?x?xf64>) outs(%f4 : tensor<?xf64>) -> tensor<?xf64>
  %e5 = tensor.empty(%r) : tensor<?xf64>
  %f5 = linalg.fill ins(%zero : f64) outs(%e5 : tensor<?xf64>) -> tensor<?xf64>
  %ay = linalg.matvec ins(%a, %y : tensor<?x?xf64>, tensor<?xf64>) outs(%f5 : tensor<?xf64>) -> tensor<?xf64>
  return %up, %ay, %xa : tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>
}
"""


def test_linalg_at_dynamic_shapes_on_iree(tmp_path):
    backend = IreeBackend("linalg", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    prepared = backend.prepare(LINALG, "q")
    rng = np.random.default_rng(13)
    for r, c in [(1, 1), (1, 9), (7, 1), (7, 9), (17, 33), (64, 3), (0, 5)]:  # remainders of every vector width
        a, x, y = rng.uniform(-1, 1, (r, c)), rng.uniform(-1, 1, r), rng.uniform(-1, 1, c)
        got = prepared.run([a, x, y])
        for g, w in zip(got, [a + np.outer(x, y), a @ y, x @ a]):
            assert g.shape == w.shape, (r, c)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14, err_msg=f"{(r, c)}")


# a matrix product at dynamic shapes, which IREE does not compile peeled ("operations with
# large vector sizes"): compiled with IREE's own strategy instead. (A default-map f64
# linalg.matmul is packed first, synth.backends.iree_packed, and then compiles peeled; one
# with B transposed by its maps is left as it is.)
MATMUL = """func.func @mm_raised(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64>
    attributes {synth.outputs = [0]} {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %a, %c0 : tensor<?x?xf64>
  %c = tensor.dim %b, %c0 : tensor<?x?xf64>
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty(%r, %c) : tensor<?x?xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<?x?xf64>) -> tensor<?x?xf64>
  %p = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>,
                                      affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%f : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %p : tensor<?x?xf64>
}
"""


def test_a_matmul_iree_does_not_peel_runs_unpeeled(tmp_path):
    backend = IreeBackend("linalg", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    prepared = backend.prepare(MATMUL, "mm")
    rng = np.random.default_rng(17)
    for m, k, n in [(1, 1, 1), (7, 9, 5), (16, 3, 33)]:
        a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (n, k))
        np.testing.assert_allclose(prepared.run([a, b])[0], a @ b.T, rtol=1e-12, atol=1e-14, err_msg=f"{(m, k, n)}")
