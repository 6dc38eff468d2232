#!/usr/bin/env python3
"""The command of the differential fuzzer for `synth raise` (issue 13); the fuzzer itself,
and its overview, are the package scripts/fuzzer/.

    python scripts/fuzz.py --seed S --count N [--out DIR] [--timeout T]
                           [--targets stablehlo,linalg] [--alternate] [--jobs 1] [--json]
    python scripts/fuzz.py --check tests/data/fuzz/KIND_SEED_K.mlir

Importing this module (as tests/test_fuzz.py does) gives the fuzzer's main functions under
their old names. `fuzz.SYNTH_ROOT` reads `fuzzer.config.SYNTH_ROOT` when it is asked for, so
it follows `use_synth_root`.
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # run other than as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzzer import config  # noqa: E402
from fuzzer.checker import Checker, Config, Failure, TargetResult  # noqa: E402
from fuzzer.config import REPRO_DIR, ROOT, TARGETS, use_synth_root  # noqa: E402
from fuzzer.driver import fuzz_program, main, print_report, run, summarize  # noqa: E402
from fuzzer.emit import Emitter, corrupt, emit, parses, size_values  # noqa: E402
from fuzzer.generate import Gen, generate, select_programs  # noqa: E402
from fuzzer.kernel import Kernel, kernel_size, tree_features, used_dims, walk_expr, walk_nodes  # noqa: E402
from fuzzer.mutate import MUTATORS, mutant_valid, mutants  # noqa: E402
from fuzzer.oracle import (bucket, compare, compare_runs, cut_function, draw_inputs,  # noqa: E402
                           first_error_line, raise_cmd, raised_outputs, run_original, run_proc,
                           run_raised, signature, verify_cmd)
from fuzzer.reproducer import check_reproducer, read_meta, save_reproducer  # noqa: E402
from fuzzer.shrink import shrink, shrink_candidates  # noqa: E402


__all__ = [
    "REPRO_DIR", "ROOT", "TARGETS", "MUTATORS", "Checker", "Config", "Emitter", "Failure", "Gen",
    "Kernel", "TargetResult", "bucket", "check_reproducer", "compare", "compare_runs", "corrupt",
    "cut_function", "draw_inputs", "emit", "first_error_line", "fuzz_program", "generate",
    "kernel_size", "main", "mutant_valid", "mutants", "parses", "print_report", "raise_cmd",
    "raised_outputs", "read_meta", "run", "run_original", "run_proc", "run_raised",
    "save_reproducer", "select_programs", "shrink", "shrink_candidates", "signature",
    "size_values", "summarize", "tree_features", "use_synth_root", "used_dims", "verify_cmd",
    "walk_expr", "walk_nodes",
]


def __getattr__(name: str):
    if name == "SYNTH_ROOT":  # not a copy: it changes with use_synth_root
        return config.SYNTH_ROOT
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(main())
