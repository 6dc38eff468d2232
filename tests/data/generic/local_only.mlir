// local_only: writes a local buffer only; nothing observable (no argument written, nothing returned).
func.func @local_only(%a: memref<16xf64>) {
  %buf = memref.alloca() : memref<16xf64>
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf64>
    %y = arith.mulf %x, %x : f64
    affine.store %y, %buf[%i] : memref<16xf64>
  }
  return
}
