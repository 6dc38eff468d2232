"""Dependence analysis and loop distribution (synth.analysis.dependences): every PolyBench kernel
split into its statement groups still computes what the original does, and the groups of
a few kernels and hand-written loops are the expected ones."""

import importlib

import numpy as np
import pytest
from mlir import ir

from conftest import POLYBENCH
from synth.analysis import polybench
from synth.analysis.carried import carried_scalars
from synth.analysis.dependences import dependence_graph, recurrences, statement_groups, statements
from synth.analysis.distribution import split_function
from synth.execution import run_function
from synth.analysis.function import describe, find_function
from synth.frontend.reader import SourceModule, load_source, parse_module
from synth.analysis.resize import dataset_arguments, resize_module

TIME_STEPS = ("tsteps", "tmax")


def _prepare():
    prepare = {}
    for name in ("linear_algebra", "solvers_stencils_medley"):
        try:
            module = importlib.import_module(f"polybench_reference.{name}")
        except ModuleNotFoundError:
            continue
        prepare.update(getattr(module, "PREPARE", {}))
    return prepare


PREPARE = _prepare()


def _mini(name):
    """The kernel resized to MINI sizes with 2 time steps: (source, function, sizes)."""
    path = POLYBENCH / f"{name}.mlir"
    if not path.exists():
        pytest.fail(f"{path.name} is missing")
    source = load_source(path)
    func = "kernel_" + name.replace("-", "_")
    kf = describe(source, func)
    sizes = dataset_arguments(func, kf.size_params, "mini")
    for p, pname in zip(kf.size_params, polybench.size_parameters(name)):
        if pname in TIME_STEPS:
            sizes[p] = 2
    return SourceModule(source.path, resize_module(source, [func], "mini")), func, sizes


def _arguments(source, func, sizes, rng, prepare=None):
    kf = describe(source, func)
    args = []
    for a in kf.arguments:
        if a.is_array:
            args.append(rng.random(a.shape) if a.type.startswith("f")
                        else rng.integers(0, 100, a.shape).astype(np.int32))
        elif a.index in sizes:
            args.append(sizes[a.index])
        else:
            args.append(float(rng.uniform(0.5, 2.0)))
    if prepare is not None:
        prepare(rng, args)
    return [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else (kf.arguments[i].type, a)
            for i, a in enumerate(args)]


def _only(text, name):
    """The module holding just @name (each run compiles one function, not all the parts)."""
    with ir.Context():
        module = ir.Module.parse(text)
        for op in list(module.body.operations):
            if op.operation.name == "func.func" and op.attributes["sym_name"].value != name:
                op.operation.erase()
        return str(module)


def _check_split(source, func, groups, args):
    """Run the original, then the parts one after another on the same arrays: equal arrays."""
    text, parts = split_function(source, func, groups)
    assert len(parts) == len(groups)
    want = run_function(_only(text, func), func, args).outputs
    current = list(args)
    for part in parts:
        out = run_function(_only(text, part), part, current).outputs
        current = [o if o is not None else a for o, a in zip(out, current)]
    for i, (w, got) in enumerate(zip(want, current)):
        if w is None:
            continue
        if w.dtype.kind == "f":
            np.testing.assert_allclose(got, w, rtol=1e-12, atol=0, err_msg=f"@{func} arg{i}")
        else:
            np.testing.assert_array_equal(got, w, err_msg=f"@{func} arg{i}")
    return text, parts


def _groups_by_array(source, func, sizes):
    """Groups as lists of (statement id, argument index it stores to)."""
    groups = statement_groups(source, func, sizes)
    with ir.Context():
        stmts = statements(parse_module(source), func)
    assert sorted(s for g in groups for s in g) == list(range(len(stmts))), "groups partition"
    return groups, [[(s, stmts[s].array) for s in g] for g in groups]


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_parts_match_original_at_mini(name):
    source, func, sizes = _mini(name)
    groups = statement_groups(source, func, sizes)
    args = _arguments(source, func, sizes, np.random.default_rng(7), PREPARE.get(name))
    _check_split(source, func, groups, args)


