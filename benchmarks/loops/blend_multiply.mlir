func.func @blend_multiply(%base: memref<256x256xi32>, %active: memref<256x256xi32>, %out: memref<256x256xi32>) {
  %c255_i32 = arith.constant 255 : i32
  affine.for %row = 0 to 256 {
    affine.for %col = 0 to 256 {
      %b = affine.load %base[%row, %col] : memref<256x256xi32>
      %a = affine.load %active[%row, %col] : memref<256x256xi32>
      %m = arith.muli %b, %a : i32
      %d = arith.divsi %m, %c255_i32 : i32
      affine.store %d, %out[%row, %col] : memref<256x256xi32>
    }
  }
  return
}
