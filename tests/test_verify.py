"""`synth verify`: synth's own raised outputs verify for every size (level all) and at bounded sizes (level z3); hand-made mutants are
rejected (exit 4) with a counterexample, one of them (a comparison against 1e-300) only by
the proof; contract violations are bad input (exit 2); the raised-function interpreter
agrees with XLA / the ExecutionEngine at random points; re-instantiation, tolerance and
the staged proof (sqrt facts, nonzero denominators) behave as documented."""

import time

import numpy as np
import pytest
import z3

import synth.validation.verify
from conftest import DATA, POLYBENCH
from synth import cli
from synth.semantics import support as support
from synth.semantics import z3sem
from synth.semantics.raised import keep_functions, load_raised, resize_text
from synth.backends.run import run_raised
from synth.numerics import first_difference
from synth.validation.verify import prove_equal, verify


MUTANTS = DATA / "mutants"
KERNELS = ("gemm", "mvt", "atax", "bicg")
TARGETS = ("stablehlo", "linalg")


def _original(kernel: str):
    path = POLYBENCH / f"{kernel}.mlir"
    return path if path.exists() else MUTANTS / f"{kernel}.mlir"


def _verify_cli(capsys, original, raised, *extra):
    t0 = time.monotonic()
    rc = cli.main(["verify", str(original), str(raised), *extra])
    captured = capsys.readouterr()
    return rc, captured.out + captured.err, time.monotonic() - t0


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    """(kernel, target) -> path of synth's raised module, raised once per test module."""
    root = tmp_path_factory.mktemp("raised")
    cache = {}

    def get(kernel: str, target: str):
        if (kernel, target) not in cache:
            out = root / f"{kernel}.{target}.mlir"
            rc = cli.main(["raise", str(POLYBENCH / f"{kernel}.mlir"), "--target", target, "--shapes", "static",
                           "-o", str(out)])  # the textual re-instantiation of static raises
            assert rc == 0, f"raising {kernel} to {target} failed"
            cache[(kernel, target)] = out
        return cache[(kernel, target)]
    return get


# synth's own outputs -------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_raised_kernel_verifies(raised, capsys, record_property, kernel, target):
    path = raised(kernel, target)
    rc, out, seconds = _verify_cli(capsys, POLYBENCH / f"{kernel}.mlir", path)
    record_property("verify_seconds", round(seconds, 2))
    assert rc == 0, out
    assert "EQUIVALENT (level all)" in out and "proven by Z3 (unsat) for every size" in out, out
    assert "exact real arithmetic" in out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_raised_kernel_bounded_level(raised, kernel, target):
    report = verify(POLYBENCH / f"{kernel}.mlir", raised(kernel, target), level="z3", test_first=False)
    assert report.equivalent and report.level == "z3" and report.proof == "bounded sizes", report.summary()
    assert report.sizes_proven and report.sizes_proven[0]["arg0"] == 2


# mutants ---------------------------------------------------------------------------------------

# file -> (exit code of synth verify, the level that decides at its default level "all")
MUTANT_TABLE = {
    "relu.max.stablehlo.mlir": (0, "all"),
    "relu.max.linalg.mlir": (0, "all"),
    "relu.eps.stablehlo.mlir": (4, "z3"),
    "relu.eps.linalg.mlir": (4, "z3"),
    "diff.ok.stablehlo.mlir": (0, "all"),
    "diff.ok.linalg.mlir": (0, "all"),
    "diff.farrows.stablehlo.mlir": (4, "test"),
    "diff.shift.stablehlo.mlir": (4, "test"),
    "diff.swapsub.stablehlo.mlir": (4, "test"),
    "diff.swapsub.linalg.mlir": (4, "test"),
    "diff.perm.stablehlo.mlir": (4, "test"),
    "diff.perm.linalg.mlir": (4, "test"),
    "gemm.noalpha.stablehlo.mlir": (4, "test"),
    "gemm.noalpha.linalg.mlir": (4, "test"),
    "gemm.rows.stablehlo.mlir": (0, "all"),
    "gemm.rows.linalg.mlir": (0, "all"),
    "gemm.lastrow.stablehlo.mlir": (4, "test"),
    "gemm.lastrow.linalg.mlir": (4, "test"),
    "mvt.swapdot.stablehlo.mlir": (4, "test"),
    "mvt.contract.stablehlo.mlir": (4, "test"),
    "mvt.matvec.linalg.mlir": (4, "test"),
    "atax.dropped.stablehlo.mlir": (4, "test"),
    "atax.dropped.linalg.mlir": (4, "test"),
}
# wrong only at sizes >= 5: the bounded proof (sizes 2 and 3) accepts them, the all-size one does not
ALL_SIZES_ONLY = {"diff.farrows.stablehlo.mlir", "diff.shift.stablehlo.mlir"}


def test_mutant_table_covers_the_files():
    assert set(MUTANT_TABLE) == {p.name for p in MUTANTS.glob("*.*.*.mlir")}


