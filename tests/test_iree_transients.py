"""A generic raise on IREE's CPU backend runs on local-sync with IREE's caching allocator
(synth.backends.iree, iree_worker.CACHING_DRIVERS), linalg as stablehlo: at dynamic
extents IREE allocates a call's transients as one block, the sum of their sizes, which
glibc maps afresh every call above 32 MB without the cache (its pages faulted in again,
3mm's generic linalg raise at LARGE 0.095 s of CPU a call against 0.060 s). Checked by the
worker's page faults: a call after the first faults in fewer pages than half of its
transients (the packed operands of three 1000 x 1000 products, 72 MB), beside the arrays
it returns; on local-task (the rule absent) each call faults them all in again. And the
product chain against NumPy at small extents (1, primes)."""

import numpy as np
import pytest

from synth.backends.iree import IreeBackend

# 3mm's form: (a b) (c d), each product's result returned
CHAIN = """func.func @t_raised(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>, %d: tensor<?x?xf64>)
    -> (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>) attributes {synth.outputs = [0, 1, 2]} {
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %m = tensor.dim %a, %i0 : tensor<?x?xf64>
  %n = tensor.dim %b, %i1 : tensor<?x?xf64>
  %p = tensor.dim %d, %i1 : tensor<?x?xf64>
  %k2 = tensor.dim %c, %i0 : tensor<?x?xf64>
  %e1 = tensor.empty(%m, %n) : tensor<?x?xf64>
  %f1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %ab = linalg.matmul ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%f1 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %e2 = tensor.empty(%k2, %p) : tensor<?x?xf64>
  %f2 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %cd = linalg.matmul ins(%c, %d : tensor<?x?xf64>, tensor<?x?xf64>) outs(%f2 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %e3 = tensor.empty(%m, %p) : tensor<?x?xf64>
  %f3 = linalg.fill ins(%zero : f64) outs(%e3 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %g = linalg.matmul ins(%ab, %cd : tensor<?x?xf64>, tensor<?x?xf64>) outs(%f3 : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %ab, %cd, %g : tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>
}
"""
PAGE = 4096


def _prepared(tmp_path):
    backend = IreeBackend("linalg", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    return backend.prepare(CHAIN, "t")


def test_a_generic_linalg_raise_runs_on_local_sync(tmp_path):
    prepared = _prepared(tmp_path)
    try:
        assert prepared.driver == "local-sync" and prepared.pipeline_name == "dynamic (local-sync)"
        rng = np.random.default_rng(31)
        for m, k, n, p in [(1, 1, 1, 1), (7, 13, 5, 3), (17, 2, 29, 31), (16, 8, 16, 8)]:
            a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n))
            c, d = rng.uniform(-1, 1, (n, k)), rng.uniform(-1, 1, (k, p))
            got = prepared.run([a, b, c, d])
            for g, w in zip(got, [a @ b, c @ d, (a @ b) @ (c @ d)]):
                assert g.shape == w.shape
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=f"{(m, k, n, p)}")
    finally:
        prepared.close()


def test_a_calls_transients_are_not_faulted_in_again(tmp_path):
    prepared = _prepared(tmp_path)
    try:
        n = 1000
        rng = np.random.default_rng(32)
        arrays = [rng.uniform(-1, 1, (n, n)) for _ in range(4)]
        # each product's packed operands and result (tiles of 8 rows, 16 columns at most)
        transients = 3 * 3 * (-(-n // 16) * 16) * n * 8
        returned = 3 * n * n * 8
        per_call = []
        prepared.run(arrays)  # the first call maps everything
        before = prepared.worker.call(("faults",), "page faults")
        for _ in range(2):
            got = prepared.run(arrays)
            after = prepared.worker.call(("faults",), "page faults")
            per_call.append(after - before)
            before = after
        np.testing.assert_allclose(got[2], (arrays[0] @ arrays[1]) @ (arrays[2] @ arrays[3]), rtol=1e-9, atol=1e-9)
        assert max(per_call) < (transients / 2 + returned) / PAGE, per_call
    finally:
        prepared.close()
