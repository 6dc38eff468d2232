// RUN: %synth opt --pass synth-hyperplane-bands %S/inputs/hyperplane-bands.seidel-2d.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-hyperplane-bands %S/inputs/wavefront.jacobi-2d.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// seidel-2d's sweep over the hyperplanes 2i + j (marked synth.hyperplane = 2 by the raise)
// runs by bands of rows: a loop over bands (its step, the rows per band, depends on the
// host's L2), in it the loop over the band's hyperplanes, whose lanes are computed one by
// one in place (tensor.extract, tensor.insert into the flat array); the mark is consumed.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another stencil (jacobi-2d's time loop) alone.

// CHECK-LABEL: func.func @kernel_seidel_2d_raised(
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %arg2) -> (tensor<40x40xf64>)
// CHECK: scf.for %{{.*}} = %c1 to %{{.*}} step %c{{[0-9]+}} iter_args(%{{.*}} = %collapsed) -> (tensor<1600xf64>)
// CHECK: scf.for {{.*}} -> (tensor<1600xf64>)
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: scf.for {{.*}} -> (tensor<1600xf64>)
// CHECK-COUNT-9: tensor.extract %{{.*}} : tensor<1600xf64>
// CHECK: arith.divf
// CHECK: tensor.insert %{{.*}} into %{{.*}} : tensor<1600xf64>
// CHECK-NOT: synth.hyperplane
// COUNT: synth-hyperplane-bands: 1 rewrite
// NONE: synth-hyperplane-bands: 0 rewrites