@pytest.mark.parametrize("name", list(MUTANT_TABLE))
def test_mutant_cli(capsys, record_property, name):
    want_rc, want_level = MUTANT_TABLE[name]
    rc, out, seconds = _verify_cli(capsys, _original(name.split(".")[0]), MUTANTS / name)
    record_property("verify_seconds", round(seconds, 2))
    assert rc == want_rc, out
    if want_rc == 4:
        assert f"NOT EQUIVALENT (found at level {want_level})" in out, out
        assert "counterexample at sizes" in out
    else:
        assert f"EQUIVALENT (level {want_level})" in out, out


@pytest.mark.parametrize("name", list(MUTANT_TABLE))
def test_mutant_z3_alone(name):
    """The bounded proof decides every mutant by itself (testing skipped), except those
    wrong only at sizes it does not reach."""
    want_rc, _ = MUTANT_TABLE[name]
    report = verify(_original(name.split(".")[0]), MUTANTS / name, level="z3", test_first=False)
    assert report.level == "z3"
    assert report.equivalent == (want_rc == 0 or name in ALL_SIZES_ONLY), report.summary()
    if not report.equivalent:
        cex = report.counterexample
        assert cex.level == "z3" and cex.original != cex.raised and cex.inputs


@pytest.mark.parametrize("name", list(MUTANT_TABLE))
def test_mutant_all_sizes_alone(name):
    """Level "all" without testing rejects every wrong mutant, those wrong only at sizes >= 5
    included (its possible difference at sizes 5.. is confirmed by the bounded proof
    there), and proves the right ones for every size where they stay in its model."""
    want_rc, want_level = MUTANT_TABLE[name]
    report = verify(_original(name.split(".")[0]), MUTANTS / name, level="all", test_first=False)
    assert report.equivalent == (want_rc == 0), report.summary()
    if want_rc == 0:
        assert report.level == want_level, report.summary()
        assert report.proof == ("all sizes" if want_level == "all" else "bounded sizes")
    else:
        assert report.proof == "none" and report.counterexample.level == "z3"
    if name in ALL_SIZES_ONLY:
        assert min(report.counterexample.sizes.values()) >= 5, report.summary()
        assert "all-size proof: unknown" in report.summary()


def test_comparison_constant_escapes_testing(capsys):
    """relu with `A > 1e-300`: every input set passes the tolerance, the proof finds
    0 < A <= 1e-300."""
    rc, out, _ = _verify_cli(capsys, MUTANTS / "relu.mlir", MUTANTS / "relu.eps.stablehlo.mlir",
                             "--level", "test")
    assert rc == 0, out
    report = verify(MUTANTS / "relu.mlir", MUTANTS / "relu.eps.stablehlo.mlir", test_first=False)
    cex = report.counterexample
    assert cex.output == "arg3" and cex.raised == "0.0"
    (name, value), = cex.inputs.items()
    assert name == f"arg2[{','.join(map(str, cex.index))}]"
    assert 0 < float(value.lstrip("~").split()[0]) <= 1e-300


def test_dropped_output_counterexample():
    report = verify(POLYBENCH / "atax.mlir", MUTANTS / "atax.dropped.stablehlo.mlir", test_first=False)
    assert report.verdict == "not equivalent" and report.counterexample.output == "arg5"
    assert "arg5[" in report.summary()


# bad input ---------------------------------------------------------------------------------------


def _edited(tmp_path, source_name: str, old: str, new: str):
    text = (MUTANTS / source_name).read_text()
    assert old in text
    path = tmp_path / source_name
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("old,new,message", [
    ("@kernel_diff_raised", "@other_raised", "no function @kernel_diff_raised"),
    (" attributes {synth.outputs = [3]}", "", "no `synth.outputs`"),
    # the result claimed as A's final contents: a semantic difference (and C is dropped)
    ("synth.outputs = [3]", "synth.outputs = [1]", None),
    ("%arg0: tensor<i32>", "%arg0: tensor<i64>", "argument #0"),
    ("stablehlo.subtract %arg1, %0", "stablehlo.subtract %arg1, %zz", "diff.ok.stablehlo.mlir:4:"),
])
def test_bad_raised_module(tmp_path, capsys, old, new, message):
    path = _edited(tmp_path, "diff.ok.stablehlo.mlir", old, new)
    rc, out, _ = _verify_cli(capsys, MUTANTS / "diff.mlir", path)
    if message is None:
        assert rc == 4, out
        return
    assert rc == 2, out
    assert message in out


def test_unsupported_op_is_bad_input(tmp_path, capsys):
    """An op the interpreter does not model (here unused, so testing passes) stops the
    proof with exit 2 at the op's FILE:LINE:COL; it is never skipped."""
    path = tmp_path / "relu.cbrt.stablehlo.mlir"
    path.write_text((MUTANTS / "relu.max.stablehlo.mlir").read_text().replace(
        "  return %0", "  %1 = stablehlo.cbrt %arg2 : tensor<1000x1200xf64>\n  return %0"))
    rc, out, _ = _verify_cli(capsys, MUTANTS / "relu.mlir", path, "--level", "test")
    assert rc == 0, out
    rc, out, _ = _verify_cli(capsys, MUTANTS / "relu.mlir", path)
    assert rc == 2, out
    assert f"{path}:5:8: error: the raised-function interpreter does not support 'stablehlo.cbrt'" in out


