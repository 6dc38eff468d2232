// REJECT: off-by-one: the last row gets beta*C only, as if the i loop stopped at n-1.
func.func @kernel_gemm_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<f64>, %arg4: tensor<f64>, %arg5: tensor<1000x1100xf64>, %arg6: tensor<1000x1200xf64>, %arg7: tensor<1200x1100xf64>) -> tensor<1000x1100xf64> attributes {synth.outputs = [5]} {
  %0 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<f64>) -> tensor<1000x1100xf64>
  %1 = stablehlo.multiply %arg5, %0 : tensor<1000x1100xf64>
  %2 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f64>) -> tensor<1000x1100xf64>
  %3 = stablehlo.dot_general %arg6, %arg7, contracting_dims = [1] x [0] : (tensor<1000x1200xf64>, tensor<1200x1100xf64>) -> tensor<1000x1100xf64>
  %4 = stablehlo.multiply %2, %3 : tensor<1000x1100xf64>
  %5 = stablehlo.add %1, %4 : tensor<1000x1100xf64>
  %6 = stablehlo.slice %5 [0:999, 0:1100] : (tensor<1000x1100xf64>) -> tensor<999x1100xf64>
  %7 = stablehlo.slice %1 [999:1000, 0:1100] : (tensor<1000x1100xf64>) -> tensor<1x1100xf64>
  %8 = stablehlo.concatenate %6, %7, dim = 0 : (tensor<999x1100xf64>, tensor<1x1100xf64>) -> tensor<1000x1100xf64>
  return %8 : tensor<1000x1100xf64>
}
