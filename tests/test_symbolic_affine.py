"""Symbolic execution of affine functions (synth.semantics.affine): every PolyBench kernel
agrees with its compiled twin at random points, op semantics agree with MLIR's, and the
terms support proofs (gemm) and refutations (an off-by-one gemm)."""

import numpy as np
import pytest
import z3

from conftest import POLYBENCH
from synth.analysis import polybench
from synth.errors import ExecutionError, InputError
from synth.execution import run_function
from synth.analysis.function import describe
from synth.analysis.model import load_kernel
from synth.frontend.reader import SourceModule, load_source
from synth.semantics.affine import execute, symbolic_inputs
from synth.semantics.support import evaluate

try:
    from polybench_reference.linear_algebra import PREPARE as _PREPARE_LA
except ModuleNotFoundError:
    _PREPARE_LA = {}
try:
    from polybench_reference.solvers_stencils_medley import PREPARE as _PREPARE_SSM
except ModuleNotFoundError:
    _PREPARE_SSM = {}
PREPARE = {**_PREPARE_LA, **_PREPARE_SSM}

TIME_PARAMS = ("tsteps", "tmax")
DIMS = (4, 3, 2, 5, 6)  # size parameters in argument order (2mm, 3mm need a 5th and 6th)
TIME_STEPS = 2


def tiny_sizes(kernel: str) -> dict[str, int]:
    dims = iter(DIMS)
    return {p: TIME_STEPS if p in TIME_PARAMS else next(dims)
            for p in polybench.size_parameters(kernel)}


def resized_kernel(kernel: str, sizes: dict[str, int]):
    """The kernel resized from its LARGE file (resizing an already tiny kernel again would
    let resize's constant-bound matching rewrite bounds like 0 as `n - 2`)."""
    path = POLYBENCH / f"{kernel}.mlir"
    if not path.exists():
        pytest.fail(f"{path.name} is missing")
    source = load_source(path)
    k = load_kernel(source, "kernel_" + kernel.replace("-", "_"))
    values = {f"arg{i}": sizes[p] for i, p in zip(k.function.size_params, polybench.size_parameters(kernel))}
    resized = k.at(values)
    return resized, describe(resized, k.name)


def tiny_kernel(kernel: str):
    return resized_kernel(kernel, tiny_sizes(kernel))


def random_arguments(kf, sizes: dict[int, int], rng) -> list:
    args = []
    for a in kf.arguments:
        if a.is_array:
            if a.type.startswith("f"):
                args.append(rng.random(a.shape))
            else:
                args.append(rng.integers(-50, 50, a.shape).astype(np.int32 if a.type == "i32" else np.int64))
        elif a.index in sizes:
            args.append(sizes[a.index])
        else:
            args.append(float(rng.uniform(0.5, 2.0)))
    return args


def bind(symbolic: list, concrete: list) -> dict[int, object]:
    """AST id of each input symbol -> its concrete value."""
    bindings = {}
    for sym, val in zip(symbolic, concrete):
        if isinstance(sym, np.ndarray):
            for idx in np.ndindex(*sym.shape):
                v = val[idx]
                bindings[sym[idx].get_id()] = int(v) if np.issubdtype(val.dtype, np.integer) else float(v)
        elif isinstance(sym, z3.ExprRef):
            bindings[sym.get_id()] = val
    return bindings


def evaluate_array(terms: np.ndarray, bindings: dict, dtype) -> np.ndarray:
    values = evaluate(list(terms.flat), bindings)
    return np.array(values, dtype=dtype).reshape(terms.shape)


def call_arguments(kf, args: list) -> list:
    return [a if isinstance(a, np.ndarray) else (kf.arguments[i].type, a) for i, a in enumerate(args)]


def check_against_compiled(source: SourceModule, kf, args: list, symbolic: list, outputs: list):
    """Evaluate `outputs` at `args` and compare every array with the compiled function."""
    compiled = run_function(source.text, kf.name, call_arguments(kf, args)).outputs
    bindings = bind(symbolic, args)
    for a in kf.arguments:
        if not a.is_array:
            continue
        want = compiled[a.index]
        got = evaluate_array(outputs[a.index], bindings, want.dtype)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300, err_msg=f"{kf.name} arg{a.index}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{kf.name} arg{a.index}")


