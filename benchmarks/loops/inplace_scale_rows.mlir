func.func @inplace_scale_rows(%arg0: memref<512x512xf64>, %arg1: f64) {
  affine.for %arg2 = 0 to 512 {
    affine.for %arg3 = 0 to 512 {
      %0 = affine.load %arg0[%arg2, %arg3] : memref<512x512xf64>
      %1 = arith.mulf %0, %arg1 : f64
      affine.store %1, %arg0[%arg2, %arg3] : memref<512x512xf64>
    }
  }
  return
}
