func.func @llama_rmsnorm_ss(%arg0: memref<1024xf32>) -> memref<f32> {
  %cst = arith.constant 0.000000e+00 : f32
  %alloca = memref.alloca() : memref<f32>
  affine.store %cst, %alloca[] : memref<f32>
  affine.for %arg1 = 0 to 1024 {
    %0 = affine.load %arg0[%arg1] : memref<1024xf32>
    %1 = affine.load %arg0[%arg1] : memref<1024xf32>
    %2 = arith.mulf %0, %1 : f32
    %3 = affine.load %alloca[] : memref<f32>
    %4 = arith.addf %3, %2 : f32
    affine.store %4, %alloca[] : memref<f32>
  }
  return %alloca : memref<f32>
}
