"""The loop-kernel corpora run and agree with their NumPy references.

Two directories of small affine kernels, one `func.func @<stem>` per `<stem>.mlir`, each
with a `reference.py` (`REFERENCE`, optional `PREPARE` and `DYNAMIC_DIM`):
- `benchmarks/loops/`: the corpus written in the style of common loop-code suites;
- `tests/data/heldout_loops/`: a held-out set in a different hand.

Every kernel runs through MLIR's ExecutionEngine on seeded random arguments built from
its signature; every array argument (written or not) and every returned value must
match the reference: floats to a relative tolerance (f64 1e-9, f32 1e-4, with an
absolute tolerance scaled by the largest expected magnitude), integers exactly.
"""

from __future__ import annotations

import importlib.util
import warnings
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

from synth.execution import NUMPY_DTYPES, run_function
from synth.frontend.reader import LegacySyntaxWarning, load_source

ROOT = Path(__file__).resolve().parent.parent
CORPORA = {
    "loops": ROOT / "benchmarks" / "loops",
    "heldout": ROOT / "tests" / "data" / "heldout_loops",
}
RTOL = {"f64": 1e-9, "f32": 1e-4}
DEFAULT_DYNAMIC_DIM = 1024


def kernel_files(corpus: str) -> list[Path]:
    d = CORPORA[corpus]
    return sorted(d.glob("*.mlir")) if d.is_dir() else []


CASES = [pytest.param(corpus, path, id=f"{corpus}/{path.stem}")
         for corpus in CORPORA for path in kernel_files(corpus)]


@lru_cache(maxsize=None)
def reference_module(corpus: str):
    path = CORPORA[corpus] / "reference.py"
    spec = importlib.util.spec_from_file_location(f"_loops_reference_{corpus}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@lru_cache(maxsize=None)
def load(path: Path) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LegacySyntaxWarning)
        return load_source(path).text


def signature(text: str, name: str):
    """([(kind, type, shape)] for the inputs, [(kind, type, shape)] for the results) of
    @name, kind "memref" or "scalar", type the element type as text, shape a tuple with
    None for a dynamic size; plus the names of all functions in the module."""
    with ir.Context():
        module = ir.Module.parse(text)
        funcs = {op.attributes["sym_name"].value: op for op in module.body.operations
                 if op.operation.name == "func.func"}
        op = funcs[name]
        ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)

        def describe(t):
            if isinstance(t, ir.MemRefType) or str(t).startswith("memref<"):
                mt = ir.MemRefType(t)
                shape = tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in mt.shape)
                return ("memref", str(mt.element_type), shape)
            return ("scalar", str(t), ())

        return ([describe(t) for t in ftype.inputs], [describe(t) for t in ftype.results],
                sorted(funcs))


def random_args(name: str, inputs, dynamic_dim: int) -> list:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    args = []
    for kind, ty, shape in inputs:
        dtype = NUMPY_DTYPES[ty]
        if kind == "memref":
            shape = tuple(dynamic_dim if d is None else d for d in shape)
            if ty.startswith("f"):
                args.append(rng.uniform(-1.0, 1.0, shape).astype(dtype))
            else:
                args.append(rng.integers(0, 256, shape).astype(dtype))
        elif ty.startswith("f"):
            args.append(float(rng.uniform(-1.0, 1.0)))
        else:
            args.append(int(rng.integers(0, 256)))
    return args


def check(actual, expected, ty: str, what: str) -> None:
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if ty.startswith("f"):
        finite = np.abs(expected[np.isfinite(expected)].astype(np.float64))
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        rtol = RTOL[ty]
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=rtol * scale, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected.astype(actual.dtype), err_msg=what)


@pytest.mark.parametrize("corpus,path", CASES)
def test_kernel_matches_reference(corpus, path):
    name = path.stem
    ref = reference_module(corpus)
    assert name in ref.REFERENCE, f"no reference for {name}"
    text = load(path)
    inputs, results, funcs = signature(text, name)
    assert funcs == [name], f"{path.name} must hold exactly one func.func @{name}, has {funcs}"
    dyn = getattr(ref, "DYNAMIC_DIM", DEFAULT_DYNAMIC_DIM)
    if isinstance(dyn, dict):
        dyn = dyn.get(name, DEFAULT_DYNAMIC_DIM)
    args = random_args(name, inputs, dyn)
    prepare = getattr(ref, "PREPARE", {}).get(name)
    if prepare is not None:
        args = list(prepare(args))
    args = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args]

    call_args = [a if kind == "memref" else (ty, a) for a, (kind, ty, _) in zip(args, inputs)]
    run = run_function(text, name, call_args, opt_level=2)

    expected_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected_results = ref.REFERENCE[name](*expected_args)
    assert isinstance(expected_results, tuple)

    for i, (a, (kind, ty, _)) in enumerate(zip(expected_args, inputs)):
        if kind == "memref":
            assert run.outputs[i].dtype == a.dtype
            check(run.outputs[i], a, ty, f"@{name} argument #{i}")
    assert len(run.results) == len(results) == len(expected_results), (
        f"@{name}: {len(run.results)} results, signature {len(results)}, reference {len(expected_results)}")
    for k, (got, want, (kind, ty, _)) in enumerate(zip(run.results, expected_results, results)):
        check(got, want, ty, f"@{name} result #{k}")


def kernel_summary(corpus: str) -> list[tuple[str, set[str], bool]]:
    summary = []
    for path in kernel_files(corpus):
        inputs, results, _ = signature(load(path), path.stem)
        types = {ty for _, ty, _ in inputs + results if ty != "index"}
        summary.append((path.stem, types, bool(results)))
    return summary


def test_corpus_composition():
    summary = kernel_summary("loops")
    assert len(summary) >= 40
    assert sum("f32" in types for _, types, _ in summary) >= 8
    assert sum("i32" in types for _, types, _ in summary) >= 5
    assert sum(returns for _, _, returns in summary) >= 8
    assert set(reference_module("loops").REFERENCE) == {name for name, _, _ in summary}


def test_heldout_composition():
    summary = kernel_summary("heldout")
    if not summary:
        pytest.skip("no held-out kernels")
    assert len(summary) >= 12
    assert sum("f32" in types for _, types, _ in summary) >= 3
    assert sum("i32" in types for _, types, _ in summary) >= 2
    assert sum(returns for _, _, returns in summary) >= 3
    assert set(reference_module("heldout").REFERENCE) == {name for name, _, _ in summary}
