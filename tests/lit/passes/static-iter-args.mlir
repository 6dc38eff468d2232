// RUN: %synth opt --pass synth-static-iter-args %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// A loop that carries a static tensor cast to a dynamic type (a shape-generic raise made
// static: fdtd-2d's source vector) and only updates it in place carries it with its static
// type; the slices of it become static (updates by tensor.insert_slice or tensor.insert).
// A carried tensor the step replaces by another
// value (its shape might change) is not taken.

// CHECK-LABEL: func.func @queue(
// CHECK: scf.for {{.*}} iter_args(%[[Q:.*]] = %arg0) -> (tensor<6xf64>)
// CHECK: tensor.extract_slice %[[Q]][1] [5] [1] : tensor<6xf64> to tensor<5xf64>
// CHECK: tensor.insert_slice {{.*}} into %[[Q]][0] [5] [1] : tensor<5xf64> into tensor<6xf64>
func.func @queue(%q0: tensor<6xf64>) -> tensor<?xf64> {
  %lo = arith.constant 0 : index
  %hi = arith.constant 4 : index
  %one = arith.constant 1 : index
  %c = tensor.cast %q0 : tensor<6xf64> to tensor<?xf64>
  %r = scf.for %t = %lo to %hi step %one iter_args(%q = %c) -> (tensor<?xf64>) {
    %tail = tensor.extract_slice %q[1] [5] [1] : tensor<?xf64> to tensor<5xf64>
    %q1 = tensor.insert_slice %tail into %q[0] [5] [1] : tensor<5xf64> into tensor<?xf64>
    scf.yield %q1 : tensor<?xf64>
  }
  return %r : tensor<?xf64>
}

// An element update (tensor.insert: a triangular solve's row loop) keeps the shape too;
// the loop's result has another use than the return (ludcmp: the next solve reads it), so
// canonicalize alone would not fold the cast through the loop.
// CHECK-LABEL: func.func @elements(
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[X:.*]] = %arg0) -> (tensor<6xf64>)
// CHECK: tensor.extract %[[X]][%{{.*}}] : tensor<6xf64>
// CHECK: tensor.insert %{{.*}} into %[[X]][%{{.*}}] : tensor<6xf64>
// CHECK: tensor.extract %[[R]][%{{.*}}] : tensor<6xf64>
func.func @elements(%x0: tensor<6xf64>) -> (tensor<?xf64>, f64) {
  %lo = arith.constant 0 : index
  %hi = arith.constant 6 : index
  %one = arith.constant 1 : index
  %c = tensor.cast %x0 : tensor<6xf64> to tensor<?xf64>
  %r = scf.for %i = %lo to %hi step %one iter_args(%x = %c) -> (tensor<?xf64>) {
    %v = tensor.extract %x[%i] : tensor<?xf64>
    %w = arith.addf %v, %v : f64
    %x1 = tensor.insert %w into %x[%i] : tensor<?xf64>
    scf.yield %x1 : tensor<?xf64>
  }
  %last = tensor.extract %r[%lo] : tensor<?xf64>
  return %r, %last : tensor<?xf64>, f64
}

// (MLIR's canonicalize, which the pass runs after its rewrites, may still fold the cast
// through this loop with a checked cast of what it yields; the pass itself counts 1.)
// CHECK-LABEL: func.func @replaced(
func.func @replaced(%q0: tensor<6xf64>, %other: tensor<?xf64>) -> tensor<?xf64> {
  %lo = arith.constant 0 : index
  %hi = arith.constant 4 : index
  %one = arith.constant 1 : index
  %c = tensor.cast %q0 : tensor<6xf64> to tensor<?xf64>
  %r = scf.for %t = %lo to %hi step %one iter_args(%q = %c) -> (tensor<?xf64>) {
    %tail = tensor.extract_slice %q[1] [5] [1] : tensor<?xf64> to tensor<5xf64>
    %q1 = tensor.insert_slice %tail into %other[0] [5] [1] : tensor<5xf64> into tensor<?xf64>
    scf.yield %q1 : tensor<?xf64>
  }
  return %r : tensor<?xf64>
}

// COUNT: synth-static-iter-args: 2 rewrites
