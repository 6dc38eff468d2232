func.func @darknet_mult_add(%arg0: memref<1000xf32>, %arg1: memref<1000xf32>, %arg2: memref<1000xf32>) {
  affine.for %arg3 = 0 to 1000 {
    %0 = affine.load %arg0[%arg3] : memref<1000xf32>
    %1 = affine.load %arg1[%arg3] : memref<1000xf32>
    %2 = arith.mulf %0, %1 : f32
    %3 = affine.load %arg2[%arg3] : memref<1000xf32>
    %4 = arith.addf %3, %2 : f32
    affine.store %4, %arg2[%arg3] : memref<1000xf32>
  }
  return
}
