func.func @mks_clamp_i32(%arg0: memref<1000xi32>, %arg1: i32, %arg2: i32, %arg3: memref<1000xi32>) {
  affine.for %arg4 = 0 to 1000 {
    %0 = affine.load %arg0[%arg4] : memref<1000xi32>
    %1 = arith.maxsi %0, %arg1 : i32
    %2 = arith.minsi %1, %arg2 : i32
    affine.store %2, %arg3[%arg4] : memref<1000xi32>
  }
  return
}
