func.func @inplace_fma(%arg0: memref<1000xf64>, %arg1: memref<1000xf64>, %arg2: memref<1000xf64>) {
  affine.for %arg3 = 0 to 1000 {
    %0 = memref.load %arg1[%arg3] : memref<1000xf64>
    %1 = memref.load %arg2[%arg3] : memref<1000xf64>
    %2 = arith.mulf %0, %1 : f64
    %3 = memref.load %arg0[%arg3] : memref<1000xf64>
    %4 = arith.addf %3, %2 : f64
    memref.store %4, %arg0[%arg3] : memref<1000xf64>
  }
  return
}
