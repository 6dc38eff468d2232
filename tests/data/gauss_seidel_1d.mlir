// An in-place sequential recurrence: A[i] = (A[i-1] + A[i] + A[i+1]) / 3, i = 1..n-2.
// Each step reads the value the previous step just wrote: no tensor program of the
// grammar computes it, so `synth raise` must report exit 3 and write nothing.
#map = affine_map<()[s0] -> (s0 - 1)>
func.func @kernel_gauss_seidel_1d(%arg0: i32, %arg1: memref<100xf64>) {
  %n = arith.index_cast %arg0 : i32 to index
  %three = arith.constant 3.000000e+00 : f64
  affine.for %i = 1 to #map()[%n] {
    %l = affine.load %arg1[%i - 1] : memref<100xf64>
    %c = affine.load %arg1[%i] : memref<100xf64>
    %r = affine.load %arg1[%i + 1] : memref<100xf64>
    %s = arith.addf %l, %c : f64
    %t = arith.addf %s, %r : f64
    %v = arith.divf %t, %three : f64
    affine.store %v, %arg1[%i] : memref<100xf64>
  }
  return
}
