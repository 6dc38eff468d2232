func.func @llama_rmsnorm_inv(%arg0: memref<1000xf64>) -> f64 {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 1.000000e+03 : f64
  %cst_1 = arith.constant 1.000000e-05 : f64
  %cst_2 = arith.constant 1.000000e+00 : f64
  %0 = affine.for %arg1 = 0 to 1000 iter_args(%arg2 = %cst) -> (f64) {
    %5 = affine.load %arg0[%arg1] : memref<1000xf64>
    %6 = arith.mulf %5, %5 : f64
    %7 = arith.addf %arg2, %6 : f64
    affine.yield %7 : f64
  }
  %1 = arith.divf %0, %cst_0 : f64
  %2 = arith.addf %1, %cst_1 : f64
  %3 = math.sqrt %2 : f64
  %4 = arith.divf %cst_2, %3 : f64
  return %4 : f64
}
