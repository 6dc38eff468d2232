// RUN: %synth opt --pass synth-distinct-result-buffers %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// A memref returned at two positions (two equal tensor results that bufferization put in
// one buffer: dtrmv_lower's x and tmp) is returned as a copy at the second:
// buffer-results-to-out-params segfaults on a buffer returned twice. Distinct memrefs are
// left alone.
// No generated input: on no PolyBench raise (scripts/regen_pass_inputs.py; the 30 kernels at
// MINI, linalg and stablehlo: static and generic made static in synth bench's mlir-cpu
// pipeline, static in synth cc's tiled-safe lowering of the drop-in; 2026-12-07) does the pass
// rewrite anything: none returns one buffer at two positions. The cases here are hand-written.

// CHECK-LABEL: func.func @twice(
// CHECK: %[[A:.*]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT: memref.copy %arg0, %[[A]] : memref<3xf64> to memref<3xf64>
// CHECK-NEXT: return %arg0, %[[A]] : memref<3xf64>, memref<3xf64>
func.func @twice(%a: memref<3xf64>) -> (memref<3xf64>, memref<3xf64>) {
  return %a, %a : memref<3xf64>, memref<3xf64>
}

// CHECK-LABEL: func.func @dynamic(
// CHECK: %[[D:.*]] = memref.dim %arg0, %{{.*}} : memref<?xf64>
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%[[D]]) : memref<?xf64>
// CHECK-NEXT: memref.copy %arg0, %[[A]]
// CHECK-NEXT: return %arg0, %[[A]] : memref<?xf64>, memref<?xf64>
func.func @dynamic(%a: memref<?xf64>) -> (memref<?xf64>, memref<?xf64>) {
  return %a, %a : memref<?xf64>, memref<?xf64>
}

// CHECK-LABEL: func.func @distinct(
// CHECK-NOT: memref.alloc
// CHECK: return %arg0, %arg1 : memref<3xf64>, memref<3xf64>
func.func @distinct(%a: memref<3xf64>, %b: memref<3xf64>) -> (memref<3xf64>, memref<3xf64>) {
  return %a, %b : memref<3xf64>, memref<3xf64>
}

// COUNT: synth-distinct-result-buffers: 2 rewrite
