"""A static raise whose compiled module keeps loops on the host (a stablehlo while, an scf.for
carrying tensors) runs on IREE's local-sync driver when the backend has one thread
(synth.backends.iree.host_loop_driver): on local-task IREE 3.13 gives each iteration's
carried array a fresh allocation whose pages fault in again every iteration. The rule's
choice, and both forms (deriche's column sweep as a stablehlo while, a row sweep as an
scf.for over linalg) on real IREE against NumPy at several sizes, on the driver the rule
picks and on local-task."""

import numpy as np
import pytest

from synth.backends.iree import IreeBackend, host_loop_driver


def _column_sweep(n: int, m: int) -> str:
    """@c_raised(a: n x m, v: n): w = v, then for j in 0..m-1: w = w * 0.5 + v, column j of a = w."""
    a, v, col = f"tensor<{n}x{m}xf64>", f"tensor<{n}xf64>", f"tensor<{n}x1xf64>"
    return f"""func.func @c_raised(%a: {a}, %v: {v}) -> {a} attributes {{synth.outputs = [0]}} {{
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %m = stablehlo.constant dense<{m}> : tensor<i64>
  %half = stablehlo.constant dense<0.5> : {v}
  %r:3 = stablehlo.while(%j = %c0, %x = %a, %w = %v) : tensor<i64>, {a}, {v}
  cond {{
    %p = stablehlo.compare LT, %j, %m : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %h = stablehlo.multiply %w, %half : {v}
    %w2 = stablehlo.add %h, %v : {v}
    %s = stablehlo.reshape %w2 : ({v}) -> {col}
    %x2 = stablehlo.dynamic_update_slice %x, %s, %c0, %j : ({a}, {col}, tensor<i64>, tensor<i64>) -> {a}
    %j2 = stablehlo.add %j, %c1 : tensor<i64>
    stablehlo.return %j2, %x2, %w2 : tensor<i64>, {a}, {v}
  }}
  return %r#1 : {a}
}}
"""


def _row_sweep(n: int, m: int) -> str:
    """@r_raised(a: n x m, v: m): w = v, then for i in 0..n-1: w = w * 0.5 + v, row i of a = w."""
    a, v = f"tensor<{n}x{m}xf64>", f"tensor<{m}xf64>"
    return f"""func.func @r_raised(%a: {a}, %v: {v}) -> {a} attributes {{synth.outputs = [0]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  %half = arith.constant 0.5 : f64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %w = %v) -> ({a}, {v}) {{
    %e = tensor.empty() : {v}
    %w2 = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}} ins(%w, %v : {v}, {v}) outs(%e : {v}) {{
    ^bb0(%p: f64, %q: f64, %o: f64):
      %t = arith.mulf %p, %half : f64
      %u = arith.addf %t, %q : f64
      linalg.yield %u : f64
    }} -> {v}
    %x2 = tensor.insert_slice %w2 into %x[%i, 0] [1, {m}] [1, 1] : {v} into {a}
    scf.yield %x2, %w2 : {a}, {v}
  }}
  return %r#0 : {a}
}}
"""


def _expected(a: np.ndarray, v: np.ndarray, axis: int) -> np.ndarray:
    out, w = a.copy(), v.copy()
    for k in range(a.shape[axis]):
        w = w * 0.5 + v
        if axis == 1:
            out[:, k] = w
        else:
            out[k, :] = w
    return out


def test_the_rule_picks_local_sync_for_host_loops_on_one_thread():
    while_text, for_text = _column_sweep(4, 3), _row_sweep(4, 3)
    assert host_loop_driver(while_text, "llvm-cpu", 1) == "local-sync"
    assert host_loop_driver(for_text, "llvm-cpu", 1) == "local-sync"
    no_loop = "func.func @f(%a: tensor<4xf64>) -> tensor<4xf64> {\n  %b = stablehlo.add %a, %a : tensor<4xf64>\n" \
              "  return %b : tensor<4xf64>\n}\n"
    assert host_loop_driver(no_loop, "llvm-cpu", 1) is None
    assert host_loop_driver(while_text, "llvm-cpu", None) is None  # all cores: local-task's workers
    assert host_loop_driver(while_text, "llvm-cpu", 4) is None
    assert host_loop_driver(while_text, "cuda", 1) is None


@pytest.mark.parametrize("target, make, func, axis", [
    ("stablehlo", _column_sweep, "c", 1),
    ("linalg", _row_sweep, "r", 0),
])
def test_host_loops_on_iree_match_numpy_on_either_driver(tmp_path, target, make, func, axis):
    """On one thread the module is loaded on local-sync (pipeline `local-sync (host loops)`),
    on all cores on local-task as before; both right at every size."""
    rng = np.random.default_rng(7)
    for threads, driver in ((1, "local-sync"), (None, "local-task")):
        backend = IreeBackend(target, cache_dir=tmp_path / "iree", threads=threads)
        if not backend.available():
            pytest.skip("IREE is not installed")
        for n, m in ((1, 1), (5, 3), (17, 40), (64, 9)):
            prepared = backend.prepare(make(n, m), func)
            try:
                assert prepared.driver == driver
                assert getattr(prepared, "pipeline_name", None) == ("local-sync (host loops)" if threads == 1 else None)
                a = rng.uniform(-1, 1, (n, m))
                v = rng.uniform(-1, 1, (n if axis == 1 else m,))
                got = prepared.run([a.copy(), v.copy()])
                np.testing.assert_allclose(got[0], _expected(a, v, axis), rtol=1e-13, atol=1e-15)
            finally:
                prepared.close()
