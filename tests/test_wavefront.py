"""The wavefront rewrite of stencil time loops (synth.backends.wavefront): the lags it
derives, the loops it leaves alone, and the values of a rewritten loop on the mlir-cpu
backend (bitwise those of the step-by-step loop)."""

from pathlib import Path

import numpy as np
import pytest

from synth.backends.mlir_cpu import MlirCpuBackend

# three updates per step with reads above, below and at the row, of arrays written before
# and after in the step, and one update of an array from its own row
STENCIL = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%a0: tensor<10x8xf64>, %b0: tensor<10x8xf64>, %c0: tensor<10x8xf64>) -> (tensor<10x8xf64>, tensor<10x8xf64>, tensor<10x8xf64>) attributes {synth.outputs = [0, 1, 2]} {
  %lo = arith.constant 0 : index
  %hi = arith.constant 6 : index
  %one = arith.constant 1 : index
  %half = arith.constant 0.5 : f64
  %quarter = arith.constant 0.25 : f64
  %tenth = arith.constant 0.1 : f64
  %r:3 = scf.for %t = %lo to %hi step %one iter_args(%a = %a0, %b = %b0, %c = %c0) -> (tensor<10x8xf64>, tensor<10x8xf64>, tensor<10x8xf64>) {
    %up = tensor.extract_slice %a[0, 1] [8, 6] [1, 1] : tensor<10x8xf64> to tensor<8x6xf64>
    %down = tensor.extract_slice %a[2, 1] [8, 6] [1, 1] : tensor<10x8xf64> to tensor<8x6xf64>
    %e0 = tensor.empty() : tensor<8x6xf64>
    %g0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%up, %down : tensor<8x6xf64>, tensor<8x6xf64>) outs(%e0 : tensor<8x6xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %s = arith.addf %x, %y : f64
      %m = arith.mulf %s, %half : f64
      linalg.yield %m : f64
    } -> tensor<8x6xf64>
    %b1 = tensor.insert_slice %g0 into %b[1, 1] [8, 6] [1, 1] : tensor<8x6xf64> into tensor<10x8xf64>
    %bu = tensor.extract_slice %b1[0, 0] [8, 8] [1, 1] : tensor<10x8xf64> to tensor<8x8xf64>
    %bc = tensor.extract_slice %b1[1, 0] [8, 8] [1, 1] : tensor<10x8xf64> to tensor<8x8xf64>
    %e1 = tensor.empty() : tensor<8x8xf64>
    %g1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%bu, %bc : tensor<8x8xf64>, tensor<8x8xf64>) outs(%e1 : tensor<8x8xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %m = arith.mulf %y, %quarter : f64
      %s = arith.subf %x, %m : f64
      linalg.yield %s : f64
    } -> tensor<8x8xf64>
    %c1 = tensor.insert_slice %g1 into %c[1, 0] [8, 8] [1, 1] : tensor<8x8xf64> into tensor<10x8xf64>
    %ac = tensor.extract_slice %a[1, 1] [8, 6] [1, 1] : tensor<10x8xf64> to tensor<8x6xf64>
    %cd = tensor.extract_slice %c1[2, 1] [8, 6] [1, 1] : tensor<10x8xf64> to tensor<8x6xf64>
    %e2 = tensor.empty() : tensor<8x6xf64>
    %g2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%ac, %cd : tensor<8x6xf64>, tensor<8x6xf64>) outs(%e2 : tensor<8x6xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %m = arith.mulf %y, %tenth : f64
      %s = arith.addf %x, %m : f64
      linalg.yield %s : f64
    } -> tensor<8x6xf64>
    %a1 = tensor.insert_slice %g2 into %a[1, 1] [8, 6] [1, 1] : tensor<8x6xf64> into tensor<10x8xf64>
    scf.yield %a1, %b1, %c1 : tensor<10x8xf64>, tensor<10x8xf64>, tensor<10x8xf64>
  }
  return %r#0, %r#1, %r#2 : tensor<10x8xf64>, tensor<10x8xf64>, tensor<10x8xf64>
}
"""


def _reference(a, b, c, steps=6):
    a, b, c = a.copy(), b.copy(), c.copy()
    for _ in range(steps):
        b[1:9, 1:7] = (a[0:8, 1:7] + a[2:10, 1:7]) * 0.5
        c[1:9, :] = b[0:8, :] - b[1:9, :] * 0.25
        a[1:9, 1:7] = a[1:9, 1:7] + c[2:10, 1:7] * 0.1
    return [a, b, c]


def _rewritten(text: str, cap: int = 10, rows: int | None = None) -> tuple:
    from mlir import ir

    from synth.backends import wavefront

    with ir.Context():
        module = ir.Module.parse(text)
        loop = wavefront.ops_named(module, ("scf.for",))[0]
        form = wavefront.loop_updates(loop)
        found = None if form is None else wavefront.lags(form[0])
        count = wavefront.wavefront(module, cap, wavefront.BLOCK_ROWS if rows is None else rows)
        assert module.operation.verify()
        return found, count, str(module)


@pytest.mark.parametrize("rows,cap", [(1, 10), (3, 10), (4, 10), (3, 2), (2, 2)])
def test_wavefront_lags_and_values(rows, cap):
    """Lags: c reads b's rows q - 1 and q of this step (l = 0), a reads c's row q + 1 of this
    step and must not overwrite a's row q - 1 before b reads it (l = 1); b reads a's rows
    q +- 1 of the previous step, written one row later (P = 2). The rewritten loop (6 steps
    per sweep, or 2) gives NumPy's values bit for bit, row by row and by blocks of rows (3:
    not a divisor of the 8 rows each update writes). With blocks, the waves where every
    block is in its update's rows (none at 6 steps, one at 2) compute them as they are;
    the waves before and after move each block into its update's rows and keep the rows
    that are not the block's."""
    found, count, text = _rewritten(STENCIL, cap, rows)
    assert found == ([0, 0, 1], 2) and count == 1
    steps = min(cap, 6)
    loops = 1 if rows == 1 else (3 if cap == 2 else 2)
    assert text.count("scf.if") == (steps * 3 if rows == 1 else 0)
    assert text.count("scf.for") == 1 + loops
    assert text.count("linalg.generic") == 3 * steps * loops
    assert text.count("arith.select") == (0 if rows == 1 else 3 * steps * 2)
    if rows > 1:
        assert f"tensor<{rows}x6xf64>" in text and f"tensor<{rows}x8xf64>" in text
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, (10, 8)) for _ in range(3)]
    prepared = MlirCpuBackend().prepare(text, "f")
    got = prepared.run([a.copy() for a in arrays])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    for g, w in zip(got, _reference(*arrays)):
        np.testing.assert_array_equal(g, w)


