// REJECT: off-by-one: the last row is overwritten with beta*C (the i loop stopped at n-1).
func.func @kernel_gemm_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<f64>, %arg4: tensor<f64>, %arg5: tensor<1000x1100xf64>, %arg6: tensor<1000x1200xf64>, %arg7: tensor<1200x1100xf64>) -> tensor<1000x1100xf64> attributes {synth.outputs = [5]} {
  %0 = tensor.empty() : tensor<1000x1100xf64>
  %broadcasted = linalg.broadcast ins(%arg4 : tensor<f64>) outs(%0 : tensor<1000x1100xf64>) dimensions = [0, 1]
  %1 = tensor.empty() : tensor<1000x1100xf64>
  %2 = linalg.mul ins(%arg5, %broadcasted : tensor<1000x1100xf64>, tensor<1000x1100xf64>) outs(%1 : tensor<1000x1100xf64>) -> tensor<1000x1100xf64>
  %3 = tensor.empty() : tensor<1000x1100xf64>
  %broadcasted_0 = linalg.broadcast ins(%arg3 : tensor<f64>) outs(%3 : tensor<1000x1100xf64>) dimensions = [0, 1]
  %cst = arith.constant 0.000000e+00 : f64
  %4 = tensor.empty() : tensor<1000x1100xf64>
  %5 = linalg.fill ins(%cst : f64) outs(%4 : tensor<1000x1100xf64>) -> tensor<1000x1100xf64>
  %6 = linalg.matmul ins(%arg6, %arg7 : tensor<1000x1200xf64>, tensor<1200x1100xf64>) outs(%5 : tensor<1000x1100xf64>) -> tensor<1000x1100xf64>
  %7 = tensor.empty() : tensor<1000x1100xf64>
  %8 = linalg.mul ins(%broadcasted_0, %6 : tensor<1000x1100xf64>, tensor<1000x1100xf64>) outs(%7 : tensor<1000x1100xf64>) -> tensor<1000x1100xf64>
  %9 = tensor.empty() : tensor<1000x1100xf64>
  %10 = linalg.add ins(%2, %8 : tensor<1000x1100xf64>, tensor<1000x1100xf64>) outs(%9 : tensor<1000x1100xf64>) -> tensor<1000x1100xf64>
  %11 = tensor.extract_slice %2[999, 0] [1, 1100] [1, 1] : tensor<1000x1100xf64> to tensor<1x1100xf64>
  %12 = tensor.insert_slice %11 into %10[999, 0] [1, 1100] [1, 1] : tensor<1x1100xf64> into tensor<1000x1100xf64>
  return %12 : tensor<1000x1100xf64>
}
