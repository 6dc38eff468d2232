// an image blend mode as written: b == 0 ? 32 : 32 - (32 - (32 - a)) / b
func.func @blend(%a: memref<64x48xf64>, %b: memref<64x48xf64>, %out: memref<64x48xf64>) {
  %c32 = arith.constant 32.0 : f64
  %c0 = arith.constant 0.0 : f64
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      %x = affine.load %a[%i, %j] : memref<64x48xf64>
      %y = affine.load %b[%i, %j] : memref<64x48xf64>
      %z = arith.cmpf oeq, %y, %c0 : f64
      %t1 = arith.subf %c32, %x : f64
      %t2 = arith.subf %c32, %t1 : f64
      %t3 = arith.subf %c32, %t2 : f64
      %q = arith.divf %t3, %y : f64
      %r = arith.subf %c32, %q : f64
      %v = arith.select %z, %c32, %r : f64
      affine.store %v, %out[%i, %j] : memref<64x48xf64>
    }
  }
  return
}
