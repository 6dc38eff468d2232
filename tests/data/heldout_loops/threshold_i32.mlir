// Binary threshold of a grey image: 255 where the pixel exceeds t, else 0.
func.func @threshold_i32(%img: memref<256x256xi32>, %t: i32, %out: memref<256x256xi32>) {
  %white = arith.constant 255 : i32
  %black = arith.constant 0 : i32
  affine.for %r = 0 to 256 {
    affine.for %c = 0 to 256 {
      %p = affine.load %img[%r, %c] : memref<256x256xi32>
      %above = arith.cmpi sgt, %p, %t : i32
      %v = arith.select %above, %white, %black : i32
      affine.store %v, %out[%r, %c] : memref<256x256xi32>
    }
  }
  return
}
