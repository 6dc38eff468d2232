// RUN: %synth opt --pass synth-library-loops %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-library-loops %S/inputs/library-loops.ludcmp.linalg-generic.mlir 2>%t.gerr | filecheck %s --check-prefix=GEN
// RUN: filecheck %s --check-prefix=COUNT < %t.gerr
// A shape-generic raise made static (synth.semantics.specialize: the arguments cast to the
// generic types, inline, canonicalize): an LU and a forward substitution reading it, as
// ludcmp's linalg raise (tests/test_library_lowering.py::_factor_and_solve at n = 64). The
// LU loop carries the matrix as tensor<?x?xf64>, a cast of the static argument, since the
// solve reads the loop's result; the blocked forms are chosen by the static size, so the
// pass first gives the loop its static type (synth-static-iter-args) and then blocks both
// loops as it blocks the static raise's: the LU by panels of 32 columns in an scf.for
// (a linalg.matmul per panel), the solve by panels of 32 rows (a linalg.matvec each).
// The generated input (scripts/regen_pass_inputs.py): ludcmp's generic linalg raise made
// static at n = 64 as mlir-cpu does per call's shapes: the LU loop carries A as
// tensor<?x?xf64> (a cast of %arg1), then the forward and the backward substitution. The LU
// is blocked by panels of 32 columns, carried static, the forward solve by panels of 32 rows;
// the backward one (no blocked form) stays marked.
// GEN-LABEL: func.func @kernel_ludcmp_raised(
// GEN: %[[LU:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32 iter_args(%{{.*}} = %arg1) -> (tensor<64x64xf64>)
// GEN: linalg.matmul
// GEN: %[[REST:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[LU]]) -> (tensor<64x64xf64>)
// GEN: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %c32{{.*}} iter_args(%{{.*}} = %arg2) -> (tensor<64xf64>)
// GEN-NEXT: tensor.extract_slice %[[REST]][%[[P]], 0] [32, %[[P]]]
// GEN: linalg.matvec
// GEN-NOT: synth.library = "lu"
// GEN: } {synth.library = "triangular_solve lower=0 unit=0 transpose=0"}

// CHECK-LABEL: func.func @main(
// CHECK: %[[LU:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32 iter_args(%{{.*}} = %arg0) -> (tensor<64x64xf64>)
// CHECK: linalg.matmul
// CHECK: %[[REST:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[LU]]) -> (tensor<64x64xf64>)
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %c32{{.*}} iter_args(%{{.*}} = %arg1) -> (tensor<64xf64>)
// CHECK: tensor.extract_slice %[[REST]][%[[P]], 0] [32, %[[P]]]
// CHECK: linalg.matvec
// CHECK-NOT: synth.library
// COUNT: synth-library-loops: 2 rewrites
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<64x64xf64>, %arg1: tensor<64xf64>) -> (tensor<64x64xf64>, tensor<64xf64>) attributes {synth.outputs = [0, 1]} {
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0.000000e+00 : f64
    %cast = tensor.cast %arg0 : tensor<64x64xf64> to tensor<?x?xf64>
    %0 = scf.for %arg2 = %c0 to %c63 step %c1 iter_args(%arg3 = %cast) -> (tensor<?x?xf64>) {
      %2 = arith.addi %arg2, %c1 : index
      %3 = arith.subi %c63, %arg2 : index
      %extracted = tensor.extract %arg3[%arg2, %arg2] : tensor<?x?xf64>
      %extracted_slice = tensor.extract_slice %arg3[%2, %arg2] [%3, 1] [1, 1] : tensor<?x?xf64> to tensor<?xf64>
      %4 = tensor.empty(%3) : tensor<?xf64>
      %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%extracted_slice : tensor<?xf64>) outs(%4 : tensor<?xf64>) {
      ^bb0(%in: f64, %out: f64):
        %7 = arith.divf %in, %extracted : f64
        linalg.yield %7 : f64
      } -> tensor<?xf64>
      %inserted_slice = tensor.insert_slice %5 into %arg3[%2, %arg2] [%3, 1] [1, 1] : tensor<?xf64> into tensor<?x?xf64>
      %extracted_slice_2 = tensor.extract_slice %inserted_slice[%arg2, %2] [1, %3] [1, 1] : tensor<?x?xf64> to tensor<?xf64>
      %extracted_slice_3 = tensor.extract_slice %inserted_slice[%2, %2] [%3, %3] [1, 1] : tensor<?x?xf64> to tensor<?x?xf64>
      %6 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel"]} ins(%5, %extracted_slice_2 : tensor<?xf64>, tensor<?xf64>) outs(%extracted_slice_3 : tensor<?x?xf64>) {
      ^bb0(%in: f64, %in_5: f64, %out: f64):
        %7 = arith.mulf %in, %in_5 : f64
        %8 = arith.subf %out, %7 : f64
        linalg.yield %8 : f64
      } -> tensor<?x?xf64>
      %inserted_slice_4 = tensor.insert_slice %6 into %inserted_slice[%2, %2] [%3, %3] [1, 1] : tensor<?x?xf64> into tensor<?x?xf64>
      scf.yield %inserted_slice_4 : tensor<?x?xf64>
    } {synth.library = "lu"}
    %1 = scf.for %arg2 = %c0 to %c64 step %c1 iter_args(%arg3 = %arg1) -> (tensor<64xf64>) {
      %extracted_slice = tensor.extract_slice %0[%arg2, 0] [1, %arg2] [1, 1] : tensor<?x?xf64> to tensor<?xf64>
      %extracted_slice_2 = tensor.extract_slice %arg3[0] [%arg2] [1] : tensor<64xf64> to tensor<?xf64>
      %2 = tensor.empty() : tensor<f64>
      %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<f64>) -> tensor<f64>
      %4 = linalg.dot ins(%extracted_slice, %extracted_slice_2 : tensor<?xf64>, tensor<?xf64>) outs(%3 : tensor<f64>) -> tensor<f64>
      %extracted = tensor.extract %4[] : tensor<f64>
      %extracted_3 = tensor.extract %arg3[%arg2] : tensor<64xf64>
      %5 = arith.subf %extracted_3, %extracted : f64
      %inserted = tensor.insert %5 into %arg3[%arg2] : tensor<64xf64>
      scf.yield %inserted : tensor<64xf64>
    } {synth.library = "triangular_solve lower=1 unit=1 transpose=0"}
    %cast_0 = tensor.cast %1 : tensor<64xf64> to tensor<?xf64>
    %cast_1 = tensor.cast %0 : tensor<?x?xf64> to tensor<64x64xf64>
    return %cast_1, %1 : tensor<64x64xf64>, tensor<64xf64>
  }
}

