func.func @blend_screen(%arg0: memref<1024xi32>, %arg1: memref<1024xi32>, %arg2: memref<1024xi32>) {
  %c255_i32 = arith.constant 255 : i32
  affine.for %arg3 = 0 to 1024 {
    %0 = affine.load %arg0[%arg3] : memref<1024xi32>
    %1 = affine.load %arg1[%arg3] : memref<1024xi32>
    %2 = arith.addi %0, %1 : i32
    %3 = arith.muli %0, %1 : i32
    %4 = arith.divsi %3, %c255_i32 : i32
    %5 = arith.subi %2, %4 : i32
    affine.store %5, %arg2[%arg3] : memref<1024xi32>
  }
  return
}
