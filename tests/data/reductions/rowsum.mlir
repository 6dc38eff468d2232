// s[i] += A[i][j] over j: a reduction the store does not index
func.func @rowsum(%n: i32, %m: i32, %A: memref<8x9xf64>, %s: memref<8xf64>) {
  %0 = arith.index_cast %n : i32 to index
  %1 = arith.index_cast %m : i32 to index
  affine.for %i = 0 to %0 {
    affine.for %j = 0 to %1 {
      %a = affine.load %A[%i, %j] : memref<8x9xf64>
      %s0 = affine.load %s[%i] : memref<8xf64>
      %r = arith.addf %s0, %a : f64
      affine.store %r, %s[%i] : memref<8xf64>
    }
  }
  return
}
