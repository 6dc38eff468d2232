// y[0:n] = a * x[0:n] + y[0:n]
func.func @saxpy_n(%n: index, %a: f32, %x: memref<2048xf32>, %y: memref<2048xf32>) {
  affine.for %i = 0 to %n {
    %xi = affine.load %x[%i] : memref<2048xf32>
    %yi = affine.load %y[%i] : memref<2048xf32>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    affine.store %r, %y[%i] : memref<2048xf32>
  }
  return
}
