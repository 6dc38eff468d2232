func.func @darknet_l2(%arg0: memref<1000xf32>, %arg1: memref<1000xf32>, %arg2: memref<1000xf32>, %arg3: memref<1000xf32>) {
  affine.for %arg4 = 0 to 1000 {
    %0 = affine.load %arg1[%arg4] : memref<1000xf32>
    %1 = affine.load %arg0[%arg4] : memref<1000xf32>
    %2 = arith.subf %0, %1 : f32
    %3 = arith.mulf %2, %2 : f32
    affine.store %3, %arg3[%arg4] : memref<1000xf32>
    affine.store %2, %arg2[%arg4] : memref<1000xf32>
  }
  return
}
