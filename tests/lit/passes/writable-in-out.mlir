// RUN: %synth opt --pass synth-writable-in-out %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-writable-in-out %S/inputs/writable-in-out.floyd-warshall.linalg-dropin.mlir 2>%t.ferr | filecheck %s --check-prefix=FW
// RUN: filecheck %s --check-prefix=COUNT < %t.ferr
// The tensor of a buffer that a later materialize_in_destination of its block writes back
// (an in-out argument of synth cc's drop-in) is marked writable: one-shot bufferization
// copies a tensor it may not write, so a loop updating the array in place (floyd-warshall's
// step) copied the whole array per step. A buffer only read is left alone.
// The generated input (scripts/regen_pass_inputs.py): floyd-warshall's drop-in (mini, n = 60)
// as synth cc's tiled-safe lowering has it before the pass: the paths (%arg1) read by
// `to_tensor restrict`, carried by the blocked pivot loop, written back at the end.
// FW-LABEL: func.func @__synth_kernel_floyd_warshall(
// FW: %[[P:.*]] = bufferization.to_tensor %arg1 restrict writable : memref<60x60xi32> to tensor<60x60xi32>
// FW-NEXT: %[[R:.*]] = scf.for %{{.*}} = %c0 to %c60 step %c30 iter_args(%{{.*}} = %[[P]]) -> (tensor<60x60xi32>)
// FW: bufferization.materialize_in_destination %[[R]] in restrict writable %arg1
// FW: } else {

// CHECK-LABEL: func.func @in_out(
// CHECK: %[[T:.*]] = bufferization.to_tensor %arg0 restrict writable : memref<4xf64> to tensor<4xf64>
// CHECK: bufferization.to_tensor %arg1 restrict : memref<4xf64> to tensor<4xf64>
func.func @in_out(%a: memref<4xf64>, %b: memref<4xf64>) {
  %t = bufferization.to_tensor %a restrict : memref<4xf64> to tensor<4xf64>
  %u = bufferization.to_tensor %b restrict : memref<4xf64> to tensor<4xf64>
  %r = linalg.add ins(%t, %u : tensor<4xf64>, tensor<4xf64>) outs(%t : tensor<4xf64>) -> tensor<4xf64>
  bufferization.materialize_in_destination %r in restrict writable %a : (tensor<4xf64>, memref<4xf64>) -> ()
  return
}

// CHECK-LABEL: func.func @read_only(
// CHECK: bufferization.to_tensor %arg0 restrict :
func.func @read_only(%a: memref<4xf64>, %b: memref<4xf64>) {
  %t = bufferization.to_tensor %a restrict : memref<4xf64> to tensor<4xf64>
  bufferization.materialize_in_destination %t in restrict writable %b : (tensor<4xf64>, memref<4xf64>) -> ()
  return
}

// COUNT: synth-writable-in-out: 1 rewrite
