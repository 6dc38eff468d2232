"""The 30 PolyBench/C kernels as C (benchmarks/polybench-c), through the C front end:
each translates at MINI size, runs through the ExecutionEngine and equals the
independent NumPy reference of tests/polybench_reference (the same arguments, in the
same order, as the MLIR kernels of benchmarks/polybench); the kernels synth raises from
benchmarks/polybench raise from their C source too (slow)."""

import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import POLYBENCH, ROOT
from polybench_reference import linear_algebra, solvers_stencils_medley

from synth.analysis import polybench
from synth.analysis.model import load_kernel
from synth.execution import run_function
from synth.frontend.c import translate_c
from synth.frontend.reader import load_source

POLYBENCH_C = ROOT / "benchmarks" / "polybench-c"
REFERENCE = {**linear_algebra.REFERENCE, **solvers_stencils_medley.REFERENCE}
PREPARE = {**linear_algebra.PREPARE, **solvers_stencils_medley.PREPARE}


def _translate(name, dataset="MINI_DATASET"):
    return translate_c(str(POLYBENCH_C / f"{name}.c"), defines=[dataset],
                       include_dirs=[str(POLYBENCH_C)])


def _function(name):
    return "kernel_" + name.replace("-", "_")


def test_all_thirty_kernels_are_present():
    files = sorted(p.stem for p in POLYBENCH_C.glob("*.c"))
    assert files == sorted(polybench.KERNELS) and len(files) == 30
    assert (POLYBENCH_C / "polybench.h").is_file()


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_c_kernel_matches_numpy_reference_at_mini(name):
    source = _translate(name)
    fname = _function(name)
    kernel = load_kernel(source, fname)
    arguments = kernel.function.arguments
    shapes = {i: tuple(int(d) for d in kernel.sizes.shape(i, kernel.sizes.original()))
              for i in kernel.sizes.arg_dims}

    # the signature of the MLIR kernel (benchmarks/polybench, LARGE shapes): same
    # arguments in the same order, the same arrays written
    twin = load_kernel(load_source(POLYBENCH / f"{name}.mlir", warn=False), fname)
    assert [(a.is_array, a.type) for a in arguments] == \
        [(a.is_array, a.type) for a in twin.function.arguments]
    assert kernel.written == twin.written

    # the size arguments come first, as in PolyBench: MINI values
    size_args = [a.index for a in arguments if not a.is_array and a.type == "i32"]
    mini = polybench.size_arguments(name, "mini")
    assert size_args == list(range(len(mini)))
    # arrays are declared with the MINI extents (dataset block + POLYBENCH_nD)
    assert all(max(s, default=0) <= 120 for s in shapes.values())

    rng = np.random.default_rng(42)
    args = []
    for a in arguments:
        if a.is_array:
            shape = shapes[a.index]
            args.append(rng.random(shape) if a.type == "f64"
                        else rng.integers(0, 100, shape).astype(np.int32))
        elif a.index in size_args:
            args.append(mini[a.index])
        else:
            args.append(float(rng.uniform(0.5, 2.0)))
    if name in PREPARE:
        PREPARE[name](rng, args)
    assert name in REFERENCE, f"no NumPy reference for {name}"
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    REFERENCE[name](*expected)

    call = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else (arguments[i].type, a)
            for i, a in enumerate(args)]
    result = run_function(source.text, fname, call)
    for i in kernel.written:
        got, want = result.outputs[i], expected[i]
        assert np.all(np.isfinite(got)), f"arg{i} has non-finite values"
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=f"{name} arg{i}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{name} arg{i}")
    for a in arguments:  # arrays the kernel does not write stay as they were
        if a.is_array and a.index not in kernel.written:
            np.testing.assert_array_equal(result.outputs[a.index], args[a.index])


def _signature(text):
    return re.search(r"func\.func @[\w]+\(.*?\)", text).group(0)


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_large_by_default_with_the_mlir_kernels_signature(name):
    """Without a dataset, LARGE: the signature of benchmarks/polybench/<name>.mlir."""
    text = translate_c(str(POLYBENCH_C / f"{name}.c"), include_dirs=[str(POLYBENCH_C)],
                       locations=False).text
    assert _signature(text) == _signature((POLYBENCH / f"{name}.mlir").read_text())