# every PolyBench kernel -------------------------------------------------------------------


@pytest.mark.parametrize("kernel", polybench.KERNELS)
def test_kernel_agrees_with_compiled_code(kernel):
    tiny, kf = tiny_kernel(kernel)
    rng = np.random.default_rng(7)
    sizes = dict(zip(kf.size_params, (tiny_sizes(kernel)[p] for p in polybench.size_parameters(kernel))))
    args = random_arguments(kf, sizes, rng)
    if kernel in PREPARE:  # well-posed numerics (positive definite matrices, ...)
        PREPARE[kernel](rng, args)
    sizes = {i: args[i] for i in kf.size_params}  # PREPARE may shrink a size (gramschmidt)

    symbolic = symbolic_inputs(kf, prefix=f"{kernel}.", sizes=sizes)
    assert [s for s in symbolic if isinstance(s, int)] == [args[i] for i in kf.size_params]
    outputs = execute(tiny, kf.name, symbolic)

    # arrays the kernel does not write are returned as the very input symbols
    for a in kf.arguments:
        if a.is_array and a.index not in kf.writes:
            assert all(o.eq(s) for o, s in zip(outputs[a.index].flat, symbolic[a.index].flat))
    check_against_compiled(tiny, kf, args, symbolic, outputs)


def test_evaluation_agrees_with_z3_substitution():
    """The memoised evaluator against z3's own substitute + simplify (on 2mm)."""
    tiny, kf = tiny_kernel("2mm")
    symbolic = symbolic_inputs(kf)
    outputs = execute(tiny, kf.name, symbolic)
    rng = np.random.default_rng(3)
    args = random_arguments(kf, {i: symbolic[i] for i in kf.size_params}, rng)
    pairs = []
    for sym, val in zip(symbolic, args):
        if isinstance(sym, np.ndarray):
            pairs += [(sym[idx], z3.RealVal(float(val[idx]))) for idx in np.ndindex(*sym.shape)]
        elif isinstance(sym, z3.ExprRef):
            pairs.append((sym, z3.RealVal(val)))
    bindings = bind(symbolic, args)
    for i in kf.writes:
        for term in outputs[i].flat:
            exact = z3.simplify(z3.substitute(term, *pairs))
            assert float(exact.as_fraction()) == pytest.approx(evaluate([term], bindings)[0], rel=1e-12)


# proofs ---------------------------------------------------------------------------------------

OFF_BY_ONE_GEMM = """
#ub = affine_map<()[s0] -> (s0 - 1)>
func.func @kernel_gemm(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: f64, %arg4: f64,
                       %arg5: memref<2x3xf64>, %arg6: memref<2x4xf64>, %arg7: memref<4x3xf64>) {
  %0 = arith.index_cast %arg0 : i32 to index
  %1 = arith.index_cast %arg1 : i32 to index
  %2 = arith.index_cast %arg2 : i32 to index
  affine.for %i = 0 to %0 {
    affine.for %j = 0 to %1 {
      %3 = affine.load %arg5[%i, %j] : memref<2x3xf64>
      %4 = arith.mulf %3, %arg4 : f64
      affine.store %4, %arg5[%i, %j] : memref<2x3xf64>
    }
    affine.for %k = 0 to #ub()[%2] {
      affine.for %j = 0 to %1 {
        %3 = affine.load %arg6[%i, %k] : memref<2x4xf64>
        %4 = arith.mulf %arg3, %3 : f64
        %5 = affine.load %arg7[%k, %j] : memref<4x3xf64>
        %6 = arith.mulf %4, %5 : f64
        %7 = affine.load %arg5[%i, %j] : memref<2x3xf64>
        %8 = arith.addf %7, %6 : f64
        affine.store %8, %arg5[%i, %j] : memref<2x3xf64>
      }
    }
  }
  return
}
"""