def test_gemm_splits_scaling_from_accumulation():
    source, func, sizes = _mini("gemm")
    _, groups = _groups_by_array(source, func, sizes)
    assert groups == [[(0, 5)], [(1, 5)]]  # C *= beta, then C += alpha * A * B
    text, parts = split_function(source, func, [[0], [1]])
    with ir.Context():
        module = ir.Module.parse(text)
        first = str(find_function(module, parts[0]))
        second = str(find_function(module, parts[1]))
    # the first part is the scaling loop nest alone (no A, B); the second has no beta
    first_body, second_body = first.split("{", 1)[1], second.split("{", 1)[1]
    assert first.count("affine.for") == 2 and "%arg6" not in first_body and "%arg7" not in first_body
    assert second.count("affine.for") == 3 and "%arg4" not in second_body


def test_atax_tmp_before_y_accumulation():
    source, func, sizes = _mini("atax")
    _, groups = _groups_by_array(source, func, sizes)
    # y = 0 | tmp = 0 | tmp += A x | y += A^T tmp   (y is argument 4, tmp argument 5)
    assert groups == [[(0, 4)], [(1, 5)], [(2, 5)], [(3, 4)]]


def test_atax_statements():
    source, func, _ = _mini("atax")
    with ir.Context():
        stmts = statements(parse_module(source), func)
    assert [(s.id, s.array, s.depth, s.top_level) for s in stmts] == [
        (0, 4, 1, 3), (1, 5, 1, 4), (2, 5, 2, 4), (3, 4, 2, 4)]


def test_doitgen_sum_and_store_stay_fused():
    source, func, sizes = _mini("doitgen")
    groups = statement_groups(source, func, sizes)
    assert groups == [[0, 1, 2]]  # sum[p] is reused for every (r, q): a cycle
    args = _arguments(source, func, sizes, np.random.default_rng(1))
    _check_split(source, func, groups, args)
    # splitting it anyway gives a different result: the test above can tell
    with pytest.raises(AssertionError):
        _check_split(source, func, [[0, 1], [2]], args)


def test_symm_reorders_the_diagonal_update_first():
    source, func, sizes = _mini("symm")
    assert statement_groups(source, func, sizes) == [[1], [0]]
    text, parts = split_function(source, func, [[1], [0]])
    with ir.Context():
        module = ir.Module.parse(text)
        first, second = (str(find_function(module, p)) for p in parts)
    # the temp2 reduction (iter_args) stays with C[i][j]; the other part drops it
    assert "iter_args" in first and "iter_args" not in second
    assert second.count("affine.load") == 3 and second.count("affine.store") == 1


# ----------------------------------------------------------------------------------------
# hand-written loops


def _inline(tmp_path, text, name="f"):
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    return load_source(path)


_HEADER = """#m1 = affine_map<()[s0] -> (s0 - 1)>
func.func @f(%n: i32, %A: memref<12xf64>, %B: memref<12xf64>, %C: memref<12xf64>) {
  %0 = arith.index_cast %n : i32 to index
  %c2 = arith.constant 2.0 : f64
  %c3 = arith.constant 3.0 : f64
"""


def _run_inline(source, groups, n=10):
    rng = np.random.default_rng(3)
    args = [("i32", n)] + [np.ascontiguousarray(rng.random(12)) for _ in range(3)]
    return _check_split(source, "f", groups, args)


def test_gauss_seidel_sweep_is_one_group(tmp_path):
    source = _inline(tmp_path, _HEADER + """
  affine.for %i = 1 to #m1()[%0] {
    %a = affine.load %A[%i - 1] : memref<12xf64>
    %b = affine.load %A[%i] : memref<12xf64>
    %c = affine.load %A[%i + 1] : memref<12xf64>
    %s = arith.addf %a, %b : f64
    %t = arith.addf %s, %c : f64
    %v = arith.divf %t, %c3 : f64
    affine.store %v, %A[%i] : memref<12xf64>
  }
  return
}""")
    assert statement_groups(source, "f", {0: 10}) == [[0]]
    assert dependence_graph(source, "f", {0: 10}).fallback is None
    _run_inline(source, [[0]])


_SWEEP = """
  affine.for %i = 1 to #m1()[%0] {
    %a = affine.load %A[%i - 1] : memref<12xf64>
    %b = affine.load %A[%i] : memref<12xf64>
    %s = arith.addf %a, %b : f64
    affine.store %s, %A[%i] : memref<12xf64>
  }
"""


