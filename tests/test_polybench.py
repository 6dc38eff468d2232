"""All 30 PolyBench kernels: present, resizable, and equal to an independent NumPy
implementation of their algorithm at MINI size."""

import importlib

import numpy as np
import pytest

from conftest import POLYBENCH
from synth import polybench
from synth.cli import main
from synth.execution import run_function
from synth.kernel import describe
from synth.mlir_input import SourceModule, load_source
from synth.resize import dataset_values, resize_module, size_values

REFERENCE_MODULES = ("linear_algebra", "solvers_stencils_medley")


def _references():
    reference, prepare = {}, {}
    for name in REFERENCE_MODULES:
        try:
            module = importlib.import_module(f"polybench_reference.{name}")
        except ModuleNotFoundError:
            continue
        reference.update(module.REFERENCE)
        prepare.update(getattr(module, "PREPARE", {}))
    return reference, prepare


REFERENCE, PREPARE = _references()


def _kernel(name):
    source = load_source(POLYBENCH / f"{name}.mlir")
    return source, describe(source, "kernel_" + name.replace("-", "_"))


def test_all_thirty_kernels_are_present():
    files = sorted(p.stem for p in POLYBENCH.glob("*.mlir"))
    assert files == sorted(polybench.KERNELS)
    assert len(files) == 30


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_kernel_shapes_are_large_dataset(name):
    _, kf = _kernel(name)
    assert len(kf.size_params) == len(polybench.size_parameters(name))
    assert size_values(kf) == dataset_values(kf, "large")
    assert kf.writes, "a kernel writes at least one array"


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_kernel_matches_numpy_reference_at_mini(name):
    source, kf = _kernel(name)
    sizes = dataset_values(kf, "mini")
    if name in ("adi", "fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d"):
        sizes[kf.size_params[0]] = 4  # fewer time steps keep the test fast
    mini = SourceModule(source.path, resize_module(source, {kf.name: sizes}))
    kf_mini = describe(mini, kf.name)
    assert all(max(a.shape, default=0) <= 120 for a in kf_mini.arguments if a.is_array)

    rng = np.random.default_rng(42)
    args = []
    for a in kf_mini.arguments:
        if a.is_array:
            dtype = np.float64 if a.type == "f64" else np.int32
            args.append(rng.random(a.shape) if a.type == "f64" else rng.integers(0, 100, a.shape).astype(dtype))
        elif a.index in sizes:
            args.append(sizes[a.index])
        else:
            args.append(float(rng.uniform(0.5, 2.0)))
    if name in PREPARE:
        PREPARE[name](rng, args)
    assert name in REFERENCE, f"no NumPy reference for {name}"
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    REFERENCE[name](*expected)

    call = [a if isinstance(a, np.ndarray) else (kf_mini.arguments[i].type, a) for i, a in enumerate(args)]
    result = run_function(mini.text, kf.name, call)
    for i in kf_mini.outputs:
        got, want = result.outputs[i], expected[i]
        assert np.all(np.isfinite(got)), f"arg{i} has non-finite values"
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=f"{name} arg{i}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{name} arg{i}")
    # arrays the kernel does not write stay as they were
    for a in kf_mini.arguments:
        if a.is_array and a.index not in kf_mini.writes:
            np.testing.assert_array_equal(result.outputs[a.index], args[a.index])


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_synth_run_at_mini(name, capsys):
    assert main(["run", str(POLYBENCH / f"{name}.mlir"), "--dataset", "mini"]) == 0
    out = capsys.readouterr().out
    assert "sum=" in out and " s, compile " in out


def test_resize_command_writes_a_mini_kernel(tmp_path):
    out = tmp_path / "gemm_mini.mlir"
    assert main(["resize", str(POLYBENCH / "gemm.mlir"), "--dataset", "mini", "-o", str(out)]) == 0
    kf = describe(load_source(out), "kernel_gemm")
    assert [a.shape for a in kf.arguments if a.is_array] == [(20, 25), (20, 30), (30, 25)]
    # and back to large gives the original shapes
    back = tmp_path / "gemm_large.mlir"
    assert main(["resize", str(out), "--dataset", "large", "-o", str(back)]) == 0
    kf = describe(load_source(back), "kernel_gemm")
    assert [a.shape for a in kf.arguments if a.is_array] == [(1000, 1100), (1000, 1200), (1200, 1100)]


def test_resize_rewrites_constant_loop_bounds(tmp_path):
    """Polygeist output with sizes inlined: constant bounds that depend on a size move with it."""
    path = tmp_path / "const.mlir"
    path.write_text("""func.func @kernel_jacobi_1d(%arg0: i32, %arg1: i32, %a: memref<2000xf64>, %b: memref<2000xf64>) {
  affine.for %i = 1 to 1999 {
    %v = affine.load %a[%i - 1] : memref<2000xf64>
    affine.store %v, %b[%i] : memref<2000xf64>
  }
  return
}
""")
    source = load_source(path)
    kf = describe(source, "kernel_jacobi_1d")
    text = resize_module(source, {kf.name: {0: 20, 1: 30}})
    assert "memref<30xf64>" in text and "to 29" in text and "1999" not in text


def test_resizing_a_small_kernel_keeps_small_constant_bounds():
    """Re-resizing an already small kernel must not take `0 to` for `size - 2`."""
    source = load_source(POLYBENCH / "gemm.mlir")
    kf = describe(source, "kernel_gemm")
    small = SourceModule(source.path, resize_module(source, {kf.name: {0: 4, 1: 3, 2: 2}}))
    again = resize_module(small, {kf.name: {0: 2, 1: 3, 2: 4}})
    assert "affine.for %arg8 = 0 to" in again
    kf2 = describe(SourceModule("x", again), kf.name)
    assert [a.shape for a in kf2.arguments if a.is_array] == [(2, 3), (2, 4), (4, 3)]
