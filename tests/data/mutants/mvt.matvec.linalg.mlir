// REJECT: wrong contraction for x2: linalg.matvec (A y2) where vecmat (A^T y2) is needed.
func.func @kernel_mvt_raised(%arg0: tensor<i32>, %arg1: tensor<2000xf64>, %arg2: tensor<2000xf64>, %arg3: tensor<2000xf64>, %arg4: tensor<2000xf64>, %arg5: tensor<2000x2000xf64>) -> (tensor<2000xf64>, tensor<2000xf64>) attributes {synth.outputs = [1, 2]} {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<2000xf64>
  %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<2000xf64>) -> tensor<2000xf64>
  %2 = linalg.matvec ins(%arg5, %arg3 : tensor<2000x2000xf64>, tensor<2000xf64>) outs(%1 : tensor<2000xf64>) -> tensor<2000xf64>
  %3 = tensor.empty() : tensor<2000xf64>
  %4 = linalg.add ins(%arg1, %2 : tensor<2000xf64>, tensor<2000xf64>) outs(%3 : tensor<2000xf64>) -> tensor<2000xf64>
  %7 = linalg.matvec ins(%arg5, %arg4 : tensor<2000x2000xf64>, tensor<2000xf64>) outs(%1 : tensor<2000xf64>) -> tensor<2000xf64>
  %8 = tensor.empty() : tensor<2000xf64>
  %9 = linalg.add ins(%arg2, %7 : tensor<2000xf64>, tensor<2000xf64>) outs(%8 : tensor<2000xf64>) -> tensor<2000xf64>
  return %4, %9 : tensor<2000xf64>, tensor<2000xf64>
}
