// REJECT: wrong transpose permutation (identity): A - B.
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg2: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> tensor<1500x1500xf64> attributes {synth.outputs = [3]} {
  %0 = stablehlo.transpose %arg2, dims = [0, 1] : (tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  %1 = stablehlo.subtract %arg1, %0 : tensor<1500x1500xf64>
  return %1 : tensor<1500x1500xf64>
}
