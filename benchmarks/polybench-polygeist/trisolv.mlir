#map = affine_map<(d0) -> (d0)>
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>, #dlti.dl_entry<"dlti.endianness", "little">>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  func.func @kernel_trisolv(%arg0: i32, %arg1: memref<2000x2000xf64>, %arg2: memref<2000xf64>, %arg3: memref<2000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    affine.for %arg4 = 0 to 2000 {
      %0 = affine.load %arg3[%arg4] : memref<2000xf64>
      affine.store %0, %arg2[%arg4] : memref<2000xf64>
      affine.for %arg5 = 0 to #map(%arg4) {
        %4 = affine.load %arg1[%arg4, %arg5] : memref<2000x2000xf64>
        %5 = affine.load %arg2[%arg5] : memref<2000xf64>
        %6 = arith.mulf %4, %5 : f64
        %7 = affine.load %arg2[%arg4] : memref<2000xf64>
        %8 = arith.subf %7, %6 : f64
        affine.store %8, %arg2[%arg4] : memref<2000xf64>
      }
      %1 = affine.load %arg2[%arg4] : memref<2000xf64>
      %2 = affine.load %arg1[%arg4, %arg4] : memref<2000x2000xf64>
      %3 = arith.divf %1, %2 : f64
      affine.store %3, %arg2[%arg4] : memref<2000xf64>
    }
    return
  }
}
