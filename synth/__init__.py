"""synth: raise affine MLIR loop kernels to linalg / stablehlo by enumerative synthesis.

The Python API (the command line calls the same functions):

    import synth
    outcomes = synth.raise_module("gemm.mlir", target="stablehlo")   # one per function
    print(outcomes[0].module)                                        # validated output
    report = synth.verify("gemm.mlir", "gemm.raised.mlir")           # level "all", as the CLI
    report.verdict                                                   # "equivalent", ...

Errors are `synth.errors.SynthError`s with the exit code the CLI would give
(InputError 2, NoSolutionError 3).
"""

from __future__ import annotations

__version__ = "0.1.0"


def raise_module(text_or_path, target: str, *, function: str | None = None, timeout: float = 60.0,
                 max_size: int = 6, verify: str = "all", z3_timeout: float = 60.0, seed: int = 0,
                 shapes: str = "auto"):
    """Raise each function of a module (or `function`) to `target` ("stablehlo" or "linalg")
    and validate it: a list of `synth.pipeline.RaiseOutcome` (`.module`, `.stats`,
    `.validation`, `.kernel`). `text_or_path`: MLIR text, or a path to a .mlir file. The
    defaults are `synth raise`'s (tests/test_layers.py checks they stay equal)."""
    from pathlib import Path

    from synth.analysis.function import list_functions
    from synth.errors import InputError
    from synth.frontend.reader import load_source, load_text
    from synth.pipeline import RaiseOptions, raise_function
    from synth.synthesis.search import SearchSettings

    if isinstance(text_or_path, Path) or ("\n" not in str(text_or_path) and str(text_or_path).endswith(".mlir")):
        source = load_source(text_or_path, warn=False)
    else:
        source = load_text(str(text_or_path), "<text>", warn=False)
    names = list_functions(source)
    if function is not None:
        if function not in names:
            raise InputError(f"no function @{function} with a body in the module", source.path)
        names = [function]
    options = RaiseOptions(SearchSettings(max_size=max_size, timeout=timeout), verify, z3_timeout, seed, shapes)
    return [raise_function(source, name, target, options) for name in names]


def verify(original, raised, *, function: str | None = None, level: str = "all", seed: int = 0,
           z3_timeout: float = 300.0):
    """Check a raised module against the original (paths): a `synth.validation.common.Report`
    with `.verdict` ("equivalent", "not equivalent", "unknown"), `.counterexample`,
    `.sizes_tested`, `.sizes_proven`. The defaults are `synth verify`'s (level "all": the
    proof for every size where it applies, else the bounded one; tests/test_layers.py)."""
    from synth.validation.verify import verify as _verify

    return _verify(original, raised, function, level, seed=seed, z3_timeout=z3_timeout)
