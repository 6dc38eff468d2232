// WRONG: B = 0 (should be the old A); A = 0 is right.
func.func @kernel_move_raised(%arg0: tensor<i32>, %arg1: tensor<1500xf64>, %arg2: tensor<1500xf64>) -> (tensor<1500xf64>, tensor<1500xf64>) attributes {synth.outputs = [1, 2]} {
  %z = stablehlo.constant dense<0.0> : tensor<1500xf64>
  return %z, %z : tensor<1500xf64>, tensor<1500xf64>
}
