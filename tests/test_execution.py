"""The isolated ExecutionEngine worker: in-place updates, dtypes, caching, crash isolation."""

import numpy as np
import pytest

from synth.errors import ExecutionError
from synth.execution import run_function, run_tensor_function

CAST = "%0 = arith.index_cast %n : {ity} to index"
SCALE = """
func.func @scale(%n: {ity}, %s: {ety}, %a: memref<5x{ety}>) {{
  {cast}
  affine.for %i = 0 to %0 {{
    %v = affine.load %a[%i] : memref<5x{ety}>
    %w = {mul} %v, %s : {ety}
    affine.store %w, %a[%i] : memref<5x{ety}>
  }}
  return
}}
"""


def scale_kernel(ity, ety, mul):
    if ity == "index":  # no cast needed: use the argument through an identity affine.apply
        cast = "%0 = affine.apply affine_map<()[s0] -> (s0)>()[%n]"
    else:
        cast = CAST.format(ity=ity)
    return SCALE.format(ity=ity, ety=ety, mul=mul, cast=cast)


@pytest.mark.parametrize("ity", ["i32", "i64", "index"])
@pytest.mark.parametrize("ety,dtype,mul,scalar", [
    ("f64", np.float64, "arith.mulf", 2.5), ("f32", np.float32, "arith.mulf", 2.5),
    ("i32", np.int32, "arith.muli", 3), ("i64", np.int64, "arith.muli", 3),
])
def test_scalar_and_memref_types(ity, ety, dtype, mul, scalar):
    text = scale_kernel(ity, ety, mul)
    a = np.arange(1, 6).astype(dtype)
    r = run_function(text, "scale", [(ity, 3), (ety, scalar), a])
    expected = a.copy()
    expected[:3] *= dtype(scalar)
    np.testing.assert_array_equal(r.outputs[2], expected)
    np.testing.assert_array_equal(a, np.arange(1, 6).astype(dtype))  # caller's array untouched


def test_compiled_functions_are_cached_by_ir_hash():
    text = scale_kernel("i32", "f64", "arith.mulf") + "\n// a distinct module\n"
    first = run_function(text, "scale", [("i32", 5), ("f64", 1.0), np.ones(5)])
    second = run_function(text, "scale", [("i32", 5), ("f64", 1.0), np.ones(5)])
    assert first.compile_seconds > 0.0
    assert second.compile_seconds == 0.0


def test_tensor_function_results():
    text = """func.func @mm(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %e = tensor.empty() : tensor<2x4xf64>
  %z = arith.constant 0.0 : f64
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %m = linalg.matmul ins(%a, %b : tensor<2x3xf64>, tensor<3x4xf64>) outs(%f : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %m : tensor<2x4xf64>
}"""
    rng = np.random.default_rng(1)
    a, b = rng.random((2, 3)), rng.random((3, 4))
    (out,) = run_tensor_function(text, "mm", [a, b])
    np.testing.assert_allclose(out, a @ b, rtol=1e-12)


def test_llvm_assertion_abort_becomes_error_and_worker_recovers():
    # MemRefToLLVM asserts on i1 loads in these wheels: the worker dies, not the caller.
    crash = """func.func @g(%a: memref<4xi1>) {
  %c = arith.constant 0 : index
  %v = memref.load %a[%c] : memref<4xi1>
  memref.store %v, %a[%c] : memref<4xi1>
  return
}"""
    with pytest.raises(ExecutionError, match="crashed"):
        run_function(crash, "g", [np.zeros(4, dtype=bool)])
    r = run_function(scale_kernel("i32", "f64", "arith.mulf"), "scale",
                     [("i32", 1), ("f64", 4.0), np.ones(5)])
    assert r.outputs[2][0] == 4.0


def test_bad_ir_is_an_error_not_a_crash():
    with pytest.raises(ExecutionError, match="failed"):
        run_function("func.func @g(%a: f64) {\n  return %a : f64\n}", "g", [("f64", 1.0)])


_TWO_PARTS = """
func.func @part0(%a: memref<4xf64>) {
  %c = arith.constant 2.0 : f64
  affine.for %i = 0 to 4 {
    %v = affine.load %a[%i] : memref<4xf64>
    %w = arith.mulf %v, %c : f64
    affine.store %w, %a[%i] : memref<4xf64>
  }
  return
}
func.func @part1(%a: memref<4xf64>) {
  %c = arith.constant 1.0 : f64
  affine.for %i = 0 to 4 {
    %v = affine.load %a[%i] : memref<4xf64>
    %w = arith.addf %v, %c : f64
    affine.store %w, %a[%i] : memref<4xf64>
  }
  return
}
func.func @total(%a: memref<4xf64>) -> f64 {
  %z = arith.constant 0.0 : f64
  %s = affine.for %i = 0 to 4 iter_args(%acc = %z) -> f64 {
    %v = affine.load %a[%i] : memref<4xf64>
    %n = arith.addf %acc, %v : f64
    affine.yield %n : f64
  }
  return %s : f64
}
"""


def test_functions_of_one_module_share_its_compile():
    """A split kernel's parts (functions without results) are compiled once for all; a
    function returning values gets its own entry, and its own compile."""
    a = np.arange(4.0)
    first = run_function(_TWO_PARTS, "part0", [a])
    second = run_function(_TWO_PARTS, "part1", [a])
    assert first.compile_seconds > 0 and second.compile_seconds == 0.0
    np.testing.assert_array_equal(first.outputs[0], a * 2)
    np.testing.assert_array_equal(second.outputs[0], a + 1)
    total = run_function(_TWO_PARTS, "total", [a])
    assert total.compile_seconds > 0 and float(total.results[0]) == a.sum()
    assert run_function(_TWO_PARTS, "part0", [a]).compile_seconds == 0.0


