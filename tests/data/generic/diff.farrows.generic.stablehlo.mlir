// REJECT: rows from 4 on computed as A - B (transpose dropped); right at every n <= 4.
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<?x?xf64>, %arg2: tensor<?x?xf64>, %arg3: tensor<?x?xf64>) -> tensor<?x?xf64> attributes {synth.outputs = [3]} {
  %0 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %1 = stablehlo.subtract %arg1, %0 : tensor<?x?xf64>
  %2 = stablehlo.subtract %arg1, %arg2 : tensor<?x?xf64>
  %n = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x?xf64>) -> tensor<i32>
  %r = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %shape = stablehlo.concatenate %r, %r, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %3 = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi32>) -> tensor<?x?xi32>
  %c4 = stablehlo.constant dense<4> : tensor<i32>
  %4 = stablehlo.dynamic_broadcast_in_dim %c4, %shape, dims = [] : (tensor<i32>, tensor<2xi32>) -> tensor<?x?xi32>
  %5 = stablehlo.compare LT, %3, %4 : (tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?x?xi1>
  %6 = stablehlo.select %5, %1, %2 : tensor<?x?xi1>, tensor<?x?xf64>
  return %6 : tensor<?x?xf64>
}
