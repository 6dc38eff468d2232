// RUN: %synth opt --pass synth-shift-reuse %S/inputs/shift-reuse.jacobi-1d.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-shift-reuse %S/inputs/copies-as-loops.cholesky.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// jacobi-1d's vectorized sweeps read A[i-1], A[i], A[i+1] as three loads per tile; after the
// pass each tile loads the row once (the next tile's vector carried in the loop) and
// shuffles the shifted vectors out of this tile's and the next one's.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (cholesky) alone.

// CHECK-LABEL: func.func @kernel_jacobi_1d_raised(
// CHECK: %[[FIRST:.*]] = vector.transfer_read %{{.*}}[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<30xf64>, vector<8xf64>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CUR:.*]] = %[[FIRST]]) -> (tensor<28xf64>, vector<8xf64>)
// CHECK: %[[NEXT:.*]] = vector.transfer_read
// CHECK-NEXT: vector.shuffle %[[CUR]], %[[NEXT]] [1, 2, 3, 4, 5, 6, 7, 8]
// CHECK-NEXT: vector.shuffle %[[CUR]], %[[NEXT]] [2, 3, 4, 5, 6, 7, 8, 9]
// CHECK: scf.yield %{{.*}}, %[[NEXT]] : tensor<28xf64>, vector<8xf64>
// COUNT: synth-shift-reuse: 2 rewrites
// NONE: synth-shift-reuse: 0 rewrites
