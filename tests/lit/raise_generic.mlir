// RUN: %synth raise %s --target stablehlo -q -o - | filecheck %s --check-prefix=SHLO
// RUN: %synth raise %s --target linalg -q -o - | filecheck %s --check-prefix=LIN
// axpy whose size is an argument: raised for every size (--shapes auto: generic), the size
// read from the arrays at run time, the drop-in viewing the n elements the loop reaches.

// SHLO-LABEL: func.func @axpy_raised(%arg0: tensor<i32>, %arg1: tensor<f64>, %arg2: tensor<?xf64>, %arg3: tensor<?xf64>) -> tensor<?xf64>
// SHLO-SAME: synth.validation = "all"
// SHLO: stablehlo.get_dimension_size %arg2, dim = 0
// SHLO: stablehlo.dynamic_broadcast_in_dim %arg1
// SHLO: stablehlo.multiply
// SHLO: stablehlo.add
// SHLO-LABEL: func.func @axpy(%arg0: i32, %arg1: f64, %arg2: memref<1000xf64>, %arg3: memref<1000xf64>)
// SHLO: memref.subview %arg2[0] [%{{.*}}] [1] : memref<1000xf64> to memref<?xf64, strided<[1]>>

// LIN-LABEL: func.func @axpy_raised(%arg0: tensor<i32>, %arg1: tensor<f64>, %arg2: tensor<?xf64>, %arg3: tensor<?xf64>) -> tensor<?xf64>
// LIN: tensor.dim %arg2
// LIN: tensor.empty(%{{.*}}) : tensor<?xf64>
// LIN: linalg.broadcast
// LIN-LABEL: func.func @axpy(
func.func @axpy(%n: i32, %a: f64, %x: memref<1000xf64>, %y: memref<1000xf64>) {
  %m = arith.index_cast %n : i32 to index
  affine.for %i = 0 to %m {
    %xi = affine.load %x[%i] : memref<1000xf64>
    %yi = affine.load %y[%i] : memref<1000xf64>
    %p = arith.mulf %a, %xi : f64
    %s = arith.addf %yi, %p : f64
    affine.store %s, %y[%i] : memref<1000xf64>
  }
  return
}
