// ACCEPT: maximum(A, 0) equals select(A > 0, A, 0) (at A = 0 both are 0).
func.func @kernel_relu_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<1000x1200xf64>, %arg3: tensor<1000x1200xf64>) -> tensor<1000x1200xf64> attributes {synth.outputs = [3]} {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<1000x1200xf64>
  %0 = stablehlo.maximum %arg2, %cst : tensor<1000x1200xf64>
  return %0 : tensor<1000x1200xf64>
}