def test_missing_files(tmp_path, capsys):
    rc, out, _ = _verify_cli(capsys, tmp_path / "none.mlir", MUTANTS / "diff.ok.stablehlo.mlir")
    assert rc == 2 and "no such file" in out
    rc, out, _ = _verify_cli(capsys, MUTANTS / "diff.mlir", tmp_path / "none.mlir")
    assert rc == 2 and "no such file" in out


# the interpreter against execution -----------------------------------------------------------------

OPS_STABLEHLO = """
func.func @ops_raised(%a: tensor<3x4xf64>, %b: tensor<2x4x5xf64>, %c: tensor<2x5x3xf64>, %s: tensor<f64>, %n: tensor<i32>) -> (tensor<4x2x3x5xf64>, tensor<3xf64>, tensor<2x4xf64>, tensor<3x4xf64>, tensor<6x4xf64>, tensor<7x4xf64>, tensor<2x4x3xf64>, tensor<4xf64>, tensor<12xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<f64>, tensor<2x3xf64>) {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<3x4xf64>, tensor<2x4x5xf64>) -> tensor<3x2x5xf64>
  %bb = stablehlo.broadcast_in_dim %d, dims = [2, 1, 3] : (tensor<3x2x5xf64>) -> tensor<4x2x3x5xf64>
  %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
  %r = stablehlo.reduce(%a init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<3x4xf64>, tensor<f64>) -> tensor<3xf64>
  %sl = stablehlo.slice %a [1:3, 0:4:1] : (tensor<3x4xf64>) -> tensor<2x4xf64>
  %io = stablehlo.iota dim = 1 : tensor<3x4xf64>
  %half = stablehlo.constant dense<0.5> : tensor<3x4xf64>
  %io2 = stablehlo.multiply %io, %half : tensor<3x4xf64>
  %cmp = stablehlo.compare LT, %a, %io2, FLOAT : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xi1>
  %neg = stablehlo.negate %a : tensor<3x4xf64>
  %sel = stablehlo.select %cmp, %neg, %io2 : tensor<3x4xi1>, tensor<3x4xf64>
  %cc = stablehlo.concatenate %a, %sel, dim = 0 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<6x4xf64>
  %z = stablehlo.constant dense<2.5> : tensor<f64>
  %p = stablehlo.pad %a, %z, low = [1, 0], high = [1, 0], interior = [1, 0] : (tensor<3x4xf64>, tensor<f64>) -> tensor<7x4xf64>
  %bm = stablehlo.dot_general %b, %c, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x5xf64>, tensor<2x5x3xf64>) -> tensor<2x4x3xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %red = stablehlo.reduce(%b init: %zero) applies stablehlo.add across dimensions = [0, 2] : (tensor<2x4x5xf64>, tensor<f64>) -> tensor<4xf64>
  %rs = stablehlo.reshape %a : (tensor<3x4xf64>) -> tensor<12xf64>
  %ab = stablehlo.abs %a : tensor<3x4xf64>
  %sq = stablehlo.sqrt %ab : tensor<3x4xf64>
  %ex = stablehlo.exponential %a : tensor<3x4xf64>
  %dv = stablehlo.divide %sq, %ex : tensor<3x4xf64>
  %lo = stablehlo.constant dense<-0.25> : tensor<f64>
  %hi = stablehlo.constant dense<0.25> : tensor<f64>
  %cl = stablehlo.clamp %lo, %a, %hi : (tensor<f64>, tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
  %nf = stablehlo.convert %n : (tensor<i32>) -> tensor<f64>
  %ns = stablehlo.multiply %nf, %s : tensor<f64>
  %rv = stablehlo.reverse %a, dims = [0] : tensor<3x4xf64>
  %tr = stablehlo.transpose %rv, dims = [1, 0] : (tensor<3x4xf64>) -> tensor<4x3xf64>
  %mn = stablehlo.minimum %tr, %tr : tensor<4x3xf64>
  %sl2 = stablehlo.slice %mn [0:4:2, 0:3] : (tensor<4x3xf64>) -> tensor<2x3xf64>
  return %bb, %r, %sl, %sel, %cc, %p, %bm, %red, %rs, %dv, %cl, %ns, %sl2 : tensor<4x2x3x5xf64>, tensor<3xf64>, tensor<2x4xf64>, tensor<3x4xf64>, tensor<6x4xf64>, tensor<7x4xf64>, tensor<2x4x3xf64>, tensor<4xf64>, tensor<12xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<f64>, tensor<2x3xf64>
}
"""

