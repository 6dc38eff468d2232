"""How raised modules are split into functions (synth.semantics.raised_text): in the text,
checked against MLIR's own reading of the same modules."""

import subprocess
from pathlib import Path

import pytest
from conftest import DATA

from synth.errors import InputError
from synth.semantics.raised import detect_dialect, load_raised, shared_context
from synth.frontend.mlir_text import UnbalancedBrackets
from synth.semantics.raised_text import keep_functions, top_level_functions

ROOT = DATA.parents[1]


def _raised_modules() -> list[Path]:
    out = subprocess.run(["git", "grep", "-l", "_raised", "--", "tests/data/*.mlir", "benchmarks/*.mlir"],
                         cwd=ROOT, capture_output=True, text=True).stdout.split()
    return [ROOT / p for p in out]


def _parse(text: str):
    """(name -> location) of the top-level func.func ops of `text`, parsed by MLIR in the
    context of its dialect."""
    if detect_dialect(text) == "stablehlo":
        from jaxlib.mlir import ir

        ctx = shared_context("stablehlo")
    else:
        from mlir import ir

        ctx = shared_context()
    with ctx:
        module = ir.Module.parse(text)
        return {op.attributes["sym_name"].value: str(op.location)
                for op in module.body.operations if op.operation.name == "func.func"}


def test_mlir_finds_the_functions_where_the_text_split_does():
    """Every `@*_raised` of every raised module under tests/data and benchmarks: the text with
    it and its callees kept (the rest blanked) parses, and MLIR finds exactly the functions
    kept, each at the line and column where the split starts it."""
    checked = 0
    for path in _raised_modules():
        text = path.read_text()
        funcs = {name: start for name, start, _ in top_level_functions(text)}
        for name in [n for n in funcs if n.endswith("_raised")]:
            kept = keep_functions(text, name)
            found = _parse(kept)
            assert name in found, (path, name)
            for other, loc in found.items():  # the functions kept: `name` and its callees
                line = text.count("\n", 0, funcs[other]) + 1
                column = funcs[other] - (text.rfind("\n", 0, funcs[other]) + 1) + 1
                assert loc == f'loc("-":{line}:{column})', (path, other)
            checked += 1
    assert checked >= 30


def test_a_module_no_single_mlir_context_parses_is_split_in_the_text():
    """durbin's stablehlo raise with its drop-in wrapper: stablehlo ops (jaxlib's context
    only) and bufferization ops (upstream's only), so neither context parses the module;
    the raised function kept alone parses in jaxlib's."""
    from jaxlib.mlir import ir as jax_ir
    from mlir import ir

    text = (DATA / "gpu" / "durbin.stablehlo.mlir").read_text()
    for module, ctx in ((jax_ir, shared_context("stablehlo")), (ir, shared_context())):
        with ctx, pytest.raises(module.MLIRError):
            module.Module.parse(text)
    assert list(_parse(keep_functions(text, "kernel_durbin_raised"))) == ["kernel_durbin_raised"]


def test_an_unclosed_function_is_an_error_at_its_brace(tmp_path):
    text = ("module {\n  func.func @f_raised(%a: tensor<2xf64>) -> tensor<2xf64> {\n"
            "    return %a : tensor<2xf64>\n")
    with pytest.raises(UnbalancedBrackets, match="the '[{]' at line 2, column 59 is never closed"):
        top_level_functions(text)
    path = tmp_path / "open.mlir"
    path.write_text(text)
    with pytest.raises(InputError, match=r"open\.mlir:2:59: cannot read the raised module: unbalanced brackets"):
        load_raised(path, "f_raised")


def test_the_scanner_skips_strings_and_comments():
    """synth.frontend.mlir_text.closing: brackets inside string literals (escaped quotes
    too) and `//` comments are not counted; the `>` of `->` closes nothing."""
    from synth.frontend.mlir_text import closing

    text = 'f { x = "}\\"}" // }\n { } } tail'
    assert text[closing(text, 2):] == " tail"
    attr = "#dlti.dl_spec<#dlti.dl_entry<i64, dense<64> : vector<2xi32>>, (i32) -> i32> rest"
    assert attr[closing(attr, attr.index("<")):] == " rest"
    with pytest.raises(UnbalancedBrackets, match="the '<' at line 1, column 14"):
        closing(attr[:-10], attr.index("<"))
