func.func @blend_lighten(%arg0: memref<512x512xf64>, %arg1: memref<512x512xf64>, %arg2: memref<512x512xf64>) {
  affine.for %arg3 = 0 to 512 {
    affine.for %arg4 = 0 to 512 {
      %0 = affine.load %arg0[%arg3, %arg4] : memref<512x512xf64>
      %1 = affine.load %arg1[%arg3, %arg4] : memref<512x512xf64>
      %2 = arith.maxf %0, %1 : f64
      affine.store %2, %arg2[%arg3, %arg4] : memref<512x512xf64>
    }
  }
  return
}
