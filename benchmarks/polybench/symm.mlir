#map = affine_map<(d0) -> (d0)>
module {
  func.func @kernel_symm(%arg0: i32, %arg1: i32, %arg2: f64, %arg3: f64, %arg4: memref<1000x1200xf64>, %arg5: memref<1000x1000xf64>, %arg6: memref<1000x1200xf64>) {
    %cst = arith.constant 0.000000e+00 : f64
    %0 = arith.index_cast %arg0 : i32 to index
    %1 = arith.index_cast %arg1 : i32 to index
    affine.for %arg7 = 0 to %0 {
      affine.for %arg8 = 0 to %1 {
        %2 = affine.for %arg9 = 0 to #map(%arg7) iter_args(%arg10 = %cst) -> (f64) {
          %14 = affine.load %arg6[%arg7, %arg8] : memref<1000x1200xf64>
          %15 = arith.mulf %arg2, %14 : f64
          %16 = affine.load %arg5[%arg7, %arg9] : memref<1000x1000xf64>
          %17 = arith.mulf %15, %16 : f64
          %18 = affine.load %arg4[%arg9, %arg8] : memref<1000x1200xf64>
          %19 = arith.addf %18, %17 : f64
          affine.store %19, %arg4[%arg9, %arg8] : memref<1000x1200xf64>
          %20 = affine.load %arg6[%arg9, %arg8] : memref<1000x1200xf64>
          %21 = affine.load %arg5[%arg7, %arg9] : memref<1000x1000xf64>
          %22 = arith.mulf %20, %21 : f64
          %23 = arith.addf %arg10, %22 : f64
          affine.yield %23 : f64
        }
        %3 = affine.load %arg4[%arg7, %arg8] : memref<1000x1200xf64>
        %4 = arith.mulf %arg3, %3 : f64
        %5 = affine.load %arg6[%arg7, %arg8] : memref<1000x1200xf64>
        %6 = arith.mulf %arg2, %5 : f64
        %7 = affine.load %arg5[%arg7, %arg7] : memref<1000x1000xf64>
        %8 = arith.mulf %6, %7 : f64
        %9 = arith.addf %4, %8 : f64
        %10 = arith.mulf %arg2, %2 : f64
        %11 = arith.addf %9, %10 : f64
        affine.store %11, %arg4[%arg7, %arg8] : memref<1000x1200xf64>
      }
    }
    return
  }
}
