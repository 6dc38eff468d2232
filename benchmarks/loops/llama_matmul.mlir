func.func @llama_matmul(%arg0: memref<256xf32>, %arg1: memref<1024xf32>, %arg2: memref<262144xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  affine.for %arg3 = 0 to 256 {
    %0 = affine.for %arg4 = 0 to 1024 iter_args(%arg5 = %cst) -> (f32) {
      %1 = affine.load %arg2[%arg3 * 1024 + %arg4] : memref<262144xf32>
      %2 = affine.load %arg1[%arg4] : memref<1024xf32>
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %arg5, %3 : f32
      affine.yield %4 : f32
    }
    affine.store %0, %arg0[%arg3] : memref<256xf32>
  }
  return
}
