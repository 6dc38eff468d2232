#map = affine_map<()[s0] -> (s0 - 1)>
#map1 = affine_map<(d0) -> (d0 + 1)>
module {
  func.func @kernel_correlation(%arg0: i32, %arg1: i32, %arg2: f64, %arg3: memref<1400x1200xf64>, %arg4: memref<1200x1200xf64>, %arg5: memref<1200xf64>, %arg6: memref<1200xf64>) {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 1.000000e-01 : f64
    %cst_1 = arith.constant 1.000000e+00 : f64
    %0 = arith.index_cast %arg0 : i32 to index
    %1 = arith.index_cast %arg1 : i32 to index
    affine.for %arg7 = 0 to %0 {
      affine.store %cst, %arg5[%arg7] : memref<1200xf64>
      affine.for %arg8 = 0 to %1 {
        %4 = affine.load %arg3[%arg8, %arg7] : memref<1400x1200xf64>
        %5 = affine.load %arg5[%arg7] : memref<1200xf64>
        %6 = arith.addf %5, %4 : f64
        affine.store %6, %arg5[%arg7] : memref<1200xf64>
      }
      %2 = affine.load %arg5[%arg7] : memref<1200xf64>
      %3 = arith.divf %2, %arg2 : f64
      affine.store %3, %arg5[%arg7] : memref<1200xf64>
    }
    affine.for %arg7 = 0 to %0 {
      affine.store %cst, %arg6[%arg7] : memref<1200xf64>
      affine.for %arg8 = 0 to %1 {
        %10 = affine.load %arg3[%arg8, %arg7] : memref<1400x1200xf64>
        %11 = affine.load %arg5[%arg7] : memref<1200xf64>
        %12 = arith.subf %10, %11 : f64
        %13 = affine.load %arg3[%arg8, %arg7] : memref<1400x1200xf64>
        %14 = affine.load %arg5[%arg7] : memref<1200xf64>
        %15 = arith.subf %13, %14 : f64
        %16 = arith.mulf %12, %15 : f64
        %17 = affine.load %arg6[%arg7] : memref<1200xf64>
        %18 = arith.addf %17, %16 : f64
        affine.store %18, %arg6[%arg7] : memref<1200xf64>
      }
      %2 = affine.load %arg6[%arg7] : memref<1200xf64>
      %3 = arith.divf %2, %arg2 : f64
      affine.store %3, %arg6[%arg7] : memref<1200xf64>
      %4 = affine.load %arg6[%arg7] : memref<1200xf64>
      %5 = math.sqrt %4 : f64
      affine.store %5, %arg6[%arg7] : memref<1200xf64>
      %6 = affine.load %arg6[%arg7] : memref<1200xf64>
      %7 = arith.cmpf ole, %6, %cst_0 : f64
      %8 = affine.load %arg6[%arg7] : memref<1200xf64>
      %9 = arith.select %7, %cst_1, %8 : f64
      affine.store %9, %arg6[%arg7] : memref<1200xf64>
    }
    affine.for %arg7 = 0 to %1 {
      affine.for %arg8 = 0 to %0 {
        %2 = affine.load %arg5[%arg8] : memref<1200xf64>
        %3 = affine.load %arg3[%arg7, %arg8] : memref<1400x1200xf64>
        %4 = arith.subf %3, %2 : f64
        affine.store %4, %arg3[%arg7, %arg8] : memref<1400x1200xf64>
        %5 = math.sqrt %arg2 : f64
        %6 = affine.load %arg6[%arg8] : memref<1200xf64>
        %7 = arith.mulf %5, %6 : f64
        %8 = affine.load %arg3[%arg7, %arg8] : memref<1400x1200xf64>
        %9 = arith.divf %8, %7 : f64
        affine.store %9, %arg3[%arg7, %arg8] : memref<1400x1200xf64>
      }
    }
    affine.for %arg7 = 0 to #map()[%0] {
      affine.store %cst_1, %arg4[%arg7, %arg7] : memref<1200x1200xf64>
      affine.for %arg8 = #map1(%arg7) to %0 {
        affine.store %cst, %arg4[%arg7, %arg8] : memref<1200x1200xf64>
        affine.for %arg9 = 0 to %1 {
          %3 = affine.load %arg3[%arg9, %arg7] : memref<1400x1200xf64>
          %4 = affine.load %arg3[%arg9, %arg8] : memref<1400x1200xf64>
          %5 = arith.mulf %3, %4 : f64
          %6 = affine.load %arg4[%arg7, %arg8] : memref<1200x1200xf64>
          %7 = arith.addf %6, %5 : f64
          affine.store %7, %arg4[%arg7, %arg8] : memref<1200x1200xf64>
        }
        %2 = affine.load %arg4[%arg7, %arg8] : memref<1200x1200xf64>
        affine.store %2, %arg4[%arg8, %arg7] : memref<1200x1200xf64>
      }
    }
    affine.store %cst_1, %arg4[symbol(%0) - 1, symbol(%0) - 1] : memref<1200x1200xf64>
    return
  }
}
