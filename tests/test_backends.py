"""Execution backends of `synth bench`: every available backend agrees with the baseline.

gemm and atax are resized to MINI and raised to both targets once per module; every
backend available for a target runs the raised function on the baseline's inputs.
GPU backends must be absent (not failing) on a machine without a GPU.
"""

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import POLYBENCH

from synth.backends.baseline import AffineBaseline
from synth.execution import run_stages
from synth.backends.mlir_cpu import MlirCpuBackend, bufferizing_pipeline, cache_tile
from synth.backends.registry import (BACKEND_ERRORS, BACKEND_NAMES, all_backends, backends_for,
                                     baseline_backend, raised_function)
from synth.backends.timing import measure, measure_batched
from synth.cli import main
from synth.analysis.model import load_kernel
from synth.frontend.reader import load_source
from synth.synthesis.spec import random_draw

KERNELS = ("gemm", "atax")
TARGETS = ("stablehlo", "linalg")
CPU_BACKENDS = {"stablehlo": {"xla-cpu", "iree-llvm-cpu", "mlir-cpu"}, "linalg": {"iree-llvm-cpu", "mlir-cpu"}}
RTOL = 1e-9


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        path = tmp_path_factory.mktemp("cache")
        mp.setenv("SYNTH_CACHE_DIR", str(path))
        yield path


@pytest.fixture(scope="module")
def kernels(tmp_path_factory, cache_dir):
    """{kernel: dict(name, source, args, expected, raised={target: text})} at MINI size."""
    out = {}
    tmp = tmp_path_factory.mktemp("raised")
    for k in KERNELS:
        mini = tmp / f"{k}.mini.mlir"
        assert main(["resize", str(POLYBENCH / f"{k}.mlir"), "--dataset", "mini", "-o", str(mini)]) == 0
        raised = {}
        for t in TARGETS:
            path = tmp / f"{k}.{t}.mlir"
            assert main(["raise", str(mini), "--target", t, "--shapes", "static", "-o", str(path)]) == 0
            raised[t] = path.read_text()
        source = load_source(mini)
        name = f"kernel_{k}"
        kernel = load_kernel(source, name)
        args = kernel.arguments(kernel.sizes.original(), random_draw(np.random.default_rng(7)))
        baseline = AffineBaseline().prepare(source.text, name, kernel.written)
        out[k] = dict(name=name, source=source.text, args=args, outputs=kernel.written,
                      baseline=baseline, expected=baseline.run(args), raised=raised)
    return out


def assert_close(got, expected, label):
    assert len(got) == len(expected), label
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype, label
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=RTOL * max(1.0, float(np.max(np.abs(e)))),
                                   err_msg=label)


def check_timing(t, repeats):
    assert t.repeats == repeats == len(t.samples)
    assert t.seconds > 0 and all(s > 0 for s in t.samples)
    assert min(t.samples) <= t.seconds <= max(t.samples)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("target", TARGETS)
def test_backends_agree_with_baseline(kernels, cache_dir, kernel, target):
    k = kernels[kernel]
    backends = backends_for(target, iree_cache_dir=str(cache_dir / "iree"))
    assert CPU_BACKENDS[target] <= {b.name for b in backends}
    for backend in backends:
        label = f"{backend.name} on {kernel} ({target})"
        prepared = backend.prepare(k["raised"][target], k["name"])
        assert_close(prepared.run(k["args"]), k["expected"], label)
        check_timing(prepared.time(k["args"], warmup=1, repeats=3), 3)
        assert prepared.compile_seconds is not None and prepared.compile_seconds >= 0
        if backend.name == "mlir-cpu":
            assert prepared.pipeline_name == "tiled", prepared.fallback_reason


@pytest.mark.parametrize("target", TARGETS)
def test_backends_run_a_generic_raise(kernels, cache_dir, tmp_path, target):
    """A shape-generic raise (atax at MINI) on every CPU backend: compiled per input
    shapes (XLA, mlir-cpu: registry.PerShape) or as it is (IREE, stablehlo through
    synth.backends.iree_dynamic), equal to the baseline at MINI and at other sizes."""
    from synth.execution import run_function

    k = kernels["atax"]
    mini = tmp_path / "atax.mini.mlir"
    mini.write_text(k["source"])
    path = tmp_path / f"atax.{target}.generic.mlir"
    assert main(["raise", str(mini), "--target", target, "--shapes", "generic", "-o", str(path)]) == 0
    text = path.read_text()
    assert "tensor<?x?xf64>" in text
    rng = np.random.default_rng(3)
    for m, n in ((38, 42), (5, 9)):
        args = [("i32", m), ("i32", n), rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, n), np.zeros(n), np.zeros(m)]
        source = k["source"].replace("38x42", "?x?").replace("memref<42xf64>", "memref<?xf64>") \
            .replace("memref<38xf64>", "memref<?xf64>")
        want = run_function(source, "kernel_atax", [a.copy() if isinstance(a, np.ndarray) else a for a in args]).outputs
        for backend in backends_for(target, iree_cache_dir=str(cache_dir / "iree")):
            if backend.name not in CPU_BACKENDS[target]:
                continue
            prepared = backend.prepare(text, "kernel_atax")
            assert_close(prepared.run(args), [want[4], want[5]], f"{backend.name} generic at {m}x{n}")
            if backend.name == "iree-llvm-cpu" and target == "stablehlo":
                assert prepared.pipeline_name.startswith("dynamic")


@pytest.mark.parametrize("kernel", KERNELS)
def test_baseline(kernels, kernel):
    k = kernels[kernel]
    assert [b.name for b in backends_for(None)] == [baseline_backend().name] == ["affine-mlir-O3"]
    check_timing(k["baseline"].time(k["args"], warmup=2, repeats=4), 4)
    # outputs default to the kernel analysis; inputs are never modified
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in k["args"]]
    assert_close(AffineBaseline().prepare(k["source"], k["name"]).run(k["args"]), k["expected"], kernel)
    for a, b in zip(k["args"], before):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


def test_registry_names_and_gpu_absence():
    backends = all_backends()
    assert {b.name for b in backends} == set(BACKEND_NAMES)
    import jax

    try:
        has_gpu = bool(jax.devices("gpu"))
    except RuntimeError:
        has_gpu = False
    for b in backends:
        if b.name in ("xla-gpu", "iree-cuda") and not has_gpu:
            assert not b.available()
            assert b not in backends_for(b.target)
    with pytest.raises(ValueError, match="unknown target"):
        backends_for("tosa")


def test_raised_function_cut_from_module(kernels):
    fn = raised_function(kernels["atax"]["raised"]["stablehlo"], "kernel_atax")
    assert fn.name == "kernel_atax_raised" and fn.outputs == (4, 5)
    assert [a.shape for a in fn.arguments] == [(), (), (38, 42), (42,), (42,), (38,)]
    assert [r.mlir() for r in fn.results] == ["tensor<42xf64>", "tensor<38xf64>"]
    module = fn.module("main")
    assert "bufferization" not in module and "@main(" in module and "@kernel_atax(" not in module
    # the raised name works too; top-level aliases (#map, used by linalg.generic) are kept
    text = "#map = affine_map<(d0) -> (d0)>\n" + fn.text
    again = raised_function(text, "kernel_atax_raised")
    assert again.name == fn.name and again.module().startswith("#map = ")
    with pytest.raises(ValueError, match="shape"):
        fn.tensor_inputs([("i32", 1), ("i32", 2), np.zeros((42, 38)), np.zeros(42), np.zeros(42), np.zeros(38)])


def test_backend_failures_are_backend_errors(kernels):
    """What synth bench records as a backend-error row (anything else is a bug, raised):
    a missing function, and a pipeline that MLIR refuses."""
    with pytest.raises(BACKEND_ERRORS, match="no function @nope"):
        raised_function(kernels["atax"]["raised"]["stablehlo"], "nope")
    broken = MlirCpuBackend(pipeline="builtin.module(no-such-pass)")
    prepared = broken.prepare(kernels["atax"]["raised"]["linalg"], "kernel_atax")
    with pytest.raises(BACKEND_ERRORS):
        prepared.run([("i32", 38), ("i32", 42), np.zeros((38, 42)), np.zeros(42), np.zeros(42), np.zeros(38)])


MATMULS = """#ki = affine_map<(i, j, k) -> (k, i)>
#kj = affine_map<(i, j, k) -> (k, j)>
#ij = affine_map<(i, j, k) -> (i, j)>
#rqs = affine_map<(r, q, p, s) -> (r, q, s)>
#sp = affine_map<(r, q, p, s) -> (s, p)>
#rqp = affine_map<(r, q, p, s) -> (r, q, p)>
func.func @f(%a: tensor<13x5xf64>, %b: tensor<5x21xf64>, %w: tensor<13xf64>,
    %ba: tensor<2x4x5xf64>, %bb: tensor<2x5x6xf64>, %c: tensor<21x19xf64>, %v: tensor<19xf64>,
    %d3: tensor<3x11x7xf64>, %c4: tensor<7x18xf64>)
    -> (tensor<13x21xf64>, tensor<5xf64>, tensor<2x4x6xf64>, tensor<21xf64>, tensor<19x19xf64>, tensor<3x11x18xf64>)
    attributes {synth.outputs = [0, 1, 2, 3, 4, 5]} {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<13x21xf64>
  %ef = linalg.fill ins(%z : f64) outs(%e : tensor<13x21xf64>) -> tensor<13x21xf64>
  %m = linalg.matmul ins(%a, %b : tensor<13x5xf64>, tensor<5x21xf64>) outs(%ef : tensor<13x21xf64>) -> tensor<13x21xf64>
  %e3 = tensor.empty() : tensor<5xf64>
  %e3f = linalg.fill ins(%z : f64) outs(%e3 : tensor<5xf64>) -> tensor<5xf64>
  %vm = linalg.vecmat ins(%w, %a : tensor<13xf64>, tensor<13x5xf64>) outs(%e3f : tensor<5xf64>) -> tensor<5xf64>
  %e5 = tensor.empty() : tensor<2x4x6xf64>
  %e5f = linalg.fill ins(%z : f64) outs(%e5 : tensor<2x4x6xf64>) -> tensor<2x4x6xf64>
  %bm = linalg.batch_matmul ins(%ba, %bb : tensor<2x4x5xf64>, tensor<2x5x6xf64>) outs(%e5f : tensor<2x4x6xf64>) -> tensor<2x4x6xf64>
  %e7 = tensor.empty() : tensor<21xf64>
  %e7f = linalg.fill ins(%z : f64) outs(%e7 : tensor<21xf64>) -> tensor<21xf64>
  %mv = linalg.matvec ins(%c, %v : tensor<21x19xf64>, tensor<19xf64>) outs(%e7f : tensor<21xf64>) -> tensor<21xf64>
  %e8 = tensor.empty() : tensor<19x19xf64>
  %e8f = linalg.fill ins(%z : f64) outs(%e8 : tensor<19x19xf64>) -> tensor<19x19xf64>
  %ctc = linalg.generic {indexing_maps = [#ki, #kj, #ij], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c, %c : tensor<21x19xf64>, tensor<21x19xf64>) outs(%e8f : tensor<19x19xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.addf %acc, %p : f64
    linalg.yield %q : f64
  } -> tensor<19x19xf64>
  %e9 = tensor.empty() : tensor<3x11x18xf64>
  %e9f = linalg.fill ins(%z : f64) outs(%e9 : tensor<3x11x18xf64>) -> tensor<3x11x18xf64>
  %dc = linalg.generic {indexing_maps = [#rqs, #sp, #rqp], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%d3, %c4 : tensor<3x11x7xf64>, tensor<7x18xf64>) outs(%e9f : tensor<3x11x18xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %q = arith.addf %acc, %p : f64
    linalg.yield %q : f64
  } -> tensor<3x11x18xf64>
  return %m, %vm, %bm, %mv, %ctc, %dc : tensor<13x21xf64>, tensor<5xf64>, tensor<2x4x6xf64>, tensor<21xf64>, tensor<19x19xf64>, tensor<3x11x18xf64>
}
"""


