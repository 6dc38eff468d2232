#map = affine_map<(d0) -> (d0)>
module {
  func.func @kernel_covariance(%arg0: i32, %arg1: i32, %arg2: f64, %arg3: memref<1400x1200xf64>, %arg4: memref<1200x1200xf64>, %arg5: memref<1200xf64>) {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 1.000000e+00 : f64
    %0 = arith.index_cast %arg0 : i32 to index
    %1 = arith.index_cast %arg1 : i32 to index
    affine.for %arg6 = 0 to %0 {
      affine.store %cst, %arg5[%arg6] : memref<1200xf64>
      affine.for %arg7 = 0 to %1 {
        %4 = affine.load %arg3[%arg7, %arg6] : memref<1400x1200xf64>
        %5 = affine.load %arg5[%arg6] : memref<1200xf64>
        %6 = arith.addf %5, %4 : f64
        affine.store %6, %arg5[%arg6] : memref<1200xf64>
      }
      %2 = affine.load %arg5[%arg6] : memref<1200xf64>
      %3 = arith.divf %2, %arg2 : f64
      affine.store %3, %arg5[%arg6] : memref<1200xf64>
    }
    affine.for %arg6 = 0 to %1 {
      affine.for %arg7 = 0 to %0 {
        %2 = affine.load %arg5[%arg7] : memref<1200xf64>
        %3 = affine.load %arg3[%arg6, %arg7] : memref<1400x1200xf64>
        %4 = arith.subf %3, %2 : f64
        affine.store %4, %arg3[%arg6, %arg7] : memref<1400x1200xf64>
      }
    }
    affine.for %arg6 = 0 to %0 {
      affine.for %arg7 = #map(%arg6) to %0 {
        affine.store %cst, %arg4[%arg6, %arg7] : memref<1200x1200xf64>
        affine.for %arg8 = 0 to %1 {
          %7 = affine.load %arg3[%arg8, %arg6] : memref<1400x1200xf64>
          %8 = affine.load %arg3[%arg8, %arg7] : memref<1400x1200xf64>
          %9 = arith.mulf %7, %8 : f64
          %10 = affine.load %arg4[%arg6, %arg7] : memref<1200x1200xf64>
          %11 = arith.addf %10, %9 : f64
          affine.store %11, %arg4[%arg6, %arg7] : memref<1200x1200xf64>
        }
        %2 = arith.subf %arg2, %cst_0 : f64
        %3 = affine.load %arg4[%arg6, %arg7] : memref<1200x1200xf64>
        %4 = arith.divf %3, %2 : f64
        affine.store %4, %arg4[%arg6, %arg7] : memref<1200x1200xf64>
        %5 = affine.load %arg4[%arg6, %arg7] : memref<1200x1200xf64>
        affine.store %5, %arg4[%arg7, %arg6] : memref<1200x1200xf64>
      }
    }
    return
  }
}
