// RUN: %synth opt --pass synth-bools-as-bytes %S/inputs/bools-as-bytes.gramschmidt.stablehlo.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-bools-as-bytes %S/inputs/copies-as-loops.cholesky.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// The ownership flags the deallocation pipeline keeps for gramschmidt's stablehlo raise (whose loop
// yields buffers it may have allocated) are memrefs of i1, on whose stores MLIR 22's
// conversion to LLVM aborts: they become memrefs of i8 (extui / trunci at the loads and stores).
// The input is regenerated from a fresh raise by scripts/regen_pass_inputs.py; the last
// RUN line checks that the pass leaves another pass's input (cholesky) alone.

// CHECK-LABEL: func.func @kernel_gramschmidt_raised(
// CHECK-NOT: xi1>
// CHECK: memref.alloc() : memref<4xi8>
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xi8>
// CHECK-NOT: xi1>
// COUNT: synth-bools-as-bytes: 9 rewrites
// NONE: synth-bools-as-bytes: 0 rewrites
