module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr<272>, dense<64> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<271>, dense<32> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<270>, dense<32> : vector<4xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr, dense<64> : vector<4xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_adi(%arg0: i32, %arg1: i32, %arg2: memref<1000x1000xf64>, %arg3: memref<1000x1000xf64>, %arg4: memref<1000x1000xf64>, %arg5: memref<1000x1000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 1.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f64
    %cst_1 = arith.constant -2000.0000000000002 : f64
    %cst_2 = arith.constant 2000.0000000000002 : f64
    %cst_3 = arith.constant 4001.0000000000005 : f64
    %cst_4 = arith.constant 1000.0000000000001 : f64
    %cst_5 = arith.constant -1999.0000000000002 : f64
    %cst_6 = arith.constant -1000.0000000000001 : f64
    %cst_7 = arith.constant 2001.0000000000002 : f64
    %cst_8 = arith.constant -3999.0000000000005 : f64
    affine.for %arg6 = 1 to 501 {
      affine.for %arg7 = 1 to 999 {
        affine.store %cst, %arg3[0, %arg7] : memref<1000x1000xf64>
        affine.store %cst_0, %arg4[%arg7, 0] : memref<1000x1000xf64>
        %0 = affine.load %arg3[0, %arg7] : memref<1000x1000xf64>
        affine.store %0, %arg5[%arg7, 0] : memref<1000x1000xf64>
        affine.for %arg8 = 1 to 999 {
          %1 = affine.load %arg4[%arg7, %arg8 - 1] : memref<1000x1000xf64>
          %2 = arith.mulf %1, %cst_1 : f64
          %3 = arith.addf %2, %cst_3 : f64
          %4 = arith.divf %cst_2, %3 : f64
          affine.store %4, %arg4[%arg7, %arg8] : memref<1000x1000xf64>
          %5 = affine.load %arg2[%arg8, %arg7 - 1] : memref<1000x1000xf64>
          %6 = arith.mulf %5, %cst_4 : f64
          %7 = affine.load %arg2[%arg8, %arg7] : memref<1000x1000xf64>
          %8 = arith.mulf %7, %cst_5 : f64
          %9 = arith.addf %6, %8 : f64
          %10 = affine.load %arg2[%arg8, %arg7 + 1] : memref<1000x1000xf64>
          %11 = arith.mulf %10, %cst_6 : f64
          %12 = arith.subf %9, %11 : f64
          %13 = affine.load %arg5[%arg7, %arg8 - 1] : memref<1000x1000xf64>
          %14 = arith.mulf %13, %cst_1 : f64
          %15 = arith.subf %12, %14 : f64
          %16 = affine.load %arg4[%arg7, %arg8 - 1] : memref<1000x1000xf64>
          %17 = arith.mulf %16, %cst_1 : f64
          %18 = arith.addf %17, %cst_3 : f64
          %19 = arith.divf %15, %18 : f64
          affine.store %19, %arg5[%arg7, %arg8] : memref<1000x1000xf64>
        }
        affine.store %cst, %arg3[999, %arg7] : memref<1000x1000xf64>
        affine.for %arg8 = 0 to 998 {
          %1 = affine.load %arg4[%arg7, -%arg8 + 998] : memref<1000x1000xf64>
          %2 = affine.load %arg3[-%arg8 + 999, %arg7] : memref<1000x1000xf64>
          %3 = arith.mulf %1, %2 : f64
          %4 = affine.load %arg5[%arg7, -%arg8 + 998] : memref<1000x1000xf64>
          %5 = arith.addf %3, %4 : f64
          affine.store %5, %arg3[-%arg8 + 998, %arg7] : memref<1000x1000xf64>
        }
      }
      affine.for %arg7 = 1 to 999 {
        affine.store %cst, %arg2[%arg7, 0] : memref<1000x1000xf64>
        affine.store %cst_0, %arg4[%arg7, 0] : memref<1000x1000xf64>
        %0 = affine.load %arg2[%arg7, 0] : memref<1000x1000xf64>
        affine.store %0, %arg5[%arg7, 0] : memref<1000x1000xf64>
        affine.for %arg8 = 1 to 999 {
          %1 = affine.load %arg4[%arg7, %arg8 - 1] : memref<1000x1000xf64>
          %2 = arith.mulf %1, %cst_6 : f64
          %3 = arith.addf %2, %cst_7 : f64
          %4 = arith.divf %cst_4, %3 : f64
          affine.store %4, %arg4[%arg7, %arg8] : memref<1000x1000xf64>
          %5 = affine.load %arg3[%arg7 - 1, %arg8] : memref<1000x1000xf64>
          %6 = arith.mulf %5, %cst_2 : f64
          %7 = affine.load %arg3[%arg7, %arg8] : memref<1000x1000xf64>
          %8 = arith.mulf %7, %cst_8 : f64
          %9 = arith.addf %6, %8 : f64
          %10 = affine.load %arg3[%arg7 + 1, %arg8] : memref<1000x1000xf64>
          %11 = arith.mulf %10, %cst_1 : f64
          %12 = arith.subf %9, %11 : f64
          %13 = affine.load %arg5[%arg7, %arg8 - 1] : memref<1000x1000xf64>
          %14 = arith.mulf %13, %cst_6 : f64
          %15 = arith.subf %12, %14 : f64
          %16 = affine.load %arg4[%arg7, %arg8 - 1] : memref<1000x1000xf64>
          %17 = arith.mulf %16, %cst_6 : f64
          %18 = arith.addf %17, %cst_7 : f64
          %19 = arith.divf %15, %18 : f64
          affine.store %19, %arg5[%arg7, %arg8] : memref<1000x1000xf64>
        }
        affine.store %cst, %arg2[%arg7, 999] : memref<1000x1000xf64>
        affine.for %arg8 = 0 to 998 {
          %1 = affine.load %arg4[%arg7, -%arg8 + 998] : memref<1000x1000xf64>
          %2 = affine.load %arg2[%arg7, -%arg8 + 999] : memref<1000x1000xf64>
          %3 = arith.mulf %1, %2 : f64
          %4 = affine.load %arg5[%arg7, -%arg8 + 998] : memref<1000x1000xf64>
          %5 = arith.addf %3, %4 : f64
          affine.store %5, %arg2[%arg7, -%arg8 + 998] : memref<1000x1000xf64>
        }
      }
    }
    return
  }
}
