func.func @dsp_vmul(%arg0: memref<1000xi32>, %arg1: memref<1000xi32>, %arg2: memref<1000xi32>) {
  affine.for %arg3 = 0 to 1000 {
    %0 = affine.load %arg0[%arg3] : memref<1000xi32>
    %1 = affine.load %arg1[%arg3] : memref<1000xi32>
    %2 = arith.muli %0, %1 : i32
    affine.store %2, %arg2[%arg3] : memref<1000xi32>
  }
  return
}
