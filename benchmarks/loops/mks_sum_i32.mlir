func.func @mks_sum_i32(%arg0: memref<1000xi32>) -> i32 {
  %c0_i32 = arith.constant 0 : i32
  %0 = affine.for %arg1 = 0 to 1000 iter_args(%arg2 = %c0_i32) -> (i32) {
    %1 = affine.load %arg0[%arg1] : memref<1000xi32>
    %2 = arith.addi %arg2, %1 : i32
    affine.yield %2 : i32
  }
  return %0 : i32
}
