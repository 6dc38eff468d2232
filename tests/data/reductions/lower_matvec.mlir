// x[i] += L[i][j] * y[j] for j <= i: a triangular matrix-vector product
func.func @lower_matvec(%n: i32, %L: memref<10x10xf64>, %y: memref<10xf64>, %x: memref<10xf64>) {
  %0 = arith.index_cast %n : i32 to index
  affine.for %i = 0 to %0 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %l = affine.load %L[%i, %j] : memref<10x10xf64>
      %v = affine.load %y[%j] : memref<10xf64>
      %p = arith.mulf %l, %v : f64
      %x0 = affine.load %x[%i] : memref<10xf64>
      %r = arith.addf %x0, %p : f64
      affine.store %r, %x[%i] : memref<10xf64>
    }
  }
  return
}
