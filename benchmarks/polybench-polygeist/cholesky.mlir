#map = affine_map<(d0) -> (d0)>
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_cholesky(%arg0: i32, %arg1: memref<?x2000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    affine.for %arg2 = 0 to 2000 {
      affine.for %arg3 = 0 to #map(%arg2) {
        affine.for %arg4 = 0 to #map(%arg3) {
          %5 = affine.load %arg1[%arg2, %arg4] : memref<?x2000xf64>
          %6 = affine.load %arg1[%arg3, %arg4] : memref<?x2000xf64>
          %7 = arith.mulf %5, %6 : f64
          %8 = affine.load %arg1[%arg2, %arg3] : memref<?x2000xf64>
          %9 = arith.subf %8, %7 : f64
          affine.store %9, %arg1[%arg2, %arg3] : memref<?x2000xf64>
        }
        %2 = affine.load %arg1[%arg3, %arg3] : memref<?x2000xf64>
        %3 = affine.load %arg1[%arg2, %arg3] : memref<?x2000xf64>
        %4 = arith.divf %3, %2 : f64
        affine.store %4, %arg1[%arg2, %arg3] : memref<?x2000xf64>
      }
      affine.for %arg3 = 0 to #map(%arg2) {
        %2 = affine.load %arg1[%arg2, %arg3] : memref<?x2000xf64>
        %3 = arith.mulf %2, %2 : f64
        %4 = affine.load %arg1[%arg2, %arg2] : memref<?x2000xf64>
        %5 = arith.subf %4, %3 : f64
        affine.store %5, %arg1[%arg2, %arg2] : memref<?x2000xf64>
      }
      %0 = affine.load %arg1[%arg2, %arg2] : memref<?x2000xf64>
      %1 = math.sqrt %0 : f64
      affine.store %1, %arg1[%arg2, %arg2] : memref<?x2000xf64>
    }
    return
  }
}