# dtrmv_lower's generic linalg raise made static (x and tmp both L_lower @ x): CSE folded
# the copy's tensor.empty into the one the matvec was computed in, so one-shot
# bufferization gives both results one buffer
TWO_RESULTS_ONE_BUFFER = """
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%L: tensor<3x3xf64>, %x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<3x3xf64>
  %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<3x3xf64>) -> tensor<3x3xf64>
  %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%L, %1 : tensor<3x3xf64>, tensor<3x3xf64>) outs(%0 : tensor<3x3xf64>) {
  ^bb0(%in: f64, %z: f64, %out: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %low = arith.cmpi sge, %i, %j : index
    %v = arith.select %low, %in, %z : f64
    linalg.yield %v : f64
  } -> tensor<3x3xf64>
  %3 = tensor.empty() : tensor<3xf64>
  %4 = linalg.fill ins(%cst : f64) outs(%3 : tensor<3xf64>) -> tensor<3xf64>
  %5 = linalg.matvec ins(%2, %x : tensor<3x3xf64>, tensor<3xf64>) outs(%4 : tensor<3xf64>) -> tensor<3xf64>
  %6 = linalg.copy ins(%5 : tensor<3xf64>) outs(%3 : tensor<3xf64>) -> tensor<3xf64>
  return %5, %6 : tensor<3xf64>, tensor<3xf64>
}
"""


def test_two_results_that_bufferize_to_one_buffer_run():
    """MLIR 22's buffer-results-to-out-params crashed the worker (SIGSEGV) on a memref
    returned twice; the tensor pipeline now copies it first (synth-distinct-result-buffers)."""
    L = np.arange(1.0, 10.0).reshape(3, 3)
    x = np.array([1.0, -2.0, 0.5])
    first, second = run_tensor_function(TWO_RESULTS_ONE_BUFFER, "f", [L, x])
    np.testing.assert_allclose(first, np.tril(L) @ x)
    np.testing.assert_allclose(second, np.tril(L) @ x)


_SCALED = """
func.func @scale(%a: memref<Nxf64>, %c: f64) {
  affine.for %i = 0 to N {
    %v = affine.load %a[%i] : memref<Nxf64>
    %w = func.call @twice(%v) : (f64) -> f64
    %x = arith.mulf %w, %c : f64
    affine.store %x, %a[%i] : memref<Nxf64>
  }
  return
}
func.func private @twice(%v: f64) -> f64 {
  %w = arith.addf %v, %v : f64
  return %w : f64
}
"""


def test_precompiled_modules_are_run_under_their_own_names():
    """Modules compiled as one batch (each with the same function names: a kernel at
    several sizes, calling a helper of its own) run from the cache, each its own code."""
    from synth.execution import precompile

    texts = {n: _SCALED.replace("N", str(n)) + f"// {n}\n" for n in (3, 5, 7)}
    precompile("memref", [(t, "scale") for t in texts.values()], opt_level=0)
    for n, text in texts.items():
        a = np.arange(float(n))
        got = run_function(text, "scale", [a, ("f64", 1.5)], opt_level=0)
        assert got.compile_seconds == 0.0  # compiled by the batch
        np.testing.assert_array_equal(got.outputs[0], a * 3.0)


def test_a_batch_that_fails_to_compile_leaves_each_module_to_its_call():
    from synth.execution import precompile

    good = _SCALED.replace("N", "4") + "// good\n"
    precompile("memref", [(good, "scale"), ("func.func @broken(", "broken")], opt_level=0)
    got = run_function(good, "scale", [np.ones(4), ("f64", 2.0)], opt_level=0)
    assert got.compile_seconds > 0  # not compiled by the failed batch: compiled at the call
    np.testing.assert_array_equal(got.outputs[0], np.full(4, 4.0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.int16, np.int8, np.bool_])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4)])
def test_memref_descriptor_is_mlir_runtimes_layout(dtype, shape):
    """synth.execution builds descriptors itself (mlir.runtime imports ml_dtypes, ~1 s):
    every field as mlir.runtime's own, strided views included."""
    import ctypes

    from mlir.runtime import get_ranked_memref_descriptor

    from synth.execution import memref_descriptor

    base = np.arange(int(np.prod(shape)) * 2 or 2).astype(dtype)
    arrays = [base[: int(np.prod(shape))].reshape(shape)]
    if len(shape) >= 2:  # a non-contiguous view: strides in elements, not bytes
        arrays.append(np.arange(int(np.prod(shape)) * 2).astype(dtype).reshape(shape[:-1] + (2 * shape[-1],))[..., ::2])
    for a in arrays:
        ours, theirs = memref_descriptor(a), get_ranked_memref_descriptor(a)
        assert ctypes.sizeof(ours) == ctypes.sizeof(theirs)
        assert ours.allocated == theirs.allocated
        assert ctypes.addressof(ours.aligned.contents) == ctypes.addressof(theirs.aligned.contents)
        assert ours.offset == theirs.offset == 0
        if a.ndim:
            assert list(ours.shape) == list(theirs.shape) == list(a.shape)
            assert list(ours.strides) == list(theirs.strides) == [s // a.itemsize for s in a.strides]
        assert bytes(ours) == bytes(theirs)  # the same bytes the callee reads
