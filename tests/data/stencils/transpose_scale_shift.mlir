// C[i][j] = A[j][i] * x[j] + alpha: a transposed load, a broadcast row, a scalar.
func.func @transpose_scale_shift(%A: memref<300x200xf64>, %x: memref<300xf64>, %alpha: f64,
                                 %C: memref<200x300xf64>) {
  affine.for %i = 0 to 200 {
    affine.for %j = 0 to 300 {
      %0 = affine.load %A[%j, %i] : memref<300x200xf64>
      %1 = affine.load %x[%j] : memref<300xf64>
      %2 = arith.mulf %0, %1 : f64
      %3 = arith.addf %2, %alpha : f64
      affine.store %3, %C[%i, %j] : memref<200x300xf64>
    }
  }
  return
}
