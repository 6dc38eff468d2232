"""synth cc's tiled lowering of shape-generic drop-ins (a raise with `--shapes generic`:
tensor<?x...> types, as synth cc raises C with run-time sizes). Passes of mlir-cpu's
pipeline that broke on dynamic shapes (atax: row_passes.fuse_rows, an extract_slice that
no longer parsed; floyd-warshall: synth-write-in-place, a tensor.empty without its sizes,
tests/lit/passes/write-in-place-generic.mlir; trisolv: stablehlo_calls.solves_as_calls, a
static type built from a dynamic dim) must handle them or leave them alone. The lowered
object is called through its C entry point and compared with NumPy."""

import shutil

import numpy as np
import pytest

from conftest import ROOT

from synth.driver.check import differs, run_object
from synth.driver.native import RUNTIME_C, compile_module

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a system C compiler")

# atax as its generic raise computes it: y = (A x) A, tmp = A x, on tensor<?x?>
ATAX = """
module {
  func.func @k_raised(%a: tensor<?x?xf64>, %x: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %a, %c0 : tensor<?x?xf64>
    %n = tensor.dim %a, %c1 : tensor<?x?xf64>
    %zero = arith.constant 0.0 : f64
    %e0 = tensor.empty(%m) : tensor<?xf64>
    %f0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?xf64>) -> tensor<?xf64>
    %t = linalg.matvec ins(%a, %x : tensor<?x?xf64>, tensor<?xf64>) outs(%f0 : tensor<?xf64>) -> tensor<?xf64>
    %e1 = tensor.empty(%n) : tensor<?xf64>
    %f1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<?xf64>) -> tensor<?xf64>
    %y = linalg.vecmat ins(%t, %a : tensor<?xf64>, tensor<?x?xf64>) outs(%f1 : tensor<?xf64>) -> tensor<?xf64>
    return %y, %t : tensor<?xf64>, tensor<?xf64>
  }
  func.func @k(%a: memref<21x19xf64>, %x: memref<19xf64>, %y: memref<19xf64>, %t: memref<21xf64>) {
    %av = memref.cast %a : memref<21x19xf64> to memref<?x?xf64>
    %xv = memref.cast %x : memref<19xf64> to memref<?xf64>
    %yv = memref.cast %y : memref<19xf64> to memref<?xf64>
    %tv = memref.cast %t : memref<21xf64> to memref<?xf64>
    %0 = bufferization.to_tensor %av restrict : memref<?x?xf64> to tensor<?x?xf64>
    %1 = bufferization.to_tensor %xv restrict : memref<?xf64> to tensor<?xf64>
    %2:2 = func.call @k_raised(%0, %1) : (tensor<?x?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    bufferization.materialize_in_destination %2#0 in restrict writable %yv : (tensor<?xf64>, memref<?xf64>) -> ()
    bufferization.materialize_in_destination %2#1 in restrict writable %tv : (tensor<?xf64>, memref<?xf64>) -> ()
    return
  }
}
"""

# trisolv as its generic stablehlo raise writes it: b reshaped to ?x1, solved, reshaped back
TRISOLV = """
module {
  func.func @k_raised(%a: tensor<?x?xf64>, %b: tensor<?xf64>) -> tensor<?xf64> {
    %0 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %2 = stablehlo.reshape %1 : (tensor<i64>) -> tensor<1xi64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %3 = stablehlo.reshape %c : (tensor<i64>) -> tensor<1xi64>
    %4 = stablehlo.concatenate %2, %3, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    %6 = stablehlo.dynamic_reshape %b, %4 : (tensor<?xf64>, tensor<2xi64>) -> tensor<?x1xf64>
    %7 = "stablehlo.triangular_solve"(%a, %6) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<?x?xf64>, tensor<?x1xf64>) -> tensor<?x1xf64>
    %8 = stablehlo.dynamic_reshape %7, %2 : (tensor<?x1xf64>, tensor<1xi64>) -> tensor<?xf64>
    return %8 : tensor<?xf64>
  }
  func.func @k(%a: memref<13x13xf64>, %b: memref<13xf64>, %x: memref<13xf64>) {
    %av = memref.cast %a : memref<13x13xf64> to memref<?x?xf64>
    %bv = memref.cast %b : memref<13xf64> to memref<?xf64>
    %xv = memref.cast %x : memref<13xf64> to memref<?xf64>
    %0 = bufferization.to_tensor %av restrict : memref<?x?xf64> to tensor<?x?xf64>
    %1 = bufferization.to_tensor %bv restrict : memref<?xf64> to tensor<?xf64>
    %2 = func.call @k_raised(%0, %1) : (tensor<?x?xf64>, tensor<?xf64>) -> tensor<?xf64>
    bufferization.materialize_in_destination %2 in restrict writable %xv : (tensor<?xf64>, memref<?xf64>) -> ()
    return
  }
}
"""


