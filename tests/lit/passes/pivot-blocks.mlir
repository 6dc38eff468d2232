// RUN: %synth opt --pass synth-pivot-blocks %S/inputs/pivot-blocks.floyd-warshall.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-pivot-blocks %S/inputs/fuse-producers.gemver.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// floyd-warshall's 60 steps (each updates every row from row k and column k) run as blocks
// of 30 steps: first the 30 pivot rows through the block's steps, then the other rows by
// chunks, with the block's row-k and column-k values carried in 30 x 60 / 30 x 1 tensors.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (gemver) alone.

// CHECK-LABEL: func.func @kernel_floyd_warshall_raised(
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %c30 iter_args(%{{.*}} = %arg1) -> (tensor<60x60xi32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (tensor<30x60xi32>, tensor<30x60xi32>, tensor<30x60xi32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[K0]], 0] [30, 60] [1, 1] : tensor<30x60xi32> into tensor<60x60xi32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[K0]] step
// CHECK: -> (tensor<1x30xi32>, tensor<30x1xi32>, tensor<30x1xi32>)
// COUNT: synth-pivot-blocks: 1 rewrite
// NONE: synth-pivot-blocks: 0 rewrites
