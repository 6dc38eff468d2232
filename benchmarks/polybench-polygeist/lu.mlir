#map = affine_map<(d0) -> (d0)>
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr<272>, dense<64> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<271>, dense<32> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<270>, dense<32> : vector<4xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr, dense<64> : vector<4xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_lu(%arg0: i32, %arg1: memref<?x2000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    affine.for %arg2 = 0 to 2000 {
      affine.for %arg3 = 0 to #map(%arg2) {
        affine.for %arg4 = 0 to #map(%arg3) {
          %3 = affine.load %arg1[%arg2, %arg4] : memref<?x2000xf64>
          %4 = affine.load %arg1[%arg4, %arg3] : memref<?x2000xf64>
          %5 = arith.mulf %3, %4 : f64
          %6 = affine.load %arg1[%arg2, %arg3] : memref<?x2000xf64>
          %7 = arith.subf %6, %5 : f64
          affine.store %7, %arg1[%arg2, %arg3] : memref<?x2000xf64>
        }
        %0 = affine.load %arg1[%arg3, %arg3] : memref<?x2000xf64>
        %1 = affine.load %arg1[%arg2, %arg3] : memref<?x2000xf64>
        %2 = arith.divf %1, %0 : f64
        affine.store %2, %arg1[%arg2, %arg3] : memref<?x2000xf64>
      }
      affine.for %arg3 = #map(%arg2) to 2000 {
        affine.for %arg4 = 0 to #map(%arg2) {
          %0 = affine.load %arg1[%arg2, %arg4] : memref<?x2000xf64>
          %1 = affine.load %arg1[%arg4, %arg3] : memref<?x2000xf64>
          %2 = arith.mulf %0, %1 : f64
          %3 = affine.load %arg1[%arg2, %arg3] : memref<?x2000xf64>
          %4 = arith.subf %3, %2 : f64
          affine.store %4, %arg1[%arg2, %arg3] : memref<?x2000xf64>
        }
      }
    }
    return
  }
}