def test_recurrences_are_reads_of_what_earlier_instances_wrote(tmp_path):
    """A[i] = A[i - 1] + A[i] reads the element the instance before wrote: a recurrence.
    B[i] += A[j] (a reduction into the element written), C[i] = C[i + 1] (elements not
    written yet) and the copy B into A before it are not."""
    source = _inline(tmp_path, _HEADER + """
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 12 {
      %a = affine.load %A[%j] : memref<12xf64>
      %b = affine.load %B[%i] : memref<12xf64>
      %s = arith.addf %a, %b : f64
      affine.store %s, %B[%i] : memref<12xf64>
    }
  }
  affine.for %i = 0 to 11 {
    %c = affine.load %C[%i + 1] : memref<12xf64>
    affine.store %c, %C[%i] : memref<12xf64>
  }""" + _SWEEP + """  return
}""")
    assert recurrences(source, "f", {0: 10}) == {2: 1}


def test_carried_scalars_are_recurrences_not_accumulations(tmp_path):
    """A local read before its loop's body stores it, and an iter_arg whose next value is
    not the old one plus / minus / times a term, are scalar recurrences (statements 1 and
    7 store values computed from them); a sum into a local (s -= ...), a sum in an
    iter_arg and a local the body stores before reading it are not."""
    source = _inline(tmp_path, _HEADER + """
  %zero = arith.constant 0.0 : f64
  %acc = memref.alloca() : memref<1xf64>
  %prev = memref.alloca() : memref<1xf64>
  affine.store %zero, %prev[0] : memref<1xf64>
  affine.for %i = 0 to 12 {
    %p = affine.load %prev[0] : memref<1xf64>
    %a = affine.load %A[%i] : memref<12xf64>
    %s = arith.addf %p, %a : f64
    affine.store %s, %B[%i] : memref<12xf64>
    affine.store %a, %prev[0] : memref<1xf64>
  }
  affine.for %i = 0 to 12 {
    affine.store %zero, %acc[0] : memref<1xf64>
    affine.for %j = 0 to 12 {
      %a = affine.load %A[%j] : memref<12xf64>
      %t = affine.load %acc[0] : memref<1xf64>
      %u = arith.subf %t, %a : f64
      affine.store %u, %acc[0] : memref<1xf64>
    }
    %r = affine.load %acc[0] : memref<1xf64>
    affine.store %r, %C[%i] : memref<12xf64>
  }
  %sum = affine.for %i = 0 to 12 iter_args(%x = %zero) -> (f64) {
    %a = affine.load %A[%i] : memref<12xf64>
    %y = arith.addf %a, %x : f64
    affine.yield %y : f64
  }
  affine.store %sum, %C[0] : memref<12xf64>
  %h = affine.for %i = 0 to 12 iter_args(%x = %zero) -> (f64) {
    %a = affine.load %A[%i] : memref<12xf64>
    %t = arith.mulf %x, %c2 : f64
    %y = arith.addf %t, %a : f64
    affine.yield %y : f64
  }
  affine.store %h, %C[1] : memref<12xf64>
  return
}""")
    found = carried_scalars(source, "f")
    assert sorted(found) == [1, 7]
    assert "f.mlir:11:3 carries the local scalar allocated at " in found[1] and "f.mlir:9:11 " in found[1]
    assert "carries its iter_arg #0" in found[7]
    assert carried_scalars(load_source(POLYBENCH / "gemm.mlir"), "kernel_gemm") == {}


def test_a_sum_over_a_nest_in_iter_args_is_no_recurrence(tmp_path):
    """`e -= a[i] * a[j]` over a triangle (N-body's potential): the i loop's iter_arg
    takes the j loop's result, which starts from it and accumulates: a reduction; a j loop
    that starts from it but scales it before adding (Horner) is a recurrence."""
    source = _inline(tmp_path, _HEADER + """
  %zero = arith.constant 0.0 : f64
  %e = affine.for %i = 0 to 12 iter_args(%x = %zero) -> (f64) {
    %r = affine.for %j = affine_map<(d0) -> (d0 + 1)>(%i) to 12 iter_args(%y = %x) -> (f64) {
      %a = affine.load %A[%i] : memref<12xf64>
      %b = affine.load %A[%j] : memref<12xf64>
      %t = arith.mulf %a, %b : f64
      %u = arith.subf %y, %t : f64
      affine.yield %u : f64
    }
    affine.yield %r : f64
  }
  affine.store %e, %C[0] : memref<12xf64>
  %h = affine.for %i = 0 to 12 iter_args(%x = %zero) -> (f64) {
    %r = affine.for %j = 0 to 12 iter_args(%y = %x) -> (f64) {
      %b = affine.load %A[%j] : memref<12xf64>
      %t = arith.mulf %y, %c2 : f64
      %u = arith.addf %t, %b : f64
      affine.yield %u : f64
    }
    affine.yield %r : f64
  }
  affine.store %h, %C[1] : memref<12xf64>
  return
}""")
    found = carried_scalars(source, "f")
    assert sorted(found) == [1], found



