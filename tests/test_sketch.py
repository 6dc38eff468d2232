"""Statement sketches (synth.synthesis.sketch): a statement's own program (slices of its
loads, its arithmetic elementwise, a block written into the array) taken where it is right
on the examples; stencils raise with it, and validation checks it like any program."""

import json
import re

import numpy as np
import pytest

from conftest import DATA
from synth.backends.run import run_raised
from synth.cli import main
from synth.errors import NoSolutionError
from synth.execution import run_function
from synth.frontend.reader import load_input
from synth.analysis.model import load_kernel
from synth.semantics.raised import load_raised
from synth.synthesis.search import SearchSettings
from synth.synthesis.solve import search_kernel
from synth.synthesis.sketch import sketches
from synth.synthesis.spec import build_specification

STENCILS = DATA / "stencils"
KERNELS = ["jacobi_1d_step", "jacobi_2d_step", "heat_3d_step", "shifted_average", "transpose_scale_shift"]


def _spec(name: str, dialect: str):
    source = load_input(STENCILS / f"{name}.mlir", warn=False)
    kernel = load_kernel(source, name)
    return kernel, build_specification(kernel, dialect)


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name", KERNELS)
def test_stencil_raises_from_its_sketch(tmp_path, name, target):
    out, stats = tmp_path / "out.mlir", tmp_path / "stats.json"
    assert main(["raise", str(STENCILS / f"{name}.mlir"), "--target", target, "--timeout", "60",
                 "--shapes", "static", "-o", str(out), "--stats-json", str(stats)]) == 0
    record = json.loads(stats.read_text())[name]
    assert [p.get("sketch") for p in record["problems"]] == [True]
    assert record["candidates"] == 0  # no search ran
    assert record["verification"] in ("z3", "all")
    if name != "transpose_scale_shift":  # the others read shifted views
        assert ("stablehlo.slice" if target == "stablehlo" else "tensor.extract_slice") in out.read_text()


def test_stencil_output_matches_original_at_its_own_sizes(tmp_path):
    """The emitted jacobi_2d_step (1300 x 1300) run on XLA against the original loops on
    the same random inputs, outside synth's validation."""
    out = tmp_path / "out.mlir"
    src = STENCILS / "jacobi_2d_step.mlir"
    assert main(["raise", str(src), "--target", "stablehlo", "--verify", "test", "--shapes", "static",
                 "-o", str(out)]) == 0
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-1, 1, (1300, 1300)), rng.uniform(-1, 1, (1300, 1300))
    want = run_function(src.read_text(), "jacobi_2d_step", [("i32", 1300), a.copy(), b.copy()]).outputs
    raised = load_raised(str(out), "jacobi_2d_step_raised", out.read_text())
    (got,) = run_raised(raised.dialect, raised.text, raised.name, [np.asarray(1300, dtype=np.int32), a, b])
    assert np.allclose(got, want[2], rtol=1e-12, atol=0)
    assert np.array_equal(got[0], b[0]) and np.array_equal(got[:, -1], b[:, -1])  # the edges stay


@pytest.mark.parametrize("dialect", ["stablehlo", "linalg"])
def test_sketch_of_a_stencil_is_slices_and_an_insert(dialect):
    kernel, spec = _spec("jacobi_1d_step", dialect)
    (program,) = sketches(spec, dialect).values()
    ops = program.ops()
    slice_op = "stablehlo.slice_range" if dialect == "stablehlo" else "linalg.extract_range"
    assert ops[0] == f"{dialect}.insert_range" and ops.count(slice_op) == 3
    # the slices' extent is the size less 2, as an expression: it re-instantiates
    slices = [e for e in _nodes(program) if e.op is not None and e.op.name == slice_op]
    assert all(str(s.type.shape[0].expr) == "arg0 - 2" for s in slices)


def _nodes(expr):
    yield expr
    for a in expr.args:
        yield from _nodes(a)


RECURRENCE = """
func.func @prefix(%a: memref<64xf64>) {
  affine.for %i = 1 to 64 {
    %0 = affine.load %a[%i - 1] : memref<64xf64>
    %1 = affine.load %a[%i] : memref<64xf64>
    %2 = arith.addf %0, %1 : f64
    affine.store %2, %a[%i] : memref<64xf64>
  }
  return
}
"""

def test_a_recurrence_sketch_is_not_taken(tmp_path):
    """A read of the written array at another element is sketched as a read of its
    previous value: wrong for a prefix sum, so the examples turn the sketch down and the
    search decides (never the sketch)."""
    path = tmp_path / "prefix.mlir"
    path.write_text(RECURRENCE)
    kernel = load_kernel(load_input(path, warn=False), "prefix")
    spec = build_specification(kernel, "stablehlo")
    assert len(sketches(spec, "stablehlo")) == 1
    try:
        result = search_kernel(kernel, "stablehlo", SearchSettings(timeout=3))
    except NoSolutionError:
        return
    assert not any(s.get("sketch") for s in result.stats)