def gemm_difference(source: SourceModule) -> tuple[z3.Solver, list]:
    """A solver asserting that the kernel's C differs from beta*C + alpha*A@B somewhere."""
    kf = describe(source, "kernel_gemm")
    symbolic = symbolic_inputs(kf)
    _, _, _, alpha, beta, C, A, B = symbolic
    out = execute(source, "kernel_gemm", symbolic)[5]
    expected = C * beta + A.dot(B) * alpha  # beta*C + alpha*A@B (arrays first: elementwise)
    solver = z3.Solver()
    solver.add(z3.Or([o != e for o, e in zip(out.flat, expected.flat)]))
    return solver, [alpha, beta, C, A, B, out, expected]


def test_gemm_proves_equal_to_its_formula():
    source, kf = resized_kernel("gemm", {"ni": 2, "nj": 3, "nk": 4})
    assert [a.shape for a in kf.arguments if a.is_array] == [(2, 3), (2, 4), (4, 3)]
    solver, _ = gemm_difference(source)
    assert solver.check() == z3.unsat


def test_off_by_one_gemm_is_refuted_with_a_counterexample():
    source = SourceModule("off_by_one.mlir", OFF_BY_ONE_GEMM)
    solver, (alpha, beta, C, A, B, out, expected) = gemm_difference(source)
    assert solver.check() == z3.sat
    model = solver.model()

    def value(t):
        return float(model.eval(t, model_completion=True).as_fraction())

    def values(arr):
        return np.vectorize(value, otypes=[np.float64])(arr)

    # the counterexample, run through the compiled kernel, misses beta*C + alpha*A@B
    a, b, c, alpha_v, beta_v = values(A), values(B), values(C), value(alpha), value(beta)
    args = [("i32", 2), ("i32", 3), ("i32", 4), ("f64", alpha_v), ("f64", beta_v), c, a, b]
    got = run_function(OFF_BY_ONE_GEMM, "kernel_gemm", args).outputs[5]
    want = beta_v * c + alpha_v * a @ b
    assert not np.allclose(got, want, rtol=1e-9)
    np.testing.assert_allclose(got, values(out), rtol=1e-9)
    np.testing.assert_allclose(want, values(expected), rtol=1e-9)


# op semantics against MLIR, on a kernel made to exercise them -----------------------------------

