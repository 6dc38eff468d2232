// B = A^T
func.func @mat_transpose(%A: memref<256x256xf32>, %B: memref<256x256xf32>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 256 {
      %v = affine.load %A[%i, %j] : memref<256x256xf32>
      affine.store %v, %B[%j, %i] : memref<256x256xf32>
    }
  }
  return
}