def _memref(shape):
    return {"kind": "memref", "element": "f64", "shape": list(shape), "c_shape": None}


def _call(tmp_path, text, target, args):
    obj = tmp_path / "k.o"
    native = compile_module(text, "k", "__t", target, obj, None, "tiled")
    assert native["pipeline"] == "tiled"
    arrays, _ = run_object(obj, native["entry"], [_memref(a.shape) for a in args], [], args, RUNTIME_C)
    return arrays


def test_generic_matvec_vecmat_chain_lowers_tiled(tmp_path):
    """atax on tensor<?x?>: fuse_rows leaves the pair (its row blocks need static sizes)."""
    from synth.backends.row_passes import fuse_rows

    raised = ATAX[:ATAX.index("  func.func @k(")] + "}\n"
    assert fuse_rows(raised).loops == 0
    rng = np.random.default_rng(3)
    a, x = rng.uniform(-1, 1, (21, 19)), rng.uniform(-1, 1, 19)
    arrays = _call(tmp_path, ATAX, "linalg", [a, x, np.zeros(19), np.zeros(21)])
    assert not differs((a @ x) @ a, arrays[2])
    assert not differs(a @ x, arrays[3])


def test_generic_vector_triangular_solve_lowers_tiled(tmp_path):
    """trisolv's generic stablehlo raise: the ?x1 solve becomes the grammar's generic loop."""
    rng = np.random.default_rng(4)
    a = np.tril(rng.uniform(-1, 1, (13, 13))) + 4 * np.eye(13)
    b = rng.uniform(-1, 1, 13)
    arrays = _call(tmp_path, TRISOLV, "stablehlo", [a, b, np.zeros(13)])
    assert not differs(np.linalg.solve(a, b), arrays[2])


@pytest.mark.slow
@pytest.mark.parametrize("kernel,target", [("atax", "linalg"), ("floyd-warshall", "linalg"), ("trisolv", "stablehlo"),
                                           ("ludcmp", "stablehlo"), ("jacobi-1d", "stablehlo"),
                                           ("gemver", "stablehlo"), ("adi", "stablehlo"),
                                           ("deriche", "stablehlo"), ("symm", "stablehlo"),
                                           ("durbin", "stablehlo"), ("nussinov", "stablehlo")])
def test_generic_polybench_raise_lowers_tiled_and_agrees(tmp_path, kernel, target):
    """The generic raise of the PolyBench kernel (mini), lowered tiled as synth cc's worker
    does, computes what the plain drop-in lowering ("loops") computes, at sizes below the
    arrays' (the drop-in's subviews)."""
    import re

    from synth.cli import main

    resized = tmp_path / f"{kernel}.mini.mlir"
    assert main(["resize", str(ROOT / "benchmarks" / "polybench" / f"{kernel}.mlir"), "--dataset", "mini",
                 "-o", str(resized)]) == 0
    out = tmp_path / "raised.mlir"
    assert main(["raise", str(resized), "--target", target, "--shapes", "generic", "-q", "-o", str(out)]) == 0
    text, name = out.read_text(), "kernel_" + kernel.replace("-", "_")
    assert "tensor<?x" in text  # shape-generic
    params = re.search(rf"func\.func @{name}\((.*?)\)\s*(?:attributes|\{{)", text).group(1)
    types = re.findall(r"%\w+: ((?:memref<[^>]*>)|\w+)", params)
    shapes = [[int(d) for d in t[7:-1].split("x")[:-1]] for t in types if t.startswith("memref")]
    size = min(min(s) for s in shapes) - 3  # every size below every array's extent: the drop-in's subviews
    rng = np.random.default_rng(5)
    meta, args = [], []
    for t in types:
        if not t.startswith("memref"):
            meta.append({"kind": "scalar", "type": t})
            args.append(size)
            continue
        dims, element = [int(d) for d in t[7:-1].split("x")[:-1]], t[7:-1].split("x")[-1]
        meta.append({"kind": "memref", "element": element, "shape": dims, "c_shape": None})
        if element.startswith("i"):
            args.append(rng.integers(1, 50, dims).astype(np.int32 if element == "i32" else np.int64))
        else:
            a = rng.uniform(-1, 1, dims)
            if kernel in ("trisolv", "ludcmp") and len(dims) == 2:
                a = a + 4 * np.eye(dims[0])  # a well-conditioned triangle
            args.append(a)
    results = {}
    for kind in ("tiled", "loops"):
        obj = tmp_path / f"{kind}.o"
        native = compile_module(text, name, "__t", target, obj, None, kind)
        assert native["pipeline"] == kind
        results[kind], _ = run_object(obj, native["entry"], meta, [], args, RUNTIME_C)
    for t, tiled, loops in zip(types, results["tiled"], results["loops"]):
        if t.startswith("memref"):
            assert not differs(loops, tiled)
