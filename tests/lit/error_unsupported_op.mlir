// RUN: not %synth raise %s --target stablehlo -o %t 2>&1 | filecheck %s
// CHECK: error_unsupported_op.mlir:9:5: error: unsupported operation 'scf.for' in @k
func.func @k(%a: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f64
  affine.for %j = 0 to 1 {
    scf.for %i = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i] : memref<16xf64>
      %y = arith.mulf %x, %two : f64
      memref.store %y, %a[%i] : memref<16xf64>
    }
  }
  return
}
