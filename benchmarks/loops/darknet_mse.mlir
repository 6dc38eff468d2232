func.func @darknet_mse(%arg0: memref<1000xf64>, %arg1: memref<1000xf64>) -> f64 {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 1.000000e+03 : f64
  %0 = affine.for %arg2 = 0 to 1000 iter_args(%arg3 = %cst) -> (f64) {
    %2 = affine.load %arg0[%arg2] : memref<1000xf64>
    %3 = affine.load %arg1[%arg2] : memref<1000xf64>
    %4 = arith.subf %2, %3 : f64
    %5 = arith.mulf %4, %4 : f64
    %6 = arith.addf %arg3, %5 : f64
    affine.yield %6 : f64
  }
  %1 = arith.divf %0, %cst_0 : f64
  return %1 : f64
}
