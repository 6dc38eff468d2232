// trace(A) of a 256 x 256 matrix.
func.func @mat_trace(%A: memref<256x256xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %tr = affine.for %i = 0 to 256 iter_args(%s = %zero) -> (f64) {
    %d = affine.load %A[%i, %i] : memref<256x256xf64>
    %t = arith.addf %s, %d : f64
    affine.yield %t : f64
  }
  return %tr : f64
}