OPS_KERNEL = """
#lb = affine_map<(d0)[s0] -> (d0 - 1, s0 - 6, 0)>
#ub = affine_map<(d0)[s0] -> (d0 + 5, s0)>
#sel = affine_set<(d0)[s0] : (d0 - 3 >= 0, s0 - d0 - 2 >= 0)>
#eq = affine_set<(d0) : (d0 - 4 == 0)>
func.func @ops(%n: i32, %x: memref<6xf64>, %y: memref<6xf64>, %f: memref<16x6xf64>,
               %p: memref<6xi32>, %q: memref<6xi32>, %g: memref<10x6xi32>, %s: f64) {
  %N = arith.index_cast %n : i32 to index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %cm3 = arith.constant -3 : index
  %cm7_i32 = arith.constant -7 : i32
  %c4_i32 = arith.constant 4 : i32
  %two = arith.constant 2.0 : f64
  %zero = arith.constant 0.0 : f64
  %acc = memref.alloca() : memref<1xf64>
  affine.store %zero, %acc[0] : memref<1xf64>
  %local = memref.alloca() : memref<6xf64>
  affine.for %i = 0 to %N {
    %xi = affine.load %x[%i] : memref<6xf64>
    %yi = affine.load %y[%i] : memref<6xf64>
    %r0 = arith.cmpf oeq, %xi, %yi : f64
    %v0 = arith.select %r0, %xi, %yi : f64
    affine.store %v0, %f[0, %i] : memref<16x6xf64>
    %r1 = arith.cmpf ogt, %xi, %yi : f64
    %v1 = arith.select %r1, %xi, %yi : f64
    affine.store %v1, %f[1, %i] : memref<16x6xf64>
    %r2 = arith.cmpf oge, %xi, %yi : f64
    %v2 = arith.select %r2, %xi, %yi : f64
    affine.store %v2, %f[2, %i] : memref<16x6xf64>
    %r3 = arith.cmpf olt, %xi, %yi : f64
    %v3 = arith.select %r3, %xi, %yi : f64
    affine.store %v3, %f[3, %i] : memref<16x6xf64>
    %r4 = arith.cmpf ole, %xi, %yi : f64
    %v4 = arith.select %r4, %xi, %yi : f64
    affine.store %v4, %f[4, %i] : memref<16x6xf64>
    %r5 = arith.cmpf one, %xi, %yi : f64
    %v5 = arith.select %r5, %xi, %yi : f64
    affine.store %v5, %f[5, %i] : memref<16x6xf64>
    %r6 = arith.cmpf ord, %xi, %yi : f64
    %v6 = arith.select %r6, %xi, %yi : f64
    affine.store %v6, %f[6, %i] : memref<16x6xf64>
    %r7 = arith.cmpf ueq, %xi, %xi : f64
    %v7 = arith.select %r7, %xi, %yi : f64
    affine.store %v7, %f[7, %i] : memref<16x6xf64>
    %r8 = arith.cmpf ugt, %xi, %yi : f64
    %v8 = arith.select %r8, %xi, %yi : f64
    affine.store %v8, %f[8, %i] : memref<16x6xf64>
    %r9 = arith.cmpf uge, %xi, %yi : f64
    %v9 = arith.select %r9, %xi, %yi : f64
    affine.store %v9, %f[9, %i] : memref<16x6xf64>
    %r10 = arith.cmpf ult, %xi, %yi : f64
    %v10 = arith.select %r10, %xi, %yi : f64
    affine.store %v10, %f[10, %i] : memref<16x6xf64>
    %r11 = arith.cmpf ule, %xi, %yi : f64
    %v11 = arith.select %r11, %xi, %yi : f64
    affine.store %v11, %f[11, %i] : memref<16x6xf64>
    %r12 = arith.cmpf une, %xi, %yi : f64
    %v12 = arith.select %r12, %xi, %yi : f64
    affine.store %v12, %f[12, %i] : memref<16x6xf64>
    %r13 = arith.cmpf uno, %xi, %yi : f64
    %v13 = arith.select %r13, %xi, %yi : f64
    affine.store %v13, %f[13, %i] : memref<16x6xf64>
    %r14 = arith.cmpf true, %xi, %yi : f64
    %v14 = arith.select %r14, %xi, %yi : f64
    affine.store %v14, %f[14, %i] : memref<16x6xf64>
    %r15 = arith.cmpf false, %xi, %yi : f64
    %v15 = arith.select %r15, %xi, %yi : f64
    affine.store %v15, %f[15, %i] : memref<16x6xf64>
    %mx = arith.maximumf %xi, %yi : f64
    %mn = arith.minimumf %xi, %yi : f64
    %mxn = arith.maxnumf %xi, %mn : f64
    %mnn = arith.minnumf %mx, %yi : f64
    %sq = math.sqrt %mxn : f64
    %ex = math.exp %mnn : f64
    %p2 = math.powf %sq, %two : f64
    %pw = math.powf %ex, %xi : f64
    %lg = math.log %ex : f64
    %p3b = arith.addf %p2, %lg : f64
    %sn = math.sin %xi : f64
    %cs = math.cos %yi : f64
    %tn = math.tan %mn : f64
    %th = math.tanh %xi : f64
    %ef = math.erf %yi : f64
    %fl = math.floor %p2 : f64
    %ce = math.ceil %lg : f64
    %m1 = arith.addf %sn, %cs : f64
    %m2 = arith.addf %m1, %tn : f64
    %m3 = arith.addf %m2, %th : f64
    %m4 = arith.addf %m3, %ef : f64
    %m5 = arith.addf %m4, %fl : f64
    %m6 = arith.addf %m5, %ce : f64
    %p3 = arith.addf %p3b, %m6 : f64
    %d = arith.divf %p3, %pw : f64
    %ng = arith.negf %d : f64
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f64
    %ui = arith.uitofp %ii : i32 to f64
    %t0 = arith.mulf %ng, %fi : f64
    %t1 = arith.subf %t0, %ui : f64
    %t2 = arith.addf %t1, %s : f64
    %local_prev = affine.load %acc[0] : memref<1xf64>
    %t3 = arith.addf %local_prev, %t2 : f64
    affine.store %t3, %acc[0] : memref<1xf64>
    memref.store %t2, %local[%i] : memref<6xf64>
    %pi = affine.load %p[%i] : memref<6xi32>
    %qi = affine.load %q[%i] : memref<6xi32>
    %e0 = arith.divsi %pi, %qi : i32
    %e1 = arith.remsi %pi, %qi : i32
    %e2 = arith.floordivsi %pi, %qi : i32
    %e3 = arith.ceildivsi %pi, %qi : i32
    %e4 = arith.divsi %cm7_i32, %qi : i32
    %e5 = arith.floordivsi %pi, %c4_i32 : i32
    %e6 = arith.maxsi %pi, %qi : i32
    %e7 = arith.minsi %pi, %qi : i32
    %b0 = arith.cmpi ult, %pi, %qi : i32
    %b1 = arith.cmpi uge, %pi, %qi : i32
    %b2 = arith.cmpi sle, %pi, %qi : i32
    %b3 = arith.cmpi ne, %pi, %qi : i32
    %b4 = arith.andi %b0, %b2 : i1
    %b5 = arith.ori %b1, %b3 : i1
    %b6 = arith.xori %b4, %b5 : i1
    %w6 = arith.extui %b6 : i1 to i32
    %w0 = arith.extui %b0 : i1 to i32
    %w1 = arith.subi %w6, %w0 : i32
    %w2 = arith.muli %w1, %e7 : i32
    %w3a = arith.addi %w2, %e6 : i32
    %ia = math.absi %e1 : i32
    %ix = arith.extsi %ia : i32 to i64
    %ib = arith.extsi %b0 : i1 to i64
    %iy = arith.addi %ix, %ib : i64
    %iz = arith.trunci %iy : i64 to i32
    %iu = arith.index_castui %iz : i32 to index
    %iv = arith.index_cast %iu : index to i32
    %w3c = arith.addi %w3a, %iv : i32
    %sl = arith.shli %e7, %c4_i32 : i32
    %sr = arith.shrsi %pi, %c4_i32 : i32
    %t8 = arith.trunci %pi : i32 to i8
    %u8 = arith.extui %t8 : i8 to i32
    %su = arith.shrui %pi, %c4_i32 : i32
    %w3f = arith.xori %sr, %su : i32
    %w3d = arith.addi %sl, %w3f : i32
    %w3e = arith.addi %w3d, %u8 : i32
    %w3 = arith.addi %w3c, %w3e : i32
    %bs = arith.sitofp %b0 : i1 to f64
    %bu0 = arith.uitofp %b3 : i1 to f64
    %bsum = arith.subf %bs, %bu0 : f64
    %sf = arith.truncf %s : f64 to f32
    %se = arith.extf %sf : f32 to f64
    %ab = math.absf %ng : f64
    %rs = math.rsqrt %ab : f64
    %extra = arith.addf %rs, %se : f64
    %bsum2 = arith.addf %bsum, %extra : f64
    %acc1 = affine.load %acc[0] : memref<1xf64>
    %acc2 = arith.addf %acc1, %bsum2 : f64
    affine.store %acc2, %acc[0] : memref<1xf64>
    affine.store %e0, %g[0, %i] : memref<10x6xi32>
    affine.store %e1, %g[1, %i] : memref<10x6xi32>
    affine.store %e2, %g[2, %i] : memref<10x6xi32>
    affine.store %e3, %g[3, %i] : memref<10x6xi32>
    affine.store %e4, %g[4, %i] : memref<10x6xi32>
    affine.store %e5, %g[5, %i] : memref<10x6xi32>
    affine.store %w3, %g[6, %i] : memref<10x6xi32>
    // concrete index arithmetic, negative operands included
    %m = affine.apply affine_map<(d0) -> (d0 - 3)>(%i)
    %q0 = arith.divsi %m, %c3 : index
    %q1 = arith.remsi %m, %c3 : index
    %q2 = arith.floordivsi %m, %cm3 : index
    %q3 = arith.ceildivsi %m, %c3 : index
    %q4 = arith.addi %q0, %q1 : index
    %q5 = arith.muli %q2, %q3 : index
    %q6 = arith.subi %q4, %q5 : index
    %q7 = arith.index_cast %q6 : index to i32
    %bu = arith.cmpi ult, %m, %c3 : index
    %q8 = arith.select %bu, %q7, %c4_i32 : i32
    affine.store %q7, %g[7, %i] : memref<10x6xi32>
    affine.store %q8, %g[9, %i] : memref<10x6xi32>
    %am = affine.min affine_map<(d0) -> (d0 floordiv 2, 1)>(%i)
    %aM = affine.max affine_map<(d0) -> (d0 mod 4, d0 ceildiv 3)>(%i)
    %a0 = arith.addi %am, %aM : index
    %a1 = arith.maxsi %a0, %q2 : index
    %a2 = arith.minsi %q3, %q0 : index
    %a = arith.subi %a1, %a2 : index
    %ai = arith.index_cast %a : index to i32
    affine.store %ai, %g[8, %i] : memref<10x6xi32>
  }
  // multi-result bounds with a step, an iter_args reduction, affine.if with results
  %total = affine.for %j = max #lb(%c3)[%N] to min #ub(%c0)[%N] step 2 iter_args(%run = %zero) -> (f64) {
    %lj = affine.load %local[%j] : memref<6xf64>
    %v = affine.if #sel(%j)[%N] -> f64 {
      %h = arith.mulf %lj, %lj : f64
      affine.yield %h : f64
    } else {
      %h = arith.subf %run, %lj : f64
      affine.yield %h : f64
    }
    affine.if #eq(%j) {
      affine.store %v, %y[5] : memref<6xf64>
    }
    %nr = arith.addf %run, %v : f64
    affine.yield %nr : f64
  }
  %accv = affine.load %acc[0] : memref<1xf64>
  %fin = arith.addf %total, %accv : f64
  affine.store %fin, %x[0] : memref<6xf64>
  return
}
"""


