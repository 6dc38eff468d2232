func.func @blas_waxpby(%alpha: f64, %x: memref<1000xf64>, %beta: f64, %y: memref<1000xf64>) -> memref<1000xf64> {
  %w = memref.alloc() : memref<1000xf64>
  affine.for %i = 0 to 1000 {
    %0 = affine.load %x[%i] : memref<1000xf64>
    %1 = arith.mulf %alpha, %0 : f64
    %2 = affine.load %y[%i] : memref<1000xf64>
    %3 = arith.mulf %beta, %2 : f64
    %4 = arith.addf %1, %3 : f64
    affine.store %4, %w[%i] : memref<1000xf64>
  }
  return %w : memref<1000xf64>
}
