"""A Csmith-style differential fuzzer for `synth raise` (issue 13).

    python scripts/fuzz.py --seed S --count N [--out DIR] [--timeout T]
                           [--targets stablehlo,linalg] [--alternate] [--jobs 1] [--json]
    python scripts/fuzz.py --check tests/data/fuzz/KIND_SEED_K.mlir

1. *Generator*: random affine kernels as MLIR text, one `func.func @fuzz_<k>` per file,
   the way people write loop code (loop nests 1-4 deep, constant or i32-parameter bounds,
   transposed / offset / strided / broadcast accesses, triangular and banded bounds,
   reductions into arrays and scalars, returned values, in-place updates, f64 / f32 / i32),
   plus kernels no tensor program expresses (recurrences, time steps) and malformed ones
   (syntax errors, undefined values, ops synth does not read). The kernel is kept as a
   small tree (`Kernel`: loops, stores, expressions) and printed by `Emitter`, so a failing
   kernel can be shrunk by regenerating it with fewer parts.
2. *Oracle*: `python -m synth.cli raise` in a subprocess with a hard deadline, classified by
   exit code; every raised output is run (XLA for stablehlo, the drop-in wrapper through
   MLIR's bufferization pipeline for linalg) against the original (ExecutionEngine) on
   fresh random inputs, outside synth's own validation: a difference is a *wrong raise*.
3. *Mutants*: text edits of `@NAME_raised`; those that still parse and verify are given
   to `python -m synth.cli verify`; one that verify accepts (exit 0) although the oracle
   shows it computes something different is an *accepted mutant*.
4. *Shrinking*: every failure is reduced (fewer loops, statements, ops) while it keeps
   failing, and saved under tests/data/fuzz/<kind>_<seed>_<k>.mlir with a header saying
   what failed and how to reproduce it (`--check FILE` re-runs that check).
5. *Report*: counts per outcome (printed, or JSON with --json; always OUT/report.json).

The package, in the order of the data flow: `config` (the checkout being fuzzed), `kernel`
(the tree and its walkers), `draw` and `generate` (1), `emit` (the tree as MLIR), `oracle`
(2), `mutate` (3), `shrink` (4), `checker` (one kernel on one target), `reproducer` (saved
failures and `--check`), `driver` (the run, 5, and the command line of scripts/fuzz.py).
"""
