// RUN: %synth opt --pass synth-bools-as-bytes %S/inputs/bools-as-bytes.gramschmidt.stablehlo.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-bools-as-bytes %S/inputs/copies-as-loops.cholesky.linalg.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// RUN: %synth opt --pass synth-bools-as-bytes %s 2>%t.g.err | filecheck %s --check-prefix=GLOBAL
// RUN: filecheck %s --check-prefix=GCOUNT < %t.g.err
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

// A constant mask of flags (a stride-2 loop's `k += 2` raised to stablehlo, lowered to
// linalg and bufferized: c-libs' loops_while:even_double) is a memref.global of i1: it
// becomes one of i8 with its flags as bytes, as its memref.get_global does (the global
// left i1 failed verification; found by scripts/c_coverage.py --mlir-cpu). A splat too.
// GLOBAL: memref.global "private" constant @mask4 : memref<4xi8> = dense<[1, 0, 1, 0]>
// GLOBAL: memref.global "private" constant @ones3 : memref<3xi8> = dense<1>
// GLOBAL-LABEL: func.func @masked(
// GLOBAL: memref.get_global @mask4 : memref<4xi8>
// GLOBAL: %[[B:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xi8>
// GLOBAL-NEXT: %[[F:.*]] = arith.trunci %[[B]] : i8 to i1
// GLOBAL: arith.select %[[F]],
// GLOBAL: memref.get_global @ones3 : memref<3xi8>
// GCOUNT: synth-bools-as-bytes: 2 rewrites
module {
  memref.global "private" constant @mask4 : memref<4xi1> = dense<[true, false, true, false]>
  memref.global "private" constant @ones3 : memref<3xi1> = dense<true>
  func.func @masked(%a: memref<4xf64>, %i: index) -> (f64, i1) {
    %m = memref.get_global @mask4 : memref<4xi1>
    %f = memref.load %m[%i] : memref<4xi1>
    %x = memref.load %a[%i] : memref<4xf64>
    %z = arith.constant 0.0 : f64
    %r = arith.select %f, %x, %z : f64
    %o = memref.get_global @ones3 : memref<3xi1>
    %c0 = arith.constant 0 : index
    %g = memref.load %o[%c0] : memref<3xi1>
    return %r, %g : f64, i1
  }
}
