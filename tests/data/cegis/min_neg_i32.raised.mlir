// min(y, 0 - max_i F[i, :]): the max reduction starts from the smallest i32.
func.func @min_neg_raised(%F: tensor<64x32xi32>, %y: tensor<32xi32>) -> tensor<32xi32> attributes {synth.outputs = [1]} {
  %min = stablehlo.constant dense<-2147483648> : tensor<i32>
  %m = stablehlo.reduce(%F init: %min) applies stablehlo.maximum across dimensions = [0] : (tensor<64x32xi32>, tensor<i32>) -> tensor<32xi32>
  %c0 = stablehlo.constant dense<0> : tensor<32xi32>
  %neg = stablehlo.subtract %c0, %m : tensor<32xi32>
  %r = stablehlo.minimum %y, %neg : tensor<32xi32>
  return %r : tensor<32xi32>
}
