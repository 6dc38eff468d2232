// double dot(double *u, double *v) over the first 512 entries; the sum kept in a local.
func.func @dyn_dot(%arg0: memref<?xf64>, %arg1: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f64
  %alloca = memref.alloca() : memref<1xf64>
  affine.store %cst, %alloca[0] : memref<1xf64>
  affine.for %arg2 = 0 to 512 {
    %1 = affine.load %arg0[%arg2] : memref<?xf64>
    %2 = affine.load %arg1[%arg2] : memref<?xf64>
    %3 = arith.mulf %1, %2 : f64
    %4 = affine.load %alloca[0] : memref<1xf64>
    %5 = arith.addf %4, %3 : f64
    affine.store %5, %alloca[0] : memref<1xf64>
  }
  %0 = memref.load %alloca[%c0] : memref<1xf64>
  return %0 : f64
}