OPS_LINALG = """
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @ops_raised(%a: tensor<3x4xf64>, %b: tensor<2x4x5xf64>, %c: tensor<2x5x3xf64>, %v: tensor<4xf64>, %s: tensor<f64>) -> (tensor<2x4x3xf64>, tensor<f64>, tensor<3xf64>, tensor<4x3xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3xf64>, tensor<3x4xf64>, tensor<2x4xf64>, tensor<12xf64>) {
  %zero = arith.constant 0.0 : f64
  %pinf = arith.constant 0x7FF0000000000000 : f64
  %e0 = tensor.empty() : tensor<2x4x3xf64>
  %f0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<2x4x3xf64>) -> tensor<2x4x3xf64>
  %bm = linalg.batch_matmul ins(%b, %c : tensor<2x4x5xf64>, tensor<2x5x3xf64>) outs(%f0 : tensor<2x4x3xf64>) -> tensor<2x4x3xf64>
  %e1 = tensor.empty() : tensor<f64>
  %f1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<f64>) -> tensor<f64>
  %dt = linalg.dot ins(%v, %v : tensor<4xf64>, tensor<4xf64>) outs(%f1 : tensor<f64>) -> tensor<f64>
  %e2 = tensor.empty() : tensor<3xf64>
  %f2 = linalg.fill ins(%pinf : f64) outs(%e2 : tensor<3xf64>) -> tensor<3xf64>
  %rmin = linalg.reduce ins(%a : tensor<3x4xf64>) outs(%f2 : tensor<3xf64>) dimensions = [1]
    (%x: f64, %acc: f64) {
      %y = arith.minimumf %x, %acc : f64
      linalg.yield %y : f64
    }
  %e3 = tensor.empty() : tensor<4x3xf64>
  %tr = linalg.transpose ins(%a : tensor<3x4xf64>) outs(%e3 : tensor<4x3xf64>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<3x4xf64>
  %bc = linalg.broadcast ins(%v : tensor<4xf64>) outs(%e4 : tensor<3x4xf64>) dimensions = [0]
  %e5 = tensor.empty() : tensor<3x4xf64>
  %ex = linalg.exp ins(%a : tensor<3x4xf64>) outs(%e5 : tensor<3x4xf64>) -> tensor<3x4xf64>
  %dv = linalg.div ins(%bc, %ex : tensor<3x4xf64>, tensor<3x4xf64>) outs(%e5 : tensor<3x4xf64>) -> tensor<3x4xf64>
  %ng = linalg.negf ins(%dv : tensor<3x4xf64>) outs(%e5 : tensor<3x4xf64>) -> tensor<3x4xf64>
  %mx = linalg.max ins(%ng, %a : tensor<3x4xf64>, tensor<3x4xf64>) outs(%e5 : tensor<3x4xf64>) -> tensor<3x4xf64>
  %e6 = tensor.empty() : tensor<3xf64>
  %f6 = linalg.fill ins(%zero : f64) outs(%e6 : tensor<3xf64>) -> tensor<3xf64>
  %rs = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<3x4xf64>) outs(%f6 : tensor<3xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f64
    %t = arith.mulf %x, %jf : f64
    %u = arith.addf %acc, %t : f64
    linalg.yield %u : f64
  } -> tensor<3xf64>
  %e7 = tensor.empty() : tensor<3x4xf64>
  %sc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s, %a : tensor<f64>, tensor<3x4xf64>) outs(%e7 : tensor<3x4xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %p = arith.cmpf olt, %y, %zero : f64
    %m = arith.mulf %x, %y : f64
    %q = arith.select %p, %m, %y : f64
    linalg.yield %q : f64
  } -> tensor<3x4xf64>
  %es = tensor.extract_slice %a[1, 0] [2, 4] [1, 1] : tensor<3x4xf64> to tensor<2x4xf64>
  %cl = tensor.collapse_shape %a [[0, 1]] : tensor<3x4xf64> into tensor<12xf64>
  return %bm, %dt, %rmin, %tr, %bc, %mx, %rs, %sc, %es, %cl : tensor<2x4x3xf64>, tensor<f64>, tensor<3xf64>, tensor<4x3xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3xf64>, tensor<3x4xf64>, tensor<2x4xf64>, tensor<12xf64>
}
"""


def _interpreted_vs_executed(rf, seed: int = 0) -> int:
    """Evaluate the z3 semantics of `rf` at random inputs and compare with running it."""
    sig = rf.signature()
    rng = np.random.default_rng(seed)
    symbols, inputs = [], []
    for i, t in enumerate(sig.arguments):
        if t.dtype.startswith("f"):
            symbols.append(z3sem.symbols(f"x{i}", t.shape, "f64"))
            inputs.append(np.asarray(rng.uniform(-1, 1, t.shape)))
        else:
            symbols.append(z3sem.symbols(f"x{i}", t.shape, "i64"))
            inputs.append(np.asarray(rng.integers(1, 5, t.shape), dtype=np.int32 if t.dtype == "i32" else np.int64))
    terms = rf.evaluate(symbols)
    bindings = {s[idx].get_id(): v[idx].item() for s, v in zip(symbols, inputs) for idx in np.ndindex(*s.shape)}
    executed = run_raised(rf.dialect, rf.text, rf.name, inputs)
    assert len(terms) == len(executed) == len(sig.results)
    for k, (t, e) in enumerate(zip(terms, executed)):
        e = np.asarray(e)
        values = np.array(support.evaluate(list(t.reshape(-1)), bindings), dtype=e.dtype).reshape(t.shape)
        assert values.shape == e.shape, k
        assert np.allclose(values, e, rtol=1e-9, atol=1e-12), (k, values, e)
    return len(terms)


