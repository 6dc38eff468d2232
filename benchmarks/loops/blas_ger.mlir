func.func @blas_ger(%alpha: f64, %x: memref<1000xf64>, %y: memref<1000xf64>, %A: memref<1000x1000xf64>) {
  affine.for %i = 0 to 1000 {
    %xi = affine.load %x[%i] : memref<1000xf64>
    %ax = arith.mulf %alpha, %xi : f64
    affine.for %j = 0 to 1000 {
      %yj = affine.load %y[%j] : memref<1000xf64>
      %p = arith.mulf %ax, %yj : f64
      %a = affine.load %A[%i, %j] : memref<1000x1000xf64>
      %s = arith.addf %a, %p : f64
      affine.store %s, %A[%i, %j] : memref<1000x1000xf64>
    }
  }
  return
}
