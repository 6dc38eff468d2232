// REJECT: wrong transpose permutation (identity): A - B.
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg2: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> tensor<1500x1500xf64> attributes {synth.outputs = [3]} {
  %0 = tensor.empty() : tensor<1500x1500xf64>
  %t = linalg.transpose ins(%arg2 : tensor<1500x1500xf64>) outs(%0 : tensor<1500x1500xf64>) permutation = [0, 1]
  %1 = tensor.empty() : tensor<1500x1500xf64>
  %2 = linalg.sub ins(%arg1, %t : tensor<1500x1500xf64>, tensor<1500x1500xf64>) outs(%1 : tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  return %2 : tensor<1500x1500xf64>
}
