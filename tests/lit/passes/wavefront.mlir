// RUN: %synth opt --pass synth-wavefront %S/inputs/wavefront.jacobi-2d.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-wavefront %S/inputs/fuse-producers.gemver.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// jacobi-2d's time loop sweeps several steps at once: a loop over blocks of rows, in which
// each step's two updates (A from B, B from A) lag one another by a block, written as blocks
// of rows into the arrays the sweep carries (the numbers depend on the host's cache).
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (gemver) alone.

// CHECK-LABEL: func.func @kernel_jacobi_2d_raised(
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %arg2, %{{.*}} = %arg3) -> (tensor<30x30xf64>, tensor<30x30xf64>)
// CHECK: scf.for {{.*}} -> (tensor<30x30xf64>, tensor<30x30xf64>)
// CHECK-COUNT-4: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 1] [{{[0-9]+}}, 28] [1, 1] : tensor<{{[0-9]+}}x28xf64> into tensor<30x30xf64>
// COUNT: synth-wavefront: 1 rewrite
// NONE: synth-wavefront: 0 rewrites
