// One half-step of PolyBench's heat-3d: a 7-point stencil over the interior of a cube.
#map = affine_map<()[s0] -> (s0 - 1)>
module {
  func.func @heat_3d_step(%n: i32, %A: memref<120x120x120xf64>, %B: memref<120x120x120xf64>) {
    %c125 = arith.constant 1.250000e-01 : f64
    %c2 = arith.constant 2.000000e+00 : f64
    %0 = arith.index_cast %n : i32 to index
    affine.for %i = 1 to #map()[%0] {
      affine.for %j = 1 to #map()[%0] {
        affine.for %k = 1 to #map()[%0] {
          %a = affine.load %A[%i + 1, %j, %k] : memref<120x120x120xf64>
          %c = affine.load %A[%i, %j, %k] : memref<120x120x120xf64>
          %c2x = arith.mulf %c2, %c : f64
          %s0 = arith.subf %a, %c2x : f64
          %b = affine.load %A[%i - 1, %j, %k] : memref<120x120x120xf64>
          %s1 = arith.addf %s0, %b : f64
          %t0 = arith.mulf %c125, %s1 : f64
          %d = affine.load %A[%i, %j + 1, %k] : memref<120x120x120xf64>
          %s2 = arith.subf %d, %c2x : f64
          %e = affine.load %A[%i, %j - 1, %k] : memref<120x120x120xf64>
          %s3 = arith.addf %s2, %e : f64
          %t1 = arith.mulf %c125, %s3 : f64
          %f = affine.load %A[%i, %j, %k + 1] : memref<120x120x120xf64>
          %s4 = arith.subf %f, %c2x : f64
          %g = affine.load %A[%i, %j, %k - 1] : memref<120x120x120xf64>
          %s5 = arith.addf %s4, %g : f64
          %t2 = arith.mulf %c125, %s5 : f64
          %u0 = arith.addf %t0, %t1 : f64
          %u1 = arith.addf %u0, %t2 : f64
          %u2 = arith.addf %u1, %c : f64
          affine.store %u2, %B[%i, %j, %k] : memref<120x120x120xf64>
        }
      }
    }
    return
  }
}
