"""`synth raise`: the output contract, equivalence at the original sizes (checked here
independently of the checks raise itself runs), exit codes, statistics and ablations."""

import json

import numpy as np
import pytest

from conftest import DATA, POLYBENCH
from synth.backends.xla_cpu import run_stablehlo
from synth.cli import main
from synth.execution import TENSOR_PIPELINE, run_function
from synth.inputs import kernel_arguments
from synth.kernel import describe
from synth.mlir_input import load_source
from synth.resize import size_values

ALLOWED = {
    "stablehlo": lambda name: name.startswith("stablehlo.") or name == "func.return",
    "linalg": lambda name: (name.startswith("linalg.") or name in ("tensor.empty", "arith.constant", "func.return")),
}


def _raise(tmp_path, kernel, target, *extra):
    out = tmp_path / f"{kernel}.{target}.mlir"
    stats = tmp_path / f"{kernel}.{target}.json"
    rc = main(["raise", str(POLYBENCH / f"{kernel}.mlir"), "--target", target, "-o", str(out),
               "--stats-json", str(stats), *extra])
    return rc, out, stats


def _raised_ops(text, target, name):
    """Op names at the top of @NAME_raised, its synth.outputs and argument types, and the
    argument types of the drop-in @NAME. A stablehlo module is read in two parts: the
    raised function in a stablehlo context, the wrapper (bufferization) in upstream MLIR."""
    from mlir import ir as upstream

    raised_part, wrapper_part = text.split(f"  func.func @{name}(")
    if target == "stablehlo":
        from synth.emit import _stablehlo_context

        ir, ctx = _stablehlo_context()
        raised_text = raised_part + "}\n"
    else:
        ir, ctx = upstream, upstream.Context()
        raised_text = text
    with ctx:
        module = ir.Module.parse(raised_text)
        funcs = {op.attributes["sym_name"].value: op for op in module.body.operations}
        raised = funcs[f"{name}_raised"]
        top = [op.operation.name for op in raised.regions[0].blocks[0].operations]
        outputs = [int(a.value) for a in raised.attributes["synth.outputs"]]
        arg_types = [str(t) for t in raised.type.inputs]
        result_types = [str(t) for t in raised.type.results]
    decl = f"func.func private @{name}_raised({', '.join(arg_types)}) -> ({', '.join(result_types)})\n"
    with upstream.Context():
        wrapper = upstream.Module.parse(decl + f"func.func @{name}(" + wrapper_part.rsplit("}", 1)[0])
        funcs = {op.attributes["sym_name"].value: op for op in wrapper.body.operations}
        wrapper_types = [str(t) for t in funcs[name].type.inputs]
    return top, outputs, arg_types, wrapper_types


def check_contract_and_equivalence(tmp_path, kernel, target):
    rc, out, stats = _raise(tmp_path, kernel, target)
    assert rc == 0
    text = out.read_text()
    name = "kernel_" + kernel.replace("-", "_")
    source = load_source(POLYBENCH / f"{kernel}.mlir")
    kf = describe(source, name)
    top, outputs, arg_types, wrapper_types = _raised_ops(text, target, name)
    assert all(ALLOWED[target](op) for op in top), top
    assert not any(op.startswith(("affine.", "memref.", "scf.")) for op in top)
    assert outputs == kf.outputs
    # one tensor per original argument, at the ORIGINAL sizes
    assert len(arg_types) == len(kf.arguments)
    for a, t in zip(kf.arguments, arg_types):
        assert t == (a.mlir_type.replace("memref", "tensor") if a.is_array else f"tensor<{a.type}>")
    assert wrapper_types == [a.mlir_type for a in kf.arguments]  # drop-in keeps the signature
    # the validation is recorded on @NAME_raised: a bounded Z3 proof by default
    assert 'synth.validation = "z3"' in text and "synth.sizes_proven = [{arg" in text

    # equivalence at the original sizes on fresh inputs
    sizes = size_values(kf)
    args = kernel_arguments(kf, sizes, np.random.default_rng(7))
    expected = run_function(source.text, name, args, opt_level=3).outputs
    if target == "stablehlo":
        raised_only = text.split(f"  func.func @{name}(")[0] + "}\n"
        inputs = [a if isinstance(a, np.ndarray) else np.asarray(a[1], dtype={"i32": np.int32, "f64": np.float64}[a[0]])
                  for a in args]
        got = run_stablehlo(raised_only.replace(f"@{name}_raised(", "@main(", 1), inputs)
    else:  # run the drop-in replacement itself, with the original calling convention
        outs = run_function(text, name, args, pipeline=TENSOR_PIPELINE).outputs
        got = [outs[i] for i in kf.outputs]
    for i, g in zip(kf.outputs, got):
        want = expected[i]
        np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(want).max()))
    return json.loads(stats.read_text())[name]


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_raise_mvt_meets_contract(tmp_path, target):
    stats = check_contract_and_equivalence(tmp_path, "mvt", target)
    # executed against the original at two small size configurations and the original size
    assert stats["candidates"] > 0 and len(stats["checks"]) == 3 and {"#0": 2000} in stats["checks"]
    assert stats["verification"] == "z3" and stats["validation"]["sizes_proven"]
    for p in stats["problems"]:
        for key in ("enumerated", "rejected_type", "rejected_verifier", "rejected_equivalence",
                    "evaluated", "seconds"):
            assert key in p


