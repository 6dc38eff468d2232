func.func @darknet_weighted_sum(%arg0: memref<1000xf64>, %arg1: memref<1000xf64>, %arg2: memref<1000xf64>, %arg3: memref<1000xf64>) {
  %cst = arith.constant 1.000000e+00 : f64
  affine.for %arg4 = 0 to 1000 {
    %0 = affine.load %arg2[%arg4] : memref<1000xf64>
    %1 = affine.load %arg0[%arg4] : memref<1000xf64>
    %2 = arith.mulf %0, %1 : f64
    %3 = arith.subf %cst, %0 : f64
    %4 = affine.load %arg1[%arg4] : memref<1000xf64>
    %5 = arith.mulf %3, %4 : f64
    %6 = arith.addf %2, %5 : f64
    affine.store %6, %arg3[%arg4] : memref<1000xf64>
  }
  return
}
