// RUN: %synth opt --pass synth-library-loops %S/inputs/library-loops.ludcmp.stablehlo.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-library-loops %S/inputs/fuse-producers.gemver.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// ludcmp (n = 400) raised to stablehlo and lowered to linalg: its LU (stablehlo's marked
// while) and its two triangular solves (stablehlo.triangular_solve of a vector) are the
// linalg grammar's loops marked synth.library (synth.backends.stablehlo_calls). The pass
// blocks the LU by panels of 200 columns in an scf.for whose offset is an SSA value (each
// panel factored by sub-panels of 25, the trailing block one linalg.matmul), then the
// unblocked steps after the last full panel; the forward substitution by panels of 50 rows
// (a linalg.matvec each) in an scf.for; the backward one (no blocked form) stays marked.
// The loops are loops at every n: no panel is unrolled (stablehlo's own lowering unrolled
// n / b panels on static slices, 40 at n = 2000, and mlir-cpu took minutes to compile them).
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves a module without library loops alone.

// CHECK-LABEL: func.func @kernel_ludcmp_raised(
// CHECK: %[[LU:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c200 iter_args(%{{.*}} = %arg1) -> (tensor<400x400xf64>)
// CHECK: scf.for %[[S:.*]] = %[[K]] to %{{.*}} step %c25
// CHECK: scf.for %{{.*}} = %[[S]] to
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x25xf64>, tensor<25x?xf64>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x200xf64>, tensor<200x?xf64>)
// CHECK: %[[REST:.*]] = scf.for %{{.*}} = %{{.*}} to %c399{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[LU]])
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %c50 iter_args(%{{.*}} = %arg2) -> (tensor<400xf64>)
// CHECK: tensor.extract_slice %[[REST]][%[[P]], 0] [50, %[[P]]]
// CHECK: linalg.matvec
// CHECK: synth.library = "triangular_solve lower=0 unit=0 transpose=0"
// CHECK-NOT: synth.library = "lu"
// CHECK-NOT: stablehlo.
// COUNT: synth-library-loops: 2 rewrites
// NONE: synth-library-loops: 0 rewrites
