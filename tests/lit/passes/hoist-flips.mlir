// RUN: %synth opt --pass synth-hoist-flips %S/inputs/hoist-flips.durbin.stablehlo.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-hoist-flips %S/inputs/fuse-producers.gemver.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// durbin's read of r reversed (r[k - 1 - i]; r does not change in the loop) becomes one
// reversal of r computed before the loop (77 elements: every shift the loop reads), sliced per step.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (gemver) alone.

// CHECK-LABEL: func.func @kernel_durbin_raised(
// CHECK: %[[E:.*]] = tensor.empty(%c77) : tensor<?xf64>
// CHECK: %[[FLIP:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?xf64>)
// CHECK: tensor.extract %arg1
// CHECK: } -> tensor<?xf64>
// CHECK-NEXT: scf.for
// CHECK: %[[R:.*]] = tensor.extract_slice %[[FLIP]][%{{.*}}] [%{{.*}}] [1] : tensor<?xf64> to tensor<?xf64>
// CHECK: linalg.dot ins(%[[R]],
// COUNT: synth-hoist-flips: 1 rewrite
// NONE: synth-hoist-flips: 0 rewrites
