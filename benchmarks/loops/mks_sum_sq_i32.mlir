func.func @mks_sum_sq_i32(%arg0: memref<1000xi32>, %arg1: memref<1000xi32>) -> memref<i32> {
  %c0_i32 = arith.constant 0 : i32
  %alloca = memref.alloca() : memref<i32>
  affine.store %c0_i32, %alloca[] : memref<i32>
  affine.for %arg2 = 0 to 1000 {
    %0 = affine.load %arg0[%arg2] : memref<1000xi32>
    %1 = affine.load %arg1[%arg2] : memref<1000xi32>
    %2 = arith.subi %0, %1 : i32
    %3 = arith.muli %2, %2 : i32
    %4 = affine.load %alloca[] : memref<i32>
    %5 = arith.addi %4, %3 : i32
    affine.store %5, %alloca[] : memref<i32>
  }
  return %alloca : memref<i32>
}
