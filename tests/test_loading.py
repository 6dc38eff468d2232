"""Loading Polygeist output: legacy headers, parse errors as FILE:LINE:COL, exit codes."""

import hashlib
import re

import pytest

from conftest import DATA
from synth.cli import main
from synth.errors import InputError
from synth.analysis.model import load_kernel
from synth.analysis.function import describe
from synth.frontend.reader import LegacySyntaxWarning, load_source


def test_legacy_dlti_header_loads_with_warning():
    with pytest.warns(LegacySyntaxWarning, match="dlti.dl_spec"):
        source = load_source(DATA / "legacy_dlti.mlir")
    assert "vector<2xi32>" not in source.text
    kf = describe(source, "kernel_x")
    assert [a.shape for a in kf.arguments] == [None, (10,)]


def test_legacy_func_syntax_and_header_run(capsys):
    path = DATA / "legacy_func.mlir"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    assert main(["run", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "warning:" in err and "dlti.dl_spec" in err
    assert "arg1 16xf64: sum=" in out
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # input never modified


def test_upgrade_keeps_line_numbers():
    text = (DATA / "legacy_dlti.mlir").read_text()
    source = load_source(DATA / "legacy_dlti.mlir", warn=False)
    assert source.text.count("\n") == text.count("\n")


def test_malformed_file_reports_file_line_col():
    with pytest.raises(InputError) as info:
        load_source(DATA / "malformed.mlir")
    assert str(info.value).startswith(f"{DATA / 'malformed.mlir'}:2:19: ")
    assert info.value.exit_code == 2


def test_malformed_file_exit_code_2_without_traceback(capsys):
    assert main(["run", str(DATA / "malformed.mlir")]) == 2
    err = capsys.readouterr().err
    assert re.match(r".*malformed\.mlir:2:19: error: use of undeclared SSA value name", err)
    assert "Traceback" not in err


def test_missing_file_and_function(capsys, tmp_path):
    assert main(["run", str(tmp_path / "nope.mlir")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["run", str(DATA / "legacy_func.mlir"), "--function", "nope"]) == 2
    assert "no function @nope" in capsys.readouterr().err


def test_unsupported_operation_is_located(tmp_path):
    path = tmp_path / "call.mlir"
    path.write_text("func.func private @ext(f64)\n"
                    "func.func @k(%a: memref<4xf64>) {\n"
                    "  %c = arith.constant 1.0 : f64\n"
                    "  func.call @ext(%c) : (f64) -> ()\n"
                    "  return\n}\n")
    with pytest.raises(InputError, match=r"call\.mlir:4:3: unsupported operation 'func.call'"):
        describe(load_source(path), "k")


def test_dynamic_shapes_are_rejected_clearly(tmp_path):
    path = tmp_path / "dyn.mlir"
    path.write_text("func.func @k(%a: memref<?xf64>) {\n  return\n}\n")
    with pytest.raises(InputError, match="dimension 0 of argument #0 is dynamic and no loop index reaches it"):
        load_kernel(load_source(path), "k")


@pytest.mark.parametrize("command", ["raise", "verify"])
def test_the_input_is_parsed_once_per_process(tmp_path, monkeypatch, command):
    """`synth raise` and `synth verify` parse the input file's text once; later stages
    read that parse or copy it (the texts synth derives are parsed once each too)."""
    from mlir import ir

    from conftest import POLYBENCH

    text = (POLYBENCH / "gemm.mlir").read_text()
    parsed = []
    real_parse = ir.Module.parse
    monkeypatch.setattr(ir.Module, "parse", staticmethod(
        lambda asm, *a, **k: (parsed.append(asm), real_parse(asm, *a, **k))[1]))
    out = tmp_path / "gemm.raised.mlir"
    if command == "verify":
        assert main(["raise", str(POLYBENCH / "gemm.mlir"), "--target", "linalg", "-o", str(out), "-q"]) == 0
        parsed.clear()
        args = ["verify", str(POLYBENCH / "gemm.mlir"), str(out), "--level", "test"]
    else:
        args = ["raise", str(POLYBENCH / "gemm.mlir"), "--target", "linalg", "-o", str(out), "-q"]
    assert main(args) == 0
    assert parsed.count(text) == 1
    assert max(parsed.count(t) for t in set(parsed)) <= 3  # derived texts: at most per size instance