# the same loop, its step count an argument (a generic raise's time loop)
RUN_TIME_COUNT = STENCIL.replace(
    "func.func @f(%a0", "func.func @f(%n: tensor<i32>, %a0").replace(
    "%hi = arith.constant 6 : index",
    "%ni = tensor.extract %n[] : tensor<i32>\n  %hi = arith.index_cast %ni : i32 to index")


def test_wavefront_sweeps_a_count_known_at_run_time_and_runs_the_rest():
    """A time loop to a run-time count: sweeps of T steps (T as for a count every T up to
    10 divides), then the loop itself, marked, runs the steps left; bitwise NumPy's values
    for counts that are a multiple of T, not one, smaller than T, and 0."""
    assert RUN_TIME_COUNT != STENCIL
    found, count, text = _rewritten(RUN_TIME_COUNT)
    assert found == ([0, 0, 1], 2) and count == 1
    assert text.count("synth.wavefront_rest") == 1 and "arith.divsi" in text
    rng = np.random.default_rng(1)
    arrays = [rng.uniform(-1, 1, (10, 8)) for _ in range(3)]
    prepared = MlirCpuBackend().prepare(text, "f")
    for steps in (20, 23, 7, 1, 0):
        got = prepared.run([np.array(steps, dtype=np.int32)] + [a.copy() for a in arrays])
        assert prepared.pipeline_name == "tiled", prepared.fallback_reason
        for g, w in zip(got, _reference(*arrays, steps=steps)):
            np.testing.assert_array_equal(g, w)


