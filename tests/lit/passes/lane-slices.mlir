// RUN: %synth opt --pass synth-lane-slices %S/inputs/lane-slices.adi.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-lane-slices --pass synth-lane-blocks %S/inputs/lane-slices.adi.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BLOCKS
// RUN: %synth opt --pass synth-lane-slices %S/inputs/lane-blocks.deriche.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// adi (20 x 20, raised from C): each step of its four sweeps updates the inner lanes 1 .. 18 of
// a column or a row as a slice of the line's slice, inserted into the line, the line into the
// array; here each becomes one slice of the array (a column's inner lanes: [1, j] [18, 1]),
// the rows of u read at shifts 0, 1, 2 as [j, 0|1|2] [1, 18], so synth-lane-blocks takes the
// four sweeps (lanes at offset 1). The input is regenerated from a fresh raise by
// scripts/regen_pass_inputs.py; deriche's sweeps (whole lines) have nothing to fold.

// CHECK-LABEL: func.func @kernel_adi_raised(
// CHECK: scf.for %{{.*}} = %c0 to %c18 step %c1 iter_args(%[[P:.*]] = %{{.*}}, %[[Q:.*]] = %{{.*}}) -> (tensor<20x20xf64>, tensor<20x20xf64>)
// CHECK: tensor.extract_slice %[[P]][1, %{{.*}}] [18, 1] [1, 1] : tensor<20x20xf64> to tensor<18xf64>
// CHECK: %[[P2:.*]] = tensor.insert_slice %{{.*}} into %[[P]][1, %{{.*}}] [18, 1] [1, 1] : tensor<18xf64> into tensor<20x20xf64>
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 18] [1, 1] : tensor<20x20xf64> to tensor<18xf64>
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 1] [1, 18] [1, 1] : tensor<20x20xf64> to tensor<18xf64>
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 2] [1, 18] [1, 1] : tensor<20x20xf64> to tensor<18xf64>
// CHECK: tensor.insert_slice %{{.*}} into %[[Q]][1, %{{.*}}] [18, 1] [1, 1] : tensor<18xf64> into tensor<20x20xf64>
// CHECK-NEXT: scf.yield %[[P2]], %{{.*}} : tensor<20x20xf64>, tensor<20x20xf64>
// CHECK: scf.for %{{.*}} = %c0 to %c18 step %c1 iter_args(%[[V:.*]] = %{{.*}}) -> (tensor<20x20xf64>)
// CHECK: tensor.insert_slice %{{.*}} into %[[V]][%{{.*}}, 1] [1, 18] [1, 1] : tensor<18xf64> into tensor<20x20xf64>
// CHECK-NOT: tensor.extract_slice %{{.*}}[1] [18] [1]
// COUNT: synth-lane-slices: 24 rewrites
// BLOCKS: synth-lane-slices: 24 rewrites
// BLOCKS: synth-lane-blocks: 4 rewrites
// NONE: synth-lane-slices: 0 rewrites
