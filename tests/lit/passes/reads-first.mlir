// RUN: %synth opt --pass synth-reads-first %S/inputs/frozen/reads-first.adi.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-reads-first %S/inputs/write-in-place.lu.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// adi (20 x 20, raised from C, after its sweeps became lane blocks): each time step starts with
// its boundary statements, a row of v set, then columns 0 and 19 of v as the step found it
// copied back (parallel assignment). Those column reads of the old v now come before the row's
// insert, each into a buffer of its own (bufferization.alloc_tensor, which
// eliminate-empty-tensors leaves alone), so bufferization updates v in place instead of
// copying all of it first (seven 8 MB copies a time step at LARGE). The input is frozen (an older
// raise of adi: today's reads first already); lu's steps read nothing after an update.

// CHECK-LABEL: func.func @kernel_adi_raised(
// CHECK: scf.for %{{.*}} = %c0 to %c20 step %c1 iter_args(%{{.*}} = %{{.*}}, %[[V:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) ->
// CHECK: %[[B0:.*]] = bufferization.alloc_tensor() : tensor<20x1xf64>
// CHECK-NEXT: %[[C0:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<20x20xf64>) outs(%[[B0]] : tensor<20x1xf64>)
// CHECK: %[[B1:.*]] = bufferization.alloc_tensor() : tensor<20x1xf64>
// CHECK-NEXT: %[[C1:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<20x20xf64>) outs(%[[B1]] : tensor<20x1xf64>)
// CHECK: %[[R:.*]] = tensor.insert_slice %{{.*}} into %[[V]][0, 0] [1, 20] [1, 1]
// CHECK-NEXT: %[[R2:.*]] = tensor.insert_slice %[[C0]] into %[[R]][0, 0] [20, 1] [1, 1]
// CHECK-NEXT: tensor.insert_slice %[[C1]] into %[[R2]][0, 19] [20, 1] [1, 1]
// COUNT: synth-reads-first: 16 rewrites
// NONE: synth-reads-first: 0 rewrites
