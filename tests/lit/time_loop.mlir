// A time-step loop stays a loop of the target, around the step's tensor program.
// RUN: %synth raise %s --target stablehlo -o %t -q && filecheck %s < %t
// CHECK: func.func @jacobi_raised{{.*}}for every step count by induction{{.*}}synth.validation = "z3"
// CHECK: stablehlo.while
// CHECK: stablehlo.constant dense<10> : tensor<i64>
// CHECK: stablehlo.slice
func.func @jacobi(%a: memref<32xf64>, %b: memref<32xf64>) {
  %third = arith.constant 0.33333 : f64
  affine.for %t = 0 to 10 {
    affine.for %i = 1 to 31 {
      %l = affine.load %a[%i - 1] : memref<32xf64>
      %c = affine.load %a[%i] : memref<32xf64>
      %r = affine.load %a[%i + 1] : memref<32xf64>
      %s = arith.addf %l, %c : f64
      %s2 = arith.addf %s, %r : f64
      %v = arith.mulf %s2, %third : f64
      affine.store %v, %b[%i] : memref<32xf64>
    }
    affine.for %i = 1 to 31 {
      %v = affine.load %b[%i] : memref<32xf64>
      affine.store %v, %a[%i] : memref<32xf64>
    }
  }
  return
}
