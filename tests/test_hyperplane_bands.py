"""synth-hyperplane-bands (synth.backends.hyperplane_bands): a raised sweep over hyperplanes
run by bands of rows gives bitwise the values of the unbanded sweep, through the real
ExecutionEngine on mlir-cpu's pipeline: PolyBench's seidel-2d (2i + j, a time loop) and the
sweeps of tests/data/wavefront/gauss_seidel.c (SOR, i + j with a second array and a scalar;
`ahead`, 6i + j over a rectangle), static (made static at odd and prime sizes, bands of 1
row, of more rows than the array has, and of the host's size) and shape-generic (synth cc's
drop-in on memrefs of any size, the band size computed at run time)."""

import numpy as np
import pytest

from conftest import DATA, POLYBENCH, ROOT
from synth.backends.hyperplane_bands import MARK, band_rows, hyperplane_bands
from synth.backends.mlir_cpu import MlirCpuBackend
from synth.cli import main
from synth.semantics.specialize import specialized_module

SWEEPS = DATA / "wavefront" / "gauss_seidel.c"


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    """name -> the linalg raise (shape-generic) of seidel-2d, sor_5pt and ahead."""
    work = tmp_path_factory.mktemp("bands")
    found = {}
    for name, source in (("kernel_seidel_2d", [str(POLYBENCH / "seidel-2d.mlir")]),
                         ("sor_5pt", [str(SWEEPS), "--function", "sor_5pt"]),
                         ("ahead", [str(SWEEPS), "--function", "ahead"])):
        out = work / f"{name}.mlir"
        assert main(["raise", *source, "--target", "linalg", "--timeout", "120", "-q", "-o", str(out)]) == 0
        found[name] = out.read_text()
        assert f"{MARK} = " in found[name]  # the sweep is marked for the backend
    return found


def _inputs(name: str, shape: tuple, steps: int, rng) -> list:
    """The raised function's inputs: (step count,) size, (omega,) arrays of `shape`."""
    a = rng.uniform(-1, 1, shape)
    if name == "kernel_seidel_2d":
        return [np.array(steps, np.int32), np.array(shape[0], np.int32), a]
    if name == "sor_5pt":
        return [np.array(steps, np.int32), np.array(shape[0], np.int32), np.array(1.3), a, rng.uniform(-1, 1, shape)]
    return [np.array(shape[0], np.int32), np.array(shape[1], np.int32), a]


def _unmarked(text: str) -> str:
    """`text` with the sweep's mark removed: the pass leaves it unbanded."""
    import re

    plain = re.sub(r" \{synth\.hyperplane = \d+ : i64\}", "", text)
    assert MARK not in plain
    return plain


def _banded(text: str, rows: int | None) -> tuple[str, int]:
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(text)
        count = hyperplane_bands(module, rows)
        return str(module), count


CASES = [("kernel_seidel_2d", (9, 9), 3), ("kernel_seidel_2d", (13, 13), 2), ("kernel_seidel_2d", (40, 40), 2),
         ("sor_5pt", (11, 11), 2), ("sor_5pt", (17, 17), 1), ("ahead", (23, 31), 0), ("ahead", (5, 14), 0)]


@pytest.mark.parametrize("name, shape, steps", CASES)
@pytest.mark.parametrize("rows", [1, 3, 4, 100, None])
def test_bands_are_bitwise_the_sweep(raised, name, shape, steps, rows):
    """Static at the shape: bands of `rows` (None: the host's; 100: one band, more rows
    than the array) against the sweep with no bands (unmarked: the pass leaves it)."""
    rng = np.random.default_rng(11)
    inputs = _inputs(name, shape, steps, rng)
    text = specialized_module(raised[name], f"{name}_raised", [np.shape(x) for x in inputs])
    banded, count = _banded(text, rows)
    assert count == 1 and MARK not in banded and banded.count("scf.for") > text.count("scf.for")
    want = MlirCpuBackend().prepare(_unmarked(text), f"{name}_raised").run([x.copy() for x in inputs])
    got = MlirCpuBackend().prepare(banded, f"{name}_raised").run([x.copy() for x in inputs])
    np.testing.assert_array_equal(got[0], want[0])
    assert not np.array_equal(want[0], inputs[2 if name != "sor_5pt" else 3])


def _dropin(text: str, name: str, args: list, tag: str, work) -> np.ndarray:
    """synth cc's drop-in (memrefs of any size: the raised function on tensor<?x?xf64>)
    compiled as synth cc compiles it (mlir-cpu's lowering) and called through its C entry;
    the arrays after the call."""
    from synth.driver.check import run_object
    from synth.driver.native import RUNTIME_C, compile_module

    obj = work / f"{name}.{tag}.o"
    native = compile_module(text, name, "__t", "linalg", obj, None, "tiled-safe")
    kinds = [{"kind": "scalar", "type": t} if isinstance(a, tuple) else
             {"kind": "memref", "element": "f64", "shape": [None, None], "c_shape": None} for a in args for t in
             [a[0] if isinstance(a, tuple) else None]]
    arrays, _ = run_object(obj, native["entry"], kinds, [], args, RUNTIME_C)
    return arrays


@pytest.mark.parametrize("name, args", [
    ("sor_5pt", lambda rng: [("i32", 2), ("i32", 19), ("f64", 1.1), rng.uniform(-1, 1, (19, 19)),
                             rng.uniform(-1, 1, (19, 19))]),
    # rows of 8,200 doubles: bands of band_rows(65,600) = 5 rows on a host with 1 MB of L2
    ("ahead", lambda rng: [("i32", 29), ("i32", 8200), rng.uniform(-1, 1, (29, 8200))]),
])
@pytest.mark.parametrize("rows", [3, None])
def test_shape_generic_drop_in(raised, tmp_path, name, args, rows):
    """synth cc's drop-in on dynamic shapes, banded (None: the band size computed at run
    time from the row) against unmarked."""
    inputs = args(np.random.default_rng(3))
    written = 3 if name == "sor_5pt" else 2
    banded, count = _banded(raised[name], rows)
    assert count == 1 and "arith.divsi" in banded if rows is None else count == 1
    want = _dropin(_unmarked(raised[name]), name, inputs, "plain", tmp_path)[written]
    got = _dropin(banded, name, inputs, "banded", tmp_path)[written]
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(want, inputs[written])


def test_band_rows_follow_the_l2():
    # B + 2 rows in half the L2, at least 4
    assert band_rows(16_000, l2=1 << 20) == 30  # seidel-2d LARGE: rows of 2,000 doubles
    assert band_rows(16_000, l2=2 << 20) == 63
    assert band_rows(200_000, l2=1 << 20) == 4
    assert band_rows(3_200, l2=1 << 20) == 161


def test_unmarked_and_other_loops_are_left_alone(raised):
    """Without the mark (a loop the raise did not state is a sweep over hyperplanes) or on
    a stencil of another form (jacobi-2d's time loop), no rewrite."""
    text = specialized_module(raised["kernel_seidel_2d"], "kernel_seidel_2d_raised", [(), (), (12, 12)])
    assert _banded(_unmarked(text), None)[1] == 0
    jacobi = ROOT / "tests" / "lit" / "passes" / "inputs" / "wavefront.jacobi-2d.linalg.mlir"
    assert _banded(jacobi.read_text(), None)[1] == 0
