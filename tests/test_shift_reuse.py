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
