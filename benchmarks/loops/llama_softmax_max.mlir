func.func @llama_softmax_max(%arg0: memref<1024xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %0 = memref.load %arg0[%c0] : memref<1024xf32>
  %1 = affine.for %arg1 = 1 to 1024 iter_args(%arg2 = %0) -> (f32) {
    %2 = affine.load %arg0[%arg1] : memref<1024xf32>
    %3 = arith.cmpf ogt, %2, %arg2 : f32
    %4 = arith.select %3, %2, %arg2 : f32
    affine.yield %4 : f32
  }
  return %1 : f32
}
