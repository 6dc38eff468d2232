"""synth.backends.lane_slices (synth-lane-slices) and lane-blocks on lanes at an offset: adi's
sweeps, in the form its raise gives (each step updates the inner lanes 1 .. N-2 of a column
or a row: a slice of the line's slice, inserted into the line, the line into the array; the
column sweep reads the column the step before wrote), through mlir-cpu's pipeline, equal the
reference lowering bit for bit at sizes around the block width; a step reading its carried
array at another lane offset than it writes (lanes meet) is left alone."""

from __future__ import annotations

import numpy as np
import pytest

from synth.backends.lane_blocks import lane_blocks
from synth.backends.lane_slices import lane_slices

SWEEPS = """
#id = affine_map<(d0) -> (d0)>
func.func @adi(%u: tensor<NxNxf64>, %p0: tensor<NxNxf64>, %q0: tensor<NxNxf64>, %v0: tensor<NxNxf64>)
    -> (tensor<NxNxf64>, tensor<NxNxf64>, tensor<NxNxf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm = arith.constant M : index
  %a = arith.constant -0.75 : f64
  %b = arith.constant 2.5 : f64
  %c = arith.constant 0.375 : f64
  %r:2 = scf.for %j = %c0 to %cm step %c1 iter_args(%p = %p0, %q = %q0) -> (tensor<NxNxf64>, tensor<NxNxf64>) {
    %jj = arith.addi %j, %c1 : index
    %col = tensor.extract_slice %p[0, %jj] [N, 1] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %prevc = tensor.extract_slice %p[0, %j] [N, 1] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %prev = tensor.extract_slice %prevc[PREV] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %o = tensor.empty() : tensor<Mxf64>
    %np = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%prev : tensor<Mxf64>) outs(%o : tensor<Mxf64>) {
    ^bb0(%x: f64, %out: f64):
      %m = arith.mulf %x, %a : f64
      %s = arith.addf %m, %b : f64
      %d = arith.divf %c, %s : f64
      linalg.yield %d : f64
    } -> tensor<Mxf64>
    %colu = tensor.insert_slice %np into %col[1] [M] [1] : tensor<Mxf64> into tensor<Nxf64>
    %p2 = tensor.insert_slice %colu into %p[0, %jj] [N, 1] [1, 1] : tensor<Nxf64> into tensor<NxNxf64>
    %qcol = tensor.extract_slice %q[0, %jj] [N, 1] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %ur = tensor.extract_slice %u[%jj, 0] [1, N] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %u0 = tensor.extract_slice %ur[0] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %u1 = tensor.extract_slice %ur[1] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %u2 = tensor.extract_slice %ur[2] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %qpc = tensor.extract_slice %q[0, %j] [N, 1] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %qp = tensor.extract_slice %qpc[1] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %ppc = tensor.extract_slice %p2[0, %j] [N, 1] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %pp = tensor.extract_slice %ppc[1] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %o2 = tensor.empty() : tensor<Mxf64>
    %nq = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%u0, %u1, %u2, %qp, %pp : tensor<Mxf64>, tensor<Mxf64>, tensor<Mxf64>, tensor<Mxf64>, tensor<Mxf64>)
        outs(%o2 : tensor<Mxf64>) {
    ^bb0(%x0: f64, %x1: f64, %x2: f64, %y: f64, %z: f64, %out: f64):
      %t0 = arith.mulf %x0, %a : f64
      %t1 = arith.mulf %x1, %b : f64
      %t2 = arith.subf %t0, %t1 : f64
      %t3 = arith.mulf %x2, %c : f64
      %t4 = arith.addf %t2, %t3 : f64
      %t5 = arith.mulf %y, %a : f64
      %t6 = arith.subf %t4, %t5 : f64
      %t7 = arith.mulf %z, %a : f64
      %t8 = arith.addf %t7, %b : f64
      %t9 = arith.divf %t6, %t8 : f64
      linalg.yield %t9 : f64
    } -> tensor<Mxf64>
    %qcolu = tensor.insert_slice %nq into %qcol[1] [M] [1] : tensor<Mxf64> into tensor<Nxf64>
    %q2 = tensor.insert_slice %qcolu into %q[0, %jj] [N, 1] [1, 1] : tensor<Nxf64> into tensor<NxNxf64>
    scf.yield %p2, %q2 : tensor<NxNxf64>, tensor<NxNxf64>
  }
  %v = scf.for %k = %c0 to %cm step %c1 iter_args(%w = %v0) -> (tensor<NxNxf64>) {
    %i = arith.subi %cm, %k : index
    %i1 = arith.addi %i, %c1 : index
    %row = tensor.extract_slice %w[%i, 0] [1, N] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %nr = tensor.extract_slice %w[%i1, 0] [1, N] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %n = tensor.extract_slice %nr[1] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %pc = tensor.extract_slice %r#0[0, %i] [N, 1] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %pl = tensor.extract_slice %pc[1] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %qc = tensor.extract_slice %r#1[0, %i] [N, 1] [1, 1] : tensor<NxNxf64> to tensor<Nxf64>
    %ql = tensor.extract_slice %qc[1] [M] [1] : tensor<Nxf64> to tensor<Mxf64>
    %o3 = tensor.empty() : tensor<Mxf64>
    %nv = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%pl, %n, %ql : tensor<Mxf64>, tensor<Mxf64>, tensor<Mxf64>) outs(%o3 : tensor<Mxf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %out: f64):
      %m = arith.mulf %x, %y : f64
      %s = arith.addf %m, %z : f64
      linalg.yield %s : f64
    } -> tensor<Mxf64>
    %rowu = tensor.insert_slice %nv into %row[1] [M] [1] : tensor<Mxf64> into tensor<Nxf64>
    %w2 = tensor.insert_slice %rowu into %w[%i, 0] [1, N] [1, 1] : tensor<Nxf64> into tensor<NxNxf64>
    scf.yield %w2 : tensor<NxNxf64>
  }
  return %r#0, %r#1, %v : tensor<NxNxf64>, tensor<NxNxf64>, tensor<NxNxf64>
}
"""


