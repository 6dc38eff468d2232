// B[0][j] = A[0][0] for every j
module {
  func.func @kernel_row(%arg0: memref<1000x1200xf64>, %arg1: memref<1x1200xf64>) {
    affine.for %j = 0 to 1200 {
      %a = affine.load %arg0[0, 0] : memref<1000x1200xf64>
      affine.store %a, %arg1[0, %j] : memref<1x1200xf64>
    }
    return
  }
}
