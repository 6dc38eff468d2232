// RUN: %synth opt --pass synth-write-in-place %S/inputs/write-in-place.lu.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-write-in-place %S/inputs/fuse-producers.gemver.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// lu's trailing updates (a matmul writing a block of A and reading the row panel above it,
// another block of A) read a copy of the panel (linalg.copy into a new tensor), so that
// one-shot bufferization updates A in place instead of copying the written block.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (gemver) alone.

// CHECK-LABEL: func.func @kernel_lu_raised(
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<10x?xf64>
// CHECK-NEXT: %[[C:.*]] = linalg.copy {{.*}} ins(%{{.*}} : tensor<10x?xf64>) outs(%[[E]] : tensor<10x?xf64>)
// CHECK-NEXT: linalg.matmul ins(%{{.*}}, %[[C]] : tensor<?x10xf64>, tensor<10x?xf64>)
// CHECK: linalg.copy
// CHECK: %[[C2:.*]] = linalg.copy {{.*}} ins(%{{.*}} : tensor<20x?xf64>)
// CHECK-NEXT: linalg.matmul ins(%{{.*}}, %[[C2]] : tensor<?x20xf64>, tensor<20x?xf64>)
// COUNT: synth-write-in-place: 3 rewrites
// NONE: synth-write-in-place: 0 rewrites
