// REJECT: dropped output: tmp (arg5) is written by the original but not returned
// (synth.outputs = [4]), so it keeps its input value.
func.func @kernel_atax_raised(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<1900x2100xf64>, %arg3: tensor<2100xf64>, %arg4: tensor<2100xf64>, %arg5: tensor<1900xf64>) -> tensor<2100xf64> attributes {synth.outputs = [4]} {
  %0 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<1900x2100xf64>, tensor<2100xf64>) -> tensor<1900xf64>
  %1 = stablehlo.dot_general %arg2, %0, contracting_dims = [0] x [0] : (tensor<1900x2100xf64>, tensor<1900xf64>) -> tensor<2100xf64>
  return %1 : tensor<2100xf64>
}
