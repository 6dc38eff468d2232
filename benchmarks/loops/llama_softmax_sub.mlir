func.func @llama_softmax_sub(%arg0: memref<1000xf64>, %arg1: f64, %arg2: memref<1000xf64>) {
  affine.for %arg3 = 0 to 1000 {
    %0 = affine.load %arg0[%arg3] : memref<1000xf64>
    %1 = arith.subf %0, %arg1 : f64
    affine.store %1, %arg2[%arg3] : memref<1000xf64>
  }
  return
}
