#map = affine_map<(d0) -> (-d0 + 2500)>
#map1 = affine_map<(d0) -> (d0)>
#set = affine_set<(d0) : (d0 - 1 >= 0)>
#set1 = affine_set<(d0, d1) : (d1 - 1 >= 0, d0 - 1 >= 0)>
#set2 = affine_set<(d0, d1) : (d0 + d1 - 2501 >= 0)>
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>, #dlti.dl_entry<"dlti.endianness", "little">>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  func.func @kernel_nussinov(%arg0: i32, %arg1: memref<2500xi32>, %arg2: memref<2500x2500xi32>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    affine.for %arg3 = 0 to 2500 {
      affine.for %arg4 = #map(%arg3) to 2500 {
        affine.if #set(%arg4) {
          %0 = affine.load %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
          %1 = affine.load %arg2[-%arg3 + 2499, %arg4 - 1] : memref<2500x2500xi32>
          %2 = arith.cmpi sge, %0, %1 : i32
          %3 = arith.select %2, %0, %1 : i32
          affine.store %3, %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
        }
        affine.if #set(%arg3) {
          %0 = affine.load %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
          %1 = affine.load %arg2[-%arg3 + 2500, %arg4] : memref<2500x2500xi32>
          %2 = arith.cmpi sge, %0, %1 : i32
          %3 = arith.select %2, %0, %1 : i32
          affine.store %3, %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
        }
        affine.if #set1(%arg3, %arg4) {
          affine.if #set2(%arg3, %arg4) {
            %0 = affine.load %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
            %1 = affine.load %arg2[-%arg3 + 2500, %arg4 - 1] : memref<2500x2500xi32>
            %2 = affine.load %arg1[-%arg3 + 2499] : memref<2500xi32>
            %3 = affine.load %arg1[%arg4] : memref<2500xi32>
            %4 = arith.addi %2, %3 : i32
            %5 = arith.cmpi eq, %4, %c3_i32 : i32
            %6 = arith.select %5, %c1_i32, %c0_i32 : i32
            %7 = arith.addi %1, %6 : i32
            %8 = arith.cmpi sge, %0, %7 : i32
            %9 = arith.select %8, %0, %7 : i32
            affine.store %9, %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
          } else {
            %0 = affine.load %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
            %1 = affine.load %arg2[-%arg3 + 2500, %arg4 - 1] : memref<2500x2500xi32>
            %2 = arith.cmpi sge, %0, %1 : i32
            %3 = arith.select %2, %0, %1 : i32
            affine.store %3, %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
          }
        }
        affine.for %arg5 = #map(%arg3) to #map1(%arg4) {
          %0 = affine.load %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
          %1 = affine.load %arg2[-%arg3 + 2499, %arg5] : memref<2500x2500xi32>
          %2 = affine.load %arg2[%arg5 + 1, %arg4] : memref<2500x2500xi32>
          %3 = arith.addi %1, %2 : i32
          %4 = arith.cmpi sge, %0, %3 : i32
          %5 = arith.select %4, %0, %3 : i32
          affine.store %5, %arg2[-%arg3 + 2499, %arg4] : memref<2500x2500xi32>
        }
      }
    }
    return
  }
}
