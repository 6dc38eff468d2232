// RUN: %synth raise %s --target stablehlo -q -o - | filecheck %s
// gemm with constant sizes (as Polygeist prints PolyBench): size symbols n8, n10, n12.

// CHECK-LABEL: func.func @gemm_raised(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<8x10xf64>, %arg3: tensor<8x12xf64>, %arg4: tensor<12x10xf64>) -> tensor<8x10xf64>
// CHECK-SAME: synth.outputs = [2]
// CHECK-SAME: synth.proof = "all sizes: n10, n12, n8 >= 1
// CHECK-DAG: stablehlo.dot_general %arg3, %arg4, contracting_dims = [1] x [0] : (tensor<8x12xf64>, tensor<12x10xf64>) -> tensor<8x10xf64>
// CHECK-DAG: stablehlo.multiply
// CHECK: stablehlo.add
// CHECK-LABEL: func.func @gemm(%arg0: f64, %arg1: f64, %arg2: memref<8x10xf64>, %arg3: memref<8x12xf64>, %arg4: memref<12x10xf64>)
// CHECK: call @gemm_raised
// CHECK: bufferization.materialize_in_destination {{.*}} in restrict writable %arg2
func.func @gemm(%alpha: f64, %beta: f64, %C: memref<8x10xf64>, %A: memref<8x12xf64>, %B: memref<12x10xf64>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 10 {
      %c = affine.load %C[%i, %j] : memref<8x10xf64>
      %cb = arith.mulf %c, %beta : f64
      affine.store %cb, %C[%i, %j] : memref<8x10xf64>
    }
    affine.for %k = 0 to 12 {
      affine.for %j = 0 to 10 {
        %a = affine.load %A[%i, %k] : memref<8x12xf64>
        %aa = arith.mulf %alpha, %a : f64
        %b = affine.load %B[%k, %j] : memref<12x10xf64>
        %p = arith.mulf %aa, %b : f64
        %c = affine.load %C[%i, %j] : memref<8x10xf64>
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<8x10xf64>
      }
    }
  }
  return
}
