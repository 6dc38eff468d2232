func.func @dsp_energy(%arg0: memref<1000xf64>) -> memref<f64> {
  %cst = arith.constant 0.000000e+00 : f64
  %alloca = memref.alloca() : memref<f64>
  affine.store %cst, %alloca[] : memref<f64>
  affine.for %arg1 = 0 to 1000 {
    %0 = affine.load %arg0[%arg1] : memref<1000xf64>
    %1 = arith.mulf %0, %0 : f64
    %2 = affine.load %alloca[] : memref<f64>
    %3 = arith.addf %2, %1 : f64
    affine.store %3, %alloca[] : memref<f64>
  }
  return %alloca : memref<f64>
}
