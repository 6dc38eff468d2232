// Deconvolution (polynomial division) written by hand, not in Polygeist's style: a
// causal filter whose output feeds back, out[k] = x[k] - sum_{i<k} w[k-1-i] * out[i].
// The first element before the loop, the sum as an iter_args reduction, constant sizes.
func.func @deconvolve(%x: memref<64xf64>, %w: memref<64xf64>, %out: memref<64xf64>) {
  %zero = arith.constant 0.0 : f64
  %x0 = affine.load %x[0] : memref<64xf64>
  affine.store %x0, %out[0] : memref<64xf64>
  affine.for %k = 1 to 64 {
    %acc = affine.for %i = 0 to affine_map<(d0) -> (d0)>(%k) iter_args(%s = %zero) -> (f64) {
      %wi = affine.load %w[%k - %i - 1] : memref<64xf64>
      %oi = affine.load %out[%i] : memref<64xf64>
      %p = arith.mulf %wi, %oi : f64
      %t = arith.addf %s, %p : f64
      affine.yield %t : f64
    }
    %xk = affine.load %x[%k] : memref<64xf64>
    %v = arith.subf %xk, %acc : f64
    affine.store %v, %out[%k] : memref<64xf64>
  }
  return
}
