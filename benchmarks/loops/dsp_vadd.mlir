func.func @dsp_vadd(%a: memref<1024xf32>, %b: memref<1024xf32>, %c: memref<1024xf32>) {
  affine.for %i = 0 to 1024 {
    %0 = affine.load %a[%i] : memref<1024xf32>
    %1 = affine.load %b[%i] : memref<1024xf32>
    %2 = arith.addf %0, %1 : f32
    affine.store %2, %c[%i] : memref<1024xf32>
  }
  return
}
