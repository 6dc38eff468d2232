// RUN: %synth opt --pass synth-broadcasts-per-use %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-broadcasts-per-use %s | %python -c "import sys; from mlir import ir, passmanager; ctx = ir.Context(); m = ir.Module.parse(sys.stdin.read(), ctx); passmanager.PassManager.parse('builtin.module(func.func(linalg-fuse-elementwise-ops))', ctx).run(m.operation); print(m)" | %synth opt --pass synth-payload-cse - | filecheck %s --check-prefix=FUSED
// RUN: %synth opt --pass synth-broadcasts-per-use %S/inputs/broadcasts-per-use.symm.linalg.mlir 2>%t.symm.err | filecheck %s --check-prefix=SYMM
// RUN: filecheck %s --check-prefix=SYMMCOUNT < %t.symm.err
// A cheap producer that several ops use (what CSE makes of equal producers in a
// shape-generic raise made static) is computed once per use, each copy into its own
// tensor.empty just before its user, so that elementwise fusion folds it into each: a
// broadcast of a scalar (for every use), and index vectors (an iota, a constant vector,
// their elementwise combination: durbin's gather indices) for the linalg.generic ops
// that use them. Consumers are copied first, so the producers of a copy are copied for it
// too; an original left without uses is erased. A broadcast used once, a generic with a
// rank-2 input, a gather (a payload reading memory) and an index vector that a linalg.dot
// reads are left alone.

#s = affine_map<(d0, d1) -> ()>
#id = affine_map<(d0, d1) -> (d0, d1)>
#v = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @shared(
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[B0:.*]] = linalg.generic {{.*}} ins(%[[F]] : tensor<f64>) outs(%[[E0:.*]] : tensor<4x4xf64>)
// CHECK: %[[M0:.*]] = linalg.mul ins(%[[B0]], %arg0
// CHECK: %[[B1:.*]] = linalg.generic {{.*}} ins(%[[F]] : tensor<f64>) outs(%[[E1:.*]] : tensor<4x4xf64>)
// CHECK: linalg.mul ins(%[[B1]], %[[M0]]
// CHECK-NOT: linalg.generic
func.func @shared(%a: tensor<4x4xf64>) -> tensor<4x4xf64> {
  %c = arith.constant 0.2 : f64
  %e = tensor.empty() : tensor<f64>
  %f = linalg.fill ins(%c : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %e2 = tensor.empty() : tensor<4x4xf64>
  %b = linalg.generic {indexing_maps = [#s, #id], iterator_types = ["parallel", "parallel"]} ins(%f : tensor<f64>) outs(%e2 : tensor<4x4xf64>) {
  ^bb0(%in: f64, %out: f64):
    linalg.yield %in : f64
  } -> tensor<4x4xf64>
  %e3 = tensor.empty() : tensor<4x4xf64>
  %m0 = linalg.mul ins(%b, %a : tensor<4x4xf64>, tensor<4x4xf64>) outs(%e3 : tensor<4x4xf64>) -> tensor<4x4xf64>
  %e4 = tensor.empty() : tensor<4x4xf64>
  %m1 = linalg.mul ins(%b, %m0 : tensor<4x4xf64>, tensor<4x4xf64>) outs(%e4 : tensor<4x4xf64>) -> tensor<4x4xf64>
  return %m1 : tensor<4x4xf64>
}

// CHECK-LABEL: func.func @alone(
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
func.func @alone(%a: tensor<4x4xf64>) -> tensor<4x4xf64> {
  %e2 = tensor.empty() : tensor<4x4xf64>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x4xf64>) outs(%e2 : tensor<4x4xf64>) {
  ^bb0(%in: f64, %out: f64):
    linalg.yield %in : f64
  } -> tensor<4x4xf64>
  %e3 = tensor.empty() : tensor<4x4xf64>
  %m0 = linalg.mul ins(%b, %b : tensor<4x4xf64>, tensor<4x4xf64>) outs(%e3 : tensor<4x4xf64>) -> tensor<4x4xf64>
  return %m0 : tensor<4x4xf64>
}

// Two gathers of r at clamp(k - 1 - i) in a loop step, sharing the index vectors (the zero
// vector from before the loop): after the pass each gather has its own copies, fusion
// makes each gather one generic computing its indices from linalg.index (once, after
// synth-payload-cse).
// CHECK-LABEL: func.func @gathers(
// CHECK-NOT: linalg.generic
// CHECK: scf.for
// CHECK-COUNT-2: linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi64>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8xi64>, tensor<8xi64>) outs(%{{.*}} : tensor<8xi64>)
// CHECK: tensor.extract %arg0
// CHECK-COUNT-2: linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi64>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8xi64>, tensor<8xi64>) outs(%{{.*}} : tensor<8xi64>)
// CHECK: tensor.extract %{{.*}}[
// FUSED-LABEL: func.func @gathers(
// FUSED: scf.for
// FUSED: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel"]} outs(
// FUSED: linalg.index 0
// FUSED-NOT: linalg.index
// FUSED: tensor.extract %arg0
// FUSED: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel"]} outs(
// FUSED: linalg.index 0
// FUSED-NOT: linalg.index
// FUSED: tensor.extract %{{.*}}[
// FUSED: linalg.dot
// FUSED-LABEL: func.func @kept(
func.func @gathers(%r: tensor<8xf64>, %y: tensor<8xf64>) -> tensor<8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %z = arith.constant 0 : i64
  %top = arith.constant 7 : i64
  %e0 = tensor.empty() : tensor<8xi64>
  %zeros = linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%e0 : tensor<8xi64>) {
  ^bb0(%out: i64):
    linalg.yield %z : i64
  } -> tensor<8xi64>
  %res = scf.for %k = %c0 to %c7 step %c1 iter_args(%acc = %y) -> (tensor<8xf64>) {
    %ki = arith.index_cast %k : index to i64
    %e1 = tensor.empty() : tensor<8xi64>
    %minus = linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%e1 : tensor<8xi64>) {
    ^bb0(%out: i64):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %d = arith.subi %ki, %ii : i64
      linalg.yield %d : i64
    } -> tensor<8xi64>
    %e2 = tensor.empty() : tensor<8xi64>
    %clamped = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%zeros, %minus : tensor<8xi64>, tensor<8xi64>) outs(%e2 : tensor<8xi64>) {
    ^bb0(%lo: i64, %x: i64, %out: i64):
      %m = arith.maxsi %lo, %x : i64
      %n = arith.minsi %m, %top : i64
      linalg.yield %n : i64
    } -> tensor<8xi64>
    %e3 = tensor.empty() : tensor<8xf64>
    %g0 = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%clamped : tensor<8xi64>) outs(%e3 : tensor<8xf64>) {
    ^bb0(%x: i64, %out: f64):
      %j = arith.index_cast %x : i64 to index
      %v = tensor.extract %r[%j] : tensor<8xf64>
      linalg.yield %v : f64
    } -> tensor<8xf64>
    %e4 = tensor.empty() : tensor<8xf64>
    %g1 = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%clamped : tensor<8xi64>) outs(%e4 : tensor<8xf64>) {
    ^bb0(%x: i64, %out: f64):
      %j = arith.index_cast %x : i64 to index
      %v = tensor.extract %acc[%j] : tensor<8xf64>
      linalg.yield %v : f64
    } -> tensor<8xf64>
    %c = arith.constant 0.0 : f64
    %e5 = tensor.empty() : tensor<f64>
    %zero = linalg.fill ins(%c : f64) outs(%e5 : tensor<f64>) -> tensor<f64>
    %d = linalg.dot ins(%g0, %g1 : tensor<8xf64>, tensor<8xf64>) outs(%zero : tensor<f64>) -> tensor<f64>
    %s = tensor.extract %d[] : tensor<f64>
    %next = tensor.insert %s into %acc[%k] : tensor<8xf64>
    scf.yield %next : tensor<8xf64>
  }
  return %res : tensor<8xf64>
}

