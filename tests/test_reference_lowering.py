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


def test_stablehlo_batch_split_over_cores_runs_each_as_its_own(monkeypatch):
    """Texts split into one batch per core, compiled on threads at once: two executables,
    each text's part gives what it gives compiled alone, bit for bit."""
    from synth import background

    monkeypatch.setattr(background, "free_cores", lambda: 2)
    texts = {n: _STABLEHLO.replace("N", str(n)) + "// split\n" for n in (1, 4, 7, 11, 13)}
    rng = np.random.default_rng(7)
    inputs = {n: [rng.uniform(-1, 1, n), np.asarray(-1.25)] for n in texts}
    alone = {n: reference.run_stablehlo_reference(t + "// alone\n", inputs[n]) for n, t in texts.items()}
    reference._precompile_xla(list(texts.values()))
    parts = [reference._executables[reference._key(t)] for t in texts.values()]
    assert all(isinstance(p, reference._Part) for p in parts)
    assert len({id(p.exe) for p in parts}) == 2
    for n, text in texts.items():
        for g, a in zip(reference.run_stablehlo_reference(text, inputs[n]), alone[n]):
            np.testing.assert_array_equal(g, a)


def test_balanced_groups_keep_every_text_once_and_one_size_together():
    def text(n: int, size: int) -> str:
        return f"func.func public @main(%arg0: tensor<{size}xf64>) {{\n" + "x" * n + "\n}"

    texts = [text(50, 3), text(10, 5), text(40, 5), text(30, 7), text(20, 3), text(5, 9)]
    groups = reference._balanced(texts, 2)
    assert sorted(t for g in groups for t in g) == sorted(texts)
    assert all(g == [t for t in texts if t in g] for g in groups)  # in the callers' order
    sizes = [{t[t.index("<"):t.index(">")] for t in g} for g in groups]
    assert sum(len(s) for s in sizes) == 4  # each size in one group only
    assert groups[0] == [texts[0], texts[4], texts[5]]  # size 3 (70 + 2 headers), then 9 to the lighter
    assert reference._balanced(texts[:1], 3) == [texts[:1]]
    assert reference._balanced([texts[0], texts[4]], 2) == [[texts[0], texts[4]]]  # one size: one group


def test_compile_ahead_is_the_executable_the_call_runs():
    """A compile started ahead gives the call the result of a compile at the call; a text
    XLA rejects fails at its call as it does without the compile ahead."""
    import pytest

    text = _STABLEHLO.replace("N", "6").replace("@main(", "@f_raised(") + "// ahead\n"
    x = [np.arange(6.0), np.asarray(2.0)]
    reference.compile_ahead("stablehlo", text, "f_raised")
    pending = reference._executables[reference._key(text.replace("@f_raised(", "@main("))]
    got = reference.run_reference("stablehlo", text, "f_raised", x)
    assert pending.done()
    np.testing.assert_array_equal(got[0], np.arange(6.0) * 2.0)
    np.testing.assert_array_equal(got[1], np.asarray(30.0))
    bad = text.replace("stablehlo.multiply %a, %b", "stablehlo.multiply %a, %c") + "// bad\n"
    reference.compile_ahead("stablehlo", bad, "f_raised")
    with pytest.raises(Exception) as ahead:
        reference.run_reference("stablehlo", bad, "f_raised", x)
    with pytest.raises(Exception) as at_call:
        reference.run_stablehlo_reference(bad.replace("@f_raised(", "@main(") + "// again\n", x)
    assert type(ahead.value) is type(at_call.value)
    reference.compile_ahead("linalg", text, "f_raised")  # nothing: linalg compiles in the worker