def test_window_budget_follows_the_caches():
    """Arrays that fit in half the L3: the window stays in half the L2; arrays that do not
    (heat-3d's 27.6 MB on a 32 MB L3): a quarter of the L3. The steps per sweep are the
    largest divisor of the trips whose window fits."""
    from synth.backends.host import cache_bytes, parse_size
    from synth.backends.wavefront import block_rows, steps_per_sweep, window_budget

    mb = 1 << 20
    assert window_budget(20 * mb, l2=2 * mb, l3=300 * mb) == 1 * mb
    assert window_budget(28 * mb, l2=1 * mb, l3=32 * mb) == 8 * mb
    assert window_budget(28 * mb, l2=4 * mb, l3=8 * mb) == 2 * mb  # never below half the L2
    plane = 2 * 120 * 120 * 8  # heat-3d's two arrays, one plane each
    window = lambda t: 2 * t + 2  # noqa: E731 (P = 2, lags 0 and 1, reach 1)
    assert steps_per_sweep(500, window, plane, 1 * mb) == 1
    assert steps_per_sweep(500, window, plane, 8 * mb) == 10
    assert steps_per_sweep(500, window, plane, 8 * mb, cap=4) == 4
    assert steps_per_sweep(7, window, plane, 8 * mb) == 7
    # rows per block: jacobi-2d's (two rows of 1300 doubles) 4; heat-3d's planes none above 1
    assert block_rows(2 * 1300 * 8, l2=1 * mb) == 4 and block_rows(plane, l2=1 * mb) == 1
    assert block_rows(100 << 10, l2=1 * mb) == 3 and block_rows(2 * 1300 * 8, 2, l2=1 * mb) == 2
    assert [parse_size(x) for x in ("32K", "1024K", "2M", "512")] == [32 << 10, 1 << 20, 2 << 20, 512]
    with pytest.raises(ValueError):
        parse_size("lots")
    assert cache_bytes(2) > 0 and cache_bytes(3) >= cache_bytes(2)


@pytest.mark.parametrize("change", ["own row above", "stale read", "counter read"])
def test_wavefront_leaves_loops_it_cannot_reorder(change):
    """An update reading its own array above the row it writes (the row above is already
    new), a read of an array's value from before its update in the step, and a step that
    reads the counter are left as they are."""
    text = {
        "own row above": STENCIL.replace("%ac = tensor.extract_slice %a[1, 1]", "%ac = tensor.extract_slice %a[0, 1]"),
        "stale read": STENCIL.replace("%cd = tensor.extract_slice %c1[2, 1]", "%cd = tensor.extract_slice %c[2, 1]"),
        "counter read": STENCIL.replace("%m = arith.mulf %y, %tenth : f64",
                                        "%ti = arith.index_cast %t : index to i64\n      %tf = arith.sitofp %ti : i64 to f64\n"
                                        "      %m = arith.mulf %y, %tf : f64"),
    }[change]
    assert text != STENCIL
    found, count, _ = _rewritten(text)
    assert count == 0


# jacobi-1d's step: two 3-point sweeps over vectors, the second reading what the first wrote
VECTOR_STENCIL = """
#id = affine_map<(d0) -> (d0)>
func.func @f(%a0: tensor<21xf64>, %b0: tensor<21xf64>) -> (tensor<21xf64>, tensor<21xf64>) attributes {synth.outputs = [0, 1]} {
  %lo = arith.constant 0 : index
  %hi = arith.constant 7 : index
  %one = arith.constant 1 : index
  %third = arith.constant 0.33333 : f64
  %r:2 = scf.for %t = %lo to %hi step %one iter_args(%a = %a0, %b = %b0) -> (tensor<21xf64>, tensor<21xf64>) {
    %l = tensor.extract_slice %a[0] [19] [1] : tensor<21xf64> to tensor<19xf64>
    %c = tensor.extract_slice %a[1] [19] [1] : tensor<21xf64> to tensor<19xf64>
    %h = tensor.extract_slice %a[2] [19] [1] : tensor<21xf64> to tensor<19xf64>
    %e0 = tensor.empty() : tensor<19xf64>
    %g0 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%l, %c, %h : tensor<19xf64>, tensor<19xf64>, tensor<19xf64>) outs(%e0 : tensor<19xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %s = arith.addf %x, %y : f64
      %s2 = arith.addf %s, %z : f64
      %m = arith.mulf %s2, %third : f64
      linalg.yield %m : f64
    } -> tensor<19xf64>
    %b1 = tensor.insert_slice %g0 into %b[1] [19] [1] : tensor<19xf64> into tensor<21xf64>
    %bl = tensor.extract_slice %b1[0] [19] [1] : tensor<21xf64> to tensor<19xf64>
    %bc = tensor.extract_slice %b1[1] [19] [1] : tensor<21xf64> to tensor<19xf64>
    %bh = tensor.extract_slice %b1[2] [19] [1] : tensor<21xf64> to tensor<19xf64>
    %e1 = tensor.empty() : tensor<19xf64>
    %g1 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%bl, %bc, %bh : tensor<19xf64>, tensor<19xf64>, tensor<19xf64>) outs(%e1 : tensor<19xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %s = arith.addf %x, %y : f64
      %s2 = arith.addf %s, %z : f64
      %m = arith.mulf %s2, %third : f64
      linalg.yield %m : f64
    } -> tensor<19xf64>
    %a1 = tensor.insert_slice %g1 into %a[1] [19] [1] : tensor<19xf64> into tensor<21xf64>
    scf.yield %a1, %b1 : tensor<21xf64>, tensor<21xf64>
  }
  return %r#0, %r#1 : tensor<21xf64>, tensor<21xf64>
}
"""