// An index vector a linalg.dot and a generic read: copied for the generic only; the
// gather it feeds is not copied (it reads memory), though two generics use it.
// CHECK-LABEL: func.func @kept(
// CHECK: %[[IOTA:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xf64>)
// CHECK: %[[COPY:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xf64>)
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[COPY]] : tensor<8xf64>)
// CHECK: linalg.dot ins(%[[IOTA]], %[[G]]
// CHECK: linalg.generic {{.*}} ins(%[[G]], %[[G]] :
func.func @kept(%r: tensor<8xf64>) -> (tensor<f64>, tensor<8xf64>) {
  %e0 = tensor.empty() : tensor<8xf64>
  %iota = linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%e0 : tensor<8xf64>) {
  ^bb0(%out: f64):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    linalg.yield %f : f64
  } -> tensor<8xf64>
  %e1 = tensor.empty() : tensor<8xf64>
  %g = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%iota : tensor<8xf64>) outs(%e1 : tensor<8xf64>) {
  ^bb0(%x: f64, %out: f64):
    %j = arith.fptosi %x : f64 to i64
    %jj = arith.index_cast %j : i64 to index
    %v = tensor.extract %r[%jj] : tensor<8xf64>
    linalg.yield %v : f64
  } -> tensor<8xf64>
  %c = arith.constant 0.0 : f64
  %e2 = tensor.empty() : tensor<f64>
  %zero = linalg.fill ins(%c : f64) outs(%e2 : tensor<f64>) -> tensor<f64>
  %d = linalg.dot ins(%iota, %g : tensor<8xf64>, tensor<8xf64>) outs(%zero : tensor<f64>) -> tensor<f64>
  %e3 = tensor.empty() : tensor<8xf64>
  %sum = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%g, %g : tensor<8xf64>, tensor<8xf64>) outs(%e3 : tensor<8xf64>) {
  ^bb0(%x: f64, %y: f64, %out: f64):
    %s = arith.addf %x, %y : f64
    linalg.yield %s : f64
  } -> tensor<8xf64>
  return %d, %sum : tensor<f64>, tensor<8xf64>
}

// COUNT: synth-broadcasts-per-use: 5 rewrites

// A fresh raise (regenerated by scripts/regen_pass_inputs.py): symm's alpha broadcast once
// and used by two products (alpha * B and alpha * the row sums) becomes one broadcast per
// product.
// SYMM-LABEL: func.func @kernel_symm_raised(
// SYMM: %[[B0:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<f64>) outs(%{{.*}} : tensor<20x30xf64>)
// SYMM: linalg.generic {{.*}} ins(%[[B0]], %arg6 : tensor<20x30xf64>, tensor<20x30xf64>)
// SYMM-NOT: ins(%[[B0]],
// SYMM: %[[B1:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<f64>) outs(%{{.*}} : tensor<20x30xf64>)
// SYMM-NOT: ins(%[[B0]],
// SYMM: linalg.generic {{.*}} ins(%[[B1]], %{{.*}} : tensor<20x30xf64>, tensor<20x30xf64>)
// SYMMCOUNT: synth-broadcasts-per-use: 1 rewrite
