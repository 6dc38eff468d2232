func.func @dsp_vsub(%arg0: memref<1000xf64>, %arg1: memref<1000xf64>, %arg2: memref<1000xf64>) {
  affine.for %arg3 = 0 to 1000 {
    %0 = memref.load %arg0[%arg3] : memref<1000xf64>
    %1 = memref.load %arg1[%arg3] : memref<1000xf64>
    %2 = arith.subf %0, %1 : f64
    memref.store %2, %arg2[%arg3] : memref<1000xf64>
  }
  return
}
