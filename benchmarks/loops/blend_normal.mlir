func.func @blend_normal(%arg0: memref<1024xf32>, %arg1: memref<1024xf32>, %arg2: f32, %arg3: memref<1024xf32>) {
  %cst = arith.constant 1.000000e+00 : f32
  affine.for %arg4 = 0 to 1024 {
    %0 = affine.load %arg1[%arg4] : memref<1024xf32>
    %1 = arith.mulf %arg2, %0 : f32
    %2 = arith.subf %cst, %arg2 : f32
    %3 = affine.load %arg0[%arg4] : memref<1024xf32>
    %4 = arith.mulf %2, %3 : f32
    %5 = arith.addf %1, %4 : f32
    affine.store %5, %arg3[%arg4] : memref<1024xf32>
  }
  return
}
