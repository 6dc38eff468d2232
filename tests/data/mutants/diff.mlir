// diff: C[i][j] = A[i][j] - B[j][i] (arg1 = A, arg2 = B, arg3 = C), square, at 1500x1500.
module {
  func.func @kernel_diff(%arg0: i32, %arg1: memref<1500x1500xf64>, %arg2: memref<1500x1500xf64>, %arg3: memref<1500x1500xf64>) {
    %0 = arith.index_cast %arg0 : i32 to index
    affine.for %arg4 = 0 to %0 {
      affine.for %arg5 = 0 to %0 {
        %1 = affine.load %arg1[%arg4, %arg5] : memref<1500x1500xf64>
        %2 = affine.load %arg2[%arg5, %arg4] : memref<1500x1500xf64>
        %3 = arith.subf %1, %2 : f64
        affine.store %3, %arg3[%arg4, %arg5] : memref<1500x1500xf64>
      }
    }
    return
  }
}
