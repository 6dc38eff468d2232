#map = affine_map<(d0) -> (d0)>
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_durbin(%arg0: i32, %arg1: memref<2000xf64>, %arg2: memref<2000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 1.000000e+00 : f64
    %alloca = memref.alloca() : memref<2000xf64>
    %alloca_1 = memref.alloca() : memref<1xf64>
    %alloca_2 = memref.alloca() : memref<1xf64>
    %alloca_3 = memref.alloca() : memref<1xf64>
    %0 = llvm.mlir.undef : f64
    affine.store %0, %alloca_1[0] : memref<1xf64>
    affine.store %0, %alloca_2[0] : memref<1xf64>
    affine.store %0, %alloca_3[0] : memref<1xf64>
    %1 = affine.load %arg1[0] : memref<2000xf64>
    %2 = arith.negf %1 : f64
    affine.store %2, %arg2[0] : memref<2000xf64>
    affine.store %cst_0, %alloca_2[0] : memref<1xf64>
    %3 = affine.load %arg1[0] : memref<2000xf64>
    %4 = arith.negf %3 : f64
    affine.store %4, %alloca_1[0] : memref<1xf64>
    affine.for %arg3 = 1 to 2000 {
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
