// ||x||_inf = max_i |x[i]|
func.func @norm_inf_f32(%x: memref<2048xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %m = affine.for %i = 0 to 2048 iter_args(%acc = %zero) -> (f32) {
    %v = affine.load %x[%i] : memref<2048xf32>
    %a = math.absf %v : f32
    %n = arith.maxnumf %acc, %a : f32
    affine.yield %n : f32
  }
  return %m : f32
}