@pytest.mark.parametrize("text", [OPS_STABLEHLO, OPS_LINALG], ids=TARGETS)
def test_interpreter_ops_match_execution(tmp_path, text):
    path = tmp_path / "ops.mlir"
    path.write_text(text)
    assert _interpreted_vs_executed(load_raised(path, "ops_raised")) >= 10


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", ("gemm", "atax"))
def test_interpreter_matches_execution_at_small_sizes(raised, kernel, target):
    rf = load_raised(raised(kernel, target), f"kernel_{kernel}_raised")
    sizes = sorted({d for t in rf.signature().arguments if t.shape for d in t.shape})
    small = rf.resized({v: 3 + k for k, v in enumerate(sizes)})
    assert _interpreted_vs_executed(small) >= 1


# pieces ----------------------------------------------------------------------------------------------


def test_resize_text_maps_sizes_only():
    text = ("%0 = stablehlo.slice %5 [0:999, 0:1100] : (tensor<1000x1100xf64>) -> tensor<999x1100xf64>\n"
            "%1 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<1x1100xf64>) -> tensor<1000x1100xf64>\n"
            "%2 = stablehlo.constant dense<1000.0> : tensor<f64>\n"
            "%3 = arith.constant 1000 : index\n"
            "%4 = tensor.extract_slice %x[999, 0] [1, 1100] [1, 1] : tensor<1000x1100xf64> to tensor<1x1100xf64>\n"
            "%5 = stablehlo.constant dense<1000> : tensor<i64>\n"
            "%6 = stablehlo.constant dense<1000> : tensor<i32>\n"
            "%7 = stablehlo.constant dense<1099> : tensor<i64>\n")
    out = resize_text(text, {1000: 2, 1100: 3})
    assert out.splitlines() == [
        "%0 = stablehlo.slice %5 [0:1, 0:3] : (tensor<2x3xf64>) -> tensor<1x3xf64>",
        "%1 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<1x3xf64>) -> tensor<2x3xf64>",
        "%2 = stablehlo.constant dense<1000.0> : tensor<f64>",
        "%3 = arith.constant 2 : index",
        "%4 = tensor.extract_slice %x[1, 0] [1, 3] [1, 1] : tensor<2x3xf64> to tensor<1x3xf64>",
        "%5 = stablehlo.constant dense<2> : tensor<i64>",  # a while's bound (a count)
        "%6 = stablehlo.constant dense<1000> : tensor<i32>",  # data
        "%7 = stablehlo.constant dense<2> : tensor<i64>",
    ]


def test_numbers_derived_from_sizes_block_the_textual_resize():
    """A flip padded to 3n and indexed from 2n - 1 (synth's durbin at LARGE): 6000 and 4000
    are no size, but the mapping of sizes would leave them and silently compute something
    else; the resize refuses. Products of sizes (a collapsed shape) too; data is left alone."""
    from synth.semantics.raised_text import size_derived_numbers

    text = ("%0 = tensor.empty() : tensor<6000xf64>\n"
            "%c = arith.constant 4000 : i64\n"
            "%d = stablehlo.constant dense<4000.0> : tensor<f64>\n"
            "%e = tensor.empty() : tensor<1999x2000xf64>\n")
    assert size_derived_numbers(text, {2000: 3}) == ["6000 (about 3 x 2000)", "4000 (about 2 x 2000)"]
    assert size_derived_numbers("%0 = tensor.empty() : tensor<1200000xf64>\n", {1000: 3, 1200: 4}) \
        == ["1200000 (about 1000 x 1200)"]
    with pytest.raises(ValueError, match="6000 .about 3 x 2000"):
        resize_text(text, {2000: 3})
    # the 64 of i64 and the 0 of d0 are no numbers (a fuzzer kernel at sizes 16 and 32
    # was refused for "64 (about 4 x 16)")
    small = ("%c = stablehlo.constant dense<0> : tensor<i64>\n%k = arith.constant 1 : i64\n"
             "#m = affine_map<(d0) -> (d0)>\n%x = tensor.empty() : tensor<32x16xi64>\n")
    assert size_derived_numbers(small, {16: 3, 32: 5}) == []


def test_keep_functions_blanks_the_wrapper(raised):
    text = raised("atax", "stablehlo").read_text()
    kept = keep_functions(text, "kernel_atax_raised")
    assert len(kept) == len(text) and kept.count("\n") == text.count("\n")
    assert "bufferization" not in kept and "func.func @kernel_atax_raised(" in kept
    assert "func.func @kernel_atax(" not in kept
    assert keep_functions(text, "missing") is None


