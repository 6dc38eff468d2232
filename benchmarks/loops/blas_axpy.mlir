func.func @blas_axpy(%alpha: f64, %x: memref<1000xf64>, %y: memref<1000xf64>) {
  affine.for %i = 0 to 1000 {
    %0 = affine.load %x[%i] : memref<1000xf64>
    %1 = arith.mulf %alpha, %0 : f64
    %2 = affine.load %y[%i] : memref<1000xf64>
    %3 = arith.addf %2, %1 : f64
    affine.store %3, %y[%i] : memref<1000xf64>
  }
  return
}
