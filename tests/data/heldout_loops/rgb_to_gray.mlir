// Luma of interleaved RGB pixels: gray = 0.299 R + 0.587 G + 0.114 B.
func.func @rgb_to_gray(%rgb: memref<3072xf32>, %gray: memref<1024xf32>) {
  %wr = arith.constant 0.299 : f32
  %wg = arith.constant 0.587 : f32
  %wb = arith.constant 0.114 : f32
  affine.for %p = 0 to 1024 {
    %r = affine.load %rgb[%p * 3] : memref<3072xf32>
    %g = affine.load %rgb[%p * 3 + 1] : memref<3072xf32>
    %b = affine.load %rgb[%p * 3 + 2] : memref<3072xf32>
    %r1 = arith.mulf %wr, %r : f32
    %g1 = arith.mulf %wg, %g : f32
    %b1 = arith.mulf %wb, %b : f32
    %rg = arith.addf %r1, %g1 : f32
    %y = arith.addf %rg, %b1 : f32
    affine.store %y, %gray[%p] : memref<1024xf32>
  }
  return
}
