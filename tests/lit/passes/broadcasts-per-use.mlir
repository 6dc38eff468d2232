// RUN: %synth opt --pass synth-broadcasts-per-use %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// A broadcast of a scalar that two updates read (what CSE makes of two equal broadcasts in
// a shape-generic raise made static) is computed once per use, each copy into its own
// tensor.empty just before its user, so that elementwise fusion folds the scalar into each
// update. A broadcast used once, and a generic with a rank-2 input, are left alone.

#s = affine_map<(d0, d1) -> ()>
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @shared(
// CHECK: %[[B0:.*]] = linalg.generic {{.*}} ins(%[[F:.*]] : tensor<f64>)
// CHECK: %[[B1:.*]] = linalg.generic {{.*}} ins(%[[F]] : tensor<f64>) outs(%[[E1:.*]] : tensor<4x4xf64>)
// CHECK: %[[M0:.*]] = linalg.mul ins(%[[B1]], %arg0
// CHECK: linalg.mul ins(%[[B0]], %[[M0]]
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

// COUNT: synth-broadcasts-per-use: 1 rewrite
