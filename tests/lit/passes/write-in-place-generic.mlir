// RUN: %synth opt --pass synth-write-in-place %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// floyd-warshall's step as a shape-generic raise has it (tensor<?x?xi32>), hand-written:
// path = min(path, col_k + row_k) writes the loop's iter_arg in place and reads copies of
// row k and column k. The copies' tensor.empty take their dynamic size from tensor.dim of
// the slice (the pass built them with no size: IR that failed verification).

// CHECK-LABEL: func.func @step(
// CHECK: scf.for {{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (tensor<?x?xi32>)
// CHECK: %[[COL:.*]] = tensor.extract_slice %[[P]]
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[P]]
// CHECK: %[[D0:.*]] = tensor.dim %[[COL]], %{{.*}} : tensor<?xi32>
// CHECK-NEXT: %[[E0:.*]] = tensor.empty(%[[D0]]) : tensor<?xi32>
// CHECK-NEXT: %[[C0:.*]] = linalg.copy {{.*}}ins(%[[COL]] : tensor<?xi32>) outs(%[[E0]] : tensor<?xi32>)
// CHECK: %[[D1:.*]] = tensor.dim %[[ROW]], %{{.*}} : tensor<?xi32>
// CHECK-NEXT: %[[E1:.*]] = tensor.empty(%[[D1]]) : tensor<?xi32>
// CHECK-NEXT: %[[C1:.*]] = linalg.copy {{.*}}ins(%[[ROW]] : tensor<?xi32>) outs(%[[E1]] : tensor<?xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[C0]], %[[C1]] : tensor<?x?xi32>, tensor<?xi32>, tensor<?xi32>) outs(%[[P]] : tensor<?x?xi32>)
// COUNT: synth-write-in-place: 1 rewrite{{$}}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @step(%arg1: tensor<?x?xi32>) -> tensor<?x?xi32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = tensor.dim %arg1, %c0 : tensor<?x?xi32>
    %0 = scf.for %k = %c0 to %n step %c1 iter_args(%p = %arg1) -> (tensor<?x?xi32>) {
      %col = tensor.extract_slice %p[0, %k] [%n, 1] [1, 1] : tensor<?x?xi32> to tensor<?xi32>
      %row = tensor.extract_slice %p[%k, 0] [1, %n] [1, 1] : tensor<?x?xi32> to tensor<?xi32>
      %e = tensor.empty(%n, %n) : tensor<?x?xi32>
      %r = linalg.generic {indexing_maps = [#map, #map1, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%p, %col, %row : tensor<?x?xi32>, tensor<?xi32>, tensor<?xi32>) outs(%e : tensor<?x?xi32>) {
      ^bb0(%a: i32, %c: i32, %r: i32, %out: i32):
        %s = arith.addi %c, %r : i32
        %m = arith.minsi %a, %s : i32
        linalg.yield %m : i32
      } -> tensor<?x?xi32>
      scf.yield %r : tensor<?x?xi32>
    }
    return %0 : tensor<?x?xi32>
  }
}
