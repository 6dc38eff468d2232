"""A shape-generic stablehlo raise whose broadcast vectors have their own dims, equal to
the matrix's only by the caller's precondition (gemver's u1 and A): IREE's stage splits it
into a version for equal extents, tested at entry (synth.backends.iree_versions), where
the broadcasts need no gather, and the function as it was; on IREE against NumPy at equal
extents, extents of 1 and the expanding calls that take the other version."""

import numpy as np
import pytest

from synth.backends import iree_dynamic
from synth.backends.iree import IreeBackend

# out = a + u v^T + row (row: a 1 x c matrix read as a vector), each vector broadcast
# against a's dims; u, v and row may also have one element (stablehlo's expanding broadcast)
PROGRAM = """func.func @f_raised(%a: tensor<?x?xf64>, %u: tensor<?xf64>, %v: tensor<?xf64>, %row: tensor<?x?xf64>)
    -> tensor<?x?xf64> attributes {synth.outputs = [0]} {
  %r = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
  %c = stablehlo.get_dimension_size %a, dim = 1 : (tensor<?x?xf64>) -> tensor<i32>
  %r64 = stablehlo.convert %r : (tensor<i32>) -> tensor<i64>
  %c64 = stablehlo.convert %c : (tensor<i32>) -> tensor<i64>
  %r1 = stablehlo.reshape %r64 : (tensor<i64>) -> tensor<1xi64>
  %c1 = stablehlo.reshape %c64 : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %r1, %c1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %ub = stablehlo.dynamic_broadcast_in_dim %u, %shape, dims = [0] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  %vb = stablehlo.dynamic_broadcast_in_dim %v, %shape, dims = [1] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  %uv = stablehlo.multiply %ub, %vb : tensor<?x?xf64>
  %sum = stablehlo.add %a, %uv : tensor<?x?xf64>
  %w = stablehlo.get_dimension_size %row, dim = 1 : (tensor<?x?xf64>) -> tensor<i32>
  %w64 = stablehlo.convert %w : (tensor<i32>) -> tensor<i64>
  %w1 = stablehlo.reshape %w64 : (tensor<i64>) -> tensor<1xi64>
  %line = stablehlo.dynamic_reshape %row, %w1 : (tensor<?x?xf64>, tensor<1xi64>) -> tensor<?xf64>
  %lb = stablehlo.dynamic_broadcast_in_dim %line, %shape, dims = [1] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  %out = stablehlo.add %sum, %lb : tensor<?x?xf64>
  return %out : tensor<?x?xf64>
}
"""


def _section(text: str, name: str) -> str:
    start = text.index(f"@{name}(%arg0: ")  # its definition
    end = text.find("func.func", start)
    return text[start:] if end < 0 else text[start:end]


def test_a_version_for_equal_extents_without_gathers():
    text, count = iree_dynamic.lower(PROGRAM)
    assert "@f_raised__same(" in text and "@f_raised__any(" in text
    entry, same, other = (_section(text, n) for n in ("f_raised", "f_raised__same", "f_raised__any"))
    assert "cf.cond_br" in entry and entry.count("arith.cmpi eq") == 3  # u and a's rows; v, row and a's columns
    assert '"stablehlo.gather"' not in same and same.count("known_nonexpanding_dimensions") == 3
    assert other.count('"stablehlo.gather"') == 3  # the function as it was
    # the row, a 2-d argument, given a's column count as its dim 1, its dim 0 its own
    assert same.count("tensor.reshape %arg3") == 1 and same.count("tensor.reshape %arg1") == 1


# u against a square of its own length: one symbol, proven as it is
ONE = """func.func @g_raised(%u: tensor<?xf64>) -> tensor<?x?xf64> attributes {synth.outputs = [0]} {
  %n = stablehlo.get_dimension_size %u, dim = 0 : (tensor<?xf64>) -> tensor<i32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %n1 = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %shape = stablehlo.concatenate %n1, %n1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %ub = stablehlo.dynamic_broadcast_in_dim %u, %shape, dims = [0] : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  return %ub : tensor<?x?xf64>
}
"""


def test_nothing_to_split_where_the_extents_are_one_symbol():
    text, count = iree_dynamic.lower(ONE)
    assert count == 1 and "__same" not in text and "known_nonexpanding_dimensions" in text


def test_both_versions_on_iree(tmp_path):
    backend = IreeBackend("stablehlo", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    prepared = backend.prepare(PROGRAM, "f")
    assert prepared.pipeline_name.startswith("dynamic")
    rng = np.random.default_rng(11)
    # (rows, columns, len(u), len(v), len(row)): equal extents, sizes of 1, then expanding calls
    for r, c, nu, nv, nw in [(3, 5, 3, 5, 5), (1, 1, 1, 1, 1), (4, 1, 4, 1, 1), (1, 6, 1, 6, 6), (7, 7, 7, 7, 7),
                             (3, 4, 1, 4, 4), (3, 4, 3, 1, 4), (3, 4, 3, 4, 1), (2, 5, 1, 1, 1)]:
        a, u, v, row = rng.uniform(-1, 1, (r, c)), rng.uniform(-1, 1, nu), rng.uniform(-1, 1, nv), rng.uniform(-1, 1, (1, nw))
        want = a + np.broadcast_to(u[:, None], (r, c)) * np.broadcast_to(v[None, :], (r, c)) + np.broadcast_to(row, (r, c))
        got = prepared.run([a, u, v, row])[0]
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"{(r, c, nu, nv, nw)}")
