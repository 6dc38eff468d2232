// y[j] = min(y[j], min_i -F[i, j]) on i32: in the integers of the proof, -max_i F[i, j]
// equals it only for inputs within i32 (a max reduction starts from the smallest i32).
func.func @min_neg(%F: memref<64x32xi32>, %y: memref<32xi32>) {
  %c0_i32 = arith.constant 0 : i32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 32 {
      %0 = affine.load %F[%i, %j] : memref<64x32xi32>
      %1 = arith.subi %c0_i32, %0 : i32
      %2 = affine.load %y[%j] : memref<32xi32>
      %3 = arith.minsi %2, %1 : i32
      affine.store %3, %y[%j] : memref<32xi32>
    }
  }
  return
}