def test_tolerance():
    want = np.array([1.0, 2.0, np.inf, np.nan, 1e-300])
    assert first_difference(want, want + 1e-12) is None
    assert first_difference(want, np.array([1.0, 2.0, np.inf, np.nan, 0.0])) is None  # below 1e-9 absolute
    assert first_difference(want, np.array([1.0, 2.0 + 1e-6, np.inf, np.nan, 1e-300]))[0] == (1,)
    assert first_difference(want, np.array([1.0, 2.0, 5.0, np.nan, 1e-300]))[0] == (2,)
    assert first_difference(np.array([1, 2]), np.array([1, 3]))[0] == (1,)
    # a result of another shape differs as a whole (it was an IndexError: internal error, exit 1)
    assert first_difference(np.zeros((2, 3)), np.zeros((3, 1))) == ((), "shape (2, 3)", "shape (3, 1)")
    assert first_difference(np.zeros(1), np.zeros(())) is None
    assert first_difference(np.arange(3.0).reshape(1, 3), np.array([[0.0], [1.0], [2.5]]))[0] == (0, 2)
    # as many elements in another layout (not only extents of 1 apart) is another result
    assert first_difference(np.zeros((2, 3)), np.zeros((3, 2))) == ((), "shape (2, 3)", "shape (3, 2)")
    # non-finite values: any two are equal (0/0 met in another order), or, exactly, the same only
    assert first_difference(want, np.array([1.0, 2.0, np.nan, np.inf, 1e-300])) is None
    for have, at in (([1.0, 2.0, np.nan, np.nan, 1e-300], 2), ([1.0, 2.0, -np.inf, np.nan, 1e-300], 2),
                     ([1.0, 2.0, np.inf, np.inf, 1e-300], 3)):
        assert first_difference(want, np.array(have), exact_nonfinite=True)[0] == (at,)


def test_staged_proof():
    x, y, a, b = z3.Reals("x y a b")
    # polynomial identity: unsat, no assumption
    proof = prove_equal([(0, (a + b) * (a + b), a * a + 2 * a * b + b * b)], 10)
    assert proof.verdict == "proven" and not proof.assumptions
    # a real difference: refuted with a model
    proof = prove_equal([(0, z3sem.maximum(a, z3.RealVal(0)), z3.If(a > z3.RealVal("1/100"), a, 0))], 10)
    assert proof.verdict == "refuted"
    # x / y * y == x needs y != 0: proven under that stated assumption
    proof = prove_equal([(0, z3sem.div(x, y) * y, x)], 10)
    assert proof.verdict == "proven" and "nonzero" in proof.assumptions[0]
    # sqrt(x)^2 == x is false for x < 0 (NaN in floats): never "proven"
    proof = prove_equal([(0, z3sem.sqrt(x) * z3sem.sqrt(x), x)], 10)
    assert proof.verdict == "unknown"
    # sqrt(x*x) >= 0 style facts: sqrt(a*a)*sqrt(a*a) == a*a holds with the sqrt facts
    proof = prove_equal([(0, z3sem.sqrt(a * a) * z3sem.sqrt(a * a), a * a)], 10)
    assert proof.verdict == "proven" and not proof.assumptions


def test_function_option(capsys):
    rc, out, _ = _verify_cli(capsys, MUTANTS / "relu.mlir", MUTANTS / "relu.max.stablehlo.mlir",
                             "--function", "kernel_relu", "--level", "test")
    assert rc == 0 and "EQUIVALENT (level test)" in out, out
    rc, out, _ = _verify_cli(capsys, MUTANTS / "relu.mlir", MUTANTS / "relu.max.stablehlo.mlir",
                             "--function", "nope")
    assert rc == 2 and "no function @nope" in out, out


def test_edge_slice_constants_in_affine_maps_are_resized(tmp_path):
    """doitgen's linalg raise keeps the last (r, q) row through a linalg.generic whose
    input map holds the constant indices size-1: the textual resize must move them."""
    out = tmp_path / "doitgen.linalg.mlir"
    assert cli.main(["raise", str(POLYBENCH / "doitgen.mlir"), "--target", "linalg", "-o", str(out),
                     "--verify", "test", "--shapes", "static"]) == 0
    assert "149, 139, d0" in out.read_text()
    report = synth.validation.verify.verify(POLYBENCH / "doitgen.mlir", out, level="z3")
    assert report.verdict == "equivalent" and report.level == "z3"
    report = synth.validation.verify.verify(POLYBENCH / "doitgen.mlir", out, level="all", test_first=False)
    assert report.verdict == "equivalent" and report.level == "all", report.summary()


SCALE = """
func.func @scale(%n: i32, %alpha: f64, %x: memref<100xf64>, %y: memref<100xf64>) {
  %N = arith.index_cast %n : i32 to index
  affine.for %i = 0 to %N {
    %v = affine.load %x[%i] : memref<100xf64>
    %w = arith.mulf %alpha, %v : f64
    affine.store %w, %y[%i] : memref<100xf64>
  }
  return
}
"""

