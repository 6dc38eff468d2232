"""Matrix products of a shape-generic raise on IREE as packed tiles (synth.backends.iree_packed):
stablehlo's dot_general and linalg's matmul at dynamic extents, each written as pack, mmt4d
and unpack by IreeBackend (a generic raise compiled as it is), run through real IREE at
extents 1, primes, multiples of the tiles and one of 0, against NumPy; with the host's tiles
and with the other branch's (8 x 4 x 1); the products in the programs of syrk, trmm and
symm's generic raises (a masked operand, a transposed one, a masked update of the result)."""

import numpy as np
import pytest

from synth.backends import iree_dynamic, iree_packed
from synth.backends.iree import IreeBackend

# a (m x k) times b (k x n) and a times its transpose masked to the lower triangle (syrk),
# a lower-triangular mask of a square s (n x n) times b (trmm's form, s strictly above)
STABLEHLO = """func.func @p_raised(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %s: tensor<?x?xf64>)
    -> (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>) attributes {synth.outputs = [0, 1, 2]} {
  %ab = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  %aat = stablehlo.dot_general %a, %a, contracting_dims = [1] x [1] : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  %d = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
  %d64 = stablehlo.convert %d : (tensor<i32>) -> tensor<i64>
  %d1 = stablehlo.reshape %d64 : (tensor<i64>) -> tensor<1xi64>
  %mm = stablehlo.concatenate %d1, %d1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %col = stablehlo.dynamic_iota %mm, dim = 1 : (tensor<2xi64>) -> tensor<?x?xi64>
  %row = stablehlo.dynamic_iota %mm, dim = 0 : (tensor<2xi64>) -> tensor<?x?xi64>
  %low = stablehlo.compare LE, %col, %row : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi1>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<f64>
  %zs = stablehlo.dynamic_broadcast_in_dim %z, %mm, dims = [] : (tensor<f64>, tensor<2xi64>) -> tensor<?x?xf64>
  %syrk = stablehlo.select %low, %aat, %zs : tensor<?x?xi1>, tensor<?x?xf64>
  %n = stablehlo.get_dimension_size %s, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %n1 = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %nn = stablehlo.concatenate %n1, %n1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %c2 = stablehlo.dynamic_iota %nn, dim = 1 : (tensor<2xi64>) -> tensor<?x?xi64>
  %r2 = stablehlo.dynamic_iota %nn, dim = 0 : (tensor<2xi64>) -> tensor<?x?xi64>
  %above = stablehlo.compare GT, %c2, %r2 : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi1>
  %st = stablehlo.transpose %s, dims = [1, 0] : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %zn = stablehlo.dynamic_broadcast_in_dim %z, %nn, dims = [] : (tensor<f64>, tensor<2xi64>) -> tensor<?x?xf64>
  %tri = stablehlo.select %above, %st, %zn : tensor<?x?xi1>, tensor<?x?xf64>
  %trmm = stablehlo.dot_general %tri, %b, contracting_dims = [1] x [0] : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %ab, %syrk, %trmm : tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>
}
"""

# c + a b (an init that is not zero), and a b^T from a transposed b into a zero fill
LINALG = """func.func @q_raised(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>, %bt: tensor<?x?xf64>)
    -> (tensor<?x?xf64>, tensor<?x?xf64>) attributes {synth.outputs = [2, 2]} {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %m = tensor.dim %a, %i0 : tensor<?x?xf64>
  %k = tensor.dim %a, %i1 : tensor<?x?xf64>
  %n = tensor.dim %bt, %i0 : tensor<?x?xf64>
  %acc = linalg.matmul ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%c : tensor<?x?xf64>) -> tensor<?x?xf64>
  %e = tensor.empty(%k, %n) : tensor<?x?xf64>
  %t = linalg.transpose ins(%bt : tensor<?x?xf64>) outs(%e : tensor<?x?xf64>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f64
  %e2 = tensor.empty(%m, %n) : tensor<?x?xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e2 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %abt = linalg.matmul ins(%a, %t : tensor<?x?xf64>, tensor<?x?xf64>) outs(%f : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %acc, %abt : tensor<?x?xf64>, tensor<?x?xf64>
}
"""

