"""The command line as a new user meets it, through a subprocess: --version, standard
input and output, unwritable outputs refused before any work, help for every option, the
result said in words, counterexamples with their inputs, `synth run` timing and raised
modules, bench option checks."""

import subprocess
import sys
import time

import pytest

from conftest import DATA, LOOPS, POLYBENCH
from synth.cli import build_parser, main

SYNTH = [sys.executable, "-m", "synth.cli"]


def synth(*args, stdin=None, timeout=300):
    return subprocess.run([*SYNTH, *map(str, args)], input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def test_version():
    p = synth("--version")
    assert p.returncode == 0 and p.stdout.startswith("synth ")


def test_standard_input_and_output():
    p = synth("raise", "-", "--target", "linalg", "-o", "-", stdin=(LOOPS / "dsp_vadd.mlir").read_text())
    assert p.returncode == 0, p.stderr
    assert "func.func @dsp_vadd_raised" in p.stdout and "linalg.add" in p.stdout
    bad = synth("raise", "-", "--target", "linalg", stdin="func.func @k(%a: memref<4xf64>) {\n")
    assert bad.returncode == 2 and bad.stderr.startswith("<stdin>:")


@pytest.mark.parametrize("kind", ["missing directory", "a directory"])
def test_unwritable_output_is_refused_before_any_work(tmp_path, kind):
    out = tmp_path / "no" / "such" / "dir" / "x.mlir" if kind == "missing directory" else tmp_path
    t0 = time.monotonic()
    p = synth("raise", POLYBENCH / "gemm.mlir", "--target", "stablehlo", "-o", out)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert ("does not exist" in p.stderr) if kind == "missing directory" else ("is a directory" in p.stderr)
    assert time.monotonic() - t0 < 20  # no search, no proof


def test_every_option_has_help():
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name, sub in commands.items():
        for action in sub._actions:
            if action.dest == "help":
                continue
            assert action.help, f"synth {name} {action.option_strings or action.dest}: no help"
    text = synth("bench", "--help").stdout
    assert "--repeats REPEATS" in text and "(default: 5)" in text


def test_success_is_said_in_words(tmp_path):
    p = synth("raise", LOOPS / "blas_axpy.mlir", "--target", "stablehlo", "-o", tmp_path / "o.mlir")
    assert p.returncode == 0
    assert "proven equivalent with Z3 for every size (n1000 >= 1" in p.stderr
    assert "real arithmetic)" in p.stderr
    assert "{" not in p.stderr.splitlines()[-1]
    q = synth("raise", LOOPS / "blas_axpy.mlir", "--target", "stablehlo", "-q", "-o", tmp_path / "q.mlir")
    assert q.returncode == 0 and q.stderr == ""


def test_counterexample_prints_the_inputs():
    p = synth("verify", DATA / "mutants" / "diff.mlir", DATA / "mutants" / "diff.swapsub.stablehlo.mlir",
              "--level", "test")
    assert p.returncode == 4
    assert "input set = random" in p.stdout and "arg1 = [[" in p.stdout and "arg0 = 3" in p.stdout


def test_verify_of_a_text_it_cannot_resize_is_undecided_not_bad_input(tmp_path):
    """A fixed-size kernel whose loop runs 2 to 38 over extent 40 (found by the fuzzer):
    synth raise proves its linalg raise (it re-instantiates from the program's size
    symbols); synth verify reads the emitted text, whose slice extent 36 (40 - 4) the
    textual re-instantiation does not read as a size. Verify tests at the kernel's own
    sizes and says, with exit 3, why it proves nothing, instead of refusing the input."""
    out = tmp_path / "out.mlir"
    r = synth("raise", DATA / "verify" / "inner_extent.mlir", "--target", "linalg", "-o", out)
    assert r.returncode == 0, r.stderr
    v = synth("verify", DATA / "verify" / "inner_extent.mlir", out)
    assert v.returncode == 3, v.stdout + v.stderr
    assert "not re-instantiated at smaller sizes" in v.stdout and "tested: 8 input sets" in v.stdout
    assert "Traceback" not in v.stderr

def test_verify_trusts_a_resized_text_only_where_it_agrees_at_its_own_sizes():
    """A hand-written raise equivalent at its own size whose mask bound 14 is an i32 data
    constant: re-instantiated at n = 3 it differs from the original there. That is a
    failure of the textual resize, not of the file: verify tests and proves at the file's
    own size and says why (it answered NOT EQUIVALENT, exit 4, before)."""
    v = synth("verify", DATA / "verify" / "split_scale.mlir", DATA / "verify" / "split_scale.data_bound.stablehlo.mlir")
    assert v.returncode == 0, v.stdout + v.stderr
    assert "proven by Z3 (unsat) at sizes n16=16" in v.stdout
    assert "tested at its own sizes only: re-instantiated at n16=3 it differs from the original" in v.stdout


def test_verify_of_own_blocked_and_flipped_raises_is_never_a_false_refutation(tmp_path):
    """synth verify on synth raise's own outputs (PolyBench): lu at SMALL to linalg was a
    blocked loop (panels of 60) whose textual resize to n = 3 sliced out of bounds and
    crashed the MLIR worker (exit 1); durbin at MINI padded its flip to 3n and indexed from
    2n - 1 (120, 79: no sizes), which the resize left, so verify answered NOT EQUIVALENT
    (exit 4). Now the library ops are one algorithm at every size (their blocked forms a
    backend lowering, synth.backends.library_*), so LU and Cholesky are proven at bounded
    sizes in both dialects (stablehlo's LU was undecided: its unrolled panels did not
    re-instantiate); durbin's flip is a gather whose numbers are its size and size - 1, so
    its text is re-instantiated and proven."""
    proven = "proven by Z3 (unsat) at sizes arg0=2; arg0=3"
    for kernel, dataset, target, expect, says in (
            ("lu", "small", "linalg", 0, proven),
            ("cholesky", "small", "linalg", 0, proven),
            ("lu", "small", "stablehlo", 0, proven),
            ("durbin", "mini", "linalg", 0, proven)):
        src, out = tmp_path / f"{kernel}.mlir", tmp_path / f"{kernel}.{target}.mlir"
        assert synth("resize", POLYBENCH / f"{kernel}.mlir", "--dataset", dataset, "-o", src).returncode == 0
        r = synth("raise", src, "--target", target, "-q", "-o", out)
        assert r.returncode == 0, r.stderr
        v = synth("verify", src, out)
        assert v.returncode == expect and says in v.stdout, v.stdout + v.stderr
        assert "warning" not in v.stderr and "Traceback" not in v.stderr


def test_run_times_after_a_warm_up_and_runs_raised_modules(tmp_path):
    p = synth("run", POLYBENCH / "gemm.mlir", "--dataset", "mini")
    assert p.returncode == 0 and "(median of 3 after a warm-up), compile" in p.stdout
    out = tmp_path / "axpy.mlir"
    assert synth("raise", LOOPS / "blas_axpy.mlir", "--target", "stablehlo", "-q", "-o", out).returncode == 0
    r = synth("run", out)
    assert r.returncode == 0, r.stderr
    assert "@blas_axpy_raised (stablehlo, XLA CPU)" in r.stdout and "result #0 1000: sum=" in r.stdout


@pytest.mark.parametrize("value", ["0", "-5"])
def test_bench_refuses_a_non_positive_timeout(tmp_path, value):
    p = synth("bench", POLYBENCH / "gemm.mlir", "--timeout", value, "--out", tmp_path)
    assert p.returncode == 2 and "--timeout must be a positive number" in p.stderr


SAXPY_C = """
#include <math.h>
#ifndef N
#define N 1000
#endif
void saxpy(double a, double x[N], double y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = a * x[i] + y[i];
}
"""


def test_c_kernels_translate_raise_verify_and_run(tmp_path):
    """`synth translate` and C inputs to raise / verify / run, with -D like a compiler."""
    c = tmp_path / "saxpy.c"
    c.write_text(SAXPY_C)
    t = synth("translate", c, "-D", "N=64")
    assert t.returncode == 0, t.stderr
    assert "func.func @saxpy(%arg0: f64, %arg1: memref<64xf64>, %arg2: memref<64xf64>)" in t.stdout
    assert "affine.for" in t.stdout and "loc(" not in t.stdout
    out = tmp_path / "saxpy.raised.mlir"
    r = synth("raise", c, "--target", "stablehlo", "-D", "N=64", "-q", "-o", out)
    assert r.returncode == 0, r.stderr
    assert "tensor<64xf64>" in out.read_text()
    v = synth("verify", c, out, "-D", "N=64")
    assert v.returncode == 0 and "EQUIVALENT" in v.stdout, v.stdout + v.stderr
    assert synth("run", c, "--cflags=-DN=64 -O0").returncode == 0


def test_c_outside_static_control_is_refused_with_its_location(tmp_path):
    c = tmp_path / "w.c"
    c.write_text("void k(double a[10]) {\n  int i = 0;\n  while (a[i] > 0) { a[i] = 0; i++; }\n}\n")
    p = synth("raise", c, "--target", "linalg", "-o", tmp_path / "o.mlir")
    assert p.returncode == 2 and f"{c}:3:3:" in p.stderr and "while" in p.stderr


def test_synth_s_own_text_unreadable_is_an_internal_error_not_bad_input(tmp_path, monkeypatch, capsys):
    """Validation that cannot read synth's own raised text (an InputError located at
    `<raised @NAME>`, planted here in the pipeline's validation) is synth's fault: exit 1
    with the internal-error line, never exit 2 with a location in synth's own text
    (issue 56 item 5)."""
    import synth.pipeline
    from synth.errors import InputError

    def unreadable(source, kernel, *args, **kwargs):
        raise InputError("cannot parse the raised module: expected operation name in quotes",
                         f"<raised @{kernel.name}>:3:9")
    monkeypatch.setattr(synth.pipeline, "validate", unreadable)
    out = tmp_path / "gemm.mlir"
    rc = main(["raise", str(POLYBENCH / "gemm.mlir"), "--target", "linalg", "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 1 and not out.exists()
    assert "error: internal error: validating the raise of @kernel_gemm: <raised @kernel_gemm>:3:9:" in err
    assert not err.startswith("<raised")


def test_internal_error_is_one_line_with_exit_code_1(tmp_path, monkeypatch, capsys):
    """A bug (here: an exception planted in the pipeline) ends with exit code 1 and one
    line saying where, not a traceback; SYNTH_TRACEBACK=1 prints the traceback too."""
    import synth.pipeline

    def broken(*args, **kwargs):
        raise KeyError("no value for size symbol counter")
    monkeypatch.setattr(synth.pipeline, "raise_function", broken)
    monkeypatch.delenv("SYNTH_TRACEBACK", raising=False)
    out = tmp_path / "gemm.mlir"
    rc = main(["raise", str(POLYBENCH / "gemm.mlir"), "--target", "linalg", "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 1 and not out.exists()
    assert "error: internal error (a bug in synth) at test_cli.py:" in err
    assert "KeyError" in err and "Traceback" not in err
    monkeypatch.setenv("SYNTH_TRACEBACK", "1")
    assert main(["raise", str(POLYBENCH / "gemm.mlir"), "--target", "linalg", "-o", str(out)]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_an_accumulator_initial_zero_is_not_added(tmp_path):
    """atax: `tmp[i] = 0; tmp[i] += A[i][j] * x[j]` composes to `0 + A x`; the emitted
    program is the product alone (and still proven), in each dialect."""
    src = tmp_path / "atax.mlir"
    assert synth("resize", POLYBENCH / "atax.mlir", "--dataset", "mini", "-o", src).returncode == 0
    for target, add in (("linalg", "linalg.add"), ("stablehlo", "stablehlo.add")):
        out = tmp_path / f"atax.{target}.mlir"
        r = synth("raise", src, "--target", target, "-o", out)
        assert r.returncode == 0 and "proven equivalent with Z3 for every size" in r.stderr, r.stdout + r.stderr
        raised = out.read_text().split("func.func @kernel_atax(")[0]
        assert add not in raised
        assert raised.count("stablehlo.dot_general") == 2 or \
            raised.count("linalg.matvec") == raised.count("linalg.vecmat") == 1


def test_a_dot_reads_its_operand_whole_and_slices_its_result(tmp_path):
    """gramschmidt: `R[k][j] = Q[:, k] . A[:, j]` for j > k reads A less its first column
    (a slice); the stablehlo emitted dots A whole and slices the result, which XLA does
    without copying A each step (still proven)."""
    import re

    src, out = tmp_path / "gramschmidt.mlir", tmp_path / "gramschmidt.stablehlo.mlir"
    assert synth("resize", POLYBENCH / "gramschmidt.mlir", "--dataset", "mini", "-o", src).returncode == 0
    r = synth("raise", src, "--target", "stablehlo", "-o", out)
    assert r.returncode == 0 and "proven equivalent with Z3" in r.stderr, r.stdout + r.stderr
    raised = out.read_text().split("func.func @kernel_gramschmidt(")[0]
    sliced = set(re.findall(r"(%\w+) = stablehlo\.slice ", raised))
    dots = re.findall(r"stablehlo\.dot_general (%\w+), (%\w+),", raised)
    assert len(dots) >= 2 and not sliced & {v for pair in dots for v in pair}
