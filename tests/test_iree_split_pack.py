"""Split packs (synth.backends.iree_split_pack): a padded `linalg.pack` at dynamic extents
written as the pack of its full tiles (no padding) and the padded strips of partial
tiles, run through real IREE against NumPy's pack at extents 1, primes, the tiles'
multiples and off by one, in every form the packed products use (iree_packed: A's and C's
tiles, B's by the outer permutation, a transposed operand's); and the product stage's use
of it: a dynamic product's packs split, a static one's whole, an operand given by a
transpose packed from the transpose's input (both targets), and iree_dynamic leaving a
matrix operand and result of a transposed product unreshaped."""

import numpy as np
import pytest

from synth.backends import iree_dynamic, iree_packed
from synth.backends.iree import IreeBackend
from synth.backends.iree_split_pack import pack_lines

# (name, inner_dims_pos, tiles, outer_dims_perm): each pack iree_packed writes, with the
# host's tiles and the other branch's (8 x 4 x 1)
FORMS = [("a", (0, 1), (8, 1), None), ("at", (1, 0), (8, 1), (1, 0)), ("b", (1, 0), (16, 1), (1, 0)),
         ("bt", (0, 1), (16, 1), None), ("c", (0, 1), (8, 16), None), ("c4", (0, 1), (8, 4), None),
         ("b4", (1, 0), (4, 1), (1, 0))]
EXTENTS = [(1, 1), (7, 13), (8, 16), (9, 17), (17, 3), (16, 1), (31, 33), (2, 64)]


def _module() -> str:
    results, types, lines = [], [], []
    for name, inner, tiles, perm in FORMS:
        lines += ["  " + x for x in pack_lines(name, "%x", ("%rows", "%cols"), inner, tiles, perm, "%zero")]
        results.append(f"%{name}")
        types.append(f"tensor<?x?x{tiles[0]}x{tiles[1]}xf64>")
    head = (f"func.func @p_raised(%x: tensor<?x?xf64>) -> ({', '.join(types)}) "
            f"attributes {{synth.outputs = [{', '.join('0' for _ in FORMS)}]}} {{")
    return "\n".join([head, "  %i0 = arith.constant 0 : index", "  %i1 = arith.constant 1 : index",
                      "  %zero = arith.constant 0.000000e+00 : f64",
                      "  %rows = tensor.dim %x, %i0 : tensor<?x?xf64>", "  %cols = tensor.dim %x, %i1 : tensor<?x?xf64>",
                      *lines, f"  return {', '.join(results)} : {', '.join(types)}", "}", ""])


