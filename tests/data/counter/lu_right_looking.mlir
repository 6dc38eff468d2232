#map_next = affine_map<(d0) -> (d0 + 1)>
// LU factorisation without pivoting, right-looking (the k, i, j order of a textbook):
// step k stores the multipliers of column k below the diagonal, then updates the
// trailing block. Constant sizes, as a hand-written kernel has them. Its k loop reads
// what earlier steps wrote (row k, column k): a counter loop.
func.func @lu_kij(%A: memref<24x24xf64>) {
  affine.for %k = 0 to 24 {
    affine.for %i = #map_next(%k) to 24 {
      %aik = affine.load %A[%i, %k] : memref<24x24xf64>
      %akk = affine.load %A[%k, %k] : memref<24x24xf64>
      %l = arith.divf %aik, %akk : f64
      affine.store %l, %A[%i, %k] : memref<24x24xf64>
    }
    affine.for %i = #map_next(%k) to 24 {
      affine.for %j = #map_next(%k) to 24 {
        %aij = affine.load %A[%i, %j] : memref<24x24xf64>
        %lik = affine.load %A[%i, %k] : memref<24x24xf64>
        %akj = affine.load %A[%k, %j] : memref<24x24xf64>
        %p = arith.mulf %lik, %akj : f64
        %d = arith.subf %aij, %p : f64
        affine.store %d, %A[%i, %j] : memref<24x24xf64>
      }
    }
  }
  return
}
