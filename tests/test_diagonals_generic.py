"""Loops over a table's diagonals raised to stablehlo for every size (`--shapes generic`,
synth.synthesis.diagonals_hlo_generic): the one text, made static by jax's shape
refinement at sizes other than the raised one, run against the original loops compiled at
those sizes, bit for bit (integers; obst in double: the cells' operations in the
original's order)."""

import numpy as np
import pytest

from conftest import DATA, POLYBENCH, ROOT
from synth.analysis.model import load_kernel
from synth.backends.run import run_raised
from synth.execution import run_function
from synth.frontend.reader import COptions, load_input
from synth.semantics.specialize import specialize
from synth.synthesis.diagonals import diagonal_raise
from test_diagonals import _against_loops, _nussinov_inputs, _raise

HERE = DATA / "diagonals"


def _generic(tmp_path, path, *extra):
    rc, text, record = _raise(tmp_path, path, "stablehlo", "--shapes", "generic", *extra)
    assert rc == 0 and record["form"] == "loop with tensor body"
    assert record["shapes"] == "generic" and record["verification"] == "z3"
    assert "stablehlo.while" in text and "stablehlo.dynamic_update_slice" in text
    return text, record


@pytest.mark.slow
def test_the_static_emitter_stays_for_static_shapes(tmp_path):
    """--shapes static: the text at the raise's own sizes (N = 9), run there (the static
    emitter also runs in test_diagonals' matrix_chain, in the default tier)."""
    rc, text, record = _raise(tmp_path, HERE / "nussinov_char.c", "stablehlo", "--shapes", "static", "-D", "N=9")
    assert rc == 0 and record["shapes"] == "static" and "tensor<9x9xi32>" in text.split("\n")[1]
    _against_loops(HERE / "nussinov_char.c", "kernel_nussinov", ["N=9"], "stablehlo", text,
                   _nussinov_inputs(9, np.random.default_rng(3)))


def _table_inputs(name: str, n: int, rng) -> list:
    if name == "nussinov_char":
        return _nussinov_inputs(n, rng)
    if name in ("matrix_chain_n", "chain_lower_n"):
        return [np.int32(n), rng.integers(1, 30, (n, 2)).astype(np.int32),
                rng.integers(0, 100, (n, n)).astype(np.int32)]
    if name == "triangulation":
        return [np.int32(n), rng.integers(-50, 50, (n, n)).astype(np.int32)]
    return [np.int32(n), rng.uniform(0, 1, (n, n)), rng.uniform(-1, 1, (n, n))]  # obst


# matrix_chain.c and chain_lower.c have their size N compiled in (their arrays' types are
# static, so a raise serves that size only): the _n versions take it as an argument
KERNELS = [("nussinov_char", 9), ("matrix_chain_n", 7), ("chain_lower_n", 7), ("triangulation", 9), ("obst", 8)]


@pytest.mark.parametrize("name,n", KERNELS)
def test_diagonal_kernels_raise_to_stablehlo_for_every_size(name, n):
    """Each text emitted for every size (without the raise's validation: test_diagonals
    runs it for nussinov, the slow test here for the others) and made static at three
    sizes other than the raised one, run against the original compiled there."""
    path = HERE / f"{name}.c"
    function = "kernel_nussinov" if name == "nussinov_char" else name[:-2] if name.endswith("_n") else name
    kernel = load_kernel(load_input(path, c=COptions(defines=(f"N={n}",)), warn=False), function)
    kernel.sizes.with_test_values()
    text = diagonal_raise(kernel, "stablehlo").generic_text()
    assert "?x?x" in text.split("\n")[0]
    rng = np.random.default_rng(19)
    for m in (3, 5, 10):
        inputs = _table_inputs(name, m, rng)
        static = specialize(text, f"{function}_raised", "stablehlo", [np.shape(x) for x in inputs])
        original = load_input(path, c=COptions(defines=(f"N={m}",)), warn=False).text
        call = [("i32", int(x)) if isinstance(x, np.int32) else x for x in inputs]
        want = run_function(original, function, call).outputs[-1]
        got = run_raised("stablehlo", static, f"{function}_raised", inputs)
        got = got[0] if isinstance(got, list) else got
        assert want.dtype == got.dtype and np.array_equal(want, got), m


@pytest.mark.slow
@pytest.mark.parametrize("path", [POLYBENCH / "nussinov.mlir", ROOT / "benchmarks" / "polybench-c" / "nussinov.c",
                                  ROOT / "benchmarks" / "polybench-polygeist" / "nussinov.mlir"])
def test_polybench_nussinov_raises_to_stablehlo_for_every_size(tmp_path, path):
    """At its own size (2500) the test runs the text at 312 (a raise for every size is the
    same text at each); then at three small sizes against the original. Polygeist's
    constant bounds (2500, 2499) are sizes too (the size model's sites)."""
    text, record = _generic(tmp_path, path)
    assert {"n2500" if "polygeist" in str(path) else "arg0": 312} in record["validation"]["sizes_tested"]
    if path.suffix == ".c":
        rng = np.random.default_rng(23)
        for n in (5, 8, 13):
            n_, seq, table = _nussinov_inputs(n, rng)  # DATA_TYPE int: int bases
            _against_loops(path, "kernel_nussinov", [f"N={n}"], "stablehlo", text, [n_, seq.astype(np.int32), table])


@pytest.mark.slow
@pytest.mark.parametrize("name,n", KERNELS)
def test_diagonal_kernels_raise_and_validate_for_every_size(tmp_path, name, n):
    _, record = _generic(tmp_path, HERE / f"{name}.c", "-D", f"N={n}")
    assert len(record["validation"]["sizes_tested"]) >= 3
