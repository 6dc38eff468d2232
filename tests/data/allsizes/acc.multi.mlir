// WRONG: out0 accumulates the running out1 (D + prefix sums of A), not the constant D.
#a = affine_map<(i, k) -> (i, k)>
#o = affine_map<(i, k) -> (i)>
func.func @kernel_acc_raised(%arg0: tensor<1000x1200xf64>, %arg1: tensor<1000xf64>, %arg2: tensor<1000xf64>) -> tensor<1000xf64> attributes {synth.outputs = [1]} {
  %r:2 = linalg.generic {indexing_maps = [#a, #o, #o], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<1000x1200xf64>) outs(%arg1, %arg2 : tensor<1000xf64>, tensor<1000xf64>) {
  ^bb0(%a: f64, %c: f64, %d: f64):
    %s = arith.addf %c, %d : f64
    %t = arith.addf %d, %a : f64
    linalg.yield %s, %t : f64, f64
  } -> (tensor<1000xf64>, tensor<1000xf64>)
  return %r#0 : tensor<1000xf64>
}
