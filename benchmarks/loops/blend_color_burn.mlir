func.func @blend_color_burn(%arg0: memref<256x256xf64>, %arg1: memref<256x256xf64>, %arg2: memref<256x256xf64>) {
  %cst = arith.constant 0.000000e+00 : f64
  %cst_0 = arith.constant 1.000000e+00 : f64
  affine.for %arg3 = 0 to 256 {
    affine.for %arg4 = 0 to 256 {
      %0 = affine.load %arg1[%arg3, %arg4] : memref<256x256xf64>
      %1 = arith.cmpf oeq, %0, %cst : f64
      %2 = affine.load %arg0[%arg3, %arg4] : memref<256x256xf64>
      %3 = arith.subf %cst_0, %2 : f64
      %4 = arith.divf %3, %0 : f64
      %5 = arith.subf %cst_0, %4 : f64
      %6 = arith.select %1, %cst_0, %5 : f64
      affine.store %6, %arg2[%arg3, %arg4] : memref<256x256xf64>
    }
  }
  return
}
