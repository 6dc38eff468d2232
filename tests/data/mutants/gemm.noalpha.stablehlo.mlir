// REJECT: synth's gemm output with the scale factor alpha dropped: beta*C + A*B.
module {
  func.func @kernel_gemm_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<f64>, %arg4: tensor<f64>, %arg5: tensor<1000x1100xf64>, %arg6: tensor<1000x1200xf64>, %arg7: tensor<1200x1100xf64>) -> tensor<1000x1100xf64> attributes {synth.outputs = [5]} {
  %0 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<f64>) -> tensor<1000x1100xf64>
  %1 = stablehlo.multiply %arg5, %0 : tensor<1000x1100xf64>
  %2 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f64>) -> tensor<1000x1100xf64>
  %3 = stablehlo.dot_general %arg6, %arg7, contracting_dims = [1] x [0] : (tensor<1000x1200xf64>, tensor<1200x1100xf64>) -> tensor<1000x1100xf64>
  %4 = stablehlo.multiply %2, %3 : tensor<1000x1100xf64>
    %5 = stablehlo.add %1, %3 : tensor<1000x1100xf64>
    return %5 : tensor<1000x1100xf64>
  }
}
