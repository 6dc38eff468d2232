func.func @blend_linear_burn(%arg0: memref<256x256xi32>, %arg1: memref<256x256xi32>, %arg2: memref<256x256xi32>) {
  %c255_i32 = arith.constant 255 : i32
  affine.for %arg3 = 0 to 256 {
    affine.for %arg4 = 0 to 256 {
      %0 = affine.load %arg0[%arg3, %arg4] : memref<256x256xi32>
      %1 = affine.load %arg1[%arg3, %arg4] : memref<256x256xi32>
      %2 = arith.addi %0, %1 : i32
      %3 = arith.subi %2, %c255_i32 : i32
      affine.store %3, %arg2[%arg3, %arg4] : memref<256x256xi32>
    }
  }
  return
}