def test_a_masked_sum_is_no_recurrence(tmp_path):
    """`if (a > 0) s += a` into a local (read twice, as C's translation does: the arm that
    adds and the arm that keeps it) is a masked reduction; the same with a condition that
    reads the running sum (`if (s < a) s += a`) is a recurrence (statement 4)."""
    source = _inline(tmp_path, _HEADER + """
  %zero = arith.constant 0.0 : f64
  %acc = memref.alloca() : memref<f64>
  affine.store %zero, %acc[] : memref<f64>
  affine.for %i = 0 to 12 {
    %a = affine.load %A[%i] : memref<12xf64>
    %c = arith.cmpf ogt, %a, %zero : f64
    %s = affine.load %acc[] : memref<f64>
    %t = arith.addf %s, %a : f64
    %k = affine.load %acc[] : memref<f64>
    %v = arith.select %c, %t, %k : f64
    affine.store %v, %acc[] : memref<f64>
  }
  %r = affine.load %acc[] : memref<f64>
  affine.store %r, %C[0] : memref<12xf64>
  %acc2 = memref.alloca() : memref<f64>
  affine.store %zero, %acc2[] : memref<f64>
  affine.for %i = 0 to 12 {
    %a = affine.load %A[%i] : memref<12xf64>
    %s = affine.load %acc2[] : memref<f64>
    %c = arith.cmpf olt, %s, %a : f64
    %t = arith.addf %s, %a : f64
    %k = affine.load %acc2[] : memref<f64>
    %v = arith.select %c, %t, %k : f64
    affine.store %v, %acc2[] : memref<f64>
  }
  %r2 = affine.load %acc2[] : memref<f64>
  affine.store %r2, %C[1] : memref<12xf64>
  return
}""")
    found = carried_scalars(source, "f")
    assert sorted(found) == [4], found  # the store into acc2 in its loop

def test_gauss_seidel_through_a_temporary_stays_fused(tmp_path):
    # B[i] = A[i-1] + A[i] + A[i+1]; A[i] = B[i] / 3: A[i] feeds the next B
    source = _inline(tmp_path, _HEADER + """
  affine.for %i = 1 to #m1()[%0] {
    %a = affine.load %A[%i - 1] : memref<12xf64>
    %b = affine.load %A[%i] : memref<12xf64>
    %c = affine.load %A[%i + 1] : memref<12xf64>
    %s = arith.addf %a, %b : f64
    %t = arith.addf %s, %c : f64
    affine.store %t, %B[%i] : memref<12xf64>
    %u = affine.load %B[%i] : memref<12xf64>
    %v = arith.divf %u, %c3 : f64
    affine.store %v, %A[%i] : memref<12xf64>
  }
  return
}""")
    assert statement_groups(source, "f", {0: 10}) == [[0, 1]]


def test_illegal_reordering_is_never_produced(tmp_path):
    # for i: { B[i] = A[i]; A[i+1] = B[i] * 2 }
    source = _inline(tmp_path, _HEADER + """
  affine.for %i = 0 to #m1()[%0] {
    %a = affine.load %A[%i] : memref<12xf64>
    affine.store %a, %B[%i] : memref<12xf64>
    %b = affine.load %B[%i] : memref<12xf64>
    %v = arith.mulf %b, %c2 : f64
    affine.store %v, %A[%i + 1] : memref<12xf64>
  }
  return
}""")
    assert statement_groups(source, "f", {0: 10}) == [[0, 1]]
    with pytest.raises(AssertionError):  # either order of the split differs
        _run_inline(source, [[0], [1]])
    with pytest.raises(AssertionError):
        _run_inline(source, [[1], [0]])


