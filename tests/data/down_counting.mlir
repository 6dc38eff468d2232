// A down-counting loop as affine code writes it (the index subtracted), reading each
// element of A before the loop overwrites it: A[i] = A[i-1] * 0.5 + B[i], i from 63 down to 1.
func.func @shift_down(%A: memref<64xf64>, %B: memref<64xf64>) {
  %half = arith.constant 5.000000e-01 : f64
  affine.for %k = 0 to 63 {
    %x = affine.load %A[-%k + 62] : memref<64xf64>
    %b = affine.load %B[-%k + 63] : memref<64xf64>
    %h = arith.mulf %x, %half : f64
    %s = arith.addf %h, %b : f64
    affine.store %s, %A[-%k + 63] : memref<64xf64>
  }
  return
}
