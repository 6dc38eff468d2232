// RUN: %synth opt --pass synth-lane-blocks %S/inputs/lane-blocks.deriche.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-lane-blocks %S/inputs/pivot-blocks.floyd-warshall.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// RUN: %synth opt --pass synth-lane-blocks %S/inputs/wavefront.jacobi-2d.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// deriche's four sweeps (192 x 128, raised from C: each a counter loop whose step works on a
// column or a row of all lanes) run by blocks of 16 lanes, each block through every step, the
// sweep's state (ym1, ym2, xm1...) in vector<16xf64> iter_args; the row sweeps read and
// write 16 elements of a column (a transfer along dim 0), the column sweeps 16 of a row.
// The filter's coefficients (exp, pow of alpha) are computed once, before the loops.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN lines check that the pass leaves loops whose lanes meet alone (floyd-warshall's row
// and column k, jacobi-2d's shifted rows).

// CHECK-LABEL: func.func @kernel_deriche_raised(
// CHECK: math.powf
// CHECK: math.exp
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[B:.*]] = %c0 to %c192 step %c16 iter_args(%{{.*}} = %arg5) -> (tensor<192x128xf64>)
// CHECK-NEXT: %[[Z:.*]] = vector.transfer_read %{{.*}}[%[[B]]], %{{.*}} {in_bounds = [true]} : tensor<192xf64>, vector<16xf64>
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args({{.*}} = %[[Z]], {{.*}} = %[[Z]], {{.*}} = %[[Z]]) -> (tensor<192x128xf64>, vector<16xf64>, vector<16xf64>, vector<16xf64>)
// CHECK: vector.transfer_read %arg3[%[[B]], %{{.*}}], %{{.*}} {in_bounds = [true], permutation_map = #map{{[0-9]*}}} : tensor<192x128xf64>, vector<16xf64>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[B]], %{{.*}}] {in_bounds = [true], permutation_map = #map{{[0-9]*}}} : vector<16xf64>, tensor<192x128xf64>
// CHECK: scf.for %{{.*}} = %c0 to %c192 step %c16 iter_args(%{{.*}} = %arg6) -> (tensor<192x128xf64>)
// CHECK: scf.for %[[C:.*]] = %c0 to %c128 step %c16 iter_args
// CHECK: scf.for %{{.*}} = %c0 to %c192 step %c1 iter_args
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %[[C]]], %{{.*}} {in_bounds = [true]} : tensor<192x128xf64>, vector<16xf64>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %[[C]]] {in_bounds = [true]} : vector<16xf64>, tensor<192x128xf64>
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c16 iter_args
// COUNT: synth-lane-blocks: 4 rewrites
// NONE: synth-lane-blocks: 0 rewrites
