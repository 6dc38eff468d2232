func.func @darknet_add_bias(%arg0: memref<32x1000xf64>, %arg1: memref<32xf64>) {
  affine.for %arg2 = 0 to 32 {
    affine.for %arg3 = 0 to 1000 {
      %0 = affine.load %arg0[%arg2, %arg3] : memref<32x1000xf64>
      %1 = affine.load %arg1[%arg2] : memref<32xf64>
      %2 = arith.addf %0, %1 : f64
      affine.store %2, %arg0[%arg2, %arg3] : memref<32x1000xf64>
    }
  }
  return
}
