# ruff: noqa: F821  (lit provides `config`)
# lit configuration of synth's golden tests (run by tests/test_lit.py, or `lit tests/lit`).
# `synth` runs the command line of the package under test; `filecheck` is the PyPI port of
# LLVM's FileCheck; `not` inverts an exit code.
import os
import sys

import lit.formats

config.name = "synth"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%synth", f"{sys.executable} -m synth.cli"))
config.environment["TF_CPP_MIN_LOG_LEVEL"] = "3"
for var in ("PATH", "HOME", "PYTHONPATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
