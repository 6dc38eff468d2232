func.func @llama_softmax_max_f64(%arg0: memref<1000xf64>) -> memref<f64> {
  %c0 = arith.constant 0 : index
  %alloca = memref.alloca() : memref<f64>
  %0 = memref.load %arg0[%c0] : memref<1000xf64>
  affine.store %0, %alloca[] : memref<f64>
  affine.for %arg1 = 1 to 1000 {
    %1 = affine.load %arg0[%arg1] : memref<1000xf64>
    %2 = affine.load %alloca[] : memref<f64>
    %3 = arith.maximumf %2, %1 : f64
    affine.store %3, %alloca[] : memref<f64>
  }
  return %alloca : memref<f64>
}