def test_ops_kernel_covers_the_scalar_table():
    """Every arith / math op of the one scalar table (synth.semantics.scalar) is exercised
    against compiled code by the kernel below (the raised side's use of the same table is
    checked op by op by tests/test_grammar_conformance.py)."""
    from synth.semantics.scalar import ARITH_MATH

    assert [name for name in ARITH_MATH if f"{name} " not in OPS_KERNEL] == []


@pytest.mark.parametrize("n", [4, 6])
def test_op_semantics_agree_with_compiled_code(n, tmp_path):
    path = tmp_path / "ops.mlir"
    path.write_text(OPS_KERNEL)
    source = load_source(path)
    kf = describe(source, "ops")
    rng = np.random.default_rng(n)
    x = rng.random(6) + 0.1
    y = x.copy()
    y[::2] = rng.random(3) + 0.1  # some equal pairs for the equality predicates
    p = rng.integers(-20, 20, 6).astype(np.int32)
    q = rng.choice([-5, -3, -2, -1, 1, 2, 3, 7], 6).astype(np.int32)
    p[0] = -17  # negative dividends and mixed signs for the unsigned compares
    q[0] = 3
    args = [n, x, y, rng.random((16, 6)), p, q, np.zeros((10, 6), dtype=np.int32), 1.25]
    symbolic = symbolic_inputs(kf, sizes={0: n})
    assert symbolic[0] == n and isinstance(symbolic[7], z3.ArithRef)
    outputs = execute(source, "ops", symbolic)
    check_against_compiled(source, kf, args, symbolic, outputs)