def test_raise_atax_linalg_uses_contractions(tmp_path):
    check_contract_and_equivalence(tmp_path, "atax", "linalg")
    text = (tmp_path / "atax.linalg.mlir").read_text()
    assert "linalg.matvec" in text or "linalg.vecmat" in text


@pytest.mark.slow
@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("kernel", ["2mm", "3mm", "atax", "bicg", "doitgen", "gemm", "gemver", "gesummv", "mvt",
                                    "covariance", "syrk", "trmm"])
def test_raise_kernel(tmp_path, kernel, target):
    check_contract_and_equivalence(tmp_path, kernel, target)


def test_triangular_update_is_a_masked_select(tmp_path):
    """syrk updates only the lower triangle of C: the search finds the update on the
    positions that change and wraps it in a select on an index-grid comparison."""
    stats = check_contract_and_equivalence(tmp_path, "syrk", "stablehlo")
    text = (tmp_path / "syrk.stablehlo.mlir").read_text()
    assert "stablehlo.iota" in text and "stablehlo.compare" in text and "stablehlo.select" in text
    assert all(p["program"].startswith("select(compare(iota") for p in stats["problems"])


def test_triangular_operand_is_masked(tmp_path):
    """trmm sums A[k][i] * B[k][j] over k > i only: the strictly triangular part of A is a
    select on an index-grid comparison feeding the contraction."""
    stats = check_contract_and_equivalence(tmp_path, "trmm", "stablehlo")
    assert any("dot_general(select(compare(iota" in p["program"] for p in stats["problems"])


def test_sequential_recurrence_exits_3_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "gs.mlir"
    rc = main(["raise", str(DATA / "gauss_seidel_1d.mlir"), "--target", "stablehlo",
               "-o", str(out), "--timeout", "10", "--max-size", "4"])
    assert rc == 3
    assert not out.exists()
    assert "no equivalent program found" in capsys.readouterr().err


def test_ablation_switches_change_the_search(tmp_path):
    _, _, stats = _raise(tmp_path, "gemm", "stablehlo")
    base = json.loads(stats.read_text())["kernel_gemm"]["problems"]
    rc, _, stats = _raise(tmp_path, "gemm", "stablehlo", "--no-equivalence-pruning",
                          "--no-verifier-pruning")
    assert rc == 0
    ablated = json.loads(stats.read_text())["kernel_gemm"]["problems"]
    assert all(p["rejected_equivalence"] == 0 for p in ablated)
    assert sum(p["evaluated"] for p in ablated) > sum(p["evaluated"] for p in base)
    assert sum(p["rejected_equivalence"] for p in base) > 0


def test_unsupported_input_exits_2(tmp_path, capsys):
    path = tmp_path / "dyn.mlir"
    path.write_text("func.func @k(%a: memref<?xf64>) {\n  return\n}\n")
    assert main(["raise", str(path), "--target", "linalg", "-o", str(tmp_path / "o.mlir")]) == 2
    assert "dynamic shape" in capsys.readouterr().err
    assert not (tmp_path / "o.mlir").exists()


def test_time_step_loops_exit_3_at_once(tmp_path, capsys):
    out = tmp_path / "j.mlir"
    rc = main(["raise", str(POLYBENCH / "jacobi-2d.mlir"), "--target", "linalg", "-o", str(out)])
    assert rc == 3 and not out.exists()
    assert "bound no array dimension (time steps)" in capsys.readouterr().err