def _jacobi_1d(a, b, steps):
    a, b = a.copy(), b.copy()
    for _ in range(steps):
        b[1:-1] = (a[:-2] + a[1:-1] + a[2:]) * 0.33333
        a[1:-1] = (b[:-2] + b[1:-1] + b[2:]) * 0.33333
    return a, b


def test_vector_stencil_sweeps_are_vectorized():
    """A time loop's sweeps over vectors (jacobi-1d) are marked, tiled by the vector width
    and vectorized (two full tiles of 8, then the last 3 elements, per sweep); the values
    are NumPy's in the same order of operations (bitwise)."""
    from mlir import ir

    from synth.backends.mlir_cpu import ROW1_TILE, bufferizing_pipeline
    from synth.execution import run_stages

    with ir.Context():
        module = ir.Module.parse(VECTOR_STENCIL)
        run_stages(module, bufferizing_pipeline())
        text = str(module)
    assert text.count(f"vector<{ROW1_TILE}xf64>") >= 2 * 4 and "vector<3xf64>" in text
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-1, 1, 21), rng.uniform(-1, 1, 21)
    prepared = MlirCpuBackend().prepare(VECTOR_STENCIL, "f")
    out = prepared.run([a, b])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    want = _jacobi_1d(a, b, 7)
    assert all(np.array_equal(o, w) for o, w in zip(out, want))