def _sweeps(n: int, prev: int = 1) -> str:
    m = n - 2
    return SWEEPS.replace("NxNx", f"{n}x{n}x").replace("Nx", f"{n}x").replace("Mx", f"{m}x").replace(
        "[N, 1]", f"[{n}, 1]").replace("[1, N]", f"[1, {n}]").replace("[M]", f"[{m}]").replace(
        "constant M ", f"constant {m} ").replace("[PREV]", f"[{prev}]")


def _rewritten(text: str) -> tuple[int, int, str]:
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(text)
        slices = lane_slices(module)
        blocks = lane_blocks(module)
        module.operation.verify()
        return slices, blocks, str(module)


def test_inner_lanes_become_slices_and_blocks():
    slices, blocks, text = _rewritten(_sweeps(40))
    # 9 slices of a line's slice, 3 line updates
    assert (slices, blocks) == (12, 2)
    assert "vector<16xf64>" in text and "vector<6xf64>" in text  # 38 lanes: 2 blocks of 16, one of 6
    assert "linalg.generic" not in text and "tensor.insert_slice" not in text


def test_a_step_reading_another_lane_of_its_array_is_left_alone():
    """The column sweep reading lane i+1 of the column before (p[i+1][j-1] for lane i)."""
    slices, blocks, text = _rewritten(_sweeps(20, prev=2))
    assert slices == 12 and blocks == 1  # the row sweep only
    assert text.count("linalg.generic") == 2


@pytest.mark.parametrize("n", [40, 18, 19, 5, 4, 3])
def test_inner_lane_blocks_equal_the_reference(n):
    """mlir-cpu's pipeline (the passes in it) against the reference lowering, bit for bit.
    With 3 (one inner lane) the sweeps are left to lane-blocks' single-lane rule."""
    from synth.backends.mlir_cpu import OPT_LEVEL, lowering
    from synth.backends.passes import LANE_BLOCKS
    from synth.execution import run_tensor_function_timed
    from synth.validation.reference import run_reference

    rng = np.random.default_rng(n)
    inputs = [rng.uniform(0.1, 1, (n, n)) for _ in range(4)]
    text, pipeline = lowering(_sweeps(n))
    got = run_tensor_function_timed(text, "adi", inputs, opt_level=OPT_LEVEL, pipeline=pipeline)
    assert got.rewrites.get(LANE_BLOCKS, 0) == (2 if n > 3 else 0)
    want = run_reference("linalg", _sweeps(n), "adi", inputs)
    for g, e in zip(got.outputs, want):
        np.testing.assert_array_equal(g, e)
    assert np.abs(want[2]).max() > 0
