// REJECT (z3 only): select(A > 1e-300, A, 0) differs for 0 < A <= 1e-300, a difference
// far below the testing tolerance.
func.func @kernel_relu_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<1000x1200xf64>, %arg3: tensor<1000x1200xf64>) -> tensor<1000x1200xf64> attributes {synth.outputs = [3]} {
  %eps = stablehlo.constant dense<1.000000e-300> : tensor<1000x1200xf64>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<1000x1200xf64>
  %0 = stablehlo.compare GT, %arg2, %eps, FLOAT : (tensor<1000x1200xf64>, tensor<1000x1200xf64>) -> tensor<1000x1200xi1>
  %1 = stablehlo.select %0, %arg2, %zero : tensor<1000x1200xi1>, tensor<1000x1200xf64>
  return %1 : tensor<1000x1200xf64>
}
