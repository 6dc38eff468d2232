// RUN: not %synth raise %s --target linalg -o %t 2>&1 | filecheck %s
// An uninitialised value used as data: exit 2, at its location, nothing written.
// CHECK: error_undef.mlir:6:8: error: an uninitialised value (llvm.mlir.undef) is used by 'arith.mulf'
// CHECK-NOT: Traceback
func.func @k(%a: memref<16xf64>) {
  %u = llvm.mlir.undef : f64
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf64>
    %y = arith.mulf %x, %u : f64
    affine.store %y, %a[%i] : memref<16xf64>
  }
  return
}
