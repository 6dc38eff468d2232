// RUN: %synth opt --pass synth-triangular-blocks %S/inputs/triangular-blocks.syrk.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-triangular-blocks %S/inputs/fuse-producers.gemver.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// syrk's A A^T, of which a select keeps the lower triangle, runs as blocks of 32 rows, each
// over the columns up to its block's end (64 of 80 rows in full blocks, then the last 16).
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (gemver) alone.

// CHECK-LABEL: func.func @kernel_syrk_raised(
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK: %[[END:.*]] = arith.minsi
// CHECK: tensor.extract_slice %arg5[%{{.*}}, 0] [32, 60] [1, 1] : tensor<80x60xf64> to tensor<32x60xf64>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [60, %[[END]]] [1, 1] : tensor<60x80xf64> to tensor<60x?xf64>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x60xf64>, tensor<60x?xf64>) outs(%{{.*}} : tensor<32x?xf64>)
// CHECK: scf.yield
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x60xf64>, tensor<60x?xf64>) outs(%{{.*}} : tensor<16x?xf64>)
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic
// COUNT: synth-triangular-blocks: 1 rewrite
// NONE: synth-triangular-blocks: 0 rewrites
