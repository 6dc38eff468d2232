// RUN: %synth opt --pass synth-payload-cse %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// What fusing two per-use copies of durbin's index vector into one gather leaves: `k - i`
// computed twice from two `linalg.index 0`. The pass keeps the first of each repeated
// pure op of a payload (linalg.index, arith) and drops the rest; ops that differ in an
// operand or an attribute (a cmpi predicate), and equal ops in two different payloads,
// stay. Outside payloads nothing changes (the two equal tensor.empty ops stay).

#v = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @gather(
// CHECK: tensor.empty
// CHECK: tensor.empty
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[II:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[D:.*]] = arith.subi %arg1, %[[II]] : i64
// CHECK-NEXT: %[[M:.*]] = arith.maxsi %[[D]], %{{.*}} : i64
// CHECK-NEXT: arith.index_cast %[[M]] : i64 to index
// CHECK-NEXT: tensor.extract
// CHECK-NEXT: arith.cmpi slt, %[[D]]
// CHECK-NEXT: arith.cmpi sge, %[[D]]
// CHECK: linalg.generic
// CHECK: linalg.index 0
func.func @gather(%r: tensor<8xf64>, %k: i64) -> (tensor<8xf64>, tensor<8xi64>) {
  %z = arith.constant 0 : i64
  %n = arith.constant 8 : i64
  %e = tensor.empty() : tensor<8xf64>
  %e2 = tensor.empty() : tensor<8xf64>
  %g = linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%e : tensor<8xf64>) {
  ^bb0(%out: f64):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %d = arith.subi %k, %ii : i64
    %m = arith.maxsi %d, %z : i64
    %j = linalg.index 0 : index
    %jj = arith.index_cast %j : index to i64
    %d2 = arith.subi %k, %jj : i64
    %x = arith.index_cast %m : i64 to index
    %v = tensor.extract %r[%x] : tensor<8xf64>
    %lt = arith.cmpi slt, %d2, %n : i64
    %ge = arith.cmpi sge, %d2, %z : i64
    %in = arith.andi %lt, %ge : i1
    %s = arith.select %in, %v, %out : f64
    linalg.yield %s : f64
  } -> tensor<8xf64>
  %e3 = tensor.empty() : tensor<8xi64>
  %h = linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%e3 : tensor<8xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    linalg.yield %ii : i64
  } -> tensor<8xi64>
  return %g, %h : tensor<8xf64>, tensor<8xi64>
}

// COUNT: synth-payload-cse: 3 rewrites
