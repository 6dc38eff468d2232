func.func @blend_linear_dodge(%arg0: memref<1024xf32>, %arg1: memref<1024xf32>, %arg2: memref<1024xf32>) {
  %cst = arith.constant 1.000000e+00 : f32
  affine.for %arg3 = 0 to 1024 {
    %0 = affine.load %arg0[%arg3] : memref<1024xf32>
    %1 = affine.load %arg1[%arg3] : memref<1024xf32>
    %2 = arith.addf %0, %1 : f32
    %3 = arith.minf %2, %cst : f32
    affine.store %3, %arg2[%arg3] : memref<1024xf32>
  }
  return
}
