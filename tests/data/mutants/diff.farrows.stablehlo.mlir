// REJECT (all sizes only): rows from 4 on computed as A - B (transpose dropped); right at every n <= 4, so the bounded proof (n = 2, 3) accepts it.
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg2: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> tensor<1500x1500xf64> attributes {synth.outputs = [3]} {
  %0 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  %1 = stablehlo.subtract %arg1, %0 : tensor<1500x1500xf64>
  %2 = stablehlo.subtract %arg1, %arg2 : tensor<1500x1500xf64>
  %3 = stablehlo.iota dim = 0 : tensor<1500x1500xi32>
  %4 = stablehlo.constant dense<4> : tensor<1500x1500xi32>
  %5 = stablehlo.compare LT, %3, %4 : (tensor<1500x1500xi32>, tensor<1500x1500xi32>) -> tensor<1500x1500xi1>
  %6 = stablehlo.select %5, %1, %2 : tensor<1500x1500xi1>, tensor<1500x1500xf64>
  return %6 : tensor<1500x1500xf64>
}
