// RUN: %synth opt --pass synth-reverse-in-place %S/inputs/reverse-in-place.durbin.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-reverse-in-place %S/inputs/copies-as-loops.cholesky.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// durbin's y[i] = y[i] + alpha * y[k - 1 - i] for i < k, computed into a new buffer and copied
// back into y, is computed in y itself by pairs (i, k - 1 - i): vectors of 8 from both ends,
// the far one reversed by a shuffle, then the pairs left one by one; no buffer, no copy.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (cholesky) alone.

// CHECK-LABEL: func.func @kernel_durbin_raised(
// CHECK: scf.for
// CHECK: vector.broadcast
// CHECK: scf.for
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [7, 6, 5, 4, 3, 2, 1, 0] : vector<8xf64>, vector<8xf64>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [7, 6, 5, 4, 3, 2, 1, 0] : vector<8xf64>, vector<8xf64>
// CHECK: scf.for
// CHECK-NOT: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf64>
// CHECK: memref.copy %arg2, %arg3 : memref<40xf64> to memref<40xf64>
// COUNT: synth-reverse-in-place: 1 rewrite
// NONE: synth-reverse-in-place: 0 rewrites
