func.func @blas_asum(%arg0: memref<1000xf64>) -> f64 {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = affine.for %arg1 = 0 to 1000 iter_args(%arg2 = %cst) -> (f64) {
    %1 = affine.load %arg0[%arg1] : memref<1000xf64>
    %2 = math.absf %1 : f64
    %3 = arith.addf %arg2, %2 : f64
    affine.yield %3 : f64
  }
  return %0 : f64
}
