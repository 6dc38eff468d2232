// relu: B[i][j] = A[i][j] > 0 ? A[i][j] : 0 (arg2 = A, arg3 = B), at 1000x1200.
module {
  func.func @kernel_relu(%arg0: i32, %arg1: i32, %arg2: memref<1000x1200xf64>, %arg3: memref<1000x1200xf64>) {
    %cst = arith.constant 0.000000e+00 : f64
    %0 = arith.index_cast %arg0 : i32 to index
    %1 = arith.index_cast %arg1 : i32 to index
    affine.for %arg4 = 0 to %0 {
      affine.for %arg5 = 0 to %1 {
        %2 = affine.load %arg2[%arg4, %arg5] : memref<1000x1200xf64>
        %3 = arith.cmpf ogt, %2, %cst : f64
        %4 = arith.select %3, %2, %cst : f64
        affine.store %4, %arg3[%arg4, %arg5] : memref<1000x1200xf64>
      }
    }
    return
  }
}
