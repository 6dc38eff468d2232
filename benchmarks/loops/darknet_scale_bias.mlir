func.func @darknet_scale_bias(%arg0: memref<64x1024xf32>, %arg1: memref<64xf32>) {
  affine.for %arg2 = 0 to 64 {
    affine.for %arg3 = 0 to 1024 {
      %0 = affine.load %arg1[%arg2] : memref<64xf32>
      %1 = affine.load %arg0[%arg2, %arg3] : memref<64x1024xf32>
      %2 = arith.mulf %1, %0 : f32
      affine.store %2, %arg0[%arg2, %arg3] : memref<64x1024xf32>
    }
  }
  return
}
