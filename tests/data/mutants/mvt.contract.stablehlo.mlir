// REJECT: wrong contracting dim for x2: A y2 instead of A^T y2.
func.func @kernel_mvt_raised(%arg0: tensor<i32>, %arg1: tensor<2000xf64>, %arg2: tensor<2000xf64>, %arg3: tensor<2000xf64>, %arg4: tensor<2000xf64>, %arg5: tensor<2000x2000xf64>) -> (tensor<2000xf64>, tensor<2000xf64>) attributes {synth.outputs = [1, 2]} {
  %0 = stablehlo.dot_general %arg3, %arg5, contracting_dims = [0] x [1] : (tensor<2000xf64>, tensor<2000x2000xf64>) -> tensor<2000xf64>
  %1 = stablehlo.add %arg1, %0 : tensor<2000xf64>
  %2 = stablehlo.dot_general %arg4, %arg5, contracting_dims = [0] x [1] : (tensor<2000xf64>, tensor<2000x2000xf64>) -> tensor<2000xf64>
  %3 = stablehlo.add %arg2, %2 : tensor<2000xf64>
  return %1, %3 : tensor<2000xf64>, tensor<2000xf64>
}
