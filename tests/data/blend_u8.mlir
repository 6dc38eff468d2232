// an 8-bit screen blend as C's promotions write it: 255 - (255 - a) * (255 - b) / 255 on
// unsigned chars read as int (extui), stored back as a char (trunci), then a threshold
func.func @screen_u8(%a: memref<32x24xi8>, %b: memref<32x24xi8>, %out: memref<32x24xi8>) {
  %c255 = arith.constant 255 : i32
  %c128 = arith.constant 128 : i32
  %c0 = arith.constant 0 : i32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 24 {
      %x8 = affine.load %a[%i, %j] : memref<32x24xi8>
      %y8 = affine.load %b[%i, %j] : memref<32x24xi8>
      %x = arith.extui %x8 : i8 to i32
      %y = arith.extui %y8 : i8 to i32
      %p = arith.subi %c255, %x : i32
      %q = arith.subi %c255, %y : i32
      %m = arith.muli %p, %q : i32
      %d = arith.divsi %m, %c255 : i32
      %s = arith.subi %c255, %d : i32
      %hi = arith.cmpi sgt, %s, %c128 : i32
      %v = arith.select %hi, %c255, %s : i32
      %v8 = arith.trunci %v : i32 to i8
      affine.store %v8, %out[%i, %j] : memref<32x24xi8>
    }
  }
  return
}
