// All-pairs shortest paths written by hand (not PolyBench's file): f64 distances,
// arith.minimumf instead of a compare and select, memref.load / memref.store, constant
// sizes. Step k reads row k and column k of the matrix it updates in place.
func.func @shortest_paths(%d: memref<48x48xf64>) {
  affine.for %k = 0 to 48 {
    affine.for %i = 0 to 48 {
      affine.for %j = 0 to 48 {
        %dij = memref.load %d[%i, %j] : memref<48x48xf64>
        %dik = memref.load %d[%i, %k] : memref<48x48xf64>
        %dkj = memref.load %d[%k, %j] : memref<48x48xf64>
        %via = arith.addf %dik, %dkj : f64
        %m = arith.minimumf %dij, %via : f64
        memref.store %m, %d[%i, %j] : memref<48x48xf64>
      }
    }
  }
  return
}
