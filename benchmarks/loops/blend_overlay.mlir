func.func @blend_overlay(%arg0: memref<256x256xf64>, %arg1: memref<256x256xf64>, %arg2: memref<256x256xf64>) {
  %cst = arith.constant 5.000000e-01 : f64
  %cst_0 = arith.constant 2.000000e+00 : f64
  %cst_1 = arith.constant 1.000000e+00 : f64
  affine.for %arg3 = 0 to 256 {
    affine.for %arg4 = 0 to 256 {
      %0 = affine.load %arg0[%arg3, %arg4] : memref<256x256xf64>
      %1 = affine.load %arg1[%arg3, %arg4] : memref<256x256xf64>
      %2 = arith.cmpf oge, %0, %cst : f64
      %3 = arith.subf %cst_1, %0 : f64
      %4 = arith.mulf %cst_0, %3 : f64
      %5 = arith.subf %cst_1, %1 : f64
      %6 = arith.mulf %4, %5 : f64
      %7 = arith.subf %cst_1, %6 : f64
      %8 = arith.mulf %cst_0, %0 : f64
      %9 = arith.mulf %8, %1 : f64
      %10 = arith.select %2, %7, %9 : f64
      affine.store %10, %arg2[%arg3, %arg4] : memref<256x256xf64>
    }
  }
  return
}
