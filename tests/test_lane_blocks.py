"""synth.backends.lane_blocks (synth-lane-blocks): a counter loop whose step works lane by
lane runs by blocks of lanes. Conformance: two sweeps in the forms the raises give
(deriche's: a row sweep over columns of a row-major array, its state rotated; a column
sweep written as stablehlo lowers it, 1 x N slices and reshapes, downwards), through
mlir-cpu's pipeline, equal the reference lowering at sizes around the block width (not
multiples of it, below it, 1); steps whose lanes meet are left alone."""

from __future__ import annotations

import numpy as np
import pytest

from synth.backends.lane_blocks import LANES, lane_blocks

SWEEPS = """
#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @sweeps(%alpha: tensor<f64>, %x: tensor<WxHxf64>, %y0: tensor<WxHxf64>, %z0: tensor<WxHxf64>)
    -> (tensor<WxHxf64>, tensor<WxHxf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ch = arith.constant H : index
  %cw = arith.constant W : index
  %last = arith.constant LASTROW : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %e = tensor.empty() : tensor<Wxf64>
  %zeros = linalg.fill ins(%zero : f64) outs(%e : tensor<Wxf64>) -> tensor<Wxf64>
  %r:3 = scf.for %j = %c0 to %ch step %c1 iter_args(%y = %y0, %s1 = %zeros, %s2 = %zeros)
      -> (tensor<WxHxf64>, tensor<Wxf64>, tensor<Wxf64>) {
    %col = tensor.extract_slice %x[0, %j] [W, 1] [1, 1] : tensor<WxHxf64> to tensor<Wxf64>
    %two = tensor.empty() : tensor<f64>
    %t2 = linalg.fill ins(%half : f64) outs(%two : tensor<f64>) -> tensor<f64>
    %k0 = tensor.empty() : tensor<f64>
    %k = linalg.powf ins(%t2, %alpha : tensor<f64>, tensor<f64>) outs(%k0 : tensor<f64>) -> tensor<f64>
    %o = tensor.empty() : tensor<Wxf64>
    %v = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #id], iterator_types = ["parallel"]}
        ins(%col, %s1, %s2, %k : tensor<Wxf64>, tensor<Wxf64>, tensor<Wxf64>, tensor<f64>) outs(%o : tensor<Wxf64>) {
    ^bb0(%c: f64, %p: f64, %q: f64, %kk: f64, %out: f64):
      %a = arith.mulf %kk, %c : f64
      %b = arith.mulf %p, %half : f64
      %d = arith.subf %a, %q : f64
      %s = arith.addf %d, %b : f64
      linalg.yield %s : f64
    } -> tensor<Wxf64>
    %y2 = tensor.insert_slice %v into %y[0, %j] [W, 1] [1, 1] : tensor<Wxf64> into tensor<WxHxf64>
    %back = tensor.extract_slice %y2[0, %j] [W, 1] [1, 1] : tensor<WxHxf64> to tensor<Wxf64>
    scf.yield %y2, %back, %s1 : tensor<WxHxf64>, tensor<Wxf64>, tensor<Wxf64>
  }
  %f = tensor.empty() : tensor<Hxf64>
  %zh = linalg.fill ins(%zero : f64) outs(%f : tensor<Hxf64>) -> tensor<Hxf64>
  %r2:2 = scf.for %i = %c0 to %cw step %c1 iter_args(%z = %z0, %t = %zh) -> (tensor<WxHxf64>, tensor<Hxf64>) {
    %ii = arith.subi %last, %i : index
    %row = tensor.extract_slice %r#0[%ii, 0] [1, H] [1, 1] : tensor<WxHxf64> to tensor<1xHxf64>
    %te = tensor.expand_shape %t [[0, 1]] output_shape [1, H] : tensor<Hxf64> into tensor<1xHxf64>
    %al = tensor.extract %alpha[] : tensor<f64>
    %g0 = tensor.empty() : tensor<1xHxf64>
    %g = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%row, %te : tensor<1xHxf64>, tensor<1xHxf64>) outs(%g0 : tensor<1xHxf64>) {
    ^bb0(%a: f64, %b: f64, %out: f64):
      %ex = math.exp %al : f64
      %m = arith.mulf %ex, %b : f64
      %s = arith.addf %a, %m : f64
      linalg.yield %s : f64
    } -> tensor<1xHxf64>
    %z2 = tensor.insert_slice %g into %z[%ii, 0] [1, H] [1, 1] : tensor<1xHxf64> into tensor<WxHxf64>
    %g1 = tensor.collapse_shape %g [[0, 1]] : tensor<1xHxf64> into tensor<Hxf64>
    scf.yield %z2, %g1 : tensor<WxHxf64>, tensor<Hxf64>
  }
  return %r#0, %r2#0 : tensor<WxHxf64>, tensor<WxHxf64>
}
"""