# (m, k, n): ones, primes, the tiles' multiples and off by one, and k = 0
SIZES = [(1, 1, 1), (1, 7, 1), (7, 13, 5), (17, 3, 29), (8, 16, 16), (9, 17, 15), (31, 1, 2), (4, 0, 3)]


def _backend(target, tmp_path):
    backend = IreeBackend(target, cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    return backend


def test_the_stage_writes_each_dynamic_product_packed():
    text, count = iree_packed.lower_stablehlo(iree_dynamic.lower(STABLEHLO)[0], (8, 16, 1))
    assert count == 3 and "stablehlo.dot_general" not in text
    # a a^T (syrk's): iree_dynamic writes a^T as a transpose, packed from a by the
    # permutation (the _bt form); the two others M x K times K x N
    assert text.count("linalg.mmt4d") == 2 and text.count("call @synth_packed_product_f64(") == 2
    assert text.count("call @synth_packed_product_bt_f64(%arg0, %arg0)") == 1
    assert "inner_tiles = [8, 1]" in text and "inner_tiles = [16, 1]" in text
    text, count = iree_packed.lower_linalg(LINALG, (8, 4, 1))
    assert count == 2 and "linalg.matmul" not in text and text.count("call @synth_packed_accumulate_f64(") == 1
    assert text.count("call @synth_packed_accumulate_bt_f64(%arg0, %arg3,") == 1  # b^T given by a transpose
    static = STABLEHLO.replace("?x?", "3x3")  # static extents: through a wrapper of casts
    text, count = iree_packed.lower_stablehlo(iree_dynamic.lower(static)[0], (8, 16, 1))
    assert count == 3 and text.count("call @synth_packed_product_f64_3x3_3x3_3x3(") == 2
    assert text.count("call @synth_packed_product_bt_f64_3x3_3x3_3x3(") == 1  # a a^T
    assert "tensor.cast %a : tensor<3x3xf64> to tensor<?x?xf64>" in text


def test_a_static_product_in_a_loop_is_left_to_iree():
    # the library ops' blocked forms and the substitution loops: static blocks in loops
    looped = """func.func @l(%a: tensor<4x4xf64>, %b: tensor<4x4xf64>, %n: index) -> tensor<4x4xf64> {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %r = scf.for %i = %i0 to %n step %i1 iter_args(%c = %b) -> (tensor<4x4xf64>) {
    %p = linalg.matmul ins(%a, %c : tensor<4x4xf64>, tensor<4x4xf64>) outs(%c : tensor<4x4xf64>) -> tensor<4x4xf64>
    scf.yield %p : tensor<4x4xf64>
  }
  return %r : tensor<4x4xf64>
}
"""
    assert iree_packed.lower_linalg(looped)[1] == 0


@pytest.mark.parametrize("tile", ["host", (8, 4, 1)])
def test_stablehlo_products_on_iree(tmp_path, monkeypatch, tile):
    if tile != "host":
        monkeypatch.setattr(iree_packed, "tiles", lambda: tile)
    prepared = _backend("stablehlo", tmp_path).prepare(STABLEHLO, "p")
    assert prepared.pipeline_name.startswith("dynamic") and prepared.rewrites == {"packed-products": 3}
    rng = np.random.default_rng(11)
    for m, k, n in SIZES:
        a, b, s = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n)), rng.uniform(-1, 1, (k, k))
        got = prepared.run([a, b, s])
        want = [a @ b, np.tril(a @ a.T), np.triu(s.T, 1) @ b]
        for g, w in zip(got, want):
            assert g.shape == w.shape, (m, k, n)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13, err_msg=f"{(m, k, n)}")


