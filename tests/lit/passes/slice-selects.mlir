// RUN: %synth opt --pass synth-slice-selects %S/inputs/slice-selects.durbin.linalg.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-slice-selects %S/inputs/fuse-producers.gemver.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// durbin's counter-select generics (y[i] for i < k, else 0, summed by a dot) become the
// slice of y they select, inserted into the zeros: the select generics are gone.
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (gemver) alone.

// CHECK-LABEL: func.func @kernel_durbin_raised(
// CHECK: scf.for
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}] [%[[N:.*]]] [1] : tensor<40xf64> to tensor<?xf64>
// CHECK-NEXT: tensor.insert_slice %[[S]] into %{{.*}}[%{{.*}}] [%[[N]]] [1] : tensor<?xf64> into tensor<39xf64>
// CHECK: linalg.dot
// COUNT: synth-slice-selects: 2 rewrites
// NONE: synth-slice-selects: 0 rewrites