def test_mlir_cpu_schedule_on_partial_tiles(cache_dir):
    """13x21 is not a multiple of the 8x16 matmul tile, nor 21x19 of the matvec's 8-row
    tiles and 8-wide partial sums, nor 13x5 of the vecmat's 8 x 8 tiles, nor 19x19 and
    11x18 of the tiles of contractions
    written as linalg.generic (C^T C; a 3-d by 2-d product): peeled remainders must be
    right."""
    rng = np.random.default_rng(3)
    a, b, w = rng.uniform(-1, 1, (13, 5)), rng.uniform(-1, 1, (5, 21)), rng.uniform(-1, 1, 13)
    ba, bb = rng.uniform(-1, 1, (2, 4, 5)), rng.uniform(-1, 1, (2, 5, 6))
    c, v = rng.uniform(-1, 1, (21, 19)), rng.uniform(-1, 1, 19)
    d3, c4 = rng.uniform(-1, 1, (3, 11, 7)), rng.uniform(-1, 1, (7, 18))
    prepared = MlirCpuBackend().prepare(MATMULS, "f")
    assert_close(prepared.run([a, b, w, ba, bb, c, v, d3, c4]),
                 [a @ b, w @ a, ba @ bb, c @ v, c.T @ c, d3 @ c4], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def test_mlir_cpu_matmul_across_cache_tiles(cache_dir):
    """A matmul a few rows, columns and steps past one cache tile of this host (so full
    and partial cache tiles, and partial register tiles inside them, all run) equals
    NumPy's."""
    ci, cj, ck = cache_tile()
    m, n, k = ci + 9, cj + 5, ck + 3
    text = (f"func.func @f(%a: tensor<{m}x{k}xf64>, %b: tensor<{k}x{n}xf64>) -> tensor<{m}x{n}xf64>"
            f" attributes {{synth.outputs = [0]}} {{\n"
            f"  %z = arith.constant 0.0 : f64\n  %e = tensor.empty() : tensor<{m}x{n}xf64>\n"
            f"  %c = linalg.fill ins(%z : f64) outs(%e : tensor<{m}x{n}xf64>) -> tensor<{m}x{n}xf64>\n"
            f"  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf64>, tensor<{k}x{n}xf64>) "
            f"outs(%c : tensor<{m}x{n}xf64>) -> tensor<{m}x{n}xf64>\n  return %r : tensor<{m}x{n}xf64>\n}}\n")
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n))
    prepared = MlirCpuBackend().prepare(text, "f")
    assert_close(prepared.run([a, b]), [a @ b], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


_FRESH_EACH_STEP = """#id = affine_map<(d0) -> (d0)>
func.func @k(%x: tensor<8xf64>, %z: tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>) attributes {synth.outputs = [0, 1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r:2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %x, %b = %z) -> (tensor<8xf64>, tensor<8xf64>) {
    %e = tensor.empty() : tensor<8xf64>
    %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %b : tensor<8xf64>, tensor<8xf64>) outs(%e : tensor<8xf64>) {
    ^bb0(%p: f64, %q: f64, %o: f64):
      %s = arith.addf %p, %q : f64
      linalg.yield %s : f64
    } -> tensor<8xf64>
    scf.yield %n, %a : tensor<8xf64>, tensor<8xf64>
  }
  return %r#0, %r#1 : tensor<8xf64>, tensor<8xf64>
}
"""


def test_mlir_cpu_loop_yielding_fresh_buffers_runs(cache_dir):
    """A loop that yields a new buffer each step and the previous one (a, b = a + b, a):
    the deallocation tracks ownership in memref<?xi1> flags, on which MLIR's conversion
    to LLVM aborts; they become bytes (synth.backends.byte_bools) and the loop runs."""
    from mlir import ir

    from synth.execution import BOOLS_AS_BYTES
    from synth.backends.mlir_cpu import tiled_pipeline

    with ir.Context():
        module = ir.Module.parse(_FRESH_EACH_STEP)
        run_stages(module, tiled_pipeline().before(BOOLS_AS_BYTES))
        assert "xi1>" in str(module)  # the flags the rewrite is for are there
    x, z = np.arange(8.0), np.ones(8)
    prepared = MlirCpuBackend().prepare(_FRESH_EACH_STEP, "k")
    a, b = x.copy(), z.copy()
    for _ in range(5):
        a, b = a + b, a
    assert_close(prepared.run([x, z]), [a, b], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def test_measure_counts():
    calls = []
    t = measure(lambda: calls.append(1), warmup=2, repeats=3)
    assert len(calls) == 5 and t.repeats == 3 and t.warmup == 2
    t = measure(lambda: None, warmup=0, repeats=2, min_total=1e-3)
    assert t.repeats >= 2 and sum(t.samples) >= 1e-3
    batches = []

    def run_batch(n):
        batches.append(n)
        return [0.25] * n

    t = measure_batched(run_batch, warmup=1, repeats=2, min_total=1.25)
    assert batches == [3, 3] and t.repeats == 5 and t.seconds == 0.25
    with pytest.raises(ValueError):
        measure(lambda: None, repeats=0)


def test_measure_tells_each_calls_cpu_time():
    """Beside each call's wall time, the CPU time it used: a call that sleeps uses almost
    none, one that computes uses about its wall time; a batch that gives no CPU times gives
    a timing without them (None), one that gives them keeps them past the warm-up."""
    import time as clock

    def spin():  # 20 ms of this process's CPU, however long a loaded host takes to give them
        end = clock.process_time() + 0.02
        while clock.process_time() < end:
            pass

    slept = measure(lambda: clock.sleep(0.02), warmup=0, repeats=3)
    spun = measure(spin, warmup=0, repeats=3)
    assert len(slept.cpu_samples) == 3 and slept.cpu_seconds < 0.01
    assert spun.cpu_seconds >= 0.02 and spun.cpu_seconds <= spun.seconds * 1.5
    assert measure_batched(lambda n: [0.5] * n, warmup=1, repeats=2).cpu_seconds is None
    t = measure_batched(lambda n: ([0.5] * n, [0.1] * (n - 1) + [0.3]), warmup=1, repeats=2)
    assert t.cpu_samples == [0.1, 0.3] and t.cpu_seconds == pytest.approx(0.2)


def test_measure_gives_each_call_fresh_inputs_untimed(monkeypatch):
    """Every backend's timed call gets inputs prepared just before it, outside the clock:
    on a clock that only setup and the call move (1000 and 1 units), each sample is 1."""
    import synth.backends.timing as timing

    clock = [0.0]
    monkeypatch.setattr(timing.time, "perf_counter", lambda: clock[0])
    made, seen = [], []

    def setup():
        clock[0] += 1000.0  # a slow copy must not count
        made.append(object())
        return made[-1]

    def call(args):
        clock[0] += 1.0
        seen.append(args)

    t = measure(call, warmup=1, repeats=3, setup=setup)
    assert seen == made and len(made) == 4 and len(set(map(id, seen))) == 4
    assert t.samples == [1.0, 1.0, 1.0]


def test_xla_and_iree_time_with_fresh_device_inputs(monkeypatch):
    """XLA's and IREE's `time` put new copies of the inputs on the device before each
    call (as the MLIR worker and the C baseline must), not one set reused by every call."""
    from synth.backends.iree import IreeBackend
    from synth.backends.xla import XlaBackend

    text = """
func.func @k_raised(%a: tensor<8xf64>) -> tensor<8xf64> attributes {synth.outputs = [0]} {
  %0 = stablehlo.add %a, %a : tensor<8xf64>
  return %0 : tensor<8xf64>
}
"""
    x = np.arange(8.0)
    prepared = XlaBackend().prepare(text, "k")
    puts = []
    real = prepared._device_inputs

    def counting(inputs, real=real):
        puts.append([a for a in inputs if isinstance(a, np.ndarray)])
        return real(inputs)

    monkeypatch.setattr(prepared, "_device_inputs", counting)
    t = prepared.time([x], warmup=1, repeats=3)
    assert t.repeats == 3 and len(puts) == 4
    assert all(a[0] is not x and np.array_equal(a[0], x) for a in puts)

    # IREE calls run in its worker process (synth.backends.iree_worker): its loaded module
    # is checked here in this process
    from synth.backends.iree_worker import _Loaded

    prepared = IreeBackend("stablehlo").prepare(text, "k")
    assert prepared.time([x], warmup=1, repeats=3).repeats == 3
    loaded = _Loaded(str(prepared.vmfb), prepared.raised.name, "local-sync", None)
    made = []
    real_inputs = loaded.device_inputs

    def counting_arrays(arrays):
        made.append(arrays)
        return real_inputs(arrays)

    loaded.device_inputs = counting_arrays
    t = loaded.time([x], 1, 3, 0.0)
    assert t.repeats == 3 and len(made) == 4
    prepared.close()


def _outer_product(n: int) -> str:
    return f"""
func.func @k_raised(%v: tensor<{n}xf64>) -> tensor<{n}x{n}xf64> attributes {{synth.outputs = [0]}} {{
  %e = tensor.empty() : tensor<{n}x{n}xf64>
  %0 = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>,
      affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}}
      ins(%v, %v : tensor<{n}xf64>, tensor<{n}xf64>) outs(%e : tensor<{n}x{n}xf64>) {{
  ^bb0(%a: f64, %b: f64, %o: f64):
    %p = arith.mulf %a, %b : f64
    linalg.yield %p : f64
  }} -> tensor<{n}x{n}xf64>
  return %0 : tensor<{n}x{n}xf64>
}}
"""


def test_iree_call_above_its_memory_ceiling_is_an_error_not_a_crash():
    """A real IREE call that needs more memory than its ceiling (an 8000x8000 f64 result,
    512 MB, under a 256 MB ceiling) is killed in its worker, made again on local-sync, killed
    there too, and raises ExecutionError naming memory; this process and a call under the
    ceiling are unaffected."""
    from synth.backends.iree import IreeBackend
    from synth.errors import ExecutionError

    if not IreeBackend("linalg").available():
        pytest.skip("IREE not installed")
    backend = IreeBackend("linalg", memory_limit=256 * 2**20)
    small = backend.prepare(_outer_product(300), "k")
    v = np.arange(300.0)
    assert np.array_equal(small.run([v])[0], np.outer(v, v))
    big = backend.prepare(_outer_product(8000), "k")
    with pytest.raises(ExecutionError, match="memory ceiling"):
        big.run([np.ones(8000)])
    # killed on local-task, the call was made again on local-sync (IreePrepared: IREE keeps
    # memory per host-loop iteration on local-task), where it needs as much and is killed too
    assert big.driver == "local-sync" and big.pipeline_name.startswith("local-sync")
    with pytest.raises(ExecutionError, match="worker is gone"):
        big.run([np.ones(8000)])
    assert np.array_equal(small.run([v])[0], np.outer(v, v))  # the other worker lives on
    assert big.worker.peak > 256 * 2**20 > small.worker.peak
    small.close()


CHOLESKY_RAISED = """
func.func @kernel_chol_raised(%a: tensor<6x6xf64>) -> tensor<6x6xf64> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<6x6xf64>
  return %0 : tensor<6x6xf64>
}
"""


def test_gpu_bench_script_on_cpu(tmp_path):
    """scripts/gpu_bench.py with --platform cpu (the GPU numbers of the README come from it
    on an H100): a Cholesky factorisation of a uniform random matrix is NaN on XLA CPU, so
    the script draws it again diagonally dominant, agrees with itself, and says so."""
    import importlib.util
    import json as _json

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("gpu_bench", ROOT / "scripts" / "gpu_bench.py")
    gpu_bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu_bench)
    src = tmp_path / "chol.stablehlo.mlir"
    src.write_text(CHOLESKY_RAISED)
    out = tmp_path / "out.json"
    assert gpu_bench.main([str(src), "--platform", "cpu", "--warmup", "0", "--repeats", "2",
                           "-o", str(out)]) == 0
    (rec,) = _json.loads(out.read_text())["results"]
    assert rec["function"] == "kernel_chol" and rec["finite"] and rec["agrees_with_cpu"]
    assert rec["inputs"].startswith("uniform, n added to the diagonal")
    assert len(rec["samples"]) == 2 and rec["seconds"] > 0


SQRT_SCALAR_RAISED = """
func.func @kernel_norm_raised(%n: tensor<f64>, %a: tensor<4xf64>) -> tensor<4xf64> {
  %s = stablehlo.sqrt %n : tensor<f64>
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f64>) -> tensor<4xf64>
  %0 = stablehlo.divide %a, %b : tensor<4xf64>
  return %0 : tensor<4xf64>
}
"""


def test_gpu_bench_script_draws_positive_scalars_when_needed(tmp_path):
    """A float scalar under a square root (correlation's float_n) is NaN for a negative draw:
    the script then draws float scalars in [1, 2), and the table script reads the result."""
    import importlib.util
    import json as _json

    from conftest import ROOT

    def load(name):
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    gpu_bench, gpu_table = load("gpu_bench"), load("gpu_table")
    src = tmp_path / "norm.stablehlo.mlir"
    src.write_text(SQRT_SCALAR_RAISED)
    out = tmp_path / "out.json"
    for seed in range(8):  # a seed whose first scalar draw is negative
        if np.random.default_rng(seed).uniform(-1.0, 1.0) < 0:
            break
    assert gpu_bench.main([str(src), "--platform", "cpu", "--warmup", "0", "--repeats", "1",
                           "--seed", str(seed), "-o", str(out)]) == 0
    (rec,) = _json.loads(out.read_text())["results"]
    assert rec["finite"] and rec["agrees_with_cpu"] and rec["inputs"].endswith("float scalars in [1, 2)")
    cpu = tmp_path / "cpu.json"
    cpu.write_text(_json.dumps([{"kernel": "norm", "target": "stablehlo", "backend": "xla-cpu",
                                 "status": "ok", "seconds": 2 * rec["seconds"],
                                 "baseline_seconds": 4 * rec["seconds"]}]))
    table = tmp_path / "table.md"
    import contextlib

    with open(table, "w") as f, contextlib.redirect_stdout(f):
        assert gpu_table.main(["--xla", str(out), "--cpu", str(cpu)]) == 0
    text = table.read_text()
    assert "| norm |" in text and "| 4x | 2x |" in text and "geomean over 1 kernels" in text
    assert "IREE CUDA" not in text  # no --iree: no IREE column


def _script(name):
    import importlib.util
    import sys as _sys

    from conftest import ROOT

    _sys.path.insert(0, str(ROOT / "scripts"))  # iree_cuda_bench imports gpu_bench beside it
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpu_bench_script_scales_an_ill_conditioned_draw(tmp_path):
    """durbin raised to stablehlo at LARGE (n = 2000, synth bench's output): Levinson's
    recursion on uniform r amplifies a 1e-12 relative move of r beyond 1000x, so the digits
    compared are rounding's; the script draws r divided by n instead (as synth bench does),
    on which it is well-conditioned, and says so. The iree_cuda_bench draws agree."""
    import json as _json

    from conftest import ROOT

    gpu_bench, iree_cuda_bench = _script("gpu_bench"), _script("iree_cuda_bench")
    out = tmp_path / "out.json"
    src = ROOT / "tests" / "data" / "gpu" / "durbin.stablehlo.mlir"
    assert gpu_bench.main([str(src), "--platform", "cpu", "--warmup", "0", "--repeats", "1",
                           "-o", str(out)]) == 0
    (rec,) = _json.loads(out.read_text())["results"]
    assert rec["agrees_with_cpu"] and rec["inputs"] == \
        "uniform, floats divided by the largest extent (ill-conditioned otherwise)"
    ((_, args, module),) = gpu_bench.raised_functions(src.read_text())
    cpu = gpu_bench.Platform("cpu")
    exe = cpu.compile(module)

    def run(xs):
        return [np.asarray(r) for r in exe.execute(cpu.put(xs))]

    uniform = gpu_bench.random_inputs(args, np.random.default_rng(0))
    assert gpu_bench.amplification(run, uniform, run(uniform), 0) > gpu_bench.ILL_CONDITIONED
    signature = [[list(s), e] for s, e in args]
    plain, scaled = (iree_cuda_bench.inputs_for(signature, 0, m) for m in (0, 3))
    assert np.allclose(scaled[1], plain[1] / 2000) and scaled[0] == plain[0]



STENCIL_LOOP = """
func.func @f(%a: tensor<10xf64>, %b: tensor<10xf64>) -> (tensor<10xf64>, tensor<10xf64>)
    attributes {synth.outputs = [0, 1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%x = %a, %y = %b) -> (tensor<10xf64>, tensor<10xf64>) {
    %q = arith.constant 0.25 : f64
    %e = tensor.empty() : tensor<8xf64>
    %w = linalg.fill ins(%q : f64) outs(%e : tensor<8xf64>) -> tensor<8xf64>
    %l = tensor.extract_slice %x[0] [8] [1] : tensor<10xf64> to tensor<8xf64>
    %m = tensor.extract_slice %x[1] [8] [1] : tensor<10xf64> to tensor<8xf64>
    %r0 = tensor.extract_slice %x[2] [8] [1] : tensor<10xf64> to tensor<8xf64>
    %e1 = tensor.empty() : tensor<8xf64>
    %s1 = linalg.add ins(%l, %m : tensor<8xf64>, tensor<8xf64>) outs(%e1 : tensor<8xf64>) -> tensor<8xf64>
    %e2 = tensor.empty() : tensor<8xf64>
    %s2 = linalg.sub ins(%s1, %r0 : tensor<8xf64>, tensor<8xf64>) outs(%e2 : tensor<8xf64>) -> tensor<8xf64>
    %e3 = tensor.empty() : tensor<8xf64>
    %s3 = linalg.mul ins(%w, %s2 : tensor<8xf64>, tensor<8xf64>) outs(%e3 : tensor<8xf64>) -> tensor<8xf64>
    %y2 = tensor.insert_slice %s3 into %y[1] [8] [1] : tensor<8xf64> into tensor<10xf64>
    %yl = tensor.extract_slice %SOURCE[0] [8] [1] : tensor<10xf64> to tensor<8xf64>
    %yr = tensor.extract_slice %SOURCE[2] [8] [1] : tensor<10xf64> to tensor<8xf64>
    %e4 = tensor.empty() : tensor<8xf64>
    %s4 = linalg.add ins(%yl, %yr : tensor<8xf64>, tensor<8xf64>) outs(%e4 : tensor<8xf64>) -> tensor<8xf64>
    %x2 = tensor.insert_slice %s4 into %x[1] [8] [1] : tensor<8xf64> into tensor<10xf64>
    scf.yield %x2, %y2 : tensor<10xf64>, tensor<10xf64>
  }
  return %r#0, %r#1 : tensor<10xf64>, tensor<10xf64>
}
"""


@pytest.mark.parametrize("source", ["y2", "x"])
def test_mlir_cpu_time_loop_body_fused(source):
    """A time loop's elementwise chains are fused, one vectorized tile per written slice
    (8 elements: one vector store each, wavefront._mark_vectors), and written into their
    arrays in place: when they read the other array (a jacobi sweep, source y2) and when
    they read the array they write (source x: x[1:9] from x[0:10], which the tile reads
    whole into registers before it stores); no temporary, no copy in the loop."""
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, 10), rng.uniform(-1, 1, 10)
    x, y = a.copy(), b.copy()
    for _ in range(3):
        y[1:9] = 0.25 * (x[:8] + x[1:9] - x[2:])
        src = y if source == "y2" else x
        x[1:9] = src[:8] + src[2:]
    text = STENCIL_LOOP.replace("%SOURCE", f"%{source}")
    prepared = MlirCpuBackend().prepare(text, "f")
    assert_close(prepared.run([a, b]), [x, y], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(text)
        run_stages(module, bufferizing_pipeline())
        loop = str(module).split("scf.for")[1]  # the loop and the two copies of its results
    assert loop.count("vector.transfer_write") == 2 and "linalg.generic" not in loop
    assert loop.count("memref.copy") == 2 and "memref.alloc" not in loop  # the copies of the results


MIN_PLUS_LOOP = """
func.func @f(%a: tensor<12x12xf64>) -> tensor<12x12xf64> attributes {synth.outputs = [0]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %k = %c0 to %c3 step %c1 iter_args(%p = %a) -> (tensor<12x12xf64>) {
    %col = tensor.extract_slice %p[0, %k] [12, 1] [1, 1] : tensor<12x12xf64> to tensor<12xf64>
    %row = tensor.extract_slice %p[%k, 0] [1, 12] [1, 1] : tensor<12x12xf64> to tensor<12xf64>
    %e1 = tensor.empty() : tensor<12x12xf64>
    %bc = linalg.broadcast ins(%col : tensor<12xf64>) outs(%e1 : tensor<12x12xf64>) dimensions = [1]
    %e2 = tensor.empty() : tensor<12x12xf64>
    %br = linalg.broadcast ins(%row : tensor<12xf64>) outs(%e2 : tensor<12x12xf64>) dimensions = [0]
    %e3 = tensor.empty() : tensor<12x12xf64>
    %s = linalg.add ins(%bc, %br : tensor<12x12xf64>, tensor<12x12xf64>) outs(%e3 : tensor<12x12xf64>) -> tensor<12x12xf64>
    %e4 = tensor.empty() : tensor<12x12xf64>
    %m = linalg.min ins(%p, %s : tensor<12x12xf64>, tensor<12x12xf64>) outs(%e4 : tensor<12x12xf64>) -> tensor<12x12xf64>
    scf.yield %m : tensor<12x12xf64>
  }
  return %r : tensor<12x12xf64>
}
"""


def test_mlir_cpu_loop_step_updates_its_array_in_place():
    """floyd-warshall's step as linalg: `P = min(P, col_k + row_k)`, col_k and row_k slices
    of the loop's P. After fusion it is one generic reading P; the backend writes it into
    P itself, with the row and the column copied first (in_place), so the bufferized loop
    allocates no new matrix per step; the values are NumPy's."""
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 4, (12, 12))
    want = a.copy()
    for k in range(3):  # 3 steps: too few for blocks of steps (pivot_blocks)
        want = np.minimum(want, want[:, k:k + 1] + want[k:k + 1, :])
    prepared = MlirCpuBackend().prepare(MIN_PLUS_LOOP, "f")
    assert_close(prepared.run([a]), [want], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(MIN_PLUS_LOOP)
        run_stages(module, bufferizing_pipeline())
        loop = str(module).split("scf.for")[1]
    assert "memref.alloc() {alignment = 64 : i64} : memref<12x12xf64>" not in loop
    assert loop.count("linalg.copy") == 2 and loop.count("linalg.generic") == 1


# floyd-warshall's in-place step as synth raises it: element (i, j) from P[i][j], column k
# (the new P[i][k] where j > k) and row k (the new P[k][j] where i > k), written out with
# selects on the indices; the new row and column values depend on j or on i alone
IN_PLACE_MIN_PLUS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0, d1) -> (d1)>
#e = affine_map<(d0, d1) -> ()>
func.func @f(%a: tensor<64x128xi32>) -> tensor<64x128xi32> attributes {synth.outputs = [0]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%p = %a) -> (tensor<64x128xi32>) {
    %col = tensor.extract_slice %p[0, %k] [64, 1] [1, 1] : tensor<64x128xi32> to tensor<64xi32>
    %row = tensor.extract_slice %p[%k, 0] [1, 128] [1, 1] : tensor<64x128xi32> to tensor<128xi32>
    %kk = tensor.extract_slice %row[%k] [1] [1] : tensor<128xi32> to tensor<i32>
    %e = tensor.empty() : tensor<64x128xi32>
    %m = linalg.generic {indexing_maps = [#id, #r, #c, #e, #id], iterator_types = ["parallel", "parallel"]}
        ins(%p, %col, %row, %kk : tensor<64x128xi32>, tensor<64xi32>, tensor<128xi32>, tensor<i32>) outs(%e : tensor<64x128xi32>) {
    ^bb0(%x: i32, %xik: i32, %xkj: i32, %xkk: i32, %o: i32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %i_after = arith.cmpi sgt, %i, %k : index
      %j_after = arith.cmpi sgt, %j, %k : index
      %kk2 = arith.addi %xkk, %xkk : i32
      %kk_new = arith.minsi %xkk, %kk2 : i32
      %kk_j = arith.select %j_after, %kk_new, %xkk : i32
      %kj_sum = arith.addi %kk_j, %xkj : i32
      %kj_new = arith.minsi %xkj, %kj_sum : i32
      %b = arith.select %i_after, %kj_new, %xkj : i32
      %kk_i = arith.select %i_after, %kk_new, %xkk : i32
      %ik_sum = arith.addi %xik, %kk_i : i32
      %ik_new = arith.minsi %xik, %ik_sum : i32
      %a_ = arith.select %j_after, %ik_new, %xik : i32
      %s = arith.addi %a_, %b : i32
      %n = arith.minsi %x, %s : i32
      linalg.yield %n : i32
    } -> tensor<64x128xi32>
    scf.yield %m : tensor<64x128xi32>
  }
  return %r : tensor<64x128xi32>
}
"""


def _in_place_min_plus(a: np.ndarray) -> np.ndarray:
    """floyd-warshall's loops on a copy of `a` (rows <= columns), row by row: in row i of
    step k the columns before k see the old a[i][k], the ones after the new one, and row k
    the values step k has left it (rows after k) or not yet (rows before)."""
    d = a.copy()
    with np.errstate(over="ignore"):  # negative cycles: the sums wrap around, in i32 as in the kernel
        for k in range(d.shape[0]):
            for i in range(d.shape[0]):
                row, old = d[i], d[i, k]
                new = min(old, old + d[k, k])
                row[:k] = np.minimum(row[:k], old + d[k, :k])
                row[k] = new
                row[k + 1:] = np.minimum(row[k + 1:], new + d[k, k + 1:])
    return d


def test_mlir_cpu_runs_blocks_of_pivot_steps():
    """floyd-warshall's loop (IN_PLACE_MIN_PLUS: 64 steps on a 64 x 128 matrix) through the
    backend: pivot_blocks hoists the step's row-only and column-only values into 1-d generics
    and runs the steps in blocks of 32: the 32 pivot rows first, then every other block of 8
    rows through the 32 steps, by chunks of columns (the block's 32 pivot columns first, the
    rest of their 64-column chunk, then the other chunks of 64); the values are exactly those
    of the original in-place loops."""
    from synth.backends import pivot_blocks

    rng = np.random.default_rng(12)
    a = rng.integers(-5, 40, (64, 128)).astype(np.int32)
    want = _in_place_min_plus(a)
    prepared = MlirCpuBackend().prepare(IN_PLACE_MIN_PLUS, "f")
    got = prepared.run([a])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    assert np.array_equal(got[0], want)
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(IN_PLACE_MIN_PLUS)
        assert pivot_blocks.pivot_blocks(module) == 1
        text = str(module)
    assert "step %c32" in text and "tensor<32x128xi32>" in text and "tensor<8x128xi32>" in text
    # phase 1: row k's part once per step (kept for phase 2), the pivot rows' column part, the step
    assert text.count("} -> tensor<128xi32>") == 1 and text.count("} -> tensor<32xi32>") == 1
    # phase 2, before and after the pivot rows: the column part and the step on the pivot
    # columns, the step on the rest of their chunk (2 parts) and on the other chunks
    assert text.count("} -> tensor<8xi32>") == 2 and text.count("} -> tensor<8x32xi32>") == 2
    assert text.count("} -> tensor<8x?xi32>") == 4 and text.count("} -> tensor<8x64xi32>") == 4
    assert text.count("tensor<32x8xi32>") >= 2  # the recorded column k of the block per step


FLOYD_WARSHALL_STABLEHLO = Path(__file__).parent / "data" / "pivot" / "floyd_warshall_128.stablehlo.mlir"


def test_mlir_cpu_runs_blocks_of_the_stablehlo_floyd_warshall_loop():
    """The stablehlo raise of floyd-warshall (at 128 x 128) carries row and column k + 1,
    computed at the end of each step for the next; pivot_blocks moves that to the start of
    the step (at k), having checked that the values the loop starts with are those at k = 0,
    and then runs its blocks. The values are exactly those of the original loops."""
    from mlir import ir
    from synth.backends import pivot_blocks, row_passes
    from synth.backends.mlir_cpu import tiled_pipeline
    from synth.backends.stablehlo_linalg import to_linalg

    text = FLOYD_WARSHALL_STABLEHLO.read_text()
    a = np.random.default_rng(3).integers(-3, 60, (128, 128)).astype(np.int32)
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "kernel_floyd_warshall_raised")
    got = prepared.run([np.array(128, dtype=np.int32), a])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    assert np.array_equal(got[0], _in_place_min_plus(a))
    linalg = row_passes.fuse_rows(to_linalg(text)).text
    stages = tiled_pipeline()
    with ir.Context():
        module = ir.Module.parse(linalg)
        run_stages(module, stages.before("synth-pivot-blocks"))
        assert "iter_args" in str(module) and str(module).count("tensor<128xi32>, tensor<128xi32>") >= 1
        assert pivot_blocks.pivot_blocks(module) == 1
        text_after = str(module)
    assert "step %c32" in text_after and "tensor<8x64xi32>" in text_after  # blocks of 32 steps, chunks


def test_pivot_blocks_keep_a_loop_whose_carried_start_differs():
    """The same loop with its carried row and column taken at k = 1 before the loop (not
    what the step computes for k = 0): the values the loop starts with are not the step's,
    so pivot_blocks leaves it as it is, and mlir-cpu computes what XLA does."""
    from synth.backends.xla import XlaBackend

    text = FLOYD_WARSHALL_STABLEHLO.read_text()
    first = "%c = stablehlo.constant dense<0> : tensor<i64>"
    assert text.count(first) == 1
    text = text.replace(first, "%c = stablehlo.constant dense<1> : tensor<i64>")
    a = np.random.default_rng(4).integers(-3, 60, (128, 128)).astype(np.int32)
    inputs = [np.array(128, dtype=np.int32), a]
    got = MlirCpuBackend(target="stablehlo").prepare(text, "kernel_floyd_warshall_raised").run(inputs)
    want = XlaBackend().prepare(text, "kernel_floyd_warshall_raised").run(inputs)
    assert np.array_equal(got[0], want[0]) and not np.array_equal(got[0], _in_place_min_plus(a))
    from mlir import ir
    from synth.backends import pivot_blocks, row_passes
    from synth.backends.mlir_cpu import tiled_pipeline
    from synth.backends.stablehlo_linalg import to_linalg

    stages = tiled_pipeline()
    with ir.Context():
        module = ir.Module.parse(row_passes.fuse_rows(to_linalg(text)).text)
        run_stages(module, stages.before("synth-pivot-blocks"))
        assert pivot_blocks.pivot_blocks(module) == 0


SCALAR_STATE_LOOP = """
#s = affine_map<(d0) -> (0)>
#id = affine_map<(d0) -> (d0)>
func.func @f(%y: tensor<16xf64>, %a0: tensor<1xf64>, %b0: tensor<1xf64>) -> tensor<16xf64> attributes {synth.outputs = [0]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f64
  %r:3 = scf.for %k = %c0 to %c16 step %c1 iter_args(%v = %y, %a = %a0, %b = %b0) -> (tensor<16xf64>, tensor<1xf64>, tensor<1xf64>) {
    %e1 = tensor.empty() : tensor<1xf64>
    %nb = linalg.generic {indexing_maps = [#s, #s, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<1xf64>, tensor<1xf64>) outs(%e1 : tensor<1xf64>) {
    ^bb0(%x: f64, %z: f64, %o: f64):
      %m = arith.mulf %x, %x : f64
      %d = arith.subf %one, %m : f64
      %p = arith.mulf %d, %z : f64
      linalg.yield %p : f64
    } -> tensor<1xf64>
    %vk = tensor.extract %v[%k] : tensor<16xf64>
    %e2 = tensor.empty() : tensor<1xf64>
    %na = linalg.generic {indexing_maps = [#s, #id], iterator_types = ["parallel"]} ins(%nb : tensor<1xf64>) outs(%e2 : tensor<1xf64>) {
    ^bb0(%x: f64, %o: f64):
      %q = arith.divf %vk, %x : f64
      %n = arith.negf %q : f64
      linalg.yield %n : f64
    } -> tensor<1xf64>
    %e3 = tensor.empty() : tensor<16xf64>
    %nv = linalg.generic {indexing_maps = [#id, #s, #id], iterator_types = ["parallel"]} ins(%v, %na : tensor<16xf64>, tensor<1xf64>) outs(%e3 : tensor<16xf64>) {
    ^bb0(%x: f64, %z: f64, %o: f64):
      %w = arith.mulf %z, %x : f64
      %s = arith.addf %x, %w : f64
      linalg.yield %s : f64
    } -> tensor<16xf64>
    scf.yield %nv, %na, %nb : tensor<16xf64>, tensor<1xf64>, tensor<1xf64>
  }
  return %r#0 : tensor<16xf64>
}
"""


def test_mlir_cpu_loop_carrying_scalars_updates_them_in_place():
    """durbin's loop as linalg carries its scalars as 1-element tensors, read at (d0) -> (0)
    and recomputed into tensor.empty each step. The backend writes each new value into the
    iter_arg it replaces (the one the loop yields it as), so the bufferized loop carries
    no buffers: before, it yielded a new buffer per step, and the deallocation of those
    (a runtime helper over i1 memrefs) made MLIR's lowering abort, in the tiled pipeline
    and in the fallback alike. The values are the loop's."""
    from mlir import ir

    rng = np.random.default_rng(3)
    y, a, b = rng.uniform(0.1, 0.2, 16), np.array([0.3]), np.array([1.0])
    want, alpha, beta = y.copy(), a[0], b[0]
    for k in range(16):
        beta = (1 - alpha * alpha) * beta
        alpha = -(want[k] / beta)
        want = want + alpha * want
    prepared = MlirCpuBackend().prepare(SCALAR_STATE_LOOP, "f")
    assert_close(prepared.run([y, a, b]), [want], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    with ir.Context():
        module = ir.Module.parse(SCALAR_STATE_LOOP)
        run_stages(module, bufferizing_pipeline())
        head = next(line for line in str(module).splitlines() if "scf.for" in line)
    assert "iter_args" not in head, head


# the linalg emitter's flip (a[k-1-i] where that lies in the dim, else 0) and prefix
# select (x where i < k, else y), over 16 elements
_FLIP = """
    %e_{name} = tensor.empty() : tensor<16xf64>
    %{name} = linalg.generic {{indexing_maps = [#id], iterator_types = ["parallel"]}} outs(%e_{name} : tensor<16xf64>) {{
    ^bb0(%o: f64):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %j = arith.subi %km1, %ii : i64
      %ge = arith.cmpi sge, %j, %i0 : i64
      %lt = arith.cmpi slt, %j, %i16 : i64
      %in = arith.andi %ge, %lt : i1
      %lo = arith.maxsi %j, %i0 : i64
      %hi = arith.minsi %lo, %i15 : i64
      %jj = arith.index_cast %hi : i64 to index
      %v = tensor.extract %{source}[%jj] : tensor<16xf64>
      %w = arith.select %in, %v, %zero : f64
      linalg.yield %w : f64
    }} -> tensor<16xf64>"""
_PREFIX_SELECT = """
    %e_{name} = tensor.empty() : tensor<15xf64>
    %{name} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}} ins(%{x}, %{y} : tensor<15xf64>, tensor<15xf64>) outs(%e_{name} : tensor<15xf64>) {{
    ^bb0(%a: f64, %b: f64, %o: f64):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %p = arith.cmpi slt, %ii, %k : i64
      %q = arith.select %p, %a, %b : f64
      linalg.yield %q : f64
    }} -> tensor<15xf64>"""
PREFIX_STEP_LOOP = """
#id = affine_map<(d0) -> (d0)>
func.func @f(%r: tensor<16xf64>, %y0: tensor<16xf64>) -> tensor<16xf64> attributes {synth.outputs = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1 : i64
  %minus = arith.constant -1 : i64
  %i0 = arith.constant 0 : i64
  %i15 = arith.constant 15 : i64
  %i16 = arith.constant 16 : i64
  %s0 = tensor.empty() : tensor<f64>
  %s00 = linalg.fill ins(%zero : f64) outs(%s0 : tensor<f64>) -> tensor<f64>
  %out:2 = scf.for %step = %c0 to %c15 step %c1 iter_args(%y = %y0, %acc = %s00) -> (tensor<16xf64>, tensor<f64>) {
    %s = arith.index_cast %step : index to i64
    %k = arith.addi %s, %one : i64
    %km1 = arith.addi %k, %minus : i64""" + _FLIP.format(name="flipr", source="r") + _FLIP.format(
    name="flip", source="y") + """
    %e1 = tensor.empty() : tensor<15xf64>
    %z15 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<15xf64>) -> tensor<15xf64>
    %flr = tensor.extract_slice %flipr[0] [15] [1] : tensor<16xf64> to tensor<15xf64>
    %fl = tensor.extract_slice %flip[0] [15] [1] : tensor<16xf64> to tensor<15xf64>""" + _PREFIX_SELECT.format(
    name="masked", x="flr", y="z15") + """
    %rs = tensor.extract_slice %y[0] [15] [1] : tensor<16xf64> to tensor<15xf64>
    %d0 = tensor.empty() : tensor<f64>
    %d00 = linalg.fill ins(%zero : f64) outs(%d0 : tensor<f64>) -> tensor<f64>
    %dot = linalg.dot ins(%masked, %rs : tensor<15xf64>, tensor<15xf64>) outs(%d00 : tensor<f64>) -> tensor<f64>
    %e3 = tensor.empty() : tensor<f64>
    %acc2 = linalg.add ins(%acc, %dot : tensor<f64>, tensor<f64>) outs(%e3 : tensor<f64>) -> tensor<f64>
    %ys = tensor.extract_slice %y[0] [15] [1] : tensor<16xf64> to tensor<15xf64>
    %e4 = tensor.empty() : tensor<15xf64>
    %upd = linalg.add ins(%ys, %fl : tensor<15xf64>, tensor<15xf64>) outs(%e4 : tensor<15xf64>) -> tensor<15xf64>""" + \
    _PREFIX_SELECT.format(name="sel", x="upd", y="ys") + """
    %ny = tensor.insert_slice %sel into %y[0] [15] [1] : tensor<15xf64> into tensor<16xf64>
    %ny2 = tensor.insert_slice %acc2 into %ny[15] [1] [1] : tensor<f64> into tensor<16xf64>
    scf.yield %ny2, %acc2 : tensor<16xf64>, tensor<f64>
  }
  return %out#0 : tensor<16xf64>
}
"""


def _prefix_step_reference(r, y):
    """PREFIX_STEP_LOOP in NumPy: step k (1..15) adds sum_{i<k} r[k-1-i] y[i] to a sum
    kept in y[15], then y[i] += y[k-1-i] for i < k, all reads before the writes (durbin's
    shape)."""
    y, total = y.copy(), 0.0
    for k in range(1, 16):
        flip = y[k - 1::-1].copy()
        total += float(r[k - 1::-1] @ y[:k])
        y[:k] = y[:k] + flip
        y[15] = total
    return y


def test_mlir_cpu_prefix_steps_compute_only_their_prefix():
    """A loop step over the prefix i < k of an array, as the linalg emitter writes it
    (durbin's): counter_select generics over the whole dim, a flip read by tensor.extract,
    a dot of a select with zeros, an insert_range of a select with the old part. The
    backend turns each select into slices (narrow.slice_selects), narrows the generics that
    compute the selected part and the dot to the prefix (narrow.narrow_producers), so the
    bufferized loop computes nothing over a whole dim (every generic and the dot's loop run
    over a dynamic extent) and copies no whole dim; the values are NumPy's."""
    from mlir import ir

    rng = np.random.default_rng(11)
    r, y = rng.uniform(-1, 1, 16), rng.uniform(-1, 1, 16)
    prepared = MlirCpuBackend().prepare(PREFIX_STEP_LOOP, "f")
    assert_close(prepared.run([r, y]), [_prefix_step_reference(r, y)], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    with ir.Context():
        module = ir.Module.parse(PREFIX_STEP_LOOP)
        run_stages(module, bufferizing_pipeline())
        lines = str(module).splitlines()
    start = next(k for k, ln in enumerate(lines) if "scf.for" in ln)
    loop = lines[start:lines.index("    }", start)]  # the step loop's body
    generics = [ln for ln in loop if "linalg.generic" in ln and "memref<f64" not in ln]
    assert generics and all("memref<?xf64" in ln for ln in generics), generics
    whole = [ln for ln in loop if ("memref.alloc()" in ln or "memref.copy" in ln) and "xf64" in ln
             and "memref<?xf64" not in ln and "memref<8xf64>" not in ln]
    assert not whole, whole


@pytest.mark.parametrize("predicate", ["slt", "sle", "sgt", "sge"])
def test_mlir_cpu_select_slices_keep_the_values(predicate):
    """narrow.slice_selects on each direction, at bounds before, inside and past the dim
    (the clamping), on a select put back where its old part came from (columns 1..9 of
    t): x where `index <predicate> bound`, t's old values elsewhere, as NumPy's where."""
    text = f"""
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<5x9xf64>, %t: tensor<5x11xf64>, %b: tensor<i64>) -> tensor<5x11xf64> attributes {{synth.outputs = [1]}} {{
  %bound = tensor.extract %b[] : tensor<i64>
  %y = tensor.extract_slice %t[0, 1] [5, 9] [1, 1] : tensor<5x11xf64> to tensor<5x9xf64>
  %e = tensor.empty() : tensor<5x9xf64>
  %s = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}} ins(%x, %y : tensor<5x9xf64>, tensor<5x9xf64>) outs(%e : tensor<5x9xf64>) {{
  ^bb0(%a: f64, %c: f64, %o: f64):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %p = arith.cmpi {predicate}, %ii, %bound : i64
    %q = arith.select %p, %a, %c : f64
    linalg.yield %q : f64
  }} -> tensor<5x9xf64>
  %r = tensor.insert_slice %s into %t[0, 1] [5, 9] [1, 1] : tensor<5x9xf64> into tensor<5x11xf64>
  return %r : tensor<5x11xf64>
}}
"""
    from mlir import ir

    from synth.backends.narrow import slice_selects

    with ir.Context():
        module = ir.Module.parse(text)
        assert slice_selects(module) == 1
        assert "linalg.generic" not in str(module)
    rng = np.random.default_rng(5)
    x, t = rng.uniform(-1, 1, (5, 9)), rng.uniform(-1, 1, (5, 11))
    compare = {"slt": np.less, "sle": np.less_equal, "sgt": np.greater, "sge": np.greater_equal}[predicate]
    prepared = MlirCpuBackend().prepare(text, "f")
    for bound in (-3, 0, 4, 8, 9, 12):
        want = t.copy()
        want[:, 1:10] = np.where(compare(np.arange(9)[None, :], bound), x, t[:, 1:10])
        assert_close(prepared.run([x, t, np.array(bound, dtype=np.int64)]), [want], f"bound {bound}")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def test_narrowing_leaves_a_generic_outside_the_loop_that_slices_it():
    """A generic computed once before a loop and sliced inside it (at the counter) is not
    narrowed: its narrowed copy would run once per step. One computed in the step is."""
    from mlir import ir

    from synth.backends.narrow import narrow_producers

    def text(inside: bool) -> str:
        square = """
    %e = tensor.empty() : tensor<64xf64>
    %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<64xf64>) outs(%e : tensor<64xf64>) {
    ^bb0(%a: f64, %o: f64):
      %m = arith.mulf %a, %a : f64
      linalg.yield %m : f64
    } -> tensor<64xf64>"""
        return f"""
#id = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<64xf64>, %acc0: tensor<8xf64>) -> tensor<8xf64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c56 = arith.constant 56 : index{'' if inside else square}
  %r = scf.for %k = %c0 to %c56 step %c1 iter_args(%acc = %acc0) -> (tensor<8xf64>) {{{square if inside else ''}
    %part = tensor.extract_slice %sq[%k] [8] [1] : tensor<64xf64> to tensor<8xf64>
    %e2 = tensor.empty() : tensor<8xf64>
    %s = linalg.add ins(%acc, %part : tensor<8xf64>, tensor<8xf64>) outs(%e2 : tensor<8xf64>) -> tensor<8xf64>
    scf.yield %s : tensor<8xf64>
  }}
  return %r : tensor<8xf64>
}}
"""

    with ir.Context():
        assert narrow_producers(ir.Module.parse(text(inside=False))) == 0
        module = ir.Module.parse(text(inside=True))
        assert narrow_producers(module) == 1
        assert "tensor<64xf64>) outs" not in str(module).split("scf.for")[1]


def test_mlir_cpu_lu_updates_its_trailing_block_in_place():
    """linalg's blocked LU (n = 96: panels of 48, sub-panels of 24): each linalg.matmul
    writes a block of the matrix and reads a smaller block of it (the rows above). The
    backend gives it a copy of the block it reads (in_place._copy_read_slices), so the
    bufferized function copies no 2-d block of the matrix (bufferization had copied the
    trailing block into a new buffer and back); the column copies that remain become loops
    (copies.copies_as_loops), not calls of the runtime's copy; the values are the
    unblocked LU's."""
    from mlir import ir

    from synth.backends.copies import _memcpy, copies_as_loops
    from synth.backends.ir_toolkit import ops_named
    from synth.grammar import ops_for
    from synth.grammar.op import emit_op_function
    from synth.grammar.shapes import lu
    from synth.grammar.types import TensorType

    op = next(o for o in ops_for("linalg") if o.name == "linalg.lu")
    text = emit_op_function(op, [TensorType((96, 96), "f64")], ())
    head = next(line for line in text.splitlines() if "func.func @main" in line)
    text = text.replace(head, head.rstrip()[:-1] + "attributes {synth.outputs = [0]} {")
    a = np.random.default_rng(96).uniform(-1, 1, (96, 96)) + 96 * np.eye(96)
    prepared = MlirCpuBackend().prepare(text, "main")
    (got,) = prepared.run([a])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    assert_close([got], [lu(a)], "mlir-cpu")  # (fused multiply-adds in the matmuls' tiles)
    with ir.Context():
        module = ir.Module.parse(text)
        run_stages(module, bufferizing_pipeline())
        copies = [line for line in str(module).splitlines() if "memref.copy" in line]
        assert copies
        assert not any("x?xf64" in line for line in copies), copies  # no 2-d block copied
        runtime = [c for c in ops_named(module, ("memref.copy",))
                   if not (_memcpy(c.operands[0].type) and _memcpy(c.operands[1].type))]
        assert len(runtime) >= sum("strided<[96]" in line for line in copies) > 0
        assert copies_as_loops(module) == len(runtime)
        assert not any("strided<[96]" in line for line in str(module).splitlines() if "memref.copy" in line)


def test_mlir_cpu_copies_a_slice_at_a_run_time_offset_in_a_loop():
    """A vector's tail `y[k:]` inserted at the head of x: bufferized, a memref.copy between
    views at offsets known at run time (strided<[1], offset: ?>), contiguous but not of the
    identity layout, which MLIR lowers to the runtime's memrefCopy (one memcpy call per
    element); copies_as_loops makes it a linalg.copy, so that no copy the runtime would make
    is left; the values are NumPy's at every k."""
    from mlir import ir

    from synth.backends.copies import _memcpy, copies_as_loops

    text = """
func.func @f(%x: tensor<16xf64>, %y: tensor<16xf64>, %k: tensor<i64>) -> tensor<16xf64> attributes {synth.outputs = [0]} {
  %c16 = arith.constant 16 : index
  %e = tensor.extract %k[] : tensor<i64>
  %i = arith.index_cast %e : i64 to index
  %n = arith.subi %c16, %i : index
  %tail = tensor.extract_slice %y[%i] [%n] [1] : tensor<16xf64> to tensor<?xf64>
  %r = tensor.insert_slice %tail into %x[0] [%n] [1] : tensor<?xf64> into tensor<16xf64>
  return %r : tensor<16xf64>
}
"""
    with ir.Context():
        module = ir.Module.parse(text)
        run_stages(module, bufferizing_pipeline())
        copies = [op for op in module.body.operations[0].regions[0].blocks[0].operations if op.name == "memref.copy"]
        runtime = [c for c in copies if not (_memcpy(c.operands[0].type) and _memcpy(c.operands[1].type))]
        assert any("offset: ?" in str(c.operands[0].type) for c in runtime), copies
        assert copies_as_loops(module) == len(runtime)
        assert "offset: ?" not in "".join(line for line in str(module).splitlines() if "memref.copy" in line)
    prepared = MlirCpuBackend().prepare(text, "f")
    rng = np.random.default_rng(16)
    x, y = rng.uniform(-1, 1, 16), rng.uniform(-1, 1, 16)
    for k in (0, 5, 16):
        (got,) = prepared.run([x, y, np.array(k, np.int64)])
        np.testing.assert_array_equal(got, np.concatenate([y[k:], x[16 - k:]]))
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


_WHILE_READ_AND_UPDATE = """
func.func @main(%r: tensor<16x16xf64>) -> tensor<16x16xf64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %0:2 = stablehlo.while(%k = %c0, %x = %r) : tensor<i64>, tensor<16x16xf64>
  cond {
    %n = stablehlo.constant dense<16> : tensor<i64>
    %p = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i64>
    %col = stablehlo.dynamic_slice %x, %z, %k, sizes = [16, 1] : (tensor<16x16xf64>, tensor<i64>, tensor<i64>) -> tensor<16x1xf64>
    %col2 = stablehlo.multiply %col, %col : tensor<16x1xf64>
    %x1 = stablehlo.dynamic_update_slice %x, %col2, %z, %k : (tensor<16x16xf64>, tensor<16x1xf64>, tensor<i64>, tensor<i64>) -> tensor<16x16xf64>
    %row = stablehlo.dynamic_slice %x1, %k, %z, sizes = [1, 16] : (tensor<16x16xf64>, tensor<i64>, tensor<i64>) -> tensor<1x16xf64>
    %row2 = stablehlo.add %row, %row : tensor<1x16xf64>
    %x2 = stablehlo.dynamic_update_slice %x1, %row2, %k, %z : (tensor<16x16xf64>, tensor<1x16xf64>, tensor<i64>, tensor<i64>) -> tensor<16x16xf64>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %k1 = stablehlo.add %k, %one : tensor<i64>
    stablehlo.return %k1, %x2 : tensor<i64>, tensor<16x16xf64>
  }
  return %0#1 : tensor<16x16xf64>
}
"""


def test_xla_cpu_updates_while_state_in_place():
    """A while body that reads an array it updates in place (column k squared, then row k
    of the result doubled: gramschmidt's R) runs without copying the array each step: the
    CPU compile options turn on copy insertion's region analysis (XLA's default copies it)."""
    from synth.backends.xla import compile_stablehlo, run_stablehlo

    x = np.random.default_rng(0).uniform(-1, 1, (16, 16))
    want = x.copy()
    for k in range(16):
        want[:, k] = want[:, k] ** 2
        want[k, :] = 2 * want[k, :]
    np.testing.assert_allclose(run_stablehlo(_WHILE_READ_AND_UPDATE, [x])[0], want, rtol=1e-12)
    hlo = compile_stablehlo(_WHILE_READ_AND_UPDATE).hlo_modules()[0].to_string()
    bodies = [c for c in hlo.split("\n\n") if "dynamic-update-slice" in c and "ROOT %tuple" in c]
    assert bodies and all(" copy(" not in b for b in bodies)



_MASKED_WHILE = """
func.func @f(%x0: tensor<16xf64>, %s0: tensor<f64>) -> (tensor<16xf64>, tensor<f64>) attributes {synth.outputs = [0, 1]} {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %0:3 = stablehlo.while(%k = %c0, %x = %x0, %s = %s0) : tensor<i64>, tensor<16xf64>, tensor<f64>
  cond {
    %n = stablehlo.constant dense<16> : tensor<i64>
    %p = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %iota = stablehlo.iota dim = 0 : tensor<16xi64>
    %kk = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<i64>) -> tensor<16xi64>
    %m = stablehlo.compare LT, %iota, %kk : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi1>
    %zero = stablehlo.constant dense<0.0> : tensor<16xf64>
    %xm = stablehlo.select %m, %x, %zero : tensor<16xi1>, tensor<16xf64>
    %dot = stablehlo.dot_general %xm, %x, contracting_dims = [0] x [0] : (tensor<16xf64>, tensor<16xf64>) -> tensor<f64>
    %s1 = stablehlo.add %s, %dot : tensor<f64>
    %half = stablehlo.constant dense<0.5> : tensor<16xf64>
    %xh = stablehlo.multiply %x, %half : tensor<16xf64>
    %x1 = stablehlo.select %m, %xh, %x : tensor<16xi1>, tensor<16xf64>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %k1 = stablehlo.add %k, %one : tensor<i64>
    stablehlo.return %k1, %x1, %s1 : tensor<i64>, tensor<16xf64>, tensor<f64>
  }
  return %0#1, %0#2 : tensor<16xf64>, tensor<f64>
}
"""


def _masked_while_reference(x, s):
    x, s = x.copy(), float(s)
    for k in range(16):
        s += float(x[:k] @ x[:k])
        x[:k] *= 0.5
    return [x, np.array(s)]


def test_mlir_cpu_runs_stablehlo_through_linalg():
    """mlir-cpu on a stablehlo function (synth.backends.stablehlo_linalg): the counted while
    becomes an scf.for, a mask read by two selects is computed once per use so fusion folds
    both into their selects (a tensor of i1 left in memory aborts MLIR's LLVM lowering); the
    values are NumPy's and XLA's, on the tiled pipeline."""
    from synth.backends.stablehlo_linalg import to_linalg
    from synth.backends.xla import run_stablehlo

    rng = np.random.default_rng(5)
    x, s = rng.uniform(-1, 1, 16), np.array(0.25)
    want = _masked_while_reference(x, s)
    text = to_linalg(_MASKED_WHILE)
    assert "stablehlo." not in text.replace("synth.", "") and "scf.for" in text and "scf.while" not in text
    prepared = MlirCpuBackend(target="stablehlo").prepare(_MASKED_WHILE, "f")
    assert_close(prepared.run([x, s]), want, "mlir-cpu (stablehlo)")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    assert_close([np.asarray(a) for a in run_stablehlo(_MASKED_WHILE.replace("@f(", "@main("), [x, s])],
                 want, "xla-cpu")
    # the dynamic slices of a while step (gramschmidt's column and row updates)
    y = rng.uniform(-1, 1, (16, 16))
    expected = y.copy()
    for k in range(16):
        expected[:, k] = expected[:, k] ** 2
        expected[k, :] = 2 * expected[k, :]
    read_update = _WHILE_READ_AND_UPDATE.replace("@main(%r: tensor<16x16xf64>) -> tensor<16x16xf64> {",
                                                 "@main(%r: tensor<16x16xf64>) -> tensor<16x16xf64> "
                                                 "attributes {synth.outputs = [0]} {")
    got = MlirCpuBackend(target="stablehlo").prepare(read_update, "main").run([y])
    assert_close(got, [expected], "mlir-cpu (stablehlo), dynamic slices")


_NESTED_WHILES = """
func.func @f(%x0: tensor<8xf64>) -> tensor<8xf64> attributes {synth.outputs = [0]} {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %0:2 = stablehlo.while(%k = %c0, %x = %x0) : tensor<i64>, tensor<8xf64>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i64>
    %p = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.while(%j = %z, %y = %x) : tensor<i64>, tensor<8xf64>
    cond {
      %m = stablehlo.constant dense<4> : tensor<i64>
      %q = stablehlo.compare LT, %j, %m : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %q : tensor<i1>
    } do {
      %two = stablehlo.constant dense<2.0> : tensor<8xf64>
      %y1 = stablehlo.multiply %y, %two : tensor<8xf64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %j1 = stablehlo.add %j, %one : tensor<i64>
      stablehlo.return %j1, %y1 : tensor<i64>, tensor<8xf64>
    }
    %one = stablehlo.constant dense<1> : tensor<i64>
    %k1 = stablehlo.add %k, %one : tensor<i64>
    stablehlo.return %k1, %1#1 : tensor<i64>, tensor<8xf64>
  }
  return %0#1 : tensor<8xf64>
}
"""


def test_mlir_cpu_lowers_nested_counted_whiles():
    """A counted while inside another: both become scf.for (the inner one moves into the
    outer loop's body and is rewritten there); x doubled 3 x 4 times."""
    from synth.backends.stablehlo_linalg import to_linalg

    text = to_linalg(_NESTED_WHILES)
    assert text.count("scf.for") == 2 and "stablehlo." not in text.replace("synth.", "")
    x = np.arange(8.0)
    got = MlirCpuBackend(target="stablehlo").prepare(_NESTED_WHILES, "f").run([x])
    assert_close(got, [x * 2.0 ** 12], "nested whiles")

_FLIP_STEP = """
func.func @f(%y0: tensor<16xf64>, %r: tensor<16xf64>) -> tensor<16xf64> attributes {synth.outputs = [0]} {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %0:2 = stablehlo.while(%k = %c1, %y = %y0) : tensor<i32>, tensor<16xf64>
  cond {
    %n = stablehlo.constant dense<16> : tensor<i32>
    %p = stablehlo.compare LT, %k, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %iota = stablehlo.iota dim = 0 : tensor<16xi32>
    %m1 = stablehlo.constant dense<-1> : tensor<i32>
    %km1 = stablehlo.add %k, %m1 : tensor<i32>
    %kb = stablehlo.broadcast_in_dim %km1, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %at = stablehlo.subtract %kb, %iota : tensor<16xi32>
    %lo = stablehlo.constant dense<0> : tensor<16xi32>
    %hi = stablehlo.constant dense<15> : tensor<16xi32>
    %n16 = stablehlo.constant dense<16> : tensor<16xi32>
    %ge = stablehlo.compare GE, %at, %lo : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %lt = stablehlo.compare LT, %at, %n16 : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %in = stablehlo.and %ge, %lt : tensor<16xi1>
    %cl = stablehlo.clamp %lo, %at, %hi : tensor<16xi32>
    %ix = stablehlo.reshape %cl : (tensor<16xi32>) -> tensor<16x1xi32>
    %g = "stablehlo.gather"(%y, %ix) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<16xf64>, tensor<16x1xi32>) -> tensor<16xf64>
    %zero = stablehlo.constant dense<0.0> : tensor<16xf64>
    %z = stablehlo.select %in, %g, %zero : tensor<16xi1>, tensor<16xf64>
    %kk = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %below = stablehlo.compare LT, %iota, %kk : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %zs = stablehlo.select %below, %z, %zero : tensor<16xi1>, tensor<16xf64>
    %s = stablehlo.dot_general %zs, %r, contracting_dims = [0] x [0] : (tensor<16xf64>, tensor<16xf64>) -> tensor<f64>
    %s15 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f64>) -> tensor<15xf64>
    %z15 = stablehlo.slice %z [0:15] : (tensor<16xf64>) -> tensor<15xf64>
    %y15 = stablehlo.slice %y [0:15] : (tensor<16xf64>) -> tensor<15xf64>
    %sz = stablehlo.multiply %s15, %z15 : tensor<15xf64>
    %w = stablehlo.add %y15, %sz : tensor<15xf64>
    %iota15 = stablehlo.iota dim = 0 : tensor<15xi32>
    %kk15 = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<i32>) -> tensor<15xi32>
    %gt = stablehlo.compare GT, %kk15, %iota15 : (tensor<15xi32>, tensor<15xi32>) -> tensor<15xi1>
    %old = stablehlo.slice %y [0:15] : (tensor<16xf64>) -> tensor<15xf64>
    %new = stablehlo.select %gt, %w, %old : tensor<15xi1>, tensor<15xf64>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %y1 = stablehlo.dynamic_update_slice %y, %new, %c0 : (tensor<16xf64>, tensor<15xf64>, tensor<i32>) -> tensor<16xf64>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k1 = stablehlo.add %k, %one : tensor<i32>
    stablehlo.return %k1, %y1 : tensor<i32>, tensor<16xf64>
  }
  return %0#1 : tensor<16xf64>
}
"""


def _flip_step_reference(y, r):
    y = y.copy()
    for k in range(1, 16):
        z = np.array([y[k - 1 - i] if 0 <= k - 1 - i < 16 else 0.0 for i in range(16)])
        s = float(z[:k] @ r[:k])
        y[:k] = (y[:15] + s * z[:15])[:k]
    return [y]


def test_stablehlo_counter_selects_are_sliced_and_gathers_fused():
    """durbin's step as the stablehlo emitter writes it: a flip y[k - 1 - i] by a gather at
    clamped indices, `i < k` and `k > i` selects of a sum and of an update put back. The
    selects become linalg's counter select, sliced to the selected part (synth.backends.narrow),
    the gather a generic over its index computation, the i32 counter a scalar (no 0-d tensor
    operand left); the values are NumPy's and XLA's."""
    from synth.backends.stablehlo_linalg import to_linalg
    from synth.backends.xla import run_stablehlo

    text = to_linalg(_FLIP_STEP)
    assert "stablehlo." not in text.replace("synth.", "") and "__synth" not in text
    assert text.count("tensor.insert_slice %extracted_slice") == 2 and "arith.select" in text
    assert not re.search(r"ins\([^)]*: [^)]*tensor<i(32|64)>", text)  # no counter as a 0-d tensor operand
    rng = np.random.default_rng(1)
    y, r = rng.uniform(-1, 1, 16) / 8, rng.uniform(-1, 1, 16) / 8
    want = _flip_step_reference(y, r)
    prepared = MlirCpuBackend(target="stablehlo").prepare(_FLIP_STEP, "f")
    assert_close(prepared.run([y, r]), want, "mlir-cpu (stablehlo)")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    assert_close([np.asarray(a) for a in run_stablehlo(_FLIP_STEP.replace("@f(", "@main("), [y, r])], want, "xla-cpu")


def _hoisted_flips(text: str) -> int:
    """How many flips synth.backends.invariant_flips hoists out of the loop of the stablehlo
    function `text`, in the mlir-cpu pipeline at the stage it runs at."""
    from mlir import ir

    from synth.backends.invariant_flips import hoist_flips
    from synth.backends.passes import HOIST_FLIPS

    stages = MlirCpuBackend(target="stablehlo").prepare(text, "f")
    with ir.Context():
        module = ir.Module.parse(stages.text)
        run_stages(module, stages.pipeline.before(HOIST_FLIPS))
        return hoist_flips(module)


def test_flip_of_a_vector_the_loop_keeps_is_reversed_once():
    """durbin's step with the flip of r (an argument the loop does not change): r[k - 1 - i]
    becomes a slice of one reversal of r computed before the loop (one generic hoisted);
    the flip of the vector the loop carries (_FLIP_STEP's y) stays in the loop. The values
    are NumPy's."""
    text = (_FLIP_STEP.replace('"stablehlo.gather"(%y, %ix)', '"stablehlo.gather"(%r, %ix)')
            .replace("stablehlo.dot_general %zs, %r,", "stablehlo.dot_general %zs, %y,"))
    assert text != _FLIP_STEP and "gather\"(%r" in text and "%zs, %y," in text
    assert _hoisted_flips(text) == 1 and _hoisted_flips(_FLIP_STEP) == 0
    rng = np.random.default_rng(12)
    y, r = rng.uniform(-1, 1, 16) / 8, rng.uniform(-1, 1, 16) / 8
    want = y.copy()
    for k in range(1, 16):
        z = np.array([r[k - 1 - i] if 0 <= k - 1 - i < 16 else 0.0 for i in range(16)])
        s = float(z[:k] @ want[:k])
        want[:k] = (want[:15] + s * z[:15])[:k]
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "f")
    assert_close(prepared.run([y, r]), [want], "mlir-cpu (stablehlo)")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def _rewrites_at_stage(text: str, target: str, stage: str, rewrite) -> int:
    """What `rewrite` (the function of the mlir-cpu pipeline's stage `stage`) returns, its
    count of rewrites, on the function `f` of `text` run through the stages before it."""
    from mlir import ir

    stages = MlirCpuBackend(target=target).prepare(text, "f")
    with ir.Context():
        module = ir.Module.parse(stages.text)
        run_stages(module, stages.pipeline.before(stage))
        return rewrite(module)


def _reversed_in_place(text: str, target: str) -> int:
    """How many updates synth.backends.pairwise_reversal makes in place in the function `f`
    of `text`, in the mlir-cpu pipeline at the stage it runs at."""
    from synth.backends.pairwise_reversal import reverse_in_place
    from synth.backends.passes import REVERSE_IN_PLACE

    return _rewrites_at_stage(text, target, REVERSE_IN_PLACE, reverse_in_place)


@pytest.mark.parametrize("target", ["linalg", "stablehlo"])
def test_update_of_a_vector_by_its_reversal_runs_in_place(target):
    """durbin's raises at n = 40 (the LARGE ones with 40 for 2000): each step's
    y[i] + alpha * y[k - 1 - i] for i < k is computed pair by pair in y (one rewrite), not
    into a new buffer copied back; the values are bitwise those of the pipeline without the
    rewrite, and NumPy's solution of the Toeplitz system. With y read at k - 2 - i instead
    (not a reversal of y[0:k]) nothing is rewritten, and the values are still right."""
    from polybench_reference.solvers_stencils_medley import durbin
    from synth.backends.passes import REVERSE_IN_PLACE

    text = (Path(__file__).parent / "data" / "reversal" / f"durbin_40.{target}.mlir").read_text()
    assert _reversed_in_place(text, target) == 1
    rng = np.random.default_rng(40)
    r, y0 = rng.uniform(-1, 1, 40) / 40, np.zeros(40)
    args = [np.array(40, np.int32), r, y0]
    prepared = MlirCpuBackend(target=target).prepare(text, "f")
    got = prepared.run(args)
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    without = prepared.pipeline.without(REVERSE_IN_PLACE)
    assert without != prepared.pipeline
    assert np.array_equal(got[0], MlirCpuBackend(pipeline=without, target=target).prepare(text, "f").run(args)[0])
    want = y0.copy()
    durbin(40, r, want)
    assert_close(got, [want], f"durbin ({target})")
    if target == "linalg":  # y[k - 2 - i], 0 where that is before y
        shifted = text.replace("%68 = arith.addi %extracted_19, %c-1_i64 : i64",
                               "%c-2_i64 = arith.constant -2 : i64\n      %68 = arith.addi %extracted_19, %c-2_i64 : i64")
        assert shifted != text and _reversed_in_place(shifted, target) == 0
        want, alpha, beta = np.zeros(40), -r[0], 1.0
        want[0] = -r[0]
        for k in range(1, 40):
            beta *= 1 - alpha * alpha
            alpha = -(r[k] + r[:k][::-1] @ want[:k]) / beta
            want[:k] = want[:k] + alpha * np.array([want[k - 2 - i] if i <= k - 2 else 0.0 for i in range(k)])
            want[k] = alpha
        assert_close(MlirCpuBackend(target=target).prepare(shifted, "f").run(args), [want], "shifted")


def test_stablehlo_vector_matrix_products_become_vecmats():
    """y^T A and A^T y as dot_general (atax, mvt): legalized to a linalg.generic, named a
    linalg.vecmat again (the op the mlir-cpu schedule walks row by row); the values are A^T y."""
    from synth.backends.stablehlo_linalg import to_linalg

    text = """
func.func @f(%a: tensor<6x5xf64>, %y: tensor<6xf64>) -> (tensor<5xf64>, tensor<5xf64>) attributes {synth.outputs = [0, 1]} {
  %0 = stablehlo.dot_general %a, %y, contracting_dims = [0] x [0] : (tensor<6x5xf64>, tensor<6xf64>) -> tensor<5xf64>
  %1 = stablehlo.dot_general %y, %a, contracting_dims = [0] x [0] : (tensor<6xf64>, tensor<6x5xf64>) -> tensor<5xf64>
  return %0, %1 : tensor<5xf64>, tensor<5xf64>
}
"""
    lowered = to_linalg(text)
    assert lowered.count("linalg.vecmat") == 2 and "reduction" not in lowered
    rng = np.random.default_rng(3)
    a, y = rng.uniform(-1, 1, (6, 5)), rng.uniform(-1, 1, 6)
    got = MlirCpuBackend(target="stablehlo").prepare(text, "f").run([a, y])
    assert_close(got, [a.T @ y, a.T @ y], "vecmat")


def _gram_schmidt(a: np.ndarray) -> list[np.ndarray]:
    """PolyBench gramschmidt's A, R and Q (modified Gram-Schmidt, in place on A)."""
    a = a.copy()
    n = a.shape[1]
    r, q = np.zeros((n, n)), np.zeros_like(a)
    for k in range(n):
        r[k, k] = np.sqrt(a[:, k] @ a[:, k])
        q[:, k] = a[:, k] / r[k, k]
        for j in range(k + 1, n):
            r[k, j] = q[:, k] @ a[:, j]
            a[:, j] -= q[:, k] * r[k, j]
    return [a, r, q]


def test_stablehlo_column_products_and_updates_lose_their_unit_dim():
    """gramschmidt's stablehlo raise (at 6 x 5) reads column k as a 6 x 1 slice reshaped to
    a vector; legalization and fusion wrote `q^T A` as a generic over 6 x 1 x 5 with two
    reduction dims (the mlir-cpu schedule has none for it: A walked by columns) and the
    update `A - q r^T` over 6 x 1 x 4 (a collapse between it and the columns kept, which
    stopped narrowing). Lowered now, the product is a linalg.vecmat, no generic reduces,
    and no generic computes a 3-d result; the values are NumPy's Gram-Schmidt."""
    from synth.backends.stablehlo_linalg import to_linalg

    text = (Path(__file__).parent / "data" / "unit_dims" / "gramschmidt_6x5.stablehlo.mlir").read_text()
    lowered = to_linalg(text)
    assert lowered.count("linalg.vecmat") == 1 and "reduction" not in lowered, lowered
    results = re.findall(r"\} -> tensor<([0-9x]+)xf64>", lowered)
    assert results and all(r.count("x") <= 1 for r in results), results
    a = np.random.default_rng(65).uniform(-1, 1, (6, 5))
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "f")
    got = prepared.run([np.array(6, np.int32), np.array(5, np.int32), a, np.zeros((5, 5)), np.zeros((6, 5))])
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    assert_close(got, _gram_schmidt(a), "gramschmidt")


def test_stablehlo_concatenates_become_inserts():
    """A concatenate of three operands, along dim 0 of vectors (trisolv's solved panels) and
    along dim 1 of matrices: lowered as inserts of each operand (no generic choosing an
    operand per element by scf.if); the values are NumPy's concatenate."""
    from synth.backends.stablehlo_linalg import to_linalg

    text = """
func.func @f(%a: tensor<3xf64>, %b: tensor<5xf64>, %m: tensor<4x2xf64>, %n: tensor<4x3xf64>) -> (tensor<11xf64>, tensor<4x7xf64>) attributes {synth.outputs = [0, 1]} {
  %0 = stablehlo.concatenate %a, %b, %a, dim = 0 : (tensor<3xf64>, tensor<5xf64>, tensor<3xf64>) -> tensor<11xf64>
  %1 = stablehlo.concatenate %n, %m, %m, dim = 1 : (tensor<4x3xf64>, tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<4x7xf64>
  return %0, %1 : tensor<11xf64>, tensor<4x7xf64>
}
"""
    lowered = to_linalg(text)
    assert "scf.if" not in lowered and "stablehlo" not in lowered
    assert lowered.count("tensor.insert_slice") == 6, lowered
    rng = np.random.default_rng(5)
    a, b, m, n = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 5), rng.uniform(-1, 1, (4, 2)), rng.uniform(-1, 1, (4, 3))
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "f")
    assert_close(prepared.run([a, b, m, n]), [np.concatenate([a, b, a]), np.concatenate([n, m, m], axis=1)],
                 "concatenate")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def test_stablehlo_block_less_a_product_accumulates_into_the_block():
    """X - L U (LU's trailing update: a dot_general, then a subtract) lowered as one
    linalg.matmul of -L and U accumulating into X, not a product into zeros and a second
    pass; the values are NumPy's within rounding."""
    from synth.backends.stablehlo_linalg import to_linalg

    text = """
func.func @f(%x: tensor<6x7xf64>, %l: tensor<6x3xf64>, %u: tensor<3x7xf64>) -> tensor<6x7xf64> attributes {synth.outputs = [0]} {
  %0 = stablehlo.dot_general %l, %u, contracting_dims = [1] x [0] : (tensor<6x3xf64>, tensor<3x7xf64>) -> tensor<6x7xf64>
  %1 = stablehlo.subtract %x, %0 : tensor<6x7xf64>
  return %1 : tensor<6x7xf64>
}
"""
    lowered = to_linalg(text)
    assert "linalg.fill" not in lowered and "arith.subf" not in lowered, lowered
    assert re.search(r"linalg\.matmul ins\(%\w+, %arg2 : [^)]*\) outs\(%arg0 :", lowered), lowered
    rng = np.random.default_rng(6)
    x, l, u = rng.uniform(-1, 1, (6, 7)), rng.uniform(-1, 1, (6, 3)), rng.uniform(-1, 1, (3, 7))
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "f")
    assert_close(prepared.run([x, l, u]), [x - l @ u], "x - l u")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


_MASKED_PRODUCT = """
func.func @f(%b: tensor<6x7xf64>, %a: tensor<5x6xf64>) -> tensor<7x5xf64> attributes {synth.outputs = [0]} {
  %i = stablehlo.iota dim = 0 : tensor<5x6xi64>
  %j = stablehlo.iota dim = 1 : tensor<5x6xi64>
  %lower = stablehlo.compare LT, %j, %i : (tensor<5x6xi64>, tensor<5x6xi64>) -> tensor<5x6xi1>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<5x6xf64>
  %tri = stablehlo.select %lower, %a, %zero : tensor<5x6xi1>, tensor<5x6xf64>
  %0 = stablehlo.dot_general %b, %tri, contracting_dims = [0] x [1] : (tensor<6x7xf64>, tensor<5x6xf64>) -> tensor<7x5xf64>
  return %0 : tensor<7x5xf64>
}
"""


def test_stablehlo_masked_operand_stays_out_of_its_product():
    """symm's product of B^T by the strict lower triangle of A (a select by iota, then a
    dot_general that legalizes to a linalg.generic): the select is computed before the
    product, which stays a multiply-add contraction (the form mlir-cpu's schedule tiles;
    with the select fused into it, symm at LARGE took 2.9 s instead of 0.17 s). The values
    are NumPy's."""
    from mlir import ir

    from synth.backends.contraction_operands import _contraction
    from synth.backends.ir_toolkit import ops_named
    from synth.backends.stablehlo_linalg import to_linalg

    lowered = to_linalg(_MASKED_PRODUCT)
    with ir.Context():
        module = ir.Module.parse(lowered)
        reductions = [op for op in ops_named(module, ["linalg.generic"])
                      if "reduction" in str(op.attributes["iterator_types"])]
        assert len(reductions) == 1 and _contraction(reductions[0]), lowered
        assert len(ops_named(module, ["linalg.copy"])) == 1, lowered
    rng = np.random.default_rng(8)
    b, a = rng.uniform(-1, 1, (6, 7)), rng.uniform(-1, 1, (5, 6))
    prepared = MlirCpuBackend(target="stablehlo").prepare(_MASKED_PRODUCT, "f")
    assert_close(prepared.run([b, a]), [b.T @ np.tril(a, -1).T], "b^T tril(a)^T")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def _triangular_solve(cols: int, lower: bool, unit: bool, transpose: bool, seed: int):
    """A stablehlo function solving a 5 x 5 triangular system for a 5 x `cols` matrix,
    inputs for it, and the triangle (as NumPy's solve reads it)."""
    attrs = (f"left_side = true, lower = {str(lower).lower()}, transpose_a = #stablehlo<transpose "
             f"{'TRANSPOSE' if transpose else 'NO_TRANSPOSE'}>, unit_diagonal = {str(unit).lower()}")
    text = f"""
func.func @f(%a: tensor<5x5xf64>, %b: tensor<5x{cols}xf64>) -> tensor<5x{cols}xf64> attributes {{synth.outputs = [1]}} {{
  %0 = "stablehlo.triangular_solve"(%a, %b) {{{attrs}}} : (tensor<5x5xf64>, tensor<5x{cols}xf64>) -> tensor<5x{cols}xf64>
  return %0 : tensor<5x{cols}xf64>
}}
"""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(-1, 1, (5, 5)) + 4 * np.eye(5), rng.uniform(-1, 1, (5, cols))
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        t = t - np.diag(np.diag(t)) + np.eye(5)
    return text, a, b, (t.T if transpose else t)


@pytest.mark.parametrize("lower,unit,transpose", [(True, False, False), (False, True, False),
                                                   (True, True, True), (False, False, True)])
def test_mlir_cpu_solves_triangular_systems_of_a_vector(lower, unit, transpose):
    """stablehlo.triangular_solve of an n x 1 matrix (as trisolv's blocks) through mlir-cpu:
    linalg's loop form of the solve, inlined; the values are NumPy's."""
    from synth.backends.stablehlo_linalg import to_linalg

    text, a, b, t = _triangular_solve(1, lower, unit, transpose, seed=9)
    assert "stablehlo.triangular_solve" not in to_linalg(text) and "linalg.dot" in to_linalg(text)
    got = MlirCpuBackend(target="stablehlo").prepare(text, "f").run([a, b])
    assert_close(got, [np.linalg.solve(t, b)], f"solve lower={lower} unit={unit} transpose={transpose}")


@pytest.mark.parametrize("rows, cols, lhs_dim", [(70, 80, 1), (70, 80, 0), (70, 40, 1)])
def test_mlir_cpu_copies_a_transposed_rhs_of_a_product(rows, cols, lhs_dim):
    """A dot_general of two matrices contracting the rhs along its dim 1 (A B^T, as syrk's
    A A^T) is a matmul of A by a transposed copy of B where B has at least the cache tile's
    64 rows (80), and stays a generic where it has fewer (40, Cholesky's panels); the
    values are NumPy's either way."""
    from synth.backends.stablehlo_linalg import to_linalg

    a_shape = (rows, 30) if lhs_dim == 1 else (30, rows)
    text = f"""
func.func @f(%a: tensor<{a_shape[0]}x{a_shape[1]}xf64>, %b: tensor<{cols}x30xf64>) -> tensor<{rows}x{cols}xf64> attributes {{synth.outputs = [0]}} {{
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [{lhs_dim}] x [1] : (tensor<{a_shape[0]}x{a_shape[1]}xf64>, tensor<{cols}x30xf64>) -> tensor<{rows}x{cols}xf64>
  return %0 : tensor<{rows}x{cols}xf64>
}}
"""
    lowered = to_linalg(text)
    assert ("linalg.matmul" in lowered) == (cols >= 64 and lhs_dim == 1)
    rng = np.random.default_rng(rows + cols + lhs_dim)
    a, b = rng.uniform(-1, 1, a_shape), rng.uniform(-1, 1, (cols, 30))
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "f")
    want = (a if lhs_dim == 1 else a.T) @ b.T
    assert_close(prepared.run([a, b]), [want], f"A B^T {rows}x{cols}, lhs contracted along {lhs_dim}")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


@pytest.mark.parametrize("lower", [True, False])
def test_mlir_cpu_solves_a_vector_by_panels_in_a_loop(lower):
    """stablehlo's triangular_solve of one vector at a size with a panel width (96, as
    trisolv's 2000), through mlir-cpu: linalg's solve, a forward substitution by panels of
    rows in an scf.for (each less a linalg.matvec of the rows solved before), not unrolled
    panels (stablehlo's own lowering, for XLA); a backward one by the row loop; the values
    are NumPy's."""
    from synth.backends.mlir_cpu import library_forms
    from synth.grammar import TensorType, ops_for
    from synth.grammar.op import attrs, emit_op_function

    op = next(o for o in ops_for("stablehlo") if o.name == "stablehlo.triangular_solve")
    text = emit_op_function(op, [TensorType((96, 96), "f64"), TensorType((96,), "f64")],
                            attrs(lower=lower, unit_diagonal=False, transpose_a=False))
    text = text.replace(") {", ") attributes {synth.outputs = [1]} {", 1)
    lowered = library_forms(text, "stablehlo")  # what mlir-cpu runs
    assert "stablehlo." not in lowered and ("linalg.matvec" in lowered) == lower
    rng = np.random.default_rng(13)
    a = rng.uniform(-1, 1, (96, 96)) / 96 + np.diag(rng.uniform(1, 2, 96))
    b = rng.uniform(-1, 1, 96)
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "main")
    t = np.tril(a) if lower else np.triu(a)
    assert_close(prepared.run([a, b]), [np.linalg.solve(t, b)], f"panels lower={lower}")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


