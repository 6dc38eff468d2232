// ACCEPT: A - transpose(B), for every size.
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<?x?xf64>, %arg2: tensor<?x?xf64>, %arg3: tensor<?x?xf64>) -> tensor<?x?xf64> attributes {synth.outputs = [3]} {
  %0 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %1 = stablehlo.subtract %arg1, %0 : tensor<?x?xf64>
  return %1 : tensor<?x?xf64>
}
