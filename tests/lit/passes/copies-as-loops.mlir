// RUN: %synth opt --pass synth-copies-as-loops %S/inputs/copies-as-loops.cholesky.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-copies-as-loops %S/inputs/shift-reuse.jacobi-1d.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// cholesky's copies of row blocks (a strided view at an offset known at run time, which
// MLIR lowers to the runtime's element-by-element memrefCopy) become linalg.copy loops.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (jacobi-1d) alone.

// CHECK-LABEL: func.func @kernel_cholesky_raised(
// CHECK-NOT: memref.copy %{{.*}} : memref<?x20xf64
// CHECK: linalg.copy {{.*}} ins(%{{.*}} : memref<?x20xf64, strided<[40, 1], offset: ?>>) outs(%{{.*}} : memref<?x20xf64>)
// CHECK: linalg.copy {{.*}} ins(%{{.*}} : memref<?x20xf64>) outs(%{{.*}} : memref<?x20xf64, strided<[40, 1], offset: ?>>)
// CHECK: linalg.copy {{.*}} ins(%{{.*}} : memref<?x8xf64, strided<[8, 1]>>) outs(%{{.*}} : memref<?x8xf64>)
// CHECK: linalg.copy {{.*}} ins(%{{.*}} : memref<?x8xf64>) outs(%{{.*}} : memref<?x8xf64, strided<[8, 1]>>)
// COUNT: synth-copies-as-loops: 4 rewrites
// NONE: synth-copies-as-loops: 0 rewrites