@pytest.mark.parametrize("lower,unit", [(True, True), (True, False), (False, True), (False, False)])
def test_mlir_cpu_solves_triangular_systems_of_a_matrix(lower, unit):
    """stablehlo.triangular_solve of a 5 x 3 matrix (LU's panels, 50 x 1950 at LARGE)
    through mlir-cpu: a loop over the rows, each a vecmat of the rows solved before; the
    values are NumPy's."""
    from synth.backends.stablehlo_linalg import to_linalg

    text, a, b, t = _triangular_solve(3, lower, unit, False, seed=11)
    lowered = to_linalg(text)
    assert "stablehlo.triangular_solve" not in lowered and "linalg.vecmat" in lowered
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "f")
    assert_close(prepared.run([a, b]), [np.linalg.solve(t, b)], f"solve lower={lower} unit={unit}")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def test_mlir_cpu_names_the_stablehlo_it_cannot_lower():
    """An op left unlowered (a triangular solve of a matrix by the transposed triangle), and
    a while that is not a counted loop, are backend errors that name them."""
    from synth.backends.xla import run_stablehlo

    text = """
func.func @f(%a: tensor<4x4xf64>, %b: tensor<4x2xf64>) -> tensor<4x2xf64> attributes {synth.outputs = [1]} {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false} : (tensor<4x4xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
  return %0 : tensor<4x2xf64>
}
"""
    with pytest.raises(BACKEND_ERRORS, match="no lowering for stablehlo.triangular_solve"):
        MlirCpuBackend(target="stablehlo").prepare(text, "f")
    with pytest.raises(ValueError, match="linalg or stablehlo"):
        MlirCpuBackend(target="tosa")
    # a while doubling its counter is not a counted loop (one counting by 2, or bounded by an
    # argument, is: below; tests/test_counted_whiles.py has the others)
    doubling = _MASKED_WHILE.replace("%k1 = stablehlo.add %k, %one", "%k1 = stablehlo.multiply %k, %one")
    with pytest.raises(BACKEND_ERRORS, match="line 4:10: a stablehlo.while that is not a counted loop"):
        MlirCpuBackend(target="stablehlo").prepare(doubling, "f")
    by_two = _MASKED_WHILE.replace("%one = stablehlo.constant dense<1>", "%one = stablehlo.constant dense<2>")
    x, s = np.random.default_rng(6).uniform(-1, 1, 16), np.array(0.5)
    assert_close(MlirCpuBackend(target="stablehlo").prepare(by_two, "f").run([x, s]),
                 [np.asarray(a) for a in run_stablehlo(by_two.replace("@f(", "@main("), [x, s])], "by two")
    bounded = _MASKED_WHILE.replace("%s0: tensor<f64>)", "%s0: tensor<f64>, %n: tensor<i64>)").replace(
        "    %n = stablehlo.constant dense<16> : tensor<i64>\n", "")
    MlirCpuBackend(target="stablehlo").prepare(bounded, "f")  # an scf.for up to %n

