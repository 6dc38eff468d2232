func.func @llama_softmax_exp(%arg0: memref<1024xf32>) {
  affine.for %arg1 = 0 to 1024 {
    %0 = affine.load %arg0[%arg1] : memref<1024xf32>
    %1 = math.exp %0 : f32
    affine.store %1, %arg0[%arg1] : memref<1024xf32>
  }
  return
}
