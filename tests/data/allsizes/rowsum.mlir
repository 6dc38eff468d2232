// C[i][j] += sum_k A[j][k] for every i, j
module {
  func.func @kernel_rowsum(%arg0: i32, %arg1: memref<1500x1500xf64>, %arg3: memref<1500x1500xf64>) {
    %0 = arith.index_cast %arg0 : i32 to index
    affine.for %i = 0 to %0 {
      affine.for %j = 0 to %0 {
        affine.for %k = 0 to %0 {
          %c = affine.load %arg3[%i, %j] : memref<1500x1500xf64>
          %a = affine.load %arg1[%j, %k] : memref<1500x1500xf64>
          %s = arith.addf %c, %a : f64
          affine.store %s, %arg3[%i, %j] : memref<1500x1500xf64>
        }
      }
    }
    return
  }
}
