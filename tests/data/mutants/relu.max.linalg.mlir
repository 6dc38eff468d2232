// ACCEPT: linalg.max(A, 0).
func.func @kernel_relu_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<1000x1200xf64>, %arg3: tensor<1000x1200xf64>) -> tensor<1000x1200xf64> attributes {synth.outputs = [3]} {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<1000x1200xf64>
  %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<1000x1200xf64>) -> tensor<1000x1200xf64>
  %2 = tensor.empty() : tensor<1000x1200xf64>
  %3 = linalg.max ins(%arg2, %1 : tensor<1000x1200xf64>, tensor<1000x1200xf64>) outs(%2 : tensor<1000x1200xf64>) -> tensor<1000x1200xf64>
  return %3 : tensor<1000x1200xf64>
}