@pytest.mark.parametrize("tile", ["host", (8, 4, 1)])
def test_linalg_products_on_iree(tmp_path, monkeypatch, tile):
    if tile != "host":
        monkeypatch.setattr(iree_packed, "tiles", lambda: tile)
    prepared = _backend("linalg", tmp_path).prepare(LINALG, "q")
    assert prepared.rewrites == {"packed-products": 2}
    rng = np.random.default_rng(12)
    for m, k, n in SIZES:
        a, b, c = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n)), rng.uniform(-1, 1, (m, n))
        bt = rng.uniform(-1, 1, (n, k))
        got = prepared.run([a, b, c, bt])
        for g, w in zip(got, [c + a @ b, a @ bt.T]):
            assert g.shape == w.shape, (m, k, n)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13, err_msg=f"{(m, k, n)}")


# static and mixed extents (a wrapper casting to the generic function's types): c + a b
# and a b from a zero fill, the extents of each case written into the text
LINALG_SHAPED = """func.func @s_raised(%a: tensor<AxBxf64>, %b: tensor<BxCxf64>, %c: tensor<AxCxf64>)
    -> (tensor<AxCxf64>, tensor<AxCxf64>) attributes {synth.outputs = [2, 2]} {
  %acc = linalg.matmul ins(%a, %b : tensor<AxBxf64>, tensor<BxCxf64>) outs(%c : tensor<AxCxf64>) -> tensor<AxCxf64>
  %zero = arith.constant 0.0 : f64
  %f = linalg.fill ins(%zero : f64) outs(%c : tensor<AxCxf64>) -> tensor<AxCxf64>
  %ab = linalg.matmul ins(%a, %b : tensor<AxBxf64>, tensor<BxCxf64>) outs(%f : tensor<AxCxf64>) -> tensor<AxCxf64>
  return %acc, %ab : tensor<AxCxf64>, tensor<AxCxf64>
}
"""

# and with a transposed operand given (ta: k x m, tb: n x k), each of the four forms
STABLEHLO_SHAPED = """func.func @t_raised(%a: tensor<AxBxf64>, %b: tensor<BxCxf64>, %c: tensor<AxCxf64>,
    %ta: tensor<BxAxf64>, %tb: tensor<CxBxf64>) -> (tensor<AxCxf64>, tensor<AxCxf64>, tensor<AxCxf64>,
    tensor<AxCxf64>, tensor<AxCxf64>) attributes {synth.outputs = [2, 2, 2, 2, 2]} {
  %ab = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<AxBxf64>, tensor<BxCxf64>) -> tensor<AxCxf64>
  %sum = stablehlo.add %c, %ab : tensor<AxCxf64>
  %tab = stablehlo.dot_general %ta, %b, contracting_dims = [0] x [0] : (tensor<BxAxf64>, tensor<BxCxf64>) -> tensor<AxCxf64>
  %atb = stablehlo.dot_general %a, %tb, contracting_dims = [1] x [1] : (tensor<AxBxf64>, tensor<CxBxf64>) -> tensor<AxCxf64>
  %tatb = stablehlo.dot_general %ta, %tb, contracting_dims = [0] x [1] : (tensor<BxAxf64>, tensor<CxBxf64>) -> tensor<AxCxf64>
  return %sum, %ab, %tab, %atb, %tatb : tensor<AxCxf64>, tensor<AxCxf64>, tensor<AxCxf64>, tensor<AxCxf64>, tensor<AxCxf64>
}
"""

# (m, k, n) all static: ones, primes, the tiles' multiples and off by one (8 x 16 x 1 and 8 x 4 x 1)
STATIC = [(1, 1, 1), (1, 7, 1), (7, 13, 5), (17, 3, 29), (8, 16, 16), (9, 17, 15), (16, 1, 4), (23, 31, 33)]
# which of m, k, n stay dynamic, each with the extents it runs at
MIXED = [("m", (7, 13, 5)), ("k", (9, 17, 15)), ("n", (1, 7, 1)), ("mn", (17, 3, 29)), ("kn", (8, 16, 16)),
         ("mk", (31, 1, 2))]


def _shaped(template, extents):
    a, b, c = (str(e) for e in extents)
    for pair, (x, y) in {"AxB": (a, b), "BxC": (b, c), "AxC": (a, c), "BxA": (b, a), "CxB": (c, b)}.items():
        template = template.replace(pair, f"{x}x{y}")
    return template