# fdtd-2d's step as the linalg raise has it after fusion: ex from hz's columns, ey's row 0
# from element 0 of a queue of source values, ey's other rows from hz's rows, hz from the
# new ex and ey; the queue rotated left by one (its element 0 moved to the end)
FDTD = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#head = affine_map<(d0, d1) -> (0)>
func.func @f(%ex0: tensor<10x8xf64>, %ey0: tensor<10x8xf64>, %hz0: tensor<10x8xf64>, %q0: tensor<6xf64>) -> (tensor<10x8xf64>, tensor<10x8xf64>, tensor<10x8xf64>) attributes {synth.outputs = [0, 1, 2]} {
  %lo = arith.constant 0 : index
  %hi = arith.constant 6 : index
  %one = arith.constant 1 : index
  %half = arith.constant 0.5 : f64
  %sev = arith.constant 0.7 : f64
  %r:4 = scf.for %t = %lo to %hi step %one iter_args(%ex = %ex0, %ey = %ey0, %hz = %hz0, %q = %q0) -> (tensor<10x8xf64>, tensor<10x8xf64>, tensor<10x8xf64>, tensor<6xf64>) {
    %x0 = tensor.extract_slice %ex[0, 1] [10, 7] [1, 1] : tensor<10x8xf64> to tensor<10x7xf64>
    %h1 = tensor.extract_slice %hz[0, 1] [10, 7] [1, 1] : tensor<10x8xf64> to tensor<10x7xf64>
    %h0 = tensor.extract_slice %hz[0, 0] [10, 7] [1, 1] : tensor<10x8xf64> to tensor<10x7xf64>
    %e0 = tensor.empty() : tensor<10x7xf64>
    %g0 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x0, %h1, %h0 : tensor<10x7xf64>, tensor<10x7xf64>, tensor<10x7xf64>) outs(%e0 : tensor<10x7xf64>) {
    ^bb0(%x: f64, %a: f64, %b: f64, %o: f64):
      %d = arith.subf %a, %b : f64
      %m = arith.mulf %d, %half : f64
      %s = arith.subf %x, %m : f64
      linalg.yield %s : f64
    } -> tensor<10x7xf64>
    %ex1 = tensor.insert_slice %g0 into %ex[0, 1] [10, 7] [1, 1] : tensor<10x7xf64> into tensor<10x8xf64>
    %e1 = tensor.empty() : tensor<1x8xf64>
    %g1 = linalg.generic {indexing_maps = [#head, #id], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<6xf64>) outs(%e1 : tensor<1x8xf64>) {
    ^bb0(%v: f64, %o: f64):
      linalg.yield %v : f64
    } -> tensor<1x8xf64>
    %ey1 = tensor.insert_slice %g1 into %ey[0, 0] [1, 8] [1, 1] : tensor<1x8xf64> into tensor<10x8xf64>
    %y1 = tensor.extract_slice %ey1[1, 0] [9, 8] [1, 1] : tensor<10x8xf64> to tensor<9x8xf64>
    %k1 = tensor.extract_slice %hz[1, 0] [9, 8] [1, 1] : tensor<10x8xf64> to tensor<9x8xf64>
    %k0 = tensor.extract_slice %hz[0, 0] [9, 8] [1, 1] : tensor<10x8xf64> to tensor<9x8xf64>
    %e2 = tensor.empty() : tensor<9x8xf64>
    %g2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%y1, %k1, %k0 : tensor<9x8xf64>, tensor<9x8xf64>, tensor<9x8xf64>) outs(%e2 : tensor<9x8xf64>) {
    ^bb0(%y: f64, %a: f64, %b: f64, %o: f64):
      %d = arith.subf %a, %b : f64
      %m = arith.mulf %d, %half : f64
      %s = arith.subf %y, %m : f64
      linalg.yield %s : f64
    } -> tensor<9x8xf64>
    %ey2 = tensor.insert_slice %g2 into %ey1[1, 0] [9, 8] [1, 1] : tensor<9x8xf64> into tensor<10x8xf64>
    %z = tensor.extract_slice %hz[0, 0] [9, 7] [1, 1] : tensor<10x8xf64> to tensor<9x7xf64>
    %xr = tensor.extract_slice %ex1[0, 1] [9, 7] [1, 1] : tensor<10x8xf64> to tensor<9x7xf64>
    %xl = tensor.extract_slice %ex1[0, 0] [9, 7] [1, 1] : tensor<10x8xf64> to tensor<9x7xf64>
    %yd = tensor.extract_slice %ey2[1, 0] [9, 7] [1, 1] : tensor<10x8xf64> to tensor<9x7xf64>
    %yu = tensor.extract_slice %ey2[0, 0] [9, 7] [1, 1] : tensor<10x8xf64> to tensor<9x7xf64>
    %e3 = tensor.empty() : tensor<9x7xf64>
    %g3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%z, %xr, %xl, %yd, %yu : tensor<9x7xf64>, tensor<9x7xf64>, tensor<9x7xf64>, tensor<9x7xf64>, tensor<9x7xf64>) outs(%e3 : tensor<9x7xf64>) {
    ^bb0(%h: f64, %a: f64, %b: f64, %c: f64, %d: f64, %o: f64):
      %s1 = arith.subf %a, %b : f64
      %s2 = arith.addf %s1, %c : f64
      %s3 = arith.subf %s2, %d : f64
      %m = arith.mulf %s3, %sev : f64
      %s = arith.subf %h, %m : f64
      linalg.yield %s : f64
    } -> tensor<9x7xf64>
    %hz1 = tensor.insert_slice %g3 into %hz[0, 0] [9, 7] [1, 1] : tensor<9x7xf64> into tensor<10x8xf64>
    %tail = tensor.extract_slice %q[1] [5] [1] : tensor<6xf64> to tensor<5xf64>
    %et = tensor.empty() : tensor<5xf64>
    %tc = linalg.copy ins(%tail : tensor<5xf64>) outs(%et : tensor<5xf64>) -> tensor<5xf64>
    %head = tensor.extract_slice %q[0] [1] [1] : tensor<6xf64> to tensor<1xf64>
    %eh = tensor.empty() : tensor<1xf64>
    %hc = linalg.copy ins(%head : tensor<1xf64>) outs(%eh : tensor<1xf64>) -> tensor<1xf64>
    %q1 = tensor.insert_slice %tc into %q[0] [5] [1] : tensor<5xf64> into tensor<6xf64>
    %q2 = tensor.insert_slice %hc into %q1[5] [1] [1] : tensor<1xf64> into tensor<6xf64>
    scf.yield %ex1, %ey2, %hz1, %q2 : tensor<10x8xf64>, tensor<10x8xf64>, tensor<10x8xf64>, tensor<6xf64>
  }
  return %r#0, %r#1, %r#2 : tensor<10x8xf64>, tensor<10x8xf64>, tensor<10x8xf64>
}
"""


def _fdtd(ex, ey, hz, fict):
    ex, ey, hz = ex.copy(), ey.copy(), hz.copy()
    for t in range(len(fict)):
        ex[:, 1:] = ex[:, 1:] - (hz[:, 1:] - hz[:, :-1]) * 0.5
        ey[0, :] = fict[t]
        ey[1:, :] = ey[1:, :] - (hz[1:, :] - hz[:-1, :]) * 0.5
        hz[:-1, :-1] = hz[:-1, :-1] - (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]) * 0.7
    return ex, ey, hz


@pytest.mark.parametrize("cap", [10, 2])
def test_wavefront_takes_a_queue_and_an_array_written_by_two_updates(cap):
    """fdtd-2d's step: ey's two updates (its row 0 from the queue's element 0, its other
    rows) share one lag; hz reads ey's row q + 1 and ex's row q of this step (lag 1 after
    ex's and ey's 0), and ey and ex read hz's rows q - 1 and q of the previous step, so a
    step starts one row after the one before (P = 1). Step s of a sweep reads the queue's
    element s, and the queue is rotated by the sweep's steps. By blocks of 4 rows, ey's row
    0 (fewer rows than a block) is computed where a block has it and kept elsewhere, and
    left out of the waves where every block is inside its update's rows (there are such
    waves at 2 steps per sweep). The rewritten loop (6 steps in one sweep, or 2) gives
    NumPy's values bit for bit."""
    found, count, text = _rewritten(FDTD, cap, 4)
    assert found == ([0, 0, 0, 1], 1) and count == 1
    steps = min(cap, 6)
    assert "tensor<4x8xf64>" in text and "scf.if" not in text
    assert text.count("scf.for") == 1 + (3 if cap == 2 else 2)
    # per step, in the waves before and after: 3 blocks and ey's row 0; in between: 3 blocks
    assert text.count("linalg.generic") == steps * (4 * 2 + (3 if cap == 2 else 0))
    rng = np.random.default_rng(5)
    arrays = [rng.uniform(-1, 1, (10, 8)) for _ in range(3)] + [rng.uniform(-1, 1, 6)]
    prepared = MlirCpuBackend().prepare(text, "f")
    got = prepared.run([a.copy() for a in arrays])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    for g, w in zip(got, _fdtd(*arrays)):
        np.testing.assert_array_equal(g, w)


