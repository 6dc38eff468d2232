// WRONG: adds (e1 - e2) for two distinct uninitialised tensors (garbage).
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg2: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> tensor<1500x1500xf64> attributes {synth.outputs = [3]} {
  %0 = tensor.empty() : tensor<1500x1500xf64>
  %t = linalg.transpose ins(%arg2 : tensor<1500x1500xf64>) outs(%0 : tensor<1500x1500xf64>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<1500x1500xf64>
  %2 = linalg.sub ins(%arg1, %t : tensor<1500x1500xf64>, tensor<1500x1500xf64>) outs(%1 : tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  %e1 = tensor.empty() : tensor<1500x1500xf64>
  %e2 = tensor.empty() : tensor<1500x1500xf64>
  %e3 = tensor.empty() : tensor<1500x1500xf64>
  %g = linalg.sub ins(%e1, %e3 : tensor<1500x1500xf64>, tensor<1500x1500xf64>) outs(%e2 : tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  %e4 = tensor.empty() : tensor<1500x1500xf64>
  %r = linalg.add ins(%2, %g : tensor<1500x1500xf64>, tensor<1500x1500xf64>) outs(%e4 : tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  return %r : tensor<1500x1500xf64>
}