def _check_shaped(prepared, target, m, k, n, seed):
    rng = np.random.default_rng(seed)
    a, b, c = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n)), rng.uniform(-1, 1, (m, n))
    ta, tb = rng.uniform(-1, 1, (k, m)), rng.uniform(-1, 1, (n, k))
    if target == "linalg":
        got, want = prepared.run([a, b, c]), [c + a @ b, a @ b]
    else:
        got, want = prepared.run([a, b, c, ta, tb]), [c + a @ b, a @ b, ta.T @ b, a @ tb.T, ta.T @ tb.T]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape, (m, k, n)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13, err_msg=f"{(m, k, n)}")


@pytest.mark.parametrize("target", ["linalg", "stablehlo"])
@pytest.mark.parametrize("tile", ["host", (8, 4, 1)])
def test_static_products_on_iree(tmp_path, monkeypatch, target, tile):
    if tile != "host":
        monkeypatch.setattr(iree_packed, "tiles", lambda: tile)
    backend = _backend(target, tmp_path)
    template = LINALG_SHAPED if target == "linalg" else STABLEHLO_SHAPED
    for seed, (m, k, n) in enumerate(STATIC):
        prepared = backend.prepare(_shaped(template, (m, k, n)), "s" if target == "linalg" else "t")
        try:
            assert prepared.rewrites == {"packed-products": 2 if target == "linalg" else 4}
            _check_shaped(prepared, target, m, k, n, seed)
        finally:
            prepared.close()


@pytest.mark.parametrize("target", ["linalg", "stablehlo"])
def test_mixed_products_on_iree(tmp_path, target):
    backend = _backend(target, tmp_path)
    template = LINALG_SHAPED if target == "linalg" else STABLEHLO_SHAPED
    for seed, (dynamic, (m, k, n)) in enumerate(MIXED):
        extents = ["?" if x in dynamic else e for x, e in zip("mkn", (m, k, n))]
        text = _shaped(template, extents)
        lowered, count = (iree_packed.lower_linalg(text) if target == "linalg"
                          else iree_packed.lower_stablehlo(iree_dynamic.lower(text)[0]))
        assert count == (2 if target == "linalg" else 4) and "tensor.cast" in lowered
        assert "linalg.matmul" not in lowered and "stablehlo.dot_general" not in lowered
        prepared = backend.prepare(text, "s" if target == "linalg" else "t")
        assert prepared.rewrites == {"packed-products": count}
        _check_shaped(prepared, target, m, k, n, seed)


# doitgen's product: a static p x q x k array times a k x n matrix, flattened to (p q) x k
FLAT = """func.func @u_raised(%a: tensor<PxQxKxf64>, %b: tensor<KxNxf64>) -> tensor<PxQxNxf64> attributes {synth.outputs = [0]} {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<PxQxKxf64>, tensor<KxNxf64>) -> tensor<PxQxNxf64>
  return %r : tensor<PxQxNxf64>
}
"""


def test_a_static_rank3_product_on_iree(tmp_path):
    backend = _backend("stablehlo", tmp_path)
    rng = np.random.default_rng(13)
    for p, q, k, n in [(1, 1, 1, 1), (3, 5, 7, 2), (2, 4, 17, 16), (5, 3, 16, 9)]:
        text = FLAT.replace("PxQxK", f"{p}x{q}x{k}").replace("KxN", f"{k}x{n}").replace("PxQxN", f"{p}x{q}x{n}")
        prepared = backend.prepare(text, "u")
        try:
            assert prepared.rewrites == {"packed-products": 1}
            a, b = rng.uniform(-1, 1, (p, q, k)), rng.uniform(-1, 1, (k, n))
            (got,) = prepared.run([a, b])
            np.testing.assert_allclose(got, a @ b, rtol=1e-12, atol=1e-13, err_msg=f"{(p, q, k, n)}")
        finally:
            prepared.close()