SCALE_RAISED = """
func.func @scale_raised(%n: i32, %alpha: f64, %x: tensor<100xf64>, %y: tensor<100xf64>) -> tensor<100xf64>
    attributes {synth.outputs = [3]} {
  %e = tensor.empty() : tensor<100xf64>
  %a = linalg.fill ins(%alpha : f64) outs(%e : tensor<100xf64>) -> tensor<100xf64>
  %e2 = tensor.empty() : tensor<100xf64>
  %r = linalg.mul ins(%a, %x : tensor<100xf64>, tensor<100xf64>) outs(%e2 : tensor<100xf64>) -> tensor<100xf64>
  return %r : tensor<100xf64>
}
"""


def test_linalg_raised_function_may_take_scalars_as_scalars(tmp_path, capsys):
    """The contract lets a linalg @NAME_raised take an i32 or f64 argument as itself, not
    as a rank-0 tensor; testing and the proof run it so."""
    original, raised_path = tmp_path / "scale.mlir", tmp_path / "scale.raised.mlir"
    original.write_text(SCALE)
    raised_path.write_text(SCALE_RAISED)
    rc, out, _ = _verify_cli(capsys, original, raised_path)
    assert rc == 0, out
    assert "EQUIVALENT (level all)" in out
    wrong = tmp_path / "scale.wrong.mlir"
    wrong.write_text(SCALE_RAISED.replace("linalg.mul", "linalg.add"))
    rc, out, _ = _verify_cli(capsys, original, wrong)
    assert rc == 4, out


FUZZ_262_RAISED = """
func.func @fuzz_262_raised(%arg0: tensor<48x48xf64>, %arg1: tensor<48x48x48xf64>) -> tensor<48x48xf64> attributes {synth.outputs = [0]} {
  %0 = stablehlo.slice %arg1 [0:48, 0:48, 47:48] : (tensor<48x48x48xf64>) -> tensor<48x48x1xf64>
  %1 = stablehlo.reshape %0 : (tensor<48x48x1xf64>) -> tensor<48x48xf64>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
  %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<48x48xf64>, tensor<f64>) -> tensor<48xf64>
  %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<48xf64>) -> tensor<48x48xf64>
  %4 = stablehlo.add %3, %arg0 : tensor<48x48xf64>
  return %4 : tensor<48x48xf64>
}
"""


def test_kernel_without_smaller_sizes_is_not_proven_at_its_own(tmp_path):
    """Fuzz program 262 reads B[k][j][47] of a 48^3 array: 47 stays a number (below
    SMALL_CONSTANT), so no size below 48 keeps the access in bounds. The bounded proof
    would run at 48 (115200 symbolic elements: minutes, the fuzzer's hang); it now says
    it cannot, and the all-size proof covers every n48 >= 48."""
    original = DATA / "fuzz" / "hang_1000_262.mlir"
    raised_path = tmp_path / "fuzz_262.raised.mlir"
    raised_path.write_text(FUZZ_262_RAISED)
    report = verify(original, raised_path, level="z3", test_first=False)
    assert report.verdict == "unknown" and "more than the bounded proof takes" in report.message, report.summary()
    report = verify(original, raised_path, level="all", test_first=False)
    assert report.equivalent and report.level == "all", report.summary()
    assert "n48 >= 1" in report.domain


GUARDED_TEMP = """
void guarded(int n, double alpha, const double *a, double *c)
{
    double temp;
    for (int l = 0; l < n; l++)
        if (a[l] != 0.0) {
            temp = alpha * a[l];
            for (int i = 0; i < n; i++)
                c[i] += temp * a[i];
        }
}
"""


def _guarded_terms(tmp_path):
    """GUARDED_TEMP translated at n = 3: (kernel, symbolic inputs, symbolic outputs)."""
    from synth.analysis.function import describe
    from synth.analysis.model import load_kernel
    from synth.frontend.c import translate_c
    from synth.semantics.affine import execute, symbolic_inputs

    path = tmp_path / "guarded.c"
    path.write_text(GUARDED_TEMP)
    source = translate_c(str(path), function="guarded", sizes={"n": 3}, locations=False)
    kernel = load_kernel(source, "guarded")
    sym = symbolic_inputs(describe(kernel.normal, "guarded"), "", kernel.sizes.param_values(kernel.sizes.original()))
    return kernel, sym, execute(kernel.normal, "guarded", sym)


def test_a_local_read_only_where_written_is_not_uninitialised(tmp_path):
    """netlib DSYRK's `if (A(j,l) != 0) { temp = alpha * A(j,l); ... C(i,j) += temp * ...}`,
    if-converted: the output's term holds temp's never-written value under a select that
    discards it, so it does not depend on it (Z3) and the kernel is not refused as reading
    memory it never wrote (the raise of heldout3's dsyrk_ln for every size exited 2); a
    term whose value does depend on such memory still is."""
    import z3

    from synth.validation.contract import Comparison
    from synth.validation.proofs import _independent, _uninitialised

    kernel, sym, want = _guarded_terms(tmp_path)
    assert any(str(t).startswith("undef_") for t in z3sem_subterms(want[3]))  # it is in the term
    assert _uninitialised(kernel, sym, want, [Comparison("arg3", 3, 0)]) is None
    x, u, a = z3.Reals("x u a")
    c = z3.Bool("c")
    assert _independent(z3.If(c, x + z3.If(c, a, u) * a, x), {u.get_id(): u})
    assert not _independent(z3.If(c, x + u * a, x), {u.get_id(): u})


