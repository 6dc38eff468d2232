// WRONG: output map (i, j) -> (i, i) writes only the diagonal (C[i][i] += sum_j A[i][j]); off-diagonal stays C.
#a = affine_map<(i, j) -> (i, j)>
#o = affine_map<(i, j) -> (i, i)>
func.func @kernel_rowsum_raised(%arg0: tensor<i32>, %arg1: tensor<1500x1500xf64>, %arg3: tensor<1500x1500xf64>) -> tensor<1500x1500xf64> attributes {synth.outputs = [2]} {
  %r = linalg.generic {indexing_maps = [#a, #o], iterator_types = ["parallel", "reduction"]} ins(%arg1 : tensor<1500x1500xf64>) outs(%arg3 : tensor<1500x1500xf64>) {
  ^bb0(%a: f64, %c: f64):
    %s = arith.addf %c, %a : f64
    linalg.yield %s : f64
  } -> tensor<1500x1500xf64>
  return %r : tensor<1500x1500xf64>
}
