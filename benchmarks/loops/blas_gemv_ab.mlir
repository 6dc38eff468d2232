func.func @blas_gemv_ab(%arg0: f64, %arg1: f64, %arg2: memref<1000x1000xf64>, %arg3: memref<1000xf64>, %arg4: memref<1000xf64>) {
  %cst = arith.constant 0.000000e+00 : f64
  affine.for %arg5 = 0 to 1000 {
    %0 = affine.for %arg6 = 0 to 1000 iter_args(%arg7 = %cst) -> (f64) {
      %6 = affine.load %arg2[%arg5, %arg6] : memref<1000x1000xf64>
      %7 = affine.load %arg3[%arg6] : memref<1000xf64>
      %8 = arith.mulf %6, %7 : f64
      %9 = arith.addf %arg7, %8 : f64
      affine.yield %9 : f64
    }
    %1 = arith.mulf %arg0, %0 : f64
    %2 = affine.load %arg4[%arg5] : memref<1000xf64>
    %3 = arith.mulf %arg1, %2 : f64
    %4 = arith.addf %1, %3 : f64
    affine.store %4, %arg4[%arg5] : memref<1000xf64>
  }
  return
}
