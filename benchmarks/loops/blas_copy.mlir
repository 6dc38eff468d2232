func.func @blas_copy(%arg0: memref<1000xf32>, %arg1: memref<1000xf32>) {
  affine.for %arg2 = 0 to 1000 {
    %0 = affine.load %arg0[%arg2] : memref<1000xf32>
    affine.store %0, %arg1[%arg2] : memref<1000xf32>
  }
  return
}
