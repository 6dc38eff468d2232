#map = affine_map<(d0) -> (d0)>
module {
  func.func @kernel_durbin(%arg0: i32, %arg1: memref<2000xf64>, %arg2: memref<2000xf64>) {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 1.000000e+00 : f64
    %0 = arith.index_cast %arg0 : i32 to index
    %alloca = memref.alloca() : memref<2000xf64>
    %alloca_1 = memref.alloca() : memref<1xf64>
    %alloca_2 = memref.alloca() : memref<1xf64>
    %alloca_3 = memref.alloca() : memref<1xf64>
    %1 = affine.load %arg1[0] : memref<2000xf64>
    %2 = arith.negf %1 : f64
    affine.store %2, %arg2[0] : memref<2000xf64>
    affine.store %cst_0, %alloca_2[0] : memref<1xf64>
    %3 = affine.load %arg1[0] : memref<2000xf64>
    %4 = arith.negf %3 : f64
    affine.store %4, %alloca_1[0] : memref<1xf64>
    affine.for %arg3 = 1 to %0 {
      %5 = affine.load %alloca_1[0] : memref<1xf64>
      %6 = arith.mulf %5, %5 : f64
      %7 = arith.subf %cst_0, %6 : f64
      %8 = affine.load %alloca_2[0] : memref<1xf64>
      %9 = arith.mulf %7, %8 : f64
      affine.store %9, %alloca_2[0] : memref<1xf64>
      affine.store %cst, %alloca_3[0] : memref<1xf64>
      affine.for %arg4 = 0 to #map(%arg3) {
        %17 = affine.load %arg1[%arg3 - %arg4 - 1] : memref<2000xf64>
        %18 = affine.load %arg2[%arg4] : memref<2000xf64>
        %19 = arith.mulf %17, %18 : f64
        %20 = affine.load %alloca_3[0] : memref<1xf64>
        %21 = arith.addf %20, %19 : f64
        affine.store %21, %alloca_3[0] : memref<1xf64>
      }
      %10 = affine.load %arg1[%arg3] : memref<2000xf64>
      %11 = affine.load %alloca_3[0] : memref<1xf64>
      %12 = arith.addf %10, %11 : f64
      %13 = arith.negf %12 : f64
      %14 = affine.load %alloca_2[0] : memref<1xf64>
      %15 = arith.divf %13, %14 : f64
      affine.store %15, %alloca_1[0] : memref<1xf64>
      affine.for %arg4 = 0 to #map(%arg3) {
        %17 = affine.load %arg2[%arg4] : memref<2000xf64>
        %18 = affine.load %alloca_1[0] : memref<1xf64>
        %19 = affine.load %arg2[%arg3 - %arg4 - 1] : memref<2000xf64>
        %20 = arith.mulf %18, %19 : f64
        %21 = arith.addf %17, %20 : f64
        affine.store %21, %alloca[%arg4] : memref<2000xf64>
      }
      affine.for %arg4 = 0 to #map(%arg3) {
        %17 = affine.load %alloca[%arg4] : memref<2000xf64>
        affine.store %17, %arg2[%arg4] : memref<2000xf64>
      }
      %16 = affine.load %alloca_1[0] : memref<1xf64>
      affine.store %16, %arg2[%arg3] : memref<2000xf64>
    }
    return
  }
}
