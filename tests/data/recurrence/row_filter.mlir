// deriche's forward sweep alone: a recursive filter along each row (state in three
// scalars the j loop carries, reset per row), the rows independent of each other.
module {
  func.func @row_filter(%arg0: i32, %arg1: i32, %arg2: f64, %arg3: memref<64x48xf64>, %arg4: memref<64x48xf64>) {
    %cst = arith.constant 0.000000e+00 : f64
    %a2 = arith.constant 0.25 : f64
    %b1 = arith.constant 0.5 : f64
    %b2 = arith.constant -0.125 : f64
    %0 = arith.index_cast %arg0 : i32 to index
    %1 = arith.index_cast %arg1 : i32 to index
    affine.for %i = 0 to %0 {
      %r:3 = affine.for %j = 0 to %1 iter_args(%ym1 = %cst, %ym2 = %cst, %xm1 = %cst) -> (f64, f64, f64) {
        %x = affine.load %arg3[%i, %j] : memref<64x48xf64>
        %t0 = arith.mulf %arg2, %x : f64
        %t1 = arith.mulf %a2, %xm1 : f64
        %t2 = arith.addf %t0, %t1 : f64
        %t3 = arith.mulf %b1, %ym1 : f64
        %t4 = arith.addf %t2, %t3 : f64
        %t5 = arith.mulf %b2, %ym2 : f64
        %t6 = arith.addf %t4, %t5 : f64
        affine.store %t6, %arg4[%i, %j] : memref<64x48xf64>
        %y = affine.load %arg4[%i, %j] : memref<64x48xf64>
        affine.yield %y, %ym1, %x : f64, f64, f64
      }
    }
    return
  }
}
