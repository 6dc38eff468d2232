"""No silent fallback: a pass of mlir-cpu's pipeline that throws, or leaves IR that fails
verification, is a recorded error naming the pass (PipelineFailed; synth bench's row has
`pipeline` and `fallback_reason` and no time), never a rerun through plain loops.

The failing passes are real Python passes put into the real pipeline (in the worker that
runs it), not mocks of MLIR."""

import json
import os

import numpy as np
import pytest

import synth.execution
from conftest import POLYBENCH
from synth.backends import mlir_cpu
from synth.backends import passes as P
from synth.backends.mlir_cpu import MlirCpuBackend, PipelineFailed
from synth.cli import main
from synth.execution import Step

INJECTED = '''
def throw(module):
    raise RuntimeError("injected failure")


def break_ir(module):
    """Erase the terminator of every function: the module no longer verifies."""
    count = 0
    for op in module.body.operations:
        if op.operation.name == "func.func":
            for block in op.regions[0].blocks:
                block.operations[len(block.operations) - 1].erase()
                count += 1
    return count
'''

ADD = """func.func @f(%a: tensor<8xf64>, %b: tensor<8xf64>) -> tensor<8xf64> attributes {synth.outputs = [0]} {
  %e = tensor.empty() : tensor<8xf64>
  %r = linalg.add ins(%a, %b : tensor<8xf64>, tensor<8xf64>) outs(%e : tensor<8xf64>) -> tensor<8xf64>
  return %r : tensor<8xf64>
}
"""


@pytest.fixture
def inject(tmp_path, monkeypatch):
    """inject(function): mlir-cpu's tiled pipeline with the pass `synth_injected_passes:function`
    before the wavefront, run by a worker that can import it."""
    (tmp_path / "synth_injected_passes.py").write_text(INJECTED)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setattr(synth.execution, "_worker", None)  # a fresh worker, started with that path
    tiled = mlir_cpu.tiled_pipeline

    def with_injected(function: str):
        step = Step("python", f"injected-{function}", f"synth_injected_passes:{function}")
        monkeypatch.setattr(mlir_cpu, "tiled_pipeline",
                            lambda *a, **k: tiled(*a, **k).inserted_before(P.WAVEFRONT, step))
        return step.name
    return with_injected


@pytest.mark.parametrize("function, says", [("throw", "RuntimeError: injected failure"),
                                            ("break_ir", "left IR that fails verification")])
def test_a_failing_pass_is_an_error_naming_it(inject, function, says):
    name = inject(function)
    prepared = MlirCpuBackend().prepare(ADD, "f")
    with pytest.raises(PipelineFailed) as e:
        prepared.run([np.ones(8), np.ones(8)])
    assert e.value.pipeline == "tiled" and f"pass {name} failed" in e.value.fallback_reason
    assert says in e.value.fallback_reason
    assert prepared.pipeline_name == "tiled" and prepared.fallback_reason  # not rerun as plain loops


def test_the_tiled_pipeline_counts_its_rewrites():
    prepared = MlirCpuBackend().prepare(ADD, "f")
    np.testing.assert_array_equal(prepared.run([np.ones(8), np.ones(8)])[0], np.full(8, 2.0))
    assert prepared.pipeline_name == "tiled" and prepared.fallback_reason is None
    assert set(prepared.rewrites) == {p.name for p in P.PASSES}  # every Python pass ran, counted


def test_bench_records_a_failing_pass_not_a_time(inject, tmp_path):
    name = inject("throw")
    out = tmp_path / "bench"
    rc = main(["bench", str(POLYBENCH / "gemm.mlir"), "--dataset", "mini", "--out", str(out), "--repeats", "1",
               "--targets", "linalg", "--backends", "mlir-cpu", "--timeout", "60"])
    assert rc == 0
    rows = [r for r in json.loads((out / "results.json").read_text()) if r.get("backend") == "mlir-cpu"]
    assert rows and all(r["status"] == "pipeline-error" for r in rows), rows
    for r in rows:
        assert r["pipeline"] == "tiled" and name in r["fallback_reason"], r
        assert "seconds" not in r and "speedup" not in r
    report = (out / "report.md").read_text()
    assert any("pipeline-error" in line and name in line and "| tiled |" in line for line in report.splitlines())


def test_opt_runs_one_pass_and_refuses_bad_input(tmp_path, capsys):
    """`synth opt`: the module after the pass on stdout and its count on stderr; an unknown
    pass or a module that does not parse is bad input (exit 2, FILE:LINE:COL)."""
    dup = tmp_path / "dup.mlir"
    dup.write_text("func.func @f(%a: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {\n"
                   "  return %a, %a : tensor<4xf64>, tensor<4xf64>\n}\n")
    assert main(["opt", "--pass", P.DISTINCT_RESULTS, str(dup)]) == 0
    out, err = capsys.readouterr()
    assert "bufferization.alloc_tensor() copy(%arg0)" in out and f"{P.DISTINCT_RESULTS}: 1 rewrite" in err
    assert main(["opt", "--pass", "no-such-pass", str(dup)]) == 2
    assert "unknown pass 'no-such-pass'" in capsys.readouterr().err
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    assert main(["opt", "--pass", P.WAVEFRONT, str(bad)]) == 2
    assert f"{bad}:1:" in capsys.readouterr().err


def test_a_failing_performance_pass_does_not_change_a_verdict(inject, tmp_path):
    """Verdicts run through the reference lowering (synth.validation.reference): with a
    throwing pass in mlir-cpu's pipeline, a raise at 2 x 1024^2 inputs still verifies."""
    from conftest import DATA
    from synth.validation.verify import verify

    kernel = DATA / "reference" / "scale_add.mlir"
    raised = tmp_path / "scale_add.linalg.mlir"
    assert main(["raise", str(kernel), "--target", "linalg", "--verify", "z3", "-o", str(raised)]) == 0
    inject("throw")
    with pytest.raises(PipelineFailed):  # the performance pipeline does fail on it
        MlirCpuBackend().prepare(raised.read_text(), "scale_add").run(
            [np.asarray(2.0), np.ones((1024, 1024)), np.ones((1024, 1024))])
    report = verify(kernel, raised, level="test")
    assert report.equivalent, report.summary()
