// REJECT: dropped output (linalg): only y (arg4) is returned, tmp (arg5) is not.
func.func @kernel_atax_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<1900x2100xf64>, %arg3: tensor<2100xf64>, %arg4: tensor<2100xf64>, %arg5: tensor<1900xf64>) -> tensor<2100xf64> attributes {synth.outputs = [4]} {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<1900xf64>
  %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<1900xf64>) -> tensor<1900xf64>
  %2 = linalg.matvec ins(%arg2, %arg3 : tensor<1900x2100xf64>, tensor<2100xf64>) outs(%1 : tensor<1900xf64>) -> tensor<1900xf64>
  %3 = tensor.empty() : tensor<2100xf64>
  %4 = linalg.fill ins(%cst : f64) outs(%3 : tensor<2100xf64>) -> tensor<2100xf64>
  %5 = linalg.vecmat ins(%2, %arg2 : tensor<1900xf64>, tensor<1900x2100xf64>) outs(%4 : tensor<2100xf64>) -> tensor<2100xf64>
  return %5 : tensor<2100xf64>
}
