#map = affine_map<(d0) -> (d0)>
module {
  func.func @kernel_trisolv(%arg0: i32, %arg1: memref<2000x2000xf64>, %arg2: memref<2000xf64>, %arg3: memref<2000xf64>) {
    %0 = arith.index_cast %arg0 : i32 to index
    affine.for %arg4 = 0 to %0 {
      %1 = affine.load %arg3[%arg4] : memref<2000xf64>
      affine.store %1, %arg2[%arg4] : memref<2000xf64>
      affine.for %arg5 = 0 to #map(%arg4) {
        %5 = affine.load %arg1[%arg4, %arg5] : memref<2000x2000xf64>
        %6 = affine.load %arg2[%arg5] : memref<2000xf64>
        %7 = arith.mulf %5, %6 : f64
        %8 = affine.load %arg2[%arg4] : memref<2000xf64>
        %9 = arith.subf %8, %7 : f64
        affine.store %9, %arg2[%arg4] : memref<2000xf64>
      }
      %2 = affine.load %arg2[%arg4] : memref<2000xf64>
      %3 = affine.load %arg1[%arg4, %arg4] : memref<2000x2000xf64>
      %4 = arith.divf %2, %3 : f64
      affine.store %4, %arg2[%arg4] : memref<2000xf64>
    }
    return
  }
}
