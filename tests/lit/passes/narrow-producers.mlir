// RUN: %synth opt --pass synth-narrow-producers %S/inputs/narrow-producers.durbin.stablehlo.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-narrow-producers %S/inputs/fuse-producers.gemver.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// durbin's reversed reads r[k - 1 - i], computed for all 40 elements and then sliced to the k
// used, are computed for those k only: the generic and the dot run on tensor<?xf64>.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (gemver) alone.

// CHECK-LABEL: func.func @kernel_durbin_raised(
// CHECK: scf.for
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[0] [%{{.*}}] [1] : tensor<40xf64> to tensor<?xf64>
// CHECK-NEXT: %[[G:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<?xf64>)
// CHECK: } -> tensor<?xf64>
// CHECK: linalg.dot ins(%[[G]], %{{.*}} : tensor<?xf64>, tensor<?xf64>)
// COUNT: synth-narrow-producers: 5 rewrites
// NONE: synth-narrow-producers: 0 rewrites
