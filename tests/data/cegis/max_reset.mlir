// x[j] = max(0, max_i alpha + A[i, j]): on uniform random inputs alpha + max_i A[i, j] is
// almost always positive, so the first program found drops the 0; validation refutes it.
func.func @max_reset(%x: memref<56xf32>, %A: memref<32x56xf32>, %y: memref<32xf32>, %z: memref<32xf32>, %alpha: f32) {
  %cst_f32 = arith.constant 0.000000e+00 : f32
  affine.for %j = 0 to 56 {
    affine.store %cst_f32, %x[%j] : memref<56xf32>
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 56 {
      %0 = affine.load %A[%i, %j] : memref<32x56xf32>
      %1 = arith.addf %alpha, %0 : f32
      %2 = affine.load %x[%j] : memref<56xf32>
      %3 = arith.maximumf %2, %1 : f32
      affine.store %3, %x[%j] : memref<56xf32>
    }
  }
  affine.for %i = 0 to 32 {
    %4 = affine.load %y[%i] : memref<32xf32>
    %5 = affine.load %z[%i] : memref<32xf32>
    %6 = arith.addf %4, %5 : f32
    affine.store %6, %y[%i] : memref<32xf32>
  }
  return
}
