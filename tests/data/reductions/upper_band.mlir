// out[i][j] = beta * out[i][j] + M[i][i] * X[i][j] + sum_{k > i} M[i][k] * X[k][j]:
// an upper-triangular product whose sum runs in a scalar carried by the k loop (as clang
// and Polygeist emit `double acc = 0; for (k = i + 1; ...) acc += ...;`), constant sizes
func.func @upper_band(%beta: f64, %M: memref<12x12xf64>, %X: memref<12x7xf64>, %out: memref<12x7xf64>) {
  %zero = arith.constant 0.000000e+00 : f64
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 7 {
      %acc = affine.for %k = affine_map<(d0) -> (d0 + 1)>(%i) to 12 iter_args(%s = %zero) -> (f64) {
        %m = affine.load %M[%i, %k] : memref<12x12xf64>
        %x = affine.load %X[%k, %j] : memref<12x7xf64>
        %p = arith.mulf %m, %x : f64
        %t = arith.addf %s, %p : f64
        affine.yield %t : f64
      }
      %o = affine.load %out[%i, %j] : memref<12x7xf64>
      %bo = arith.mulf %beta, %o : f64
      %d = affine.load %M[%i, %i] : memref<12x12xf64>
      %xi = affine.load %X[%i, %j] : memref<12x7xf64>
      %dx = arith.mulf %d, %xi : f64
      %u = arith.addf %bo, %dx : f64
      %r = arith.addf %u, %acc : f64
      affine.store %r, %out[%i, %j] : memref<12x7xf64>
    }
  }
  return
}
