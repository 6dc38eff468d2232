// REJECT (z3 only): a linalg.generic computing A > 1e-300 ? A : 0.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @kernel_relu_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<1000x1200xf64>, %arg3: tensor<1000x1200xf64>) -> tensor<1000x1200xf64> attributes {synth.outputs = [3]} {
  %0 = tensor.empty() : tensor<1000x1200xf64>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<1000x1200xf64>) outs(%0 : tensor<1000x1200xf64>) {
  ^bb0(%a: f64, %out: f64):
    %eps = arith.constant 1.000000e-300 : f64
    %zero = arith.constant 0.000000e+00 : f64
    %p = arith.cmpf ogt, %a, %eps : f64
    %r = arith.select %p, %a, %zero : f64
    linalg.yield %r : f64
  } -> tensor<1000x1200xf64>
  return %1 : tensor<1000x1200xf64>
}
