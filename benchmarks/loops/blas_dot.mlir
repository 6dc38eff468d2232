func.func @blas_dot(%arg0: memref<1000xf32>, %arg1: memref<1000xf32>) -> memref<f32> {
  %cst = arith.constant 0.000000e+00 : f32
  %alloca = memref.alloca() : memref<f32>
  affine.store %cst, %alloca[] : memref<f32>
  affine.for %arg2 = 0 to 1000 {
    %0 = affine.load %arg0[%arg2] : memref<1000xf32>
    %1 = affine.load %arg1[%arg2] : memref<1000xf32>
    %2 = arith.mulf %0, %1 : f32
    %3 = affine.load %alloca[] : memref<f32>
    %4 = arith.addf %3, %2 : f32
    affine.store %4, %alloca[] : memref<f32>
  }
  return %alloca : memref<f32>
}
