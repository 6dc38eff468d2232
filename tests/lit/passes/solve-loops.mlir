// RUN: %synth opt --pass synth-solve-loops %S/inputs/solve-loops.lu.stablehlo.mlir 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-solve-loops %s 2>%t.derr | filecheck %s --check-prefix=DYN
// RUN: filecheck %s --check-prefix=DCOUNT < %t.derr
// RUN: %synth opt --pass synth-solve-loops %S/inputs/solve-loops.lu.stablehlo.mlir 2>/dev/null | %synth opt --pass synth-solve-loops - 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// RUN: not %synth opt --pass synth-solve-loops %S/inputs/hoist-flips.durbin.stablehlo.mlir 2>&1 | filecheck %s --check-prefix=ERR
// lu (n = 40) raised to stablehlo, its LU blocked by panels of 20 as the IREE backend has it
// (synth.backends.library_stablehlo): the rows right of the first panel are U12, a unit lower
// triangular solve of 20 right-hand sides by the panel's diagonal block, the op IREE does not
// lower. The pass calls a private function instead: a while over the 20 rows, each step row i
// of the block (entries j < i kept, the rest selected to zero) times x (one dot_general),
// b's row less it, no division (unit diagonal), written into row i of x.
// CHECK-LABEL: func.func private @__synth_library_0(
// CHECK-NOT: stablehlo.triangular_solve
// CHECK: call @__synth_solve_loop_0(%{{.*}}, %{{.*}}) : (tensor<20x20xf64>, tensor<20x20xf64>) -> tensor<20x20xf64>
// CHECK-LABEL: func.func private @__synth_solve_loop_0(
// CHECK: stablehlo.while({{.*}}) : tensor<i64>, tensor<20x20xf64>
// CHECK: stablehlo.dynamic_slice %arg0, %{{.*}}, %{{.*}}, sizes = [1, 20]
// CHECK: stablehlo.compare LT
// CHECK: stablehlo.select
// CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<1x20xf64>, tensor<20x20xf64>) -> tensor<1x20xf64>
// CHECK: stablehlo.subtract
// CHECK-NOT: stablehlo.divide
// CHECK: stablehlo.dynamic_update_slice
// COUNT: synth-solve-loops: 1 rewrite
// NONE: synth-solve-loops: 0 rewrites
// The pass reads stablehlo (jaxlib's dialects): a module of linalg is an input error, located.
// ERR: hoist-flips.durbin.stablehlo.mlir:19:10: {{.*}}Dialect `linalg' not found

// A generic raise's solve (trisolv's: n dynamic, one right-hand side), transposed, upper: the
// loop runs backward over the rows of the transposed matrix (a lower triangle read as an
// upper one), slices them with real_dynamic_slice, masks with dynamic_iota, and sums the row
// times x with a multiply and a reduce (IREE refuses the dot_general's reshape at dynamic
// extents); the division by the diagonal stays.
// DYN-LABEL: func.func @solve(
// DYN: call @__synth_solve_loop_0(%arg0, %arg1) : (tensor<?x?xf64>, tensor<?x1xf64>) -> tensor<?x1xf64>
// DYN-LABEL: func.func private @__synth_solve_loop_0(
// DYN: stablehlo.transpose %arg0, dims = [1, 0]
// DYN: stablehlo.while
// DYN: stablehlo.subtract
// DYN: stablehlo.real_dynamic_slice
// DYN: stablehlo.dynamic_iota
// DYN: stablehlo.compare GT
// DYN: stablehlo.reduce
// DYN: stablehlo.divide
// DYN: stablehlo.dynamic_update_slice
// DCOUNT: synth-solve-loops: 1 rewrite
func.func @solve(%a: tensor<?x?xf64>, %b: tensor<?x1xf64>) -> tensor<?x1xf64> {
  %x = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false,
      transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<?x?xf64>, tensor<?x1xf64>) -> tensor<?x1xf64>
  return %x : tensor<?x1xf64>
}