def _numpy_pack(x, inner, tiles, perm):
    tile_of = {d: t for d, t in zip(inner, tiles)}
    counts = [-(-x.shape[d] // tile_of[d]) for d in (0, 1)]
    padded = np.zeros((counts[0] * tile_of[0], counts[1] * tile_of[1]))
    padded[:x.shape[0], :x.shape[1]] = x
    blocks = padded.reshape(counts[0], tile_of[0], counts[1], tile_of[1]).transpose(0, 2, 1, 3)
    if inner == (1, 0):  # the first inner tile runs along source dim 1
        blocks = blocks.transpose(0, 1, 3, 2)
    if perm == (1, 0):
        blocks = blocks.transpose(1, 0, 2, 3)
    return blocks


def test_the_full_tiles_are_packed_unpadded_and_the_strips_padded():
    lines = pack_lines("pc", "%c", ("%m", "%n"), (0, 1), (8, 16), None, "%zero")
    packs = [ln for ln in lines if "linalg.pack" in ln]
    assert len(packs) == 3  # the full tiles, then a strip along each tiled dim
    assert "padding_value" not in packs[0] and all("padding_value" in p for p in packs[1:])
    assert lines[-1].startswith("%pc = tensor.insert_slice")
    # a dim tiled by 1 has no partial tile: one strip only
    assert sum("linalg.pack" in ln for ln in pack_lines("pa", "%a", ("%m", "%k"), (0, 1), (8, 1), None, "%z")) == 2


def test_split_packs_on_iree_against_numpy(tmp_path):
    backend = IreeBackend("linalg", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    prepared = backend.prepare(_module(), "p")
    try:
        rng = np.random.default_rng(21)
        for r, c in EXTENTS:
            x = rng.uniform(-1, 1, (r, c))
            got = prepared.run([x])
            for (name, inner, tiles, perm), g in zip(FORMS, got):
                want = _numpy_pack(x, inner, tiles, perm)
                assert g.shape == want.shape, (name, r, c)
                np.testing.assert_array_equal(g, want, err_msg=f"{name} at {(r, c)}")
    finally:
        prepared.close()


def test_a_dynamic_products_packs_are_split_a_static_ones_whole():
    dynamic = """func.func @q(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%c : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
"""
    text, count = iree_packed.lower_linalg(dynamic, (8, 16, 1))
    assert count == 1 and "%pa_full = linalg.pack %pa_full_src inner_dims_pos" in text
    assert "%pc_s1 = linalg.pack" in text and "_whole" not in text
    static = dynamic.replace("?x?", "9x9")
    text, count = iree_packed.lower_linalg(static, (8, 16, 1))
    assert count == 1 and "@synth_packed_accumulate_f64_whole(" in text and "_full_src" not in text


# a b^T with b^T given by a transpose, and a^T b (iree_dynamic writes it with a transpose of a),
# at dynamic extents
STABLEHLO_T = """func.func @t_raised(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> (tensor<?x?xf64>, tensor<?x?xf64>)
    attributes {synth.outputs = [0, 1]} {
  %bt = stablehlo.transpose %b, dims = [1, 0] : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %abt = stablehlo.dot_general %a, %bt, contracting_dims = [1] x [0] : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  %atb = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %abt, %atb : tensor<?x?xf64>, tensor<?x?xf64>
}
"""
LINALG_T = """func.func @l_raised(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> attributes {synth.outputs = [0]} {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %m = tensor.dim %a, %i0 : tensor<?x?xf64>
  %k = tensor.dim %a, %i1 : tensor<?x?xf64>
  %n = tensor.dim %b, %i0 : tensor<?x?xf64>
  %e = tensor.empty(%k, %n) : tensor<?x?xf64>
  %t = linalg.transpose ins(%b : tensor<?x?xf64>) outs(%e : tensor<?x?xf64>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f64
  %e2 = tensor.empty(%m, %n) : tensor<?x?xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e2 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %r = linalg.matmul ins(%a, %t : tensor<?x?xf64>, tensor<?x?xf64>) outs(%f : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
"""
SIZES = [(1, 1, 1), (7, 13, 5), (17, 3, 29), (8, 16, 16), (9, 17, 15), (31, 1, 2)]


def test_a_transposed_operand_is_packed_from_its_input():
    dynamic = iree_dynamic.lower(STABLEHLO_T)[0]
    # the transposed product a^T b stays a matrix product of matrices: no reshape around it
    assert "tensor.reshape" not in dynamic
    text, count = iree_packed.lower_stablehlo(dynamic, (8, 16, 1))
    assert count == 2 and "call @synth_packed_product_bt_f64(%arg0, %arg1)" in text
    assert "call @synth_packed_product_at_f64(%arg0, %arg1)" in text
    text, count = iree_packed.lower_linalg(LINALG_T, (8, 16, 1))
    assert count == 1 and "call @synth_packed_accumulate_bt_f64(%arg0, %arg1," in text


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_transposed_operands_on_iree(tmp_path, target):
    backend = IreeBackend(target, cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    prepared = backend.prepare(STABLEHLO_T if target == "stablehlo" else LINALG_T, "t" if target == "stablehlo" else "l")
    assert prepared.pipeline_name == "dynamic (local-sync)"
    rng = np.random.default_rng(22)
    for m, k, n in SIZES:
        if target == "stablehlo":  # a and b both m x k: a b^T is m x m, a^T b is k x k
            a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (m, k))
            got, want = prepared.run([a, b]), [a @ b.T, a.T @ b]
        else:
            a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (n, k))
            got, want = prepared.run([a, b]), [a @ b.T]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, (m, k, n)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13, err_msg=f"{(m, k, n)}")
