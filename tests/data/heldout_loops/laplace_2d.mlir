// Five-point discrete Laplacian on the interior of a 256 x 256 grid.
func.func @laplace_2d(%u: memref<256x256xf64>, %lap: memref<256x256xf64>) {
  %four = arith.constant 4.0 : f64
  affine.for %i = 1 to 255 {
    affine.for %j = 1 to 255 {
      %n = affine.load %u[%i - 1, %j] : memref<256x256xf64>
      %s = affine.load %u[%i + 1, %j] : memref<256x256xf64>
      %w = affine.load %u[%i, %j - 1] : memref<256x256xf64>
      %e = affine.load %u[%i, %j + 1] : memref<256x256xf64>
      %c = affine.load %u[%i, %j] : memref<256x256xf64>
      %ns = arith.addf %n, %s : f64
      %we = arith.addf %w, %e : f64
      %sum = arith.addf %ns, %we : f64
      %c4 = arith.mulf %four, %c : f64
      %r = arith.subf %sum, %c4 : f64
      affine.store %r, %lap[%i, %j] : memref<256x256xf64>
    }
  }
  return
}
