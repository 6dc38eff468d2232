// RUN: %synth raise %s --target linalg -q -o - | filecheck %s
// A returned scalar and a returned local buffer: results of @NAME_raised after the
// written arguments (none here); the drop-in returns them with the original signature.

// CHECK-LABEL: func.func @norms_raised(%arg0: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>)
// CHECK-SAME: synth.outputs = []
// CHECK: linalg.dot
// CHECK: linalg.mul
// CHECK-LABEL: func.func @norms(%arg0: memref<64xf32>) -> (f32, memref<64xf32>)
// CHECK: %[[R:.*]]:2 = call @norms_raised
// CHECK: tensor.extract %[[R]]#0[] : tensor<f32>
// CHECK: memref.alloc() : memref<64xf32>
// CHECK: return
func.func @norms(%x: memref<64xf32>) -> (f32, memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %sq = memref.alloca() : memref<64xf32>
  %s = affine.for %i = 0 to 64 iter_args(%acc = %zero) -> (f32) {
    %v = affine.load %x[%i] : memref<64xf32>
    %p = arith.mulf %v, %v : f32
    affine.store %p, %sq[%i] : memref<64xf32>
    %t = arith.addf %acc, %p : f32
    affine.yield %t : f32
  }
  return %s, %sq : f32, memref<64xf32>
}