# values and errors --------------------------------------------------------------------------


def _write(tmp_path, body: str, sig: str = "%a: memref<4xf64>") -> SourceModule:
    path = tmp_path / "k.mlir"
    path.write_text(f"func.func @k({sig}) {{\n{body}\n  return\n}}\n")
    return load_source(path)


def test_symbolic_inputs_names_and_sorts():
    tiny, kf = tiny_kernel("floyd-warshall")
    (n, path) = symbolic_inputs(kf, prefix="fw.")
    assert n == 4 and path.shape == (4, 4)
    assert str(path[1, 2]) == "fw.arg1[1,2]" and path[1, 2].sort() == z3.IntSort()
    tiny, kf = tiny_kernel("gemm")
    syms = symbolic_inputs(kf, sizes={0: 3})
    assert syms[:3] == [3, 3, 2] and syms[3].sort() == z3.RealSort() and str(syms[5][0, 1]) == "arg5[0,1]"


def test_uninitialised_read_is_a_fresh_symbol_that_rereads_agree(tmp_path):
    source = _write(tmp_path, """
  %l = memref.alloca() : memref<2xf64>
  %v = affine.load %l[1] : memref<2xf64>
  %w = affine.load %l[1] : memref<2xf64>
  affine.store %v, %a[0] : memref<4xf64>
  affine.store %w, %a[1] : memref<4xf64>""")
    a = symbolic_inputs(describe(source, "k"))[0]
    out = execute(source, "k", [a])[0]
    assert str(out[0]).startswith("undef_alloca") and out[0].eq(out[1])
    assert out[2].eq(a[2]) and not out[0].eq(a[0])
    again = execute(source, "k", [a])[0]
    assert not again[0].eq(out[0])  # every execution reads its own undefined values