@pytest.mark.parametrize("name,small", [("gemm", "memref<60x70xf64>"),
                                        ("nussinov", "memref<180x180xi32>"),
                                        ("deriche", "memref<192x128xf64>")])
def test_dataset_macro_sets_the_extents(name, small):
    assert small in _translate(name, "SMALL_DATASET").text


def test_size_macro_override_and_scalar_loop_bounds():
    src = translate_c(str(POLYBENCH_C / "gemm.c"), include_dirs=[str(POLYBENCH_C)],
                      defines=["NI=7", "NJ=9", "NK=11"], locations=False).text
    assert "memref<7x9xf64>" in src and "memref<11x9xf64>" in src
    # PolyBench's POLYBENCH_USE_SCALAR_LB: the loops run to the constant sizes
    const = translate_c(str(POLYBENCH_C / "gemm.c"), include_dirs=[str(POLYBENCH_C)],
                        defines=["MINI_DATASET", "POLYBENCH_USE_SCALAR_LB"], locations=False).text
    assert "arith.index_cast" not in const and "affine.for %arg8 = 0 to 20 {" in const


def test_float_data_type():
    """-DDATA_TYPE_IS_FLOAT: f32 arrays and scalars, float literals and sqrtf."""
    src = translate_c(str(POLYBENCH_C / "correlation.c"), include_dirs=[str(POLYBENCH_C)],
                      defines=["MINI_DATASET", "DATA_TYPE_IS_FLOAT"], locations=False).text
    assert "memref<32x28xf32>" in src and "math.sqrt" in src and "f64" not in src


# the kernels synth raises from benchmarks/polybench (tests/test_raise.py's RAISED)
RAISED = ["2mm", "3mm", "atax", "bicg", "covariance", "doitgen", "gemm", "gemver", "gesummv",
          "mvt", "syrk", "trmm"]


@pytest.mark.slow
@pytest.mark.parametrize("name,target", [(n, t) for n in RAISED for t in ("stablehlo", "linalg")]
                         + [("syr2k", "stablehlo")])
def test_raise_c_kernel(tmp_path, name, target):
    out = tmp_path / f"{name}.{target}.mlir"
    p = subprocess.run([sys.executable, "-m", "synth.cli", "raise", str(POLYBENCH_C / f"{name}.c"),
                        "--target", target, "-I", str(POLYBENCH_C), "-DMINI_DATASET",
                        "-o", str(out)], check=False, capture_output=True, text=True, timeout=900,
                       cwd=ROOT)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-4000:]
    text = out.read_text()
    assert f"@{_function(name)}_raised" in text and f"func.func @{_function(name)}(" in text


@pytest.mark.parametrize("target", ["linalg", pytest.param("stablehlo", marks=pytest.mark.slow)])
def test_durbin_as_polybench_writes_it_raises(tmp_path, target):
    """durbin in PolyBench/C's own spelling (tests/data/c/durbin_polybench.c: `static`,
    `(1-alpha*alpha)`, braces, declarations first) raised to linalg crashed the MLIR worker
    while validating (LLVM's `integralElementType.getWidth() >= 8`: a buffer of i1 stored;
    issue 56). Its loop bound is the int n, so it raises for every size; the drop-in equals
    the original at n = 40, 17 and 2."""
    from synth.execution import DROPIN_PIPELINE

    path = ROOT / "tests" / "data" / "c" / "durbin_polybench.c"
    out = tmp_path / f"durbin.{target}.mlir"
    p = subprocess.run([sys.executable, "-m", "synth.cli", "raise", str(path), "--target", target, "-o", str(out)],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    text = out.read_text()
    assert "tensor<?xf64>" in text.split("func.func @kernel_durbin(")[0]  # generic: n is read at run time
    if target != "linalg":
        return
    original = translate_c(str(path), function="kernel_durbin").text
    rng = np.random.default_rng(3)
    for n in (40, 17, 2):
        r = rng.uniform(-0.3, 0.3, 40)  # |r| < 1: the recursion's beta stays away from 0
        args = [("i32", n), r, np.zeros(40)]
        want = run_function(original, "kernel_durbin", args).outputs[2]
        got = run_function(text, "kernel_durbin", args, pipeline=DROPIN_PIPELINE).outputs[2]
        np.testing.assert_allclose(got[:n], want[:n], rtol=1e-12, atol=1e-14)
