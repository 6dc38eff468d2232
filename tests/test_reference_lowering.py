"""Verdicts run raised code through the reference lowering (synth.validation.reference:
upstream MLIR passes to loops, XLA with default options), never through a backend's
performance pipeline; and validation does not import the backends."""

import ast
from pathlib import Path

import numpy as np

import synth.execution
from conftest import DATA, ROOT
from synth import cli
from synth.validation import reference
from synth.validation.verify import verify

KERNEL = DATA / "reference" / "scale_add.mlir"  # 2 x 1024 x 1024 inputs: once the tiled pipeline's size


def _spy(monkeypatch) -> list[tuple[str, int]]:
    """Record (pipeline, input elements) of every request the ExecutionEngine worker gets."""
    seen: list[tuple[str, int]] = []
    call = synth.execution._Worker.call

    def recording(self, request, *args, **kwargs):
        seen.append((request["pipeline"], sum(int(np.size(a)) for a in request["args"]
                                              if isinstance(a, np.ndarray))))
        return call(self, request, *args, **kwargs)

    monkeypatch.setattr(synth.execution._Worker, "call", recording)
    return seen


def test_verdict_at_large_sizes_runs_the_reference_pipeline(tmp_path, monkeypatch):
    raised = tmp_path / "scale_add.linalg.mlir"
    assert cli.main(["raise", str(KERNEL), "--target", "linalg", "--verify", "z3", "-o", str(raised)]) == 0
    seen = _spy(monkeypatch)
    report = verify(KERNEL, raised, level="test")
    assert report.equivalent, report.summary()
    tensor_runs = [(p, n) for p, n in seen if p != synth.execution.AFFINE_PIPELINE]
    assert any(n >= 1 << 20 for _, n in tensor_runs), seen  # the original sizes were tested
    assert tensor_runs and all(p in reference.PIPELINES for p, _ in tensor_runs), tensor_runs
    # the only rewrites of synth's own there work around MLIR 22 defects (an abort, a crash)
    workarounds = (synth.execution.BOOLS_AS_BYTES, synth.execution.DISTINCT_BUFFERS)

    def own(p):
        for w in workarounds:
            p = p.replace(w, "")
        return p
    assert all("synth-" not in own(p) and "transform" not in p for p, _ in tensor_runs)
    assert reference.last_pipeline() in reference.PIPELINES


def test_validation_does_not_import_the_backends():
    root = ROOT / "synth" / "validation"
    offenders = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.name}:{node.lineno} {n}" for n in names
                          if n.startswith(("synth.backends", "synth.bench"))]
    assert offenders == [], offenders


_STABLEHLO = """
func.func @main(%a: tensor<Nxf64>, %c: tensor<f64>) -> (tensor<Nxf64>, tensor<f64>) {
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f64>) -> tensor<Nxf64>
  %m = stablehlo.multiply %a, %b : tensor<Nxf64>
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %s = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0] : (tensor<Nxf64>, tensor<f64>) -> tensor<f64>
  return %m, %s : tensor<Nxf64>, tensor<f64>
}
"""


def test_stablehlo_modules_compiled_as_one_batch_run_each_as_its_own():
    """Modules XLA compiled together (a test's sizes) give what each compiled alone does."""
    texts = {n: _STABLEHLO.replace("N", str(n)) for n in (2, 3, 9)}
    rng = np.random.default_rng(5)
    inputs = {n: [rng.uniform(-1, 1, n), np.asarray(0.75)] for n in texts}
    alone = {n: reference.run_stablehlo_reference(t + "// alone\n", inputs[n]) for n, t in texts.items()}
    reference._precompile_xla(list(texts.values()))
    for n, text in texts.items():
        assert isinstance(reference._executables[reference._key(text)], reference._Part)
        got = reference.run_stablehlo_reference(text, inputs[n])
        assert len(got) == 2
        for g, a in zip(got, alone[n]):
            np.testing.assert_array_equal(g, a)
