// A line of cells driven at its left end by a source signal: each step the first cell
// takes the signal's value for that step, then every inner cell becomes the mean of its
// neighbours (written through a second buffer). The step reads src at the step's index.
func.func @driven_line(%steps: i32, %n: i32, %src: memref<40xf64>, %u: memref<64xf64>, %v: memref<64xf64>) {
  %half = arith.constant 5.000000e-01 : f64
  %T = arith.index_cast %steps : i32 to index
  %N = arith.index_cast %n : i32 to index
  affine.for %t = 0 to %T {
    %s = affine.load %src[%t] : memref<40xf64>
    affine.store %s, %u[0] : memref<64xf64>
    affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%N] {
      %l = affine.load %u[%i - 1] : memref<64xf64>
      %r = affine.load %u[%i + 1] : memref<64xf64>
      %a = arith.addf %l, %r : f64
      %m = arith.mulf %half, %a : f64
      affine.store %m, %v[%i] : memref<64xf64>
    }
    affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%N] {
      %x = affine.load %v[%i] : memref<64xf64>
      affine.store %x, %u[%i] : memref<64xf64>
    }
  }
  return
}
