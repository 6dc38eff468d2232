// G[i][j] += w[k] * X[k][i] * X[k][j] for j < i (strictly lower), scaled by alpha
func.func @weighted_gram(%n: i32, %m: i32, %alpha: f64, %w: memref<12xf64>, %X: memref<12x7xf64>, %G: memref<7x7xf64>) {
  %0 = arith.index_cast %n : i32 to index
  %1 = arith.index_cast %m : i32 to index
  affine.for %i = 0 to %1 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      affine.for %k = 0 to %0 {
        %wk = affine.load %w[%k] : memref<12xf64>
        %a = affine.load %X[%k, %i] : memref<12x7xf64>
        %b = affine.load %X[%k, %j] : memref<12x7xf64>
        %wa = arith.mulf %wk, %a : f64
        %t = arith.mulf %wa, %b : f64
        %at = arith.mulf %alpha, %t : f64
        %g = affine.load %G[%i, %j] : memref<7x7xf64>
        %r = arith.addf %g, %at : f64
        affine.store %r, %G[%i, %j] : memref<7x7xf64>
      }
    }
  }
  return
}