def test_legal_reordering(tmp_path):
    # for i: { B[i] = A[i-1]; A[i] = C[i] * 2 }: all of A first, then all of B
    source = _inline(tmp_path, _HEADER + """
  affine.for %i = 1 to %0 {
    %a = affine.load %A[%i - 1] : memref<12xf64>
    affine.store %a, %B[%i] : memref<12xf64>
    %c = affine.load %C[%i] : memref<12xf64>
    %v = arith.mulf %c, %c2 : f64
    affine.store %v, %A[%i] : memref<12xf64>
  }
  return
}""")
    assert statement_groups(source, "f", {0: 10}) == [[1], [0]]
    _run_inline(source, [[1], [0]])


def test_guarded_statement_and_symbolic_size(tmp_path):
    # the else branch writes A[1..4] before the then branch reads it: A first, then B
    source = _inline(tmp_path, _HEADER.replace("#m1", "#s = affine_set<(d0) : (d0 - 5 >= 0)>\n#m1") + """
  affine.for %i = 0 to #m1()[%0] {
    affine.if #s(%i) {
      %a = affine.load %A[%i] : memref<12xf64>
      affine.store %a, %B[%i] : memref<12xf64>
    } else {
      %c = affine.load %C[%i] : memref<12xf64>
      affine.store %c, %A[%i + 1] : memref<12xf64>
    }
  }
  return
}""")
    assert statement_groups(source, "f", {0: 10}) == [[1], [0]]
    assert statement_groups(source, "f", {}) == [[1], [0]]  # n stays an isl parameter
    _run_inline(source, [[1], [0]])


def test_loop_step_is_modelled(tmp_path):
    # i = 0, 2, 4, ...: A[i+1] (odd) is written, A[i+2] (even) read: no dependence
    source = _inline(tmp_path, _HEADER + """
  affine.for %i = 0 to #m1()[%0] step 2 {
    %c = affine.load %C[%i] : memref<12xf64>
    affine.store %c, %A[%i + 1] : memref<12xf64>
    %a = affine.load %A[%i + 2] : memref<12xf64>
    affine.store %a, %B[%i] : memref<12xf64>
  }
  return
}""")
    assert dependence_graph(source, "f", {0: 10}).edges == set()
    assert statement_groups(source, "f", {0: 10}) == [[0], [1]]
    _run_inline(source, [[0], [1]])
    _run_inline(source, [[1], [0]])


def test_local_buffers_fuse_their_statements(tmp_path):
    source = _inline(tmp_path, _HEADER + """
  %t = memref.alloca() : memref<1xf64>
  affine.for %i = 0 to %0 {
    %a = affine.load %A[%i] : memref<12xf64>
    affine.store %a, %t[0] : memref<1xf64>
    %b = affine.load %t[0] : memref<1xf64>
    affine.store %b, %B[%i] : memref<12xf64>
    %c = affine.load %A[%i] : memref<12xf64>
    affine.store %c, %C[%i] : memref<12xf64>
  }
  return
}""")
    graph = dependence_graph(source, "f", {0: 10})
    assert [s.array for s in graph.statements] == [None, 2, 3]
    assert statement_groups(source, "f", {0: 10}) == [[0, 1], [2]]
    text, _ = _run_inline(source, [[0, 1], [2]])
    with ir.Context():
        module = ir.Module.parse(text)
        first, second = (str(find_function(module, f"f_part{k}")) for k in range(2))
    assert "memref.alloca" in first and "memref.alloca" not in second


def test_memref_store_falls_back_to_one_group(tmp_path):
    source = _inline(tmp_path, _HEADER + """
  affine.for %i = 0 to %0 {
    %a = affine.load %A[%i] : memref<12xf64>
    affine.store %a, %B[%i] : memref<12xf64>
    memref.store %a, %C[%i] : memref<12xf64>
  }
  affine.for %i = 0 to %0 {
    %a = affine.load %A[%i] : memref<12xf64>
    affine.store %a, %C[%i] : memref<12xf64>
  }
  return
}""")
    graph = dependence_graph(source, "f", {0: 10})
    assert graph.fallback is not None and "memref.store" in graph.fallback
    assert statement_groups(source, "f", {0: 10}) == [[0, 1]]