def test_wavefront_takes_a_queue_head_read_as_a_rank_0_slice():
    """The queue's element 0 read as a rank-0 slice broadcast by a map to () (fdtd-2d's
    shape-generic raise made static) is a queue read like a map to (0): the loop is
    rewritten and its values are NumPy's bit for bit."""
    text = FDTD.replace("#head = affine_map<(d0, d1) -> (0)>", "#head = affine_map<(d0, d1) -> ()>").replace(
        "%e1 = tensor.empty() : tensor<1x8xf64>",
        "%qh = tensor.extract_slice %q[0] [1] [1] : tensor<6xf64> to tensor<f64>\n    %e1 = tensor.empty() : tensor<1x8xf64>"
    ).replace("ins(%q : tensor<6xf64>) outs(%e1", "ins(%qh : tensor<f64>) outs(%e1")
    assert text.count("%qh") == 2
    found, count, text = _rewritten(text, 10, 4)
    assert found == ([0, 0, 0, 1], 1) and count == 1
    rng = np.random.default_rng(6)
    arrays = [rng.uniform(-1, 1, (10, 8)) for _ in range(3)] + [rng.uniform(-1, 1, 6)]
    prepared = MlirCpuBackend().prepare(text, "f")
    got = prepared.run([a.copy() for a in arrays])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    for g, w in zip(got, _fdtd(*arrays)):
        np.testing.assert_array_equal(g, w)


