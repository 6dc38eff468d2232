func.func @dsp_xcorr(%arg0: memref<1000xf64>, %arg1: memref<1031xf64>, %arg2: memref<32xf64>) {
  %cst = arith.constant 0.000000e+00 : f64
  affine.for %arg3 = 0 to 32 {
    %0 = affine.for %arg4 = 0 to 1000 iter_args(%arg5 = %cst) -> (f64) {
      %1 = affine.load %arg0[%arg4] : memref<1000xf64>
      %2 = affine.load %arg1[%arg4 + %arg3] : memref<1031xf64>
      %3 = arith.mulf %1, %2 : f64
      %4 = arith.addf %arg5, %3 : f64
      affine.yield %4 : f64
    }
    affine.store %0, %arg2[%arg3] : memref<32xf64>
  }
  return
}
