// RUN: not %synth raise %s --target stablehlo -o %t 2>&1 | filecheck %s
// CHECK: error: @jacobi: the loop at {{.*}}error_nested_time_loops.mlir:6:3 repeats a computation that reads what its previous iteration wrote (a time-step loop); it is one of 2 such loops
func.func @jacobi(%a: memref<32xf64>, %b: memref<32xf64>) {
  %third = arith.constant 0.33333 : f64
  // two nested time loops: one loop of the target around one step is supported
  affine.for %t = 0 to 10 {
    affine.for %u = 0 to 3 {
      affine.for %i = 1 to 31 {
        %l = affine.load %a[%i - 1] : memref<32xf64>
        %r = affine.load %a[%i + 1] : memref<32xf64>
        %s = arith.addf %l, %r : f64
        %v = arith.mulf %s, %third : f64
        affine.store %v, %b[%i] : memref<32xf64>
      }
      affine.for %i = 1 to 31 {
        %v = affine.load %b[%i] : memref<32xf64>
        affine.store %v, %a[%i] : memref<32xf64>
      }
    }
  }
  return
}
