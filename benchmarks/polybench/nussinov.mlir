#map = affine_map<(d0)[s0] -> (-d0 + s0)>
#map1 = affine_map<(d0) -> (d0)>
#set = affine_set<(d0) : (d0 - 1 >= 0)>
#set1 = affine_set<(d0, d1) : (d1 - 1 >= 0, d0 - 1 >= 0)>
#set2 = affine_set<(d0, d1)[s0] : (d0 + d1 - s0 - 1 >= 0)>
module {
  func.func @kernel_nussinov(%arg0: i32, %arg1: memref<2500xi32>, %arg2: memref<2500x2500xi32>) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    %0 = arith.index_cast %arg0 : i32 to index
    affine.for %arg3 = 0 to %0 {
      affine.for %arg4 = #map(%arg3)[%0] to %0 {
        affine.if #set(%arg4) {
          %1 = affine.load %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
          %2 = affine.load %arg2[-%arg3 + symbol(%0) - 1, %arg4 - 1] : memref<2500x2500xi32>
          %3 = arith.cmpi sge, %1, %2 : i32
          %4 = arith.select %3, %1, %2 : i32
          affine.store %4, %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
        }
        affine.if #set(%arg3) {
          %1 = affine.load %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
          %2 = affine.load %arg2[-%arg3 + symbol(%0), %arg4] : memref<2500x2500xi32>
          %3 = arith.cmpi sge, %1, %2 : i32
          %4 = arith.select %3, %1, %2 : i32
          affine.store %4, %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
        }
        affine.if #set1(%arg3, %arg4) {
          affine.if #set2(%arg3, %arg4)[%0] {
            %1 = affine.load %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
            %2 = affine.load %arg2[-%arg3 + symbol(%0), %arg4 - 1] : memref<2500x2500xi32>
            %3 = affine.load %arg1[-%arg3 + symbol(%0) - 1] : memref<2500xi32>
            %4 = affine.load %arg1[%arg4] : memref<2500xi32>
            %5 = arith.addi %3, %4 : i32
            %6 = arith.cmpi eq, %5, %c3_i32 : i32
            %7 = arith.select %6, %c1_i32, %c0_i32 : i32
            %8 = arith.addi %2, %7 : i32
            %9 = arith.cmpi sge, %1, %8 : i32
            %10 = arith.select %9, %1, %8 : i32
            affine.store %10, %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
          } else {
            %1 = affine.load %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
            %2 = affine.load %arg2[-%arg3 + symbol(%0), %arg4 - 1] : memref<2500x2500xi32>
            %3 = arith.cmpi sge, %1, %2 : i32
            %4 = arith.select %3, %1, %2 : i32
            affine.store %4, %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
          }
        }
        affine.for %arg5 = #map(%arg3)[%0] to #map1(%arg4) {
          %1 = affine.load %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
          %2 = affine.load %arg2[-%arg3 + symbol(%0) - 1, %arg5] : memref<2500x2500xi32>
          %3 = affine.load %arg2[%arg5 + 1, %arg4] : memref<2500x2500xi32>
          %4 = arith.addi %2, %3 : i32
          %5 = arith.cmpi sge, %1, %4 : i32
          %6 = arith.select %5, %1, %4 : i32
          affine.store %6, %arg2[-%arg3 + symbol(%0) - 1, %arg4] : memref<2500x2500xi32>
        }
      }
    }
    return
  }
}
