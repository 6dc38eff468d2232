func.func @dsp_moving_average(%arg0: memref<1007xf64>, %arg1: memref<1000xf64>) {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 1.250000e-01 : f64
  affine.for %arg2 = 0 to 1000 {
    %0 = affine.for %arg3 = 0 to 8 iter_args(%arg4 = %cst) -> (f64) {
      %3 = arith.addi %arg2, %arg3 : index
      %4 = memref.load %arg0[%3] : memref<1007xf64>
      %5 = arith.addf %arg4, %4 : f64
      affine.yield %5 : f64
    }
    %1 = arith.mulf %0, %cst_0 : f64
    memref.store %1, %arg1[%arg2] : memref<1000xf64>
  }
  return
}
