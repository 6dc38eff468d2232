// REJECT: dot_general operands swapped for x1: A^T y1 instead of A y1.
func.func @kernel_mvt_raised(%arg0: tensor<i32>, %arg1: tensor<2000xf64>, %arg2: tensor<2000xf64>, %arg3: tensor<2000xf64>, %arg4: tensor<2000xf64>, %arg5: tensor<2000x2000xf64>) -> (tensor<2000xf64>, tensor<2000xf64>) attributes {synth.outputs = [1, 2]} {
  %0 = stablehlo.dot_general %arg5, %arg3, contracting_dims = [0] x [0] : (tensor<2000x2000xf64>, tensor<2000xf64>) -> tensor<2000xf64>
  %1 = stablehlo.add %arg1, %0 : tensor<2000xf64>
  %2 = stablehlo.dot_general %arg4, %arg5, contracting_dims = [0] x [0] : (tensor<2000xf64>, tensor<2000x2000xf64>) -> tensor<2000xf64>
  %3 = stablehlo.add %arg2, %2 : tensor<2000xf64>
  return %1, %3 : tensor<2000xf64>, tensor<2000xf64>
}
