module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>, #dlti.dl_entry<"dlti.endianness", "little">>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  func.func @kernel_heat_3d(%arg0: i32, %arg1: i32, %arg2: memref<120x120x120xf64>, %arg3: memref<120x120x120xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 1.250000e-01 : f64
    %cst_0 = arith.constant 2.000000e+00 : f64
    affine.for %arg4 = 1 to 501 {
      affine.for %arg5 = 1 to 119 {
        affine.for %arg6 = 1 to 119 {
          affine.for %arg7 = 1 to 119 {
            %0 = affine.load %arg2[%arg5 + 1, %arg6, %arg7] : memref<120x120x120xf64>
            %1 = affine.load %arg2[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
            %2 = arith.mulf %1, %cst_0 : f64
            %3 = arith.subf %0, %2 : f64
            %4 = affine.load %arg2[%arg5 - 1, %arg6, %arg7] : memref<120x120x120xf64>
            %5 = arith.addf %3, %4 : f64
            %6 = arith.mulf %5, %cst : f64
            %7 = affine.load %arg2[%arg5, %arg6 + 1, %arg7] : memref<120x120x120xf64>
            %8 = affine.load %arg2[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
            %9 = arith.mulf %8, %cst_0 : f64
            %10 = arith.subf %7, %9 : f64
            %11 = affine.load %arg2[%arg5, %arg6 - 1, %arg7] : memref<120x120x120xf64>
            %12 = arith.addf %10, %11 : f64
            %13 = arith.mulf %12, %cst : f64
            %14 = arith.addf %6, %13 : f64
            %15 = affine.load %arg2[%arg5, %arg6, %arg7 + 1] : memref<120x120x120xf64>
            %16 = affine.load %arg2[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
            %17 = arith.mulf %16, %cst_0 : f64
            %18 = arith.subf %15, %17 : f64
            %19 = affine.load %arg2[%arg5, %arg6, %arg7 - 1] : memref<120x120x120xf64>
            %20 = arith.addf %18, %19 : f64
            %21 = arith.mulf %20, %cst : f64
            %22 = arith.addf %14, %21 : f64
            %23 = affine.load %arg2[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
            %24 = arith.addf %22, %23 : f64
            affine.store %24, %arg3[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
          }
        }
      }
      affine.for %arg5 = 1 to 119 {
        affine.for %arg6 = 1 to 119 {
          affine.for %arg7 = 1 to 119 {
            %0 = affine.load %arg3[%arg5 + 1, %arg6, %arg7] : memref<120x120x120xf64>
            %1 = affine.load %arg3[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
            %2 = arith.mulf %1, %cst_0 : f64
            %3 = arith.subf %0, %2 : f64
            %4 = affine.load %arg3[%arg5 - 1, %arg6, %arg7] : memref<120x120x120xf64>
            %5 = arith.addf %3, %4 : f64
            %6 = arith.mulf %5, %cst : f64
            %7 = affine.load %arg3[%arg5, %arg6 + 1, %arg7] : memref<120x120x120xf64>
            %8 = affine.load %arg3[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
            %9 = arith.mulf %8, %cst_0 : f64
            %10 = arith.subf %7, %9 : f64
            %11 = affine.load %arg3[%arg5, %arg6 - 1, %arg7] : memref<120x120x120xf64>
            %12 = arith.addf %10, %11 : f64
            %13 = arith.mulf %12, %cst : f64
            %14 = arith.addf %6, %13 : f64
            %15 = affine.load %arg3[%arg5, %arg6, %arg7 + 1] : memref<120x120x120xf64>
            %16 = affine.load %arg3[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
            %17 = arith.mulf %16, %cst_0 : f64
            %18 = arith.subf %15, %17 : f64
            %19 = affine.load %arg3[%arg5, %arg6, %arg7 - 1] : memref<120x120x120xf64>
            %20 = arith.addf %18, %19 : f64
            %21 = arith.mulf %20, %cst : f64
            %22 = arith.addf %14, %21 : f64
            %23 = affine.load %arg3[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
            %24 = arith.addf %22, %23 : f64
            affine.store %24, %arg2[%arg5, %arg6, %arg7] : memref<120x120x120xf64>
          }
        }
      }
    }
    return
  }
}