REDUCTIONS = DATA / "reductions"


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
@pytest.mark.parametrize("name", ["rowsum", "lower_matvec", "weighted_gram"])
def test_reduction_raises_from_its_sketch(tmp_path, name, target):
    """A loop the store does not index is summed over: a product with that loop on both
    sides is a contraction (no tensor over all the loops), a triangular bound a mask
    (`j <= i` on the block written, `k < i` inside the sum); proven for every size."""
    out, stats = tmp_path / "out.mlir", tmp_path / "stats.json"
    assert main(["raise", str(REDUCTIONS / f"{name}.mlir"), "--target", target, "--timeout", "60",
                 "-o", str(out), "--stats-json", str(stats)]) == 0
    record = json.loads(stats.read_text())[name]
    assert [p.get("sketch") for p in record["problems"]] == [True]
    assert record["candidates"] == 0
    assert record["verification"] == "all"
    text = out.read_text()
    if name == "weighted_gram":
        assert ("stablehlo.dot_general" if target == "stablehlo" else "linalg.matmul") in text
        assert not re.search(r"tensor<\d+x\d+x\d+x", text)  # no i x j x k product


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_a_sum_carried_in_a_scalar_raises_from_its_sketch(tmp_path, target):
    """`acc = 0; for (k = i + 1; k < n; k++) acc += M[i][k] * X[k][j]` then a store that
    uses acc and the diagonal M[i][i] (symm's form): the carried sum is a masked
    contraction, the diagonal a masked row sum; proven for every size, and the output at
    its own sizes is NumPy's."""
    out, stats = tmp_path / "out.mlir", tmp_path / "stats.json"
    assert main(["raise", str(REDUCTIONS / "upper_band.mlir"), "--target", target, "--timeout", "60",
                 "-o", str(out), "--stats-json", str(stats)]) == 0
    record = json.loads(stats.read_text())["upper_band"]
    assert [p.get("sketch") for p in record["problems"]] == [True]
    assert record["candidates"] == 0
    assert record["verification"] == "all"  # the carried sum is a SUM in the all-size proof too
    text = out.read_text()
    assert ("stablehlo.dot_general" if target == "stablehlo" else "linalg.matmul") in text
    rng = np.random.default_rng(5)
    m, x, o = rng.uniform(-1, 1, (12, 12)), rng.uniform(-1, 1, (12, 7)), rng.uniform(-1, 1, (12, 7))
    raised = load_raised(str(out), "upper_band_raised", text)
    (got,) = run_raised(raised.dialect, raised.text, raised.name, [np.asarray(0.75), m, x, o])
    want = 0.75 * o + np.diag(m)[:, None] * x + np.triu(m, 1) @ x
    assert np.allclose(got, want, rtol=1e-12, atol=1e-14)


def test_ablation_switch_turns_sketches_off():
    """Without sketches the search has no shifted slice (the range ops are not in its
    grammar): the shifted average is out of its reach."""
    kernel, _ = _spec("shifted_average", "stablehlo")
    on = search_kernel(kernel, "stablehlo", SearchSettings(timeout=30))
    assert on.stats[0].get("sketch")
    with pytest.raises(NoSolutionError):
        search_kernel(kernel, "stablehlo", SearchSettings(timeout=3, sketches=False))


