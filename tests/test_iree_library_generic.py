"""A shape-generic linalg raise with library loops (cholesky's column loop, marked
`synth.library`) on IREE: compiled per input shapes, so that the loop gets its blocked form
(synth.backends.library_linalg, static sizes only) where n has a panel width, as the static
raise does; compiled as it is, the unblocked loop ran about 2x the static raise's time at
LARGE. The values at sizes with and without a panel width are the original loops'."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import POLYBENCH, mini_generic_raise

from synth.backends.iree import IreeBackend, PerShapeBlocked
from synth.execution import run_function


def test_generic_cholesky_compiled_per_shape_with_panels(tmp_path):
    from synth.analysis.resize import resize_module
    from synth.backends import library_linalg
    from synth.backends.registry import generic_entry
    from synth.frontend.reader import load_input
    from synth.semantics.specialize import specialized_module

    backend = IreeBackend("linalg", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    text = mini_generic_raise(tmp_path, "cholesky", "linalg")
    prepared = backend.prepare(text, "kernel_cholesky")
    assert isinstance(prepared, PerShapeBlocked)
    entry = generic_entry(text, "kernel_cholesky")
    for n, blocked in ((64, 1), (37, 0)):  # 37: no panel width divides it, the unblocked loop
        assert library_linalg.lower(specialized_module(text, entry, [(), (n, n)]))[1] == blocked
        rng = np.random.default_rng(n)
        m = rng.uniform(-1, 1, (n, n))
        a = m @ m.T + n * np.eye(n)
        original = resize_module(load_input(POLYBENCH / "cholesky.mlir"), ["kernel_cholesky"], "mini", (n,))
        want = run_function(original, "kernel_cholesky", [("i32", n), a.copy()]).outputs[1]
        (got,) = prepared.run([np.asarray(n, dtype=np.int32), a])
        assert prepared.pipeline_name == "per-shape (blocked library loops)"
        np.testing.assert_allclose(np.tril(got), np.tril(want), rtol=1e-10, atol=1e-12, err_msg=f"n = {n}")
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=f"n = {n}")


def test_generic_stablehlo_lu_compiled_per_shape_with_panels(tmp_path):
    """lu's generic stablehlo raise (its LU loop marked `synth.library = "lu"`) on IREE:
    compiled per input shapes too, so that the loop gets library_stablehlo's blocked form
    where n has a panel width (compiled as it is, the unblocked loop took 38.5 s a call at
    LARGE against 1.86 s for the static raise); the values are the original loops'."""
    from synth.analysis.resize import resize_module
    from synth.backends import library_stablehlo
    from synth.backends.registry import generic_entry
    from synth.frontend.reader import load_input
    from synth.semantics.specialize import specialized_module

    backend = IreeBackend("stablehlo", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    text = mini_generic_raise(tmp_path, "lu", "stablehlo")
    assert 'synth.library = "lu"' in text
    prepared = backend.prepare(text, "kernel_lu")
    assert isinstance(prepared, PerShapeBlocked)
    entry = generic_entry(text, "kernel_lu")
    for n, blocked in ((64, True), (37, False)):  # 37: no panel width divides it, the unblocked loop
        assert (library_stablehlo.lower(specialized_module(text, entry, [(), (n, n)]))[1] > 0) == blocked
        rng = np.random.default_rng(n)
        a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n)  # diagonally dominant: no pivot needed
        original = resize_module(load_input(POLYBENCH / "lu.mlir"), ["kernel_lu"], "mini", (n,))
        want = run_function(original, "kernel_lu", [("i32", n), a.copy()]).outputs[1]
        (got,) = prepared.run([np.asarray(n, dtype=np.int32), a])
        assert prepared.pipeline_name == "per-shape (blocked library loops)"
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=f"n = {n}")
