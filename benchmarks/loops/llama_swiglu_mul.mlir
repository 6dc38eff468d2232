func.func @llama_swiglu_mul(%arg0: memref<1024xf32>, %arg1: memref<1024xf32>) {
  affine.for %arg2 = 0 to 1024 {
    %0 = affine.load %arg0[%arg2] : memref<1024xf32>
    %1 = affine.load %arg1[%arg2] : memref<1024xf32>
    %2 = arith.mulf %0, %1 : f32
    affine.store %2, %arg0[%arg2] : memref<1024xf32>
  }
  return
}
