func.func @mks_max_i32(%arg0: memref<1000xi32>) -> i32 {
  %c0_i32 = arith.constant 0 : i32
  %0 = affine.for %arg1 = 0 to 1000 iter_args(%arg2 = %c0_i32) -> (i32) {
    %1 = affine.load %arg0[%arg1] : memref<1000xi32>
    %2 = arith.cmpi sgt, %1, %arg2 : i32
    %3 = arith.select %2, %1, %arg2 : i32
    affine.yield %3 : i32
  }
  return %0 : i32
}
