func.func @dsp_ramp(%arg0: memref<1000xf32>, %arg1: memref<1000xf32>) {
  %cst = arith.constant 1.000000e-03 : f32
  affine.for %arg2 = 0 to 1000 {
    %0 = arith.index_cast %arg2 : index to i32
    %1 = arith.sitofp %0 : i32 to f32
    %2 = arith.mulf %1, %cst : f32
    %3 = affine.load %arg0[%arg2] : memref<1000xf32>
    %4 = arith.mulf %3, %2 : f32
    affine.store %4, %arg1[%arg2] : memref<1000xf32>
  }
  return
}
