// split_scale: B[i] = 2 A[i] for i < N - 2, 3 A[i] for the last two (N = 16, fixed shapes).
module {
  func.func @split_scale(%A: memref<16xf64>, %B: memref<16xf64>) {
    %two = arith.constant 2.0 : f64
    %three = arith.constant 3.0 : f64
    affine.for %i = 0 to 14 {
      %a = affine.load %A[%i] : memref<16xf64>
      %b = arith.mulf %a, %two : f64
      affine.store %b, %B[%i] : memref<16xf64>
    }
    affine.for %i = 14 to 16 {
      %a = affine.load %A[%i] : memref<16xf64>
      %b = arith.mulf %a, %three : f64
      affine.store %b, %B[%i] : memref<16xf64>
    }
    return
  }
}
