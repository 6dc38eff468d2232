// Evaluate p(x) = c[0] + c[1] x + ... + c[15] x^15 at 2048 points by Horner's rule.
func.func @horner_poly(%coef: memref<16xf64>, %xs: memref<2048xf64>, %ys: memref<2048xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to 2048 {
    %x = affine.load %xs[%i] : memref<2048xf64>
    %p = affine.for %k = 0 to 16 iter_args(%acc = %zero) -> (f64) {
      %c = affine.load %coef[15 - %k] : memref<16xf64>
      %t = arith.mulf %acc, %x : f64
      %u = arith.addf %t, %c : f64
      affine.yield %u : f64
    }
    affine.store %p, %ys[%i] : memref<2048xf64>
  }
  return
}
