// WRONG: B[0][j] = A[0][j] (row 0 of A), not A[0][0]; the rank-reducing extract_slice keeps a unit dim.
func.func @kernel_row_raised(%arg0: tensor<1000x1200xf64>, %arg1: tensor<1x1200xf64>) -> tensor<1x1200xf64> attributes {synth.outputs = [1]} {
  %e = tensor.expand_shape %arg0 [[0], [1, 2]] output_shape [1000, 1200, 1] : tensor<1000x1200xf64> into tensor<1000x1200x1xf64>
  %s = tensor.extract_slice %e[0, 0, 0] [1, 1200, 1] [1, 1, 1] : tensor<1000x1200x1xf64> to tensor<1x1200xf64>
  return %s : tensor<1x1200xf64>
}
