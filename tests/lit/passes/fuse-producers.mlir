// RUN: %synth opt --pass synth-fuse-producers %S/inputs/fuse-producers.gemver.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-fuse-producers %S/inputs/triangular-blocks.syrk.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// gemver's y A' (A' = A + u1 v1^T + u2 v2^T, elementwise) is computed with A', by blocks of 8
// rows: each block of A' is stored and its part of the vecmat added while it is in cache.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (syrk) alone.

// CHECK-LABEL: func.func @kernel_gemver_raised(
// CHECK: %[[F:.*]]:2 = scf.for %{{.*}} = %c0 to %c40 step %c8 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<40x40xf64>, tensor<40xf64>)
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8x40xf64>,
// CHECK: tensor.insert_slice %[[B]] into %{{.*}}[%{{.*}}, 0] [8, 40] [1, 1] : tensor<8x40xf64> into tensor<40x40xf64>
// CHECK: linalg.vecmat {synth.row_step} ins(%{{.*}}, %[[B]] : tensor<8xf64>, tensor<8x40xf64>)
// CHECK: scf.yield
// CHECK-NOT: linalg.vecmat
// CHECK: linalg.matvec ins(%[[F]]#0,
// CHECK: return %[[F]]#0,
// COUNT: synth-fuse-producers: 1 rewrite
// NONE: synth-fuse-producers: 0 rewrites
