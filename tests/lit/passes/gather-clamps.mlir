// RUN: %synth opt --pass synth-gather-clamps %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-gather-clamps %S/inputs/gather-clamps.nussinov.stablehlo.mlir 2>%t.nerr | filecheck %s --check-prefix=NUS
// RUN: filecheck %s --check-prefix=NUSCOUNT < %t.nerr
// RUN: %synth opt --pass synth-gather-clamps %S/inputs/solve-loops.lu.stablehlo.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=NONE
// A diagonal's reads as nussinov's raise makes them: a flattened table gathered at one index
// per lane (an explicit index vector of extent 1, which IREE 3.13 reads unclamped: out of
// the buffer at LARGE, SIGSEGV), then a matrix gathered at two components with different
// bounds. Each index tensor is clamped as the op clamps it: [0, 6249999] by scalars, [0, 5]
// and [0, 8] by a vector broadcast along index_vector_dim. A gather of a dynamic dim is left.
// CHECK-LABEL: func.func @diagonal(
// CHECK: %[[LO:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK: %[[HI:.*]] = stablehlo.constant dense<6249999> : tensor<i64>
// CHECK: %[[I:.*]] = stablehlo.clamp %[[LO]], %arg1, %[[HI]] : (tensor<i64>, tensor<2500x1xi64>, tensor<i64>) -> tensor<2500x1xi64>
// CHECK: "stablehlo.gather"(%arg0, %[[I]])
// CHECK: %[[B:.*]] = stablehlo.constant dense<[5, 8]> : tensor<2xi32>
// CHECK: %[[HB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1] : (tensor<2xi32>) -> tensor<7x2xi32>
// CHECK: %[[J:.*]] = stablehlo.clamp %{{.*}}, %arg3, %[[HB]]
// CHECK: "stablehlo.gather"(%arg2, %[[J]])
// CHECK: "stablehlo.gather"(%arg4, %arg1)
// COUNT: synth-gather-clamps: 2 rewrites
// NONE: synth-gather-clamps: 0 rewrites
// nussinov (n = 60) raised to stablehlo: each of its 9 gathers (the table flattened and
// padded, read along a diagonal at one index per lane, and the sequence) reads a clamped index.
// NUS-LABEL: func.func @kernel_nussinov_raised(
// NUS: %[[I:.*]] = stablehlo.clamp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<60x1xi64>, tensor<i64>) -> tensor<60x1xi64>
// NUS-NEXT: "stablehlo.gather"(%{{.*}}, %[[I]])
// NUSCOUNT: synth-gather-clamps: 9 rewrites
func.func @diagonal(%table: tensor<6250000xi32>, %at: tensor<2500x1xi64>, %m: tensor<6x9xf64>, %ij: tensor<7x2xi32>,
                    %line: tensor<?xi32>) -> (tensor<2500xi32>, tensor<7xf64>, tensor<2500xi32>) {
  %a = "stablehlo.gather"(%table, %at) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
      start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}>
      : (tensor<6250000xi32>, tensor<2500x1xi64>) -> tensor<2500xi32>
  %b = "stablehlo.gather"(%m, %ij) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1],
      start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}>
      : (tensor<6x9xf64>, tensor<7x2xi32>) -> tensor<7xf64>
  %c = "stablehlo.gather"(%line, %at) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
      start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}>
      : (tensor<?xi32>, tensor<2500x1xi64>) -> tensor<2500xi32>
  return %a, %b, %c : tensor<2500xi32>, tensor<7xf64>, tensor<2500xi32>
}
