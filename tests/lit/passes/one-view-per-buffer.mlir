// RUN: %synth opt --pass synth-one-view-per-buffer %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-one-view-per-buffer %S/inputs/one-view-per-buffer.doitgen.linalg-dropin.mlir 2>%t.derr | filecheck %s --check-prefix=DOITGEN
// RUN: filecheck %s --check-prefix=COUNT < %t.derr
// synth cc's drop-in reads an in-out argument as `to_tensor %A restrict` and writes its
// result back into %A; eliminate-empty-tensors then computes the result in a second
// `to_tensor %A restrict writable`. Two restrict tensors of one buffer told bufferization
// they do not alias (doitgen: A overwritten while still read). The later tensor becomes
// the first, writable. A write of the buffer between the two, or another buffer, is left
// alone.
// The generated input (scripts/regen_pass_inputs.py): doitgen's drop-in (mini) as synth cc's
// tiled-safe lowering has it after eliminate-empty-tensors: A (%arg3) read by `to_tensor
// restrict` and computed in place in a second `to_tensor %arg3 restrict writable`; the sum
// (%arg5) has one tensor. The two views of A become the first, writable, which the
// fill the new A starts from then writes.
// DOITGEN-LABEL: func.func @__synth_kernel_doitgen(
// DOITGEN: %[[A:.*]] = bufferization.to_tensor %arg3 restrict writable : memref<10x8x12xf64> to tensor<10x8x12xf64>
// DOITGEN-NEXT: bufferization.to_tensor %arg4 restrict : memref<12x12xf64>
// DOITGEN-NOT: bufferization.to_tensor %arg3
// DOITGEN: linalg.fill ins(%{{.*}} : f64) outs(%[[A]] : tensor<10x8x12xf64>)
// DOITGEN: bufferization.to_tensor %arg5 restrict writable : memref<12xf64>
// DOITGEN: bufferization.materialize_in_destination %{{.*}} in writable %arg3
// DOITGEN: } else {

// CHECK-LABEL: func.func @in_out(
// CHECK: %[[T:.*]] = bufferization.to_tensor %arg0 restrict writable : memref<4x8xf64> to tensor<4x8xf64>
// CHECK-NOT: bufferization.to_tensor %arg0
// CHECK: linalg.matmul ins(%[[T]], %{{.*}} : tensor<4x8xf64>, tensor<8x8xf64>) outs(%[[T]] : tensor<4x8xf64>)
func.func @in_out(%a: memref<4x8xf64>, %c: memref<8x8xf64>) {
  %t = bufferization.to_tensor %a restrict : memref<4x8xf64> to tensor<4x8xf64>
  %tc = bufferization.to_tensor %c restrict : memref<8x8xf64> to tensor<8x8xf64>
  %w = bufferization.to_tensor %a restrict writable : memref<4x8xf64> to tensor<4x8xf64>
  %r = linalg.matmul ins(%t, %tc : tensor<4x8xf64>, tensor<8x8xf64>) outs(%w : tensor<4x8xf64>) -> tensor<4x8xf64>
  bufferization.materialize_in_destination %r in writable %a : (tensor<4x8xf64>, memref<4x8xf64>) -> ()
  return
}

// CHECK-LABEL: func.func @written_between(
// CHECK: %[[A:.*]] = bufferization.to_tensor %arg0 restrict :
// CHECK: bufferization.materialize_in_destination %[[A]]
// CHECK: %[[W:.*]] = bufferization.to_tensor %arg0 restrict writable :
// CHECK: bufferization.materialize_in_destination %[[W]]
func.func @written_between(%a: memref<4xf64>, %b: memref<4xf64>) {
  %t = bufferization.to_tensor %a restrict : memref<4xf64> to tensor<4xf64>
  bufferization.materialize_in_destination %t in restrict writable %b : (tensor<4xf64>, memref<4xf64>) -> ()
  %tb = bufferization.to_tensor %b restrict : memref<4xf64> to tensor<4xf64>
  bufferization.materialize_in_destination %tb in writable %a : (tensor<4xf64>, memref<4xf64>) -> ()
  %w = bufferization.to_tensor %a restrict writable : memref<4xf64> to tensor<4xf64>
  bufferization.materialize_in_destination %w in writable %b : (tensor<4xf64>, memref<4xf64>) -> ()
  return
}

// COUNT: synth-one-view-per-buffer: 1 rewrite
