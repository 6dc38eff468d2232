// WRONG: also returns arg1 modified (the original never writes arg1)
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg2: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> (tensor<1500x1500xf64>, tensor<1500x1500xf64>) attributes {synth.outputs = [3, 1]} {
  %0 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  %1 = stablehlo.subtract %arg1, %0 : tensor<1500x1500xf64>
  return %1, %1 : tensor<1500x1500xf64>, tensor<1500x1500xf64>
}