ROW_PAIR = """
func.func @f(%a: tensor<21x19xf64>, %p: tensor<19xf64>, %r: tensor<21xf64>) -> (tensor<19xf64>, tensor<21xf64>)
    attributes {synth.outputs = [0, 1]} {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<19xf64>
  %f0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<19xf64>) -> tensor<19xf64>
  %s = linalg.vecmat ins(%r, %a : tensor<21xf64>, tensor<21x19xf64>) outs(%f0 : tensor<19xf64>) -> tensor<19xf64>
  %e1 = tensor.empty() : tensor<19xf64>
  %s2 = linalg.add ins(%s, %p : tensor<19xf64>, tensor<19xf64>) outs(%e1 : tensor<19xf64>) -> tensor<19xf64>
  %e2 = tensor.empty() : tensor<21xf64>
  %f2 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<21xf64>) -> tensor<21xf64>
  %q = linalg.matvec ins(%a, %p : tensor<21x19xf64>, tensor<19xf64>) outs(%f2 : tensor<21xf64>) -> tensor<21xf64>
  return %s2, %q : tensor<19xf64>, tensor<21xf64>
}
"""

# atax's shape: the vecmat reads the matvec's result, which is returned too
ROW_CHAIN = """
func.func @f(%a: tensor<21x19xf64>, %p: tensor<19xf64>) -> (tensor<19xf64>, tensor<21xf64>)
    attributes {synth.outputs = [0, 1]} {
  %zero = arith.constant 0.0 : f64
  %e2 = tensor.empty() : tensor<21xf64>
  %f2 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<21xf64>) -> tensor<21xf64>
  %q = linalg.matvec ins(%a, %p : tensor<21x19xf64>, tensor<19xf64>) outs(%f2 : tensor<21xf64>) -> tensor<21xf64>
  %e3 = tensor.empty() : tensor<19xf64>
  %f3 = linalg.fill ins(%zero : f64) outs(%e3 : tensor<19xf64>) -> tensor<19xf64>
  %t = linalg.vecmat ins(%q, %a : tensor<21xf64>, tensor<21x19xf64>) outs(%f3 : tensor<19xf64>) -> tensor<19xf64>
  return %t, %q : tensor<19xf64>, tensor<21xf64>
}
"""