def test_unsupported_op_is_reported_at_its_location(tmp_path):
    source = _write(tmp_path, """
  %v = affine.load %a[0] : memref<4xf64>
  %w = math.atan %v : f64
  affine.store %w, %a[0] : memref<4xf64>""")
    with pytest.raises(InputError, match="math.atan") as e:
        execute(source, "k", symbolic_inputs(describe(source, "k")))
    assert e.value.location == f"{source.path}:4:8"


def test_index_depending_on_data_is_an_error(tmp_path):
    source = _write(tmp_path, """
  %v = memref.load %b[] : memref<i32>
  %i = arith.index_cast %v : i32 to index
  %w = affine.load %a[0] : memref<4xf64>
  memref.store %w, %a[%i] : memref<4xf64>""", sig="%a: memref<4xf64>, %b: memref<i32>")
    with pytest.raises(InputError, match="depends on symbolic data") as e:
        execute(source, "k", symbolic_inputs(describe(source, "k")))
    assert e.value.location == f"{source.path}:6:3"  # the store at a data index (a load there is a select)


def test_out_of_bounds_access_is_an_error(tmp_path):
    """The interpreter runs kernels at sizes synth chose (proofs): an access past an array
    there is synth's fault (exit 1, internal error), not the input's (exit 2)."""
    source = _write(tmp_path, """
  %n = arith.index_cast %m : i32 to index
  affine.for %i = 0 to %n {
    %v = affine.load %a[%i + 1] : memref<4xf64>
    affine.store %v, %a[%i] : memref<4xf64>
  }""", sig="%m: i32, %a: memref<4xf64>")
    kf = describe(source, "k")
    assert execute(source, "k", symbolic_inputs(kf, sizes={0: 3}))[1][2].eq(z3.Real("arg1[3]"))
    with pytest.raises(ExecutionError, match=r"internal error .* index \[4\] is out of bounds") as e:
        execute(source, "k", symbolic_inputs(kf, sizes={0: 4}))
    assert e.value.exit_code == 1 and e.value.location is None


def test_size_parameter_without_value_is_an_error():
    tiny, kf = tiny_kernel("jacobi-1d")
    symbolic = symbolic_inputs(kf)  # tsteps bounds no array dimension: no value known
    assert symbolic[0] is None and symbolic[1] == 4
    with pytest.raises(InputError, match="size parameter"):
        execute(tiny, kf.name, symbolic)
