func.func @blend_difference(%arg0: memref<1024xi32>, %arg1: memref<1024xi32>, %arg2: memref<1024xi32>) {
  affine.for %arg3 = 0 to 1024 {
    %0 = affine.load %arg0[%arg3] : memref<1024xi32>
    %1 = affine.load %arg1[%arg3] : memref<1024xi32>
    %2 = arith.maxsi %0, %1 : i32
    %3 = arith.minsi %0, %1 : i32
    %4 = arith.subi %2, %3 : i32
    affine.store %4, %arg2[%arg3] : memref<1024xi32>
  }
  return
}
