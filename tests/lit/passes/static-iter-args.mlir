// RUN: %synth opt --pass synth-static-iter-args %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT < %t.err
// RUN: %synth opt --pass synth-static-iter-args %S/inputs/static-iter-args.deriche.linalg-generic.mlir 2>%t2.err | filecheck %s --check-prefix=GENERIC
// RUN: filecheck %s --check-prefix=GENERIC-COUNT < %t2.err
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

// A loop state replaced each step by a new value of the static type, cast to the dynamic
// one (deriche's state vectors in a shape-generic raise made static), and a state that is
// the previous step's other state (ym2 = ym1): both static, as the fixpoint of the
// candidates finds.
// CHECK-LABEL: func.func @states(
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}) -> (tensor<6xf64>, tensor<6xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<6xf64>, tensor<6xf64>)
// CHECK: scf.yield %{{.*}}, %[[A]] : tensor<6xf64>, tensor<6xf64>
func.func @states(%z: tensor<6xf64>) -> tensor<?xf64> {
  %lo = arith.constant 0 : index
  %hi = arith.constant 4 : index
  %one = arith.constant 1 : index
  %c = tensor.cast %z : tensor<6xf64> to tensor<?xf64>
  %r:2 = scf.for %t = %lo to %hi step %one iter_args(%a = %c, %b = %c) -> (tensor<?xf64>, tensor<?xf64>) {
    %as = tensor.cast %a : tensor<?xf64> to tensor<6xf64>
    %bs = tensor.cast %b : tensor<?xf64> to tensor<6xf64>
    %e = tensor.empty() : tensor<6xf64>
    %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
        iterator_types = ["parallel"]} ins(%as, %bs : tensor<6xf64>, tensor<6xf64>) outs(%e : tensor<6xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %s = arith.addf %x, %y : f64
      linalg.yield %s : f64
    } -> tensor<6xf64>
    %nd = tensor.cast %n : tensor<6xf64> to tensor<?xf64>
    scf.yield %nd, %a : tensor<?xf64>, tensor<?xf64>
  }
  return %r#1 : tensor<?xf64>
}

// A loop's array, updated in place after it and passed to the next loop (adi's sweeps):
// the first loop retyped, canonicalize folds the cast into the update, and the next round
// takes the second loop.
// CHECK-LABEL: func.func @chain(
// CHECK: scf.for {{.*}} -> (tensor<6xf64>)
// CHECK: tensor.insert_slice {{.*}} : tensor<2xf64> into tensor<6xf64>
// CHECK: scf.for {{.*}} -> (tensor<6xf64>)
func.func @chain(%q0: tensor<6xf64>, %p: tensor<2xf64>) -> tensor<?xf64> {
  %lo = arith.constant 0 : index
  %hi = arith.constant 4 : index
  %one = arith.constant 1 : index
  %c = tensor.cast %q0 : tensor<6xf64> to tensor<?xf64>
  %r = scf.for %t = %lo to %hi step %one iter_args(%q = %c) -> (tensor<?xf64>) {
    %tail = tensor.extract_slice %q[1] [5] [1] : tensor<?xf64> to tensor<5xf64>
    %q1 = tensor.insert_slice %tail into %q[0] [5] [1] : tensor<5xf64> into tensor<?xf64>
    scf.yield %q1 : tensor<?xf64>
  }
  %u = tensor.insert_slice %p into %r[4] [2] [1] : tensor<2xf64> into tensor<?xf64>
  %r2 = scf.for %t = %lo to %hi step %one iter_args(%q = %u) -> (tensor<?xf64>) {
    %tail = tensor.extract_slice %q[1] [5] [1] : tensor<?xf64> to tensor<5xf64>
    %q1 = tensor.insert_slice %tail into %q[0] [5] [1] : tensor<5xf64> into tensor<?xf64>
    scf.yield %q1 : tensor<?xf64>
  }
  return %r2 : tensor<?xf64>
}

// Not taken by the pass (the count): a state replaced by a value of another static shape,
// and two states that swap values of different shapes (each is the other's type at the
// next step). (MLIR's canonicalize, run after the pass's rewrites elsewhere, folds the
// casts through this loop with checked casts of what it yields, as in @replaced;
// tests/test_static_iter_args.py checks the pass leaves it alone.)
// CHECK-LABEL: func.func @other_shapes(
func.func @other_shapes(%z: tensor<6xf64>, %w: tensor<5xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %lo = arith.constant 0 : index
  %hi = arith.constant 4 : index
  %one = arith.constant 1 : index
  %c = tensor.cast %z : tensor<6xf64> to tensor<?xf64>
  %d = tensor.cast %w : tensor<5xf64> to tensor<?xf64>
  %r:3 = scf.for %t = %lo to %hi step %one iter_args(%a = %c, %x = %c, %y = %d) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) {
    %s = tensor.extract_slice %a[1] [5] [1] : tensor<?xf64> to tensor<5xf64>
    %sd = tensor.cast %s : tensor<5xf64> to tensor<?xf64>
    scf.yield %sd, %y, %x : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
  }
  return %r#0, %r#1, %r#2 : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
}

// COUNT: synth-static-iter-args: 6 rewrites

// deriche raised with --shapes generic, made static at 37 x 21 (regenerated by
// scripts/regen_pass_inputs.py): each sweep carries its array and its state vectors (the
// new vector, or the previous state, cast to `?` each step) with their static types, so
// the sweeps look to synth-lane-blocks as the static raise's do; no `?` tensor is left.
// GENERIC-LABEL: func.func @kernel_deriche_raised(
// GENERIC-NOT: tensor<?
// GENERIC: scf.for {{.*}} -> (tensor<37x21xf64>, tensor<37xf64>, tensor<37xf64>, tensor<37xf64>)
// GENERIC-NOT: tensor<?
// GENERIC: scf.for {{.*}} -> (tensor<37x21xf64>, tensor<37xf64>, tensor<37xf64>, tensor<37xf64>, tensor<37xf64>)
// GENERIC-NOT: tensor<?
// GENERIC: scf.for {{.*}} -> (tensor<37x21xf64>, tensor<21xf64>, tensor<21xf64>, tensor<21xf64>)
// GENERIC-NOT: tensor<?
// GENERIC: scf.for {{.*}} -> (tensor<37x21xf64>, tensor<21xf64>, tensor<21xf64>, tensor<21xf64>, tensor<21xf64>)
// GENERIC-NOT: tensor<?
// GENERIC-COUNT: synth-static-iter-args: 18 rewrites