def _sweeps(w: int, h: int) -> str:
    return SWEEPS.replace("LASTROW", str(w - 1)).replace("WxHx", f"{w}x{h}x").replace(
        "Wx", f"{w}x").replace("Hx", f"{h}x").replace("[W, 1]", f"[{w}, 1]").replace(
        "[1, H]", f"[1, {h}]").replace("constant H ", f"constant {h} ").replace("constant W ", f"constant {w} ")


def _rewritten(text: str) -> tuple[int, str]:
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(text)
        count = lane_blocks(module)
        module.operation.verify()
        return count, str(module)


def test_both_sweeps_become_blocks_of_lanes():
    count, text = _rewritten(_sweeps(40, 20))
    assert count == 2
    # 40 rows: 2 blocks of 16 and one of 8; 20 columns: 1 block of 16 and one of 4
    assert f"vector<{LANES}xf64>" in text and "vector<8xf64>" in text and "vector<4xf64>" in text
    assert "linalg.generic" not in text and "tensor.insert_slice" not in text
    assert "math.powf" in text.split("scf.for")[0]  # the invariant coefficient before the loops


@pytest.mark.parametrize("w,h", [(40, 20), (16, 16), (5, 3), (1, 7), (33, 1), (17, 50)])
def test_blocks_of_lanes_equal_the_reference(w, h):
    """mlir-cpu's pipeline (the pass in it) against the reference lowering, bit for bit:
    the lanes compute the same operations in the same order. With one row or column, one
    sweep has a single step (canonicalize unrolls it) and the other a single lane (left
    alone: its shape does not tell its lanes from the other dims)."""
    from synth.backends.mlir_cpu import OPT_LEVEL, lowering
    from synth.backends.passes import LANE_BLOCKS
    from synth.execution import run_tensor_function_timed
    from synth.validation.reference import run_reference

    rng = np.random.default_rng(w * 100 + h)
    inputs = [np.asarray(0.3), rng.uniform(-1, 1, (w, h)), rng.uniform(-1, 1, (w, h)), rng.uniform(-1, 1, (w, h))]
    text, pipeline = lowering(_sweeps(w, h))
    got = run_tensor_function_timed(text, "sweeps", inputs, opt_level=OPT_LEVEL, pipeline=pipeline)
    assert got.rewrites[LANE_BLOCKS] == (2 if w > 1 and h > 1 else 0)
    want = run_reference("linalg", _sweeps(w, h), "sweeps", inputs)
    for g, e in zip(got.outputs, want):
        np.testing.assert_array_equal(g, e)
    assert np.abs(want[1]).max() > 0


# row sweeps whose lanes meet, or of a form not taken (the column sweep is still taken)
ACROSS = {
    # the step reads row j of the array it writes column j of: lane i reads element (j, i)
    "transposed": [("%col = tensor.extract_slice %x[0, %j] [W, 1] [1, 1]",
                    "%col = tensor.extract_slice %y[%j, 0] [1, W] [1, 1]")],
    # the row sweep's final state is used after the loop (as the column sweep's start)
    "state used": [("iter_args(%z = %z0, %t = %zh)", "iter_args(%z = %z0, %t = %r#1)")],
    # arithmetic on whole tensors (not a linalg op): not taken
    "tensor arith": [("%back = tensor.extract_slice %y2[0, %j] [W, 1] [1, 1] : tensor<WxHxf64> to tensor<Wxf64>",
                      "%back = arith.addf %v, %v : tensor<Wxf64>")],
    # every lane reads one element of the array the loop writes
    "element": [("    %o = tensor.empty() : tensor<Wxf64>",
                 "    %y00 = tensor.extract %y[%c0, %j] : tensor<WxHxf64>\n    %o = tensor.empty() : tensor<Wxf64>"),
                ("%a = arith.mulf %kk, %c", "%a = arith.mulf %y00, %c")],
}


@pytest.mark.parametrize("change", sorted(ACROSS))
def test_steps_whose_lanes_meet_are_left_alone(change):
    text = _sweeps(20, 20)
    for old, new in ACROSS[change]:
        old, new = (t.replace("W", "20").replace("H", "20") for t in (old, new))
        assert old in text
        text = text.replace(old, new)
    count, out = _rewritten(text)
    assert count == 1  # the column sweep only
    assert out.count("linalg.generic") == 1