def test_select_of_a_compare_reads_as_min_or_max(tmp_path):
    """`select(a < b, a, b)` is min, `select(a > b, a, b)` and `select(b < a, a, b)` max
    (integers); a float select by an ordered compare is not (NaN: the select returns b,
    min / max propagate NaN), and its sketch is not taken."""
    from synth.synthesis.sketch_reader import NoSketch, min_max
    from mlir import ir

    text = """func.func @f(%a: i32, %b: i32, %x: f64, %y: f64) -> (i32, i32, i32, f64) {
  %0 = arith.cmpi slt, %a, %b : i32
  %1 = arith.select %0, %a, %b : i32
  %2 = arith.cmpi sgt, %a, %b : i32
  %3 = arith.select %2, %a, %b : i32
  %4 = arith.cmpi slt, %b, %a : i32
  %5 = arith.select %4, %a, %b : i32
  %6 = arith.cmpf olt, %x, %y : f64
  %7 = arith.select %6, %x, %y : f64
  return %1, %3, %5, %7 : i32, i32, i32, f64
}"""
    with ir.Context():
        module = ir.Module.parse(text)
        ops = [op for op in module.body.operations[0].regions[0].blocks[0].operations
               if op.operation.name == "arith.select"]
        assert [min_max(op.operation, "stablehlo") for op in ops[:3]] == ["minimum", "maximum", "maximum"]
        assert [min_max(op.operation, "linalg") for op in ops[:3]] == ["min", "max", "max"]
        with pytest.raises(NoSketch):
            min_max(ops[3].operation, "stablehlo")


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_a_statement_is_read_as_written(tmp_path, target):
    """An image blend mode, `b == 0 ? 32 : 32 - (32 - (32 - a)) / b`: the sketch reads the
    comparison and the select as well as the arithmetic, so the raise is the statement
    itself (the search found `32 - a / b`, another floating-point function, which
    validation refuted, and ran out of budget): the same operations in the same order,
    no search, and the output equal to the loops' bitwise."""
    out = tmp_path / f"blend.{target}.mlir"
    stats = tmp_path / "stats.json"
    assert main(["raise", str(DATA / "blend_as_written.mlir"), "--target", target, "-o", str(out),
                 "--stats-json", str(stats), "-q"]) == 0
    assert json.loads(stats.read_text())["blend"]["candidates"] == 0
    text = out.read_text().split("func.func @blend(")[0]
    if target == "stablehlo":
        ops = [o for o in re.findall(r"= stablehlo\.(\w+)", text) if o not in ("constant", "broadcast_in_dim")]
        assert ops == ["compare", "subtract", "subtract", "subtract", "divide", "subtract", "select"]
    else:
        body = re.findall(r"arith\.(\w+)", text.split("linalg.generic", 1)[1])
        assert [o for o in body if o != "constant"] == ["cmpf", "select"]  # the select_cmp
        assert re.findall(r"linalg\.(sub|div)\b", text) == ["sub", "sub", "sub", "div", "sub"]
    rng = np.random.default_rng(1)
    a, b = rng.uniform(-40, 40, (64, 48)), rng.uniform(-2, 2, (64, 48))
    b[::7, ::5] = 0.0  # the branch taken
    want = run_function((DATA / "blend_as_written.mlir").read_text(), "blend", [a, b, np.zeros((64, 48))]).outputs[2]
    (got,) = run_raised(target, load_raised(str(out), "blend_raised").text.replace("@blend_raised(", "@main(", 1)
                        if target == "stablehlo" else out.read_text(), "main" if target == "stablehlo" else "blend_raised",
                        [a, b, np.zeros((64, 48))])
    assert np.array_equal(got, want)


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_a_down_counting_loop_is_read_forwards(tmp_path, target):
    """A loop whose index is only ever subtracted (`A[-k + 63] = A[-k + 62] * 0.5 + ...`,
    a down-counting loop as affine code writes it) is read over j = 62 - k: each element
    of A is read before the loop overwrites it, so the statement is a shifted copy, from
    its sketch, proven for every size."""
    out, stats = tmp_path / "out.mlir", tmp_path / "stats.json"
    assert main(["raise", str(DATA / "down_counting.mlir"), "--target", target, "--timeout", "30",
                 "-o", str(out), "--stats-json", str(stats)]) == 0
    record = json.loads(stats.read_text())["shift_down"]
    assert [p.get("sketch") for p in record["problems"]] == [True]
    assert record["verification"] == "all"
    assert 0 <= record["search_share"] <= 1 and record["search_seconds"] <= record["seconds"]


GROUPED = """
void grouped(int n, double s[1], double alpha, double c[n], double a[n], double b[n])
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += c[i] * (a[i] * b[i]);
    s[0] = t;
}
void left(int n, double s[1], double alpha, double c[n], double a[n], double b[n])
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += (c[i] * a[i]) * b[i];
    s[0] = t;
}
void scaled(int n, double s[1], double alpha, double c[n], double a[n], double b[n])
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += c[i] * (alpha * a[i] * b[i]);
    s[0] = t;
}
"""


def _products(expr) -> list:
    """Each product of the program as (the op, its operands: leaf numbers or nested)."""
    def shape(e):
        while e.op is not None and e.op.name.split(".")[1] in ("broadcast_in_dim", "broadcast", "transpose",
                                                              "reshape", "convert"):
            e = e.args[0]
        if e.op is None:
            return e.leaf
        name = e.op.name.split(".")[1]
        if name in ("multiply", "mul", "dot_general", "dot", "matvec", "vecmat", "matmul"):
            return ("contract" if name not in ("multiply", "mul") else "mul", *(shape(a) for a in e.args))
        return tuple(shape(a) for a in e.args) if len(e.args) == 1 else (name, *(shape(a) for a in e.args))
    return shape(expr)


@pytest.mark.parametrize("dialect", ["stablehlo", "linalg"])
def test_a_sum_of_products_keeps_the_grouping_as_written(tmp_path, dialect):
    """`t += c[i] * (a[i] * b[i])` is the contraction of c with the product a * b, and
    `(c[i] * a[i]) * b[i]` that of c * a with b: each term's products in the original's
    order and grouping (ggml's `sumi * (xd[i] * yd[i])` was raised as `(sumi * xd) * yd`:
    the product's factors were flattened and regrouped). A factor constant along the
    sum (alpha) is taken out of it; the rest keeps its grouping."""
    from synth.frontend.c import translate_c

    path = tmp_path / "grouped.c"
    path.write_text(GROUPED)
    c, a, b = 3, 4, 5  # the arguments' numbers (alpha is 2, s 1)
    want = {"grouped": ("contract", c, ("mul", a, b)), "left": ("contract", ("mul", c, a), b),
            "scaled": ("mul", 2, ("contract", c, ("mul", a, b)))}
    for name, products in want.items():
        source = translate_c(str(path), function=name, sizes={"n": 9}, locations=False)
        spec = build_specification(load_kernel(source, name), dialect)
        (program,) = sketches(spec, dialect).values()
        assert _products(program) == ("select_edge", products, 1), str(program)
