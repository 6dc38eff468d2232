// Equivalent at its own size (16), written by hand: the bound 14 of the mask is an i32
// data constant, which synth verify's re-instantiation by mapping sizes leaves as it is,
// so at smaller sizes the text computes something else than the original does there.
func.func @split_scale_raised(%arg0: tensor<16xf64>, %arg1: tensor<16xf64>) -> tensor<16xf64> attributes {synth.outputs = [1]} {
  %two = stablehlo.constant dense<2.0> : tensor<16xf64>
  %three = stablehlo.constant dense<3.0> : tensor<16xf64>
  %d = stablehlo.multiply %arg0, %two : tensor<16xf64>
  %t = stablehlo.multiply %arg0, %three : tensor<16xf64>
  %i = stablehlo.iota dim = 0 : tensor<16xi32>
  %k = stablehlo.constant dense<14> : tensor<16xi32>
  %m = stablehlo.compare LT, %i, %k : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
  %r = stablehlo.select %m, %d, %t : tensor<16xi1>, tensor<16xf64>
  return %r : tensor<16xf64>
}