def _top_level_loops(text: str, pairs: int) -> list[str]:
    """The scf.for ops at the top of the function after the backend's bufferizing passes."""
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(text)
        run_stages(module, bufferizing_pipeline(pairs=pairs))
        body = module.body.operations[0].regions[0].blocks[0]
        return [str(op) for op in body.operations if op.operation.name == "scf.for"]


def test_mlir_cpu_fuses_matvec_and_vecmat_rows_and_columns():
    """bicg's shape: `s = r A` and `q = A p` on one A, the matvec's operands defined
    after the vecmat: the matvec moves above the vecmat, and both run in one loop over
    blocks of 8 rows of A, then the last 5 rows (21 = 2 x 8 + 5); in the full blocks one
    loop over the columns (19 = 2 x 8 + 3) reads each 8 x 8 tile of A once for both
    products (vectorized: FMAs into s, a multiply-add into q's 8 partial sums per row);
    results as NumPy's."""
    from synth.backends.row_passes import fuse_rows

    paired = fuse_rows(ROW_PAIR)
    assert paired.pairs == 1 and paired.loops == 0
    text = paired.text
    assert text.count("synth.rows_mv") == text.count("synth.rows_vm") == 1
    assert text.index("linalg.matvec") < text.index("linalg.vecmat")
    loops = _top_level_loops(text, paired.pairs)
    full = loops[0]  # the full blocks of rows; the last rows' loops follow it
    assert full.startswith("scf.for %arg5 = %c0 to %c16 step %c8") and "synth.row_block" in full
    columns = [line for line in full.splitlines() if "scf.for" in line]
    assert len(columns) == 2 and "to %c16 step %c8" in columns[1]  # the last 3 columns peeled
    tile = full.split(columns[1])[1].split("scf.yield")[0]
    assert tile.count("vector.transfer_read %arg0") == 1 and "vector<8x8xf64>" in tile
    assert "vector.contract" in tile and "arith.mulf" in tile  # the vecmat's, the matvec's partial sums
    rng = np.random.default_rng(11)
    a, p, r = rng.uniform(-1, 1, (21, 19)), rng.uniform(-1, 1, 19), rng.uniform(-1, 1, 21)
    prepared = MlirCpuBackend().prepare(ROW_PAIR, "f")
    assert prepared.text == paired.text
    assert_close(prepared.run([a, p, r]), [r @ a + p, a @ p], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


# gemver's shape: A' = A + u v^T computed elementwise, then s = y A' and w = A' s, A' returned
ROW_PRODUCER = """
func.func @f(%a: tensor<21x19xf64>, %u: tensor<21xf64>, %v: tensor<19xf64>, %y: tensor<21xf64>)
    -> (tensor<21x19xf64>, tensor<19xf64>, tensor<21xf64>) attributes {synth.outputs = [0, 1, 2]} {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<21x19xf64>
  %bu = linalg.broadcast ins(%u : tensor<21xf64>) outs(%e0 : tensor<21x19xf64>) dimensions = [1]
  %e1 = tensor.empty() : tensor<21x19xf64>
  %bv = linalg.broadcast ins(%v : tensor<19xf64>) outs(%e1 : tensor<21x19xf64>) dimensions = [0]
  %e2 = tensor.empty() : tensor<21x19xf64>
  %uv = linalg.mul ins(%bu, %bv : tensor<21x19xf64>, tensor<21x19xf64>) outs(%e2 : tensor<21x19xf64>) -> tensor<21x19xf64>
  %e3 = tensor.empty() : tensor<21x19xf64>
  %a2 = linalg.add ins(%a, %uv : tensor<21x19xf64>, tensor<21x19xf64>) outs(%e3 : tensor<21x19xf64>) -> tensor<21x19xf64>
  %e4 = tensor.empty() : tensor<19xf64>
  %f4 = linalg.fill ins(%zero : f64) outs(%e4 : tensor<19xf64>) -> tensor<19xf64>
  %s = linalg.vecmat ins(%y, %a2 : tensor<21xf64>, tensor<21x19xf64>) outs(%f4 : tensor<19xf64>) -> tensor<19xf64>
  %e5 = tensor.empty() : tensor<21xf64>
  %f5 = linalg.fill ins(%zero : f64) outs(%e5 : tensor<21xf64>) -> tensor<21xf64>
  %w = linalg.matvec ins(%a2, %s : tensor<21x19xf64>, tensor<19xf64>) outs(%f5 : tensor<21xf64>) -> tensor<21xf64>
  return %a2, %s, %w : tensor<21x19xf64>, tensor<19xf64>, tensor<21xf64>
}
"""


def test_mlir_cpu_computes_a_vecmat_with_the_rows_of_its_elementwise_matrix():
    """gemver's shape: the vecmat of a matrix computed elementwise (A' = A + u v^T, also
    returned and read by a matvec after it) becomes one loop over blocks of 8 rows that
    computes the block of A', stores it and adds its part of y A' (the block read again
    from cache, not memory), then the last 5 rows; A' is written straight into its
    out-parameter (no copy of the matrix); results as NumPy's."""
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(ROW_PRODUCER)
        run_stages(module, bufferizing_pipeline())
        body = module.body.operations[0].regions[0].blocks[0]
        loops = [str(op) for op in body.operations if op.operation.name == "scf.for"]
        copies = [str(op) for op in body.operations if op.operation.name == "memref.copy"]
    block = next(loop for loop in loops if "to %c16 step %c8" in loop.splitlines()[0])
    assert "vector.contract" in block or "vector.fma" in block  # the vecmat of the block, vectorized
    assert "arith.addf" in block and "vector.transfer_write" in block  # A' rows computed and stored
    assert not any("21x19" in c for c in copies), copies
    rng = np.random.default_rng(13)
    a, u, v, y = rng.uniform(-1, 1, (21, 19)), rng.uniform(-1, 1, 21), rng.uniform(-1, 1, 19), rng.uniform(-1, 1, 21)
    prepared = MlirCpuBackend().prepare(ROW_PRODUCER, "f")
    a2 = a + np.outer(u, v)
    assert_close(prepared.run([a, u, v, y]), [a2, y @ a2, a2 @ (y @ a2)], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def test_mlir_cpu_fuses_a_vecmat_of_the_matvec_it_reads():
    """atax's shape: `q = A p`, `t = q A`, both returned: one loop over blocks of 8 rows
    computes q's rows of the block and adds their part of t, the block read once, then
    the last 5 rows the same way; both products vectorized in every block."""
    from synth.backends.row_passes import fuse_rows

    paired = fuse_rows(ROW_CHAIN)
    text = paired.text
    assert paired.loops == 1 and paired.pairs == 0 and "linalg.matvec" in text.split("scf.for")[1]
    loops = _top_level_loops(text, 0)
    assert len(loops) == 3  # the two full blocks of 8 rows; the last 5 rows' matvec and vecmat
    assert loops[0].startswith("scf.for %arg4 = %c0 to %c16 step %c8")
    assert "vector.multi_reduction" in loops[0] and "vector<8x8xf64>" in loops[0]
    assert "vector.contract" in loops[0] and "linalg.generic" not in loops[0]  # the vecmat vectorized too
    rng = np.random.default_rng(12)
    a, p = rng.uniform(-1, 1, (21, 19)), rng.uniform(-1, 1, 19)
    prepared = MlirCpuBackend().prepare(ROW_CHAIN, "f")
    assert prepared.text == text
    assert_close(prepared.run([a, p]), [(a @ p) @ a, a @ p], "mlir-cpu")
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason


def _triangle_blocks(text: str, target: str) -> int:
    """How many contractions synth.backends.triangles writes as blocks in the function `f`
    of `text`, in the mlir-cpu pipeline at the stage it runs at."""
    from synth.backends.triangles import triangular_blocks
    from synth.backends.passes import TRIANGLES

    return _rewrites_at_stage(text, target, TRIANGLES, triangular_blocks)


# trmm's form: B + (A^T masked to k > i) B, n = 76 rows (2 blocks of 32 and 12 left over)
_TRMM = """
func.func @f(%a: tensor<76x76xf64>, %b: tensor<76x28xf64>) -> tensor<76x28xf64> attributes {synth.outputs = [1]} {
  %0 = stablehlo.iota dim = 1 : tensor<76x76xi64>
  %1 = stablehlo.iota dim = 0 : tensor<76x76xi64>
  %2 = stablehlo.compare GT, %0, %1 : (tensor<76x76xi64>, tensor<76x76xi64>) -> tensor<76x76xi1>
  %3 = stablehlo.transpose %a, dims = [1, 0] : (tensor<76x76xf64>) -> tensor<76x76xf64>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
  %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<76x76xf64>
  %5 = stablehlo.select %2, %3, %4 : tensor<76x76xi1>, tensor<76x76xf64>
  %6 = stablehlo.dot_general %5, %b, contracting_dims = [1] x [0] : (tensor<76x76xf64>, tensor<76x28xf64>) -> tensor<76x28xf64>
  %7 = stablehlo.add %b, %6 : tensor<76x28xf64>
  return %7 : tensor<76x28xf64>
}
"""

# syrk's form: C + A A^T on and below the diagonal, C above it
_SYRK = """
func.func @f(%c: tensor<76x76xf64>, %a: tensor<76x20xf64>) -> tensor<76x76xf64> attributes {synth.outputs = [0]} {
  %0 = stablehlo.iota dim = 1 : tensor<76x76xi64>
  %1 = stablehlo.iota dim = 0 : tensor<76x76xi64>
  %2 = stablehlo.compare LE, %0, %1 : (tensor<76x76xi64>, tensor<76x76xi64>) -> tensor<76x76xi1>
  %3 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [1] : (tensor<76x20xf64>, tensor<76x20xf64>) -> tensor<76x76xf64>
  %4 = stablehlo.add %c, %3 : tensor<76x76xf64>
  %5 = stablehlo.select %2, %4, %c : tensor<76x76xi1>, tensor<76x76xf64>
  return %5 : tensor<76x76xf64>
}
"""

# syr2k's linalg form: the product transposed before the select keeps it above the diagonal
_TRANSPOSED = """
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%c: tensor<76x76xf64>, %a: tensor<76x20xf64>, %b: tensor<20x76xf64>) -> tensor<76x76xf64> attributes {synth.outputs = [0]} {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<76x76xf64>
  %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<76x76xf64>) -> tensor<76x76xf64>
  %2 = linalg.matmul ins(%a, %b : tensor<76x20xf64>, tensor<20x76xf64>) outs(%1 : tensor<76x76xf64>) -> tensor<76x76xf64>
  %3 = tensor.empty() : tensor<76x76xf64>
  %t = linalg.transpose ins(%2 : tensor<76x76xf64>) outs(%3 : tensor<76x76xf64>) permutation = [1, 0]
  %4 = tensor.empty() : tensor<76x76xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%c, %t : tensor<76x76xf64>, tensor<76x76xf64>) outs(%4 : tensor<76x76xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi sle, %i, %j : index
    %s = arith.addf %x, %y : f64
    %r = arith.select %le, %s, %x : f64
    linalg.yield %r : f64
  } -> tensor<76x76xf64>
  return %5 : tensor<76x76xf64>
}
"""

# covariance's form: the product kept on and above the diagonal, that part then scaled on
# the diagonal (both branches of that select read it) and mirrored below
_MIRRORED = """
func.func @f(%c: tensor<76x76xf64>, %a: tensor<20x76xf64>) -> tensor<76x76xf64> attributes {synth.outputs = [0]} {
  %0 = stablehlo.iota dim = 1 : tensor<76x76xi64>
  %1 = stablehlo.iota dim = 0 : tensor<76x76xi64>
  %2 = stablehlo.compare GE, %0, %1 : (tensor<76x76xi64>, tensor<76x76xi64>) -> tensor<76x76xi1>
  %3 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0] : (tensor<20x76xf64>, tensor<20x76xf64>) -> tensor<76x76xf64>
  %4 = stablehlo.add %c, %3 : tensor<76x76xf64>
  %5 = stablehlo.select %2, %4, %c : tensor<76x76xi1>, tensor<76x76xf64>
  %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
  %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<76x76xf64>
  %7 = stablehlo.divide %5, %6 : tensor<76x76xf64>
  %8 = stablehlo.compare EQ, %0, %1 : (tensor<76x76xi64>, tensor<76x76xi64>) -> tensor<76x76xi1>
  %9 = stablehlo.select %8, %7, %5 : tensor<76x76xi1>, tensor<76x76xf64>
  %10 = stablehlo.transpose %9, dims = [1, 0] : (tensor<76x76xf64>) -> tensor<76x76xf64>
  %11 = stablehlo.compare GT, %1, %0 : (tensor<76x76xi64>, tensor<76x76xi64>) -> tensor<76x76xi1>
  %12 = stablehlo.select %11, %10, %9 : tensor<76x76xi1>, tensor<76x76xf64>
  return %12 : tensor<76x76xf64>
}
"""


def _triangle_cases():
    """(name, text, target, its arrays at seed `rng`, NumPy's result, rewrites expected)."""
    def trmm(rng):
        a, b = rng.uniform(-1, 1, (76, 76)), rng.uniform(-1, 1, (76, 28))
        return [a, b], b + np.triu(a.T, 1) @ b

    def syrk(rng):
        c, a = rng.uniform(-1, 1, (76, 76)), rng.uniform(-1, 1, (76, 20))
        return [c, a], np.where(np.tri(76, dtype=bool), c + a @ a.T, c)

    def transposed(rng):
        c, a, b = rng.uniform(-1, 1, (76, 76)), rng.uniform(-1, 1, (76, 20)), rng.uniform(-1, 1, (20, 76))
        return [c, a, b], np.where(np.tri(76, dtype=bool).T, c + (a @ b).T, c)

    # the diagonal too (k >= i); the product kept where a select does not take its other value
    diagonal = _TRMM.replace("compare GT", "compare GE")

    def trmm_diagonal(rng):
        a, b = rng.uniform(-1, 1, (76, 76)), rng.uniform(-1, 1, (76, 28))
        return [a, b], b + np.triu(a.T) @ b
    negated = _TRANSPOSED.replace("%le = arith.cmpi sle, %i, %j : index", "%le = arith.cmpi sgt, %i, %j : index") \
        .replace("%r = arith.select %le, %s, %x : f64", "%r = arith.select %le, %x, %s : f64")

    def mirrored(rng):
        c, a = rng.uniform(-1, 1, (76, 76)), rng.uniform(-1, 1, (20, 76))
        upper = np.triu(np.ones((76, 76), dtype=bool))
        kept = np.where(upper, c + a.T @ a, c)
        kept = np.where(np.eye(76, dtype=bool), kept / 2, kept)
        return [c, a], np.where(upper, kept, kept.T)

    # not triangles: a mask off the diagonal only (NE), a product also returned whole
    off_diagonal = _TRMM.replace("compare GT", "compare NE")

    def off(rng):
        a, b = rng.uniform(-1, 1, (76, 76)), rng.uniform(-1, 1, (76, 28))
        return [a, b], b + (a.T - np.diag(np.diag(a))) @ b
    both = _SYRK.replace("-> tensor<76x76xf64> attributes {synth.outputs = [0]}",
                         "-> (tensor<76x76xf64>, tensor<76x76xf64>) attributes {synth.outputs = [0, 0]}") \
        .replace("return %5 : tensor<76x76xf64>", "return %5, %3 : tensor<76x76xf64>, tensor<76x76xf64>")

    def whole(rng):
        c, a = rng.uniform(-1, 1, (76, 76)), rng.uniform(-1, 1, (76, 20))
        return [c, a], [np.where(np.tri(76, dtype=bool), c + a @ a.T, c), a @ a.T]
    return [("trmm", _TRMM, "stablehlo", trmm, 1), ("syrk", _SYRK, "stablehlo", syrk, 1),
            ("transposed", _TRANSPOSED, "linalg", transposed, 1), ("diagonal", diagonal, "stablehlo", trmm_diagonal, 1),
            ("negated", negated, "linalg", transposed, 1), ("mirrored", _MIRRORED, "stablehlo", mirrored, 1),
            ("off-diagonal", off_diagonal, "stablehlo", off, 0), ("returned whole", both, "stablehlo", whole, 0)]


@pytest.mark.parametrize("case", _triangle_cases(), ids=lambda c: c[0])
def test_contractions_over_a_triangle_compute_only_its_blocks(case):
    """A product with an operand masked to a triangle (trmm's A^T above the diagonal) or
    of which a select keeps a triangle (syrk's, syr2k's through a transpose, covariance's
    through nested selects) is computed
    by blocks of 32 rows, over the triangle's part only (one rewrite); the values are NumPy's
    and those of the pipeline without the rewrite (the products skipped are by exact zeros,
    or not kept; the others add in the same order, an edge tile may fuse a multiply-add the
    other rounds twice). A mask that is not a triangle, or a product also used whole, is
    not rewritten."""
    from synth.backends.passes import TRIANGLES

    name, text, target, arrays, rewrites = case
    assert _triangle_blocks(text, target) == rewrites
    args, want = arrays(np.random.default_rng(76))
    prepared = MlirCpuBackend(target=target).prepare(text, "f")
    got = prepared.run(args)
    assert prepared.pipeline_name == "tiled", prepared.fallback_reason
    assert_close(got, want if isinstance(want, list) else [want], name)
    without = prepared.pipeline.without(TRIANGLES)
    assert without != prepared.pipeline
    for g, w in zip(got, MlirCpuBackend(pipeline=without, target=target).prepare(text, "f").run(args)):
        np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-15)


def test_a_run_time_step_count_lowers_to_a_loop_on_mlir_cpu(tmp_path):
    """jacobi-1d raised generic to stablehlo takes its step count at run time (the
    stablehlo.while's bound is a value computed from the argument): mlir-cpu lowers that
    while to an scf.for with that bound, and the result equals the original's at 3 and 11
    steps."""
    from synth.backends.mlir_cpu import MlirCpuBackend
    from synth.execution import run_function

    path = tmp_path / "j.mlir"
    src = Path(__file__).resolve().parent.parent / "benchmarks/polybench/jacobi-1d.mlir"
    assert main(["raise", str(src), "--target", "stablehlo", "-o", str(path), "-q"]) == 0
    text = path.read_text()
    prepared = MlirCpuBackend(target="stablehlo").prepare(text, "kernel_jacobi_1d")
    rng = np.random.default_rng(5)
    for steps in (3, 11):
        a, b = rng.uniform(-1, 1, 2000), rng.uniform(-1, 1, 2000)
        args = [("i32", steps), ("i32", 2000), a, b]
        want = run_function(src.read_text(), "kernel_jacobi_1d",
                            [x.copy() if isinstance(x, np.ndarray) else x for x in args], opt_level=2).outputs
        assert_close(prepared.run(args), [want[2], want[3]], f"mlir-cpu at {steps} steps")


def test_mlir_cpu_runs_two_results_that_bufferize_to_one_buffer():
    """The tiled pipeline crashed (SIGSEGV in buffer-results-to-out-params) on two equal
    results one buffer holds after bufferization (dtrmv_lower's x and tmp); a copy is
    returned at the second now (synth-distinct-result-buffers)."""
    from test_execution import TWO_RESULTS_ONE_BUFFER

    text = TWO_RESULTS_ONE_BUFFER.replace(
        "(%L: tensor<3x3xf64>, %x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {",
        "(%L: tensor<3x3xf64>, %x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) "
        "attributes {synth.outputs = [1, 2]} {")
    prepared = MlirCpuBackend().prepare(text, "f")
    L, x = np.arange(1.0, 10.0).reshape(3, 3), np.array([1.0, -2.0, 0.5])
    first, second = prepared.run([L, x, np.zeros(3)])
    assert prepared.pipeline_name == "tiled" and prepared.fallback_reason is None
    np.testing.assert_allclose(first, np.tril(L) @ x)
    np.testing.assert_allclose(second, np.tril(L) @ x)
