// RUN: %synth opt --pass synth-distinct-results %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// A tensor returned at two positions (what CSE makes of y^T A and A^T y) is returned as a
// copy at the second: buffer-results-to-out-params segfaults on a buffer returned twice.
// Returning distinct values, or a value once, is left alone.
// No generated input: on no PolyBench raise (scripts/regen_pass_inputs.py; the 30 kernels at
// MINI, linalg and stablehlo: static and generic made static in synth bench's mlir-cpu
// pipeline, static in synth cc's tiled-safe lowering of the drop-in; 2026-12-07) does the pass
// rewrite anything: none returns one tensor value at two positions. The cases here are hand-written.

// CHECK-LABEL: func.func @twice(
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%arg0) : tensor<4xf64>
// CHECK-NEXT: return %arg0, %[[C]] : tensor<4xf64>, tensor<4xf64>
func.func @twice(%a: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  return %a, %a : tensor<4xf64>, tensor<4xf64>
}

// CHECK-LABEL: func.func @distinct(
// CHECK-NOT: alloc_tensor
// CHECK: return %arg0, %arg1 : tensor<4xf64>, tensor<4xf64>
func.func @distinct(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  return %a, %b : tensor<4xf64>, tensor<4xf64>
}

// COUNT: synth-distinct-results: 1 rewrite
