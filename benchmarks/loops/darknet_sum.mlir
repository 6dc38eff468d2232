func.func @darknet_sum(%arg0: memref<1000xf32>) -> f32 {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = affine.for %arg1 = 0 to 1000 iter_args(%arg2 = %cst) -> (f32) {
    %1 = affine.load %arg0[%arg1] : memref<1000xf32>
    %2 = arith.addf %arg2, %1 : f32
    affine.yield %2 : f32
  }
  return %0 : f32
}
