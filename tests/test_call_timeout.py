"""`synth bench --call-timeout` (issue 55): a backend's compile or call longer than the limit
is stopped and its row says `timeout`, with the reason and no time. The slow cases are
real ones, made slow by their size."""

import json

import numpy as np
import pytest
from conftest import DATA

from synth.cli import main
from synth.errors import CallTimeout


def _matmul(n: int) -> str:
    """A linalg matmul of n x n matrices (n = 3000: 54 GFLOP, seconds on any backend here)."""
    t = f"tensor<{n}x{n}xf64>"
    return (f"func.func @f(%a: {t}, %b: {t}) -> {t} attributes {{synth.outputs = [0]}} {{\n"
            f"  %z = arith.constant 0.0 : f64\n  %e = tensor.empty() : {t}\n"
            f"  %c = linalg.fill ins(%z : f64) outs(%e : {t}) -> {t}\n"
            f"  %r = linalg.matmul ins(%a, %b : {t}, {t}) outs(%c : {t}) -> {t}\n  return %r : {t}\n}}\n")


@pytest.mark.slow  # the raise validates at 6000 x 1500: 10-20 s; the IREE call is stopped after 10 s
def test_a_slow_iree_call_is_stopped_and_its_row_says_timeout(tmp_path):
    """deriche's forward sweep (tests/data/recurrence/row_filter.mlir) at 6000 x 1500: its
    static linalg raise takes ~80 s a call on IREE (IREE copies the 6000 x 1500 tensor the
    column loop carries in each of its 1500 iterations), 0.05 s on the loops. With a 5 s
    limit the IREE call is stopped (its worker killed), its row is `timeout` with the
    reason and no time, report.md shows it, and mlir-cpu's row is timed."""
    from synth.backends.iree import IreeBackend

    if not IreeBackend("linalg").available():
        pytest.skip("IREE not installed")
    kernel = tmp_path / "row_filter.mlir"
    kernel.write_text((DATA / "recurrence" / "row_filter.mlir").read_text().replace("64x48", "6000x1500"))
    out = tmp_path / "out"
    rc = main(["bench", str(kernel), "--out", str(out), "--targets", "linalg", "--warmup", "0",
               "--repeats", "1", "--backends", "iree-llvm-cpu,mlir-cpu", "--call-timeout", "5"])
    assert rc == 0
    rows = {r["backend"]: r for r in json.loads((out / "results.json").read_text())}
    iree = rows["iree-llvm-cpu"]
    assert iree["status"] == "timeout", iree
    assert "--call-timeout" in iree["reason"] and ("killed" in iree["reason"] or "stopped" in iree["reason"])
    assert "seconds" not in iree and "speedup" not in iree
    assert rows["mlir-cpu"]["status"] == "ok" and rows["mlir-cpu"]["seconds"] > 0
    report = (out / "report.md").read_text()
    assert "call limit 5 s" in report
    [line] = [ln for ln in report.split("## Not raised or not timed")[1].splitlines() if "iree-llvm-cpu" in ln]
    assert "| timeout |" in line and "--call-timeout" in line


def test_a_slow_iree_call_stops_its_worker():
    """A 3000 x 3000 matmul on IREE (54 GFLOP: seconds), compiled without a limit, then
    called with a limit of 0.1 s: the worker is killed once the request has run 0.2 s (the
    call and the transfers: timing.worker_deadline), and says so (the call takes 1.3 s on a
    quiet 2-core host, so a 1 s limit let it finish)."""
    from synth.backends.iree import IreeBackend

    backend = IreeBackend("linalg")
    if not backend.available():
        pytest.skip("IREE not installed")
    prepared = backend.prepare(_matmul(3000), "f")
    prepared.call_timeout = 0.1
    a = np.random.default_rng(0).uniform(-1, 1, (3000, 3000))
    with pytest.raises(CallTimeout, match=r"IREE call of @f still ran after 0.2 s \(--call-timeout\); worker killed"):
        prepared.run([a, a])
    assert prepared.worker.proc.poll() is not None  # the worker is gone


def test_a_slow_mlir_cpu_call_stops_the_worker():
    """A 3000 x 3000 matmul on mlir-cpu with a limit of 0.1 s: the worker request (its
    compile and the call, 0.2 s in all: timing.worker_deadline) is stopped; the next call
    restarts the worker. (At 1 s a quiet 2-core host compiled and ran the 27 GFLOP product
    within the 2 s: the limit must stay far below compile plus call on any host.)"""
    from synth.backends.mlir_cpu import MlirCpuBackend
    from synth.execution import run_function

    backend = MlirCpuBackend()
    backend.call_timeout = 0.1
    prepared = backend.prepare(_matmul(3000), "f")
    a = np.random.default_rng(0).uniform(-1, 1, (3000, 3000))
    with pytest.raises(CallTimeout, match=r"took longer than 0.2 s; the MLIR worker was stopped \(--call-timeout 0.1 s a call"):
        prepared.run([a, a])
    text = "func.func @g(%x: memref<2xf64>) {\n  return\n}\n"
    assert run_function(text, "g", [np.zeros(2)]).outputs[0].tolist() == [0.0, 0.0]


def test_a_slow_xla_call_is_reported_after_it_returns():
    """XLA runs in the bench's own process: a call longer than the limit cannot be stopped,
    but raises CallTimeout once it returns (and so is not made again)."""
    from synth.backends.xla import XlaBackend

    n = 1000
    t = f"tensor<{n}x{n}xf64>"
    text = (f"func.func @f_raised(%a: {t}, %b: {t}) -> {t} attributes {{synth.outputs = [0]}} {{\n"
            f"  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : ({t}, {t}) -> {t}\n"
            f"  return %r : {t}\n}}\n")
    prepared = XlaBackend("cpu").prepare(text, "f")
    a = np.random.default_rng(0).uniform(-1, 1, (n, n))
    prepared.call_timeout = 1e-4  # a 2 GFLOP product: milliseconds at least
    with pytest.raises(CallTimeout, match="over the limit of 0.0001 s"):
        prepared.run([a, a])
    with pytest.raises(CallTimeout):
        prepared.time([a, a], warmup=0, repeats=3)
