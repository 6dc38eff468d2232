// out[i] = 0.5 * in[i] + 1.0 for the first 512 entries of unsized buffers.
func.func @dyn_affine_map(%arg0: memref<?xf64>, %arg1: memref<?xf64>) {
  %cst = arith.constant 5.000000e-01 : f64
  %cst_0 = arith.constant 1.000000e+00 : f64
  affine.for %arg2 = 0 to 512 {
    %0 = affine.load %arg0[%arg2] : memref<?xf64>
    %1 = arith.mulf %0, %cst : f64
    %2 = arith.addf %1, %cst_0 : f64
    affine.store %2, %arg1[%arg2] : memref<?xf64>
  }
  return
}
