// y = A x, the sizes read with memref.dim
func.func @matvec(%A: memref<?x?xf64>, %x: memref<?xf64>, %y: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %A, %c0 : memref<?x?xf64>
  %n = memref.dim %A, %c1 : memref<?x?xf64>
  affine.for %i = 0 to %m {
    %z = arith.constant 0.0 : f64
    %s = affine.for %j = 0 to %n iter_args(%acc = %z) -> (f64) {
      %a = affine.load %A[%i, %j] : memref<?x?xf64>
      %b = affine.load %x[%j] : memref<?xf64>
      %p = arith.mulf %a, %b : f64
      %t = arith.addf %acc, %p : f64
      affine.yield %t : f64
    }
    affine.store %s, %y[%i] : memref<?xf64>
  }
  return
}
