#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0)[s0] -> (-d0 + s0)>
module {
  func.func @kernel_ludcmp(%arg0: i32, %arg1: memref<2000x2000xf64>, %arg2: memref<2000xf64>, %arg3: memref<2000xf64>, %arg4: memref<2000xf64>) {
    %0 = arith.index_cast %arg0 : i32 to index
    %alloca = memref.alloca() : memref<1xf64>
    affine.for %arg5 = 0 to %0 {
      affine.for %arg6 = 0 to #map(%arg5) {
        %1 = affine.load %arg1[%arg5, %arg6] : memref<2000x2000xf64>
        affine.store %1, %alloca[0] : memref<1xf64>
        affine.for %arg7 = 0 to #map(%arg6) {
          %5 = affine.load %arg1[%arg5, %arg7] : memref<2000x2000xf64>
          %6 = affine.load %arg1[%arg7, %arg6] : memref<2000x2000xf64>
          %7 = arith.mulf %5, %6 : f64
          %8 = affine.load %alloca[0] : memref<1xf64>
          %9 = arith.subf %8, %7 : f64
          affine.store %9, %alloca[0] : memref<1xf64>
        }
        %2 = affine.load %alloca[0] : memref<1xf64>
        %3 = affine.load %arg1[%arg6, %arg6] : memref<2000x2000xf64>
        %4 = arith.divf %2, %3 : f64
        affine.store %4, %arg1[%arg5, %arg6] : memref<2000x2000xf64>
      }
      affine.for %arg6 = #map(%arg5) to %0 {
        %1 = affine.load %arg1[%arg5, %arg6] : memref<2000x2000xf64>
        affine.store %1, %alloca[0] : memref<1xf64>
        affine.for %arg7 = 0 to #map(%arg5) {
          %3 = affine.load %arg1[%arg5, %arg7] : memref<2000x2000xf64>
          %4 = affine.load %arg1[%arg7, %arg6] : memref<2000x2000xf64>
          %5 = arith.mulf %3, %4 : f64
          %6 = affine.load %alloca[0] : memref<1xf64>
          %7 = arith.subf %6, %5 : f64
          affine.store %7, %alloca[0] : memref<1xf64>
        }
        %2 = affine.load %alloca[0] : memref<1xf64>
        affine.store %2, %arg1[%arg5, %arg6] : memref<2000x2000xf64>
      }
    }
    affine.for %arg5 = 0 to %0 {
      %1 = affine.load %arg2[%arg5] : memref<2000xf64>
      affine.store %1, %alloca[0] : memref<1xf64>
      affine.for %arg6 = 0 to #map(%arg5) {
        %3 = affine.load %arg1[%arg5, %arg6] : memref<2000x2000xf64>
        %4 = affine.load %arg4[%arg6] : memref<2000xf64>
        %5 = arith.mulf %3, %4 : f64
        %6 = affine.load %alloca[0] : memref<1xf64>
        %7 = arith.subf %6, %5 : f64
        affine.store %7, %alloca[0] : memref<1xf64>
      }
      %2 = affine.load %alloca[0] : memref<1xf64>
      affine.store %2, %arg4[%arg5] : memref<2000xf64>
    }
    affine.for %arg5 = 0 to %0 {
      %1 = affine.load %arg4[-%arg5 + symbol(%0) - 1] : memref<2000xf64>
      affine.store %1, %alloca[0] : memref<1xf64>
      affine.for %arg6 = #map1(%arg5)[%0] to %0 {
        %5 = affine.load %arg1[-%arg5 + symbol(%0) - 1, %arg6] : memref<2000x2000xf64>
        %6 = affine.load %arg3[%arg6] : memref<2000xf64>
        %7 = arith.mulf %5, %6 : f64
        %8 = affine.load %alloca[0] : memref<1xf64>
        %9 = arith.subf %8, %7 : f64
        affine.store %9, %alloca[0] : memref<1xf64>
      }
      %2 = affine.load %alloca[0] : memref<1xf64>
      %3 = affine.load %arg1[-%arg5 + symbol(%0) - 1, -%arg5 + symbol(%0) - 1] : memref<2000x2000xf64>
      %4 = arith.divf %2, %3 : f64
      affine.store %4, %arg3[-%arg5 + symbol(%0) - 1] : memref<2000xf64>
    }
    return
  }
}
