"""synth.backends.shift_reuse: a vectorized loop reading one row at several shifts loads it
once per tile and shuffles; the values stay bitwise the same."""

from __future__ import annotations

import numpy as np
import pytest

from synth.backends.mlir_cpu import MlirCpuBackend

# out[j] = (a[j] + a[j + 1]) + a[j + K], tiles of 8, as tile_vectorize leaves such a loop
SHIFTED = """
func.func @f(%a: tensor<48xf64>, %init: tensor<32xf64>) -> tensor<32xf64> attributes {synth.outputs = [1]} {
  %pad = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c32 step %c8 iter_args(%o = %init) -> (tensor<32xf64>) {
    %j1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)
    %shift = arith.constant K : index
    %jk = arith.addi %i, %shift : index
    %x = vector.transfer_read %SRC[%i], %pad {in_bounds = [true]} : tensor<48xf64>, vector<8xf64>
    %y = vector.transfer_read %a[%j1], %pad {in_bounds = [true]} : tensor<48xf64>, vector<8xf64>
    %z = vector.transfer_read %a[%jk], %pad {in_bounds = [true]} : tensor<48xf64>, vector<8xf64>
    %s = arith.addf %x, %y : vector<8xf64>
    %s2 = arith.addf %s, %z : vector<8xf64>
    %w = vector.transfer_write %s2, %o[%i] {in_bounds = [true]} : vector<8xf64>, tensor<32xf64>
    scf.yield %w : tensor<32xf64>
  }
  return %r : tensor<32xf64>
}
"""


def _text(k: int, source: str = "%a") -> str:
    return SHIFTED.replace("K", str(k)).replace("%SRC", source)


def _rewritten(text: str) -> tuple[int, str]:
    from mlir import ir

    from synth.backends.shift_reuse import shift_reuse

    with ir.Context():
        module = ir.Module.parse(text)
        count = shift_reuse(module)
        assert module.operation.verify()
        return count, str(module)


@pytest.mark.parametrize("k", [2, 8])
def test_shifted_reads_become_one_load_and_shuffles(k):
    """Shifts 0, 1 and K (K <= 8 apart): one load per tile (the next tile's), shuffles for
    the shifted reads, the last tile left to the original loop; the values are NumPy's
    bit for bit."""
    count, text = _rewritten(_text(k))
    assert count == 1
    assert text.count("vector.shuffle") == (1 if k == 8 else 2)  # shift 8 is the next tile itself
    assert text.count("scf.for") == 2
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, 48)
    prepared = MlirCpuBackend().prepare(_text(k), "f")
    (out,) = prepared.run([a, np.zeros(32)])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    np.testing.assert_array_equal(out, (a[:32] + a[1:33]) + a[k:k + 32])


@pytest.mark.parametrize("case", ["too far apart", "the loop's own tensor"])
def test_reads_it_cannot_share_are_left(case):
    """Shifts more than a tile apart (0 and 9 with tiles of 8) cannot come from two
    consecutive tiles; a read of the tensor the loop carries changes as the loop writes."""
    text = {"too far apart": _text(9).replace("%j1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)",
                                              "%j1 = affine.apply affine_map<(d0) -> (d0)>(%i)"),
            "the loop's own tensor": _text(1).replace("vector.transfer_read %a[%j1]", "vector.transfer_read %o[%j1]")
            .replace("vector.transfer_read %a[%jk]", "vector.transfer_read %o[%jk]")
            .replace("%o[%j1], %pad {in_bounds = [true]} : tensor<48xf64>", "%o[%j1], %pad {in_bounds = [true]} : tensor<32xf64>")
            .replace("%o[%jk], %pad {in_bounds = [true]} : tensor<48xf64>", "%o[%jk], %pad {in_bounds = [true]} : tensor<32xf64>")
            .replace("%c32 = arith.constant 32", "%c32 = arith.constant 16"),
            }[case]
    count, _ = _rewritten(text)
    assert count == 0


# the same over 3 rows at once (a tile of 3 x 8, the wavefront's blocks of rows)
ROWS = """
func.func @f(%a: tensor<3x48xf64>, %init: tensor<3x32xf64>) -> tensor<3x32xf64> attributes {synth.outputs = [1]} {
  %pad = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c32 step %c8 iter_args(%o = %init) -> (tensor<3x32xf64>) {
    %j1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)
    %shift = arith.constant 5 : index
    %jk = arith.addi %i, %shift : index
    %x = vector.transfer_read %a[%c0, %i], %pad {in_bounds = [true, true]} : tensor<3x48xf64>, vector<3x8xf64>
    %y = vector.transfer_read %a[%c0, %j1], %pad {in_bounds = [true, true]} : tensor<3x48xf64>, vector<3x8xf64>
    %z = vector.transfer_read %a[%c0, %jk], %pad {in_bounds = [true, true]} : tensor<3x48xf64>, vector<3x8xf64>
    %s = arith.addf %x, %y : vector<3x8xf64>
    %s2 = arith.addf %s, %z : vector<3x8xf64>
    %w = vector.transfer_write %s2, %o[%c0, %i] {in_bounds = [true, true]} : vector<3x8xf64>, tensor<3x32xf64>
    scf.yield %w : tensor<3x32xf64>
  }
  return %r : tensor<3x32xf64>
}
"""


def test_shifted_reads_of_several_rows_shuffle_each_row():
    """A tile of 3 rows x 8 read at shifts 0, 1 and 5: one load of 3 x 8 per tile, each
    shifted read one shuffle of the two tiles flattened, lanes taken row by row; the values
    are NumPy's bit for bit."""
    from synth.backends.shift_reuse import _lanes

    assert _lanes(1, 4, 1) == [1, 2, 3, 4]
    assert _lanes(2, 4, 3) == [3, 8, 9, 10, 7, 12, 13, 14]
    count, text = _rewritten(ROWS)
    assert count == 1 and text.count("vector.shuffle") == 2
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 1, (3, 48))
    prepared = MlirCpuBackend().prepare(ROWS, "f")
    (out,) = prepared.run([a, np.zeros((3, 32))])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    np.testing.assert_array_equal(out, (a[:, :32] + a[:, 1:33]) + a[:, 5:37])