def test_the_uninitialised_memory_check_keeps_the_caller_s_deadline(tmp_path):
    """The bounded proof's question "does this element depend on memory never written"
    takes the proof's own time (--z3-timeout), not a fixed 10 s per element: past the
    deadline Z3 is not asked, and the answer is "undecided" (the verdict unknown), never
    "it reads memory it never wrote" (exit 2, the user's fault)."""
    import time

    import z3

    from synth.validation.contract import Comparison
    from synth.validation.proofs import Undecided, _independent, _uninitialised

    x, u, a = z3.Reals("x u a")
    c = z3.Bool("c")
    past = time.monotonic() - 1
    assert _independent(z3.If(c, x + z3.If(c, a, u) * a, x), {u.get_id(): u}, past) is None
    assert _independent(z3.If(c, x + u * a, x), {u.get_id(): u}, time.monotonic() + 60) is False
    kernel, sym, want = _guarded_terms(tmp_path)
    with pytest.raises(Undecided, match="arg3"):
        _uninitialised(kernel, sym, want, [Comparison("arg3", 3, 0)], past)


def z3sem_subterms(array):
    import numpy as np

    from synth.semantics import z3sem

    return list(z3sem.subterms([t for t in np.asarray(array, dtype=object).ravel()]))


def test_a_result_of_another_shape_is_a_difference_not_a_crash():
    """validation's comparison of an output whose shape differs from the original's (not
    only by extents of 1): a difference, reported, not a NumPy broadcast error (exit 1)."""
    from synth.validation.contract import Comparison
    from synth.validation.testing import _differs, _outside_domain

    want, have = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2)
    c = Comparison(label="arg0", argument=0, result=0)
    assert _differs([c], [want], [have], [want])
    assert not _outside_domain([c], [np.full((2, 3), np.nan)], [have], [want])
    assert not _differs([c], [want.reshape(1, 6)], [want.reshape(6, 1)], [want])


SELF_RATIO = """module {
  func.func @kernel_ratio(%a: memref<12x20xf64>, %b: memref<12x20xf64>) {
    affine.for %i = 0 to 12 {
      affine.for %j = 0 to 20 {
        %x = affine.load %a[%i, %j] : memref<12x20xf64>
        %q = arith.divf %x, %x : f64
        %y = arith.mulf %q, %x : f64
        affine.store %y, %b[%i, %j] : memref<12x20xf64>
      }
    }
    return
  }
}
"""

SELF_RATIO_RAISED = """func.func @kernel_ratio_raised(%arg0: tensor<12x20xf64>, %arg1: tensor<12x20xf64>) -> tensor<12x20xf64> attributes {synth.outputs = [1]} {
  %one = stablehlo.constant dense<1.0> : tensor<12x20xf64>
  %0 = stablehlo.multiply %arg0, %one : tensor<12x20xf64>
  return %0 : tensor<12x20xf64>
}
"""


def test_a_draw_with_no_square_matrix_is_not_run_again_unchanged(tmp_path, monkeypatch):
    """b = a / a * a (NaN where a is 0) against a raise that returns a: on the draws with
    zeros the original's NaN is outside its domain, and the draw made diagonally dominant
    is tested instead; with no square matrix that draw is the same one, so neither the
    original nor the raise runs on it again (deriche at 2048x1080: 2 runs of each saved),
    and the set is skipped as before (its outputs hold NaN)."""
    import synth.execution
    from synth.validation.testing import DOMAIN_NOTE

    original, raised = tmp_path / "ratio.mlir", tmp_path / "ratio.stablehlo.mlir"
    original.write_text(SELF_RATIO)
    raised.write_text(SELF_RATIO_RAISED)
    runs = []
    real = synth.execution.run_function

    def recording(text, func, args, **kw):
        runs.append((text, [a.copy() if isinstance(a, np.ndarray) else a for a in args]))
        return real(text, func, args, **kw)

    monkeypatch.setattr(synth.execution, "run_function", recording)
    report = verify(original, raised, level="test")
    assert report.verdict == "equivalent"
    assert DOMAIN_NOTE in report.assumptions  # the zeros' NaN met, the path taken
    assert len(runs) >= 8
    for (t1, a1), (t2, a2) in zip(runs, runs[1:]):
        same = t1 == t2 and all(np.array_equal(x, y, equal_nan=True) if isinstance(x, np.ndarray) else x == y
                                for x, y in zip(a1, a2))
        assert not same, "the original ran twice in a row on the same draw"
