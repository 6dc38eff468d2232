// REJECT (all sizes only): off-by-one slice start (rows 1:n for 0:n) used from row 4 on, so each row i >= 4 gets row i + 1 (the last one zero); right at every n <= 4, so the bounded proof (n = 2, 3) accepts it.
func.func @kernel_diff_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg2: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> tensor<1500x1500xf64> attributes {synth.outputs = [3]} {
  %0 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<1500x1500xf64>) -> tensor<1500x1500xf64>
  %1 = stablehlo.subtract %arg1, %0 : tensor<1500x1500xf64>
  %2 = stablehlo.slice %1 [1:1500, 0:1500] : (tensor<1500x1500xf64>) -> tensor<1499x1500xf64>
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %3 = stablehlo.pad %2, %z, low = [0, 0], high = [1, 0], interior = [0, 0] : (tensor<1499x1500xf64>, tensor<f64>) -> tensor<1500x1500xf64>
  %4 = stablehlo.iota dim = 0 : tensor<1500x1500xi32>
  %5 = stablehlo.constant dense<4> : tensor<1500x1500xi32>
  %6 = stablehlo.compare LT, %4, %5 : (tensor<1500x1500xi32>, tensor<1500x1500xi32>) -> tensor<1500x1500xi1>
  %7 = stablehlo.select %6, %1, %3 : tensor<1500x1500xi1>, tensor<1500x1500xf64>
  return %7 : tensor<1500x1500xf64>
}
