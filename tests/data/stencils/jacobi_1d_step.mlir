#map = affine_map<()[s0] -> (s0 - 1)>
module {
  func.func @jacobi_1d_step(%arg1: i32, %arg2: memref<2000xf64>, %arg3: memref<2000xf64>) {
    %cst = arith.constant 3.333300e-01 : f64
    %1 = arith.index_cast %arg1 : i32 to index
      affine.for %arg5 = 1 to #map()[%1] {
        %2 = affine.load %arg2[%arg5 - 1] : memref<2000xf64>
        %3 = affine.load %arg2[%arg5] : memref<2000xf64>
        %4 = arith.addf %2, %3 : f64
        %5 = affine.load %arg2[%arg5 + 1] : memref<2000xf64>
        %6 = arith.addf %4, %5 : f64
        %7 = arith.mulf %cst, %6 : f64
        affine.store %7, %arg3[%arg5] : memref<2000xf64>
      }
    return
  }
}
