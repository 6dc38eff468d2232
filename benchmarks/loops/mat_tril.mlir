#set = affine_set<(d0, d1) : (d0 - d1 >= 0)>
func.func @mat_tril(%arg0: memref<1000x1000xf64>, %arg1: memref<1000x1000xf64>) {
  %cst = arith.constant 0.000000e+00 : f64
  affine.for %arg2 = 0 to 1000 {
    affine.for %arg3 = 0 to 1000 {
      affine.if #set(%arg2, %arg3) {
        %0 = affine.load %arg0[%arg2, %arg3] : memref<1000x1000xf64>
        affine.store %0, %arg1[%arg2, %arg3] : memref<1000x1000xf64>
      } else {
        affine.store %cst, %arg1[%arg2, %arg3] : memref<1000x1000xf64>
      }
    }
  }
  return
}
