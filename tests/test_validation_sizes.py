"""The sizes validation runs a raise at.

- synth.analysis.work bounds the statement instances of a kernel at its own sizes (a
  triangular nest counted as its bounding box).
- A raise for every size whose original would run more than OWN_SIZE_WORK statement
  instances at its own sizes, or the raise itself an estimated RAISE_WORK element
  operations (synth.validation.cost), is run at those sizes scaled down by a power of 2
  (its text is the same at every size), and the output says so; under the bounds it is
  run at its own sizes. A loop kept as a loop whose step is proven by induction is tested
  whole at fewer steps first.
- The estimate: each op's largest array times the trips of the loops around it, the
  trips read from constant bounds or size arguments.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from synth.analysis.work import statement_instances
from synth.frontend.reader import load_text
from synth.validation.common import sizes_text
from synth.validation.plan import OWN_SIZE_WORK, RAISE_WORK

ROOT = Path(__file__).resolve().parents[1]

_NESTS = """
func.func @k(%n: index, %a: memref<40x50xf64>, %b: memref<40xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 50 {
      affine.store %z, %a[%i, %j] : memref<40x50xf64>
    }
    affine.for %j = 0 to #map(%i) {
      %v = affine.load %a[%i, %j] : memref<40x50xf64>
      affine.store %v, %b[%i] : memref<40xf64>
    }
  }
  affine.for %t = 0 to %n {
    affine.store %z, %b[0] : memref<40xf64>
  }
  return
}
"""


def test_statement_instances_bound_a_nest():
    text = "#map = affine_map<(d0) -> (d0 + 1)>\n" + _NESTS
    source = load_text(text, "nests.mlir", warn=False)
    # 40 x 50 stores, the triangle as its box (40 x 40), then n = 7 single stores
    assert statement_instances(source, "k", {0: 7}) == 40 * 50 + 40 * 40 + 7
    assert statement_instances(source, "k", {0: 0}) == 40 * 50 + 40 * 40


def _raise(tmp_path, kernel: str, target: str) -> str:
    from synth.cli import main

    out = tmp_path / f"{kernel}.{target}.mlir"
    src = ROOT / "benchmarks" / "polybench" / f"{kernel}.mlir"
    assert main(["raise", str(src), "--target", target, "-o", str(out), "-q",
                 "--shapes", "generic", "--verify", "test"]) == 0
    return out.read_text()


def test_a_generic_raise_too_large_at_its_own_sizes_runs_scaled_down(tmp_path):
    """gemm at PolyBench LARGE (1000 x 1100 x 1200: 1.3e9 multiply-adds) is run at a
    quarter of each size, and its output records it."""
    assert 250 * 275 * 300 <= OWN_SIZE_WORK < 500 * 550 * 600
    text = _raise(tmp_path, "gemm", "linalg")
    assumptions = re.search(r"synth\.assumptions = \[(.*?)\]", text).group(1)
    assert "not run at its own sizes (arg0=1000, arg1=1100, arg2=1200" in assumptions
    assert "run at arg0=250, arg1=275, arg2=300 instead" in assumptions


def test_a_generic_raise_within_the_bound_runs_at_its_own_sizes(tmp_path):
    text = _raise(tmp_path, "atax", "stablehlo")  # 2 x 1900 x 2100 = 8e6 statement instances
    assert "not run at its own sizes" not in text


# --- the raise's own cost (synth.validation.cost) -------------------------------------------

_LOOP = """
func.func @f_raised(%a: tensor<i32>, %b: tensor<100x100xf64>, %u: tensor<1x100xf64>) -> tensor<100x100xf64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %bound = BOUND
  %r:2 = stablehlo.while(%i = %zero, %acc = %b) : tensor<i64>, tensor<100x100xf64>
   cond {
    %lt = stablehlo.compare LT, %i, %bound : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %acc2 = stablehlo.dynamic_update_slice %acc, %u, %i, %zero : (tensor<100x100xf64>, tensor<1x100xf64>, tensor<i64>, tensor<i64>) -> tensor<100x100xf64>
    %i1 = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %i1, %acc2 : tensor<i64>, tensor<100x100xf64>
  }
  %out = stablehlo.add %r#1, %b : tensor<100x100xf64>
  return %out : tensor<100x100xf64>
}
"""


@pytest.mark.parametrize("bound,scalars,trips", [
    ("stablehlo.constant dense<7> : tensor<i64>", {}, 7),  # a constant bound
    ("stablehlo.convert %a : (tensor<i32>) -> tensor<i64>", {0: 30}, 30),  # a size argument
    ("stablehlo.convert %a : (tensor<i32>) -> tensor<i64>", {}, 50),  # unknown: the fallback
])
def test_the_raise_s_work_counts_each_op_s_largest_array_times_its_loop_s_trips(bound, scalars, trips):
    """Per trip: the dynamic_update_slice counts the row it writes (100), the counter's add
    1; the condition's compare 1; the loop itself its carried array once; outside: the two
    constants, the bound and the final add."""
    from synth.validation.cost import raised_work

    text = "module {" + _LOOP.replace("BOUND", bound) + "}"
    per_trip = 100 + 1 + 1
    outside = 1 + 1 + 1 + 10_000 + 10_000
    assert raised_work(text, "f_raised", "stablehlo", scalars, unknown_trips=50) == trips * per_trip + outside


_ROWS = """
func.func @rows(%a: memref<2000x2000xf64>, %b: memref<2000x2000xf64>, %c: memref<2000x2000xf64>) {
  affine.for %i = 0 to 2000 {
    affine.for %j = 0 to 2000 {
      %x = affine.load %a[%i, %j] : memref<2000x2000xf64>
      %y = affine.load %b[%j, %i] : memref<2000x2000xf64>
      %z = arith.subf %x, %y : f64
      affine.store %z, %c[%i, %j] : memref<2000x2000xf64>
    }
  }
  return
}
"""

# A - transpose(B), one row per trip of a loop that selects the row out of whole arrays:
# 3 n^2 element operations per trip, 3 n^3 in all (2.4e10 at n = 2000) for n^2 of the original
_ROWS_RAISED = """
func.func @rows_raised(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>) -> tensor<?x?xf64> attributes {synth.outputs = [2]} {
  %n32 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
  %n = stablehlo.convert %n32 : (tensor<i32>) -> tensor<i64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %bt = stablehlo.transpose %b, dims = [1, 0] : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %d = stablehlo.subtract %a, %bt : tensor<?x?xf64>
  %s0 = stablehlo.reshape %n32 : (tensor<i32>) -> tensor<1xi32>
  %shape = stablehlo.concatenate %s0, %s0, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %iota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi32>) -> tensor<?x?xi64>
  %r:2 = stablehlo.while(%i = %zero, %acc = %c) : tensor<i64>, tensor<?x?xf64>
   cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %bi = stablehlo.dynamic_broadcast_in_dim %i, %shape, dims = [] : (tensor<i64>, tensor<2xi32>) -> tensor<?x?xi64>
    %m = stablehlo.compare EQ, %iota, %bi : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi1>
    %next = stablehlo.select %m, %d, %acc : tensor<?x?xi1>, tensor<?x?xf64>
    %i1 = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %i1, %next : tensor<i64>, tensor<?x?xf64>
  }
  return %r#1 : tensor<?x?xf64>
}
"""


def test_a_raise_costlier_than_its_original_is_tested_at_smaller_sizes():
    """The original runs 4e6 statement instances at n = 2000 (within OWN_SIZE_WORK), but the
    raise's loop over rows works on whole arrays each trip (an estimated 2.4e10 element
    operations, over RAISE_WORK): the largest test is at n = 500 (3.75e8; 3e9 at 1000), and
    the plan says why, with both counts."""
    from synth.analysis.model import load_kernel
    from synth.semantics.raised import load_raised
    from synth.validation.plan import SizePlan
    from synth.validation.verify import _generic_instances

    source = load_text(_ROWS, "rows.mlir", warn=False)
    kernel = load_kernel(source, "rows")
    text, at = _generic_instances(kernel, _ROWS_RAISED)
    plan = SizePlan(kernel, load_raised("<rows>", "rows_raised", text), at, edges=True)
    assert list(plan.original.values()) == [2000]
    own = plan.raise_work(plan.original)
    assert 3 * 2000 ** 3 <= own and own > RAISE_WORK and plan.work(plan.original) <= OWN_SIZE_WORK
    largest = plan.largest_tested()
    assert list(largest.values()) == [500] and plan.raise_work(largest) <= RAISE_WORK
    assert "an estimated 2.4e+10 element operations of the raise" in plan.scaled
    assert plan.scaled.endswith("the text for every size was run at " + sizes_text(largest) + " instead")
    assert plan.is_largest(largest) and plan.test_configs()[-1] == largest


def test_a_static_raise_of_one_program_is_tested_as_its_family_a_text_synth_did_not_build_at_its_own_sizes():
    """A static text that is what the raise's program builds at its own sizes is a member
    of the family the proof and the small tests cover: where a test at its own sizes costs
    too much, the program built at smaller sizes runs, as a raise for every size does, and
    the plan says so. A static text with no program (synth verify on a module written
    elsewhere), or one its program does not build at its own sizes, is what runs at its own
    sizes: tested there whatever it costs."""
    from synth.analysis.model import load_kernel
    from synth.semantics.raised import load_raised
    from synth.validation.plan import SizePlan
    from synth.validation.verify import _generic_instances

    source = load_text(_ROWS, "rows.mlir", warn=False)
    kernel = load_kernel(source, "rows")
    text, at = _generic_instances(kernel, _ROWS_RAISED)
    family = SizePlan(kernel, load_raised("<rows>", "rows_raised", text), at, edges=False)
    largest = family.largest_tested()
    assert list(largest.values()) == [500] and family.raise_work(largest) <= RAISE_WORK
    assert family.scaled.endswith("the raise's program (the text written is what it builds at its own "
                                  "sizes, the member of the family the proof and the small tests cover) "
                                  "was run at " + sizes_text(largest) + " instead")
    assert family.test_configs()[-1] == largest

    alone = SizePlan(kernel, load_raised("<rows>", "rows_raised", text), None, edges=False)
    assert alone.largest_tested() == alone.original and not alone.scaled

    def other(values):  # a program whose member at the own sizes is not the text written
        built = at(values)
        return re.sub(r"stablehlo.select (%\w+), (%\w+), (%\w+)", r"stablehlo.select \1, \3, \2", built) \
            if values == family.original else built

    assert other(family.original) != text
    plan = SizePlan(kernel, load_raised("<rows>", "rows_raised", text), other, edges=False)
    assert plan.largest_tested() == plan.original and not plan.scaled


def test_a_static_text_runs_fewer_steps_only_where_it_is_what_its_program_builds():
    """Fewer time steps run a text the raise's program builds with another step count; for
    a static text that tests the one written only where the program builds that one at its
    own sizes. (n is taken as a step count here: the plan reads only its value at 2 steps.)"""
    from synth.analysis.model import load_kernel
    from synth.semantics.raised import load_raised
    from synth.validation.plan import SizePlan
    from synth.validation.verify import _generic_instances

    source = load_text(_ROWS, "rows.mlir", warn=False)
    kernel = load_kernel(source, "rows")
    text, at = _generic_instances(kernel, _ROWS_RAISED)
    (name, own), = kernel.sizes.original().items()
    same = SizePlan(kernel, load_raised("<rows>", "rows_raised", text), at, steps={name: 2})
    assert same.largest_tested()[name] < own and "time steps" in same.scaled

    def other(values):  # a program whose member at the own sizes is not the text written
        built = at(values)
        return re.sub(r"stablehlo.select (%\w+), (%\w+), (%\w+)", r"stablehlo.select \1, \3, \2", built) \
            if values == same.original else built

    assert other(same.original) != text
    plan = SizePlan(kernel, load_raised("<rows>", "rows_raised", text), other, steps={name: 2})
    assert plan.largest_tested() == plan.original and not plan.scaled

@pytest.mark.slow
def test_seidel_2d_s_wavefront_is_tested_whole_at_fewer_steps(tmp_path):
    """seidel-2d's stablehlo raise keeps the time loop and, in each step, a loop over
    hyperplanes whose every trip works on the whole (skewed) array: ~2e14 estimated
    element operations at its own sizes (500 steps, n = 2000). Its step, proven on every
    input state, is tested at the small sizes; the whole loop, every step count covered by
    induction, at n = 500 with a few steps (not 125 steps at n = 500: ~35 s on XLA), the
    step's largest test the whole loop's."""
    from synth.cli import main

    out, stats = tmp_path / "seidel.mlir", tmp_path / "seidel.json"
    src = ROOT / "benchmarks" / "polybench" / "seidel-2d.mlir"
    assert main(["raise", str(src), "--target", "stablehlo", "-o", str(out), "-q",
                 "--stats-json", str(stats)]) == 0
    validation = json.loads(stats.read_text())["kernel_seidel_2d"]["validation"]
    assert validation["level"] == "z3"
    assert {"arg0": 500, "arg1": 2000} not in validation["sizes_tested"]
    assumptions = " ".join(validation["assumptions"])
    steps = re.search(r"run at arg0=(\d+), arg1=500 instead \(\1 of its 500 time steps \(arg0\): every step "
                      r"count by induction on the step, proven on every input state at the sizes its proof "
                      r"names\)", assumptions)
    assert steps and 2 <= int(steps.group(1)) <= 8, assumptions
    assert {"arg0": int(steps.group(1)), "arg1": 500} in validation["sizes_tested"]
    # the stats say what the largest test cost: the whole loop's (the step is tested at the
    # small sizes; at the largest it runs inside the whole loop, the text written)
    whole, = validation["largest"]
    assert whole["sizes"] == {"arg0": int(steps.group(1)), "arg1": 500}
    assert whole["statement_instances"] <= OWN_SIZE_WORK and 0 < whole["raise_element_operations"] <= RAISE_WORK
    assert max(s["arg1"] for s in validation["sizes_tested"]) == 500
    assert [s for s in validation["sizes_tested"] if s["arg1"] == 500] == [{"arg0": int(steps.group(1)), "arg1": 500}]
    assert "proven for one step on every input state" in assumptions


_LINALG_LOOP = """
module {
  func.func @g_raised(%a: tensor<100x100xf64>, %row: tensor<1x100xf64>) -> tensor<100x100xf64> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c40 = arith.constant 40 : index
    %r = scf.for %i = %c0 to %c40 step %c1 iter_args(%acc = %a) -> (tensor<100x100xf64>) {
      %s = tensor.extract_slice %acc[%i, 0] [1, 100] [1, 1] : tensor<100x100xf64> to tensor<1x100xf64>
      %t = tensor.insert_slice %s into %acc[%i, 0] [1, 100] [1, 1] : tensor<1x100xf64> into tensor<100x100xf64>
      scf.yield %t : tensor<100x100xf64>
    }
    return %r : tensor<100x100xf64>
  }
}
"""


def test_linalg_slices_count_their_slice():
    """Bufferized in place, a row's extract_slice and insert_slice move 100 elements per
    trip (40 trips), not the 100 x 100 table; the loop op counts its carried table once."""
    from synth.validation.cost import raised_work

    assert raised_work(_LINALG_LOOP, "g_raised", "linalg", {}, unknown_trips=7) == 3 + 40 * 200 + 10_000
