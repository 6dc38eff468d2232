// REJECT: swapped operands of the subtract, transpose(B) - A.
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg2: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> tensor<1500x1500xf64> attributes {synth.outputs = [3]} {
  %0 = tensor.empty() : tensor<1500x1500xf64>
  %t = linalg.transpose ins(%arg2 : tensor<1500x1500xf64>) outs(%0 : tensor<1500x1500xf64>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<1500x1500xf64>
  %2 = linalg.sub ins(%t, %arg1 : tensor<1500x1500xf64>, tensor<1500x1500xf64>) outs(%1 : tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  return %2 : tensor<1500x1500xf64>
}
