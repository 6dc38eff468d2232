"""All 30 PolyBench kernels, in our convention and as Polygeist prints them: present,
resizable, and equal to an independent NumPy implementation of their algorithm at MINI
size."""

import importlib

import numpy as np
import pytest

from conftest import POLYBENCH, POLYGEIST
from synth.analysis import polybench
from synth.analysis.model import load_kernel
from synth.cli import main
from synth.execution import run_function
from synth.frontend.reader import SourceModule, load_source
from synth.analysis.resize import dataset_arguments, resize_module

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


# twins that do not resize to another dataset; scripts/check_polygeist_twins.py checks all
# 30 twins against benchmarks/polybench at LARGE
TWIN_AT_LARGE_ONLY = {
    "adi": "Polygeist folded the LARGE sizes into adi's float constants (DX = 1/N, ...)",
    "gramschmidt": "the reference restricts n through the size argument, which the twin ignores",
}


def _kernel(name, corpus=POLYBENCH):
    source = load_source(corpus / f"{name}.mlir", warn=False)
    return source, load_kernel(source, "kernel_" + name.replace("-", "_"))


def _size_args(kernel):
    return [a.index for a in kernel.function.arguments[: kernel.n_arguments]
            if not a.is_array and a.type in ("i32", "i64", "index")]


def test_all_thirty_kernels_are_present():
    for corpus in (POLYBENCH, POLYGEIST):
        files = sorted(p.stem for p in corpus.glob("*.mlir"))
        assert files == sorted(polybench.KERNELS), corpus
        assert len(files) == 30


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_kernel_shapes_are_large_dataset(name):
    _, kernel = _kernel(name)
    size_args = _size_args(kernel)
    assert len(size_args) == len(polybench.size_parameters(name))
    large = dict(zip(size_args, polybench.size_arguments(name, "large")))
    assert kernel.sizes.param_values(kernel.sizes.original()) == large
    assert kernel.written, "a kernel writes at least one array"


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_polygeist_twin_has_constant_sizes(name):
    """The twin passes its size arguments but bounds nothing with them (Polygeist's
    default for PolyBench): every size is a constant, read as a size symbol."""
    _, twin = _kernel(name, POLYGEIST)
    _, ours = _kernel(name)
    assert twin.sizes.params == {} and twin.sizes.unused_params == _size_args(twin)
    # one symbol per distinct size (a time loop `1 to 501` is its own: 501 is tsteps + 1)
    assert len(twin.sizes.symbols) == len(set(ours.sizes.original().values()))
    assert twin.written == ours.written


@pytest.mark.parametrize("corpus", [POLYBENCH, POLYGEIST], ids=["ours", "polygeist"])
@pytest.mark.parametrize("name", polybench.KERNELS)
def test_kernel_matches_numpy_reference_at_mini(name, corpus):
    if corpus == POLYGEIST and name in TWIN_AT_LARGE_ONLY:
        pytest.skip(TWIN_AT_LARGE_ONLY[name])
    source, kernel = _kernel(name, corpus)
    mini = SourceModule(source.path, resize_module(source, [kernel.name], "mini"))
    mk = load_kernel(mini, kernel.name)
    sizes = dataset_arguments(kernel.name, _size_args(kernel), "mini")
    shapes = {i: tuple(int(d) for d in mk.sizes.shape(i, mk.sizes.original())) for i in mk.sizes.arg_dims}
    assert all(max(s, default=0) <= 120 for s in shapes.values())

    rng = np.random.default_rng(42)
    args = []
    for a in mk.function.arguments:
        if a.is_array:
            dtype = np.float64 if a.type == "f64" else np.int32
            shape = shapes[a.index]
            args.append(rng.random(shape) if a.type == "f64" else rng.integers(0, 100, shape).astype(dtype))
        elif a.index in sizes:
            args.append(sizes[a.index])
        else:
            args.append(float(rng.uniform(0.5, 2.0)))
    if name in PREPARE:
        PREPARE[name](rng, args)
    assert name in REFERENCE, f"no NumPy reference for {name}"
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    REFERENCE[name](*expected)

    call = [a if isinstance(a, np.ndarray) else (mk.function.arguments[i].type, a) for i, a in enumerate(args)]
    result = run_function(mini.text, kernel.name, call)
    for i in mk.written:
        got, want = result.outputs[i], expected[i]
        assert np.all(np.isfinite(got)), f"arg{i} has non-finite values"
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=f"{name} arg{i}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{name} arg{i}")
    # arrays the kernel does not write stay as they were
    for a in mk.function.arguments:
        if a.is_array and a.index not in mk.written:
            np.testing.assert_array_equal(result.outputs[a.index], args[a.index])


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_synth_run_at_mini(name, capsys):
    assert main(["run", str(POLYBENCH / f"{name}.mlir"), "--dataset", "mini"]) == 0
    out = capsys.readouterr().out
    assert "sum=" in out and "after a warm-up), compile " in out


def _array_shapes(path, name):
    kernel = load_kernel(load_source(path, warn=False), name)
    return [tuple(int(d) for d in kernel.sizes.shape(i, kernel.sizes.original()))
            for i in sorted(kernel.sizes.arg_dims)]


def test_resize_command_writes_a_mini_kernel(tmp_path):
    out = tmp_path / "gemm_mini.mlir"
    assert main(["resize", str(POLYBENCH / "gemm.mlir"), "--dataset", "mini", "-o", str(out)]) == 0
    assert _array_shapes(out, "kernel_gemm") == [(20, 25), (20, 30), (30, 25)]
    # and back to large gives the original shapes
    back = tmp_path / "gemm_large.mlir"
    assert main(["resize", str(out), "--dataset", "large", "-o", str(back)]) == 0
    assert _array_shapes(back, "kernel_gemm") == [(1000, 1100), (1000, 1200), (1200, 1100)]


def test_resize_command_on_a_polygeist_twin(tmp_path):
    """Constant sizes (Polygeist's PolyBench) resize through their size symbols; dynamic
    leading dims stay dynamic."""
    out = tmp_path / "atax_mini.mlir"
    assert main(["resize", str(POLYGEIST / "atax.mlir"), "--dataset", "mini", "-o", str(out)]) == 0
    text = out.read_text()
    assert "memref<?x42xf64>" in text and "affine.for %arg6 = 0 to 42" in text and "2100" not in text
    assert _array_shapes(out, "kernel_atax") == [(38, 42), (42,), (42,), (38,)]


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
    text = resize_module(source, ["kernel_jacobi_1d"], "mini")
    assert "memref<30xf64>" in text and "to 29" in text and "1999" not in text


def test_resizing_a_small_kernel_keeps_small_constant_bounds(tmp_path):
    """Re-resizing an already small kernel must not take `0 to` for `size - 2`."""
    source = load_source(POLYBENCH / "gemm.mlir")
    small = tmp_path / "gemm_mini.mlir"
    small.write_text(resize_module(source, ["kernel_gemm"], "mini"))
    again = resize_module(load_source(small), ["kernel_gemm"], "small")
    assert "affine.for %arg8 = 0 to" in again
    path = tmp_path / "again.mlir"
    path.write_text(again)
    assert _array_shapes(path, "kernel_gemm") == [(60, 70), (60, 80), (80, 70)]
