// out[i + 1] = (a[i] + a[i + 2]) / 2 for i in [0, n - 2): the store is offset, the ends stay.
func.func @shifted_average(%a: memref<500xf32>, %out: memref<500xf32>) {
  %half = arith.constant 5.000000e-01 : f32
  affine.for %i = 0 to 498 {
    %0 = affine.load %a[%i] : memref<500xf32>
    %1 = affine.load %a[%i + 2] : memref<500xf32>
    %2 = arith.addf %0, %1 : f32
    %3 = arith.mulf %2, %half : f32
    affine.store %3, %out[%i + 1] : memref<500xf32>
  }
  return
}
