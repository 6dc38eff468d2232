func.func @dsp_smooth3(%arg0: memref<1000xf64>, %arg1: memref<1000xf64>) {
  %cst = arith.constant 3.000000e+00 : f64
  affine.for %arg2 = 1 to 999 {
    %0 = affine.load %arg0[%arg2 - 1] : memref<1000xf64>
    %1 = affine.load %arg0[%arg2] : memref<1000xf64>
    %2 = arith.addf %0, %1 : f64
    %3 = affine.load %arg0[%arg2 + 1] : memref<1000xf64>
    %4 = arith.addf %2, %3 : f64
    %5 = arith.divf %4, %cst : f64
    affine.store %5, %arg1[%arg2] : memref<1000xf64>
  }
  return
}