def test_wavefront_reads_a_queue_shorter_than_the_sweep_cyclically():
    """A queue of 4 source values over 6 steps (a sweep of up to 6 steps rotates it more
    than once round): step s reads element s mod 4. Bitwise NumPy's values."""
    text = FDTD.replace("tensor<6xf64>", "tensor<4xf64>").replace("tensor<5xf64>", "tensor<3xf64>") \
        .replace("%q[1] [5] [1]", "%q[1] [3] [1]").replace("into %q[0] [5] [1]", "into %q[0] [3] [1]") \
        .replace("into %q1[5] [1] [1]", "into %q1[3] [1] [1]")
    assert text.count("tensor<4xf64>") >= 4
    found, count, _ = _rewritten(text)
    assert count == 1
    rng = np.random.default_rng(9)
    arrays = [rng.uniform(-1, 1, (10, 8)) for _ in range(3)] + [rng.uniform(-1, 1, 4)]
    prepared = MlirCpuBackend().prepare(text, "f")
    got = prepared.run([a.copy() for a in arrays])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    for g, w in zip(got, _fdtd(*arrays[:3], np.resize(arrays[3], 6))):
        np.testing.assert_array_equal(g, w)


def test_wavefront_leaves_a_queue_it_does_not_rotate():
    """A rank-1 iter_arg whose step is not a rotation left by one (here element 3 moved to
    the end) is not a queue the sweep can read ahead in: the loop is left as it is."""
    text = FDTD.replace("%head = tensor.extract_slice %q[0] [1] [1]", "%head = tensor.extract_slice %q[3] [1] [1]")
    assert text != FDTD
    found, count, _ = _rewritten(text)
    assert count == 0


FDTD_STABLEHLO = Path(__file__).parent / "data" / "wavefront" / "fdtd_2d_10x8.stablehlo.mlir"


def test_the_stablehlo_fdtd_step_lowers_to_the_form_the_wavefront_takes():
    """The stablehlo raise of fdtd-2d (PolyBench's raise, at 10 x 8 and 6 steps) sets ey's
    row 0 by a select on iota == 0 and rotates its queue by a concatenate. Lowered to linalg
    they are an insert of the row and the queue's two inserts (no generic over the whole
    array, no scf.if per element), the row reads the queue's element 0 as an operand, and
    the wavefront sweeps the steps. The values are NumPy's, bit for bit."""
    from mlir import ir

    from synth.backends import row_passes, wavefront
    from synth.backends.mlir_cpu import tiled_pipeline
    from synth.backends.stablehlo_linalg import to_linalg
    from synth.backends.passes import WAVEFRONT
    from synth.execution import run_stages

    text = FDTD_STABLEHLO.read_text()
    linalg = row_passes.fuse_rows(to_linalg(text)).text
    assert "scf.if" not in linalg and "linalg.index" not in linalg
    stages = tiled_pipeline()
    with ir.Context():
        module = ir.Module.parse(linalg)
        run_stages(module, stages.before(WAVEFRONT))
        assert wavefront.wavefront(module) == 1
        assert module.operation.verify()
    rng = np.random.default_rng(7)
    arrays = [rng.uniform(-1, 1, (10, 8)) for _ in range(3)] + [rng.uniform(-1, 1, 6)]
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "kernel_fdtd_2d_raised")
    sizes = [np.array(n, dtype=np.int32) for n in (6, 10, 8)]
    got = prepared.run(sizes + [a.copy() for a in arrays])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    for g, w in zip(got, _fdtd(*arrays)):
        np.testing.assert_array_equal(g, w)
