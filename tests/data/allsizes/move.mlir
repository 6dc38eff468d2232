// B[v] = A[v]; A[v] = 0   (B gets the old A)
module {
  func.func @kernel_move(%arg0: i32, %arg1: memref<1500xf64>, %arg2: memref<1500xf64>) {
    %0 = arith.index_cast %arg0 : i32 to index
    %z = arith.constant 0.0 : f64
    affine.for %v = 0 to %0 {
      %a = affine.load %arg1[%v] : memref<1500xf64>
      affine.store %z, %arg1[%v] : memref<1500xf64>
      affine.store %a, %arg2[%v] : memref<1500xf64>
    }
    return
  }
}
